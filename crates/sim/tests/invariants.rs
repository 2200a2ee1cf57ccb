//! Property tests over hundreds of seeded random workloads and several
//! cluster shapes: capacity is never exceeded on any node or shared GPU; a
//! job that was never preempted runs exactly its duration (longer only while
//! a GPU is shared with slowdown); FIFO strict starts jobs in submission
//! order; greedy passes leave no waiting job that fits; every job is done or
//! reported; the same seed gives identical results.

// Helpers outside #[test] functions unwrap as the tests do.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;

use tracelab_sim::rng::Rng;
use tracelab_sim::*;

fn shapes() -> Vec<Cluster> {
    let g = |count, gpus, gpu_type| NodeGroup { count, gpus, cpu_milli: None, gpu_type };
    vec![
        Cluster::homogeneous(1, 4).unwrap(),
        Cluster::homogeneous(2, 4).unwrap(),
        Cluster::from_groups(&[g(3, 2, 0), g(1, 8, 1)]).unwrap(),
        Cluster::homogeneous(4, 8).unwrap(),
    ]
}

fn workload(rng: &mut Rng, max_gpus: u32) -> Workload {
    let n = 10 + rng.below(30) as u32;
    let sizes = [250, 500, 1000, 1000, 1000, 2000, 3000, 4000, 8000, 16000];
    let jobs = (0..n)
        .map(|id| {
            let gpu_milli = sizes[rng.below(sizes.len() as u64) as usize].min(max_gpus * 1000);
            let submit = rng.below(200) as i64 * 1000 + if rng.below(4) == 0 { rng.below(1000) as i64 } else { 0 };
            let duration = 1000 + rng.below(60_000) as i64;
            let (user, vc, group) = (rng.below(3) as u32, rng.below(2) as u32, rng.below(4) as u32);
            Job { user, vc, group, ..Job::new(id, submit, duration, gpu_milli) }
        })
        .collect();
    Workload { n_users: 3, n_vcs: 2, n_groups: 4, ..Workload::from_jobs(jobs) }
}

fn pick<T: Copy>(rng: &mut Rng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u64) as usize]
}

fn random_config(rng: &mut Rng) -> SimConfig {
    // The GPU-sharing policies have their own invariants (tests/sharing.rs).
    let classic: Vec<Policy> = Policy::ALL
        .iter()
        .copied()
        .filter(|p| !SimConfig::new(*p, Discipline::Greedy, Placement::Pack).sharing_policy())
        .collect();
    let policy = pick(rng, &classic);
    let preemptive = matches!(policy, Policy::Srtf | Policy::Las | Policy::Priority);
    let disciplines: &[Discipline] =
        if preemptive { &[Discipline::Strict, Discipline::Greedy] } else { Discipline::ALL };
    SimConfig {
        seed: rng.next_u64(),
        share_slowdown: pick(rng, &[1.0, 1.0, 2.5]),
        record_segments: true,
        las_thresholds_gpu_s: vec![20.0, 100.0],
        fair_by: pick(rng, ShareBy::ALL),
        predictor: pick(rng, Predictor::ALL),
        ..SimConfig::new(policy, pick(rng, disciplines), pick(rng, Placement::ALL))
    }
}

/// Sweeps +milli at start, -milli at end per key; the running sum never passes `cap(key)`.
fn assert_capacity(r: &SimResult, cluster: &Cluster) {
    let mut per_node: HashMap<(bool, u32), Vec<(Millis, i64)>> = HashMap::new();
    for s in &r.segments {
        let key = match s.shared_gpu {
            Some(g) => (true, g),
            None => (false, s.node),
        };
        let v = per_node.entry(key).or_default();
        v.push((s.start, s.milli as i64));
        v.push((s.end, -(s.milli as i64)));
    }
    for ((shared, id), mut deltas) in per_node {
        deltas.sort(); // ends (negative) before starts at the same instant
        let cap = if shared { 1000 } else { cluster.nodes()[id as usize].gpus as i64 * 1000 };
        let mut used = 0;
        for (t, d) in deltas {
            used += d;
            assert!(used <= cap || shared, "node {id} over capacity at {t}: {used} > {cap}");
            assert!(used <= cap, "shared GPU {id} over one GPU at {t}: {used}");
        }
    }
    // Whole GPUs plus GPUs hosting shared jobs never exceed a node's GPUs.
    assert_node_gpus(r, cluster);
}

fn assert_node_gpus(r: &SimResult, cluster: &Cluster) {
    let mut times: Vec<Millis> = r.segments.iter().map(|s| s.start).collect();
    times.sort();
    times.dedup();
    for t in times {
        let mut whole: HashMap<u32, u64> = HashMap::new();
        let mut shared: HashMap<u32, Vec<u32>> = HashMap::new();
        for s in r.segments.iter().filter(|s| s.start <= t && t < s.end) {
            match s.shared_gpu {
                Some(g) => shared.entry(s.node).or_default().push(g),
                None => *whole.entry(s.node).or_default() += s.milli / 1000,
            }
        }
        for (n, node) in cluster.nodes().iter().enumerate() {
            let mut gpus = shared.remove(&(n as u32)).unwrap_or_default();
            gpus.sort();
            gpus.dedup();
            let used = whole.get(&(n as u32)).copied().unwrap_or(0) + gpus.len() as u64;
            assert!(used <= node.gpus as u64, "node {n} uses {used} GPUs at {t}");
        }
    }
}

