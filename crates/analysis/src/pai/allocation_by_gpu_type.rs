//! `pai.allocation-by-gpu-type`: the time-averaged CPU and GPU allocated per
//! machine by GPU type and tier, and the V100 machine x time allocation
//! matrix of the paper's heat map (NSDI'22 Sec 4, paper only).

use polars::prelude::*;

use super::bins::{covers_time, end_bin, first_bin};
use super::machines::placed;
use crate::declare::{About, Analyze, Memory, Published, Scope};
use crate::frame::{collect, f64s, i64s, seconds_between, strs};
use crate::output::{Headline, Output, ResultTable};
use crate::params::{params, Param, Seconds};
use crate::Ctx;
use tracelab_schema::error::Result;

const BIN: Param<Seconds> = Param::duration("bin", "1h", "time bin of the V100 load matrix");

params! {
    pub struct AllocationParams {
        pub bin: Seconds = BIN,
    }
}

pub struct AllocationByGpuType;

const SOURCE: &str = "NSDI'22 Sec 4";

impl Analyze for AllocationByGpuType {
    type Params = AllocationParams;
    /// Peak 1.64 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 230);
    const ABOUT: About = About {
        id: "pai.allocation-by-gpu-type",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 4 (paper only)",
        summary: "time-averaged allocated CPU and GPU share per machine by GPU type; V100 machine x time load matrix",
        title: "Allocated CPU and GPU by GPU type",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Sec 4 (paper only).

- **Instances:** `dfw` rows placed on a `machine_spec` machine (inner join) with both times and
  `end_time > start_time`. The *window* runs from their earliest start to their latest end.
- **Per machine:** allocated CPU = 100 × sum of (`plan_cpu_pct`/100 × runtime) / (`cap_cpu` ×
  window); allocated GPU likewise with `plan_gpu_pct` and `cap_gpu`. Missing plans count 0.
- **Per GPU type and tier:** the mean over the machines that hosted at least one instance. Tiers:
  weak = MISC, P100, T4; high-end = V100, V100M32. Part `by-type`; headlines per tier.
- **V100 load matrix** (part `v100-load`): for the machines of type V100 and each `bin`, 100 ×
  sum over instances of (`plan_gpu_pct`/100 × the seconds of the bin they cover) / (`cap_gpu` ×
  bin length). Every V100 machine with an instance and every bin of the V100 window appear,
  zeros included.
- **Published:** weak-GPU machines 77 % CPU and 74 % GPU allocated; high-end 35 % and 49 %
  (NSDI'22 Sec 4).
- **Differences:** no upstream code; the time averaging over one window is tracelab's choice.
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("weak cpu", 77.0, "%", SOURCE),
        Published::new("weak gpu", 74.0, "%", SOURCE),
        Published::new("high-end cpu", 35.0, "%", SOURCE),
        Published::new("high-end gpu", 49.0, "%", SOURCE),
    ];

    fn definition(p: &AllocationParams) -> String {
        format!(
            "instances = dfw rows placed on a machine_spec machine (inner join) with start and end times (end > \
             start); window = earliest start to latest end of those instances ({{window_s}} s). Per machine: \
             allocated CPU = 100 * sum(plan_cpu_pct/100 * runtime) / (cap_cpu * window), GPU likewise with plan_gpu_pct and \
             cap_gpu (null plans 0); per GPU type and tier the mean over machines that hosted at least one instance \
             (weak = MISC, P100, T4; high-end = V100, V100M32). v100-load: V100 machines (gpu_type V100) x {} s \
             bins, value = 100 * sum over instances of plan_gpu_pct/100 * seconds of the bin they cover / (cap_gpu * \
             bin length); every V100 machine with an instance and every bin of the window, zeros included",
            p.bin.0
        )
    }

    fn run(ctx: &Ctx, p: &AllocationParams, out: &mut Output) -> Result<()> {
        allocation(ctx, p.bin.0, out)
    }
}

/// GPU types considered weak (low-end) and high-end in the paper.
pub const WEAK: [&str; 3] = ["MISC", "P100", "T4"];
pub const HIGH_END: [&str; 2] = ["V100", "V100M32"];

fn allocation(ctx: &Ctx, bin_s: i64, out: &mut Output) -> Result<()> {
    // The placed instances feed four queries (window, per machine, per tier,
    // V100 matrix): collect the columns they use once instead of
    // re-running the instance dedupe and joins for each.
    let used = [
        "spec_idx",
        "machine",
        "machine_type",
        "cap_cpu",
        "cap_gpu",
        "start_time",
        "end_time",
        "plan_cpu_pct",
        "plan_gpu_pct",
    ];
    let inst = collect(placed(ctx)?.filter(covers_time()).select(used.map(col)), "placed instances")?.lazy();
    let span = collect(
        inst.clone().select([col("start_time").min().alias("t0"), col("end_time").max().alias("t1")]),
        "window",
    )?;
    let (t0, t1) = (i64s(&span, "t0")?[0].unwrap_or(0), i64s(&span, "t1")?[0].unwrap_or(0));
    let window_s = (t1 - t0) as f64 / 1e6;
    let secs = seconds_between(col("end_time"), col("start_time"));
    // Summed per spec row first (an integer key over millions of rows), then
    // per machine and its attributes over the few thousand spec rows: sums
    // distribute over the join, so this is the grouping by machine, type
    // and capacities without hashing those for every instance.
    let attrs = || [col("machine"), col("machine_type"), col("cap_cpu"), col("cap_gpu")];
    let per_machine = inst
        .clone()
        .group_by([col("spec_idx")])
        .agg([
            (col("plan_cpu_pct").fill_null(lit(0.0)) / lit(100.0) * secs.clone()).sum().alias("cpu_s"),
            (col("plan_gpu_pct").fill_null(lit(0.0)) / lit(100.0) * secs).sum().alias("gpu_s"),
            col("machine").first(),
            col("machine_type").first(),
            col("cap_cpu").first(),
            col("cap_gpu").first(),
        ])
        .sort(["spec_idx"], SortMultipleOptions::default())
        .group_by(attrs())
        .agg([col("cpu_s").sum(), col("gpu_s").sum()])
        // Sorted: the means per type and tier then add up in a fixed order
        // (a grouping's output order varies from run to run).
        .sort(["machine", "machine_type", "cap_cpu", "cap_gpu"], SortMultipleOptions::default())
        .with_columns([
            (col("cpu_s") / (col("cap_cpu").cast(DataType::Float64) * lit(window_s)) * lit(100.0)).alias("cpu_alloc"),
            (col("gpu_s") / (col("cap_gpu").cast(DataType::Float64) * lit(window_s)) * lit(100.0)).alias("gpu_alloc"),
        ]);
    let group = |types: &[&str]| types.iter().fold(lit(false), |acc, t| acc.or(col("machine_type").eq(lit(*t))));
    let tier_of =
        when(group(&WEAK)).then(lit("weak")).when(group(&HIGH_END)).then(lit("high-end")).otherwise(lit("CPU"));
    let per_machine = collect(per_machine.with_column(tier_of.alias("tier")), "allocation per machine")?.lazy();
    let by_type = collect(
        per_machine
            .clone()
            .group_by([col("machine_type"), col("tier")])
            .agg([len().cast(DataType::Int64).alias("machines"), col("cpu_alloc").mean(), col("gpu_alloc").mean()])
            .sort(["machine_type"], SortMultipleOptions::default()),
        "allocation by type",
    )?;
    let tiers = collect(
        per_machine.group_by([col("tier")]).agg([col("cpu_alloc").mean(), col("gpu_alloc").mean()]),
        "allocation by tier",
    )?;
    let mut table = ResultTable::new(&["gpu_type", "tier", "machines", "cpu_alloc_pct", "gpu_alloc_pct"]);
    let (ty, ti, n, c, g) = (
        strs(&by_type, "machine_type")?,
        strs(&by_type, "tier")?,
        i64s(&by_type, "machines")?,
        f64s(&by_type, "cpu_alloc")?,
        f64s(&by_type, "gpu_alloc")?,
    );
    for i in 0..ty.len() {
        table.push(vec![ty[i].clone().into(), ti[i].clone().into(), n[i].into(), c[i].into(), g[i].into()]);
    }
    let tier = |name: &str, column: &str| -> Result<f64> {
        let k = strs(&tiers, "tier")?;
        let v = f64s(&tiers, column)?;
        Ok(k.iter().zip(v).find(|p| p.0.as_deref() == Some(name)).and_then(|p| p.1).unwrap_or(f64::NAN))
    };
    let headlines = vec![
        Headline::new("weak cpu", "weak-GPU machines: CPU allocated", tier("weak", "cpu_alloc")?, "%"),
        Headline::new("weak gpu", "weak-GPU machines: GPU allocated", tier("weak", "gpu_alloc")?, "%"),
        Headline::new("high-end cpu", "high-end machines: CPU allocated", tier("high-end", "cpu_alloc")?, "%"),
        Headline::new("high-end gpu", "high-end machines: GPU allocated", tier("high-end", "gpu_alloc")?, "%"),
    ];
    let matrix = v100_matrix(inst, bin_s)?;
    out.fill("window_s", window_s);
    out.table("by-type", table).headlines("tiers", headlines).table("v100-load", matrix);
    Ok(())
}

/// The V100 machine x bin allocation matrix, dense, in long form.
fn v100_matrix(inst: LazyFrame, bin_s: i64) -> Result<ResultTable> {
    let bin_us = bin_s * 1_000_000;
    let v = inst.filter(col("machine_type").eq(lit("V100")));
    let window = collect(
        v.clone().select([col("start_time").min().alias("t0"), col("end_time").max().alias("t1")]),
        "v100 window",
    )?;
    let cells = v
        .clone()
        .with_columns([first_bin(col("start_time"), bin_s).alias("b0"), end_bin(col("end_time"), bin_s).alias("b1")])
        .with_column(int_ranges(col("b0"), col("b1"), lit(1i64), DataType::Int64).alias("bin"))
        .explode(cols(["bin"]), ExplodeOptions { empty_as_null: false, keep_nulls: false })
        .with_columns([
            col("start_time").cast(DataType::Int64).alias("s"),
            col("end_time").cast(DataType::Int64).alias("e"),
            (col("bin") * lit(bin_us)).alias("lo"),
        ])
        .with_column(
            ((when(col("e").lt(col("lo") + lit(bin_us))).then(col("e")).otherwise(col("lo") + lit(bin_us))
                - when(col("s").gt(col("lo"))).then(col("s")).otherwise(col("lo")))
            .cast(DataType::Float64)
                / lit(bin_us as f64))
            .alias("share"),
        )
        .group_by([col("machine"), col("bin")])
        .agg([
            (col("plan_gpu_pct").fill_null(lit(0.0)) / lit(100.0) * col("share")).sum().alias("gpus"),
            col("cap_gpu").first(),
        ]);
    let (b0, b1) = match (i64s(&window, "t0")?[0], i64s(&window, "t1")?[0]) {
        (Some(a), Some(b)) => (a.div_euclid(bin_us), (b - 1).div_euclid(bin_us) + 1),
        _ => return Ok(ResultTable::new(&["machine", "bin_start", "value"])),
    };
    let machines = v.select([col("machine"), col("cap_gpu")]).unique(None, UniqueKeepStrategy::First);
    let bins: Vec<i64> = (b0..b1).collect();
    let bins = DataFrame::new(bins.len(), vec![Column::new("bin".into(), bins)])
        .map_err(|e| tracelab_schema::error::Error::polars("v100 bins", e))?;
    let grid = machines
        .cross_join(bins.lazy(), None)
        .join(
            cells.drop(cols(["cap_gpu"])),
            [col("machine"), col("bin")],
            [col("machine"), col("bin")],
            JoinArgs::new(JoinType::Left),
        )
        .select([
            col("machine"),
            (col("bin") * lit(bin_us))
                .cast(DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC)))
                .alias("bin_start"),
            (col("gpus").fill_null(lit(0.0)) / col("cap_gpu").cast(DataType::Float64) * lit(100.0)).alias("value"),
        ])
        .sort(["machine", "bin_start"], SortMultipleOptions::default());
    let df = collect(grid, "v100 matrix")?;
    let (m, t, val) = (strs(&df, "machine")?, strs(&df, "bin_start")?, f64s(&df, "value")?);
    let mut table = ResultTable::new(&["machine", "bin_start", "value"]);
    for i in 0..m.len() {
        table.push(vec![m[i].clone().into(), t[i].clone().into(), val[i].into()]);
    }
    Ok(table)
}
