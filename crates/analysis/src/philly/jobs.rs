//! P1-P3 of the Philly notebook over the small job tables (`philly/jobs`,
//! `philly/attempts`): runtime by GPU bucket (Fig 2), queueing delay per VC
//! (Fig 3, both queueing definitions) and locality vs delay (Fig 4). Times
//! are in minutes, the notebook's unit (`timedelta_to_minutes`).

use std::collections::BTreeMap;

use polars::prelude::*;

use super::{bucket, bucket_of, BUCKETS};
use crate::frame::{collect, f64s, i64s, strs};
use crate::{Args, Cell, Ctx, Output, ResultTable};
use tracelab_schema::error::Result;
use tracelab_schema::philly::{ATTEMPTS, JOBS};
use tracelab_stats::Dist;

const MINUTE_US: f64 = 60e6;

/// Groups (label, value) samples into one Dist per label of `order`.
fn dists_in_order(samples: impl IntoIterator<Item = (String, f64)>, order: &[&str]) -> Vec<(String, Dist)> {
    let mut by: BTreeMap<String, Vec<f64>> = order.iter().map(|l| (l.to_string(), Vec::new())).collect();
    for (label, v) in samples {
        by.entry(label).or_default().push(v);
    }
    order.iter().map(|l| (l.to_string(), Dist::from_samples(by.remove(*l).unwrap_or_default()))).collect()
}

/// P1 (Fig 2): every job (any status) with a runtime, by GPU bucket.
pub fn runtime_by_size(ctx: &Ctx, _: &Args) -> Result<Output> {
    let lf = ctx.store.scan(&JOBS)?.select([bucket(col("gpus")).alias("b"), (col("run_s") / lit(60.0)).alias("v")]);
    let df = collect(lf, "philly.runtime-by-size")?;
    let samples = labelled(&df, "b", "v")?;
    let mut out = Output::new(
        "philly.runtime-by-size",
        "Job runtime by GPU count (ATC'19 Fig 2)",
        "philly/jobs, every status; runtime = last attempt end - first attempt start (run_s, spanning retries \
         and the gaps between them), in MINUTES as the notebook plots it; jobs whose first start or last end \
         is missing have no runtime and are skipped; GPU count = GPUs of the FIRST attempt, bucketed 1, 2-4, \
         5-8, >8 (0 GPUs or no attempts: skipped). CDF convention: i-th of n sorted at 100*i/(n-1).",
    );
    out.dists("by-size", "Runtime (min)", dists_in_order(samples, &BUCKETS));
    Ok(out)
}

/// (label, value) rows of two columns, nulls and non-finite values dropped.
fn labelled(df: &DataFrame, label: &str, value: &str) -> Result<Vec<(String, f64)>> {
    let (labels, values) = (strs(df, label)?, f64s(df, value)?);
    Ok(labels.into_iter().zip(values).filter_map(|(l, v)| Some((l?, v.filter(|v| v.is_finite())?))).collect())
}

/// One job's attempts for the per-attempt queueing scan.
struct JobAttempts {
    vc: String,
    bucket: &'static str,
    submit: Option<i64>,
    /// (start, end) in microseconds, in attempt order.
    attempts: Vec<(Option<i64>, Option<i64>)>,
}

/// The notebook's Fig 3 cell, for one job: `queue_time = submitted_time`;
/// for each attempt, if `queue_time` and the start are set, `delay = start -
/// queue_time` and `queue_time = end`; the current delay (initially 0.0) is
/// appended for EVERY attempt, so a stale value is re-appended when times
/// are missing. Exact zeros are then dropped (`filter(None, ...)`), negative
/// delays kept.
pub fn per_attempt_delays(submit: Option<i64>, attempts: &[(Option<i64>, Option<i64>)]) -> Vec<f64> {
    let (mut queue_time, mut delay) = (submit, 0.0);
    let mut out = Vec::with_capacity(attempts.len());
    for &(start, end) in attempts {
        if let (Some(q), Some(s)) = (queue_time, start) {
            delay = (s - q) as f64 / MINUTE_US;
            queue_time = end;
        }
        out.push(delay);
    }
    out.retain(|&d| d != 0.0);
    out
}

