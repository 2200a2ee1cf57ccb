//! Metric definitions on hand-computed values: numpy-linear percentiles,
//! Jain's index, bounded slowdown, utilisation, makespan and the resampler.

mod common;
use common::*;
use tracelab_sim::metrics::stats::{dist, jain, percentile};
use tracelab_sim::{Discipline, Placement, Policy};

#[test]
fn percentiles_interpolate_like_numpy() {
    // numpy.percentile([1, 2, 3, 4], [50, 90, 99]) = 2.5, 3.7, 3.97
    let x = [1.0, 2.0, 3.0, 4.0];
    assert_eq!(percentile(&x, 50.0), 2.5);
    assert!((percentile(&x, 90.0) - 3.7).abs() < 1e-12);
    assert!((percentile(&x, 99.0) - 3.97).abs() < 1e-12);
    assert_eq!(percentile(&[5.0], 90.0), 5.0);
    let d = dist(vec![4.0, 1.0, 3.0, 2.0]);
    assert_eq!((d.mean, d.p50), (2.5, 2.5));
}

#[test]
fn jain_index_of_equal_and_skewed_values() {
    assert_eq!(jain(&[2.0, 2.0, 2.0]), 1.0);
    // (1 + 3)^2 / (2 * (1 + 9)) = 16 / 20
    assert_eq!(jain(&[1.0, 3.0]), 0.8);
}

/// One 4-GPU node, fifo greedy: J0 t0 10s 4g, J1 t0 5s 2g (user 1), J2 t20 20s 2g.
/// J0 0-10, J1 10-15, J2 20-40. JCT 10, 15, 20; queue 0, 10, 0.
/// Slowdown 1, 3, 1; bounded (threshold 10 s): max(1, 10/10)=1, 15/10=1.5, 20/20=1.
/// Makespan 40 - 0. Allocated GPU-s: 40 + 10 + 40 = 90 over 4 GPUs x 40 s: 0.5625.
/// Jain over users: user 0 mean slowdown (1 + 1)/2 = 1, user 1: 3 -> 16/20 = 0.8.
#[test]
fn summary_follows_the_documented_definitions() {
    let jobs = vec![ujob(0, 0, 0, 10, 4.0), ujob(1, 1, 0, 5, 2.0), ujob(2, 0, 20, 20, 2.0)];
    let r = run(&config(Policy::Fifo, Discipline::Greedy, Placement::Pack), 1, 4, jobs);
    assert_times(&r, &[(0, 10), (10, 15), (20, 40)]);
    let s = &r.summary;
    assert_eq!(s.jct_ms.mean, 15_000.0);
    assert_eq!(s.queue_ms.mean, 10_000.0 / 3.0);
    assert_eq!(s.jct_ms.p50, 15_000.0);
    assert_eq!(s.mean_slowdown, 5.0 / 3.0);
    assert_eq!(s.mean_bounded_slowdown, 3.5 / 3.0);
    assert_eq!(s.makespan_ms, 40_000);
    assert_eq!(s.gpu_utilisation, 0.5625);
    assert_eq!(s.jain_user_slowdown, 0.8);
    assert_eq!((s.jobs_done, s.jobs_submitted), (3, 3));
}

/// The series of the run above: allocated GPUs 4 (0-10), 2 (10-15), 0 (15-20),
/// 2 (20-40). Means over 20-s bins: (4*10 + 2*5)/20 = 2.5, then 2.
#[test]
fn series_resample_to_time_weighted_means() {
    let jobs = vec![ujob(0, 0, 0, 10, 4.0), ujob(1, 1, 0, 5, 2.0), ujob(2, 0, 20, 20, 2.0)];
    let r = run(&config(Policy::Fifo, Discipline::Greedy, Placement::Pack), 1, 4, jobs);
    assert_eq!(r.series.time, vec![0, 10_000, 15_000, 20_000, 40_000]);
    assert_eq!(r.series.allocated_milli, vec![4000, 2000, 0, 2000, 0]);
    assert_eq!(r.series.queued, vec![1, 0, 0, 0, 0]);
    let bins = r.series.resample(20_000, 40_000);
    assert_eq!(bins.time, vec![0, 20_000]);
    assert_eq!(bins.allocated_gpus, vec![2.5, 2.0]);
}

/// `until` stops the replay and reports what is left. One 4-GPU node:
/// J0 t0 10s 4g runs 0-10; J1 t1 5s 4g waits; J2 t20 is never submitted.
/// Stopped at 5 s: J0 running, J1 waiting for 4 s, J2 not submitted.
#[test]
fn until_reports_unfinished_jobs() {
    let mut cfg = config(Policy::Fifo, Discipline::Greedy, Placement::Pack);
    cfg.until = Some(5_000);
    let r = run(&cfg, 1, 4, vec![job(0, 0, 10, 4.0), job(1, 1, 5, 4.0), job(2, 20, 1, 1.0)]);
    use tracelab_sim::JobStatus::*;
    let status: Vec<_> = r.jobs.iter().map(|j| j.status.clone()).collect();
    assert_eq!(status, vec![Running, Waiting, NotSubmitted]);
    assert_eq!(r.jobs[1].queue_time, Some(4_000));
    let s = &r.summary;
    assert_eq!(
        (s.jobs_submitted, s.jobs_done, s.jobs_left_running, s.jobs_left_waiting, s.jobs_not_submitted),
        (2, 0, 1, 1, 1)
    );
    // 4 GPUs allocated over the whole 5-s window.
    assert_eq!(s.gpu_utilisation, 1.0);
}
