//! The `priority` policy (HP preempts Spot, GFS ASPLOS'26): schedules worked
//! out on paper, and invariants over random workloads with two classes and
//! GPU types: an HP job is never preempted, a Spot job is preempted only when
//! an HP job starts at that instant on the same GPU type, capacity holds per
//! node, and every job receives exactly its service.

mod common;

use common::{assert_times, config, job, run};
use tracelab_sim::rng::Rng;
use tracelab_sim::*;

fn hp(mut j: Job) -> Job {
    j.priority = 1;
    j
}

/// One node of 4 GPUs, no preemption overhead.
/// J0 Spot 4 GPUs at 0 for 100 s; J1 HP 2 GPUs at 10 for 50 s; J2 Spot 2 GPUs
/// at 20 for 30 s; J3 HP 4 GPUs at 30 for 20 s.
/// - t=10: J1 does not fit; evicting the Spot J0 frees the node, so J0 is
///   suspended (10 s done, 90 s left) and J1 runs 10-60.
/// - t=20 (greedy): J0 (4) does not fit beside J1; J2 (2) does: 20-50.
/// - t=30: J3 (4) cannot fit beside the running HP J1 (2) even if J2 left, so
///   J2 is not evicted for nothing.
/// - t=60: J1 ends; J3 runs 60-80. t=80: J0 resumes, 90 s left: ends 170.
#[test]
fn hp_preempts_spot_only_when_it_then_fits_greedy() {
    let jobs = vec![job(0, 0, 100, 4.0), hp(job(1, 10, 50, 2.0)), job(2, 20, 30, 2.0), hp(job(3, 30, 20, 4.0))];
    let r = run(&config(Policy::Priority, Discipline::Greedy, Placement::Pack), 1, 4, jobs);
    assert_times(&r, &[(0, 170), (10, 60), (20, 50), (60, 80)]);
    let preempted: Vec<u32> = r.jobs.iter().map(|j| j.preemptions).collect();
    assert_eq!(preempted, [1, 0, 0, 0]);
}

/// The same under strict: at 20 the head of the Spot class (J0, 4 GPUs) does
/// not fit and blocks J2; at 80 J0 resumes (ends 170) and J2 follows: 170-200.
#[test]
fn strict_blocks_behind_the_first_job_that_does_not_fit() {
    let jobs = vec![job(0, 0, 100, 4.0), hp(job(1, 10, 50, 2.0)), job(2, 20, 30, 2.0), hp(job(3, 30, 20, 4.0))];
    let r = run(&config(Policy::Priority, Discipline::Strict, Placement::Pack), 1, 4, jobs);
    assert_times(&r, &[(0, 170), (10, 60), (170, 200), (60, 80)]);
}

/// Two GPU types, one 2-GPU node each. Spot J0 (type 0) and Spot J1 (type 1)
/// run from 0 for 100 s; HP J2 (type 0, 2 GPUs) arrives at 10 for 10 s. Only
/// J0 holds GPUs of J2's type, so J0 is evicted (90 s left) and J1 keeps
/// running: J2 10-20, J0 resumes 20-110, J1 0-100.
#[test]
fn capacity_is_counted_per_gpu_type() {
    let typed = |j: Job, t: u16| Job { gpu_type: Some(t), ..j };
    let jobs = vec![typed(job(0, 0, 100, 2.0), 0), typed(job(1, 0, 100, 2.0), 1), typed(hp(job(2, 10, 10, 2.0)), 0)];
    let g = |gpu_type| NodeGroup { count: 1, gpus: 2, cpu_milli: None, gpu_type };
    let cluster = Cluster::from_groups(&[g(0), g(1)]).unwrap();
    let cfg = config(Policy::Priority, Discipline::Greedy, Placement::Pack);
    let r = simulate(&Workload::from_jobs(jobs), &cluster, &cfg).unwrap();
    assert_times(&r, &[(0, 110), (0, 100), (10, 20)]);
    assert_eq!(r.jobs.iter().map(|j| j.preemptions).collect::<Vec<_>>(), [1, 0, 0]);
}

/// Two nodes of 4 GPUs. Spot A (4 GPUs) fills node 0 at 0; Spot B (2) goes
/// to node 1 at 0 and Spot C (2) beside it at 5; all run 100 s. HP D (2 GPUs,
/// 20 s) arrives at 10: node 0 would cost 4 evicted GPUs, node 1 only 2, and
/// there C started last: C is evicted (5 s done, 95 left), D runs 10-30 on
/// node 1, C resumes there at 30 and ends 125.
#[test]
fn the_fewest_gpus_and_the_latest_started_job_are_evicted() {
    let jobs = vec![job(0, 0, 100, 4.0), job(1, 0, 100, 2.0), job(2, 5, 100, 2.0), hp(job(3, 10, 20, 2.0))];
    let r = run(&config(Policy::Priority, Discipline::Greedy, Placement::Pack), 2, 4, jobs);
    assert_times(&r, &[(0, 100), (0, 100), (5, 125), (10, 30)]);
    assert_eq!(common::nodes_of(&r), [0, 1, 1, 1]);
}

