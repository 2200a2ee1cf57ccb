//! The per-minute allocation sequence (`trace_parser.py parse_sequence`,
//! `cluster_sequence.csv`) and the 10-minute throughput series
//! (`parse_throughput`, `cluster_throughput.csv`), built set-wise in the
//! engine: the sequence is a sort-and-sweep (+gpus at the floored start
//! minute, -gpus one minute after the floored end, cumulative sum over the
//! minute grid), the throughput a group-by on the 10-minute bin. Upstream
//! loops over jobs (hours per cluster); this is seconds.

use polars::prelude::*;

use super::{any_of, jobs, local_minute, local_second, selected_clusters, CLUSTER_PARAM, GRID_END_DAY, GRID_FIRST_DAY};
use crate::frame::{collect, f64s, i64s, strs};
use crate::{Analysis, Args, Ctx, Headline, Output, Param, Scope};
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

const SEQ_COLUMNS: [&str; 8] = [
    "gpu_utilization",
    "running_gpujob_num",
    "running_gpu_num",
    "running_gpu_multi",
    "running_gpu_single",
    "total_gpu_num",
    "gpu_utilization_multi",
    "gpu_utilization_single",
];

pub const SEQUENCE: Analysis = Analysis {
    id: "helios.sequence",
    scope: Scope::Helios,
    mirrors: "HeliosArtifact trace_parser.py parse_sequence (cluster_sequence.csv), input of SC'21 Fig 2a and Fig 3",
    summary: "Per-minute running GPU jobs, allocated GPUs and allocation share of the day's GPUs, per cluster",
    params: &[
        CLUSTER_PARAM,
        Param {
            name: "column",
            default: "gpu_utilization",
            doc: "Which sequence column to emit as curves.",
            choices: &SEQ_COLUMNS,
        },
    ],
    run: run_sequence,
};

fn run_sequence(ctx: &Ctx, args: &Args) -> Result<Output> {
    let clusters = selected_clusters(ctx, args.str("cluster"))?;
    let column = args.str("column");
    let g0 = GRID_FIRST_DAY * 1440;
    let mut out = Output::new("helios.sequence", "Per-minute GPU allocation sequence", SEQ_DEFINITION);
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
    Ok(out)
}

const SEQ_DEFINITION: &str = "helios/jobs GPU jobs (gpus > 0, start and end recorded), times in Asia/Shanghai floored to the minute; a job runs at minute t iff floor(start) <= t <= floor(end) (inclusive, as parse_sequence). Grid 2020-04-01 00:00 .. 2020-09-28 23:59 local, restricted to days present in helios/vc_gpus. running_gpujob_num and running_gpu_num are sums over running jobs (sort-and-sweep: +gpus at floor(start), -gpus at floor(end)+1 min, cumulative sum); total_gpu_num = the day's sum over VCs of helios/vc_gpus; running_gpu_num is capped at total_gpu_num; gpu_utilization = round(running_gpu_num / total_gpu_num, 3) (half to even, numpy), i.e. GPU allocation, not hardware utilization; _multi (gpus > 1) and _single (gpus == 1) are not capped. Null where the day's total is 0. x = minutes since 2020-04-01 00:00 local.";

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

const TP_COLUMNS: [&str; 9] = [
    "submit_gpu_job",
    "submit_job_all",
    "submit_gpu_num",
    "start_job_all",
    "start_gpu_job",
    "start_gpu_num",
    "end_job_all",
    "end_gpu_job",
    "end_gpu_num",
];

pub const THROUGHPUT: Analysis = Analysis {
    id: "helios.throughput",
    scope: Scope::Helios,
    mirrors: "HeliosArtifact trace_parser.py parse_throughput (cluster_throughput.csv), input of SC'21 Fig 2b",
    summary: "Jobs, GPU jobs and GPUs submitted, started and ended per 10-minute bin, per cluster",
    params: &[
        CLUSTER_PARAM,
        Param {
            name: "column",
            default: "submit_gpu_job",
            doc: "Which throughput column to emit.",
            choices: &TP_COLUMNS,
        },
    ],
    run: run_throughput,
};

fn run_throughput(ctx: &Ctx, args: &Args) -> Result<Output> {
    let clusters = selected_clusters(ctx, args.str("cluster"))?;
    let column = args.str("column");
    let kind = column.split('_').next().unwrap_or("submit");
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
    let mut out = Output::new("helios.throughput", "10-minute job throughput", TP_DEFINITION);
    out.curves("throughput", "minutes since 2020-04-01 00:00 Asia/Shanghai (bin start)", column, series);
    out.headlines("summary", heads);
    Ok(out)
}

const TP_DEFINITION: &str = "helios/jobs, all jobs; times in Asia/Shanghai. 10-minute bins [t, t+10 min) from 2020-04-01 00:00 to 2020-09-28 23:50 local (26,064 bins, as parse_throughput). For each of submit/start/end time: *_job_all = jobs in the bin, *_gpu_job = jobs with gpus != 0, *_gpu_num = sum of gpus. Times are not floored. x = bin start in minutes since 2020-04-01 00:00 local.";
