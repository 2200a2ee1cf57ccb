//! Pollux's workload from any trace, with the semantics of the artifact's
//! generator (petuum/adaptdl `osdi21-artifact`, `simulator/workload.py`,
//! OSDI'21 §5.3), which drew its eight workloads from Philly:
//!
//! 1. keep jobs that ran at least 60 s and used under 1,000 GPU-hours
//!    (GPUs x run time);
//! 2. shift each submission back by `start` hours (default 2) on the
//!    trace's local wall clock and keep the jobs whose shifted hour of the
//!    day is below `duration` (default 8): hours [start, start + duration)
//!    of *every* day, not one continuous window;
//! 3. draw `jobs` of them (default 160) uniformly without replacement;
//! 4. place each at its shifted time of day (seconds since midnight), so
//!    all days fold onto one `duration`-hour stretch;
//! 5. map its GPU-hours to an application: under 1 cifar10 or ncf (a coin
//!    toss), under 10 deepspeech2 (another coin turns half into bert),
//!    under 100 yolov3, else imagenet;
//! 6. give it GPUs and a batch size: `tuned` (TunedJobs, OSDI'21 §5.2) draws
//!    one of the application's configurations reaching 50-80 % of ideal
//!    scaling ([`tracelab_sim::elastic::app::tuned_configurations`]);
//!    `realistic` keeps the trace's GPUs with the smallest batch size per
//!    GPU (capped at the largest measured batch and what it can feed).
//!
//! Randomness is tracelab's seeded generator (xoshiro256**,
//! `tracelab_sim::rng`), not pandas': the same seed gives the same
//! workload, not the artifact's. Jobs are named `<application>-<index>` in
//! time order, as the generator names them.

use chrono::{TimeZone, Timelike};

use tracelab_schema::error::{Error, Result};
use tracelab_schema::Trace;
use tracelab_sim::elastic::app::{self, tuned_configurations, Application};
use tracelab_sim::elastic::ElasticJob;
use tracelab_sim::rng::Rng;
use tracelab_sim::time::SECOND;

use crate::load::{LeftOut, LeftReason, Loaded, TraceJob};
use crate::select::sample;

/// The generator's options.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    pub jobs: usize,
    /// Hours to shift submissions back before taking hours of the day.
    pub start_h: u32,
    /// Hours of the day kept (after the shift).
    pub duration_h: u32,
    pub seed: u64,
    /// TunedJobs configurations (true) or the trace's GPUs (false).
    pub tuned: bool,
}

impl Default for Recipe {
    fn default() -> Self {
        Recipe { jobs: 160, start_h: 2, duration_h: 8, seed: 0, tuned: true }
    }
}

/// GPU-hour class bounds (exclusive upper) and the share of jobs per class
/// Pollux reports for its workload (OSDI'21 Table 1: small 72 %, medium
/// 20 %, large 6 %, extra large 2 %).
pub const CLASS_BOUNDS_H: [f64; 3] = [1.0, 10.0, 100.0];
pub const CLASS_LABELS: [&str; 4] = ["small", "medium", "large", "xlarge"];
pub const PUBLISHED_MIX_PCT: [f64; 4] = [72.0, 20.0, 6.0, 2.0];

/// A generated workload and the accounting of every trace row.
#[derive(Clone, Debug)]
pub struct Generated {
    pub jobs: Vec<ElasticJob>,
    /// Trace id of each job.
    pub trace_ids: Vec<String>,
    /// GPU-hour class (0-3) of each job.
    pub classes: Vec<usize>,
    pub rows: u64,
    pub left_out: LeftOut,
    /// Jobs kept by the filters, before the sample.
    pub eligible: usize,
}

/// GPU-hours of a trace job.
fn gpu_hours(j: &TraceJob) -> f64 {
    j.job.gpu_milli as f64 / 1000.0 * j.job.duration as f64 / 3_600_000.0
}

/// The class of a number of GPU-hours.
pub fn class(hours: f64) -> usize {
    CLASS_BOUNDS_H.iter().position(|b| hours < *b).unwrap_or(3)
}

