//! Machine utilization over time by machine class (NSDI'22 Sec 4.1, Fig 7),
//! paper only: the public data has no per-time series (upstream #166/#226),
//! so this is tracelab's reconstruction. Its definition (covering rule,
//! means and sums per machine and bin, idle machines, classes) is
//! [`MachineUtil::DOC`], the one text `docs/definitions.md` and
//! `tracelab analyze pai.machine-util --describe` print.
//!
//! Method: sort-and-sweep over change events per machine and bin
//! ([`super::bins`]), never the rows x bins product.

use std::ops::Bound;

use polars::prelude::*;

use super::bins::{covers_time, end_bin, first_bin, BIN};
use super::frames;
use crate::declare::{About, Analyze, Memory, Published, Scope};
use crate::frame::{collect, f64s, i64s, strs};
use crate::output::{Headline, Output};
use crate::params::{choice, params, Param, Seconds};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::pai::{MACHINE_METRIC, MACHINE_SPEC};
use tracelab_stats::quantiles_in_place;
use tracelab_stats::Dist;

choice! {
    /// Machines with no covering row in a bin.
    pub enum Idle {
        /// Idle: 0 % (nothing runs there).
        Zero = "zero",
        /// Left out of the bin's percentiles.
        Absent = "absent",
    }
}

const IDLE: Param<Idle> =
    Param::choice("idle", "zero", "machines with no covering row in a bin: zero (idle, 0 %) or absent (left out)");
const MISC_GPU_MEM: Param<f64> = Param::number_in(
    "misc-gpu-mem",
    "16",
    "GPU memory (GiB) assumed per MISC GPU (no published figure)",
    Bound::Excluded(0.0),
    Bound::Unbounded,
);

params! {
    pub struct MachineUtilParams {
        pub bin: Seconds = BIN,
        pub idle: Idle = IDLE,
        pub misc_gpu_mem: f64 = MISC_GPU_MEM,
    }
}

pub struct MachineUtil;

const SOURCE: &str = "NSDI'22 Sec 4.1 (Fig 7)";
const ALMOST_ALWAYS: &str = "NSDI'22 Sec 4.1 (Fig 7): \"almost always\"";

