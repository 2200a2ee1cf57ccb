//! FIFO under the three queue disciplines and SJF, on schedules worked out
//! by hand (times in seconds; the table above each test is the derivation).

mod common;
use common::*;
use tracelab_sim::{Discipline, Placement, Policy};

/// One node of 4 GPUs.
/// J0 t0 10s 2g | J1 t1 5s 4g | J2 t2 5s 1g | J3 t3 20s 1g
fn contended() -> Vec<tracelab_sim::Job> {
    vec![job(0, 0, 10, 2.0), job(1, 1, 5, 4.0), job(2, 2, 5, 1.0), job(3, 3, 20, 1.0)]
}

/// strict: J0 0-10. J1 blocks the head (2 free) and so J2, J3 behind it.
/// t10 J0 ends: J1 10-15 (4 free), J2 blocked (0 free). t15: J2 15-20, J3 15-35.
#[test]
fn fifo_strict_blocks_behind_the_head() {
    let r = run(&config(Policy::Fifo, Discipline::Strict, Placement::Pack), 1, 4, contended());
    assert_times(&r, &[(0, 10), (10, 15), (15, 20), (15, 35)]);
}

/// greedy: J0 0-10; J1 does not fit; J2 2-7 and J3 3-23 start at once (free 2, then 1).
/// J1 needs 4: at 7 free 2, at 10 free 3, at 23 free 4: J1 23-28.
#[test]
fn fifo_greedy_starts_everything_that_fits() {
    let r = run(&config(Policy::Fifo, Discipline::Greedy, Placement::Pack), 1, 4, contended());
    assert_times(&r, &[(0, 10), (23, 28), (2, 7), (3, 23)]);
}

/// easy: J1 is reserved at t10 (J0 ends) on node 0. J2: 2+5 = 7 <= 10, backfilled 2-7.
/// J3: 3+20 > 10 and node 0 is reserved, so it waits. t10: J1 10-15; t15: J3 15-35.
#[test]
fn easy_backfills_only_jobs_that_do_not_delay_the_head() {
    let r = run(&config(Policy::Fifo, Discipline::Easy, Placement::Pack), 1, 4, contended());
    assert_times(&r, &[(0, 10), (10, 15), (2, 7), (15, 35)]);
}

/// Two nodes of 4 GPUs, pack, strict.
/// J0 t0 10s 4g -> node 0 | J1 t0 20s 2g -> node 1 | J2 t1 5s 8g (two whole nodes)
/// J3 t2 4s 2g | J4 t3 6s 1g
/// J2 needs both nodes entirely: blocked until J0 (t10) and J1 (t20) end: J2 20-25.
/// Strict keeps J3, J4 behind J2: J3 25-29 (node 0), J4 25-31 (node 0, fullest).
#[test]
fn fifo_strict_multi_node_job_takes_whole_nodes() {
    let jobs = vec![job(0, 0, 10, 4.0), job(1, 0, 20, 2.0), job(2, 1, 5, 8.0), job(3, 2, 4, 2.0), job(4, 3, 6, 1.0)];
    let r = run(&config(Policy::Fifo, Discipline::Strict, Placement::Pack), 2, 4, jobs);
    assert_times(&r, &[(0, 10), (0, 20), (20, 25), (25, 29), (25, 31)]);
    assert_eq!((r.jobs[2].first_node, r.jobs[2].nodes), (Some(0), 2));
    assert_eq!(nodes_of(&r), vec![0, 1, 0, 0, 0]);
}

/// The same under greedy: J3 2-6 on node 1 (2 free), J4 6-12 on node 1 after J3;
/// t10 node 0 is free but J2 still needs node 1 too. t20 J1 ends, node 1 still
/// holds nothing else (J4 ended 12): J2 20-25.
#[test]
fn fifo_greedy_multi_node_job_waits_for_whole_nodes() {
    let jobs = vec![job(0, 0, 10, 4.0), job(1, 0, 20, 2.0), job(2, 1, 5, 8.0), job(3, 2, 4, 2.0), job(4, 3, 6, 1.0)];
    let r = run(&config(Policy::Fifo, Discipline::Greedy, Placement::Pack), 2, 4, jobs);
    assert_times(&r, &[(0, 10), (0, 20), (20, 25), (2, 6), (6, 12)]);
}

/// SJF greedy on one 4-GPU node.
/// J0 t0 10s 4g | J1 t1 8s 2g | J2 t2 3s 2g | J3 t3 5s 4g | J4 t4 3s 2g
/// t10 queue by duration: J2 (3s, t2), J4 (3s, t4: tie -> earlier submission), J3 (5s), J1 (8s).
/// J2 10-13, J4 10-13 (4 GPUs used); t13: J3 13-18; t18: J1 18-26.
#[test]
fn sjf_orders_by_oracle_duration_then_submission() {
    let jobs = vec![job(0, 0, 10, 4.0), job(1, 1, 8, 2.0), job(2, 2, 3, 2.0), job(3, 3, 5, 4.0), job(4, 4, 3, 2.0)];
    let r = run(&config(Policy::Sjf, Discipline::Greedy, Placement::Pack), 1, 4, jobs.clone());
    assert_times(&r, &[(0, 10), (18, 26), (10, 13), (13, 18), (10, 13)]);
    // FIFO on the same jobs for contrast: t10 J1 10-18 and J2 10-13; t13 J3 blocked
    // (2 free) but J4 13-16; t18 J3 18-23.
    let r = run(&config(Policy::Fifo, Discipline::Greedy, Placement::Pack), 1, 4, jobs);
    assert_times(&r, &[(0, 10), (10, 18), (10, 13), (18, 23), (13, 16)]);
}
