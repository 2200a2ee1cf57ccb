//! Capacity vs requests by machine class and GPU type (NSDI'22 Sec 4,
//! paper only): vCPU per GPU supplied by the machines vs requested by the
//! instances placed on them, the time-averaged CPU and GPU allocation per
//! GPU type, and a machine x time allocation matrix of the V100 machines
//! (the paper's heat map). Instances are `dfw` rows (one per worker) with
//! their task's per-instance plans, placed by `machine` (inner join to
//! `machine_spec`).

use polars::prelude::*;

use super::super::frame::{collect, f64s, i64s, scalar, strs};
use super::super::{Analysis, Args, Ctx, Headline, Output, Param, ResultTable, Scope};
use super::bins::{covers_time, end_bin, first_bin};
use super::frames;
use tracelab_schema::error::Result;
use tracelab_schema::pai::MACHINE_SPEC;
use tracelab_store::Store;

pub static ANALYSES: [Analysis; 2] = [
    Analysis {
        id: "pai.supply-demand",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 4 (paper only; supply verified from machine_spec)",
        summary: "vCPU per GPU supplied vs requested by the instances placed there, 8-GPU / 2-GPU / cluster",
        params: &[],
        run: supply_demand,
    },
    Analysis {
        id: "pai.allocation-by-gpu-type",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 4 (paper only)",
        summary: "time-averaged allocated CPU and GPU share per machine by GPU type; V100 machine x time load matrix",
        params: &[Param { name: "bin", default: "1h", doc: "time bin of the V100 load matrix", choices: &[] }],
        run: allocation,
    },
];

/// Class label by `cap_gpu` (CPU-only machines are "CPU").
fn class() -> Expr {
    when(col("cap_gpu").eq(lit(8i64)))
        .then(lit("8-GPU"))
        .when(col("cap_gpu").eq(lit(2i64)))
        .then(lit("2-GPU"))
        .otherwise(lit("CPU"))
}

/// Instances (dfw) placed on a machine of the spec, with class and type,
/// and `spec_idx`, the spec row (an integer to group by).
fn placed(store: &Store) -> Result<LazyFrame> {
    let spec = store.scan(&MACHINE_SPEC)?.with_row_index("spec_idx", None).select([
        col("spec_idx"),
        col("machine"),
        col("gpu_type").alias("machine_type"),
        col("cap_cpu"),
        col("cap_gpu"),
        class().alias("class"),
    ]);
    let cols = ["machine", "start_time", "end_time", "run_s", "plan_cpu_pct", "plan_gpu_pct"];
    Ok(frames::instances(store, &cols)?.join(spec, [col("machine")], [col("machine")], JoinArgs::new(JoinType::Inner)))
}

