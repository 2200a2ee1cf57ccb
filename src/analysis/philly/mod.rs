//! Microsoft Philly (ATC'19): the owners' notebook analyses and the paper's numbers.

use super::Analysis;

/// This group's analyses, in `--list` order.
pub static ANALYSES: &[Analysis] = &[];