impl Analyze for MachineUtil {
    type Params = MachineUtilParams;
    /// Peak 1.66 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 240);
    const ABOUT: About = About {
        id: "pai.machine-util",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 7 (paper only; tracelab reconstruction)",
        summary:
            "CDF over time bins of the P50/P90 machine GPU, CPU, memory and GPU-memory utilization, 2-GPU vs 8-GPU",
        title: "Machine utilization over time, P50/P90 by machine class",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 7. Paper only: the public data has no per-time series, so this is
tracelab's reconstruction.

- **Idea.** The paper takes, at each sampling time, the P50 and the P90 of machine utilization
  across the 2-GPU machines and across the 8-GPU machines, then plots the CDF of those values
  over time, for GPU, CPU, memory and GPU memory.
- **Time.** Time is cut into bins of `bin` seconds (epoch-aligned). A row *covers* the bins its
  `[start_time, end_time)` overlaps; rows with a null time or `end_time ≤ start_time` cover
  none.
- **Per machine and bin:**
  - *gpu*, *cpu*: the unweighted mean of `machine_gpu_pct` (resp. `machine_cpu_pct`) over the
    `pai/machine_metric` rows of that machine covering the bin. `machine_gpu_pct` is used as it is
    (percent of the machine's GPUs), not divided by `cap_gpu`; values above 100 are kept.
  - *mem*: 100 × sum of `avg_mem_gib` over the covering `pai/sensor` rows / `cap_mem_gib`. A sensor row
    is timed by its worker's `dfiw` row (inner join on `worker_name`).
  - *gpu-mem*: 100 × sum of `avg_gpu_wrk_mem_gib` over the covering sensor rows / (`cap_gpu` × GPU
    memory per GPU: V100 16, V100M32 32, P100 16, T4 16 GiB, MISC the `misc-gpu-mem`
    parameter).
  - Nulls are skipped.
- **Machines.** Those of `machine_spec` with `cap_gpu` 2 (class 2-GPU) or 8 (8-GPU) that have at
  least one machine-metric or sensor row; CPU-only machines are excluded. A machine with no
  covering row in a bin counts as 0 % (`idle=zero`) or is left out (`idle=absent`).
- **Output.** Per bin and class, P50 and P90 across machines (linear). Parts `gpu`, `cpu`,
  `mem`, `gpu-mem` hold, per class, the distributions of those P50 and P90 values over the bins
  from the first to the last covered bin (bins with no machine left out).
- **Published:** P90 GPU utilization varies between about 40 % and 100 %; P90 memory and GPU
  memory utilization stay below 60 % almost always (NSDI'22 Sec 4.1). Headlines: the lowest and
  highest P90 GPU bin per class, and the share of bins with P90 memory (and GPU memory) below
  60 %.
- **Differences:** no upstream code exists. All the choices above (covering rule, mean of
  overlapping rows, sums for memory, GPU memory per type, idle handling) are tracelab's.
"##;
    /// The paper's Fig 7 statements: P90 GPU utilization varies between
    /// about 40 % and 100 %; memory and GPU-memory P90 stay below 60 %
    /// almost always.
    const PUBLISHED: &'static [Published] = &[
        Published::new("2-GPU gpu p90 min", 40.0, "%", SOURCE),
        Published::new("2-GPU gpu p90 max", 100.0, "%", SOURCE),
        Published::new("8-GPU gpu p90 min", 40.0, "%", SOURCE),
        Published::new("8-GPU gpu p90 max", 100.0, "%", SOURCE),
        Published::new("2-GPU mem p90 under 60", 100.0, "%", ALMOST_ALWAYS),
        Published::new("8-GPU mem p90 under 60", 100.0, "%", ALMOST_ALWAYS),
        Published::new("2-GPU gpu-mem p90 under 60", 100.0, "%", ALMOST_ALWAYS),
        Published::new("8-GPU gpu-mem p90 under 60", 100.0, "%", ALMOST_ALWAYS),
    ];

    fn definition(p: &MachineUtilParams) -> String {
        definition(p)
    }

    fn run(ctx: &Ctx, p: &MachineUtilParams, out: &mut Output) -> Result<()> {
        machine_util(ctx, p, out)
    }
}

/// The machine classes of Fig 7, by `cap_gpu`.
pub const CLASSES: [(i64, &str); 2] = [(2, "2-GPU"), (8, "8-GPU")];
/// Parts (metrics) in output order.
pub const METRICS: [&str; 4] = ["gpu", "cpu", "mem", "gpu-mem"];

/// GPU memory per GPU by machine GPU type (GiB): V100 16 GB (SXM2), V100M32
/// 32 GB, P100 16 GB, T4 16 GB (vendor data sheets); MISC (older mixed
/// types) is the `misc-gpu-mem` parameter.
pub fn gpu_mem_gib(gpu_type: &str, misc: f64) -> f64 {
    match gpu_type {
        "V100M32" => 32.0,
        "V100" | "P100" | "T4" => 16.0,
        _ => misc,
    }
}

/// One machine of a class that appears in the trace.
struct Machine {
    class: usize,
    cap_mem: f64,
    gpu_mem: f64,
}

/// Machines of the two classes with an index column `idx`, plus their
/// capacities (index = position).
fn machines(ctx: &Ctx, misc: f64) -> Result<(LazyFrame, Vec<Option<Machine>>)> {
    let spec = ctx
        .store
        .scan(&MACHINE_SPEC)?
        .select([col("machine"), col("gpu_type"), col("cap_gpu"), col("cap_mem_gib")])
        .sort(["machine"], SortMultipleOptions::default())
        .with_row_index("idx", None);
    let df = collect(spec.clone(), "machine spec")?;
    let (types, caps, mems) = (strs(&df, "gpu_type")?, i64s(&df, "cap_gpu")?, f64s(&df, "cap_mem_gib")?);
    let list = (0..df.height())
        .map(|i| {
            let class = CLASSES.iter().position(|c| Some(c.0) == caps[i])?;
            let per_gpu = gpu_mem_gib(types[i].as_deref().unwrap_or(""), misc);
            Some(Machine { class, cap_mem: mems[i].unwrap_or(f64::NAN), gpu_mem: CLASSES[class].0 as f64 * per_gpu })
        })
        .collect();
    Ok((spec.select([col("machine"), col("idx")]), list))
}

/// Change events of two values per (machine idx, bin): columns idx, bin,
/// s0, n0, s1, n1 (sums and non-null counts), sorted by bin then machine.
/// `n_machines` (the spec's rows) packs (bin, idx) into one integer `cell`;
/// the events are sorted by it (stable) and each cell's events summed in
/// order, which for millions of mostly distinct cells is much cheaper than
/// a hash grouping.
fn events(rows: LazyFrame, spec: LazyFrame, n_machines: usize, bin_s: i64, what: &str) -> Result<DataFrame> {
    // Machines as their integer index first (inner join: rows of machines
    // outside machine_spec drop out), so the grouping keys are integers.
    // Collected once: both sides of the events read it.
    let rows = rows
        .filter(covers_time())
        .join(spec, [col("machine")], [col("machine")], JoinArgs::new(JoinType::Inner))
        .select([
            col("idx"),
            first_bin(col("start_time"), bin_s).alias("b0"),
            end_bin(col("end_time"), bin_s).alias("b1"),
            col("v0"),
            col("v1"),
        ]);
    let rows = collect(rows, what)?.lazy();
    let m = || lit(n_machines.max(1) as i64);
    let side = |at: &str, sign: f64| {
        let mut e = vec![(col(at) * m() + col("idx").cast(DataType::Int64)).alias("cell")];
        for v in ["v0", "v1"] {
            let k = &v[1..];
            e.push((col(v).fill_null(lit(0.0)) * lit(sign)).alias(format!("s{k}")));
            e.push((col(v).is_not_null().cast(DataType::Int64) * lit(sign as i64)).alias(format!("n{k}")));
        }
        rows.clone().select(e)
    };
    let all = concat([side("b0", 1.0), side("b1", -1.0)], UnionArgs::default())
        .map_err(|e| tracelab_schema::error::Error::polars(what.to_string(), e))?
        .sort(["cell"], SortMultipleOptions::default().with_maintain_order(true));
    merge_cells(&collect(all, what)?, n_machines.max(1) as i64)
}

/// Sums the sorted events of each cell (in event order) and unpacks the
/// cell into idx and bin.
fn merge_cells(ev: &DataFrame, m: i64) -> Result<DataFrame> {
    let cell = i64s(ev, "cell")?;
    let (s, n) = ([f64s(ev, "s0")?, f64s(ev, "s1")?], [i64s(ev, "n0")?, i64s(ev, "n1")?]);
    let (mut idx, mut bin) = (Vec::new(), Vec::new());
    let (mut sums, mut counts): ([Vec<f64>; 2], [Vec<i64>; 2]) = Default::default();
    let mut last = None;
    for e in 0..cell.len() {
        let Some(c) = cell[e] else { continue };
        if last != Some(c) {
            last = Some(c);
            idx.push(c.rem_euclid(m));
            bin.push(c.div_euclid(m));
            for k in 0..2 {
                sums[k].push(0.0);
                counts[k].push(0);
            }
        }
        for k in 0..2 {
            *sums[k].last_mut().expect("pushed") += s[k][e].unwrap_or(0.0);
            *counts[k].last_mut().expect("pushed") += n[k][e].unwrap_or(0);
        }
    }
    let [s0, s1] = sums;
    let [n0, n1] = counts;
    let columns = vec![
        Column::new("idx".into(), idx),
        Column::new("bin".into(), bin),
        Column::new("s0".into(), s0),
        Column::new("n0".into(), n0),
        Column::new("s1".into(), s1),
        Column::new("n1".into(), n1),
    ];
    DataFrame::new(columns[0].len(), columns).map_err(|e| tracelab_schema::error::Error::polars("machine events", e))
}

/// The machine_metric rows: v0 = machine_gpu_pct, v1 = machine_cpu_pct.
fn metric_rows(ctx: &Ctx) -> Result<LazyFrame> {
    Ok(ctx.store.scan(&MACHINE_METRIC)?.select([
        col("machine"),
        col("start_time"),
        col("end_time"),
        col("machine_gpu_pct").alias("v0"),
        col("machine_cpu_pct").alias("v1"),
    ]))
}

/// The sensor rows with their instance's times (the worker's `dfiw` row,
/// inner join on worker_name): v0 = avg_mem_gib, v1 = avg_gpu_wrk_mem_gib.
fn sensor_rows(ctx: &Ctx) -> Result<LazyFrame> {
    let cols = ["machine", "start_time", "end_time", "avg_mem_gib", "avg_gpu_wrk_mem_gib"];
    Ok(frames::sensor_times(ctx, &cols)?.select([
        col("machine"),
        col("start_time"),
        col("end_time"),
        col("avg_mem_gib").alias("v0"),
        col("avg_gpu_wrk_mem_gib").alias("v1"),
    ]))
}

/// Per class and metric, the (P50, P90) samples over bins.
type Series = Vec<Vec<(Vec<f64>, Vec<f64>)>>;

/// The sweep: per bin, apply the events, then per class and value take the
/// P50/P90 across machines. `value(machine, k, sum, n)` gives value k of a
/// covered machine.
struct Sweep<'a> {
    machines: &'a [Option<Machine>],
    active: &'a [bool],
    idle_zero: bool,
    bins: (i64, i64),
}

impl Sweep<'_> {
    fn run(&self, ev: &DataFrame, value: impl Fn(&Machine, usize, f64, i64) -> f64) -> Result<Series> {
        let (idx, bin) = (i64s(ev, "idx")?, i64s(ev, "bin")?);
        let (s, n) = ([f64s(ev, "s0")?, f64s(ev, "s1")?], [i64s(ev, "n0")?, i64s(ev, "n1")?]);
        let mut sum = vec![[0.0f64; 2]; self.machines.len()];
        let mut cnt = vec![[0i64; 2]; self.machines.len()];
        let mut out: Series = vec![vec![(Vec::new(), Vec::new()); 2]; CLASSES.len()];
        let mut buf = Vec::new();
        // The active machines of each class, looked up once (not per bin).
        let members: Vec<Vec<(usize, &Machine)>> = (0..CLASSES.len())
            .map(|c| {
                let of_class = |i: usize| self.machines[i].as_ref().filter(|m| m.class == c && self.active[i]);
                (0..self.machines.len()).filter_map(|i| of_class(i).map(|m| (i, m))).collect()
            })
            .collect();
        let mut e = 0;
        for b in self.bins.0..self.bins.1 {
            while e < bin.len() && bin[e] == Some(b) {
                let i = idx[e].unwrap_or(0) as usize;
                for k in 0..2 {
                    sum[i][k] += s[k][e].unwrap_or(0.0);
                    cnt[i][k] += n[k][e].unwrap_or(0);
                    if cnt[i][k] == 0 {
                        sum[i][k] = 0.0; // no float drift carried across idle gaps
                    }
                }
                e += 1;
            }
            for (series, members) in out.iter_mut().zip(&members) {
                for (k, (p50, p90)) in series.iter_mut().enumerate() {
                    buf.clear();
                    for &(i, m) in members {
                        if cnt[i][k] > 0 {
                            buf.push(value(m, k, sum[i][k], cnt[i][k]));
                        } else if self.idle_zero {
                            buf.push(0.0);
                        }
                    }
                    if !buf.is_empty() {
                        let q = quantiles_in_place(&mut buf, &[0.5, 0.9]);
                        p50.push(q[0]);
                        p90.push(q[1]);
                    }
                }
            }
        }
        Ok(out)
    }
}

