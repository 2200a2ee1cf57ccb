//! `helios.sequence`: the per-minute allocation sequence (`trace_parser.py
//! parse_sequence`, `cluster_sequence.csv`), built set-wise in the engine as
//! a sort-and-sweep (+gpus at the floored start minute, -gpus one minute
//! after the floored end, cumulative sum over the minute grid). Upstream
//! loops over jobs (hours per cluster); this is seconds. The diurnal,
//! monthly and per-VC analyses read the same sequence.

use polars::prelude::*;

use super::{jobs, local_minute, selected_clusters, Clusters, CLUSTER, GRID_END_DAY, GRID_FIRST_DAY};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::frame::{collect, f64s, i64s};
use crate::output::{Headline, Output};
use crate::params::{choice, params, Param};
use crate::Ctx;
use tracelab_schema as schema;
use tracelab_schema::error::Result;

/// Which units the sequence is computed for.
pub struct SeqSpec<'a> {
    /// Clusters to include.
    pub clusters: &'a [String],
    /// `Some(vcs)`: one sequence per (cluster, vc) with the VC's daily GPUs
    /// as capacity (H6); `None`: per cluster with the day's cluster total.
    pub vcs: Option<&'a [String]>,
    /// Local days since 1970-01-01, [first, end).
    pub first_day: i64,
    pub end_day: i64,
}

impl SeqSpec<'_> {
    /// The units a sequence is computed for: (cluster, vc).
    fn units(&self) -> Vec<(String, Option<String>)> {
        let mut out = Vec::new();
        for c in self.clusters {
            match self.vcs {
                Some(vcs) => out.extend(vcs.iter().map(|v| (c.clone(), Some(v.clone())))),
                None => out.push((c.clone(), None)),
            }
        }
        out
    }
}

/// Rows of one unit (a cluster, or a cluster's VC).
fn unit_filter((cluster, vc): &(String, Option<String>)) -> Expr {
    let f = col("cluster").eq(lit(cluster.clone()));
    match vc {
        Some(v) => f.and(col("vc").eq(lit(v.clone()))),
        None => f,
    }
}

const DELTAS: [&str; 4] = ["d_jobs", "d_gpus", "d_multi", "d_single"];

fn polars_err(what: &str) -> impl Fn(PolarsError) -> tracelab_schema::error::Error + '_ {
    move |e| tracelab_schema::error::Error::polars(what.to_string(), e)
}

/// Capacity per local day of the unit: the VC's GPUs, or the sum over the
/// cluster's VCs (the raw `total`), restricted to the grid days.
fn capacity(ctx: &Ctx, spec: &SeqSpec, unit: Expr) -> Result<LazyFrame> {
    let day = col("date").cast(DataType::Int32).cast(DataType::Int64);
    let lf = ctx
        .store
        .scan(&schema::helios::VC_GPUS)?
        .filter(unit)
        .with_column(day.alias("day"))
        .filter(col("day").gt_eq(lit(spec.first_day)).and(col("day").lt(lit(spec.end_day))));
    Ok(lf.group_by([col("day")]).agg([col("gpus").sum().cast(DataType::Int64).alias("total_gpu_num")]))
}

/// One row per grid minute, deltas zero, with the day's capacity.
fn grid(ctx: &Ctx, spec: &SeqSpec, unit: Expr) -> Result<LazyFrame> {
    let offsets = df!("off" => (0..1440i64).collect::<Vec<_>>()).map_err(polars_err("minute offsets"))?;
    let mut cols = vec![(col("day") * lit(1440i64) + col("off")).alias("minute"), col("total_gpu_num")];
    cols.extend(DELTAS.iter().map(|d| lit(0i64).cast(DataType::Int64).alias(*d)));
    Ok(capacity(ctx, spec, unit)?.cross_join(offsets.lazy(), None).select(cols))
}

/// Start (+) and end (-) events of the unit's GPU jobs, clamped to the
/// grid: a job started before the grid counts from its first minute; one
/// ending after it never subtracts.
fn events(ctx: &Ctx, spec: &SeqSpec, unit: Expr) -> Result<LazyFrame> {
    let (g0, g1) = (spec.first_day * 1440, spec.end_day * 1440);
    let base = jobs(ctx)?
        .filter(unit)
        .filter(col("gpus").gt(lit(0)).and(col("start_time").is_not_null()).and(col("end_time").is_not_null()));
    let gpus = || col("gpus").cast(DataType::Int64);
    let side = |minute: Expr, sign: i64| {
        base.clone()
            .select([
                minute.clip_min(lit(g0)).alias("minute"),
                lit(NULL).cast(DataType::Int64).alias("total_gpu_num"),
                lit(sign).cast(DataType::Int64).alias("d_jobs"),
                (gpus() * lit(sign)).alias("d_gpus"),
                (when(gpus().gt(lit(1))).then(gpus()).otherwise(lit(0i64)) * lit(sign)).alias("d_multi"),
                (when(gpus().eq(lit(1))).then(gpus()).otherwise(lit(0i64)) * lit(sign)).alias("d_single"),
            ])
            .filter(col("minute").lt(lit(g1)))
    };
    // Inclusive `start <= t <= end` on floored minutes: +1 at floor(start),
    // -1 at floor(end) + 1.
    let plus = side(local_minute(col("start_time")), 1);
    let minus = side(local_minute(col("end_time")) + lit(1i64), -1);
    concat([plus, minus], UnionArgs::default()).map_err(polars_err("events"))
}

