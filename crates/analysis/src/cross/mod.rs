//! Cross-trace views over the unified `jobs` table: one series per trace
//! (`pai`, `philly`, `helios`, `swf`, `acme`, `spot`) and one per Helios
//! cluster (`helios/Venus`, ...), AcmeTrace cluster (`acme/Seren`,
//! `acme/Kalos`) and SWF log (`swf/<file stem>`), so the traces plot side
//! by side. SWF jobs have no GPU count, so only `jobs=all` shows them. No anchor has these in one place;
//! each view states every trace's own definition of the quantity it plots.
//!
//! One file per analysis id (`cross.wait-fraction` is `wait_fraction.rs`);
//! [`dists`] holds the view the four distribution analyses share. Shared
//! here: every trace's definitions, the `jobs` parameter and the series.

mod dists;

pub mod diurnal;
pub mod gpus_per_job;
pub mod queueing;
pub mod runtime;
pub mod status;
pub mod user_concentration;
pub mod wait_fraction;

use polars::prelude::*;

use crate::frame::{collect, strs};
use crate::params::{choice, params, Param};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::unified::JOBS;

/// Every trace's queueing and runtime definitions (docs/schema.md, unified
/// `jobs`), quoted in each view's definition.
pub const TRACE_DEFINITIONS: &str = "Per trace (unified jobs table): PAI queue = earliest instance start - job \
     submission (job start_time), runtime = job end_time - earliest instance start; Philly queue = first attempt \
     start - submitted_time (first-attempt definition), runtime = last attempt end - first attempt start (spans \
     retries), both differences of UTC instants (the true elapsed time, not the notebook's naive wall clock); \
     Helios queue = raw `queue` (start - submit), runtime = raw `duration` (end - start); SWF queue = Wait Time, \
     runtime = Run Time (fields 3 and 4 of the log); AcmeTrace queue = start - submit, runtime = end - start (from \
     the stamps: Kalos' raw duration is end - submit); Spot runtime = the raw duration, no queueing recorded (the \
     trace has no start times), GPUs = worker_num x gpu_request.";

choice! {
    /// Which jobs a view counts.
    pub enum Jobs {
        /// Only jobs requesting GPUs (gpus_requested > 0).
        Gpu = "gpu",
        /// Every job, CPU-only included.
        All = "all",
    }
}

pub const JOBS_PARAM: Param<Jobs> = Param::choice(
    "jobs",
    "gpu",
    "gpu: only jobs requesting GPUs (gpus_requested > 0); all: every job, CPU-only included",
);

params! {
    /// The views' parameters.
    pub struct ViewParams {
        pub jobs: Jobs = JOBS_PARAM,
    }
}

/// The unified jobs with a `series` column: every row under its trace, and
/// Helios, AcmeTrace and SWF rows once more under `<trace>/<cluster>` (a
/// Helios or AcmeTrace cluster, an SWF log).
pub fn with_series(ctx: &Ctx, which: Jobs) -> Result<LazyFrame> {
    let mut jobs = ctx.store.scan(&JOBS)?;
    if which == Jobs::Gpu {
        jobs = jobs.filter(col("gpus_requested").gt(lit(0.0)));
    }
    let by_trace = jobs.clone().with_column(col("trace").alias("series"));
    let by_cluster = jobs
        .filter(col("trace").eq(lit("helios")).or(col("trace").eq(lit("swf"))).or(col("trace").eq(lit("acme"))))
        .with_column((col("trace") + lit("/") + col("cluster")).alias("series"));
    concat([by_trace, by_cluster], UnionArgs::default())
        .map_err(|e| tracelab_schema::error::Error::polars("cross series".to_string(), e))
}

/// The series labels present, sorted.
pub fn series_labels(lf: LazyFrame) -> Result<Vec<String>> {
    let df = collect(lf.select([col("series")]).unique(None, UniqueKeepStrategy::Any), "cross series labels")?;
    let mut labels: Vec<String> = strs(&df, "series")?.into_iter().flatten().collect();
    labels.sort();
    Ok(labels)
}

/// The sentence every view's definition states about its jobs.
pub fn jobs_note(which: Jobs) -> &'static str {
    match which {
        Jobs::Gpu => "Jobs: those requesting GPUs (gpus_requested > 0).",
        Jobs::All => "Jobs: every job, CPU-only included.",
    }
}

#[cfg(test)]
mod tests {
    use polars::prelude::*;

