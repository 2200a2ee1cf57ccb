//! GPU sharing savings (NSDI'22 Sec 5, Fig 9; paper only, tracelab
//! reconstruction): per time bin, the GPUs actually occupied (distinct
//! machine and `gpu_name` with a running instance) vs the GPUs the same
//! instances would need without sharing (sum of ceil(plan_gpu / 100)); and
//! how many occupied GPU-bins run above 95 % utilization, and of those how
//! many host more than one instance.
//!
//! Instances: `dfws` rows (one per worker with a sensor row) with a
//! `gpu_name`, a machine, plan_gpu > 0 and a covered time ([`super::bins`]).
//! The sensor names one device per instance, so a multi-GPU instance
//! occupies one named GPU here while needing several (`multi-gpu=exclude`
//! keeps instances with plan_gpu <= 100 only).
//!
//! Everything is a sweep in the engine: per GPU key, a running count and
//! utilization sum over change events give segments of constant state.

use polars::prelude::*;

use super::bins::{covers_time, end_bin, first_bin, BIN};
use super::frames;
use crate::declare::{About, Analyze, Memory, Published, Scope};
use crate::frame::{collect, f64s, i64s};
use crate::output::{Headline, Output};
use crate::params::{choice, params, Param, Seconds};
use crate::Ctx;
use tracelab_schema::error::{Error, Result};
use tracelab_stats::Dist;

choice! {
    /// Instances with plan_gpu > 100 (one named device in the sensor).
    pub enum MultiGpu { Include = "include", Exclude = "exclude" }
}

const MULTI_GPU: Param<MultiGpu> = Param::choice(
    "multi-gpu",
    "include",
    "instances with plan_gpu_pct > 100 (one named device in the sensor): include or exclude",
);
const HOT: Param<f64> = Param::number("hot", "95", "GPU utilization (%) above which a GPU-bin is hot");

params! {
    pub struct SharingParams {
        pub bin: Seconds = BIN,
        pub multi_gpu: MultiGpu = MULTI_GPU,
        pub hot: f64 = HOT,
    }
}

pub struct GpuSharing;

const SOURCE: &str = "NSDI'22 Sec 5 (Fig 9)";

