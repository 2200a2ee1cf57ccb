//! `seed.muxflow-gpu-util`: per-GPU utilization and GPU-memory CDFs, the
//! motivation of MuxFlow (Zhao et al. 2023: in production, nearly every GPU
//! stays below 60 % utilization and most below 60 % GPU memory, so GPUs can
//! be shared).
//!
//! What "per-GPU" can mean per trace:
//! - PAI: the sensor table holds lifetime averages per instance, not time
//!   series. A GPU is a (machine, `gpu_name`) of `dfws`; its utilization is
//!   the runtime-weighted mean over the instances on it of `gpu_wrk_util`
//!   per GPU the instance asked for (`gpu_wrk_util / max(1, ceil(plan_gpu /
//!   100))`: the sensor names one device even for a multi-GPU instance), so
//!   it is utilization while occupied. GPU memory the same with
//!   `avg_gpu_wrk_mem` over the GPU's memory (by the machine's GPU type).
//! - Philly: a GPU is a (machine, GPU column) of `philly/gpu_util`; its
//!   utilization is the mean over every minute it reported (idle minutes
//!   included). Philly has no GPU memory series.
//! - Helios: no hardware utilization at all (a note).

use std::collections::BTreeMap;
use std::ops::Bound;

use polars::prelude::*;

use super::notes::Notes;
use super::{present, Traces, ALL_TRACES};
use crate::declare::{About, Analyze, Memory, Published, Scope};
use crate::frame::{collect, f64s, strs};
use crate::output::{Headline, Output};
use crate::pai::{frames, machine_util::gpu_mem_gib};
use crate::params::{params, Param};
use crate::philly;
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::philly::GPU_UTIL as PHILLY_GPU_UTIL;
use tracelab_schema::{pai::MACHINE_SPEC, Trace};
use tracelab_stats::Dist;

const THRESHOLD: Param<f64> = Param::number_in(
    "threshold",
    "60",
    "utilization (%) the headline shares stay below",
    Bound::Included(0.0),
    Bound::Unbounded,
);
const MISC_GPU_MEM: Param<f64> = Param::number_in(
    "misc-gpu-mem",
    "16",
    "GPU memory (GiB) assumed per PAI MISC GPU (no published figure)",
    Bound::Excluded(0.0),
    Bound::Unbounded,
);

params! {
    pub struct GpuUtilParams {
        pub trace: Traces = ALL_TRACES,
        pub threshold: f64 = THRESHOLD,
        pub misc_gpu_mem: f64 = MISC_GPU_MEM,
    }
}

pub struct MuxflowGpuUtil;

/// MuxFlow's published shares (issue 17's reading of the paper).
/// The shares are stated at a 60 % threshold; another threshold has no
/// published counterpart.
const AT_60: &[(&str, &str)] = &[("threshold", "60")];

const SOURCE: &str = "MuxFlow (Zhao et al. 2023), motivation (production GPUs)";

impl Analyze for MuxflowGpuUtil {
    type Params = GpuUtilParams;
    /// Peak 0.94 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 135);
    const ABOUT: About = About {
        id: "seed.muxflow-gpu-util",
        scope: Scope::Cross,
        mirrors: "MuxFlow (Zhao et al. 2023) motivation: per-GPU utilization and GPU memory CDFs",
        summary: "Per-GPU mean utilization and GPU-memory CDFs per trace; share of GPUs below a threshold",
        title: "Per-GPU utilization and GPU memory",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors the MuxFlow motivation: per-GPU utilization and GPU-memory CDFs.

- **PAI.** The sensor table holds per-instance lifetime averages, not time series. A GPU is a
  (machine, `gpu_name`) of `dfws` (instances with a machine, a `gpu_name` and `run_s` > 0). Per
  instance u = `gpu_wrk_util_pct` / max(1, ⌈`plan_gpu_pct`/100⌉) (per GPU it asked for: the sensor names one
  device even for a multi-GPU instance; a missing plan counts 1) and m = 100 × `avg_gpu_wrk_mem_gib` /
  max(1, ⌈`plan_gpu_pct`/100⌉) / the GPU memory of the machine's `gpu_type` (`machine_spec`: V100M32
  32 GiB; V100, P100, T4 16 GiB; MISC and unknown `misc-gpu-mem`). The GPU's value is the
  `run_s`-weighted mean over its instances with a value: utilization *while occupied*.
- **Philly.** A GPU is a (machine, `gpuN_util_pct` column) of `philly/gpu_util`; its value is the
  mean over every minute it reported (nulls skipped, idle minutes counted). No GPU-memory series.
- **Helios** has no utilization (a note).
- **Output:** parts `gpu-util` and `gpu-mem` (one distribution per trace), headlines
  `<trace>_util_below` and `pai_mem_below`: % of GPUs with a mean strictly below `threshold`.
- **Published:** 99 % of GPUs below 60 % utilization and about 90 % below 60 % GPU memory
  (MuxFlow, production online GPUs), beside `pai_util_below`, `philly_util_below` (99) and
  `pai_mem_below` (90).
- **Differences:** MuxFlow measures utilization over time per GPU; PAI only allows
  occupancy-weighted lifetime averages, and Philly's mean includes idle minutes.
"##;
    /// 99 % of production GPUs below 60 % utilization, about 90 % below
    /// 60 % GPU memory; compared with every trace's share.
    const PUBLISHED: &'static [Published] = &[
        Published::new("pai_util_below", 99.0, "%", SOURCE).when(AT_60),
        Published::new("pai_mem_below", 90.0, "%", SOURCE).when(AT_60),
        Published::new("philly_util_below", 99.0, "%", SOURCE).when(AT_60),
    ];

    fn definition(p: &GpuUtilParams) -> String {
        definition(p)
    }

    fn run(ctx: &Ctx, p: &GpuUtilParams, out: &mut Output) -> Result<()> {
        gpu_util(ctx, p, out)
    }
}

