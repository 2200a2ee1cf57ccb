//! Queueing delay (NSDI'22 Sec 3.2, Fig 4b and Fig 5; notebook A8-A11):
//! wait over completion for short vs long tasks, wait by GPU-request bin and
//! by GPU type, the task shares per bin and type, and the paper's P90 ratios.
//!
//! Two wait definitions, chosen by the `wait` parameter and named in every
//! result: `task-to-instance` (the notebook: earliest instance start - task
//! start_time, per task) and `job-to-task` (the README: earliest task start
//! of the job - job start_time, repeated on each of the job's tasks).

use polars::prelude::*;

use super::super::frame::{collect, dist, dists_by, scalar};
use super::super::{Analysis, Args, Ctx, Headline, Output, Param, ResultTable, Scope};
use super::frames;
use tracelab_schema::error::Result;
use tracelab_stats::Dist;

pub const WAIT_PARAM: Param = Param {
    name: "wait",
    default: "task-to-instance",
    doc: "queueing-delay definition: task-to-instance (notebook) or job-to-task (README)",
    choices: &["task-to-instance", "job-to-task"],
};

/// The GPU-request bins of Fig 5a on the per-instance `plan_gpu` (% of a GPU).
pub const GPU_BINS: [&str; 5] = ["<25%", "25-50%", "50-100%", "1 GPU", ">1 GPU"];
/// The GPU types of Fig 5b, in the notebook's order.
pub const GPU_TYPES: [&str; 5] = ["T4", "MISC", "P100", "V100", "V100M32"];

pub static ANALYSES: [Analysis; 4] = [
    Analysis {
        id: "pai.wait-over-completion",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 4b (notebook A8)",
        summary: "wait / completion time for short vs long tasks (split at the median mean-instance runtime)",
        params: &[WAIT_PARAM],
        run: wait_over_completion,
    },
    Analysis {
        id: "pai.wait-by-gpu-request",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 5a (notebook A9)",
        summary: "queueing delay CDF per GPU-request bin, and GPU-sharing vs whole-GPU P90",
        params: &[WAIT_PARAM],
        run: wait_by_gpu_request,
    },
    Analysis {
        id: "pai.wait-by-gpu-type",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 5b (notebook A10)",
        summary: "queueing delay CDF per assigned GPU type; V100 vs low-end P90",
        params: &[WAIT_PARAM],
        run: wait_by_gpu_type,
    },
    Analysis {
        id: "pai.task-share-by-gpu",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 5c (notebook A11)",
        summary: "share of tasks per GPU-request bin and per GPU type",
        params: &[],
        run: task_share,
    },
];

fn wait_col(args: &Args) -> (&'static str, &'static str) {
    match args.str("wait") {
        "job-to-task" => ("job_wait_s", "README definition: earliest task start_time of the job - job start_time"),
        _ => ("wait_s", "notebook definition: earliest instance start_time of the task - task start_time"),
    }
}

/// The Fig 5a bin of `plan_gpu_pct` (null stays null).
pub fn gpu_bin() -> Expr {
    let p = col("plan_gpu_pct");
    when(p.clone().lt(lit(25.0)))
        .then(lit(GPU_BINS[0]))
        .when(p.clone().lt(lit(50.0)))
        .then(lit(GPU_BINS[1]))
        .when(p.clone().lt(lit(100.0)))
        .then(lit(GPU_BINS[2]))
        .when(p.clone().eq(lit(100.0)))
        .then(lit(GPU_BINS[3]))
        .when(p.gt(lit(100.0)))
        .then(lit(GPU_BINS[4]))
        .otherwise(lit(NULL).cast(DataType::String))
}