fn supply_demand(ctx: &Ctx, _: &Args) -> Result<Output> {
    let spec = ctx.store.scan(&MACHINE_SPEC)?.with_column(class().alias("class"));
    let supply = collect(
        spec.clone().group_by([col("class")]).agg([
            len().cast(DataType::Int64).alias("machines"),
            col("cap_cpu").sum(),
            col("cap_gpu").sum(),
        ]),
        "supply",
    )?;
    let (cpu, gpu) = (col("plan_cpu_pct").fill_null(lit(0.0)), col("plan_gpu_pct").fill_null(lit(0.0)));
    let run = col("run_s");
    let demand_aggs = || {
        [
            len().cast(DataType::Int64).alias("instances"),
            (cpu.clone().sum() / gpu.clone().sum()).alias("plain"),
            ((cpu.clone() * run.clone()).sum() / (gpu.clone() * run.clone()).sum()).alias("time_weighted"),
        ]
    };
    // Both the per-class and the cluster demand read the placed instances.
    let cols = [col("class"), col("plan_cpu_pct"), col("plan_gpu_pct"), col("run_s")];
    let inst = collect(placed(&ctx.store)?.select(cols), "placed instances")?.lazy();
    let by_class = collect(inst.clone().group_by([col("class")]).agg(demand_aggs()), "demand by class")?;
    let cluster = collect(inst.select(demand_aggs()), "cluster demand")?;
    let published = [("8-GPU", 12.0, 22.8), ("2-GPU", 38.1, 18.1), ("cluster", 23.2, 21.4)];
    let (sc, sm, scpu, sgpu) =
        (strs(&supply, "class")?, i64s(&supply, "machines")?, f64s(&supply, "cap_cpu")?, f64s(&supply, "cap_gpu")?);
    let (dc, di, dp, dt) = (
        strs(&by_class, "class")?,
        i64s(&by_class, "instances")?,
        f64s(&by_class, "plain")?,
        f64s(&by_class, "time_weighted")?,
    );
    let mut table = ResultTable::new(&[
        "class",
        "machines",
        "cap_cpu",
        "cap_gpu",
        "supply_vcpu_per_gpu",
        "instances",
        "demand_plain",
        "demand_time_weighted",
        "published_supply",
        "published_demand",
    ]);
    let mut headlines = Vec::new();
    let src = "NSDI'22 Sec 4";
    for (label, ps, pd) in published {
        let pick_s = |i: usize| label == "cluster" || sc[i].as_deref() == Some(label);
        let machines: i64 = (0..sc.len()).filter(|&i| pick_s(i)).map(|i| sm[i].unwrap_or(0)).sum();
        let (c, g): (f64, f64) = (0..sc.len())
            .filter(|&i| pick_s(i))
            .fold((0.0, 0.0), |a, i| (a.0 + scpu[i].unwrap_or(0.0), a.1 + sgpu[i].unwrap_or(0.0)));
        let (n, plain, timed) = if label == "cluster" {
            (scalar(&cluster, "instances")?, scalar(&cluster, "plain")?, scalar(&cluster, "time_weighted")?)
        } else {
            let i = dc.iter().position(|k| k.as_deref() == Some(label));
            i.map_or((0.0, f64::NAN, f64::NAN), |i| {
                (di[i].unwrap_or(0) as f64, dp[i].unwrap_or(f64::NAN), dt[i].unwrap_or(f64::NAN))
            })
        };
        table.push(vec![
            label.into(),
            machines.into(),
            c.into(),
            g.into(),
            (c / g).into(),
            (n as i64).into(),
            plain.into(),
            timed.into(),
            ps.into(),
            pd.into(),
        ]);
        headlines.push(
            Headline::new(&format!("{label} supply"), &format!("{label}: vCPU per GPU supplied"), c / g, "vCPU/GPU")
                .published(ps, src),
        );
        headlines.push(
            Headline::new(
                &format!("{label} demand"),
                &format!("{label}: vCPU per GPU requested (plain)"),
                plain,
                "vCPU/GPU",
            )
            .published(pd, src),
        );
        headlines.push(
            Headline::new(
                &format!("{label} demand time-weighted"),
                &format!("{label}: vCPU per GPU requested (runtime-weighted)"),
                timed,
                "vCPU/GPU",
            )
            .published(pd, src),
        );
    }
    let definition = "supply = sum(cap_cpu) / sum(cap_gpu) over pai/machine_spec rows of the class (8-GPU: cap_gpu 8, \
                      2-GPU: cap_gpu 2, cluster: all machines including CPU-only). demand = sum(plan_cpu) / sum(plan_gpu) \
                      (per-instance plans, % units cancel; null plans count 0) over the dfw instances placed on the \
                      class's machines (inner join on machine; cluster: every placed instance); time-weighted: each \
                      instance weighted by its runtime run_s (instances without one drop out)";
    let mut out = Output::new("pai.supply-demand", "vCPU per GPU: supply vs demand by machine class", definition);
    out.table("ratios", table).headlines("published", headlines);
    Ok(out)
}

/// GPU types considered weak (low-end) and high-end in the paper.
pub const WEAK: [&str; 3] = ["MISC", "P100", "T4"];
pub const HIGH_END: [&str; 2] = ["V100", "V100M32"];

