//! `helios.monthly`: GPU jobs per month (single vs multi-GPU) and the
//! monthly mean GPU allocation, per cluster (SC'21 Fig 3, HeliosArtifact
//! `cluster_characterization.ipynb` `monthly_util`; `trace_parser`
//! `parse_monthly_job` and `parse_monthly_util`).

use polars::prelude::*;

use super::sequence::cluster_sequence;
use super::{jobs, local_second, present_clusters, series_by_cluster};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::frame::{collect, i64s, strs};
use crate::output::{Cell, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct Monthly;

impl Analyze for Monthly {
    type Params = ();
    /// Peak 0.61 GB over the 3.36 M Helios jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::helios::JOBS, 185);
    const ABOUT: About = About {
        id: "helios.monthly",
        scope: Scope::Helios,
        mirrors: "SC'21 Fig 3 (cluster_characterization.ipynb monthly_util; trace_parser parse_monthly_job/_util)",
        summary: "GPU jobs per month (single vs multi-GPU) and monthly mean GPU allocation, per cluster",
        title: "Monthly GPU jobs and allocation",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors SC'21 Fig 3, notebook H5 (`monthly_util`; `trace_parser.py` `parse_monthly_job` and
`parse_monthly_util`).

- **Table `jobs`:** per cluster and month of `submit_time` (local; months 4 to 9): all jobs, CPU
  jobs, GPU jobs, one-GPU jobs and multi-GPU jobs.
- **Curves:** `utilization`, the monthly mean of the per-minute `gpu_utilization` (capped), and
  `utilization-split`, the monthly means of `gpu_utilization_multi` and `_single` (not capped),
  all × 100, by the minute's local month.
- **Published:** none.
- **Differences:** none.
"##;

    fn definition(_: &()) -> String {
        MONTHLY_DEF.into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        run_monthly(ctx, out)
    }
}

fn run_monthly(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let clusters = present_clusters(ctx)?;
    out.table("jobs", monthly_jobs(ctx)?);
    let month =
        (col("minute") * lit(60_000_000i64)).cast(DataType::Datetime(TimeUnit::Microseconds, None)).dt().month();
    let util = cluster_sequence(ctx, &clusters)?
        .select([
            col("cluster"),
            month.cast(DataType::Int64).alias("month"),
            col("gpu_utilization"),
            col("gpu_utilization_multi"),
            col("gpu_utilization_single"),
        ])
        .group_by([col("cluster"), col("month")])
        .agg([
            col("gpu_utilization").mean(),
            col("gpu_utilization_multi").mean(),
            col("gpu_utilization_single").mean(),
        ]);
    let df = collect(util, "monthly utilization")?;
    out.curves(
        "utilization",
        "month (2020)",
        "mean GPU allocation (%)",
        series_by_cluster(&df, &clusters, "month", "gpu_utilization", 100.0)?,
    );
    let mut split = Vec::new();
    for (kind, colname) in [("multi-GPU", "gpu_utilization_multi"), ("single-GPU", "gpu_utilization_single")] {
        for (c, pts) in series_by_cluster(&df, &clusters, "month", colname, 100.0)? {
            split.push((format!("{c} {kind}"), pts));
        }
    }
    out.curves("utilization-split", "month (2020)", "mean GPU allocation (%)", split);
    Ok(())
}

/// Jobs per cluster and submit month (4..9), as parse_monthly_job.
fn monthly_jobs(ctx: &Ctx) -> Result<ResultTable> {
    let month = (local_second(col("submit_time")) * lit(1_000_000i64))
        .cast(DataType::Datetime(TimeUnit::Microseconds, None))
        .dt()
        .month()
        .cast(DataType::Int64);
    let g = || col("gpus");
    let lf = jobs(ctx)?
        .select([col("cluster"), month.alias("month"), col("gpus")])
        .filter(col("month").gt_eq(lit(4i64)).and(col("month").lt_eq(lit(9i64))))
        .group_by([col("cluster"), col("month")])
        .agg([
            len().cast(DataType::Int64).alias("jobs"),
            g().eq(lit(0)).cast(DataType::Int64).sum().alias("cpu_jobs"),
            g().gt(lit(0)).cast(DataType::Int64).sum().alias("gpu_jobs"),
            g().eq(lit(1)).cast(DataType::Int64).sum().alias("single_gpu_jobs"),
            g().gt(lit(1)).cast(DataType::Int64).sum().alias("multi_gpu_jobs"),
        ]);
    let df = collect(lf, "monthly jobs")?;
    let names = ["jobs", "cpu_jobs", "gpu_jobs", "single_gpu_jobs", "multi_gpu_jobs"];
    let mut t =
        ResultTable::new(&["cluster", "month", "jobs", "cpu_jobs", "gpu_jobs", "single_gpu_jobs", "multi_gpu_jobs"]);
    let (cs, ms) = (strs(&df, "cluster")?, i64s(&df, "month")?);
    let cols: Vec<Vec<Option<i64>>> = names.iter().map(|n| i64s(&df, n)).collect::<Result<_>>()?;
    for c in present_clusters(ctx)? {
        for m in 4..=9i64 {
            let row = (0..df.height()).find(|&i| cs[i].as_deref() == Some(c.as_str()) && ms[i] == Some(m));
            let mut cells = vec![Cell::from(c.as_str()), Cell::Int(m)];
            cells.extend(cols.iter().map(|v| Cell::Int(row.and_then(|i| v[i]).unwrap_or(0))));
            t.push(cells);
        }
    }
    Ok(t)
}

const MONTHLY_DEF: &str = "Table `jobs`: helios/jobs per cluster and month of submit_time (Asia/Shanghai), months 4..9 (parse_monthly_job): all jobs, CPU jobs (gpus == 0), GPU jobs (gpus > 0), single-GPU (gpus == 1) and multi-GPU (gpus > 1) jobs. Curves: monthly mean of the per-minute gpu_utilization (capped) and of gpu_utilization_multi / _single (not capped) of helios.sequence, x100, by the minute's local month (parse_monthly_util, Fig 3).";
