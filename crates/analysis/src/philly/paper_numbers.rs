//! The ATC'19 paper's job-level numbers beside ours: the share of jobs
//! killed or failed, GPU time by final status (the Helios SC'21 Fig 1b
//! Philly bars), and attempts/retries per job. The average utilization of
//! in-use GPUs needs the GPU-minute join and lives in
//! `philly.gpu-util-by-status`.

use polars::prelude::*;

use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::{collect, f64s, scalar, strs};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::philly::JOBS;

/// The final statuses whose GPU time the Helios notebook (H2) published.
const STATUSES: [&str; 3] = ["Pass", "Killed", "Failed"];
const GPU_TIME_SOURCE: &str = "Helios SC'21 Fig 1b (notebook H2, Philly)";

pub struct PaperNumbers;

impl Analyze for PaperNumbers {
    type Params = ();
    const ABOUT: About = About {
        id: "philly.paper-numbers",
        scope: Scope::Philly,
        mirrors: "ATC'19 Sec 4-5 headline numbers; Helios SC'21 Fig 1b (Philly GPU time by status)",
        summary: "Share of jobs killed or failed, GPU time by final status, attempts and retries per job",
        title: "Philly headline numbers (ATC'19; Helios SC'21 Fig 1b)",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors the ATC'19 headline numbers (Sec 4-5) and the Philly bars of SC'21 Fig 1b.

- **Reads** every `philly/jobs` row.
- **Computes:** jobs and their share per final status; *killed-or-failed* = share of jobs whose
  status is Killed or Failed; GPU time per status = sum of first-attempt GPUs × `run_s` (jobs with
  both; `run_s` in UTC, see [Philly durations](#time)) and its share of the total; attempts per job (mean over all jobs, 0 for jobs without an
  attempt); retries per job (attempts − 1, mean over jobs with at least one attempt); the share of
  jobs with attempts that were retried; jobs without any attempt; the most attempts of one job.
  Part `summary` (headlines) and part `by-status` (table).
- **Published:** about 30 % of jobs are killed or failed (ATC'19 Sec 5); GPU time by status Pass
  31.3 %, Killed 32.6 %, Failed 36.1 % (the Helios notebook H2's Philly bars). The average
  utilization of in-use GPUs (about 52 %) is in
  [philly.gpu-util-by-status](#phillygpu-util-by-status).
- **Differences:** the Helios authors computed their Philly bars from their own conversion of the
  Philly log (`philly_trace.csv`, not published); tracelab uses its Philly store with the ATC'19
  notebook's GPU count and runtime, which may not be exactly their conversion.
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("killed-or-failed", 30.0, "%", "ATC'19 Sec 5 (about 30 %)"),
        Published::new("gpu-time-pass", 31.3, "%", GPU_TIME_SOURCE),
        Published::new("gpu-time-killed", 32.6, "%", GPU_TIME_SOURCE),
        Published::new("gpu-time-failed", 36.1, "%", GPU_TIME_SOURCE),
    ];

    fn definition(_: &()) -> String {
        DEFINITION.into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        paper_numbers(ctx, out)
    }
}

fn paper_numbers(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let per_status = ctx
        .store
        .scan(&JOBS)?
        .group_by([col("status")])
        .agg([
            len().cast(DataType::Float64).alias("jobs"),
            (col("gpus").cast(DataType::Float64) * col("run_s")).sum().alias("gpu_s"),
        ])
        .sort(["status"], SortMultipleOptions::default());
    let df = collect(per_status, "philly.paper-numbers status")?;
    let (status, jobs, gpu_s) = (strs(&df, "status")?, f64s(&df, "jobs")?, f64s(&df, "gpu_s")?);
    let (n_jobs, total_gpu_s) = (jobs.iter().flatten().sum::<f64>(), gpu_s.iter().flatten().sum::<f64>());
    let mut t = ResultTable::new(&["status", "jobs", "job_share_pct", "gpu_hours", "gpu_time_share_pct"]);
    let mut shares = Vec::new();
    for i in 0..df.height() {
        let s = status[i].clone().unwrap_or_default();
        let (j, g) = (jobs[i].unwrap_or(0.0), gpu_s[i].unwrap_or(0.0));
        t.push(vec![
            Cell::from(s.as_str()),
            Cell::Int(j as i64),
            (100.0 * j / n_jobs).into(),
            (g / 3600.0).into(),
            (100.0 * g / total_gpu_s).into(),
        ]);
        shares.push((s, 100.0 * j / n_jobs, 100.0 * g / total_gpu_s));
    }
    let mut heads = vec![killed_or_failed(&shares)];
    for s in STATUSES {
        let ours = shares.iter().find(|r| r.0 == s).map_or(0.0, |r| r.2);
        heads.push(Headline::new(
            &format!("gpu-time-{}", s.to_lowercase()),
            &format!("GPU time of {s} jobs"),
            ours,
            "%",
        ));
    }
    heads.extend(retries(ctx)?);
    out.headlines("summary", heads);
    out.table("by-status", t);
    Ok(())
}

const DEFINITION: &str =
    "philly/jobs, every job. Job shares by final status (Pass, Killed, Failed); killed-or-failed = share of jobs \
     whose status is Killed or Failed. GPU time of a job = first-attempt GPUs x run_s (last attempt end - first \
     attempt start, UTC instants), jobs with both known; share = per-status sum / total (Helios H2: sum of gpu_num x duration \
     per state over philly_trace.csv). Attempts per job over every job (0 without attempts); retries = attempts \
     - 1 over jobs with at least one attempt. The average utilization of in-use GPUs (about 52 %) is the \
     headline of philly.gpu-util-by-status.";

fn killed_or_failed(shares: &[(String, f64, f64)]) -> Headline {
    let v: f64 = shares.iter().filter(|r| r.0 == "Killed" || r.0 == "Failed").map(|r| r.1).sum();
    Headline::new("killed-or-failed", "Jobs killed or failed", v, "%")
}

fn retries(ctx: &Ctx) -> Result<Vec<Headline>> {
    let lf = ctx.store.scan(&JOBS)?.select([
        col("attempts").cast(DataType::Float64).mean().alias("attempts_mean"),
        (col("attempts") - lit(1i64))
            .filter(col("attempts").gt(lit(0i64)))
            .cast(DataType::Float64)
            .mean()
            .alias("retries_mean"),
        (col("attempts").gt(lit(1i64)).cast(DataType::Float64).sum()
            / col("attempts").gt(lit(0i64)).cast(DataType::Float64).sum()
            * lit(100.0))
        .alias("retried_pct"),
        col("attempts").eq(lit(0i64)).cast(DataType::Float64).sum().alias("no_attempts"),
        col("attempts").max().cast(DataType::Float64).alias("attempts_max"),
    ]);
    let df = collect(lf, "philly.paper-numbers attempts")?;
    Ok(vec![
        Headline::new(
            "attempts-per-job",
            "Attempts per job (mean, all jobs)",
            scalar(&df, "attempts_mean")?,
            "attempts",
        ),
        Headline::new(
            "retries-per-job",
            "Retries per job (mean, jobs with attempts)",
            scalar(&df, "retries_mean")?,
            "retries",
        ),
        Headline::new("retried-share", "Jobs with attempts that were retried", scalar(&df, "retried_pct")?, "%"),
        Headline::new("no-attempts", "Jobs without any attempt", scalar(&df, "no_attempts")?, "jobs"),
        Headline::new("attempts-max", "Most attempts of one job", scalar(&df, "attempts_max")?, "attempts"),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Body;
    use crate::testkit;
    use tracelab_schema::philly::JOBS;

    #[test]
    fn killed_or_failed_and_gpu_time_shares() {
        let jobs = df!(
            "job_id" => ["a", "b", "c", "d"],
            "status" => ["Pass", "Killed", "Failed", "Pass"],
            "attempts" => [1i64, 3, 0, 2],
            "gpus" => [Some(2i64), Some(1), None, Some(4)],
            "run_s" => [Some(100.0), Some(200.0), None, Some(50.0)],
        )
        .unwrap();
        let tiny = testkit::store(vec![(&JOBS, jobs)]);
        let out = testkit::run(&PaperNumbers, &tiny, &[]);
        let Body::Headlines(h) = &out.part("summary").unwrap().body else { unreachable!() };
        let get = |k: &str| h.iter().find(|x| x.key == k).unwrap().value;
        // 2 of 4 jobs killed or failed.
        assert_eq!(get("killed-or-failed"), 50.0);
        // GPU time: Pass 2*100 + 4*50 = 400, Killed 200, Failed none -> 66.67 / 33.33 / 0.
        assert!((get("gpu-time-pass") - 200.0 / 3.0).abs() < 1e-12);
        assert_eq!(get("gpu-time-failed"), 0.0);
        // attempts (1+3+0+2)/4 = 1.5; retries over jobs with attempts (0+2+1)/3 = 1.
        assert_eq!((get("attempts-per-job"), get("retries-per-job")), (1.5, 1.0));
    }
}
