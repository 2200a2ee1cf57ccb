//! Alibaba cluster-trace-v2026-spot-gpu (GFS, ASPLOS'26): HP and Spot jobs
//! on a cluster of six GPU models. The owners publish no analysis notebook;
//! these views follow the paper's characterization (Sec 2: job durations,
//! sizes, allocation per GPU model) and answer alibaba/clusterdata#260
//! (demand against capacity per GPU model, its definition stated).
//!
//! One file per analysis id. Shared here: the model and class orders, the
//! scans, and the trace's time axis (seconds since the first submission,
//! dated 2024-03-01 00:00 Asia/Shanghai by ingest).

pub mod class_mix;
pub mod demand_capacity;
pub mod durations_sizes;

#[cfg(test)]
mod tests;

use polars::prelude::*;

use crate::Ctx;
use tracelab_schema as schema;
use tracelab_schema::error::Result;

/// The GPU models in the order of the README (A10 and the A100 first), then
/// any other name sorted.
pub const MODELS: [&str; 6] = ["A10", "GPU-series-1", "A100-SXM4-80GB", "H800", "GPU-series-2", "A800-SXM4-80GB"];
/// The job classes.
pub const CLASSES: [&str; 2] = ["HP", "Spot"];

/// The spot-GPU jobs table.
pub fn jobs(ctx: &Ctx) -> Result<LazyFrame> {
    ctx.store.scan(&schema::spot::JOBS)
}

/// The spot-GPU nodes table.
pub fn nodes(ctx: &Ctx) -> Result<LazyFrame> {
    ctx.store.scan(&schema::spot::NODES)
}

/// `names` in [`MODELS`] order, then the rest sorted.
pub fn model_order(mut names: Vec<String>) -> Vec<String> {
    names.sort_by_key(|m| (MODELS.iter().position(|k| k == m).unwrap_or(MODELS.len()), m.clone()));
    names.dedup();
    names
}

/// Percent share, NaN when the total is zero.
pub fn pct(part: f64, total: f64) -> f64 {
    if total > 0.0 {
        100.0 * part / total
    } else {
        f64::NAN
    }
}