/// Jobs with a bucket and at least one attempt, attempts in order (one
/// linear pass over the attempts sorted by job and attempt).
fn job_attempts(ctx: &Ctx) -> Result<Vec<JobAttempts>> {
    let jobs = ctx.store.scan(&JOBS)?.select([col("job_id"), col("vc"), col("gpus"), col("submit_time")]);
    let att = ctx.store.scan(&ATTEMPTS)?.select([col("job_id"), col("attempt"), col("start_time"), col("end_time")]);
    let lf = jobs
        .filter(bucket(col("gpus")).is_not_null())
        .join(att, [col("job_id")], [col("job_id")], JoinArgs::new(JoinType::Inner))
        .sort(["job_id", "attempt"], SortMultipleOptions::default())
        .select([
            col("job_id"),
            col("vc"),
            col("gpus"),
            col("submit_time").cast(DataType::Int64).alias("submit"),
            col("start_time").cast(DataType::Int64).alias("start"),
            col("end_time").cast(DataType::Int64).alias("end"),
        ]);
    let df = collect(lf, "philly.queueing-by-vc attempts")?;
    let (ids, vcs, gpus) = (strs(&df, "job_id")?, strs(&df, "vc")?, i64s(&df, "gpus")?);
    let (submit, start, end) = (i64s(&df, "submit")?, i64s(&df, "start")?, i64s(&df, "end")?);
    let mut out: Vec<JobAttempts> = Vec::new();
    let mut last_id: Option<&str> = None;
    for i in 0..df.height() {
        if last_id != ids[i].as_deref() {
            let b = gpus[i].and_then(bucket_of).unwrap_or(BUCKETS[0]);
            out.push(JobAttempts {
                vc: vcs[i].clone().unwrap_or_default(),
                bucket: b,
                submit: submit[i],
                attempts: vec![],
            });
            last_id = ids[i].as_deref();
        }
        out.last_mut().expect("pushed above").attempts.push((start[i], end[i]));
    }
    Ok(out)
}

/// (vc, bucket, delay in minutes) samples under the chosen definition.
fn queue_samples(ctx: &Ctx, per_attempt: bool) -> Result<Vec<(String, String, f64)>> {
    if per_attempt {
        let jobs = job_attempts(ctx)?;
        return Ok(jobs
            .into_iter()
            .flat_map(|j| {
                let (vc, b) = (j.vc, j.bucket);
                per_attempt_delays(j.submit, &j.attempts).into_iter().map(move |d| (vc.clone(), b.to_string(), d))
            })
            .collect());
    }
    let lf = ctx.store.scan(&JOBS)?.select([
        col("vc"),
        bucket(col("gpus")).alias("b"),
        (col("queue_s") / lit(60.0)).alias("v"),
    ]);
    let df = collect(lf, "philly.queueing-by-vc first attempt")?;
    let (vcs, rows) = (strs(&df, "vc")?, labelled_keep_index(&df)?);
    Ok(rows.into_iter().map(|(i, b, v)| (vcs[i].clone().unwrap_or_default(), b, v)).collect())
}

fn labelled_keep_index(df: &DataFrame) -> Result<Vec<(usize, String, f64)>> {
    let (labels, values) = (strs(df, "b")?, f64s(df, "v")?);
    Ok(labels
        .into_iter()
        .zip(values)
        .enumerate()
        .filter_map(|(i, (l, v))| Some((i, l?, v.filter(|v| v.is_finite())?)))
        .collect())
}