/// The per-minute sequence: `cluster` (and `vc` when per VC), `minute`
/// (local minutes since the epoch) and the upstream columns
/// `running_gpujob_num`, `running_gpu_num` (capped at the total),
/// `running_gpu_multi`, `running_gpu_single`, `total_gpu_num`,
/// `gpu_utilization` (= round(min(running, total) / total, 3), null when the
/// total is 0), `gpu_utilization_multi` and `_single` (not capped), sorted
/// by unit (in the given order) and minute.
pub fn sequence(ctx: &Ctx, spec: &SeqSpec) -> Result<LazyFrame> {
    let frames = spec.units().iter().map(|u| unit_sequence(ctx, spec, u)).collect::<Result<Vec<_>>>()?;
    concat(frames, UnionArgs::default()).map_err(polars_err("sequence"))
}

/// The sweep for one unit: grid rows and events grouped by minute, sorted,
/// cumulative sums, then only the grid minutes kept.
fn unit_sequence(ctx: &Ctx, spec: &SeqSpec, unit: &(String, Option<String>)) -> Result<LazyFrame> {
    let f = unit_filter(unit);
    let all = concat([grid(ctx, spec, f.clone())?, events(ctx, spec, f)?], UnionArgs::default())
        .map_err(polars_err("sequence"))?;
    let mut aggs: Vec<Expr> = DELTAS.iter().map(|d| col(*d).sum()).collect();
    aggs.push(col("total_gpu_num").max());
    let sums: Vec<Expr> = DELTAS
        .iter()
        .zip(["running_gpujob_num", "raw_gpus", "running_gpu_multi", "running_gpu_single"])
        .map(|(d, name)| col(*d).cum_sum(false).alias(name))
        .collect();
    let mut keys = vec![lit(unit.0.clone()).alias("cluster")];
    if let Some(v) = &unit.1 {
        keys.push(lit(v.clone()).alias("vc"));
    }
    let swept = all
        .group_by([col("minute")])
        .agg(aggs)
        .sort(["minute"], SortMultipleOptions::default())
        .with_columns(sums)
        .filter(col("total_gpu_num").is_not_null())
        .with_columns(keys);
    Ok(finish(swept))
}

/// Caps, divides and rounds as `parse_sequence` does (numpy `round(3)` is
/// half-to-even on x*1000).
fn finish(lf: LazyFrame) -> LazyFrame {
    let total = || col("total_gpu_num");
    let share = |e: Expr| {
        when(total().gt(lit(0)))
            .then((e.cast(DataType::Float64) / total().cast(DataType::Float64)).round(3, RoundMode::HalfToEven))
            .otherwise(lit(NULL).cast(DataType::Float64))
    };
    let capped = when(col("raw_gpus").gt(total())).then(total()).otherwise(col("raw_gpus"));
    lf.with_column(capped.alias("running_gpu_num")).with_columns([
        share(col("running_gpu_num")).alias("gpu_utilization"),
        share(col("running_gpu_multi")).alias("gpu_utilization_multi"),
        share(col("running_gpu_single")).alias("gpu_utilization_single"),
    ])
}

/// The cluster sequences over the upstream grid.
pub fn cluster_sequence(ctx: &Ctx, clusters: &[String]) -> Result<LazyFrame> {
    sequence(ctx, &SeqSpec { clusters, vcs: None, first_day: GRID_FIRST_DAY, end_day: GRID_END_DAY })
}

choice! {
    /// A column of the sequence.
    pub enum SeqColumn {
        GpuUtilization = "gpu_utilization",
        RunningGpujobNum = "running_gpujob_num",
        RunningGpuNum = "running_gpu_num",
        RunningGpuMulti = "running_gpu_multi",
        RunningGpuSingle = "running_gpu_single",
        TotalGpuNum = "total_gpu_num",
        GpuUtilizationMulti = "gpu_utilization_multi",
        GpuUtilizationSingle = "gpu_utilization_single",
    }
}

const SEQ_COLUMN: Param<SeqColumn> =
    Param::choice("column", "gpu_utilization", "Which sequence column to emit as curves.");

params! {
    pub struct SequenceParams {
        pub cluster: Clusters = CLUSTER,
        pub column: SeqColumn = SEQ_COLUMN,
    }
}

