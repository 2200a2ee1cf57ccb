//! Hand-worked tests of the AcmeTrace analyses on a tiny store; every
//! expected value is derived in the comment beside it.

use polars::prelude::*;

use super::cluster_summary::ClusterSummary;
use super::duration_queue::DurationQueue;
use super::final_status::FinalStatus;
use super::gpu_demand::{box_of, GpuDemand};
use super::type_mix::TypeMix;
use super::vs_prior::VsPrior;
use crate::output::{Body, Cell, Output, ResultTable};
use crate::testkit::{self, store, TinyStore};
use tracelab_schema::acme;
use tracelab_stats::Dist;

/// Seren: a 8 GPUs Pretrain COMPLETED run 100 queue 10; b 1 GPU Eval FAILED
/// run 10 queue 50; c 1 GPU Evaluation CANCELLED run 30 queue 2; d a CPU
/// job (Other, COMPLETED, run 5, queue 1); e 2 GPUs Debug TIMEOUT run 20
/// queue 0. Kalos: f 64 GPUs Pretrain NODE_FAIL run 50 queue 5; g 1 GPU
/// Eval COMPLETED run 4 queue 8. gpu_time = gpus x run.
fn tiny() -> TinyStore {
    let jobs = df!(
        "cluster" => ["Seren", "Seren", "Seren", "Seren", "Seren", "Kalos", "Kalos"],
        "job_id" => ["a", "b", "c", "d", "e", "f", "g"],
        "gpus" => [8i64, 1, 1, 0, 2, 64, 1],
        "job_type" => ["Pretrain", "Eval", "Evaluation", "Other", "Debug", "Pretrain", "Eval"],
        "state" => ["COMPLETED", "FAILED", "CANCELLED", "COMPLETED", "TIMEOUT", "NODE_FAIL", "COMPLETED"],
        "run_s" => [100.0, 10.0, 30.0, 5.0, 20.0, 50.0, 4.0],
        "queue_s" => [10.0, 50.0, 2.0, 1.0, 0.0, 5.0, 8.0],
        "gpu_time_s" => [800.0, 10.0, 30.0, 0.0, 40.0, 3200.0, 4.0],
        "submit_time" => [0i64; 7]
    )
    .unwrap();
    store(vec![(&acme::JOBS, jobs)])
}

fn table<'a>(out: &'a Output, part: &str) -> &'a ResultTable {
    match &out.part(part).unwrap().body {
        Body::Table(t) => t,
        _ => panic!("{part} is not a table"),
    }
}

fn curve<'a>(out: &'a Output, part: &str, label: &str) -> &'a [(f64, f64)] {
    match &out.part(part).unwrap().body {
        Body::Curves { series, .. } => &series.iter().find(|s| s.0 == label).unwrap().1,
        _ => panic!("{part} is not curves"),
    }
}

