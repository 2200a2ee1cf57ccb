//! `pai.supply-demand`: vCPU per GPU supplied by the machines of each class
//! against what the instances placed there request (NSDI'22 Sec 4, paper
//! only; the supply verified from `machine_spec`).

use polars::prelude::*;

use super::machines::{class, placed};
use crate::declare::{About, Analyze, Memory, Published, Scope};
use crate::frame::{collect, f64s, i64s, scalar, strs};
use crate::output::{Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::pai::MACHINE_SPEC;

pub struct SupplyDemand;

const SOURCE: &str = "NSDI'22 Sec 4";

impl Analyze for SupplyDemand {
    type Params = ();
    /// Peak 1.42 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 200);
    const ABOUT: About = About {
        id: "pai.supply-demand",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 4 (paper only; supply verified from machine_spec)",
        summary: "vCPU per GPU supplied vs requested by the instances placed there, 8-GPU / 2-GPU / cluster",
        title: "vCPU per GPU: supply vs demand by machine class",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Sec 4 (paper only; the supply side checks against `machine_spec`).

- **Supply** per class: sum of `cap_cpu` / sum of `cap_gpu` over `machine_spec` rows of the class
  (8-GPU: `cap_gpu` = 8; 2-GPU: `cap_gpu` = 2; cluster: every machine, CPU-only ones included).
- **Demand** per class: sum of `plan_cpu_pct` / sum of `plan_gpu_pct` over the `dfw` instances placed on
  a machine of the class (inner join on `machine`; for the cluster every placed instance), with
  a missing plan counting 0; the percent units cancel. A second, runtime-weighted demand weights
  each instance by its `run_s` (instances without one drop out).
- **Output:** part `ratios` (machines, capacities, supply, both demands, published values) and
  headlines.
- **Published:** vCPU per GPU supplied vs requested: 8-GPU 12 vs 22.8, 2-GPU 38.1 vs 18.1,
  cluster 23.2 vs 21.4 (NSDI'22 Sec 4). The supply figures follow from the public
  `machine_spec` (12.0, 38.14, 23.22).
- **Differences:** the paper does not say how demand is weighted; tracelab gives both readings.
"##;
    /// The paper's supply and demand per class; the demand is compared
    /// with both our plain and runtime-weighted ratios.
    const PUBLISHED: &'static [Published] = &[
        Published::new("8-GPU supply", 12.0, "vCPU/GPU", SOURCE),
        Published::new("8-GPU demand", 22.8, "vCPU/GPU", SOURCE),
        Published::new("8-GPU demand time-weighted", 22.8, "vCPU/GPU", SOURCE),
        Published::new("2-GPU supply", 38.1, "vCPU/GPU", SOURCE),
        Published::new("2-GPU demand", 18.1, "vCPU/GPU", SOURCE),
        Published::new("2-GPU demand time-weighted", 18.1, "vCPU/GPU", SOURCE),
        Published::new("cluster supply", 23.2, "vCPU/GPU", SOURCE),
        Published::new("cluster demand", 21.4, "vCPU/GPU", SOURCE),
        Published::new("cluster demand time-weighted", 21.4, "vCPU/GPU", SOURCE),
    ];

    fn definition(_: &()) -> String {
        "supply = sum(cap_cpu) / sum(cap_gpu) over pai/machine_spec rows of the class (8-GPU: cap_gpu 8, \
         2-GPU: cap_gpu 2, cluster: all machines including CPU-only). demand = sum(plan_cpu_pct) / sum(plan_gpu_pct) \
         (per-instance plans, % units cancel; null plans count 0) over the dfw instances placed on the \
         class's machines (inner join on machine; cluster: every placed instance); time-weighted: each \
         instance weighted by its runtime run_s (instances without one drop out)"
            .into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        supply_demand(ctx, out)
    }
}

fn supply_demand(ctx: &Ctx, out: &mut Output) -> Result<()> {
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
    let inst = collect(placed(ctx)?.select(cols), "placed instances")?.lazy();
    let by_class = collect(inst.clone().group_by([col("class")]).agg(demand_aggs()), "demand by class")?;
    let cluster = collect(inst.select(demand_aggs()), "cluster demand")?;
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
    for label in ["8-GPU", "2-GPU", "cluster"] {
        let published = |what: &str| Published::lookup(SupplyDemand::PUBLISHED, &format!("{label} {what}"));
        let (ps, pd) = (published("supply"), published("demand"));
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
        headlines.push(Headline::new(
            &format!("{label} supply"),
            &format!("{label}: vCPU per GPU supplied"),
            c / g,
            "vCPU/GPU",
        ));
        headlines.push(Headline::new(
            &format!("{label} demand"),
            &format!("{label}: vCPU per GPU requested (plain)"),
            plain,
            "vCPU/GPU",
        ));
        headlines.push(Headline::new(
            &format!("{label} demand time-weighted"),
            &format!("{label}: vCPU per GPU requested (runtime-weighted)"),
            timed,
            "vCPU/GPU",
        ));
    }
    out.table("ratios", table).headlines("published", headlines);
    Ok(())
}
