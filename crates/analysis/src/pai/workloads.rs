//! `pai.workloads`: the workload-tag case studies (NSDI'22 Sec 5, paper
//! only): per tag, the share of tasks and instances and the GPU and CPU
//! requested against used.

use polars::prelude::*;

use super::frames;
use crate::declare::{About, Analyze, Memory, Published, Scope};
use crate::frame::{collect, f64s, i64s, strs};
use crate::output::{Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct Workloads;

const SOURCE: &str = "NSDI'22 Sec 5 case studies";

impl Analyze for Workloads {
    type Params = ();
    /// Peak 1.16 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 165);
    const ABOUT: About = About {
        id: "pai.workloads",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 5 case studies (paper only)",
        summary: "per workload tag: share of tasks, instances, GPU/CPU request vs usage",
        title: "Workload case studies by tag",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors the NSDI'22 Sec 5 case studies (paper only).

- **Workload** = the group-tag `workload` of the job (`(untagged)` when missing).
- **Per workload** (part `by-workload`): tasks (`dfa` rows) and their share of all `dfa` tasks;
  instances (`dfw` rows) and their share; instances with a sensor row (`dfws`); mean per-instance
  request `plan_gpu_pct`/100 and `plan_cpu_pct`/100 over `dfw`; mean usage `gpu_wrk_util_pct`/100 and
  `cpu_usage_pct`/100 over `dfws`; the largest `inst_num` of its tasks.
- **Headlines:** NLP tasks (workloads bert, nmt, xlnet), CTR tasks (ctr), GNN instances
  (graphlearn), the largest RL task (rl), and the share of instances with any workload tag.
- **Published:** NLP 6.4 % of tasks, CTR 6.7 % of tasks, GNN 2 % of instances, RL tasks of more
  than 1000 instances, about 9 % of instances tagged (NSDI'22 Sec 5).
- **Differences:** no upstream code; the mapping of tags to the paper's case studies is
  tracelab's.
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("nlp_tasks", 6.4, "%", SOURCE),
        Published::new("ctr_tasks", 6.7, "%", SOURCE),
        Published::new("gnn_instances", 2.0, "%", SOURCE),
        Published::new("rl_max_gang", 1000.0, "instances", "NSDI'22 Sec 5 case studies: \"more than 1000\""),
        Published::new("tagged_instances", 9.0, "%", SOURCE),
    ];

    fn definition(_: &()) -> String {
        "workload = pai/group_tag workload of the job's inst_id ((untagged) when missing). tasks: dfa rows \
         (tasks with a job and instance rows), share of all dfa tasks; instances: dfw rows (one per worker); \
         requests: mean per-instance plan_gpu_pct/100 (GPUs) and plan_cpu_pct/100 (vCPU) over dfw rows with a \
         plan; usage: mean gpu_wrk_util_pct/100 and cpu_usage_pct/100 over dfws rows (instances with a sensor row); \
         max_inst_num: largest inst_num of the workload's tasks; NLP = bert + nmt + xlnet, GNN = graphlearn"
            .into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        workloads(ctx, out)
    }
}

/// NLP tags of the case study (BERT, XLNet, NMT); GNN = graphlearn.
pub const NLP: [&str; 3] = ["bert", "nmt", "xlnet"];

fn workloads(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let wl = || col("workload").fill_null(lit("(untagged)"));
    let tasks = frames::tasks(ctx, &["workload", "inst_num"])?
        .group_by([wl().alias("workload")])
        .agg([len().cast(DataType::Int64).alias("tasks"), col("inst_num").max().alias("max_inst_num")]);
    let inst = frames::instances(ctx, &["workload", "plan_gpu_pct", "plan_cpu_pct"])?
        .group_by([wl().alias("workload")])
        .agg([
            len().cast(DataType::Int64).alias("instances"),
            (col("plan_gpu_pct") / lit(100.0)).mean().alias("gpu_request"),
            (col("plan_cpu_pct") / lit(100.0)).mean().alias("cpu_request"),
        ]);
    let usage_cols = ["workload", "gpu_wrk_util_pct", "cpu_usage_pct"];
    let usage = frames::instances_with_sensor(ctx, &usage_cols)?.group_by([wl().alias("workload")]).agg([
        len().cast(DataType::Int64).alias("with_sensor"),
        (col("gpu_wrk_util_pct") / lit(100.0)).mean().alias("gpu_used"),
        (col("cpu_usage_pct") / lit(100.0)).mean().alias("cpu_used"),
    ]);
    let key = || [col("workload")];
    let df = collect(
        tasks
            .join(inst, key(), key(), JoinArgs::new(JoinType::Full).with_coalesce(JoinCoalesce::CoalesceColumns))
            .join(usage, key(), key(), JoinArgs::new(JoinType::Left))
            .sort(["workload"], SortMultipleOptions::default()),
        "workloads",
    )?;
    let names = strs(&df, "workload")?;
    let (nt, ni) = (i64s(&df, "tasks")?, i64s(&df, "instances")?);
    let (all_t, all_i): (i64, i64) = (nt.iter().flatten().sum(), ni.iter().flatten().sum());
    let cols = ["gpu_request", "gpu_used", "cpu_request", "cpu_used"];
    let values: Vec<Vec<Option<f64>>> = cols.iter().map(|c| f64s(&df, c)).collect::<Result<_>>()?;
    let (max_inst, sensor) = (i64s(&df, "max_inst_num")?, i64s(&df, "with_sensor")?);
    let mut table = ResultTable::new(&[
        "workload",
        "tasks",
        "task_share_pct",
        "instances",
        "instance_share_pct",
        "instances_with_sensor",
        "gpu_request_mean",
        "gpu_used_mean",
        "cpu_request_mean",
        "cpu_used_mean",
        "max_inst_num",
    ]);
    let share = |n: Option<i64>, all: i64| 100.0 * n.unwrap_or(0) as f64 / all as f64;
    for (i, name) in names.iter().enumerate() {
        let mut row = vec![name.clone().into(), nt[i].into(), share(nt[i], all_t).into(), ni[i].into()];
        row.extend([share(ni[i], all_i).into(), sensor[i].into()]);
        row.extend(values.iter().map(|v| v[i].into()));
        row.push(max_inst[i].into());
        table.push(row);
    }
    let pick = |set: &[&str], counts: &[Option<i64>], all: i64| -> f64 {
        let n: i64 = names
            .iter()
            .zip(counts)
            .filter(|(k, _)| set.contains(&k.as_deref().unwrap_or("")))
            .map(|p| p.1.unwrap_or(0))
            .sum();
        100.0 * n as f64 / all as f64
    };
    let rl_max = names.iter().zip(&max_inst).find(|p| p.0.as_deref() == Some("rl")).and_then(|p| *p.1).unwrap_or(0);
    let headlines = vec![
        Headline::new("nlp_tasks", "NLP tasks (bert, nmt, xlnet)", pick(&NLP, &nt, all_t), "%"),
        Headline::new("ctr_tasks", "CTR tasks", pick(&["ctr"], &nt, all_t), "%"),
        Headline::new("gnn_instances", "GNN instances (graphlearn)", pick(&["graphlearn"], &ni, all_i), "%"),
        Headline::new("rl_max_gang", "largest RL task (instances)", rl_max as f64, "instances"),
        Headline::new(
            "tagged_instances",
            "instances with a workload tag",
            100.0 - pick(&["(untagged)"], &ni, all_i),
            "%",
        ),
    ];
    out.table("by-workload", table).headlines("case-studies", headlines);
    Ok(())
}
