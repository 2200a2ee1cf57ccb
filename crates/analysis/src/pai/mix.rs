//! Workload mix (NSDI'22 Sec 3 and Sec 5, paper only): recurrence of tasks
//! by group tag, the workload-tag case studies, and the shares of gang
//! tasks and of tasks that constrain their GPU type. All read the owners'
//! task frame `dfa` ([`frames::tasks`]: tasks with a job and instance rows,
//! group := user where the tag is missing) and, for instance and usage
//! counts, `dfw` / `dfws`.

use polars::prelude::*;

use super::super::frame::{collect, dist, f64s, i64s, scalar, strs};
use super::super::{Analysis, Args, Ctx, Headline, Output, Param, ResultTable, Scope};
use super::frames;
use tracelab_schema::error::Result;

pub static ANALYSES: [Analysis; 3] = [
    Analysis {
        id: "pai.recurrence",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 5 (paper only)",
        summary: "share of tasks whose group recurs at least min-group times; CDF of group sizes",
        params: &[
            Param {
                name: "min-group",
                default: "5",
                doc: "a group recurs when it has at least this many tasks",
                choices: &[],
            },
            Param {
                name: "untagged",
                default: "user",
                doc: "tasks without a group tag: user (group := user, as the notebook) or drop",
                choices: &["user", "drop"],
            },
        ],
        run: recurrence,
    },
    Analysis {
        id: "pai.workloads",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 5 case studies (paper only)",
        summary: "per workload tag: share of tasks, instances, GPU/CPU request vs usage",
        params: &[],
        run: workloads,
    },
    Analysis {
        id: "pai.gang-and-constraints",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 3 (paper only; notebook A2 for the gang threshold)",
        summary: "instances and GPU demand in gang tasks (inst_num >= 2); tasks that name a GPU type",
        params: &[],
        run: gang,
    },
];

fn recurrence(ctx: &Ctx, args: &Args) -> Result<Output> {
    let min = args.u64("min-group")? as i64;
    let mut dfa = frames::tasks(&ctx.store, &["group", "inst_id"])?;
    if args.str("untagged") == "drop" {
        let tags =
            ctx.store.scan(&tracelab_schema::pai::GROUP_TAG)?.select([col("inst_id"), col("group").alias("tag")]);
        dfa = dfa
            .join(tags, [col("inst_id")], [col("inst_id")], JoinArgs::new(JoinType::Left))
            .filter(col("tag").is_not_null());
    }
    let sizes = dfa.group_by([col("group")]).agg([len().cast(DataType::Int64).alias("n")]);
    let totals = collect(
        sizes.clone().select([
            col("n").sum().alias("tasks"),
            col("n").filter(col("n").gt_eq(lit(min))).sum().alias("recurring"),
            len().alias("groups"),
            col("n").gt_eq(lit(min)).sum().alias("recurring_groups"),
        ]),
        "recurrence totals",
    )?;
    let get = |c: &str| scalar(&totals, c);
    let (tasks, recurring) = (get("tasks")?, get("recurring")?);
    let size_dist = dist(sizes, col("n"), "group sizes")?;
    let definition = format!(
        "dfa (tasks with a job and instance rows); group = pai/group_tag group of the task's inst_id, {}; group size = \
         tasks in the group; a task recurs when its group has >= {min} tasks; share = 100 * tasks in recurring groups / \
         tasks",
        if args.str("untagged") == "drop" { "untagged tasks dropped" } else { "the user where untagged (notebook)" }
    );
    let mut out = Output::new("pai.recurrence", "Recurring tasks by group tag", definition);
    out.dists("group-size", "tasks per group", vec![("groups".into(), size_dist)]).headlines(
        "recurrence",
        vec![
            Headline::new(
                "recurring_tasks",
                &format!("tasks whose group has >= {min} tasks"),
                100.0 * recurring / tasks,
                "%",
            )
            .published(65.0, "NSDI'22 Sec 5"),
            Headline::new("tasks", "tasks", tasks, "tasks"),
            Headline::new("groups", "groups", get("groups")?, "groups"),
            Headline::new(
                "recurring_groups",
                &format!("groups with >= {min} tasks"),
                get("recurring_groups")?,
                "groups",
            ),
        ],
    );
    Ok(out)
}