/// Three nodes of 2 GPUs. Spot X on node 0 from 0 and Spot Y on node 1 from
/// 1, 100 s each. HP Z needs 4 GPUs (two whole nodes) at 10 for 10 s: the
/// free node 2 costs nothing, then node 0 and node 1 cost 2 each (lower id
/// first), so X is evicted (10 s done) and Z runs 10-20 on nodes 2 and 0; X
/// resumes at 20 and ends 110; Y runs 1-101.
#[test]
fn a_job_larger_than_a_node_takes_the_cheapest_whole_nodes() {
    let jobs = vec![job(0, 0, 100, 2.0), job(1, 1, 100, 2.0), hp(job(2, 10, 10, 4.0))];
    let cfg = SimConfig { record_segments: true, ..config(Policy::Priority, Discipline::Greedy, Placement::Pack) };
    let r = run(&cfg, 3, 2, jobs);
    assert_times(&r, &[(0, 110), (1, 101), (10, 20)]);
    let mut z: Vec<u32> = r.segments.iter().filter(|s| s.job == 2).map(|s| s.node).collect();
    z.sort_unstable();
    assert_eq!(z, [0, 2]);
}

/// Random HP/Spot workloads on typed clusters.
fn workload(rng: &mut Rng, types: u16) -> Workload {
    let n = 10 + rng.below(40) as u32;
    let jobs = (0..n)
        .map(|id| {
            let submit = rng.below(300) as i64 * 1000;
            let duration = 1000 + rng.below(90_000) as i64;
            let gpu_milli = [1000, 1000, 2000, 4000, 8000][rng.below(5) as usize];
            let gpu_type = Some(rng.below(types as u64) as u16);
            let priority = u8::from(rng.below(3) == 0);
            Job { gpu_type, priority, ..Job::new(id, submit, duration, gpu_milli) }
        })
        .collect();
    Workload::from_jobs(jobs)
}

#[test]
fn random_hp_spot_workloads_keep_the_priority_invariants() {
    let g = |count, gpus, gpu_type| NodeGroup { count, gpus, cpu_milli: None, gpu_type };
    let clusters = [
        Cluster::from_groups(&[g(2, 8, 0), g(4, 1, 1)]).unwrap(),
        Cluster::from_groups(&[g(1, 8, 0), g(2, 8, 1)]).unwrap(),
        Cluster::from_groups(&[g(3, 4, 0), g(3, 4, 1)]).unwrap(),
    ];
    let mut evictions = 0;
    for seed in 0..300u64 {
        let mut rng = Rng::new(seed);
        let cluster = &clusters[(seed % 3) as usize];
        let w = workload(&mut rng, 2);
        let discipline = if rng.below(2) == 0 { Discipline::Greedy } else { Discipline::Strict };
        let cfg = SimConfig {
            on_unplaceable: OnUnplaceable::Skip,
            preempt_overhead: PreemptOverhead::None,
            record_segments: true,
            ..SimConfig::new(Policy::Priority, discipline, Placement::Pack)
        };
        let r = simulate(&w, cluster, &cfg).unwrap();
        check(&r, &w, cluster, seed);
        evictions += r.jobs.iter().map(|j| j.preemptions).sum::<u32>();
    }
    assert!(evictions > 300, "the workloads exercise evictions ({evictions})");
}

fn check(r: &SimResult, w: &Workload, cluster: &Cluster, seed: u64) {
    for j in &r.jobs {
        let job = &w.jobs[j.id as usize];
        if matches!(j.status, JobStatus::Unplaceable(_)) {
            continue;
        }
        assert_eq!(j.status, JobStatus::Done, "seed {seed}: job {} not done", j.id);
        if job.priority == 1 {
            assert_eq!(j.preemptions, 0, "seed {seed}: HP job {} was preempted", j.id);
        }
        // Exactly its service: the segments of a job add up to its duration.
        let ran = segment_service(r, j.id);
        assert_eq!(ran, job.duration, "seed {seed}: job {} ran {ran} ms of {}", j.id, job.duration);
    }
    // A Spot job is evicted only when an HP job starts at that instant on a
    // node the evicted job held.
    for s in &r.segments {
        let job = &w.jobs[s.job as usize];
        if Some(s.end) == r.jobs[s.job as usize].end {
            continue;
        }
        assert_eq!(job.priority, 0, "seed {seed}: an HP job stopped before its end");
        let held: Vec<u32> = r.segments.iter().filter(|o| o.job == s.job && o.end == s.end).map(|o| o.node).collect();
        let hp_starts = r
            .segments
            .iter()
            .any(|o| o.start == s.end && w.jobs[o.job as usize].priority == 1 && held.contains(&o.node));
        assert!(hp_starts, "seed {seed}: Spot job {} evicted at {} with no HP job starting on its nodes", s.job, s.end);
    }
    capacity(r, cluster, seed);
}

/// Service of a job: the length of its distinct run intervals (a segment is
/// recorded per node, so a multi-node job's intervals repeat).
fn segment_service(r: &SimResult, job: u32) -> i64 {
    let mut spans: Vec<(i64, i64)> = r.segments.iter().filter(|s| s.job == job).map(|s| (s.start, s.end)).collect();
    spans.sort();
    spans.dedup();
    spans.iter().map(|(a, b)| b - a).sum()
}

fn capacity(r: &SimResult, cluster: &Cluster, seed: u64) {
    let mut events: Vec<(i64, u32, i64)> = Vec::new();
    for s in &r.segments {
        events.push((s.start, s.node, s.milli as i64));
        events.push((s.end, s.node, -(s.milli as i64)));
    }
    events.sort_by_key(|e| (e.0, e.2));
    let mut used = vec![0i64; cluster.nodes().len()];
    for (t, node, d) in events {
        used[node as usize] += d;
        let cap = cluster.nodes()[node as usize].gpus as i64 * 1000;
        assert!(used[node as usize] <= cap, "seed {seed}: node {node} over capacity at {t}");
    }
}