/// First and one-past-last bin of any event, and the machines with events.
fn extent(evs: &[&DataFrame], n_machines: usize) -> Result<((i64, i64), Vec<bool>)> {
    let mut active = vec![false; n_machines];
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for ev in evs {
        for i in i64s(ev, "idx")?.into_iter().flatten() {
            active[i as usize] = true;
        }
        for b in i64s(ev, "bin")?.into_iter().flatten() {
            lo = lo.min(b);
            hi = hi.max(b);
        }
    }
    Ok(((lo, hi.max(lo)), active))
}

fn machine_util(ctx: &Ctx, p: &MachineUtilParams, out: &mut Output) -> Result<()> {
    let bin_s = p.bin.0;
    let (spec, list) = machines(ctx, p.misc_gpu_mem)?;
    let metric_ev = events(metric_rows(ctx)?, spec.clone(), list.len(), bin_s, "machine metric events")?;
    let sensor_ev = events(sensor_rows(ctx)?, spec, list.len(), bin_s, "sensor events")?;
    let (bins, active) = extent(&[&metric_ev, &sensor_ev], list.len())?;
    let sweep = Sweep { machines: &list, active: &active, idle_zero: p.idle == Idle::Zero, bins };
    // The two sweeps are independent: the second on another thread.
    let (mean, mem) = std::thread::scope(|s| {
        let mem = s.spawn(|| {
            sweep.run(&sensor_ev, |m, k, s, _| if k == 0 { 100.0 * s / m.cap_mem } else { 100.0 * s / m.gpu_mem })
        });
        let mean = sweep.run(&metric_ev, |_, _, s, n| s / n as f64);
        (mean, mem.join().expect("sweep thread"))
    });
    let (mean, mem) = (mean?, mem?);
    let mut headlines = Vec::new();
    for (k, metric) in METRICS.iter().enumerate() {
        let src = if k < 2 { &mean } else { &mem };
        let mut series = Vec::new();
        for (c, (_, class)) in CLASSES.iter().enumerate() {
            let (p50, p90) = &src[c][k % 2];
            series.push((format!("{class} P50"), Dist::from_samples(finite(p50))));
            series.push((format!("{class} P90"), Dist::from_samples(finite(p90))));
        }
        headlines.extend(metric_headlines(metric, &series));
        out.dists(metric, &format!("{metric} utilization across machines per {bin_s} s bin (%)"), series);
    }
    out.headlines("fig7", headlines);
    Ok(())
}

