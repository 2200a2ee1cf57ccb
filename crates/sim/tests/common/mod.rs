//! Helpers of the hand-worked schedule tests: jobs in seconds, one call per
//! run, and an assertion over every job's start and end.
// Helpers unwrap as the tests that call them do: a panic fails the test.
#![allow(dead_code, clippy::unwrap_used)]

use tracelab_sim::{
    simulate, Cluster, Discipline, Job, Placement, Policy, PreemptOverhead, SimConfig, SimResult, Workload,
};

/// A job of user 0 / vc 0 / group 0, times in seconds, `gpus` may be fractional.
pub fn job(id: u32, submit_s: i64, dur_s: i64, gpus: f64) -> Job {
    Job::new(id, submit_s * 1000, dur_s * 1000, (gpus * 1000.0).round() as u32)
}

/// The same with a user (also used as VC and group).
pub fn ujob(id: u32, user: u32, submit_s: i64, dur_s: i64, gpus: f64) -> Job {
    Job { user, vc: user, group: user, ..job(id, submit_s, dur_s, gpus) }
}

pub fn config(policy: Policy, discipline: Discipline, placement: Placement) -> SimConfig {
    SimConfig { preempt_overhead: PreemptOverhead::None, ..SimConfig::new(policy, discipline, placement) }
}

pub fn run(cfg: &SimConfig, nodes: u32, gpus: u32, jobs: Vec<Job>) -> SimResult {
    let cluster = Cluster::homogeneous(nodes, gpus).unwrap();
    simulate(&Workload::from_jobs(jobs), &cluster, cfg).unwrap()
}

/// Asserts (first start, end) of every job, in seconds.
pub fn assert_times(r: &SimResult, expected: &[(i64, i64)]) {
    assert_eq!(r.jobs.len(), expected.len());
    let got: Vec<(i64, i64)> = r.jobs.iter().map(|j| (j.first_start.unwrap() / 1000, j.end.unwrap() / 1000)).collect();
    assert_eq!(got, expected, "(start, end) in seconds per job");
    for j in &r.jobs {
        assert_eq!(j.first_start.unwrap() % 1000, 0, "job {} starts on a whole second", j.id);
        assert_eq!(j.end.unwrap() % 1000, 0, "job {} ends on a whole second", j.id);
    }
}

/// First node of every job.
pub fn nodes_of(r: &SimResult) -> Vec<u32> {
    r.jobs.iter().map(|j| j.first_node.unwrap()).collect()
}
