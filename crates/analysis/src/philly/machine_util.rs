//! Philly machine utilization over time, in the shape of the PAI NSDI'22
//! Fig 7 method so both traces plot side by side: per minute, each machine's
//! GPU utilization (mean of its non-null GPU columns), CPU and memory
//! utilization; per minute and machine class, the P50 and P90 across
//! machines; then the distribution of those per-minute values over minutes.
//!
//! The class (2-GPU vs 8-GPU) is the number of GPU columns that are ever
//! non-null for the machine in `philly/gpu_util`, not the published machine
//! list, which upstream issue #8 found wrong; the machines where the two
//! disagree are listed.
//!
//! Each utilization table (42 M rows at full scale) is read once, in time
//! windows (the tables are time-sorted, so each window reads only its row
//! groups), and reduced here rather than in the engine: machines become
//! numbers, and per (time, class) the values are sorted and interpolated as
//! the engine's linear quantile does. An engine join on the machine name
//! and a group-by quantile over 170 k groups per metric took four times as
//! long. The GPU means are kept (20 bytes a row) until the last window has
//! fixed every machine's class.

use std::collections::BTreeMap;

use polars::prelude::*;

use super::time_span;
use crate::declare::{About, Analyze, Memory, Scope};
use crate::frame::{collect, f64_col, for_each_collected, i64_col, i64s, str_col, strs};
use crate::output::{Cell, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::philly::{CPU_UTIL, GPU_UTIL, MACHINES, MEM_UTIL, PLACEMENTS};
use tracelab_schema::Table;
use tracelab_stats::{quantiles_in_place, Dist};

const MINUTE_US: i64 = 60_000_000;
const WINDOW_US: i64 = 2 * 1440 * MINUTE_US;
const GPU_COLUMNS: usize = 8;
/// The metrics (part names), in output order.
const METRICS: [&str; 3] = ["gpu", "cpu", "mem"];

fn gpu_cols() -> Vec<Expr> {
    (0..GPU_COLUMNS).map(|i| col(format!("gpu{i}_util_pct"))).collect()
}

/// Windows `[w0, w0 + WINDOW)` covering every table's times.
fn windows(ctx: &Ctx) -> Result<Vec<i64>> {
    let spans: Vec<(i64, i64)> = [&GPU_UTIL, &CPU_UTIL, &MEM_UTIL]
        .iter()
        .map(|t| time_span(ctx, t))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();
    let (Some(lo), Some(hi)) = (spans.iter().map(|s| s.0).min(), spans.iter().map(|s| s.1).max()) else {
        return Ok(vec![]);
    };
    Ok(super::window_starts(lo.div_euclid(MINUTE_US) * MINUTE_US, hi, WINDOW_US))
}

/// Machine names numbered in order of appearance in `gpu_util`, with the
/// GPU columns each ever reported.
#[derive(Default)]
struct Machines {
    number: PlHashMap<String, u32>,
    seen: Vec<[bool; GPU_COLUMNS]>,
}

impl Machines {
    fn number(&mut self, name: &str) -> u32 {
        if let Some(&m) = self.number.get(name) {
            return m;
        }
        let m = self.seen.len() as u32;
        self.number.insert(name.to_string(), m);
        self.seen.push([false; GPU_COLUMNS]);
        m
    }

    /// Class per machine number: GPU columns ever non-null (0 = never).
    fn classes(&self) -> Vec<u8> {
        self.seen.iter().map(|s| s.iter().filter(|b| **b).count() as u8).collect()
    }

    /// Machine name -> class, for the tables.
    fn by_name(&self) -> BTreeMap<String, usize> {
        let classes = self.classes();
        self.number.iter().map(|(m, &i)| (m.clone(), classes[i as usize] as usize)).collect()
    }
}

/// (time, machine number, value) rows of one metric, value finite.
#[derive(Default)]
struct Rows {
    time: Vec<i64>,
    machine: Vec<u32>,
    value: Vec<f64>,
}

impl Rows {
    /// Room for `n` rows at once: growing by doubling, the GPU pass's rows
    /// (42 M at full scale) briefly held their old and new copies.
    fn with_capacity(n: usize) -> Rows {
        Rows { time: Vec::with_capacity(n), machine: Vec::with_capacity(n), value: Vec::with_capacity(n) }
    }

    fn push(&mut self, t: i64, m: u32, v: f64) {
        self.time.push(t);
        self.machine.push(m);
        self.value.push(v);
    }
}

/// Every window of `table`: `time` in microseconds, `machine`, `values`.
fn window_plans(ctx: &Ctx, table: &Table, values: Vec<Expr>, wins: &[i64]) -> Result<Vec<LazyFrame>> {
    super::machine_windows(ctx, table, values, wins.iter().map(|&w0| (w0, w0 + WINDOW_US)))
}

/// Mean of the non-null GPU values, summed left to right (None when all
/// are null).
fn gpu_mean(values: &[Option<f64>; GPU_COLUMNS]) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0.0);
    for v in values.iter().flatten() {
        sum += v;
        n += 1.0;
    }
    (n > 0.0).then(|| sum / n)
}