fn finite(v: &[f64]) -> Vec<f64> {
    v.iter().copied().filter(|x| x.is_finite()).collect()
}

/// The Fig 7 headlines (published values: [`MachineUtil::PUBLISHED`]): the
/// lowest and highest bin of the P90 GPU utilization, and the share of bins
/// whose P90 memory and GPU-memory utilization is below 60 %.
fn metric_headlines(metric: &str, series: &[(String, Dist)]) -> Vec<Headline> {
    let mut h = Vec::new();
    for (label, d) in series.iter().filter(|s| s.0.ends_with("P90")) {
        let class = label.trim_end_matches(" P90");
        match metric {
            "gpu" => {
                let key = |end: &str| format!("{class} gpu p90 {end}");
                h.push(Headline::new(&key("min"), &format!("{label} GPU util, lowest bin"), d.min(), "%"));
                h.push(Headline::new(&key("max"), &format!("{label} GPU util, highest bin"), d.max(), "%"));
            }
            "mem" | "gpu-mem" => h.push(Headline::new(
                &format!("{class} {metric} p90 under 60"),
                &format!("bins with {label} {metric} util < 60 %"),
                100.0 * (1.0 - d.share_above(60.0) - share_eq(d, 60.0)),
                "%",
            )),
            _ => {}
        }
    }
    h
}

