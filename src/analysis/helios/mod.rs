//! SenseTime Helios (SC'21): the HeliosArtifact notebook analyses, the per-minute sequence and the cluster summary.

use super::Analysis;

/// This group's analyses, in `--list` order.
pub static ANALYSES: &[Analysis] = &[];
