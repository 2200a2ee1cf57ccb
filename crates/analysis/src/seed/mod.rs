//! The workload views that three scheduler papers motivate their designs
//! with, measured on PAI, Philly and Helios side by side (tracelab issue
//! 17, "SEED-SYSTEMS"), one file per analysis id
//! (`seed.pollux-busiest-window` is `pollux_busiest_window.rs`):
//!
//! - MuxFlow (Zhao et al. 2023, GPU sharing): per-GPU utilization and GPU
//!   memory ([`muxflow_gpu_util`]); the cluster utilization series, its
//!   diurnal profile and how predictable it is ([`muxflow_predictability`],
//!   series from [`muxflow_series`]).
//! - Horus (Yeung et al., IEEE TPDS 2022): interference of instances that
//!   share a GPU ([`horus_interference`]) and k-means utilization classes
//!   ([`horus_classes`]).
//! - Pollux (Qiao et al., OSDI'21): jobs by GPU-hour class
//!   ([`pollux_classes`]) and the busiest window
//!   ([`pollux_busiest_window`]), on the classes of [`size_classes`].
//! - PAI (NSDI'22 Sec 6): job durations predicted from what is known at
//!   submission ([`duration_prediction`], the tree behind [`ml`]).
//!
//! Shared here: the `trace` parameters (which traces a view covers).
//! Every analysis takes what the store has: a trace without the data (Helios
//! has no hardware utilization, only PAI has GPU sharing) gets a row in the
//! output's `notes` table ([`notes`]), not an error, so a report over any
//! store renders. Definitions: `docs/definitions.md`, one section per id.

pub mod duration_prediction;
pub mod horus_classes;
pub mod horus_interference;
pub mod ml;
pub mod muxflow_gpu_util;
pub mod muxflow_predictability;
pub mod muxflow_series;
pub mod notes;
pub mod pollux_busiest_window;
pub mod pollux_classes;
pub mod size_classes;
#[cfg(test)]
mod tests;

use crate::params::{choice, Param, Seconds};
use crate::Ctx;
use tracelab_schema::Trace;

choice! {
    /// The traces a view covers.
    pub enum Traces {
        /// Every trace in the store.
        All = "all",
        Pai = "pai",
        Philly = "philly",
        Helios = "helios",
    }
}

choice! {
    /// The one trace a view reads.
    pub enum OneTrace {
        Pai = "pai",
        Philly = "philly",
        Helios = "helios",
    }
}

/// The `trace` parameter of the views that cover every trace present.
pub const ALL_TRACES: Param<Traces> =
    Param::choice("trace", "all", "all: every trace in the store; or one of pai, philly, helios");

impl Traces {
    /// The traces selected, in the fixed order pai, philly, helios, present
    /// in the store or not.
    pub fn selected(self) -> Vec<Trace> {
        let one = match self {
            Traces::All => None,
            Traces::Pai => Some(Trace::Pai),
            Traces::Philly => Some(Trace::Philly),
            Traces::Helios => Some(Trace::Helios),
        };
        [Trace::Pai, Trace::Philly, Trace::Helios].into_iter().filter(|t| one.is_none_or(|o| o == *t)).collect()
    }
}

impl OneTrace {
    pub fn trace(self) -> Trace {
        match self {
            OneTrace::Pai => Trace::Pai,
            OneTrace::Philly => Trace::Philly,
            OneTrace::Helios => Trace::Helios,
        }
    }
}

/// Whether the store holds the trace (every table analyses read).
pub fn present(ctx: &Ctx, trace: Trace) -> bool {
    ctx.store.has_trace(trace)
}

/// A duration as a user writes it, in its largest whole unit (`300s` is
/// `5m`, `3600s` is `1h`), for definitions and labels.
pub fn duration_text(d: Seconds) -> String {
    let s = d.0;
    match [(86_400, "d"), (3600, "h"), (60, "m")].into_iter().find(|(unit, _)| s % unit == 0) {
        Some((unit, name)) => format!("{}{name}", s / unit),
        None => format!("{s}s"),
    }
}
