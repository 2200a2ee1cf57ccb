//! Hand-worked tests of the spot-GPU analyses on a tiny store; every
//! expected value is derived in the comment beside it.

use polars::prelude::*;

use super::class_mix::ClassMix;
use super::demand_capacity::DemandCapacity;
use super::durations_sizes::DurationsSizes;
use crate::output::{Body, Output, ResultTable};
use crate::testkit::{self, store, TinyStore};
use tracelab_schema::spot;

/// Two A10 nodes (1 GPU each) and one H800 node (8 GPUs). Jobs (s since the
/// first submission, GPUs = workers x gpu_request):
/// p HP A10 at 0 for 7200 s, 1 worker x 1 GPU;
/// q Spot A10 at 1800 for 3600 s, 2 workers x 1 GPU;
/// r HP H800 at 0 for 3600 s, 4 workers x 2 GPUs;
/// s Spot H800 at 7199 for 10 s, 1 worker x 8 GPUs (the last submission).
fn tiny() -> TinyStore {
    let jobs = df!(
        "job_name" => ["p", "q", "r", "s"],
        "organization" => ["1", "2", "1", "3"],
        "gpu_model" => ["A10", "A10", "H800", "H800"],
        "job_type" => ["HP", "Spot", "HP", "Spot"],
        "submit_s" => [0.0, 1800.0, 0.0, 7199.0],
        "duration_s" => [7200.0, 3600.0, 3600.0, 10.0],
        "workers" => [1i64, 2, 4, 1],
        "gpu_request" => [1.0, 1.0, 2.0, 8.0],
        "gpus" => [1.0, 2.0, 8.0, 8.0],
        "submit_time" => [0i64, 1800, 0, 7199]
    )
    .unwrap();
    let nodes =
        df!("node_name" => ["0", "1", "2"], "gpu_model" => ["A10", "A10", "H800"], "gpus" => [1i64, 1, 8]).unwrap();
    store(vec![(&spot::JOBS, jobs), (&spot::NODES, nodes)])
}

fn table<'a>(out: &'a Output, part: &str) -> &'a ResultTable {
    match &out.part(part).unwrap().body {
        Body::Table(t) => t,
        _ => panic!("{part} is not a table"),
    }
}

fn headline(out: &Output, key: &str) -> f64 {
    out.all_headlines().find(|h| h.key == key).unwrap_or_else(|| panic!("no headline {key}")).value
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn demand_over_capacity_per_model_and_bin() {
    // Bins of an hour over [0, 7199): two bins. A10 (2 GPUs): bin 0 holds p
    // (1 GPU x 3600 s) and q from 1800 (2 x 1800) = 7200 GPU-s = 2 GPUs,
    // 100 %; bin 1: p 3600 + q 2 x 1800 = 7200 = 100 %. Mean 100 %.
    // H800 (8 GPUs): bin 0 r 8 x 3600 = 100 %; bin 1 s 8 x 1 s (cut at the
    // series' end, 7200) = 8 / 3600 GPUs = 1/36 %. Mean (100 + 1/36) / 2.
    let out = testkit::run(&DemandCapacity, &tiny(), &[]);
    assert!(close(headline(&out, "A10.mean_pct"), 100.0));
    assert!(close(headline(&out, "H800.mean_pct"), (100.0 + 100.0 / 3600.0) / 2.0));
    // HP share of the A10 GPU-seconds: p 7200 of p 7200 + q 7200.
    let t = table(&out, "by-model");
    let a10 = t.rows.iter().find(|r| r[0] == "A10".into()).unwrap();
    assert!(close(a10[8].as_f64().unwrap(), 50.0));
    // The owners' simulator's count: r holds gpu_request = 2 GPUs: bin 0 is 25 %.
    let one = testkit::run(&DemandCapacity, &tiny(), &[("workers", "hp-one-worker")]);
    assert!(close(headline(&one, "H800.mean_pct"), (25.0 + 100.0 / 3600.0) / 2.0));
    // #260's 133 % rides with the default parameters only.
    let h = out.all_headlines().find(|h| h.key == "A10.mean_pct").unwrap();
    assert_eq!(h.published, Some(133.0));
    assert_eq!(one.all_headlines().find(|h| h.key == "A10.mean_pct").unwrap().published, None);
}

#[test]
fn class_mix_counts_jobs_and_gpu_hours() {
    // HP: p 1 x 2 h + r 8 x 1 h = 10 GPU-h; Spot: q 2 x 1 h + s 8 x 10/3600 h.
    let out = testkit::run(&ClassMix, &tiny(), &[]);
    let spot_h = 2.0 + 80.0 / 3600.0;
    assert!(close(headline(&out, "HP.gpu_hours_pct"), 1000.0 / (10.0 + spot_h)));
    assert!(close(headline(&out, "Spot.jobs_pct"), 50.0));
}

#[test]
fn durations_in_hours_and_days_per_class() {
    // HP durations 3600 and 7200: median 5400 s = 1.5 h.
    let out = testkit::run(&DurationsSizes, &tiny(), &[]);
    assert!(close(headline(&out, "HP.duration_p50"), 1.5));
    // All four: 10, 3600, 3600, 7200; P90 (linear) = 3600 + 0.7 x 3600 = 6120 s = 1.7 h.
    assert!(close(headline(&out, "all.duration_p90"), 1.7));
}