/// Share of samples exactly equal to x (so that "< 60" excludes 60 itself).
fn share_eq(d: &Dist, x: f64) -> f64 {
    d.values().iter().zip(d.counts()).filter(|p| *p.0 == x).map(|p| *p.1 as f64).sum::<f64>() / d.n().max(1) as f64
}

fn definition(p: &MachineUtilParams) -> String {
    let bin_s = p.bin.0;
    format!(
        "tracelab reconstruction (no per-time data is published): bins of {bin_s} s on epoch time; a row covers the \
         bins its [start_time, end_time) overlaps (null times or end <= start: none). Per machine and bin: gpu / cpu = \
         unweighted mean of machine_gpu_pct / machine_cpu_pct over the covering pai/machine_metric rows (machine_gpu_pct \
         used as is, % of the machine's GPUs, not divided by cap_gpu; values > 100 kept); mem = 100 * sum(avg_mem_gib) / \
         cap_mem_gib and gpu-mem = 100 * sum(avg_gpu_wrk_mem_gib) / (cap_gpu * GPU memory per type: V100 16, V100M32 32, \
         P100 16, T4 16, MISC {} GiB) over the covering pai/sensor rows, timed by their worker's instance row (dfiw, \
         inner join on worker_name); nulls skipped. Machines: machine_spec cap_gpu 2 (2-GPU) or 8 (8-GPU) that have at \
         least one machine_metric or sensor row; idle={}: a machine with no covering row in a bin {}. Per bin and \
         class: P50 and P90 (numpy linear) across machines; the series are those values over the bins from the first \
         to the last covered bin (bins with no machine left out)",
        p.misc_gpu_mem,
        p.idle.name(),
        match p.idle {
            Idle::Zero => "counts as 0 %",
            Idle::Absent => "is left out",
        }
    )
}

