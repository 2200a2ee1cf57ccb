//! The owners' derived frames as analyses read them: `dfa` ([`tasks`]),
//! `dfw` ([`instances`]), `dfws` ([`instances_with_sensor`]), `dfas`
//! ([`task_usage`]) and the sensor rows with their worker's times
//! ([`sensor_times`]); what each holds is defined in [`super::plans`]
//! (`docs/definitions.md#pai-vocabulary-and-the-owners-frames`).
//!
//! An analysis asks for the columns it needs and gets them in memory, once:
//! from the store's derived-frame cache ([`super::derived`]: built once per
//! store content), or, when the cache cannot be used (no manifest, a store
//! that cannot be written), by collecting the lazy plan.

use polars::prelude::*;

use super::derived;
use super::plans::{self, Frame};
use crate::frame::collect;
use crate::Ctx;
use tracelab_schema::error::Result;

/// `dfa`: tasks with job, instance aggregates, waits and tags; the
/// columns `cols` of it.
///
/// Columns: job_name, task_name, inst_num, status, start_time, end_time,
/// plan_cpu_pct, plan_mem_gib, plan_gpu_pct, gpu_type, inst_id, user,
/// status_j, start_time_j, end_time_j, runtime_s (task end - task start, the
/// notebook's "completion time"), status_i (lexicographic max), start_time_i,
/// end_time_i, runtime_i_s (MEAN instance runtime), wait_s, job_wait_s,
/// gpu_type_spec, group, workload.
pub fn tasks(ctx: &Ctx, cols: &[&str]) -> Result<LazyFrame> {
    frame(ctx, Frame::Tasks, cols)
}

/// `dfw`: workers with their task's plans (per instance), the group tag and
/// the tag table's user. Task columns that clash with instance columns get
/// the `_t` suffix.
pub fn instances(ctx: &Ctx, cols: &[&str]) -> Result<LazyFrame> {
    frame(ctx, Frame::Instances, cols)
}

/// `dfws`: `dfw` with machine capacities (left join) and sensor rows
/// (inner join on `worker_name`).
pub fn instances_with_sensor(ctx: &Ctx, cols: &[&str]) -> Result<LazyFrame> {
    frame(ctx, Frame::InstancesWithSensor, cols)
}

/// `dfas` merged into `dfa`: per task, the sums over its instances with
/// sensor rows (pandas `sum` skips NaN; an all-NaN group sums to 0), joined
/// (inner) to the task frame whose own per-instance plans are dropped.
pub fn task_usage(ctx: &Ctx, cols: &[&str]) -> Result<LazyFrame> {
    frame(ctx, Frame::TaskUsage, cols)
}

/// `pai/sensor` rows with their worker's instance times: the sensor's
/// columns plus `start_time` and `end_time` of the worker's `dfiw` row
/// (inner join on `worker_name`); the time of a sensor row for the per-time
/// reconstruction of Fig 7.
pub fn sensor_times(ctx: &Ctx, cols: &[&str]) -> Result<LazyFrame> {
    frame(ctx, Frame::SensorTimes, cols)
}

/// The columns `cols` of `frame`, in memory: gathered from the
/// derived-frame cache, or the lazy plan projected and collected when the
/// cache is unavailable. Either way the frame is evaluated once per call, so
/// an analysis asks once for the columns it needs and derives everything
/// from the result.
fn frame(ctx: &Ctx, frame: Frame, cols: &[&str]) -> Result<LazyFrame> {
    if let Some(df) = derived::select(ctx, frame, cols)? {
        return Ok(df.lazy());
    }
    let projection: Vec<Expr> = cols.iter().map(|c| col(*c)).collect();
    Ok(collect(plans::plan(&ctx.store, frame)?.select(projection), frame.name())?.lazy())
}

#[cfg(test)]
mod tests {
    use polars::df;

    use super::*;
    use crate::frame::{f64s, strs};
    use crate::testkit;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, MACHINE_SPEC, SENSOR, TASK};

    /// Job a with tasks t1 (start 5 s; instances start at 10 and 15 s) and
    /// t2 (no instance rows): `dfa` is t1 alone, waiting 10 - 5 = 5 s.
    fn tiny() -> testkit::TinyStore {
        testkit::store(vec![
            (&JOB, df!("job_name" => ["a"], "inst_id" => ["i"], "user" => ["u"], "start_time" => [1i64]).unwrap()),
            (&TASK, df!("job_name" => ["a", "a"], "task_name" => ["t1", "t2"], "start_time" => [5i64, 8]).unwrap()),
            (
                &INSTANCE,
                df!("job_name" => ["a", "a"], "task_name" => ["t1", "t1"], "worker_name" => ["w1", "w2"],
                    "start_time" => [10i64, 15])
                .unwrap(),
            ),
            (&GROUP_TAG, df!("inst_id" => ["i"], "user" => ["u"]).unwrap()),
            (&SENSOR, DataFrame::empty()),
            (&MACHINE_SPEC, DataFrame::empty()),
        ])
    }

    fn waits(ctx: &Ctx) -> (Vec<Option<String>>, Vec<Option<f64>>) {
        let df = collect(tasks(ctx, &["task_name", "wait_s"]).unwrap(), "dfa").unwrap();
        (strs(&df, "task_name").unwrap(), f64s(&df, "wait_s").unwrap())
    }

    /// The cache's frame and the lazy plan (used when the cache cannot be
    /// written: its entry's folder name taken by a file) give the same rows.
    #[test]
    fn the_frames_are_the_same_from_the_plans_and_from_the_cache() {
        let want = (vec![Some("t1".to_string())], vec![Some(5.0)]);
        let cached = tiny();
        assert_eq!(waits(&cached.ctx), want, "the cache");
        assert!(derived::entry(&cached.ctx.store).path("dfa.parquet").is_file());
        let unwritable = tiny();
        let entry = derived::entry(&unwritable.ctx.store).path("dfa.parquet");
        let folder = entry.parent().unwrap();
        std::fs::create_dir_all(folder.parent().unwrap()).unwrap();
        std::fs::write(folder, "not a folder").unwrap();
        assert_eq!(waits(&unwritable.ctx), want, "a cache that cannot be written: the plan");
        assert!(!derived::entry(&unwritable.ctx.store).path("dfa.parquet").is_file());
    }
}