pub struct Sequence;

impl Analyze for Sequence {
    type Params = SequenceParams;
    /// Peak 0.59 GB over the 3.36 M Helios jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::helios::JOBS, 180);
    const ABOUT: About = About {
        id: "helios.sequence",
        scope: Scope::Helios,
        mirrors:
            "HeliosArtifact trace_parser.py parse_sequence (cluster_sequence.csv), input of SC'21 Fig 2a and Fig 3",
        summary: "Per-minute running GPU jobs, allocated GPUs and allocation share of the day's GPUs, per cluster",
        title: "Per-minute GPU allocation sequence",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors HeliosArtifact `trace_parser.py` `parse_sequence` (its `cluster_sequence.csv`), the
input of SC'21 Fig 2a and Fig 3.

- **Jobs:** GPU jobs with a start and an end. Times are local minutes, floored (seconds
  dropped). A job runs at minute t when floor(start) ≤ t ≤ floor(end), both ends included.
- **Grid:** every minute from 2020-04-01 00:00 to 2020-09-28 23:59 local, restricted to the days
  present in `helios/vc_gpus`. A job that started before the grid counts from its first minute.
- **Columns per minute:** `running_gpujob_num` (jobs running), `running_gpu_num` (their GPUs,
  capped at the day's total), `running_gpu_multi` (GPUs of running jobs with more than one GPU),
  `running_gpu_single` (of one-GPU jobs), `total_gpu_num` (the day's GPUs, summed over VCs),
  `gpu_utilization` = round(`running_gpu_num` / `total_gpu_num`, 3), and
  `gpu_utilization_multi`, `gpu_utilization_single` (same division, not capped). Rounding is half
  to even on the third decimal, as numpy rounds. A day whose total is 0 gives null shares.
- **Output:** part `sequence`, one curve per cluster of the chosen column against minutes since
  2020-04-01 00:00 local; headlines: the mean of the column over the grid minutes, and the number
  of grid minutes.
- **Published:** none.
- **Differences:** upstream loops over jobs; tracelab sums start and end events and takes running
  sums (same result). A zero total gives null instead of a division by zero.
"##;

    fn definition(_: &SequenceParams) -> String {
        SEQ_DEFINITION.into()
    }

    fn run(ctx: &Ctx, p: &SequenceParams, out: &mut Output) -> Result<()> {
        run_sequence(ctx, p.cluster, p.column, out)
    }
}

fn run_sequence(ctx: &Ctx, clusters: Clusters, column: SeqColumn, out: &mut Output) -> Result<()> {
    let clusters = selected_clusters(ctx, clusters.one())?;
    let column = column.name();
    let g0 = GRID_FIRST_DAY * 1440;
    let mut series = Vec::new();
    let mut heads = Vec::new();
    for c in &clusters {
        let lf = cluster_sequence(ctx, std::slice::from_ref(c))?.select([col("minute"), col(column)]);
        let df = collect(lf, "helios sequence")?;
        let pts: Vec<(f64, f64)> = i64s(&df, "minute")?
            .into_iter()
            .zip(f64s(&df, column)?)
            .map(|(m, v)| ((m.unwrap_or(0) - g0) as f64, v.unwrap_or(f64::NAN)))
            .collect();
        let finite: Vec<f64> = pts.iter().map(|p| p.1).filter(|v| v.is_finite()).collect();
        let mean = finite.iter().sum::<f64>() / finite.len() as f64;
        heads.push(Headline::new(&format!("{c}.mean"), &format!("{c}: mean {column} over the grid minutes"), mean, ""));
        let n = pts.len() as f64;
        heads.push(Headline::new(&format!("{c}.minutes"), &format!("{c}: grid minutes with capacity"), n, "minutes"));
        series.push((c.clone(), pts));
    }
    out.curves("sequence", "minutes since 2020-04-01 00:00 Asia/Shanghai", column, series);
    out.headlines("summary", heads);
    Ok(())
}

const SEQ_DEFINITION: &str = "helios/jobs GPU jobs (gpus > 0, start and end recorded), times in Asia/Shanghai floored to the minute; a job runs at minute t iff floor(start) <= t <= floor(end) (inclusive, as parse_sequence). Grid 2020-04-01 00:00 .. 2020-09-28 23:59 local, restricted to days present in helios/vc_gpus. running_gpujob_num and running_gpu_num are sums over running jobs (sort-and-sweep: +gpus at floor(start), -gpus at floor(end)+1 min, cumulative sum); total_gpu_num = the day's sum over VCs of helios/vc_gpus; running_gpu_num is capped at total_gpu_num; gpu_utilization = round(running_gpu_num / total_gpu_num, 3) (half to even, numpy), i.e. GPU allocation, not hardware utilization; _multi (gpus > 1) and _single (gpus == 1) are not capped. Null where the day's total is 0. x = minutes since 2020-04-01 00:00 local.";
