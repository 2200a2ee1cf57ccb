//! `philly.queueing-by-vc`: queueing delay per virtual cluster and GPU
//! bucket (ATC'19 Fig 3, the notebook's 'Queueing Delay' cell), in minutes,
//! per attempt as the notebook's cell or per job (first attempt).

use polars::prelude::*;

use super::clock::{Clock, CLOCK};
use super::jobs::{dists_in_order, MINUTE_US};
use super::{bucket, bucket_of, BUCKETS};
use crate::declare::{About, Analyze, Scope};
use crate::frame::{collect, f64s, i64s, strs};
use crate::output::Output;
use crate::params::{choice, params, Param};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::philly::{ATTEMPTS, JOBS};

choice! {
    /// Which queueing delays.
    pub enum QueueDef {
        /// The notebook's Fig 3 cell: one delay per attempt.
        PerAttempt = "per-attempt",
        /// One delay per job, first attempt start - submission.
        FirstAttempt = "first-attempt",
    }
}

const DEFINITION: Param<QueueDef> = Param::choice(
    "definition",
    "per-attempt",
    "per-attempt: the notebook's Fig 3 cell (one delay per attempt, from submission or the previous \
     attempt's end; stale values re-appended, exact zeros dropped); first-attempt: one delay per job, \
     first attempt start - submission (the notebook's Job.queueing_delay)",
);

params! {
    pub struct QueueingParams {
        pub definition: QueueDef = DEFINITION,
        pub clock: Clock = CLOCK,
    }
}

pub struct QueueingByVc;

impl Analyze for QueueingByVc {
    type Params = QueueingParams;
    const ABOUT: About = About {
        id: "philly.queueing-by-vc",
        scope: Scope::Philly,
        mirrors: "ATC'19 Fig 3 (notebook 'Queueing Delay')",
        summary: "Queueing delay CDF (minutes) per virtual cluster and GPU bucket; per-attempt or first-attempt",
        title: "Queueing delay per virtual cluster (ATC'19 Fig 3)",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors ATC'19 Fig 3, notebook P2 ("Queueing Delay").

- **Per attempt** (default, the notebook's cell). For each job in a GPU bucket, walk its attempts
  in order, keeping a "queued since" time (first the submission time) and a current delay
  (first 0). For each attempt: if "queued since" and the attempt's start are both known, the
  delay becomes start minus "queued since", and "queued since" becomes this attempt's end (which
  may be missing). The current delay is recorded once for **every** attempt, so when times are
  missing the previous value is recorded again. At the end, delays of exactly 0 are dropped (the
  notebook's `filter(None, ...)`); negative delays stay.
- **First attempt** (`definition=first-attempt`): one delay per job, first attempt's start minus
  submission (`philly/jobs.queue_s`); jobs without a first start skipped; zeros and negatives
  kept.
- **Output** in **minutes**, per GPU bucket: part `all` pools every VC; one part `vc-<vc>` per
  virtual cluster, one notebook figure each (a VC without samples gives empty series, as the
  notebook draws empty plots). Every status.
- **Published:** none (figures only).
- **Differences:** with the default `clock=utc`, a delay that spans the 2017-11-05 fall-back is 60
  minutes longer than in the notebook; `definition=per-attempt` with `clock=wall` gives the
  notebook's numbers.
"##;

    fn definition(p: &QueueingParams) -> String {
        let definition = match p.definition {
            QueueDef::PerAttempt => {
                "PER-ATTEMPT (the notebook's Fig 3 cell): for each job with a GPU bucket, queue_time = submit_time \
                 and delay = 0.0; for each attempt in order (philly/attempts), if queue_time and the attempt start \
                 are both set: delay = start - queue_time and queue_time = that attempt's end (possibly missing); \
                 the current delay is appended for every attempt (a stale value is re-appended when times are \
                 missing); exact zeros are then dropped (Python filter(None, ...)), negative delays kept."
            }
            QueueDef::FirstAttempt => {
                "FIRST-ATTEMPT: one delay per job, first attempt start - submit_time (philly/jobs.queue_s, the \
                 notebook's Job.queueing_delay); jobs without a first start skipped; zeros and negatives kept."
            }
        };
        format!(
            "{definition} In MINUTES as the notebook plots them. Every status. GPU bucket from the FIRST attempt's \
             GPUs (1, 2-4, 5-8, >8; 0 GPUs or no attempts: skipped). Part `all` pools the VCs; part `vc-<vc>` is \
             one notebook figure per VC (VCs without samples give empty series, as the notebook's empty plots). \
             {}",
            p.clock.note()
        )
    }

    /// P2: queueing delay per VC and GPU bucket.
    fn run(ctx: &Ctx, p: &QueueingParams, out: &mut Output) -> Result<()> {
        let samples = queue_samples(ctx, p.definition, p.clock)?;
        let vcs = ctx.store.scan(&JOBS)?.select([col("vc")]).unique(None, UniqueKeepStrategy::Any);
        let mut vcs: Vec<String> = strs(&collect(vcs, "vcs")?, "vc")?.into_iter().flatten().collect();
        vcs.sort();
        let all = samples.iter().map(|(_, b, v)| (b.clone(), *v));
        out.dists("all", "Queueing delay (min)", dists_in_order(all, &BUCKETS));
        for vc in &vcs {
            let mine = samples.iter().filter(|(v, _, _)| v == vc).map(|(_, b, d)| (b.clone(), *d));
            out.dists(&format!("vc-{vc}"), "Queueing delay (min)", dists_in_order(mine, &BUCKETS));
        }
        Ok(())
    }
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
/// linear pass over the attempts sorted by job and attempt), times on
/// `clock`.
fn job_attempts(ctx: &Ctx, clock: Clock) -> Result<Vec<JobAttempts>> {
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
            clock.micros(col("submit_time")).alias("submit"),
            clock.micros(col("start_time")).alias("start"),
            clock.micros(col("end_time")).alias("end"),
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
fn queue_samples(ctx: &Ctx, definition: QueueDef, clock: Clock) -> Result<Vec<(String, String, f64)>> {
    if definition == QueueDef::PerAttempt {
        let jobs = job_attempts(ctx, clock)?;
        return Ok(jobs
            .into_iter()
            .flat_map(|j| {
                let (vc, b) = (j.vc, j.bucket);
                per_attempt_delays(j.submit, &j.attempts).into_iter().map(move |d| (vc.clone(), b.to_string(), d))
            })
            .collect());
    }
    let lf =
        ctx.store.scan(&JOBS)?.select([col("vc"), bucket(col("gpus")).alias("b"), clock.queue_minutes().alias("v")]);
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