/// P2 (Fig 3): queueing delay per VC and GPU bucket.
pub fn queueing_by_vc(ctx: &Ctx, args: &Args) -> Result<Output> {
    let per_attempt = args.str("definition") == "per-attempt";
    let samples = queue_samples(ctx, per_attempt)?;
    let vcs =
        strs(&collect(ctx.store.scan(&JOBS)?.select([col("vc")]).unique(None, UniqueKeepStrategy::Any), "vcs")?, "vc")?;
    let mut vcs: Vec<String> = vcs.into_iter().flatten().collect();
    vcs.sort();
    let definition = if per_attempt {
        "PER-ATTEMPT (the notebook's Fig 3 cell): for each job with a GPU bucket, queue_time = submit_time and \
         delay = 0.0; for each attempt in order (philly/attempts), if queue_time and the attempt start are both \
         set: delay = start - queue_time and queue_time = that attempt's end (possibly missing); the current delay \
         is appended for every attempt (a stale value is re-appended when times are missing); exact zeros are \
         then dropped (Python filter(None, ...)), negative delays kept."
    } else {
        "FIRST-ATTEMPT: one delay per job, first attempt start - submit_time (philly/jobs.queue_s, the notebook's \
         Job.queueing_delay); jobs without a first start skipped; zeros and negatives kept."
    };
    let mut out = Output::new(
        "philly.queueing-by-vc",
        "Queueing delay per virtual cluster (ATC'19 Fig 3)",
        format!(
            "{definition} In MINUTES as the notebook plots them. Every status. GPU bucket from the FIRST attempt's \
             GPUs (1, 2-4, 5-8, >8; 0 GPUs or no attempts: skipped). Part `all` pools the VCs; part `vc-<vc>` is one \
             notebook figure per VC (VCs without samples give empty series, as the notebook's empty plots)."
        ),
    );
    let all = samples.iter().map(|(_, b, v)| (b.clone(), *v));
    out.dists("all", "Queueing delay (min)", dists_in_order(all, &BUCKETS));
    for vc in &vcs {
        let mine = samples.iter().filter(|(v, _, _)| v == vc).map(|(_, b, d)| (b.clone(), *d));
        out.dists(&format!("vc-{vc}"), "Queueing delay (min)", dists_in_order(mine, &BUCKETS));
    }
    Ok(out)
}

/// P3 (Fig 4): for jobs with attempts and 5+ GPUs, the first-attempt
/// queueing delay (minutes) against the servers of the first attempt.
pub fn locality(ctx: &Ctx, _: &Args) -> Result<Output> {
    let jobs = ctx.store.scan(&JOBS)?.filter(col("attempts").gt(lit(0i64)).and(col("gpus").gt_eq(lit(5i64))));
    let first =
        ctx.store.scan(&ATTEMPTS)?.filter(col("attempt").eq(lit(0i64))).select([col("job_id"), col("machines")]);
    let lf = jobs
        .join(first, [col("job_id")], [col("job_id")], JoinArgs::new(JoinType::Inner))
        .select([bucket(col("gpus")).alias("b"), (col("queue_s") / lit(60.0)).alias("x"), col("machines").alias("y")])
        .filter(col("x").is_not_null())
        .sort(["b", "x", "y"], SortMultipleOptions::default());
    let df = collect(lf, "philly.locality")?;
    let (b, x, y) = (strs(&df, "b")?, f64s(&df, "x")?, i64s(&df, "y")?);
    let rows: Vec<(String, f64, i64)> = (0..df.height()).filter_map(|i| Some((b[i].clone()?, x[i]?, y[i]?))).collect();
    let mut out = Output::new(
        "philly.locality",
        "Locality constraints vs queueing delay (ATC'19 Fig 4)",
        "philly/jobs with at least one attempt and first-attempt GPUs >= 5 (every status), joined to their first \
         attempt (philly/attempts, attempt = 0): x = first-attempt queueing delay (first start - submit) in \
         MINUTES, y = servers of the first attempt (len(attempts[0].detail)); jobs without a first start are \
         skipped (the notebook would plot None). Series by bucket 5-8 and >8 GPUs.",
    );
    let series = ["5-8 GPU", ">8 GPU"]
        .iter()
        .map(|l| (l.to_string(), rows.iter().filter(|r| r.0 == *l).map(|r| (r.1, r.2 as f64)).collect()))
        .collect();
    out.curves("scatter", "Queueing delay (min)", "Servers of the first attempt", series);
    out.table("by-servers", locality_table(&rows));
    Ok(out)
}