fn headline(out: &Output, key: &str) -> f64 {
    out.all_headlines().find(|h| h.key == key).unwrap_or_else(|| panic!("no headline {key}")).value
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn type_mix_counts_jobs_and_gpu_time_per_type() {
    let out = testkit::run(&TypeMix, &tiny(), &[]);
    // Seren GPU jobs a, b, c, e: Eval 2 of 4 (b, and c spelt Evaluation) = 50 %,
    // their GPU time 10 + 30 = 40 of 880 = 4.545 %; Pretrain 800 / 880.
    assert!(close(headline(&out, "Seren.Eval.jobs_pct"), 50.0));
    assert!(close(headline(&out, "Seren.Eval.gpu_time_pct"), 400.0 / 88.0));
    assert!(close(headline(&out, "Seren.Pretrain.gpu_time_pct"), 8000.0 / 88.0));
    assert!(close(headline(&out, "Kalos.Pretrain.jobs_pct"), 50.0));
    let t = table(&out, "mix");
    let types: Vec<&Cell> = t.column("type").unwrap();
    // Seren rows in the notebook's order: Eval, Pretrain, Debug; then Kalos: Eval, Pretrain.
    assert_eq!(types, ["Eval", "Pretrain", "Debug", "Eval", "Pretrain"].map(Cell::from).iter().collect::<Vec<_>>());
}

#[test]
fn final_status_groups_timeout_and_node_fail_as_failed() {
    let out = testkit::run(&FinalStatus, &tiny(), &[]);
    // Seren GPU jobs: completed a, cancelled c, failed b + e (TIMEOUT): 25 / 25 / 50 %.
    assert!(close(headline(&out, "Seren.count.completed"), 25.0));
    assert!(close(headline(&out, "Seren.count.failed"), 50.0));
    // GPU time: failed 10 + 40 = 50 of 880.
    assert!(close(headline(&out, "Seren.gpu_time.failed"), 500.0 / 88.0));
    // Kalos: f NODE_FAIL is failed: 3200 of 3204 GPU-seconds.
    assert!(close(headline(&out, "Kalos.gpu_time.failed"), 320_000.0 / 3204.0));
    // The published rates ride along: Seren complete_rate_gpu 0.497.
    let h = out.all_headlines().find(|h| h.key == "Seren.count.completed").unwrap();
    assert!(close(h.published.unwrap(), 49.7));
    // by-size: Seren's 1-GPU jobs b, c: cancelled 50 %, failed 50 %.
    let t = table(&out, "by-size");
    let row = t.rows.iter().find(|r| r[0] == Cell::from("Seren") && r[1] == Cell::from("1")).unwrap();
    assert_eq!((row[2].clone(), row[4].as_f64(), row[5].as_f64()), (Cell::Int(2), Some(50.0), Some(50.0)));
}

#[test]
fn cluster_summary_computes_the_published_columns() {
    let out = testkit::run(&ClusterSummary, &tiny(), &[]);
    // Seren: 5 jobs, 1 CPU, 4 GPU; GPU runs 100, 10, 30, 20: mean 40,
    // median 25; queues 10, 50, 2, 0: mean 15.5; GPUs 8, 1, 1, 2: mean 3,
    // median 1.5; failed GPU time 10 + 20 x 2 = 50; its share 50 / 880.
    for (key, want) in [
        ("Seren.job_num", 5.0),
        ("Seren.cpu_job_num", 1.0),
        ("Seren.avg_run_time_gpu", 40.0),
        ("Seren.med_run_time_gpu", 25.0),
        ("Seren.avg_que_time_gpu", 15.5),
        ("Seren.avg_gpu_num", 3.0),
        ("Seren.med_gpu_num", 1.5),
        ("Seren.max_gpu", 8.0),
        ("Seren.fail_gpu_time", 50.0),
        ("Seren.fail_rate_gpu_time", 50.0 / 880.0),
        ("Seren.complete_rate_cpu", 1.0),
        ("Kalos.fail_rate_gpu", 0.5),
    ] {
        assert!(close(headline(&out, key), want), "{key}: {}", headline(&out, key));
    }
    let h = out.all_headlines().find(|h| h.key == "Seren.job_num").unwrap();
    assert_eq!(h.published, Some(1_031_550.0));
}

#[test]
fn duration_and_queue_cdfs_on_the_notebook_grids() {
    let out = testkit::run(&DurationQueue, &tiny(), &[]);
    // Seren Eval durations 10 and 30: at t = 16 half, at 32 all.
    let d = curve(&out, "duration", "Seren Eval");
    assert_eq!((d[4], d[5]), ((16.0, 50.0), (32.0, 100.0)));
    assert_eq!(d.len(), 22);
    // Seren Eval queues 50 and 2: at t = 2 half, at 64 all; 16 points.
    let q = curve(&out, "queue", "Seren Eval");
    assert_eq!((q[1], q[6], q.len()), ((2.0, 50.0), (64.0, 100.0), 16));
    assert!(close(headline(&out, "Seren.Eval.queue_mean"), 26.0));
}

#[test]
fn gpu_demand_boxes_follow_seaborn() {
    // 1..=9 and 40: Q1 3.25, median 5.5, Q3 7.75, IQR 4.5, upper fence 14.5:
    // the upper whisker is 9 (40 is an outlier), the lower 1.
    let d = Dist::from_samples(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 40.0]);
    assert_eq!(box_of(&d), (1.0, 3.25, 5.5, 7.75, 9.0));
    let out = testkit::run(&GpuDemand, &tiny(), &[("jobs", "gpu")]);
    assert!(close(headline(&out, "Seren.Eval.mean"), 1.0));
    // With jobs=all, Seren Other is the CPU job d: a box at 0.
    let all = testkit::run(&GpuDemand, &tiny(), &[]);
    assert!(close(headline(&all, "Seren.Other.median"), 0.0));
}

#[test]
fn vs_prior_reads_acme_alone_when_the_store_has_nothing_else() {
    let out = testkit::run(&VsPrior, &tiny(), &[]);
    // Seren GPU jobs have 8, 1, 1, 2 GPUs: at x = 1 half, at 2 three quarters.
    let g = curve(&out, "gpus", "Seren");
    assert_eq!((g[0], g[1]), ((1.0, 50.0), (2.0, 75.0)));
    // GPU time of jobs with at most 2 GPUs: 10 + 30 + 40 = 80 of 880.
    let t = curve(&out, "gpu-time", "Seren");
    assert!(close(t[1].1, 8000.0 / 880.0));
    let Body::Curves { series, .. } = &out.part("duration").unwrap().body else { unreachable!() };
    assert_eq!(series.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(), ["Seren", "Kalos"]);
}