fn wait_over_completion(ctx: &Ctx, args: &Args) -> Result<Output> {
    let (wait, wait_def) = wait_col(args);
    let dfa = frames::tasks(&ctx.store, &["runtime_i_s", "runtime_s", wait])?;
    let median = scalar(&collect(dfa.clone().select([col("runtime_i_s").median()]), "median runtime")?, "runtime_i_s")?;
    let ratio = (col(wait) / col("runtime_s") * lit(100.0)).alias("ratio");
    let class = when(col("runtime_i_s").gt(lit(median)))
        .then(lit("long"))
        .when(col("runtime_i_s").lt_eq(lit(median)))
        .then(lit("short"))
        .otherwise(lit(NULL).cast(DataType::String));
    let frame =
        dfa.select([ratio, class.alias("class")]).filter(col("ratio").is_not_nan().and(col("ratio").is_not_null()));
    let by_class = dists_by(frame.clone(), col("class"), col("ratio"), &["long", "short"], "wait over completion")?;
    let all = dist(frame.clone(), col("ratio"), "wait over completion")?;
    let shares = collect(
        frame.group_by([col("class")]).agg([col("ratio").gt(lit(50.0)).mean().alias("share")]),
        "wait over completion shares",
    )?;
    let share_of = |label: &str| -> Result<f64> {
        let classes = super::super::frame::strs(&shares, "class")?;
        let values = super::super::frame::f64s(&shares, "share")?;
        Ok(classes.iter().zip(values).find(|(c, _)| c.as_deref() == Some(label)).and_then(|x| x.1).unwrap_or(f64::NAN))
    };
    let mut series = vec![by_class[0].clone(), ("all".to_string(), all)];
    series.push(by_class[1].clone());
    let definition = format!(
        "pai/task joined (inner) to pai/job and to instance aggregates per task (dfa); ratio = 100 * wait / \
         (task end_time - task start_time); wait: {wait_def}; long = mean instance runtime > its median ({median} s), \
         short = <= median; rows with a null or NaN ratio dropped as upstream; +-inf (zero completion time) \
         counted in the shares and left out of the curves"
    );
    let mut out =
        Output::new("pai.wait-over-completion", "Wait time over completion time, short vs long tasks", definition);
    out.dists("ratio", "wait / completion time (%)", series).headlines(
        "shares",
        vec![
            Headline::new(
                "short_over_half",
                "short tasks waiting > 50 % of completion",
                100.0 * share_of("short")?,
                "%",
            )
            .published(9.0, "NSDI'22 Sec 3.2 (Fig 4b)"),
            Headline::new("long_over_half", "long tasks waiting > 50 % of completion", 100.0 * share_of("long")?, "%")
                .published(3.0, "NSDI'22 Sec 3.2 (Fig 4b)"),
        ],
    );
    Ok(out)
}

/// P50/P90/P99 per series as a table.
fn quantile_table(series: &[(String, Dist)]) -> ResultTable {
    let mut t = ResultTable::new(&["series", "tasks", "p50_s", "p90_s", "p99_s"]);
    for (label, d) in series {
        t.push(vec![
            label.as_str().into(),
            d.n().into(),
            d.quantile(0.5).into(),
            d.quantile(0.9).into(),
            d.quantile(0.99).into(),
        ]);
    }
    t
}

fn wait_by_gpu_request(ctx: &Ctx, args: &Args) -> Result<Output> {
    let (wait, wait_def) = wait_col(args);
    let dfa = frames::tasks(&ctx.store, &["plan_gpu_pct", wait])?;
    let series = dists_by(dfa.clone(), gpu_bin(), col(wait), &GPU_BINS, "wait by GPU request")?;
    let sharing =
        when(col("plan_gpu_pct").lt(lit(100.0))).then(lit("sharing (<1 GPU)")).otherwise(lit("whole GPU (>=1)"));
    let labels = ["sharing (<1 GPU)", "whole GPU (>=1)"];
    let split = dists_by(dfa.filter(col("plan_gpu_pct").is_not_null()), sharing, col(wait), &labels, "sharing split")?;
    let definition = format!(
        "dfa (one row per task with instances); wait: {wait_def}; bins on the per-instance plan_gpu (% of one GPU): \
         <25, [25,50), [50,100), ==100, >100; sharing = plan_gpu < 100; null waits dropped; waits of 0 s are in the \
         data but fall off the log axis upstream"
    );
    let mut out = Output::new("pai.wait-by-gpu-request", "Queueing delay by GPU request", definition);
    let mut table = quantile_table(&series);
    for row in quantile_table(&split).rows {
        table.push(row);
    }
    out.dists("by-bin", "queueing delay (s)", series)
        .dists("sharing", "queueing delay (s)", split.clone())
        .table("quantiles", table);
    out.headlines(
        "ratios",
        vec![
            Headline::new("sharing_p90", "P90 wait, GPU-sharing tasks", split[0].1.quantile(0.9), "s")
                .published(497.0, "NSDI'22 Sec 3.2"),
            Headline::new(
                "whole_over_1000",
                "whole-GPU tasks waiting > 1000 s",
                100.0 * split[1].1.share_above(1000.0),
                "%",
            )
            .published(10.0, "NSDI'22 Sec 3.2"),
        ],
    );
    Ok(out)
}

