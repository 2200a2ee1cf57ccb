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