/// Seconds since midnight of `epoch_ms`'s local wall-clock time shifted
/// back `start_h` hours on the clock. The generator subtracts the hours
/// from the trace's naive local timestamps, so across a daylight-saving
/// change the shift is on the wall clock, not in elapsed time: Philly's
/// `2017-11-05 02:30:00` (PST, an hour after the fall-back) shifted by 2 h
/// is 00:30, where 2 h of elapsed time earlier was 01:30 PDT.
fn shifted_time_of_day(trace: Trace, epoch_ms: i64, start_h: u32) -> Option<u32> {
    let tz: chrono_tz::Tz = trace.local_tz().parse().ok()?;
    let local = tz.timestamp_millis_opt(epoch_ms).single()?.naive_local();
    Some((local - chrono::Duration::hours(start_h as i64)).num_seconds_from_midnight())
}

/// Applies the generator to a trace's candidate jobs.
pub fn generate(loaded: Loaded, trace: Trace, r: &Recipe) -> Result<Generated> {
    if r.duration_h == 0 || r.duration_h > 24 || r.start_h >= 24 {
        return Err(Error::Usage("the Pollux recipe needs --start in 0..24 and --duration in 1..=24 hours".into()));
    }
    let Loaded { rows, jobs, mut left_out, .. } = loaded;
    let mut kept = Vec::new();
    let (mut short, mut huge, mut outside) = (0, 0, 0);
    for j in jobs {
        let tod = shifted_time_of_day(trace, j.job.submit, r.start_h);
        if j.job.duration < 60 * SECOND {
            short += 1;
        } else if gpu_hours(&j) >= 1000.0 {
            huge += 1;
        } else if tod.is_none_or(|s| s / 3600 >= r.duration_h) {
            outside += 1;
        } else {
            kept.push(j);
        }
    }
    left_out.add(LeftReason::ShorterThanMinute, short);
    left_out.add(LeftReason::ThousandGpuHours, huge);
    left_out.add(LeftReason::OutsideHours, outside);
    kept.sort_by(|a, b| (a.job.submit, &a.job_id).cmp(&(b.job.submit, &b.job_id)));
    let eligible = kept.len();
    if eligible == 0 {
        return Err(Error::Usage("the Pollux recipe kept no job of this trace (see the generator's filters)".into()));
    }
    let n = r.jobs.min(eligible);
    left_out.add(LeftReason::NotSampled, (eligible - n) as u64);
    let drawn = sample(kept, n, r.seed);
    let mut rng = Rng::new(r.seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut rows_out: Vec<(u32, ElasticJob, String, usize)> = drawn
        .iter()
        .map(|j| {
            let tod = shifted_time_of_day(trace, j.job.submit, r.start_h).unwrap_or(0);
            let c = class(gpu_hours(j));
            let job = assign(&mut rng, c, j, tod, r.tuned);
            (tod, job, j.job_id.clone(), c)
        })
        .collect();
    rows_out.sort_by_key(|(t, ..)| *t);
    let mut out = Generated { jobs: Vec::new(), trace_ids: Vec::new(), classes: Vec::new(), rows, left_out, eligible };
    for (i, (_, mut job, id, c)) in rows_out.into_iter().enumerate() {
        job.name = format!("{}-{i}", job.application.name);
        out.jobs.push(job);
        out.trace_ids.push(id);
        out.classes.push(c);
    }
    Ok(out)
}

fn application(name: &str) -> &'static Application {
    app::get(name).expect("the recipe names measured applications")
}

/// The job's application by class, then its GPUs and batch size.
fn assign(rng: &mut Rng, class: usize, j: &TraceJob, tod: u32, tuned: bool) -> ElasticJob {
    let name = match class {
        0 => ["cifar10", "ncf"][rng.below(2) as usize],
        1 => ["deepspeech2", "bert"][rng.below(2) as usize],
        2 => "yolov3",
        _ => "imagenet",
    };
    let a = application(name);
    let (replicas, batch) = if tuned {
        let configs = tuned_configurations(a, 0.5, 0.8);
        let (r, b, _) = configs[rng.below(configs.len() as u64) as usize];
        (r, b)
    } else {
        realistic(a, j.job.gpu_milli.div_ceil(1000).max(1))
    };
    ElasticJob { name: String::new(), application: a, submit: tod as i64 * SECOND, replicas, batch_size: batch }
}