#[cfg(test)]
mod tests {
    use polars::df;

    use super::*;
    use crate::output::Body;
    use crate::testkit;
    use tracelab_schema::pai::{INSTANCE, MACHINE_METRIC, MACHINE_SPEC, SENSOR};

    /// Bins of 100 s. 2-GPU machines a (T4, 100 GiB) and b (T4), 8-GPU
    /// machine c (V100). Metric rows: a [0,200) gpu 10, a [100,300) gpu 30,
    /// b [0,300) gpu 0, c [0,100) gpu 50. Sensor row of worker w on a,
    /// [0,100): mem 50 GiB, GPU mem 8 GiB.
    fn tiny() -> testkit::TinyStore {
        testkit::store(vec![
            (
                &MACHINE_SPEC,
                df!("machine" => ["a", "b", "c"], "gpu_type" => ["T4", "T4", "V100"], "cap_cpu" => [96i64; 3],
                    "cap_mem_gib" => [100i64, 100, 200], "cap_gpu" => [2i64, 2, 8])
                .unwrap(),
            ),
            (
                &MACHINE_METRIC,
                df!("worker_name" => ["w", "x", "y", "z"], "machine" => ["a", "a", "b", "c"],
                    "start_time" => [0i64, 100, 0, 0], "end_time" => [200i64, 300, 300, 100],
                    "machine_gpu_pct" => [10.0, 30.0, 0.0, 50.0], "machine_cpu_pct" => [20.0, 40.0, 0.0, 60.0])
                .unwrap(),
            ),
            (
                &INSTANCE,
                df!("job_name" => ["j"], "task_name" => ["t"], "inst_name" => ["i"], "worker_name" => ["w"], "inst_id" => ["i"],
                    "status" => ["Terminated"], "start_time" => [0i64], "end_time" => [100i64], "machine" => ["a"])
                .unwrap(),
            ),
            (
                &SENSOR,
                df!("job_name" => ["j"], "task_name" => ["t"], "worker_name" => ["w"], "inst_id" => ["i"], "machine" => ["a"],
                    "avg_mem_gib" => [50.0], "avg_gpu_wrk_mem_gib" => [8.0])
                .unwrap(),
            ),
        ])
    }

    fn series(out: &Output, part: &str, label: &str) -> Vec<f64> {
        let Body::Dists { series, .. } = &out.part(part).unwrap().body else { panic!() };
        let d = &series.iter().find(|s| s.0 == label).unwrap().1;
        d.values().iter().zip(d.counts()).flat_map(|(v, &c)| std::iter::repeat_n(*v, c as usize)).collect()
    }

    /// a's GPU by bin: 10, mean(10, 30) = 20, 30; b is 0 throughout. P50 of
    /// two machines {x, 0} = x/2, P90 = 0.9x: bins give 5, 10, 15 and 9, 18,
    /// 27. c: 50 in bin 0, idle (0) after; absent with idle=absent.
    /// Memory of a in bin 0: 100 * 50 / 100 = 50 %, P50 with b = 25;
    /// GPU memory 100 * 8 / (2 * 16) = 25 %, P90 with b = 22.5.
    #[test]
    fn per_bin_percentiles_by_hand() {
        let t = tiny();
        let out = testkit::run(&MachineUtil, &t, &[("bin", "100s")]);
        assert_eq!(series(&out, "gpu", "2-GPU P50"), vec![5.0, 10.0, 15.0]);
        assert_eq!(series(&out, "gpu", "2-GPU P90"), vec![9.0, 18.0, 27.0]);
        assert_eq!(series(&out, "gpu", "8-GPU P90"), vec![0.0, 0.0, 50.0]);
        assert_eq!(series(&out, "cpu", "2-GPU P50"), vec![10.0, 15.0, 20.0]);
        assert_eq!(series(&out, "mem", "2-GPU P50"), vec![0.0, 0.0, 25.0]);
        assert_eq!(series(&out, "gpu-mem", "2-GPU P90"), vec![0.0, 0.0, 22.5]);
        let out = testkit::run(&MachineUtil, &t, &[("bin", "100s"), ("idle", "absent")]);
        assert_eq!(series(&out, "gpu", "8-GPU P90"), vec![50.0]);
        assert_eq!(series(&out, "mem", "2-GPU P50"), vec![50.0]);
    }
}