fn allocation(ctx: &Ctx, args: &Args) -> Result<Output> {
    let bin_s = args.duration_s("bin")?;
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
    let inst = collect(placed(&ctx.store)?.filter(covers_time()).select(used.map(col)), "placed instances")?.lazy();
    let span = collect(
        inst.clone().select([col("start_time").min().alias("t0"), col("end_time").max().alias("t1")]),
        "window",
    )?;
    let (t0, t1) = (i64s(&span, "t0")?[0].unwrap_or(0), i64s(&span, "t1")?[0].unwrap_or(0));
    let window_s = (t1 - t0) as f64 / 1e6;
    let secs = super::super::frame::seconds_between(col("end_time"), col("start_time"));
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
    let src = "NSDI'22 Sec 4";
    let headlines = vec![
        Headline::new("weak cpu", "weak-GPU machines: CPU allocated", tier("weak", "cpu_alloc")?, "%")
            .published(77.0, src),
        Headline::new("weak gpu", "weak-GPU machines: GPU allocated", tier("weak", "gpu_alloc")?, "%")
            .published(74.0, src),
        Headline::new("high-end cpu", "high-end machines: CPU allocated", tier("high-end", "cpu_alloc")?, "%")
            .published(35.0, src),
        Headline::new("high-end gpu", "high-end machines: GPU allocated", tier("high-end", "gpu_alloc")?, "%")
            .published(49.0, src),
    ];
    let matrix = v100_matrix(inst, bin_s)?;
    let definition = format!(
        "instances = dfw rows placed on a machine_spec machine (inner join) with start and end times (end > start); \
         window = earliest start to latest end of those instances ({window_s} s). Per machine: allocated CPU = 100 * \
         sum(plan_cpu/100 * runtime) / (cap_cpu * window), GPU likewise with plan_gpu and cap_gpu (null plans 0); per \
         GPU type and tier the mean over machines that hosted at least one instance (weak = MISC, P100, T4; high-end = \
         V100, V100M32). v100-load: V100 machines (gpu_type V100) x {bin_s} s bins, value = 100 * sum over instances \
         of plan_gpu/100 * seconds of the bin they cover / (cap_gpu * bin length); every V100 machine with an instance \
         and every bin of the window, zeros included"
    );
    let mut out = Output::new("pai.allocation-by-gpu-type", "Allocated CPU and GPU by GPU type", definition);
    out.table("by-type", table).headlines("tiers", headlines).table("v100-load", matrix);
    Ok(out)
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

#[cfg(test)]
mod tests {
    use polars::df;

    use super::super::super::testkit;
    use super::*;
    use crate::Body;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, TASK};

    /// Machines e (V100, 96 vCPU, 8 GPUs), t (T4, 64 vCPU, 2 GPUs), c
    /// (CPU-only, 96 vCPU). Instances: e1 on e [0,1000) plan 1200 % CPU,
    /// 100 % GPU; e2 on e [0,500) 300 %, 50 %; c1 on c [0,1000) 400 %, no GPU.
    fn tiny() -> testkit::TinyStore {
        testkit::store(vec![
            (&GROUP_TAG, DataFrame::empty()),
            (
                &MACHINE_SPEC,
                df!("machine" => ["e", "t", "c"], "gpu_type" => ["V100", "T4", "CPU"], "cap_cpu" => [96i64, 64, 96],
                    "cap_mem_gib" => [512i64; 3], "cap_gpu" => [8i64, 2, 0])
                .unwrap(),
            ),
            (
                &TASK,
                df!("job_name" => ["j"; 3], "task_name" => ["a", "b", "c"], "inst_num" => [1i64; 3], "status" => ["Terminated"; 3],
                    "plan_cpu_pct" => [Some(1200.0), Some(300.0), Some(400.0)], "plan_gpu_pct" => [Some(100.0), Some(50.0), None])
                .unwrap(),
            ),
            (
                &INSTANCE,
                df!("job_name" => ["j"; 3], "task_name" => ["a", "b", "c"], "inst_name" => ["x", "y", "z"],
                    "worker_name" => ["e1", "e2", "c1"], "inst_id" => ["i"; 3], "status" => ["Terminated"; 3],
                    "start_time" => [0i64, 0, 0], "end_time" => [1000i64, 500, 1000], "machine" => ["e", "e", "c"],
                    "run_s" => [1000.0, 500.0, 1000.0])
                .unwrap(),
            ),
        ])
    }

    fn cell(t: &ResultTable, row: &str, column: &str) -> f64 {
        let i = t.rows.iter().position(|r| r[0] == row.into()).unwrap();
        t.column(column).unwrap()[i].as_f64().unwrap()
    }

    /// Supply: 8-GPU 96/8 = 12, 2-GPU 64/2 = 32, cluster 256/10 = 25.6.
    /// Demand on e: plain (1200 + 300) / (100 + 50) = 10; runtime-weighted
    /// (1200*1000 + 300*500) / (100*1000 + 50*500) = 1.35e6 / 1.25e5 = 10.8.
    /// Cluster adds c1: plain 1900/150; weighted 1.75e6 / 1.25e5 = 14.
    #[test]
    fn supply_and_demand_by_hand() {
        let t = tiny();
        let out = ANALYSES[0].run(&t.ctx, &[]).unwrap();
        let Body::Table(r) = &out.part("ratios").unwrap().body else { panic!() };
        assert_eq!(cell(r, "8-GPU", "supply_vcpu_per_gpu"), 12.0);
        assert_eq!(cell(r, "2-GPU", "supply_vcpu_per_gpu"), 32.0);
        assert!((cell(r, "cluster", "supply_vcpu_per_gpu") - 25.6).abs() < 1e-12);
        assert_eq!(cell(r, "8-GPU", "demand_plain"), 10.0);
        assert!((cell(r, "8-GPU", "demand_time_weighted") - 10.8).abs() < 1e-12);
        assert!((cell(r, "cluster", "demand_plain") - 1900.0 / 150.0).abs() < 1e-12);
        assert!((cell(r, "cluster", "demand_time_weighted") - 14.0).abs() < 1e-12);
    }

    /// Window [0, 1000). e: GPU (1*1000 + 0.5*500) / (8*1000) = 15.625 %,
    /// CPU (12*1000 + 3*500) / (96*1000) = 14.0625 %. V100 matrix with
    /// 500 s bins: bin 0 (1 + 0.5) / 8 = 18.75 %, bin 1 1/8 = 12.5 %.
    #[test]
    fn allocation_by_hand() {
        let t = tiny();
        let out = ANALYSES[1].run(&t.ctx, &[("bin".into(), "500s".into())]).unwrap();
        let Body::Table(by) = &out.part("by-type").unwrap().body else { panic!() };
        assert_eq!(cell(by, "V100", "gpu_alloc_pct"), 15.625);
        assert_eq!(cell(by, "V100", "cpu_alloc_pct"), 14.0625);
        assert!((cell(by, "CPU", "cpu_alloc_pct") - 100.0 * 4.0 / 96.0).abs() < 1e-12);
        let Body::Table(m) = &out.part("v100-load").unwrap().body else { panic!() };
        let v: Vec<f64> = m.column("value").unwrap().iter().map(|c| c.as_f64().unwrap()).collect();
        assert_eq!(v, vec![18.75, 12.5]);
    }
}