    use crate::cross::wait_fraction::WaitFraction;
    use crate::cross::{diurnal::Diurnal, status::Status, user_concentration::UserConcentration};
    use crate::declare::Analyze;
    use crate::output::{Body, Cell};
    use crate::testkit;
    use tracelab_schema::unified::JOBS;

    fn tiny() -> testkit::TinyStore {
        // 2017-11-02 15:00 UTC = 08:00 in Los Angeles (PDT); 2020-06-09 10:00 UTC = 18:00 in Shanghai.
        let (philly_t, helios_t) = (1_509_634_800i64, 1_591_696_800i64);
        let jobs = df!(
            "trace" => ["philly", "philly", "helios", "helios", "helios"],
            "cluster" => ["philly", "philly", "Venus", "Earth", "Earth"],
            "job_id" => ["a", "b", "1", "2", "3"],
            "user" => ["u1", "u2", "v1", "v1", "v2"],
            "submit_time" => [philly_t, philly_t, helios_t, helios_t, helios_t],
            "queue_s" => [Some(10.0), Some(0.0), Some(30.0), None, Some(5.0)],
            "run_s" => [Some(30.0), Some(100.0), Some(10.0), Some(50.0), Some(5.0)],
            "gpus_requested" => [1.0, 2.0, 4.0, 1.0, 0.0],
            "status" => ["completed", "failed", "completed", "killed", "completed"],
        )
        .unwrap();
        testkit::store(vec![(&JOBS, jobs)])
    }

    fn run<A: Analyze>(analysis: &'static A) -> crate::output::Output {
        testkit::run(analysis, &tiny(), &[])
    }

    #[test]
    fn wait_fraction_per_trace_and_helios_cluster() {
        let out = run(&WaitFraction);
        let Body::Table(t) = &out.part("quantiles").unwrap().body else { unreachable!() };
        // GPU jobs only (job 3 has 0 GPUs). philly: 10/40 = 25 %, 0/100 = 0 % -> P50 12.5;
        // helios: job 1 = 30/40 = 75 %; job 2 has no queue.
        // helios/Earth's only GPU job has no queue: an empty series.
        let labels = ["helios", "helios/Earth", "helios/Venus", "philly"];
        assert_eq!(
            t.column("series").unwrap(),
            labels.iter().map(|l| Cell::from(*l)).collect::<Vec<_>>().iter().collect::<Vec<_>>()
        );
        assert_eq!(t.column("n").unwrap(), vec![&Cell::Int(1), &Cell::Int(0), &Cell::Int(1), &Cell::Int(2)]);
        let p50: Vec<f64> = t.column("p50").unwrap().iter().map(|c| c.as_f64().unwrap()).collect();
        assert_eq!((p50[0], p50[2], p50[3]), (75.0, 75.0, 12.5));
    }

    #[test]
    fn status_shares_of_jobs_and_gpu_time() {
        let out = run(&Status);
        let Body::Table(t) = &out.part("gpu-time-shares").unwrap().body else { unreachable!() };
        // helios GPU jobs: completed 4 x 10 = 40, killed 1 x 50 = 50 -> 44.44 %, 55.56 %.
        let row = &t.rows[0];
        assert_eq!(row[0], Cell::from("helios"));
        assert!((row[2].as_f64().unwrap() - 400.0 / 9.0).abs() < 1e-12);
        assert!((row[4].as_f64().unwrap() - 500.0 / 9.0).abs() < 1e-12);
    }

    #[test]
    fn diurnal_uses_each_traces_zone() {
        let out = run(&Diurnal);
        let Body::Curves { series, .. } = &out.part("by-hour").unwrap().body else { unreachable!() };
        let philly = &series.iter().find(|s| s.0 == "philly").unwrap().1;
        assert_eq!(philly[8], (8.0, 100.0));
        let helios = &series.iter().find(|s| s.0 == "helios").unwrap().1;
        assert_eq!(helios[18], (18.0, 100.0));
    }

    #[test]
    fn user_concentration_gini() {
        let out = run(&UserConcentration);
        let Body::Table(t) = &out.part("gini").unwrap().body else { unreachable!() };
        // philly GPU time: u1 = 1 x 30 = 30, u2 = 2 x 100 = 200; Gini of (30, 200) =
        // ((2*1-3)*30 + (2*2-3)*200) / (2 * 230) = 170 / 460.
        let philly = t.rows.iter().find(|r| r[0] == Cell::from("philly")).unwrap();
        assert!((philly[2].as_f64().unwrap() - 170.0 / 460.0).abs() < 1e-12);
    }
}