/// Jobs and delay quantiles per (bucket, servers).
fn locality_table(rows: &[(String, f64, i64)]) -> ResultTable {
    let mut groups: BTreeMap<(String, i64), Vec<f64>> = BTreeMap::new();
    for (b, x, y) in rows {
        groups.entry((b.clone(), *y)).or_default().push(*x);
    }
    let mut t = ResultTable::new(&["gpus", "servers", "jobs", "p50_delay_min", "p90_delay_min"]);
    for ((b, servers), xs) in groups {
        let d = Dist::from_samples(xs);
        t.push(vec![
            Cell::from(b),
            Cell::Int(servers),
            Cell::from(d.n()),
            d.quantile(0.5).into(),
            d.quantile(0.9).into(),
        ]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{find, testkit, Body};

    const M: i64 = 60_000_000;

    #[test]
    fn per_attempt_delays_reproduce_the_notebook_quirks() {
        // submit 0; attempt 0 starts at 2 min, ends 5; attempt 1 starts at 5 (delay 0 -> dropped);
        // attempt 2 has no start (stale 0.0 re-appended, dropped); attempt 3 starts 9 -> 9-5 = 4.
        let a = [(Some(2 * M), Some(5 * M)), (Some(5 * M), None), (None, None), (Some(9 * M), Some(10 * M))];
        // After attempt 1, queue_time = None (its end), so attempt 3 keeps the stale 0.0 too.
        assert_eq!(per_attempt_delays(Some(0), &a), vec![2.0]);
        // End present: attempt 0 [2,5], attempt 1 [8,9] -> 2, 3; attempt 2 without start re-appends 3.
        let b = [(Some(2 * M), Some(5 * M)), (Some(8 * M), Some(9 * M)), (None, None)];
        assert_eq!(per_attempt_delays(Some(0), &b), vec![2.0, 3.0, 3.0]);
        // A start before the previous end gives a negative delay, kept: 3 - 5 = -2.
        let c = [(Some(2 * M), Some(5 * M)), (Some(3 * M), Some(6 * M))];
        assert_eq!(per_attempt_delays(Some(0), &c), vec![2.0, -2.0]);
    }

    fn tiny() -> testkit::TinyStore {
        let jobs = df!(
            "job_id" => ["a", "b", "c", "d"],
            "vc" => ["v1", "v1", "v2", "v2"],
            "status" => ["Pass", "Failed", "Killed", "Pass"],
            "submit_time" => [0i64, 0, 0, 0],
            "attempts" => [1i64, 2, 1, 0],
            "gpus" => [Some(1i64), Some(8), Some(16), None],
            "queue_s" => [Some(60.0), Some(120.0), Some(30.0), None],
            "run_s" => [Some(600.0), Some(1200.0), None, None],
        )
        .unwrap();
        let attempts = df!(
            "job_id" => ["a", "b", "b", "c"],
            "attempt" => [0i64, 0, 1, 0],
            "start_time" => [Some(60i64), Some(120), Some(900), Some(30)],
            "end_time" => [Some(660i64), Some(600), Some(1320), None],
            "machines" => [1i64, 1, 1, 2],
        )
        .unwrap();
        testkit::store(vec![(&JOBS, jobs), (&ATTEMPTS, attempts)])
    }

    fn dist<'a>(out: &'a Output, part: &str, label: &str) -> &'a Dist {
        let Body::Dists { series, .. } = &out.part(part).unwrap().body else { unreachable!() };
        &series.iter().find(|s| s.0 == label).unwrap().1
    }

    #[test]
    fn runtime_queueing_and_locality_in_minutes() {
        let tiny = tiny();
        let run = |id: &str, p: &[(String, String)]| find(id).unwrap().run(&tiny.ctx, p).unwrap();
        // P1: a 600 s = 10 min (1 GPU), b 1200 s = 20 min (8 GPUs); c has no runtime, d no GPUs.
        let p1 = run("philly.runtime-by-size", &[]);
        assert_eq!(dist(&p1, "by-size", "1 GPU").values(), &[10.0]);
        assert_eq!(dist(&p1, "by-size", "5-8 GPU").values(), &[20.0]);
        assert!(dist(&p1, "by-size", ">8 GPU").is_empty());
        // P2 per attempt: a 1 min; b 2 min then 900 - 600 s = 5 min; c 0.5 min (vc v2).
        let p2 = run("philly.queueing-by-vc", &[]);
        assert_eq!(dist(&p2, "vc-v1", "5-8 GPU").values(), &[2.0, 5.0]);
        assert_eq!(dist(&p2, "all", ">8 GPU").values(), &[0.5]);
        // First attempt: b is 2 min only.
        let first = run("philly.queueing-by-vc", &[("definition".into(), "first-attempt".into())]);
        assert_eq!(dist(&first, "vc-v1", "5-8 GPU").values(), &[2.0]);
        // P3: 5+ GPUs: b (2 min, 1 server), c (0.5 min, 2 servers).
        let p3 = run("philly.locality", &[]);
        let Body::Curves { series, .. } = &p3.part("scatter").unwrap().body else { unreachable!() };
        assert_eq!(series[0].1, vec![(2.0, 1.0)]);
        assert_eq!(series[1].1, vec![(0.5, 2.0)]);
    }
}
