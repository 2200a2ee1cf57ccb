//! Alibaba PAI (NSDI'22 "MLaaS in the Wild"): the owners' notebook cells and the paper-only analyses.

pub mod bins;
pub mod capacity;
pub mod contention;
pub mod derived;
pub mod frames;
pub mod mix;
pub mod runtime;
pub mod sharing;
pub mod submissions;
pub mod tails;
pub mod usage;
pub mod util;
pub mod wait;

use super::Analysis;

/// The PAI analyses by theme (one static array per module), in `--list`
/// order: the notebook cells first, then the paper-only analyses.
pub static GROUPS: &[&[Analysis]] = &[
    &runtime::ANALYSES,
    &submissions::ANALYSES,
    &wait::ANALYSES,
    &usage::ANALYSES,
    &util::ANALYSES,
    &capacity::ANALYSES,
    &mix::ANALYSES,
    &contention::ANALYSES,
    &tails::ANALYSES,
    &sharing::ANALYSES,
];
