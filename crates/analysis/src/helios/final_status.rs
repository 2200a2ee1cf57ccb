//! `helios.final-status`: the final status of CPU against GPU jobs, and of
//! GPU jobs by GPU count (SC'21 Fig 7, HeliosArtifact `job
//! characterization.ipynb`).

use polars::prelude::*;

use super::{is_failed, jobs};
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::{collect, f64s, i64s, scalar};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;

const SOURCE: &str = "helios_cluster_summary.csv total row (SC'21 Fig 7a)";

pub struct FinalStatus;

impl Analyze for FinalStatus {
    type Params = ();
    const ABOUT: About = About {
        id: "helios.final-status",
        scope: Scope::Helios,
        mirrors: "SC'21 Fig 7 (job characterization.ipynb)",
        summary: "Final status of CPU vs GPU jobs, and of GPU jobs by GPU count",
        title: "Final job status",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors SC'21 Fig 7, notebook H9 (`bar_completerate_gpu_num`).

- **Table `cpu-vs-gpu`** (Fig 7a, the summary file's `*_rate_cpu` and `*_rate_gpu`): over all
  jobs, CPU (`gpus` = 0) and GPU (`gpus` > 0); completed = COMPLETED, cancelled = CANCELLED,
  failed = FAILED, TIMEOUT or NODE_FAIL, each as a share of the kind's jobs (the SUSPENDED job
  counts in the denominator only).
- **Table `by-size`** (Fig 7b): GPU jobs of all clusters with exactly g GPUs, g = 1, 2, 4, 8,
  16, 32, and with 64 or more. Other sizes (3, 6, ...) are left out, as the notebook's equality
  tests leave them out. Here failed = every state other than COMPLETED and CANCELLED (the
  notebook's rule, so SUSPENDED counts as failed in this table).
- **Published:** CPU jobs 90.9 / 3.0 / 6.1 %, GPU jobs 62.4 / 22.1 / 15.5 % completed / cancelled
  / failed (the summary file's `total` row).
- **Differences:** Fig 7a upstream reads the summary file; tracelab computes it from the jobs with
  the summary's definitions.
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("cpu.completed", 90.9, "%", SOURCE),
        Published::new("cpu.cancelled", 3.0, "%", SOURCE),
        Published::new("cpu.failed", 6.1, "%", SOURCE),
        Published::new("gpu.completed", 62.4, "%", SOURCE),
        Published::new("gpu.cancelled", 22.1, "%", SOURCE),
        Published::new("gpu.failed", 15.5, "%", SOURCE),
    ];

    fn definition(_: &()) -> String {
        FINAL_STATUS_DEF.into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        run_final_status(ctx, out)
    }
}

/// Sizes of Fig 7b: exact GPU counts, then `>= 64`.
const STATUS_SIZES: [(&str, i64, i64); 7] =
    [("1", 1, 1), ("2", 2, 2), ("4", 4, 4), ("8", 8, 8), ("16", 16, 16), ("32", 32, 32), (">=64", 64, i64::MAX)];

fn run_final_status(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let st = |s: &str| col("state").eq(lit(s.to_string()));
    let rate = |f: Expr| f.cast(DataType::Float64).mean();
    let lf = jobs(ctx)?.group_by([col("gpus").gt(lit(0)).alias("gpu")]).agg([
        len().cast(DataType::Int64).alias("n"),
        rate(st("COMPLETED")).alias("c"),
        rate(st("CANCELLED")).alias("k"),
        rate(is_failed()).alias("f"),
    ]);
    let df = collect(lf.sort(["gpu"], SortMultipleOptions::default()), "status rates")?;
    let mut t = ResultTable::new(&["jobs", "count", "completed_pct", "cancelled_pct", "failed_pct"]);
    let mut heads = Vec::new();
    let (ns, cs, ks, fs) = (i64s(&df, "n")?, f64s(&df, "c")?, f64s(&df, "k")?, f64s(&df, "f")?);
    for (i, kind) in ["CPU", "GPU"].iter().enumerate().take(df.height()) {
        let vals = [cs[i], ks[i], fs[i]].map(|v| 100.0 * v.unwrap_or(f64::NAN));
        t.push(vec![(*kind).into(), Cell::from(ns[i]), vals[0].into(), vals[1].into(), vals[2].into()]);
        for (name, v) in ["completed", "cancelled", "failed"].iter().zip(vals) {
            let key = format!("{}.{name}", kind.to_lowercase());
            heads.push(Headline::new(&key, &format!("{kind} jobs {name}"), v, "%"));
        }
    }
    out.table("cpu-vs-gpu", t);
    out.table("by-size", status_by_size(ctx)?);
    out.headlines("summary", heads);
    Ok(())
}

/// Fig 7b: GPU jobs of all clusters with exactly g GPUs (or >= 64).
fn status_by_size(ctx: &Ctx) -> Result<ResultTable> {
    let mut t = ResultTable::new(&["gpus", "jobs", "completed_pct", "cancelled_pct", "failed_pct"]);
    for (label, lo, hi) in STATUS_SIZES {
        let st = |s: &str| col("state").eq(lit(s.to_string()));
        let lf = jobs(ctx)?.filter(col("gpus").gt_eq(lit(lo)).and(col("gpus").lt_eq(lit(hi)))).select([
            len().cast(DataType::Int64).alias("n"),
            st("COMPLETED").cast(DataType::Float64).mean().alias("c"),
            st("CANCELLED").cast(DataType::Float64).mean().alias("k"),
        ]);
        let df = collect(lf, "status by size")?;
        let n = i64s(&df, "n")?[0].unwrap_or(0);
        let (c, k) = (100.0 * scalar(&df, "c")?, 100.0 * scalar(&df, "k")?);
        t.push(vec![label.into(), Cell::Int(n), c.into(), k.into(), (100.0 - c - k).into()]);
    }
    Ok(t)
}

const FINAL_STATUS_DEF: &str = "Table cpu-vs-gpu (Fig 7a, the summary CSV's complete/cancel/fail_rate_cpu/_gpu): all helios/jobs, CPU = gpus == 0, GPU = gpus > 0; completed = COMPLETED, cancelled = CANCELLED, failed = FAILED + TIMEOUT + NODE_FAIL, each / all jobs of the kind (a SUSPENDED job counts in the denominator only). Table by-size (Fig 7b): GPU jobs of all clusters with gpus == g for g in 1,2,4,8,16,32 and gpus >= 64 (other sizes, e.g. 3, excluded as upstream); failed = every state other than COMPLETED and CANCELLED (the notebook's definition, so SUSPENDED counts as failed there). Percent.";