/// One pass over `gpu_util`: every machine's reported GPU columns and the
/// (time, machine, mean GPU utilization) rows.
fn gpu_pass(ctx: &Ctx, wins: &[i64]) -> Result<(Machines, Rows)> {
    let capacity = ctx.store.rows(&GPU_UTIL).unwrap_or(0) as usize;
    let (mut machines, mut rows) = (Machines::default(), Rows::with_capacity(capacity));
    let plans = window_plans(ctx, &GPU_UTIL, gpu_cols(), wins)?;
    for_each_collected(plans, "philly.machine-util gpu_util window", |df| {
        let gpus: Vec<Vec<_>> = (0..GPU_COLUMNS)
            .map(|i| f64_col(&df, &format!("gpu{i}_util_pct")).map(|c| c.downcast_iter().collect()))
            .collect::<Result<_>>()?;
        let chunks = i64_col(&df, "time")?.downcast_iter().zip(str_col(&df, "machine")?.downcast_iter());
        for (k, (times, names)) in chunks.enumerate() {
            for (r, (t, m)) in times.iter().zip(names.iter()).enumerate() {
                let (Some(&t), Some(m)) = (t, m) else { continue };
                let mut values = [None; GPU_COLUMNS];
                for (v, chunks) in values.iter_mut().zip(&gpus) {
                    *v = chunks[k].get(r);
                }
                let m = machines.number(m);
                for (seen, v) in machines.seen[m as usize].iter_mut().zip(&values) {
                    *seen |= v.is_some();
                }
                if let Some(v) = gpu_mean(&values).filter(|v| v.is_finite()) {
                    rows.push(t, m, v);
                }
            }
        }
        Ok(())
    })?;
    Ok((machines, rows))
}

