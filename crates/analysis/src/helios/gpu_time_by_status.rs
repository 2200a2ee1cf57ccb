//! `helios.gpu-time-by-status`: the share of GPU time by final status,
//! Helios against Philly (SC'21 Fig 1b, HeliosArtifact
//! `compare_with_Philly_trace.ipynb`).

use polars::prelude::*;

use super::{is_failed, jobs, pct, philly_gpu_jobs};
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::{collect, scalar};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;

const SOURCE: &str = "SC'21 Fig 1b (HeliosArtifact notebook)";

pub struct GpuTimeByStatus;

impl Analyze for GpuTimeByStatus {
    type Params = ();
    const ABOUT: About = About {
        id: "helios.gpu-time-by-status",
        scope: Scope::Helios,
        mirrors: "SC'21 Fig 1b (compare_with_Philly_trace.ipynb)",
        summary: "Share of GPU time by final status, Helios vs Philly",
        title: "GPU time by final status",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors SC'21 Fig 1b, notebook H2 (`compare_philly`).

- **Computes** GPU time (sum of `gpus` × `run_s`) per final status over GPU jobs, and each
  status's share of the sum of the three. Helios (all clusters): Completed = COMPLETED, Canceled
  = CANCELLED, Failed = FAILED, TIMEOUT and NODE_FAIL. Philly (when present): Pass, Killed,
  Failed over `philly/jobs` with `gpus` > 0 and a `run_s` (in UTC: see
  [Philly durations](#time)). Part `gpu-time` and headlines.
- **Published:** Helios 51.3 / 39.4 / 9.3 %, Philly 31.3 / 32.6 / 36.1 % (the notebook's bar
  labels).
- **Differences:** the notebook takes the Helios numbers from the `total` row of
  `helios_cluster_summary.csv` and Philly from its unpublished `philly_trace.csv`; tracelab
  computes both from the jobs, with the same state grouping as the summary table.
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("helios.completed", 51.3, "%", SOURCE),
        Published::new("helios.canceled", 39.4, "%", SOURCE),
        Published::new("helios.failed", 9.3, "%", SOURCE),
        Published::new("philly.completed", 31.3, "%", SOURCE),
        Published::new("philly.canceled", 32.6, "%", SOURCE),
        Published::new("philly.failed", 36.1, "%", SOURCE),
    ];

    fn definition(_: &()) -> String {
        "GPU time = sum of gpus * run_s (GPU seconds) per final status over GPU jobs; share = status / (sum of the three). Helios (all clusters): COMPLETED, CANCELLED, failed = FAILED + TIMEOUT + NODE_FAIL (the summary CSV's grouping; SUSPENDED in none). {philly}".into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        run_gpu_time_by_status(ctx, out)
    }
}

/// (label, GPU seconds) per status group, in the given order.
fn gpu_time_by(lf: LazyFrame, groups: Vec<(&str, Expr)>) -> Result<Vec<(String, f64)>> {
    let aggs: Vec<Expr> = groups
        .iter()
        .enumerate()
        .map(|(i, (_, f))| {
            (col("gpus").cast(DataType::Float64) * col("run_s")).filter(f.clone()).sum().alias(format!("g{i}"))
        })
        .collect();
    let df = collect(lf.select(aggs), "GPU time by status")?;
    groups.iter().enumerate().map(|(i, (l, _))| Ok((l.to_string(), scalar(&df, &format!("g{i}"))?))).collect()
}

fn run_gpu_time_by_status(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let st = |s: &str| col("state").eq(lit(s.to_string()));
    let helios = gpu_time_by(
        jobs(ctx)?.filter(col("gpus").gt(lit(0))),
        vec![("Completed", st("COMPLETED")), ("Canceled", st("CANCELLED")), ("Failed", is_failed())],
    )?;
    let mut rows = vec![("Helios", helios)];
    if let Some(lf) = philly_gpu_jobs(ctx) {
        let ps = |s: &str| col("status").eq(lit(s.to_string()));
        let philly =
            gpu_time_by(lf, vec![("Completed", ps("Pass")), ("Canceled", ps("Killed")), ("Failed", ps("Failed"))])?;
        rows.push(("Philly", philly));
        out.fill("philly", "Philly: philly/jobs with gpus > 0 (first-attempt GPUs) and run_s (first start to last end, UTC instants) recorded, status Pass / Killed / Failed.");
    } else {
        out.fill("philly", "The store has no Philly trace: only Helios is emitted.");
    }
    let mut t = ResultTable::new(&["trace", "status", "gpu_time_s", "share_pct"]);
    let mut heads = Vec::new();
    for (trace, groups) in rows {
        let total: f64 = groups.iter().map(|g| g.1).sum();
        for (status, v) in &groups {
            t.push(vec![trace.into(), status.as_str().into(), Cell::Float(*v), Cell::Float(pct(*v, total))]);
            let key = format!("{}.{}", trace.to_lowercase(), status.to_lowercase());
            heads.push(Headline::new(&key, &format!("{trace} GPU time {status}"), pct(*v, total), "%"));
        }
    }
    out.table("gpu-time", t);
    out.headlines("summary", heads);
    Ok(())
}
