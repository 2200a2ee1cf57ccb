//! Cross-trace views over the unified `jobs` table: one series per trace (per cluster for Helios).

use super::Analysis;

/// This group's analyses, in `--list` order.
pub static ANALYSES: &[Analysis] = &[];