/// (class, P50|P90) -> per-time values.
type PerTime = BTreeMap<(u8, &'static str), Vec<f64>>;

/// Per distinct time and class (0 = no GPU ever, skipped): P50 and P90 of
/// the values across the machines of that class, added to `acc`.
fn per_time_quantiles(rows: &Rows, classes: &[u8], acc: &mut PerTime) {
    // Rows in time order need no permutation (the usual case).
    let order: Option<Vec<usize>> = (!rows.time.is_sorted()).then(|| {
        let mut order: Vec<usize> = (0..rows.time.len()).collect();
        order.sort_by_key(|&i| rows.time[i]);
        order
    });
    let row = |j: usize| order.as_ref().map_or(j, |o| o[j]);
    let mut by_class: Vec<Vec<f64>> = vec![Vec::new(); GPU_COLUMNS + 1];
    let mut start = 0;
    while start < rows.time.len() {
        let t = rows.time[row(start)];
        let end = (start..rows.time.len()).find(|&j| rows.time[row(j)] != t).unwrap_or(rows.time.len());
        for i in (start..end).map(row) {
            let c = classes.get(rows.machine[i] as usize).copied().unwrap_or(0);
            if c > 0 {
                by_class[c as usize].push(rows.value[i]);
            }
        }
        for (c, v) in by_class.iter_mut().enumerate().filter(|(_, v)| !v.is_empty()) {
            let q = quantiles_in_place(v, &[0.5, 0.9]);
            acc.entry((c as u8, "P50")).or_default().push(q[0]);
            acc.entry((c as u8, "P90")).or_default().push(q[1]);
            v.clear();
        }
        start = end;
    }
}

/// The CPU or memory rows of every window, reduced window by window (a
/// window holds whole times). Machines absent from `gpu_util` are skipped.
fn host_pass(ctx: &Ctx, metric: &str, machines: &Machines, classes: &[u8], wins: &[i64]) -> Result<PerTime> {
    let (table, value) = match metric {
        "cpu" => (&CPU_UTIL, col("cpu_util_pct")),
        _ => (
            &MEM_UTIL,
            when(col("mem_total_kib").neq(lit(0.0)))
                .then(lit(100.0) * (col("mem_total_kib") - col("mem_free_kib")) / col("mem_total_kib"))
                .otherwise(lit(NULL).cast(DataType::Float64)),
        ),
    };
    let mut acc = PerTime::new();
    let plans = window_plans(ctx, table, vec![value.cast(DataType::Float64).alias("v")], wins)?;
    for_each_collected(plans, "philly.machine-util window", |df| {
        let mut rows = Rows::default();
        let chunks = i64_col(&df, "time")?
            .downcast_iter()
            .zip(str_col(&df, "machine")?.downcast_iter())
            .zip(f64_col(&df, "v")?.downcast_iter());
        for ((times, names), values) in chunks {
            for ((t, m), v) in times.iter().zip(names.iter()).zip(values.iter()) {
                if let (Some(&t), Some(m), Some(&v)) = (t, m, v.filter(|v| v.is_finite())) {
                    if let Some(&m) = machines.number.get(m) {
                        rows.push(t, m, v);
                    }
                }
            }
        }
        per_time_quantiles(&rows, classes, &mut acc);
        Ok(())
    })?;
    Ok(acc)
}

fn dists(acc: PerTime) -> Vec<(String, Dist)> {
    acc.into_iter().map(|((c, stat), v)| (format!("{c}-GPU {stat}"), Dist::from_samples(v))).collect()
}

pub struct MachineUtil;

impl Analyze for MachineUtil {
    type Params = ();
    /// Peak 1.54-1.59 GB over the 42.3 M gpu_util rows of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::philly::GPU_UTIL, 38);
    const ABOUT: About = About {
        id: "philly.machine-util",
        scope: Scope::Philly,
        mirrors: "tracelab (the PAI NSDI'22 Fig 7 method applied to Philly; upstream issue #8)",
        summary: "Per-minute P50/P90 across 2-GPU and 8-GPU machines of GPU, CPU, memory util; CDF over minutes",
        title: "Machine utilization over time by machine class (PAI Fig 7 method on Philly)",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
tracelab's own view: the method of PAI Fig 7 ([pai.machine-util](#paimachine-util)) applied to
Philly's per-minute data, so the two traces can be drawn side by side. The Philly notebook has no
such figure.

- **Per minute and machine:** GPU = the mean of the machine's non-null GPU columns in
  `philly/gpu_util`; CPU = `philly/cpu_util`; memory = 100 × (`mem_total_kib` − `mem_free_kib`) /
  `mem_total_kib` (`mem_total_kib` ≠ 0).
- **Machine class** = the number of GPU columns that are ever non-null for the machine in
  `philly/gpu_util`, not the published machine list, which does not match the job placements
  (philly-traces issue #8). Machines that never report a GPU, or are absent from `gpu_util`, are
  left out. In the real trace the classes are 2 and 8; any other count gets its own series.
- **Per minute (UTC) and class:** P50 and P90 across the machines that have a value at that
  minute (linear). Parts `gpu`, `cpu`, `mem`: per class, the distributions of those per-minute
  values over minutes. Table `classes`: machines per GPU count in `gpu_util` and in the machine
  list; table `list-disagrees`: the machines where the two differ, with the highest GPU index jobs
  were placed on there, plus 1.
- **Published:** none.
- **Differences:** no upstream code.
"##;

    fn definition(_: &()) -> String {
        "tracelab's own reconstruction (the PAI NSDI'22 Fig 7 method; the Philly notebook has no such figure). Per \
         minute and machine: GPU = mean of the machine's non-null gpu<i>_util_pct columns in philly/gpu_util; CPU = \
         philly/cpu_util.cpu_util_pct; memory = 100 * (mem_total_kib - mem_free_kib) / mem_total_kib (philly/mem_util, total != 0). \
         Machine class = the number of GPU columns ever non-null for that machine in philly/gpu_util (2 or 8; \
         machines never reporting a GPU, or absent from gpu_util, are excluded), NOT the published machine list \
         (upstream issue #8; table `list-disagrees` lists the machines where they differ). Per minute (UTC) and \
         class: P50 and P90 across machines (linear interpolation, numpy default); parts gpu, cpu, mem give the \
         distribution of those per-minute values over minutes. Utilization in %."
            .into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        machine_util(ctx, out)
    }
}

fn machine_util(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let wins = windows(ctx)?;
    let (machines, gpu_rows) = gpu_pass(ctx, &wins)?;
    let classes = machines.classes();
    for metric in METRICS {
        let acc = match metric {
            "gpu" => {
                let mut acc = PerTime::new();
                per_time_quantiles(&gpu_rows, &classes, &mut acc);
                acc
            }
            _ => host_pass(ctx, metric, &machines, &classes, &wins)?,
        };
        let x_label = match metric {
            "gpu" => "GPU utilization (%)",
            "cpu" => "CPU utilization (%)",
            _ => "Memory utilization (%)",
        };
        out.dists(metric, x_label, dists(acc));
    }
    drop(gpu_rows);
    let (counts, disagree) = list_tables(ctx, &machines.by_name())?;
    out.table("classes", counts);
    out.table("list-disagrees", disagree);
    Ok(())
}
/// Machines per class (utilization file vs machine list) and the machines
/// where they disagree, with the GPUs jobs were placed on there.
fn list_tables(ctx: &Ctx, classes: &BTreeMap<String, usize>) -> Result<(ResultTable, ResultTable)> {
    let list = collect(ctx.store.scan(&MACHINES)?.select([col("machine"), col("gpus")]), "machine list")?;
    let listed: BTreeMap<String, i64> =
        strs(&list, "machine")?.into_iter().zip(i64s(&list, "gpus")?).filter_map(|(m, g)| Some((m?, g?))).collect();
    let placed_lf =
        ctx.store.scan(&PLACEMENTS)?.group_by([col("machine")]).agg([(col("gpu").max() + lit(1i64)).alias("n")]);
    let placed = collect(placed_lf, "placed GPUs")?;
    let placed: BTreeMap<String, i64> =
        strs(&placed, "machine")?.into_iter().zip(i64s(&placed, "n")?).filter_map(|(m, g)| Some((m?, g?))).collect();
    let mut counts: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
    for c in classes.values() {
        counts.entry(*c as i64).or_default().0 += 1;
    }
    for g in listed.values() {
        counts.entry(*g).or_default().1 += 1;
    }
    let mut t = ResultTable::new(&["gpus", "machines_in_gpu_util", "machines_in_list"]);
    for (g, (u, l)) in counts {
        t.push(vec![Cell::Int(g), Cell::Int(u), Cell::Int(l)]);
    }
    let mut d = ResultTable::new(&["machine", "gpus_in_gpu_util", "gpus_in_list", "highest_placed_gpu_plus_1"]);
    for (m, c) in classes {
        let l = listed.get(m).copied();
        if l != Some(*c as i64) {
            d.push(vec![Cell::from(m.as_str()), Cell::Int(*c as i64), l.into(), placed.get(m).copied().into()]);
        }
    }
    Ok((t, d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;
    use crate::Body;

    /// Times out of order (the general path): t=60 has class-2 values 20
    /// and 40 (P50 30, P90 20 + 0.9 * 20 = 38); t=120 has class-2 values 10
    /// and 50 (P50 30, P90 10 + 0.9 * 40 = 46) and class 8 value 30 alone;
    /// machine 3 (class 0, no GPU ever) is skipped.
    #[test]
    fn per_time_quantiles_group_unsorted_times_by_class() {
        let rows = Rows {
            time: vec![120, 60, 120, 60, 120, 60],
            machine: vec![0, 1, 2, 0, 1, 3],
            value: vec![10.0, 20.0, 30.0, 40.0, 50.0, 99.0],
        };
        let mut acc = PerTime::new();
        per_time_quantiles(&rows, &[2, 2, 8, 0], &mut acc);
        let close = |got: &[f64], want: &[f64]| {
            assert_eq!(got.len(), want.len());
            assert!(got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12), "{got:?} vs {want:?}");
        };
        close(&acc[&(2, "P50")], &[30.0, 30.0]);
        close(&acc[&(2, "P90")], &[38.0, 46.0]);
        close(&acc[&(8, "P50")], &[30.0]);
        close(&acc[&(8, "P90")], &[30.0]);
        assert_eq!(acc.len(), 4);
    }

    #[test]
    fn per_minute_class_quantiles_and_list_disagreements() {
        let e = None::<f64>;
        let gpu = df!(
            "time" => [0i64, 0, 0, 0],
            "machine" => ["m1", "m2", "m3", "m4"],
            "gpu0_util_pct" => [Some(10.0), Some(0.0), Some(30.0), Some(0.0)],
            "gpu1_util_pct" => [Some(20.0), Some(40.0), e, Some(10.0)],
            "gpu2_util_pct" => [e, e, e, Some(20.0)],
            "gpu3_util_pct" => [e, e, e, Some(30.0)],
            "gpu4_util_pct" => [e, e, e, Some(40.0)],
            "gpu5_util_pct" => [e, e, e, Some(50.0)],
            "gpu6_util_pct" => [e, e, e, Some(60.0)],
            "gpu7_util_pct" => [e, e, e, Some(70.0)],
        )
        .unwrap();
        // m3's gpu1 is non-null in a later minute, so m3 is a 2-GPU machine.
        let gpu = gpu.vstack(&df!("time" => [60i64], "machine" => ["m3"], "gpu0_util_pct" => [e], "gpu1_util_pct" => [Some(1.0)], "gpu2_util_pct" => [e], "gpu3_util_pct" => [e], "gpu4_util_pct" => [e], "gpu5_util_pct" => [e], "gpu6_util_pct" => [e], "gpu7_util_pct" => [e]).unwrap()).unwrap();
        let cpu =
            df!("time" => [0i64, 0, 0], "machine" => ["m1", "m2", "m3"], "cpu_util_pct" => [10.0, 20.0, 40.0]).unwrap();
        let mem = df!("time" => [0i64, 0, 0, 0], "machine" => ["m1", "m2", "m3", "m4"], "mem_total_kib" => [100.0, 100.0, 100.0, 0.0], "mem_free_kib" => [90.0, 80.0, 70.0, 0.0]).unwrap();
        let list = df!("machine" => ["m1", "m2", "m4"], "gpus" => [8i64, 2, 8]).unwrap();
        let tiny = testkit::store(vec![
            (&GPU_UTIL, gpu),
            (&CPU_UTIL, cpu),
            (&MEM_UTIL, mem),
            (&MACHINES, list),
            (&PLACEMENTS, df!("job_id" => ["j"], "attempt" => [0i64], "machine" => ["m1"], "gpu" => [1i64]).unwrap()),
        ]);
        let out = testkit::run(&MachineUtil, &tiny, &[]);
        let q = |part: &str, label: &str, p: f64| match &out.part(part).unwrap().body {
            Body::Dists { series, .. } => series.iter().find(|s| s.0 == label).unwrap().1.quantile(p),
            _ => unreachable!(),
        };
        // Minute 0, 2-GPU machines m1, m2, m3: GPU means 15, 20, 30 (m3: only gpu0 non-null);
        // P50 = 20, P90 = 20 + 0.8 * (30 - 20) = 28. Minute 1: m3 alone, 1.0.
        assert_eq!((q("gpu", "2-GPU P50", 1.0), q("gpu", "2-GPU P90", 1.0)), (20.0, 28.0));
        assert_eq!(q("gpu", "2-GPU P50", 0.0), 1.0);
        // m4: mean of 0..70 step 10 = 35.
        assert_eq!(q("gpu", "8-GPU P90", 0.5), 35.0);
        // CPU 10, 20, 40: P50 20, P90 20 + 0.8 * 20 = 36.
        assert_eq!((q("cpu", "2-GPU P50", 0.5), q("cpu", "2-GPU P90", 0.5)), (20.0, 36.0));
        // Memory 10, 20, 30 % (m4 total 0 skipped): P90 28.
        assert_eq!(q("mem", "2-GPU P90", 0.5), 28.0);
        let Body::Table(t) = &out.part("list-disagrees").unwrap().body else { unreachable!() };
        // m1 is 2-GPU in gpu_util, 8 in the list; m3 is missing from the list.
        assert_eq!(t.column("machine").unwrap(), vec![&Cell::from("m1"), &Cell::from("m3")]);
        assert_eq!(t.column("highest_placed_gpu_plus_1").unwrap(), vec![&Cell::Int(2), &Cell::Null]);
    }
}