impl Analyze for GpuSharing {
    type Params = SharingParams;
    /// Peak 1.32 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 185);
    const ABOUT: About = About {
        id: "pai.gpu-sharing",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 9 (paper only; tracelab reconstruction)",
        summary: "GPUs occupied vs needed without sharing per time bin; hot (>95 %) GPU-bins and how many are shared",
        title: "GPU sharing: occupied vs needed GPUs over time",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 9 (paper only; tracelab's reconstruction).

- **Instances:** `dfws` rows with a `gpu_name` and a `machine`, `plan_gpu_pct` > 0, and a covered time
  (bins as in [pai.machine-util](#paimachine-util)). With `multi-gpu=exclude`, only instances with
  `plan_gpu_pct` ≤ 100.
- **A GPU** is a (machine, `gpu_name`) pair. The sensor names one device per instance, so an
  instance asking for several GPUs occupies one named GPU here.
- **Per bin:** *occupied* = GPUs with at least one covering instance; *needed* = sum of
  ⌈`plan_gpu_pct`/100⌉ over covering instances (what they would take without sharing). Part `ratio`:
  the distribution of 100 × occupied / needed over bins with needed > 0; part `over-time`: the
  same as a curve in hours since the first bin.
- **Hot GPUs.** The utilization of a GPU in a bin = sum over its covering instances of
  `gpu_wrk_util_pct` / ⌈`plan_gpu_pct`/100⌉ (missing utilization counts 0). A GPU-bin is *hot* above
  `hot` %, and *shared* with more than one covering instance.
- **Headlines:** saving = 100 × (1 − sum of occupied / sum of needed over the bins); the median
  ratio; hot GPU-bins as a share of occupied GPU-bins; hot and shared GPU-bins as a share of hot
  ones and of all occupied ones.
- **Published:** sharing saves about 50 % of GPUs; about 7 % of GPUs run above 95 %
  utilization, and 4.5 % host several instances (NSDI'22 Sec 5, Fig 9). The text can be read as
  4.5 % of the hot GPUs or of all GPUs; both are output.
- **Differences:** no upstream code; the occupancy and utilization rules are tracelab's.
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("saving", 50.0, "%", SOURCE),
        Published::new("hot", 7.0, "%", SOURCE),
        Published::new(
            "hot_shared_of_hot",
            4.5,
            "%",
            "NSDI'22 Sec 5 (Fig 9); the text may mean 4.5 % of all GPUs: see hot_shared_of_all",
        ),
    ];

    fn definition(p: &SharingParams) -> String {
        definition(p)
    }

    fn run(ctx: &Ctx, p: &SharingParams, out: &mut Output) -> Result<()> {
        gpu_sharing(ctx, p, out)
    }
}

/// The instances with their GPU (`gpu`: an integer id per machine and
/// `gpu_name`, from the ranks of the sorted distinct machines and names, so
/// that the sweeps group and sort integers, not strings), need and per-GPU
/// utilization, and bins; evaluated once.
fn running(ctx: &Ctx, multi_gpu: MultiGpu, bin_s: i64) -> Result<DataFrame> {
    let cols = ["start_time", "end_time", "gpu_name", "machine", "plan_gpu_pct", "gpu_wrk_util_pct"];
    let mut lf = frames::instances_with_sensor(ctx, &cols)?.filter(
        covers_time()
            .and(col("gpu_name").is_not_null())
            .and(col("machine").is_not_null())
            .and(col("plan_gpu_pct").gt(lit(0.0))),
    );
    if multi_gpu == MultiGpu::Exclude {
        lf = lf.filter(col("plan_gpu_pct").lt_eq(lit(100.0)));
    }
    let need = (col("plan_gpu_pct") / lit(100.0)).ceil();
    let inst = collect(
        lf.select([
            col("machine"),
            col("gpu_name"),
            need.clone().alias("need"),
            // The instance's utilization spread over the GPUs it needs.
            (col("gpu_wrk_util_pct").fill_null(lit(0.0)) / need).alias("util"),
            first_bin(col("start_time"), bin_s).alias("b0"),
            end_bin(col("end_time"), bin_s).alias("b1"),
        ]),
        "running instances",
    )?;
    let ids = |c: &str| -> Result<DataFrame> {
        let distinct = inst.clone().lazy().select([col(c)]).unique(None, UniqueKeepStrategy::Any);
        collect(distinct.sort([c], SortMultipleOptions::default()).with_row_index("id", None), "GPU ids")
    };
    let (machines, names) = (ids("machine")?, ids("gpu_name")?);
    let by = |c: &str| [col(c)];
    let gpu =
        col("machine_id").cast(DataType::Int64) * lit(names.height().max(1) as i64) + col("id").cast(DataType::Int64);
    let numbered = inst
        .lazy()
        .join(
            machines.lazy().rename(["id"], ["machine_id"], true),
            by("machine"),
            by("machine"),
            JoinArgs::new(JoinType::Inner),
        )
        .join(names.lazy(), by("gpu_name"), by("gpu_name"), JoinArgs::new(JoinType::Inner));
    collect(numbered.select([gpu.alias("gpu"), col("need"), col("util"), col("b0"), col("b1")]), "GPU ids")
}

/// Change events (+ at the first bin, - after the last) of `cols`.
fn events(lf: LazyFrame, keys: &[&str], values: &[&str]) -> Result<LazyFrame> {
    let side = |at: &str, sign: f64| {
        let mut e: Vec<Expr> = keys.iter().map(|k| col(*k)).collect();
        e.push(col(at).alias("bin"));
        e.extend(values.iter().map(|v| (col(*v) * lit(sign)).alias(*v)));
        lf.clone().select(e)
    };
    concat([side("b0", 1.0), side("b1", -1.0)], UnionArgs::default()).map_err(|e| Error::polars("sharing events", e))
}

/// The per-GPU sweep over the changes sorted by GPU then bin: occupied
/// GPU-bins, hot ones, hot and shared ones, and the occupancy change of
/// every (GPU, bin).
struct Segments {
    /// Occupied GPU-bins, of those above the hot threshold, of those with
    /// more than one instance.
    bins: [i64; 3],
    /// Columns bin, d_occ: +1 where a GPU becomes occupied, -1 where it
    /// becomes free.
    occupancy: DataFrame,
}

/// The changes merged per cell (GPU, bin), in cell order: (gpu, bin, count
/// change, utilization change), each a sequential sum in event order.
fn merged_cells(changes: &DataFrame, span: i64, b0: i64) -> Result<Vec<(i64, i64, f64, f64)>> {
    let (cell, one, util) = (i64s(changes, "cell")?, f64s(changes, "one")?, f64s(changes, "util")?);
    let mut out: Vec<(i64, i64, f64, f64)> = Vec::new();
    let mut last = None;
    for i in 0..cell.len() {
        let Some(c) = cell[i] else { continue };
        if last != Some(c) {
            out.push((c.div_euclid(span), c.rem_euclid(span) + b0, 0.0, 0.0));
            last = Some(c);
        }
        let cur = out.last_mut().expect("pushed above");
        cur.2 += one[i].unwrap_or(0.0);
        cur.3 += util[i].unwrap_or(0.0);
    }
    Ok(out)
}

/// Within each GPU: running count and utilization (sequential sums, the
/// utilization reset to 0 whenever the GPU is free, so no float drift is
/// carried across idle gaps into the > hot comparison), a segment lasting
/// until the GPU's next change (its last change opens none).
fn segments(changes: &DataFrame, span: i64, b0: i64, hot: f64) -> Result<Segments> {
    let cells = merged_cells(changes, span, b0)?;
    let (mut count, mut u, mut was_occupied) = (0.0f64, 0.0f64, 0.0f64);
    let mut bins = [0i64; 3];
    let mut d_occ = Vec::with_capacity(cells.len());
    for (i, &(gpu, bin, one, util)) in cells.iter().enumerate() {
        if i == 0 || gpu != cells[i - 1].0 {
            (count, u, was_occupied) = (0.0, 0.0, 0.0);
        }
        count += one;
        u += util;
        let running = count.round_ties_even();
        if running == 0.0 {
            u = 0.0;
        }
        let occupied = if running > 0.0 { 1.0 } else { 0.0 };
        let next = cells.get(i + 1).filter(|n| n.0 == gpu).map(|n| n.1);
        if let (true, Some(next)) = (running > 0.0, next) {
            let len = next - bin;
            bins[0] += len;
            if u > hot {
                bins[1] += len;
                if running > 1.0 {
                    bins[2] += len;
                }
            }
        }
        d_occ.push(occupied - was_occupied);
        was_occupied = occupied;
    }
    let bin: Vec<i64> = cells.iter().map(|c| c.1).collect();
    let occupancy =
        DataFrame::new(d_occ.len(), vec![Column::new("bin".into(), bin), Column::new("d_occ".into(), d_occ)])
            .map_err(|e| Error::polars("occupancy changes", e))?;
    Ok(Segments { bins, occupancy })
}

fn gpu_sharing(ctx: &Ctx, p: &SharingParams, out: &mut Output) -> Result<()> {
    let (bin_s, hot) = (p.bin.0, p.hot);
    let inst = running(ctx, p.multi_gpu, bin_s)?;
    // (gpu, bin) packed into one integer `cell` for the grouping and the
    // sort: bins run from the first start to the last end bin.
    let b0 = i64s(&inst, "b0")?.into_iter().flatten().min().unwrap_or(0);
    let span = i64s(&inst, "b1")?.into_iter().flatten().max().unwrap_or(0) - b0 + 1;
    let inst = inst.lazy().with_column(lit(1.0).alias("one"));
    // The changes of instance count and utilization sorted by GPU and bin
    // (a stable sort: the sweep sums each cell's changes in event order).
    let sorted = events(inst.clone(), &["gpu"], &["one", "util"])?
        .select([(col("gpu") * lit(span) + col("bin") - lit(b0)).alias("cell"), col("one"), col("util")])
        .sort(["cell"], SortMultipleOptions::default().with_maintain_order(true));
    let seg = segments(&collect(sorted, "per-GPU changes")?, span, b0, hot)?;
    // Per bin: occupied = number of GPUs with count > 0; needed = running sum of need.
    let occ_changes = seg.occupancy.lazy().with_column(lit(0.0).alias("d_need"));
    let need_changes =
        events(inst, &[], &["need"])?.select([col("bin"), lit(0.0).alias("d_occ"), col("need").alias("d_need")]);
    let steps = concat([occ_changes, need_changes], UnionArgs::default())
        .map_err(|e| Error::polars("sharing steps", e))?
        .group_by([col("bin")])
        .agg([col("d_occ").sum(), col("d_need").sum()])
        .sort(["bin"], SortMultipleOptions::default())
        .with_columns([
            col("d_occ").cum_sum(false).round(0, RoundMode::HalfToEven).alias("occupied"),
            col("d_need").cum_sum(false).round(0, RoundMode::HalfToEven).alias("needed"),
            (col("bin").shift(lit(-1)) - col("bin")).alias("len"),
        ])
        .filter(col("needed").gt(lit(0.0)));
    let df = collect(steps, "sharing per bin")?;
    let (bins, occ, need, len) = (i64s(&df, "bin")?, f64s(&df, "occupied")?, f64s(&df, "needed")?, i64s(&df, "len")?);
    let mut curve = Vec::new();
    let mut ratios = Vec::new();
    let (mut sum_occ, mut sum_need) = (0.0, 0.0);
    for i in 0..df.height() {
        let (o, n, l) = (occ[i].unwrap_or(0.0), need[i].unwrap_or(0.0), len[i].unwrap_or(0) as u64);
        let t0 = bins[0].unwrap_or(0);
        curve.push(((bins[i].unwrap_or(0) - t0) as f64 * bin_s as f64 / 3600.0, 100.0 * o / n));
        ratios.push((100.0 * o / n, l));
        sum_occ += o * l as f64;
        sum_need += n * l as f64;
    }
    let ratio = Dist::from_counts(ratios);
    let [gpu_bins, hot_bins, hot_shared] = seg.bins.map(|b| b as f64);
    let headlines = vec![
        Headline::new(
            "saving",
            "GPUs saved by sharing (1 - occupied / needed GPU-time)",
            100.0 * (1.0 - sum_occ / sum_need),
            "%",
        ),
        Headline::new("median_ratio", "occupied / needed GPUs, median over bins", ratio.quantile(0.5), "%"),
        Headline::new("hot", &format!("occupied GPU-bins above {hot} % utilization"), 100.0 * hot_bins / gpu_bins, "%"),
        Headline::new(
            "hot_shared_of_hot",
            "of those, hosting more than one instance",
            100.0 * hot_shared / hot_bins,
            "%",
        ),
        Headline::new(
            "hot_shared_of_all",
            "hot and shared GPU-bins, of all occupied GPU-bins",
            100.0 * hot_shared / gpu_bins,
            "%",
        ),
    ];
    out.dists("ratio", "occupied / needed GPUs per bin (%)", vec![("all bins".into(), ratio)])
        .curves("over-time", "hours since the first bin", "occupied / needed GPUs (%)", vec![("ratio".into(), curve)])
        .headlines("fig9", headlines);
    Ok(())
}

fn definition(p: &SharingParams) -> String {
    let (bin_s, hot) = (p.bin.0, p.hot);
    format!(
        "tracelab reconstruction; instances = dfws rows (dfw with a pai/sensor row, inner join on worker_name) with \
         gpu_name and machine not null, plan_gpu_pct > 0 ({} multi-GPU instances, plan_gpu_pct > 100), covering the {bin_s} s \
         bins their [start_time, end_time) overlaps. Per bin: occupied = distinct (machine, gpu_name) with a covering \
         instance; needed = sum of ceil(plan_gpu_pct / 100) over covering instances; ratio = 100 * occupied / needed (bins \
         with needed > 0, from the first to the last event; the Dist counts every bin); saving = 1 - sum(occupied) / \
         sum(needed) over bins. GPU utilization of a (machine, gpu_name) in a bin = sum over covering instances of \
         gpu_wrk_util_pct / ceil(plan_gpu_pct / 100) (null util 0); hot = above {hot} %; shared = more than one covering \
         instance; shares over occupied GPU-bins",
        p.multi_gpu.name()
    )
}

#[cfg(test)]
mod tests {
    use polars::df;

    use super::*;
    use crate::testkit;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, MACHINE_SPEC, SENSOR, TASK};

    /// Bins of 100 s on machine m. w1 on gpu0 [0,200) plan 50 util 60; w2 on
    /// gpu0 [100,200) plan 50 util 40; w3 on gpu1 [0,100) plan 200 util 100.
    /// Bin 0: occupied {gpu0, gpu1} = 2, needed 1 + 2 = 3. Bin 1: occupied 1,
    /// needed 2. Saving = 1 - 3/5 = 40 %. Per-GPU util: gpu0 60 then 100
    /// (two instances), gpu1 100/2 = 50: 1 of 3 GPU-bins hot, and shared.
    #[test]
    fn occupied_vs_needed_by_hand() {
        let t = testkit::store(vec![
            (&MACHINE_SPEC, DataFrame::empty()),
            (&GROUP_TAG, DataFrame::empty()),
            (
                &TASK,
                df!("job_name" => ["j", "j"], "task_name" => ["s", "m"], "inst_num" => [2i64, 1], "status" => ["Terminated"; 2],
                    "plan_gpu_pct" => [50.0, 200.0])
                .unwrap(),
            ),
            (
                &INSTANCE,
                df!("job_name" => ["j"; 3], "task_name" => ["s", "s", "m"], "inst_name" => ["a", "b", "c"],
                    "worker_name" => ["w1", "w2", "w3"], "inst_id" => ["i"; 3], "status" => ["Terminated"; 3],
                    "start_time" => [0i64, 100, 0], "end_time" => [200i64, 200, 100], "machine" => ["m"; 3])
                .unwrap(),
            ),
            (
                &SENSOR,
                df!("job_name" => ["j"; 3], "task_name" => ["s", "s", "m"], "worker_name" => ["w1", "w2", "w3"], "inst_id" => ["i"; 3],
                    "machine" => ["m"; 3], "gpu_name" => ["gpu0", "gpu0", "gpu1"], "gpu_wrk_util_pct" => [60.0, 40.0, 100.0])
                .unwrap(),
            ),
        ]);
        let out = testkit::run(&GpuSharing, &t, &[("bin", "100s")]);
        let h = |k: &str| out.all_headlines().find(|h| h.key == k).unwrap().value;
        assert!((h("saving") - 40.0).abs() < 1e-12);
        assert!((h("hot") - 100.0 / 3.0).abs() < 1e-12);
        assert_eq!(h("hot_shared_of_hot"), 100.0);
        let crate::output::Body::Dists { series, .. } = &out.part("ratio").unwrap().body else { panic!() };
        assert_eq!(series[0].1.values(), &[50.0, 200.0 / 3.0]);
    }
}
