//! Users, gangs and runtimes (NSDI'22 Fig 2 and Fig 4a, notebook A1, A2, A7,
//! A12): tasks per user, the instance share by gang size, task runtime
//! against Philly, and runtime by GPU type.
//!
//! Runtime is the notebook's `runtime_i`: the MEAN runtime of the task's
//! instances (end - start where both are recorded), not the task's span.

use polars::prelude::*;

use super::super::frame::{collect, dist, dist_by_sort, dists_by, i64s};
use super::super::{Analysis, Args, Ctx, Output, Scope};
use super::frames;
use super::wait::GPU_TYPES;
use tracelab_schema::error::Result;
use tracelab_schema::{pai, philly};
use tracelab_stats::Dist;

pub static ANALYSES: [Analysis; 4] = [
    Analysis {
        id: "pai.tasks-per-user",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 2a (notebook A1)",
        summary: "CDF of tasks per user",
        params: &[],
        run: tasks_per_user,
    },
    Analysis {
        id: "pai.gang-size",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 2b (notebook A2)",
        summary: "share of instances in tasks with at least N instances, N = 2..600",
        params: &[],
        run: gang_size,
    },
    Analysis {
        id: "pai.runtime-vs-philly",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 4a (notebook A7)",
        summary: "task runtime (mean instance runtime) CDF, PAI vs Philly",
        params: &[],
        run: runtime_vs_philly,
    },
    Analysis {
        id: "pai.runtime-by-gpu-type",
        scope: Scope::Pai,
        mirrors: "notebook A12",
        summary: "runtime CDF per assigned GPU type, Terminated tasks only",
        params: &[],
        run: runtime_by_gpu_type,
    },
];

fn tasks_per_user(ctx: &Ctx, _: &Args) -> Result<Output> {
    let per_user = frames::tasks(&ctx.store, &["user"])?.group_by([col("user")]).agg([len().alias("tasks")]);
    let d = dist(per_user, col("tasks"), "tasks per user")?;
    let definition = "dfa (tasks with a job and instance rows) grouped by the job's user; tasks per user";
    let mut out = Output::new("pai.tasks-per-user", "Tasks per user", definition);
    out.dists("per-user", "tasks per user", vec![("users".into(), d)]);
    Ok(out)
}

/// The notebook's thresholds: `range(2,300,2) + range(300,620,20)`.
fn gang_thresholds() -> Vec<i64> {
    (2..300).step_by(2).chain((300..620).step_by(20)).collect()
}

fn gang_size(ctx: &Ctx, _: &Args) -> Result<Output> {
    let counts = frames::tasks(&ctx.store, &["inst_num"])?.group_by([col("inst_num")]).agg([len().alias("tasks")]);
    let df = collect(counts, "tasks per inst_num")?;
    let pairs: Vec<(i64, i64)> =
        i64s(&df, "inst_num")?.into_iter().zip(i64s(&df, "tasks")?).filter_map(|(a, b)| Some((a?, b?))).collect();
    let total: i64 = pairs.iter().map(|(n, t)| n * t).sum();
    let curve = gang_thresholds()
        .into_iter()
        .map(|i| {
            let at_least: i64 = pairs.iter().filter(|(n, _)| *n >= i).map(|(n, t)| n * t).sum();
            (i as f64, 100.0 * at_least as f64 / total as f64)
        })
        .collect();
    let definition = "dfa; for N in 2,4,..,298,300,320,..,600: 100 * sum(inst_num of tasks with inst_num >= N) / \
                      sum(inst_num) (the notebook's num_inst_ratio)";
    let mut out = Output::new("pai.gang-size", "Instances in gang tasks", definition);
    out.curves(
        "share",
        "instances in the task (at least)",
        "share of instances (%)",
        vec![("instances".into(), curve)],
    );
    Ok(out)
}

fn runtime_vs_philly(ctx: &Ctx, _: &Args) -> Result<Output> {
    let pai = dist_by_sort(frames::tasks(&ctx.store, &["runtime_i_s"])?, col("runtime_i_s"), "PAI runtime")?;
    let (philly, source) = philly_runtimes(ctx)?;
    let definition =
        format!("PAI: dfa runtime_i, the mean runtime of the task's instances (s), nulls dropped; Philly: {source}");
    let mut out = Output::new("pai.runtime-vs-philly", "Task runtime, PAI vs Philly", definition);
    out.dists("runtime", "runtime (s)", vec![("PAI".into(), pai), ("Philly".into(), philly)]);
    Ok(out)
}

/// Philly runtimes: the ingested Philly trace when present, else the
/// `philly_runtime.csv` the PAI authors shipped (83,154 jobs, seconds),
/// which ingest reads with PAI into `pai/philly_runtimes` when it is in the
/// directory.
fn philly_runtimes(ctx: &Ctx) -> Result<(Dist, String)> {
    if ctx.store.has_trace(tracelab_schema::Trace::Philly) {
        let d = dist(ctx.store.scan(&philly::JOBS)?, col("run_s"), "Philly runtime")?;
        return Ok((d, "philly/jobs run_s (last attempt end - first attempt start) from the store".into()));
    }
    let d = match ctx.store.scan(&pai::PHILLY_RUNTIMES) {
        Ok(lf) => dist(lf, col("runtime_s"), "Philly runtime")?,
        Err(_) => Dist::default(),
    };
    if d.is_empty() {
        return Ok((d, "no Philly trace in the store and no philly_runtime.csv ingested with PAI: empty".into()));
    }
    Ok((d, "pai/philly_runtimes (philly_runtime.csv, the PAI authors' Philly runtimes, s)".into()))
}

fn runtime_by_gpu_type(ctx: &Ctx, _: &Args) -> Result<Output> {
    let terminated =
        frames::tasks(&ctx.store, &["status", "gpu_type", "runtime_i_s"])?.filter(col("status").eq(lit("Terminated")));
    let series = dists_by(terminated, col("gpu_type"), col("runtime_i_s"), &GPU_TYPES, "runtime by type")?;
    let definition = "dfa with task status == Terminated (the notebook's only status filter); runtime_i (mean \
                      instance runtime, s) per assigned GPU type; nulls dropped";
    let mut out = Output::new("pai.runtime-by-gpu-type", "Runtime by GPU type (Terminated tasks)", definition);
    out.dists("by-type", "runtime (s)", series);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thresholds: 2..298 step 2 is 149 values, 300..600 step 20 is 16.
    #[test]
    fn gang_thresholds_match_the_notebook() {
        let t = gang_thresholds();
        assert_eq!(t.len(), 165);
        assert_eq!((t[0], t[148], t[149], t[164]), (2, 298, 300, 600));
    }

    /// Without a Philly trace the runtimes come from `pai/philly_runtimes`
    /// (three hand-made runtimes: median 20), and are empty without them.
    #[test]
    fn without_philly_the_reference_table_of_the_pai_trace_is_used() {
        let t = crate::testkit::store(vec![(&pai::PHILLY_RUNTIMES, df!("runtime_s" => [10.0, 30.0, 20.0]).unwrap())]);
        let (d, source) = philly_runtimes(&t.ctx).unwrap();
        assert_eq!((d.n(), d.quantile(0.5)), (3, 20.0));
        assert!(source.starts_with("pai/philly_runtimes"), "{source}");
        let empty =
            crate::testkit::store(vec![(&pai::PHILLY_RUNTIMES, df!("runtime_s" => Vec::<f64>::new()).unwrap())]);
        let (d, source) = philly_runtimes(&empty.ctx).unwrap();
        assert!(d.is_empty() && source.contains("empty"), "{source}");
    }
}