fn wait_by_gpu_type(ctx: &Ctx, args: &Args) -> Result<Output> {
    let (wait, wait_def) = wait_col(args);
    let dfa = frames::tasks(&ctx.store, &["gpu_type", wait])?;
    let series = dists_by(dfa.clone(), col("gpu_type"), col(wait), &GPU_TYPES, "wait by GPU type")?;
    let t = || col("gpu_type");
    let low_end = t().eq(lit("T4")).or(t().eq(lit("P100"))).or(t().eq(lit("MISC")));
    let low = dist(dfa.filter(low_end), col(wait), "low-end wait")?;
    let definition = format!(
        "dfa; series by the GPU type ASSIGNED to the task (pai/task gpu_type), not the requested one; wait: {wait_def}; \
         null waits dropped; low-end = T4, P100 and MISC together"
    );
    let mut out = Output::new("pai.wait-by-gpu-type", "Queueing delay by GPU type", definition);
    let v100 = series[3].1.quantile(0.9);
    out.table("quantiles", quantile_table(&series));
    out.dists("by-type", "queueing delay (s)", series);
    out.headlines(
        "ratios",
        vec![
            Headline::new("v100_p90", "P90 wait, V100 tasks", v100, "s").published(13_709.0, "NSDI'22 Sec 3.2"),
            Headline::new("low_end_p90", "P90 wait, low-end GPU tasks (T4, P100, MISC)", low.quantile(0.9), "s")
                .published(360.0, "NSDI'22 Sec 3.2"),
        ],
    );
    Ok(out)
}