/// The trace's GPUs at the smallest batch size per GPU, within what the
/// application measured.
pub fn realistic(a: &Application, gpus: u32) -> (u32, u32) {
    let replicas = gpus.min(a.max_replicas()).max(1);
    (replicas, (a.init_batch_size * replicas).min(a.max_batch_size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracelab_sim::Job;

    fn job(id: &str, submit_ms: i64, duration_s: i64, gpus: u32) -> TraceJob {
        TraceJob {
            job_id: id.into(),
            job: Job::new(0, submit_ms, duration_s * SECOND, gpus * 1000),
            usage: Default::default(),
        }
    }

    /// Philly rows as the loader hands them over, every one read.
    fn philly(jobs: Vec<TraceJob>) -> Loaded {
        let rows = jobs.len() as u64;
        Loaded {
            source: "philly".into(),
            unit: String::new(),
            rows,
            jobs,
            names: Default::default(),
            left_out: LeftOut::default(),
        }
    }

    #[test]
    fn keeps_hours_of_every_day_and_places_jobs_at_their_time_of_day() {
        // Philly's local time is America/Los_Angeles (UTC-7 in October
        // 2017). 2017-10-03T09:30:00Z is 02:30 local: shifted back 2 h it is
        // 00:30, kept at 1,800 s. 2017-10-04T16:00:00Z is 09:00 local,
        // shifted 07:00: kept at 25,200 s. 2017-10-04T17:00:00Z is 10:00
        // local, shifted 08:00: outside [0, 8). A 30 s job and a
        // 2,000 GPU-hour job are filtered first.
        let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().timestamp_millis();
        let jobs = vec![
            job("a", at("2017-10-03T09:30:00Z"), 600, 1),
            job("b", at("2017-10-04T16:00:00Z"), 7200, 8),
            job("c", at("2017-10-04T17:00:00Z"), 600, 1),
            job("d", at("2017-10-03T09:30:00Z"), 30, 1),
            job("e", at("2017-10-03T09:30:00Z"), 1000 * 3600, 2),
        ];
        let g = generate(philly(jobs), Trace::Philly, &Recipe { jobs: 10, ..Recipe::default() }).unwrap();
        let times: Vec<i64> = g.jobs.iter().map(|j| j.submit / SECOND).collect();
        assert_eq!(times, vec![1800, 25200]);
        assert_eq!(g.trace_ids, vec!["a", "b"]);
        // a: 600 s on 1 GPU = 0.17 GPU-h (small); b: 2 h x 8 = 16 GPU-h (large).
        assert_eq!(g.classes, vec![0, 2]);
        assert_eq!(g.jobs[1].application.name, "yolov3");
        assert!(["cifar10", "ncf"].contains(&g.jobs[0].application.name));
        assert_eq!(g.jobs[1].name, "yolov3-1");
        for (reason, n) in [
            (LeftReason::OutsideHours, 1),
            (LeftReason::ShorterThanMinute, 1),
            (LeftReason::ThousandGpuHours, 1),
            (LeftReason::NotSampled, 0),
        ] {
            assert_eq!(g.left_out.count(&reason), n, "{reason}");
        }
        assert_eq!(g.rows, g.jobs.len() as u64 + g.left_out.total());
    }

    #[test]
    fn selects_and_places_philly_rows_as_the_generator_row_by_row() {
        // Philly rows at each edge of the generator's filters, worked by
        // hand from their local (America/Los_Angeles) submission times; the
        // artifact's generator, run on the same ten rows during development
        // (as its philly.csv: naive local time, duration, GPUs, GPU time),
        // kept the same five at the same times with the same classes.
        let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().timestamp_millis();
        let jobs = vec![
            // 02:30 PDT, 60 s: kept (at least 60 s), shifted 00:30 = 1,800 s; 0.02 GPU-h: small.
            job("sixty", at("2017-10-03T09:30:00Z"), 60, 1),
            // 59 s: shorter than a minute.
            job("fifty-nine", at("2017-10-03T09:30:00Z"), 59, 1),
            // 03:00 PDT, 64 GPUs x 56,249 s = 999.98 GPU-h: kept at 3,600 s, extra large.
            job("under-1000", at("2017-10-03T10:00:00Z"), 56_249, 64),
            // 64 x 56,250 s = 1,000 GPU-h exactly: left out.
            job("at-1000", at("2017-10-03T10:00:00Z"), 56_250, 64),
            // 09:59:59 PDT, shifted 07:59:59: the last second kept, 28,799 s.
            job("last-second", at("2017-10-04T16:59:59Z"), 600, 1),
            // 10:00:00 PDT, shifted 08:00:00: outside [0, 8).
            job("eight", at("2017-10-04T17:00:00Z"), 600, 1),
            // 02:40 PST on the fall-back day (10:40Z): 2 h back on the wall
            // clock is 00:40 = 2,400 s (2 h of elapsed time would be 01:40
            // PDT); 2 GPUs x 2 h = 4 GPU-h: medium.
            job("after-fall-back", at("2017-11-05T10:40:00Z"), 7200, 2),
            // 01:30 PDT, the first of the repeated hour: shifted 23:30 the day before, outside.
            job("repeated-hour", at("2017-11-05T08:30:00Z"), 600, 1),
            // 01:00 PDT: shifted 23:00 the day before, outside.
            job("before-midnight", at("2017-10-06T08:00:00Z"), 600, 1),
            // 03:30 PDT just after the spring-forward (10:30Z): wall clock
            // 01:30 = 5,400 s (elapsed time would give 00:30); 4 x 10 h = 40 GPU-h: large.
            job("after-spring-forward", at("2018-03-11T10:30:00Z"), 36_000, 4),
        ];
        let g = generate(philly(jobs), Trace::Philly, &Recipe { jobs: 160, ..Recipe::default() }).unwrap();
        let got: Vec<(&str, i64, usize)> = g
            .jobs
            .iter()
            .zip(&g.trace_ids)
            .zip(&g.classes)
            .map(|((j, id), &c)| (id.as_str(), j.submit / SECOND, c))
            .collect();
        assert_eq!(
            got,
            vec![
                ("sixty", 1800, 0),
                ("after-fall-back", 2400, 1),
                ("under-1000", 3600, 3),
                ("after-spring-forward", 5400, 2),
                ("last-second", 28_799, 0),
            ]
        );
        let apps: Vec<&str> = g.jobs.iter().map(|j| j.application.name).collect();
        assert!(["cifar10", "ncf"].contains(&apps[0]) && ["cifar10", "ncf"].contains(&apps[4]));
        assert!(["deepspeech2", "bert"].contains(&apps[1]));
        assert_eq!((apps[2], apps[3]), ("imagenet", "yolov3"));
        for (i, j) in g.jobs.iter().enumerate() {
            assert_eq!(j.name, format!("{}-{i}", j.application.name));
        }
        for (reason, n) in [
            (LeftReason::ShorterThanMinute, 1),
            (LeftReason::ThousandGpuHours, 1),
            (LeftReason::OutsideHours, 3),
            (LeftReason::NotSampled, 0),
        ] {
            assert_eq!(g.left_out.count(&reason), n, "{reason}");
        }
        assert_eq!(g.eligible, 5);
    }

    #[test]
    fn realistic_keeps_the_gpus_within_what_was_measured() {
        // cifar10: smallest batch 128, largest 4096, 32 examples per GPU at
        // least: 8 GPUs -> 1,024; 64 GPUs -> 4,096 (capped), 64 x 32 = 2,048 <= 4,096.
        let c = application("cifar10");
        assert_eq!(realistic(c, 8), (8, 1024));
        assert_eq!(realistic(c, 64), (64, 4096));
        // bert: 12 .. 384, at least 4 per GPU: 200 GPUs -> 96 GPUs, batch 384.
        assert_eq!(realistic(application("bert"), 200), (96, 384));
    }
}
