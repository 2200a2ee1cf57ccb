//! `seed.horus-interference`: Horus (Yeung et al., IEEE TPDS 2022) places
//! jobs by predicted interference. In PAI, instances share GPUs (GPU
//! sharing, NSDI'22 Sec 5): does sharing one slow an instance down?
//!
//! Population: `dfws` instances with a machine, a `gpu_name` and a covered
//! time (`end_time > start_time`). Co-located instances of one = the
//! others on the same (machine, gpu_name) whose `[start, end)` overlaps its
//! own. Slowdown = `run_s` / median `run_s` of its recurring group (group
//! tag, the user where untagged; groups with at least `min-group` instances
//! of the population), as `pai.cpu-contention` defines recurring groups.
//! Counting overlaps is a sort and two binary searches per instance.

use polars::prelude::*;

use super::notes::Notes;
use super::present;
use crate::declare::{About, Analyze, Memory, Scope};
use crate::frame::{collect, f64s, i64s, strs};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::pai::bins::{covers_time, over};
use crate::pai::frames;
use crate::params::{params, Param};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::Trace;
use tracelab_stats::{mean_interval, pearson, spearman, Correlation, Dist};

// Up to u32::MAX: the group size it is compared with is a u32 count.
const MIN_GROUP: Param<u64> =
    Param::whole("min-group", "5", "a group recurs with at least this many instances", 0, u32::MAX as u64);
// One bucket per count up to this one.
const MAX_COUNT: Param<u64> =
    Param::whole("max-count", "3", "co-location counts from this up share one bucket", 1, 1000);

params! {
    pub struct InterferenceParams {
        pub min_group: u64 = MIN_GROUP,
        pub max_count: u64 = MAX_COUNT,
    }
}

pub struct HorusInterference;

