//! `helios.throughput`: jobs, GPU jobs and GPUs submitted, started and
//! ended per 10-minute bin (`trace_parser.py parse_throughput`,
//! `cluster_throughput.csv`), a group-by on the bin in the engine; the
//! diurnal submissions read the same series.

use polars::prelude::*;

use super::{any_of, jobs, local_second, selected_clusters, Clusters, CLUSTER, GRID_END_DAY, GRID_FIRST_DAY};
use crate::declare::{About, Analyze, Scope};
use crate::frame::{collect, i64s, strs};
use crate::output::{Headline, Output};
use crate::params::{choice, params, Param};
use crate::Ctx;
use tracelab_schema::error::Result;

/// Per cluster and 10-minute bin (`bin` = local seconds since the epoch /
/// 600), counts of jobs, GPU jobs (gpus != 0) and summed GPUs by their
/// submit, start or end time in [bin, bin + 10 min); only non-empty bins.
pub fn throughput(ctx: &Ctx, clusters: &[String], kind: &str) -> Result<LazyFrame> {
    let (b0, b1) = (GRID_FIRST_DAY * 144, GRID_END_DAY * 144);
    let lf = jobs(ctx)?
        .filter(any_of("cluster", clusters))
        .select([
            col("cluster"),
            local_second(col(format!("{kind}_time"))).floor_div(lit(600i64)).alias("bin"),
            col("gpus"),
        ])
        .filter(col("bin").gt_eq(lit(b0)).and(col("bin").lt(lit(b1))))
        .group_by([col("cluster"), col("bin")])
        .agg([
            len().cast(DataType::Int64).alias(format!("{kind}_job_all")),
            col("gpus").neq(lit(0)).cast(DataType::Int64).sum().alias(format!("{kind}_gpu_job")),
            col("gpus").sum().cast(DataType::Int64).alias(format!("{kind}_gpu_num")),
        ]);
    Ok(lf)
}

choice! {
    /// A column of the throughput series: `<kind>_<count>`.
    pub enum TpColumn {
        SubmitGpuJob = "submit_gpu_job",
        SubmitJobAll = "submit_job_all",
        SubmitGpuNum = "submit_gpu_num",
        StartJobAll = "start_job_all",
        StartGpuJob = "start_gpu_job",
        StartGpuNum = "start_gpu_num",
        EndJobAll = "end_job_all",
        EndGpuJob = "end_gpu_job",
        EndGpuNum = "end_gpu_num",
    }
}

impl TpColumn {
    /// Which time the column counts by: submit, start or end.
    fn kind(self) -> &'static str {
        self.name().split('_').next().unwrap_or("submit")
    }
}

const TP_COLUMN: Param<TpColumn> = Param::choice("column", "submit_gpu_job", "Which throughput column to emit.");

params! {
    pub struct ThroughputParams {
        pub cluster: Clusters = CLUSTER,
        pub column: TpColumn = TP_COLUMN,
    }
}

pub struct Throughput;

impl Analyze for Throughput {
    type Params = ThroughputParams;
    const ABOUT: About = About {
        id: "helios.throughput",
        scope: Scope::Helios,
        mirrors: "HeliosArtifact trace_parser.py parse_throughput (cluster_throughput.csv), input of SC'21 Fig 2b",
        summary: "Jobs, GPU jobs and GPUs submitted, started and ended per 10-minute bin, per cluster",
        title: "10-minute job throughput",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors HeliosArtifact `trace_parser.py` `parse_throughput` (its `cluster_throughput.csv`), the
input of SC'21 Fig 2b.

- **Bins:** 10-minute bins [t, t + 10 min) from 2020-04-01 00:00 to the bin starting 2020-09-28
  23:50 local, 26,064 bins. Times are not floored.
- **Per bin and each of submit, start and end time:** `*_job_all` = jobs whose time falls in the
  bin (every job), `*_gpu_job` = those with `gpus` ≠ 0, `*_gpu_num` = the sum of their `gpus`.
- **Output:** part `throughput`, one curve per cluster with every bin (0 where nothing happened),
  x = bin start in minutes since 2020-04-01 00:00 local; headlines: the column's total over the
  grid.
- **Published:** none.
- **Differences:** none.
"##;

    fn definition(_: &ThroughputParams) -> String {
        TP_DEFINITION.into()
    }

    fn run(ctx: &Ctx, p: &ThroughputParams, out: &mut Output) -> Result<()> {
        run_throughput(ctx, p.cluster, p.column, out)
    }
}

fn run_throughput(ctx: &Ctx, clusters: Clusters, column: TpColumn, out: &mut Output) -> Result<()> {
    let clusters = selected_clusters(ctx, clusters.one())?;
    let (column, kind) = (column.name(), column.kind());
    let df =
        collect(throughput(ctx, &clusters, kind)?.select([col("cluster"), col("bin"), col(column)]), "throughput")?;
    let (cs, bs, vs) = (strs(&df, "cluster")?, i64s(&df, "bin")?, i64s(&df, column)?);
    let b0 = GRID_FIRST_DAY * 144;
    let bins = ((GRID_END_DAY - GRID_FIRST_DAY) * 144) as usize;
    let mut series = Vec::new();
    let mut heads = Vec::new();
    for c in &clusters {
        // Every bin of the grid, zero where nothing happened.
        let mut ys = vec![0i64; bins];
        for i in (0..df.height()).filter(|&i| cs[i].as_deref() == Some(c.as_str())) {
            ys[(bs[i].unwrap_or(b0) - b0) as usize] = vs[i].unwrap_or(0);
        }
        heads.push(Headline::new(
            &format!("{c}.total"),
            &format!("{c}: {column} over the grid"),
            ys.iter().sum::<i64>() as f64,
            "",
        ));
        series.push((c.clone(), ys.iter().enumerate().map(|(i, y)| ((i * 10) as f64, *y as f64)).collect()));
    }
    out.curves("throughput", "minutes since 2020-04-01 00:00 Asia/Shanghai (bin start)", column, series);
    out.headlines("summary", heads);
    Ok(())
}

const TP_DEFINITION: &str = "helios/jobs, all jobs; times in Asia/Shanghai. 10-minute bins [t, t+10 min) from 2020-04-01 00:00 to 2020-09-28 23:50 local (26,064 bins, as parse_throughput). For each of submit/start/end time: *_job_all = jobs in the bin, *_gpu_job = jobs with gpus != 0, *_gpu_num = sum of gpus. Times are not floored. x = bin start in minutes since 2020-04-01 00:00 local.";