fn gpu_util(ctx: &Ctx, p: &GpuUtilParams, out: &mut Output) -> Result<()> {
    let threshold = p.threshold;
    let (mut util, mut mem, mut heads, mut notes) = (Vec::new(), Vec::new(), Vec::new(), Notes::default());
    for trace in p.trace.selected() {
        if !present(ctx, trace) {
            notes.missing(trace);
            continue;
        }
        match trace {
            Trace::Pai => {
                let (u, m) = pai_gpus(ctx, p.misc_gpu_mem)?;
                heads.push(below("pai_util", "PAI GPUs", &u, threshold, "utilization"));
                heads.push(below("pai_mem", "PAI GPUs", &m, threshold, "GPU memory"));
                util.push(("pai".to_string(), Dist::from_samples(u)));
                mem.push(("pai".to_string(), Dist::from_samples(m)));
            }
            Trace::Philly => {
                let u = philly_gpus(ctx)?;
                heads.push(below("philly_util", "Philly GPUs", &u, threshold, "utilization"));
                util.push(("philly".to_string(), Dist::from_samples(u)));
                notes.add("philly", "no GPU memory series in the trace");
            }
            Trace::Helios => notes.add(
                "helios",
                "no hardware utilization in the trace (only GPU allocation; see seed.muxflow-predictability)",
            ),
            Trace::Swf => notes.add("swf", "no GPU utilization in SWF logs"),
            Trace::Acme => notes.add("acme", "no per-GPU utilization in the job traces (the DCGM logs are not read)"),
            Trace::Spot => notes.add("spot", "no GPU utilization in the spot-GPU trace"),
        }
    }
    out.dists("gpu-util", "Mean utilization per GPU (%)", util)
        .dists("gpu-mem", "Mean GPU memory used per GPU (% of its memory)", mem)
        .headlines("below-threshold", heads)
        .table("notes", notes.table());
    Ok(())
}

/// The headline: % of `values` strictly below `threshold`.
fn below(key: &str, who: &str, values: &[f64], threshold: f64, what: &str) -> Headline {
    let n = values.iter().filter(|v| **v < threshold).count();
    let share = if values.is_empty() { f64::NAN } else { 100.0 * n as f64 / values.len() as f64 };
    Headline::new(&format!("{key}_below"), &format!("{who} with mean {what} below {threshold} %"), share, "%")
}

/// GPU memory (GiB) of one GPU by the machine's GPU type, as an expression.
fn gpu_mem_expr(misc: f64) -> Expr {
    ["V100M32", "V100", "P100", "T4"]
        .iter()
        .rev()
        .fold(lit(misc), |acc, t| when(col("gpu_type").eq(lit(*t))).then(lit(gpu_mem_gib(t, misc))).otherwise(acc))
}