fn assert_durations(r: &SimResult, w: &Workload, slowdown: f64) {
    for j in &r.jobs {
        let (Some(start), Some(end)) = (j.first_start, j.end) else { continue };
        if j.preemptions > 0 {
            assert!(end - start >= j.duration, "job {} ran less than its duration", j.id);
            continue;
        }
        let ran = end - start;
        let shared = w.jobs[j.id as usize].gpu_milli < 1000;
        if !shared || slowdown == 1.0 {
            assert_eq!(ran, j.duration, "job {} ran {ran} ms, duration {}", j.id, j.duration);
        } else {
            let max = (j.duration as f64 * slowdown).ceil() as Millis + 2;
            assert!(ran >= j.duration && ran <= max, "shared job {} ran {ran}, duration {}", j.id, j.duration);
        }
    }
}

fn assert_accounted(r: &SimResult) {
    let s = &r.summary;
    assert_eq!(
        s.jobs_done + s.jobs_unplaceable + s.jobs_left_running + s.jobs_left_waiting + s.jobs_not_submitted,
        r.jobs.len()
    );
    for j in &r.jobs {
        match &j.status {
            JobStatus::Done => assert!(j.end.is_some() && j.jct == Some(j.end.unwrap() - j.submit)),
            JobStatus::Unplaceable(_) => assert!(j.first_start.is_none()),
            other => panic!("job {} ended the replay as {other:?}", j.id),
        }
        if let (Some(q), Some(jct)) = (j.queue_time, j.jct) {
            assert!(q <= jct && q >= 0);
        }
    }
}

#[test]
fn random_workloads_keep_every_invariant() {
    let shapes = shapes();
    for seed in 0..480u64 {
        let mut rng = Rng::new(seed);
        let cluster = &shapes[(seed % shapes.len() as u64) as usize];
        let max = cluster.nodes().iter().map(|n| n.gpus).sum::<u32>();
        let w = workload(&mut rng, max);
        let cfg = SimConfig { on_unplaceable: OnUnplaceable::Skip, ..random_config(&mut rng) };
        let r = simulate(&w, cluster, &cfg).unwrap();
        assert_capacity(&r, cluster);
        assert_durations(&r, &w, cfg.share_slowdown);
        assert_accounted(&r);
        let again = simulate(&w, cluster, &cfg).unwrap();
        assert_eq!(r, again, "seed {seed}: same inputs, different results ({:?})", cfg.policy);
    }
}

#[test]
fn fifo_strict_starts_in_submission_order() {
    for seed in 0..200u64 {
        let mut rng = Rng::new(1000 + seed);
        let cluster = &shapes()[(seed % 4) as usize];
        let w = workload(&mut rng, cluster.nodes().iter().map(|n| n.gpus).sum());
        let placement = pick(&mut rng, Placement::ALL);
        let cfg = SimConfig {
            on_unplaceable: OnUnplaceable::Skip,
            ..SimConfig::new(Policy::Fifo, Discipline::Strict, placement)
        };
        let r = simulate(&w, cluster, &cfg).unwrap();
        let mut started: Vec<(Millis, u32, Millis)> =
            r.jobs.iter().filter_map(|j| j.first_start.map(|s| (j.submit, j.id, s))).collect();
        started.sort();
        for pair in started.windows(2) {
            assert!(pair[0].2 <= pair[1].2, "seed {seed}: job {} started after job {}", pair[0].1, pair[1].1);
        }
    }
}

/// Whether a job of `milli` could start on the state at `t` (after the pass).
fn fits_at(r: &SimResult, cluster: &Cluster, t: Millis, milli: u32) -> bool {
    let mut whole = vec![0u64; cluster.nodes().len()];
    let mut shared: HashMap<u32, (u32, u64)> = HashMap::new();
    for s in r.segments.iter().filter(|s| s.start <= t && t < s.end) {
        match s.shared_gpu {
            Some(g) => shared.entry(g).or_insert((s.node, 0)).1 += s.milli,
            None => whole[s.node as usize] += s.milli / 1000,
        }
    }
    let free: Vec<u64> = cluster
        .nodes()
        .iter()
        .enumerate()
        .map(|(n, node)| {
            node.gpus as u64 - whole[n] - shared.values().filter(|(sn, _)| *sn as usize == n).count() as u64
        })
        .collect();
    let largest = cluster.nodes().iter().map(|n| n.gpus).max().unwrap();
    if milli < 1000 {
        return free.iter().any(|&f| f >= 1) || shared.values().any(|&(_, used)| used + milli as u64 <= 1000);
    }
    let g = milli.div_ceil(1000);
    if g <= largest {
        return free.iter().any(|&f| f >= g as u64);
    }
    let whole_free: u64 =
        cluster.nodes().iter().zip(&free).filter(|(n, f)| **f == n.gpus as u64).map(|(n, _)| n.gpus as u64).sum();
    whole_free >= g as u64
}

#[test]
fn greedy_passes_leave_no_fitting_job_waiting() {
    for seed in 0..200u64 {
        let mut rng = Rng::new(5000 + seed);
        let cluster = &shapes()[(seed % 4) as usize];
        let w = workload(&mut rng, cluster.nodes().iter().map(|n| n.gpus).sum());
        let policy = pick(&mut rng, &[Policy::Fifo, Policy::Sjf, Policy::SjfPredicted, Policy::Qssf, Policy::Fair]);
        let placement = pick(&mut rng, Placement::ALL);
        let cfg = SimConfig { record_segments: true, ..SimConfig::new(policy, Discipline::Greedy, placement) };
        let r = simulate(&w, cluster, &cfg).unwrap();
        for &t in &r.series.time {
            for j in r.jobs.iter().filter(|j| j.submit <= t && j.first_start.unwrap() > t) {
                let milli = w.jobs[j.id as usize].gpu_milli;
                assert!(!fits_at(&r, cluster, t, milli), "seed {seed} {policy}: job {} waits at {t} but fits", j.id);
            }
        }
    }
}
