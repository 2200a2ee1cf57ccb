//! Alibaba PAI (NSDI'22 "MLaaS in the Wild"): the owners' notebook cells and the paper-only analyses.

use super::Analysis;

/// This group's analyses, in `--list` order.
pub static ANALYSES: &[Analysis] = &[];