impl Analyze for HorusInterference {
    type Params = InterferenceParams;
    /// Peak 1.28 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 180);
    const ABOUT: About = About {
        id: "seed.horus-interference",
        scope: Scope::Pai,
        mirrors: "Horus (Yeung et al., TPDS 2022) motivation: interference of co-located jobs; PAI only",
        summary: "Slowdown of recurring PAI instances by how many others share their GPU; correlations",
        title: "Slowdown of instances sharing a GPU",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors the Horus motivation (interference of co-located jobs); PAI only, as only PAI shares GPUs.

- **Population:** `dfws` instances with a machine, a `gpu_name` and `end_time` > `start_time`.
- **Co-located count** of an instance = the other instances on the same (machine, `gpu_name`) whose
  `[start, end)` overlaps its own (any overlap).
- **Slowdown** = `run_s` / median `run_s` of the instance's group (`dfw` group: group tag, the user
  where untagged) over this population; only groups with at least `min-group` instances (as
  [pai.cpu-contention](#paicpu-contention)).
- **Output:** table `by-colocation` (buckets 0 … `max-count`+: instances, mean slowdown with a 95 %
  Student-t interval, median and P90), part `slowdown` (one distribution per bucket), table
  `correlations` (Pearson r and Spearman ρ of the count with the slowdown, 95 % Fisher-z interval,
  two-sided p-value, as pai.cpu-contention), headlines: share of recurring instances that share
  their GPU, median slowdown alone and shared, Spearman ρ.
- **Published:** none attached (Horus measures interference on its own testbed).
"##;

    fn definition(p: &InterferenceParams) -> String {
        definition(p)
    }

    fn run(ctx: &Ctx, p: &InterferenceParams, out: &mut Output) -> Result<()> {
        interference(ctx, p, out)
    }
}

/// One instance of the population.
struct Inst {
    gpu: String,
    start: i64,
    end: i64,
    slowdown: Option<f64>,
}

fn interference(ctx: &Ctx, p: &InterferenceParams, out: &mut Output) -> Result<()> {
    let max_count = p.max_count as usize;
    let mut notes = Notes::default();
    let insts = if present(ctx, Trace::Pai) {
        instances(ctx, p.min_group)?
    } else {
        notes.add("pai", "not in the store (GPU sharing is PAI's)");
        notes.add("philly, helios", "no GPU sharing: one job per GPU");
        Vec::new()
    };
    let counts = colocated(&insts);
    let labels: Vec<String> =
        (0..=max_count).map(|c| if c == max_count { format!("{c}+") } else { c.to_string() }).collect();
    let bucket = |c: usize| c.min(max_count);
    let mut by: Vec<Vec<f64>> = vec![Vec::new(); labels.len()];
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (inst, c) in insts.iter().zip(&counts) {
        if let Some(s) = inst.slowdown {
            by[bucket(*c)].push(s);
            x.push(*c as f64);
            y.push(s);
        }
    }
    let dists: Vec<(String, Dist)> = labels.iter().cloned().zip(by.iter().cloned().map(Dist::from_samples)).collect();
    let corr = [("pearson", pearson(&x, &y)), ("spearman", spearman(&x, &y))];
    out.table("by-colocation", bucket_table(&labels, &by))
        .dists("slowdown", "Runtime / group median runtime", dists)
        .table("correlations", corr_table(&corr))
        .headlines("headlines", headlines(&x, &by, &corr[1].1))
        .table("notes", notes.table());
    Ok(())
}

/// The population, sorted by GPU then start, with slowdowns where the
/// instance's group recurs.
fn instances(ctx: &Ctx, min: u64) -> Result<Vec<Inst>> {
    let cols = ["machine", "gpu_name", "start_time", "end_time", "run_s", "group"];
    let lf = frames::instances_with_sensor(ctx, &cols)?
        .filter(col("machine").is_not_null().and(col("gpu_name").is_not_null()).and(covers_time()))
        .with_columns([
            (col("run_s") / over(col("run_s").median(), &["group"])?).alias("slowdown"),
            over(len(), &["group"])?.alias("group_n"),
        ])
        .select([
            (col("machine") + lit("/") + col("gpu_name")).alias("gpu"),
            col("start_time").cast(DataType::Int64).alias("start"),
            col("end_time").cast(DataType::Int64).alias("end"),
            when(col("group_n").gt_eq(lit(min as u32)).and(col("run_s").gt(lit(0.0))))
                .then(col("slowdown"))
                .otherwise(lit(NULL).cast(DataType::Float64))
                .alias("slowdown"),
        ])
        .sort(["gpu", "start", "end"], SortMultipleOptions::default());
    let df = collect(lf, "seed.horus-interference instances")?;
    let (gpu, start, end, slow) = (strs(&df, "gpu")?, i64s(&df, "start")?, i64s(&df, "end")?, f64s(&df, "slowdown")?);
    Ok((0..df.height())
        .map(|i| Inst {
            gpu: gpu[i].clone().unwrap_or_default(),
            start: start[i].unwrap_or(0),
            end: end[i].unwrap_or(0),
            slowdown: slow[i].filter(|s| s.is_finite()),
        })
        .collect())
}

/// Per instance, the others on its GPU overlapping its `[start, end)`:
/// those starting before its end minus those ending at or before its
/// start, minus itself. `insts` sorted by GPU, then start.
fn colocated(insts: &[Inst]) -> Vec<usize> {
    let mut out = Vec::with_capacity(insts.len());
    let mut i = 0;
    while i < insts.len() {
        let j = i + insts[i..].iter().take_while(|x| x.gpu == insts[i].gpu).count();
        let starts: Vec<i64> = insts[i..j].iter().map(|x| x.start).collect();
        let mut ends: Vec<i64> = insts[i..j].iter().map(|x| x.end).collect();
        ends.sort_unstable();
        for x in &insts[i..j] {
            let began = starts.partition_point(|s| *s < x.end);
            let ended = ends.partition_point(|e| *e <= x.start);
            out.push(began - ended - 1);
        }
        i = j;
    }
    out
}

fn bucket_table(labels: &[String], by: &[Vec<f64>]) -> ResultTable {
    let mut t = ResultTable::new(&[
        "colocated",
        "instances",
        "mean_slowdown",
        "ci_low",
        "ci_high",
        "median_slowdown",
        "p90_slowdown",
    ]);
    for (label, v) in labels.iter().zip(by) {
        let (m, d) = (mean_interval(v), Dist::from_samples(v.clone()));
        let q = |p: f64| if d.n() > 0 { Cell::from(d.quantile(p)) } else { Cell::Null };
        t.push(vec![
            label.as_str().into(),
            (m.n as i64).into(),
            m.mean.into(),
            m.ci_low.into(),
            m.ci_high.into(),
            q(0.5),
            q(0.9),
        ]);
    }
    t
}

fn corr_table(corr: &[(&str, Correlation)]) -> ResultTable {
    let mut t = ResultTable::new(&["method", "n", "r", "ci_low", "ci_high", "p_value"]);
    for (method, c) in corr {
        t.push(vec![
            (*method).into(),
            (c.n as i64).into(),
            c.r.into(),
            c.ci_low.into(),
            c.ci_high.into(),
            c.p_value.into(),
        ]);
    }
    t
}

fn headlines(counts: &[f64], by: &[Vec<f64>], rho: &Correlation) -> Vec<Headline> {
    let shared = counts.iter().filter(|c| **c >= 1.0).count();
    let share = if counts.is_empty() { f64::NAN } else { 100.0 * shared as f64 / counts.len() as f64 };
    let alone = Dist::from_samples(by.first().cloned().unwrap_or_default());
    let sharing = Dist::from_samples(by.iter().skip(1).flatten().copied().collect());
    let median = |d: &Dist| if d.n() > 0 { d.quantile(0.5) } else { f64::NAN };
    vec![
        Headline::new("shared", "recurring instances sharing their GPU with another", share, "%"),
        Headline::new("median_alone", "median slowdown, GPU not shared", median(&alone), "x"),
        Headline::new("median_shared", "median slowdown, GPU shared", median(&sharing), "x"),
        Headline::new("spearman", "Spearman rho, co-located count vs slowdown", rho.r, ""),
    ]
}

fn definition(p: &InterferenceParams) -> String {
    format!(
        "PAI dfws instances (one per worker with a sensor row) with a machine, a gpu_name and end_time > start_time \
         (the worker's dfiw times). A GPU is a (machine, gpu_name). Co-located count of an instance = the other \
         instances on its GPU whose [start, end) overlaps its own (any overlap, in microseconds). Slowdown = run_s / \
         median run_s of the instance's group (dfw group: group tag, the user where untagged) over this population; \
         only groups with >= {} instances and run_s > 0 (as pai.cpu-contention). Buckets by count, the last one {}+. \
         Per bucket: mean slowdown with a 95 % Student-t interval, median and P90 (linear). Correlations of the count \
         with the slowdown over the recurring instances: Pearson r and Spearman rho (average ranks) with a 95 % \
         Fisher-z interval (Spearman se sqrt(1.06/(n-3))) and two-sided p-value. Philly and Helios place one job per \
         GPU: no sharing to measure.",
        p.min_group, p.max_count
    )
}
