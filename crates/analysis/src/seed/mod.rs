//! The workload views that three scheduler papers motivate their designs
//! with, measured on PAI, Philly and Helios side by side (tracelab issue
//! 17, "SEED-SYSTEMS"):
//!
//! - MuxFlow (Zhao et al. 2023, GPU sharing): per-GPU utilization and GPU
//!   memory ([`muxflow_util`]); the cluster utilization series, its diurnal
//!   profile and how predictable it is ([`muxflow_predictability`], series
//!   from [`muxflow_series`]).
//! - Horus (Yeung et al., IEEE TPDS 2022): interference of instances that
//!   share a GPU ([`horus_interference`]) and k-means utilization classes
//!   ([`horus_classes`]).
//! - Pollux (Qiao et al., OSDI'21): jobs by GPU-hour class and the busiest
//!   window ([`pollux`]).
//! - PAI (NSDI'22 Sec 6): job durations predicted from what is known at
//!   submission ([`duration`], the tree behind [`ml`]).
//!
//! Every analysis takes what the store has: a trace without the data (Helios
//! has no hardware utilization, only PAI has GPU sharing) gets a row in the
//! output's `notes` table, not an error, so a report over any store renders.
//! Definitions: `docs/definitions.md`, one section per id.

pub mod duration;
pub mod horus_classes;
pub mod horus_interference;
pub mod ml;
pub mod muxflow_predictability;
pub mod muxflow_series;
pub mod muxflow_util;
pub mod pollux;
#[cfg(test)]
mod tests;

use super::{Analysis, Ctx, Param, ResultTable};
use tracelab_schema::Trace;

/// This group's analyses, in `--list` order.
pub static ANALYSES: &[Analysis] = &[
    muxflow_util::GPU_UTIL,
    muxflow_predictability::PREDICTABILITY,
    horus_interference::INTERFERENCE,
    horus_classes::CLASSES,
    pollux::CLASSES,
    pollux::BUSIEST_WINDOW,
    duration::PREDICTION,
];

/// The `trace` parameter of the views that cover every trace present.
pub const ALL_TRACES_PARAM: Param = Param {
    name: "trace",
    default: "all",
    doc: "all: every trace in the store; or one of pai, philly, helios",
    choices: &["all", "pai", "philly", "helios"],
};

/// The traces a `trace` value selects, in the fixed order pai, philly,
/// helios, present in the store or not.
pub fn selected(choice: &str) -> Vec<Trace> {
    [Trace::Pai, Trace::Philly, Trace::Helios].into_iter().filter(|t| choice == "all" || choice == t.name()).collect()
}

/// Whether the store holds the trace (every table analyses read).
pub fn present(ctx: &Ctx, trace: Trace) -> bool {
    ctx.store.has_trace(trace)
}

/// The `notes` part: one row per trace that a view could not measure, and
/// why.
#[derive(Default)]
pub struct Notes(Vec<(String, String)>);

impl Notes {
    pub fn add(&mut self, trace: &str, note: impl Into<String>) {
        self.0.push((trace.to_string(), note.into()));
    }

    /// A note for a selected trace that is not in the store.
    pub fn missing(&mut self, trace: Trace) {
        self.add(trace.name(), "not in the store");
    }

    pub fn table(&self) -> ResultTable {
        let mut t = ResultTable::new(&["trace", "note"]);
        for (trace, note) in &self.0 {
            t.push(vec![trace.as_str().into(), note.as_str().into()]);
        }
        t
    }
}