fn task_share(ctx: &Ctx, _: &Args) -> Result<Output> {
    let dfa = frames::tasks(&ctx.store, &["plan_gpu_pct", "gpu_type"])?.filter(col("plan_gpu_pct").is_not_null());
    let counts = |by: Expr, what: &str| -> Result<DataFrame> {
        collect(dfa.clone().group_by([by.alias("k")]).agg([len().alias("n")]), what)
    };
    let total = scalar(&collect(dfa.clone().select([len().alias("n")]), "task count")?, "n")?;
    let bins = counts(gpu_bin(), "tasks per bin")?;
    let types = counts(col("gpu_type"), "tasks per type")?;
    // Read off the notebook's Fig 5c image (`docs/definitions.md#paitask-share-by-gpu`): approximate.
    let published_bins = [15.0, 26.0, 13.0, 43.0, 3.0];
    let published_types = [22.0, 67.0, 7.0, 3.0, 2.0];
    let mut table = ResultTable::new(&["group", "label", "tasks", "share_pct", "published_pct"]);
    let mut headlines = Vec::new();
    for (group, df, labels, published) in
        [("GPU request", &bins, &GPU_BINS, published_bins), ("GPU type", &types, &GPU_TYPES, published_types)]
    {
        let keys = super::super::frame::strs(df, "k")?;
        let ns = super::super::frame::i64s(df, "n")?;
        for (label, p) in labels.iter().zip(published) {
            let n = keys.iter().zip(&ns).find(|(k, _)| k.as_deref() == Some(*label)).and_then(|x| *x.1).unwrap_or(0);
            let share = 100.0 * n as f64 / total;
            table.push(vec![group.into(), (*label).into(), n.into(), share.into(), p.into()]);
            headlines.push(
                Headline::new(&format!("{group}: {label}"), &format!("tasks, {group} {label}"), share, "%")
                    .published(p, "notebook Fig 5c image (approximate)"),
            );
        }
    }
    let definition = "dfa; share = 100 * tasks in the bin (or of the type) / tasks with a non-null plan_gpu \
                      (the notebook's denominator for both panels); bins on the per-instance plan_gpu";
    let mut out = Output::new("pai.task-share-by-gpu", "Share of tasks by GPU request and GPU type", definition);
    out.table("shares", table).headlines("published", headlines);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use polars::df;

    use super::super::super::testkit;
    use super::*;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, TASK};

    /// Three tasks of one job submitted at t=0 (job start 0):
    /// - a/t1: task start 10, end 110 (completion 100), plan_gpu 50, T4;
    ///   instances start 40 and 30 -> wait 20, runtimes 60 and 70 -> mean 65.
    /// - a/t2: task start 20, end 60 (completion 40), plan_gpu 100, V100;
    ///   instance start 50 -> wait 30, runtime 10.
    /// - a/t3: task start 30, end 1030 (completion 1000), plan_gpu 200, V100;
    ///   instance start 40 -> wait 10, runtime 990.
    ///
    /// Median mean-instance runtime = 65: short = {t1, t2}, long = {t3}.
    /// Ratios: t1 20 %, t2 75 %, t3 1 %. Short > 50 %: 1 of 2.
    fn tiny() -> testkit::TinyStore {
        testkit::store(vec![
            (&JOB, df!("job_name" => ["a"], "inst_id" => ["i"], "user" => ["u"], "status" => ["Terminated"], "start_time" => [0i64], "end_time" => [2000i64]).unwrap()),
            (
                &TASK,
                df!("job_name" => ["a", "a", "a"], "task_name" => ["t1", "t2", "t3"], "inst_num" => [2i64, 1, 1],
                    "status" => ["Terminated"; 3], "start_time" => [10i64, 20, 30], "end_time" => [110i64, 60, 1030],
                    "plan_gpu_pct" => [50.0, 100.0, 200.0], "gpu_type" => ["T4", "V100", "V100"])
                .unwrap(),
            ),
            (
                &INSTANCE,
                df!("job_name" => ["a", "a", "a", "a"], "task_name" => ["t1", "t1", "t2", "t3"],
                    "inst_name" => ["x1", "x2", "x3", "x4"], "worker_name" => ["w1", "w2", "w3", "w4"],
                    "inst_id" => ["i"; 4], "status" => ["Terminated"; 4], "start_time" => [40i64, 30, 50, 40],
                    "end_time" => [100i64, 100, 60, 1030], "machine" => ["m"; 4], "run_s" => [60.0, 70.0, 10.0, 990.0])
                .unwrap(),
            ),
            (&GROUP_TAG, df!("inst_id" => ["i"], "user" => ["u"]).unwrap()),
        ])
    }

    #[test]
    fn wait_over_completion_by_hand() {
        let t = tiny();
        let out = ANALYSES[0].run(&t.ctx, &[]).unwrap();
        let h: Vec<f64> = out.all_headlines().map(|h| h.value).collect();
        assert_eq!(h, vec![50.0, 0.0]);
        let crate::Body::Dists { series, .. } = &out.part("ratio").unwrap().body else { panic!() };
        assert_eq!(series[1].1.values(), &[1.0, 20.0, 75.0]);
        assert_eq!(series[2].1.values(), &[20.0, 75.0]);
    }

    /// README definition: the job's earliest task start (10) - job start (0)
    /// = 10 s for every task.
    #[test]
    fn the_readme_wait_definition_is_available() {
        let t = tiny();
        let out = ANALYSES[2].run(&t.ctx, &[("wait".into(), "job-to-task".into())]).unwrap();
        let crate::Body::Dists { series, .. } = &out.part("by-type").unwrap().body else { panic!() };
        assert_eq!(series[3].1.values(), &[10.0]);
        assert_eq!(series[3].1.n(), 2);
        let notebook = ANALYSES[2].run(&t.ctx, &[]).unwrap();
        let crate::Body::Dists { series, .. } = &notebook.part("by-type").unwrap().body else { panic!() };
        assert_eq!(series[0].1.values(), &[20.0]);
        assert_eq!(series[3].1.values(), &[10.0, 30.0]);
    }

    /// Bins: 50 -> 50-100 %, 100 -> 1 GPU, 200 -> >1 GPU; sharing = {t1}
    /// (wait 20), whole = {t2, t3} (waits 30, 10).
    #[test]
    fn wait_by_gpu_request_bins_and_splits() {
        let t = tiny();
        let out = ANALYSES[1].run(&t.ctx, &[]).unwrap();
        let crate::Body::Dists { series, .. } = &out.part("by-bin").unwrap().body else { panic!() };
        let ns: Vec<u64> = series.iter().map(|s| s.1.n()).collect();
        assert_eq!(ns, vec![0, 0, 1, 1, 1]);
        assert_eq!(out.all_headlines().next().unwrap().value, 20.0);
        let shares = ANALYSES[3].run(&t.ctx, &[]).unwrap();
        let v100 = shares.all_headlines().find(|h| h.key == "GPU type: V100").unwrap();
        assert!((v100.value - 200.0 / 3.0).abs() < 1e-9);
    }
}