/// NLP tags of the case study (BERT, XLNet, NMT); GNN = graphlearn.
pub const NLP: [&str; 3] = ["bert", "nmt", "xlnet"];

fn workloads(ctx: &Ctx, _: &Args) -> Result<Output> {
    let wl = || col("workload").fill_null(lit("(untagged)"));
    let tasks = frames::tasks(&ctx.store, &["workload", "inst_num"])?
        .group_by([wl().alias("workload")])
        .agg([len().cast(DataType::Int64).alias("tasks"), col("inst_num").max().alias("max_inst_num")]);
    let inst = frames::instances(&ctx.store, &["workload", "plan_gpu_pct", "plan_cpu_pct"])?
        .group_by([wl().alias("workload")])
        .agg([
            len().cast(DataType::Int64).alias("instances"),
            (col("plan_gpu_pct") / lit(100.0)).mean().alias("gpu_request"),
            (col("plan_cpu_pct") / lit(100.0)).mean().alias("cpu_request"),
        ]);
    let usage_cols = ["workload", "gpu_wrk_util_pct", "cpu_usage_pct"];
    let usage = frames::instances_with_sensor(&ctx.store, &usage_cols)?.group_by([wl().alias("workload")]).agg([
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
    let src = "NSDI'22 Sec 5 case studies";
    let headlines = vec![
        Headline::new("nlp_tasks", "NLP tasks (bert, nmt, xlnet)", pick(&NLP, &nt, all_t), "%").published(6.4, src),
        Headline::new("ctr_tasks", "CTR tasks", pick(&["ctr"], &nt, all_t), "%").published(6.7, src),
        Headline::new("gnn_instances", "GNN instances (graphlearn)", pick(&["graphlearn"], &ni, all_i), "%")
            .published(2.0, src),
        Headline::new("rl_max_gang", "largest RL task (instances)", rl_max as f64, "instances")
            .published(1000.0, &format!("{src}: \"more than 1000\"")),
        Headline::new(
            "tagged_instances",
            "instances with a workload tag",
            100.0 - pick(&["(untagged)"], &ni, all_i),
            "%",
        )
        .published(9.0, src),
    ];
    let definition = "workload = pai/group_tag workload of the job's inst_id ((untagged) when missing). tasks: dfa rows \
                      (tasks with a job and instance rows), share of all dfa tasks; instances: dfw rows (one per worker); \
                      requests: mean per-instance plan_gpu/100 (GPUs) and plan_cpu/100 (vCPU) over dfw rows with a \
                      plan; usage: mean gpu_wrk_util/100 and cpu_usage/100 over dfws rows (instances with a sensor row); \
                      max_inst_num: largest inst_num of the workload's tasks; NLP = bert + nmt + xlnet, GNN = graphlearn";
    let mut out = Output::new("pai.workloads", "Workload case studies by tag", definition);
    out.table("by-workload", table).headlines("case-studies", headlines);
    Ok(out)
}

fn gang(ctx: &Ctx, _: &Args) -> Result<Output> {
    let gpus = col("inst_num").cast(DataType::Float64) * col("plan_gpu_pct").fill_null(lit(0.0)) / lit(100.0);
    let is_gang = || col("inst_num").gt_eq(lit(2i64));
    let df = collect(
        frames::tasks(&ctx.store, &["inst_num", "plan_gpu_pct", "gpu_type_spec"])?.select([
            col("inst_num").sum().cast(DataType::Float64).alias("instances"),
            col("inst_num").filter(is_gang()).sum().cast(DataType::Float64).alias("gang_instances"),
            gpus.clone().sum().alias("gpus"),
            gpus.filter(is_gang()).sum().alias("gang_gpus"),
            len().cast(DataType::Float64).alias("tasks"),
            col("gpu_type_spec").is_not_null().sum().cast(DataType::Float64).alias("spec_tasks"),
        ]),
        "gang shares",
    )?;
    let v = |c: &str| scalar(&df, c);
    let src = "NSDI'22 Sec 3";
    let headlines = vec![
        Headline::new(
            "gang_instances",
            "instances in gang tasks (inst_num >= 2)",
            100.0 * v("gang_instances")? / v("instances")?,
            "%",
        )
        .published(85.0, src),
        Headline::new("gang_gpu_demand", "GPU demand of gang tasks", 100.0 * v("gang_gpus")? / v("gpus")?, "%")
            .published(79.0, src),
        Headline::new("gpu_type_spec", "tasks that name a GPU type", 100.0 * v("spec_tasks")? / v("tasks")?, "%")
            .published(6.0, src),
    ];
    let definition = "dfa (tasks with a job and instance rows). instances = sum of inst_num (notebook A2); gang task = \
                      inst_num >= 2; GPU demand = sum of inst_num * plan_gpu / 100 (plan per instance, issue #129; null \
                      plan = 0); GPU-type constraint = group_tag gpu_type_spec not null, share of dfa tasks";
    let mut out = Output::new("pai.gang-and-constraints", "Gang tasks and GPU-type constraints", definition);
    out.headlines("shares", headlines);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use polars::df;

    use super::super::super::testkit;
    use super::*;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, TASK};

    /// Jobs a (u, tag g1, names V100), b (u, tag g1), c (v, untagged), one
    /// task each with one instance row: a/t inst_num 3 plan_gpu 100, b/t 1 x
    /// 50, c/t 1 x 200.
    fn tiny() -> testkit::TinyStore {
        testkit::store(vec![
            (&JOB, df!("job_name" => ["a", "b", "c"], "inst_id" => ["i1", "i2", "i3"], "user" => ["u", "u", "v"], "status" => ["Terminated"; 3]).unwrap()),
            (
                &TASK,
                df!("job_name" => ["a", "b", "c"], "task_name" => ["t"; 3], "inst_num" => [3i64, 1, 1], "status" => ["Terminated"; 3],
                    "plan_gpu_pct" => [100.0, 50.0, 200.0])
                .unwrap(),
            ),
            (
                &INSTANCE,
                df!("job_name" => ["a", "b", "c"], "task_name" => ["t"; 3], "inst_name" => ["x", "y", "z"], "worker_name" => ["w1", "w2", "w3"],
                    "inst_id" => ["i1", "i2", "i3"], "status" => ["Terminated"; 3])
                .unwrap(),
            ),
            (
                &GROUP_TAG,
                df!("inst_id" => ["i1", "i2", "i3"], "user" => ["u", "u", "v"], "group" => [Some("g1"), Some("g1"), None],
                    "gpu_type_spec" => [Some("V100"), None, None])
                .unwrap(),
            ),
        ])
    }

    fn headline(out: &Output, key: &str) -> f64 {
        out.all_headlines().find(|h| h.key == key).unwrap().value
    }

    /// Instances 3 + 1 + 1 = 5, in gang tasks 3: 60 %. GPUs 3*1 + 0.5 + 2 =
    /// 5.5, gang 3: 300/5.5 %. One of three tasks names a type.
    #[test]
    fn gang_and_constraint_shares_by_hand() {
        let t = tiny();
        let out = ANALYSES[2].run(&t.ctx, &[]).unwrap();
        assert!((headline(&out, "gang_instances") - 60.0).abs() < 1e-12);
        assert!((headline(&out, "gang_gpu_demand") - 300.0 / 5.5).abs() < 1e-12);
        assert!((headline(&out, "gpu_type_spec") - 100.0 / 3.0).abs() < 1e-12);
    }

    /// Groups g1 (a, b) and v (c, untagged -> user): with min-group 2, two of
    /// three tasks recur; dropping untagged tasks leaves g1 only (100 %).
    #[test]
    fn recurrence_by_hand() {
        let t = tiny();
        let p = |k: &str, v: &str| (k.to_string(), v.to_string());
        let out = ANALYSES[0].run(&t.ctx, &[p("min-group", "2")]).unwrap();
        assert!((headline(&out, "recurring_tasks") - 200.0 / 3.0).abs() < 1e-12);
        assert_eq!(headline(&out, "groups"), 2.0);
        let out = ANALYSES[0].run(&t.ctx, &[p("min-group", "2"), p("untagged", "drop")]).unwrap();
        assert_eq!(headline(&out, "recurring_tasks"), 100.0);
    }
}
