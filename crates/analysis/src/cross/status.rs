//! `cross.status`: the final-status shares of jobs and of GPU time per trace
//! and Helios cluster.

use std::collections::BTreeMap;

use polars::prelude::*;

use super::{jobs_note, with_series, ViewParams, TRACE_DEFINITIONS};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::frame::{collect, f64s, strs};
use crate::output::{Cell, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;

/// The normalized statuses of the unified table, in column order.
const STATUSES: [&str; 5] = ["completed", "failed", "killed", "running", "unknown"];

pub struct Status;

impl Analyze for Status {
    type Params = ViewParams;
    /// Peak 0.83 GB over the 4.52 M unified jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::unified::JOBS, 185);
    const ABOUT: About = About {
        id: "cross.status",
        scope: Scope::Cross,
        mirrors: "tracelab (cross-trace view)",
        summary: "Final-status shares of jobs and of GPU time per trace and Helios cluster",
        title: "Final status across traces",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
tracelab cross-trace view.

- **Computes** per series: table `job-shares`, the jobs and the % share of each normalized status
  (completed, failed, killed, running = not finished when the trace ended, unknown); table
  `gpu-time-shares`, the GPU hours (sum of `gpus_requested` × `run_s`, jobs with both) and each
  status's % share of them. The Helios SC'21 Fig 1b bars use the same GPU-time rule per raw state.
"##;

    fn definition(p: &ViewParams) -> String {
        format!(
            "Unified jobs.status (normalized: completed, failed, killed, running = not finished when the trace ended, \
         unknown). Job shares: jobs per status / jobs, in %. GPU-time shares: sum of gpus_requested x run_s per \
         status / total, jobs with both known, in % (Helios H2 uses sum of gpu_num x duration per state). {} \
         {TRACE_DEFINITIONS}",
            jobs_note(p.jobs)
        )
    }

    fn run(ctx: &Ctx, p: &ViewParams, out: &mut Output) -> Result<()> {
        status(ctx, p, out)
    }
}

fn status(ctx: &Ctx, p: &ViewParams, out: &mut Output) -> Result<()> {
    let lf = with_series(ctx, p.jobs)?.group_by([col("series"), col("status")]).agg([
        len().cast(DataType::Float64).alias("jobs"),
        (col("gpus_requested") * col("run_s")).sum().alias("gpu_s"),
    ]);
    let df = collect(lf, "cross.status")?;
    let (series, status, jobs, gpu_s) =
        (strs(&df, "series")?, strs(&df, "status")?, f64s(&df, "jobs")?, f64s(&df, "gpu_s")?);
    let mut by: BTreeMap<String, BTreeMap<String, (f64, f64)>> = BTreeMap::new();
    for i in 0..df.height() {
        if let (Some(s), Some(st)) = (&series[i], &status[i]) {
            by.entry(s.clone()).or_default().insert(st.clone(), (jobs[i].unwrap_or(0.0), gpu_s[i].unwrap_or(0.0)));
        }
    }
    out.table("job-shares", share_table(&by, "jobs", |v| v.0));
    out.table("gpu-time-shares", share_table(&by, "gpu_hours", |v| v.1));
    Ok(())
}

/// One row per series: the total and the % share of each status.
fn share_table(
    by: &BTreeMap<String, BTreeMap<String, (f64, f64)>>,
    total: &str,
    pick: fn(&(f64, f64)) -> f64,
) -> ResultTable {
    let mut columns = vec!["series", total];
    columns.extend(STATUSES.iter().copied());
    let mut t = ResultTable::new(&columns);
    for (series, per) in by {
        let sum: f64 = per.values().map(pick).sum();
        let shown = if total == "gpu_hours" { sum / 3600.0 } else { sum };
        let mut row = vec![Cell::from(series.as_str()), Cell::Float(shown)];
        row.extend(STATUSES.iter().map(|s| Cell::Float(100.0 * per.get(*s).map_or(0.0, pick) / sum)));
        t.push(row);
    }
    t
}
