//! Hand-worked tests of the Philly job-table analyses (P1-P3) on one tiny
//! store (`philly.runtime-by-size`, `philly.queueing-by-vc`,
//! `philly.locality`), and of the notebook's GPU buckets.

use polars::df;

use super::bucket_of;
use crate::output::{Body, Output};
use crate::philly::locality::Locality;
use crate::philly::queueing_by_vc::QueueingByVc;
use crate::philly::runtime_by_size::RuntimeBySize;
use crate::testkit;
use tracelab_schema::philly::{ATTEMPTS, JOBS};
use tracelab_stats::Dist;

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
    // P1: a 600 s = 10 min (1 GPU), b 1200 s = 20 min (8 GPUs); c has no runtime, d no GPUs.
    let p1 = testkit::run(&RuntimeBySize, &tiny, &[]);
    assert_eq!(dist(&p1, "by-size", "1 GPU").values(), &[10.0]);
    assert_eq!(dist(&p1, "by-size", "5-8 GPU").values(), &[20.0]);
    assert!(dist(&p1, "by-size", ">8 GPU").is_empty());
    // P2 per attempt: a 1 min; b 2 min then 900 - 600 s = 5 min; c 0.5 min (vc v2).
    let p2 = testkit::run(&QueueingByVc, &tiny, &[]);
    assert_eq!(dist(&p2, "vc-v1", "5-8 GPU").values(), &[2.0, 5.0]);
    assert_eq!(dist(&p2, "all", ">8 GPU").values(), &[0.5]);
    // First attempt: b is 2 min only.
    let first = testkit::run(&QueueingByVc, &tiny, &[("definition", "first-attempt")]);
    assert_eq!(dist(&first, "vc-v1", "5-8 GPU").values(), &[2.0]);
    // P3: 5+ GPUs: b (2 min, 1 server), c (0.5 min, 2 servers).
    let p3 = testkit::run(&Locality, &tiny, &[]);
    let Body::Curves { series, .. } = &p3.part("scatter").unwrap().body else { unreachable!() };
    assert_eq!(series[0].1, vec![(2.0, 1.0)]);
    assert_eq!(series[1].1, vec![(0.5, 2.0)]);
}

#[test]
fn buckets_follow_the_notebook() {
    // get_bucket_from_num_gpus: 1 -> 0, 2..4 -> 1, 5..8 -> 2, >8 -> 3, else None.
    let got: Vec<Option<&str>> = [0, 1, 2, 4, 5, 8, 9, 64].iter().map(|&g| bucket_of(g)).collect();
    assert_eq!(
        got,
        vec![
            None,
            Some("1 GPU"),
            Some("2-4 GPU"),
            Some("2-4 GPU"),
            Some("5-8 GPU"),
            Some("5-8 GPU"),
            Some(">8 GPU"),
            Some(">8 GPU")
        ]
    );
}

/// Two jobs around the 2017-11-05 fall-back in Los Angeles (01:00-01:59
/// happens twice: PDT = UTC-7, then PST = UTC-8), stored as ingest stores
/// them (naive wall-clock times read as Pacific, the earlier instant in the
/// repeated hour). Local wall-clock times, and their UTC instants:
///
/// - a, 8 GPUs on 1 server: submitted 00:30 PDT (07:30Z); one attempt
///   02:30 PST (10:30Z) to 03:00 PST (11:00Z).
/// - b, 1 GPU: submitted 00:00 PDT (07:00Z); attempt 0 from 00:30 PDT
///   (07:30Z) to 01:30 (ambiguous: PDT, 08:30Z); attempt 1 from 02:30 PST
///   (10:30Z) to 03:30 PST (11:30Z).
///
/// In minutes, UTC (true elapsed) against the wall clock (the notebook's
/// naive datetime arithmetic):
/// - a: queue 180 vs 120; runtime 30 both.
/// - b: queue 30 both; runtime 240 vs 180; per-attempt delays 30 and
///   10:30Z - 08:30Z = 120 vs 02:30 - 01:30 = 60.
fn fall_back() -> testkit::TinyStore {
    const T0730: i64 = 1_509_867_000;
    let (t0700, t0830, t1030, t1100, t1130) =
        (T0730 - 1800, T0730 + 3600, T0730 + 3 * 3600, T0730 + 12_600, T0730 + 14_400);
    let jobs = df!(
        "job_id" => ["a", "b"],
        "vc" => ["v", "v"],
        "status" => ["Pass", "Pass"],
        "submit_time" => [T0730, t0700],
        "attempts" => [1i64, 2],
        "first_start_time" => [t1030, T0730],
        "last_end_time" => [t1100, t1130],
        "gpus" => [8i64, 1],
        "queue_s" => [10_800.0, 1800.0],
        "run_s" => [1800.0, 14_400.0],
    )
    .unwrap();
    let attempts = df!(
        "job_id" => ["a", "b", "b"],
        "attempt" => [0i64, 0, 1],
        "start_time" => [t1030, T0730, t1030],
        "end_time" => [t1100, t0830, t1130],
        "machines" => [1i64, 1, 1],
    )
    .unwrap();
    testkit::store(vec![(&JOBS, jobs), (&ATTEMPTS, attempts)])
}

#[test]
fn durations_across_the_fall_back_in_utc_and_on_the_wall_clock() {
    let t = fall_back();
    for (clock, a_queue, b_run, b_second_delay) in [("utc", 180.0, 240.0, 120.0), ("wall", 120.0, 180.0, 60.0)] {
        let p = [("clock", clock)];
        let runtime = testkit::run(&RuntimeBySize, &t, &p);
        assert_eq!(dist(&runtime, "by-size", "1 GPU").values(), &[b_run], "{clock}");
        assert_eq!(dist(&runtime, "by-size", "5-8 GPU").values(), &[30.0], "{clock}");
        let per_attempt = testkit::run(&QueueingByVc, &t, &p);
        assert_eq!(dist(&per_attempt, "all", "1 GPU").values(), &[30.0, b_second_delay], "{clock}");
        assert_eq!(dist(&per_attempt, "all", "5-8 GPU").values(), &[a_queue], "{clock}");
        let first = testkit::run(&QueueingByVc, &t, &[("clock", clock), ("definition", "first-attempt")]);
        assert_eq!(dist(&first, "all", "5-8 GPU").values(), &[a_queue], "{clock}");
        assert_eq!(dist(&first, "all", "1 GPU").values(), &[30.0], "{clock}");
        let locality = testkit::run(&Locality, &t, &p);
        let Body::Curves { series, .. } = &locality.part("scatter").unwrap().body else { unreachable!() };
        assert_eq!(series[0].1, vec![(a_queue, 1.0)], "{clock}");
    }
}