/// PAI per-GPU (machine, gpu_name) runtime-weighted mean utilization and
/// GPU memory share, in %, GPU order by (machine, gpu_name).
fn pai_gpus(ctx: &Ctx, misc: f64) -> Result<(Vec<f64>, Vec<f64>)> {
    let cols = ["machine", "gpu_name", "run_s", "plan_gpu_pct", "gpu_wrk_util_pct", "avg_gpu_wrk_mem_gib"];
    let spec = ctx.store.scan(&MACHINE_SPEC)?.select([col("machine"), col("gpu_type")]);
    let need = (col("plan_gpu_pct") / lit(100.0)).ceil().fill_null(lit(1.0)).clip_min(lit(1.0));
    let weighted = |v: Expr| (v.clone() * col("run_s")).sum() / col("run_s").filter(v.is_not_null()).sum();
    let lf = frames::instances_with_sensor(ctx, &cols)?
        .filter(col("machine").is_not_null().and(col("gpu_name").is_not_null()).and(col("run_s").gt(lit(0.0))))
        .join(spec, [col("machine")], [col("machine")], JoinArgs::new(JoinType::Left))
        .with_columns([
            (col("gpu_wrk_util_pct") / need.clone()).alias("u"),
            (lit(100.0) * col("avg_gpu_wrk_mem_gib") / need / gpu_mem_expr(misc)).alias("m"),
        ])
        .group_by([col("machine"), col("gpu_name")])
        .agg([weighted(col("u")).alias("util"), weighted(col("m")).alias("mem")])
        .sort(["machine", "gpu_name"], SortMultipleOptions::default());
    let df = collect(lf, "seed.muxflow-gpu-util pai")?;
    let finite = |v: Vec<Option<f64>>| v.into_iter().flatten().filter(|x| x.is_finite()).collect();
    Ok((finite(f64s(&df, "util")?), finite(f64s(&df, "mem")?)))
}

/// One GPU column's per-machine sums and counts in a window.
type SumAndCount = (Vec<Option<f64>>, Vec<Option<f64>>);

/// Philly per-GPU (machine, column) mean of the non-null minutes, in %,
/// GPU order by (machine, column). Summed per two-day window and combined,
/// so the 42 M rows of a full-scale `gpu_util` are never held at once.
fn philly_gpus(ctx: &Ctx) -> Result<Vec<f64>> {
    let gpu = |i: usize| col(format!("gpu{i}_util_pct"));
    let mut aggs = Vec::new();
    for i in 0..8 {
        aggs.push(gpu(i).sum().alias(format!("s{i}")));
        aggs.push(gpu(i).count().cast(DataType::Float64).alias(format!("n{i}")));
    }
    let mut per_gpu: BTreeMap<String, [(f64, f64); 8]> = BTreeMap::new();
    philly::for_each_window(
        ctx,
        &PHILLY_GPU_UTIL,
        |w| w.group_by([col("machine")]).agg(aggs.clone()),
        |df| {
            let machines = strs(&df, "machine")?;
            let sums: Vec<SumAndCount> = (0..8)
                .map(|g| Ok((f64s(&df, &format!("s{g}"))?, f64s(&df, &format!("n{g}"))?)))
                .collect::<Result<_>>()?;
            for (i, m) in machines.into_iter().enumerate() {
                let acc = per_gpu.entry(m.unwrap_or_default()).or_default();
                for (g, (s, n)) in sums.iter().enumerate() {
                    acc[g].0 += s[i].unwrap_or(0.0);
                    acc[g].1 += n[i].unwrap_or(0.0);
                }
            }
            Ok(())
        },
    )?;
    Ok(per_gpu.values().flat_map(|gpus| gpus.iter().filter(|(_, n)| *n > 0.0).map(|(s, n)| s / n)).collect())
}

fn definition(p: &GpuUtilParams) -> String {
    format!(
        "Per GPU, mean utilization (and GPU memory where the trace has it). PAI: dfws instances (one per worker with \
         a sensor row) with a machine, a gpu_name and run_s > 0; a GPU is a (machine, gpu_name); per instance u = \
         gpu_wrk_util_pct / max(1, ceil(plan_gpu_pct / 100)) (per GPU asked for; a missing plan counts 1) and m = 100 x \
         avg_gpu_wrk_mem_gib / max(1, ceil(plan_gpu_pct / 100)) / GPU memory of the machine's gpu_type (machine_spec: V100M32 \
         32 GiB; V100, P100, T4 16 GiB; MISC and unknown {} GiB); the GPU's value is the run_s-weighted mean over its \
         instances with a value: utilization while occupied, from lifetime averages (the trace has no time series). \
         Philly: a GPU is a (machine, gpuN_util_pct column) of philly/gpu_util; its value is the mean over every \
         minute it reported (null = offline, skipped; idle minutes count). Helios: no utilization. Headlines: % of \
         GPUs with a mean strictly below {} %.",
        p.misc_gpu_mem, p.threshold
    )
}
