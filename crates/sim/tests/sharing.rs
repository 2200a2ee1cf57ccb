//! The GPU-sharing policies on tiny clusters, every schedule worked out on
//! paper in the comments (co-location, a memory refusal, a utilization
//! threshold, an online surge evicting offline work), with model
//! parameters chosen so every number is exact in binary; then invariants
//! over seeded random workloads: GPU memory never over capacity, at most
//! `max_tenants` jobs per GPU, MuxFlow's online slowdown never beyond its
//! bound, no job waiting while a GPU it could use is free (work
//! conservation), every job
//! accounted for, identical results for identical inputs.

// Helpers outside #[test] functions unwrap as the tests do.
#![allow(clippy::unwrap_used)]

mod common;
use common::*;
use std::collections::HashMap;
use tracelab_sim::rng::Rng;
use tracelab_sim::*;

/// A job of `gpus` GPUs with utilization `util` (%), memory `mem` GiB and class.
struct Spec {
    submit_s: i64,
    dur_s: i64,
    gpus: f64,
    util: f32,
    mem: f32,
    class: JobClass,
}

fn off(submit_s: i64, dur_s: i64, gpus: f64, util: f32, mem: f32) -> Spec {
    Spec { submit_s, dur_s, gpus, util, mem, class: JobClass::Offline }
}

fn online(dur_s: i64, util: f32) -> Spec {
    Spec { submit_s: 0, dur_s, gpus: 1.0, util, mem: 1.0, class: JobClass::Online }
}

fn workload(specs: &[Spec]) -> Workload {
    let jobs = specs.iter().enumerate().map(|(i, s)| job(i as u32, s.submit_s, s.dur_s, s.gpus)).collect();
    let usage =
        specs.iter().map(|s| Usage { gpu_util: Some(s.util), gpu_mem_gib: Some(s.mem), class: s.class }).collect();
    Workload { usage, ..Workload::from_jobs(jobs) }
}

/// Contention 0.5 (exact in binary), no preemption cost, 16 GiB GPUs.
fn cfg(policy: Policy) -> SimConfig {
    let mut c = config(policy, Discipline::Greedy, Placement::Pack);
    c.sharing.contention = 0.5;
    c.record_segments = true;
    c
}

fn run(c: &SimConfig, nodes: u32, gpus: u32, specs: &[Spec]) -> SimResult {
    simulate(&workload(specs), &Cluster::homogeneous(nodes, gpus).unwrap(), c).unwrap()
}

/// (start, end) in milliseconds per job.
fn times(r: &SimResult) -> Vec<(i64, i64)> {
    r.jobs.iter().map(|j| (j.first_start.unwrap(), j.end.unwrap())).collect()
}

/// One GPU, three 1-GPU jobs of 100 s at 50 %. Exclusive runs them one
/// after another: 0-100, 100-200, 200-300 s.
#[test]
fn exclusive_never_shares() {
    let specs = [off(0, 100, 1.0, 50.0, 1.0), off(0, 100, 1.0, 50.0, 1.0), off(0, 100, 0.5, 50.0, 1.0)];
    let r = run(&cfg(Policy::Exclusive), 1, 1, &specs);
    assert_eq!(times(&r), vec![(0, 100_000), (100_000, 200_000), (200_000, 300_000)]);
    let s = r.sharing.unwrap();
    assert_eq!((s.gpus_saved_mean, s.oversold_gpus_mean), (0.0, 0.0));
    // Busy 50 % of the one GPU for the whole 300 s.
    assert!((s.gpu_used_util - 0.5).abs() < 1e-12 && (s.gpu_allocated_util - 1.0).abs() < 1e-12);
}

/// Horus on one GPU, every prediction the default 50 % (nothing finished
/// yet), jobs really at 50 %: A takes the free GPU; B joins it (planned
/// 50 + 50 = 100 <= threshold 100); C would make 150: it waits. A and B
/// share concurrently: U = 1, slowdown 1 x (1 + 0.5 x 0.5) = 1.25, so
/// both end at 125 s; C then runs alone 125-225 s. Mean JCT 158.3 s
/// against exclusive's 200 s. Useful GPU busy: each of A and B does 0.5
/// of a GPU's work at rate 1 / 1.25, together 0.8, for 125 s; then C 0.5
/// for 100 s: (0.8 x 125 + 0.5 x 100) / 225 = 150 / 225.
#[test]
fn horus_colocates_within_its_threshold() {
    let mut c = cfg(Policy::Horus);
    c.sharing.default_util_pct = 50.0;
    let specs = [off(0, 100, 1.0, 50.0, 1.0), off(0, 100, 1.0, 50.0, 1.0), off(0, 100, 1.0, 50.0, 1.0)];
    let r = run(&c, 1, 1, &specs);
    assert_eq!(times(&r), vec![(0, 125_000), (0, 125_000), (125_000, 225_000)]);
    let s = r.sharing.unwrap();
    assert!((s.gpu_used_util - 150.0 / 225.0).abs() < 1e-12, "{}", s.gpu_used_util);
    // Two jobs on one GPU for 125 s: one GPU saved over 125 of 225 s.
    assert!((s.gpus_saved_mean - 125.0 / 225.0).abs() < 1e-12, "{}", s.gpus_saved_mean);
    assert_eq!(s.jobs[0].max_slowdown, Some(1.25));
}

/// Time sharing on one GPU: A (100 s at 40 %) alone at 0; B (50 s) joins
/// it at 0 and both take equal slices, slowdown 2: B's 50 s of work ends
/// at 100 s, when A has done 50 s; A alone does its last 50 s by 150 s.
#[test]
fn time_sharing_slices_equally() {
    let specs = [off(0, 100, 1.0, 40.0, 1.0), off(0, 50, 1.0, 100.0, 1.0)];
    let r = run(&cfg(Policy::TimeSharing), 1, 1, &specs);
    assert_eq!(times(&r), vec![(0, 150_000), (0, 100_000)]);
}

/// The same pair with 10 GiB each on a 16 GiB GPU: B does not fit beside
/// A (memory is a hard capacity) and waits: A 0-100, B 100-150 s.
#[test]
fn memory_refuses_a_job_that_does_not_fit() {
    let specs = [off(0, 100, 1.0, 40.0, 10.0), off(0, 50, 1.0, 100.0, 10.0)];
    for policy in [Policy::TimeSharing, Policy::Horus] {
        let r = run(&cfg(policy), 1, 1, &specs);
        assert_eq!(times(&r), vec![(0, 100_000), (100_000, 150_000)], "{policy}");
    }
}

/// Priority time sharing on one GPU: online O (1000 s, 25 %) first, alone;
/// offline F (100 s, 50 %) joins it and fills O's idle time 1 - 0.25 =
/// 0.75 >= 0.5 (no lack of time), with contention 1 + 0.5 x (0.75 - 0.5)
/// = 1.125: F ends at 112.5 s. O runs as if alone, 0-1000 s, slowdown 1.
#[test]
fn priority_time_sharing_keeps_the_online_service_whole() {
    let specs = [online(1000, 25.0), off(0, 100, 1.0, 50.0, 1.0)];
    let r = run(&cfg(Policy::PriorityTimeSharing), 1, 1, &specs);
    assert_eq!(times(&r), vec![(0, 1_000_000), (0, 112_500)]);
    let s = r.sharing.unwrap();
    let o = s.online.unwrap();
    assert_eq!((o.max_slowdown, o.violations), (1.0, 0));
    // 1 GPU saved for 112.5 of 1000 s; one GPU oversold as long.
    assert!((s.gpus_saved_mean - 0.1125).abs() < 1e-12 && (s.oversold_gpus_mean - 0.1125).abs() < 1e-12);
}

/// MuxFlow with k = 1 SM per unit of utilization, c_s = 0.5, bound 1.25,
/// minimum share 0.25, and an online load profile of steps of 225 s with
/// factors [1, 4] (O's 25 % becomes 100 % in every second step).
/// - 0 s: O (1000 s, 25 %) takes the GPU. F (300 s, 50 %) is matched to
///   it: share = min(1 - 0.25, (1.25 - 1) / 0.5) = 0.5; F runs at
///   max(1, 0.5 / 0.5) x (1 + 0.5 x (0.25 + 0.5 - 0.5)) = 1.125, O at
///   1 + 0.5 x min(0.5, 0.5) = 1.25 (the bound, not beyond).
/// - 225 s: O's load is 100 %: the share left is 0 < 0.25: F yields
///   (evicted) with 225 / 1.125 = 200 s of its 300 done.
/// - 450 s: O back at 25 %: F matched again, same rates: its last 100 s
///   take 112.5 s, to 562.5 s.
///
/// O's mean slowdown: (337.5 x 1.25 + 662.5 x 1) / 1000 = 1.084375.
/// Time sharing instead slows both by 2 from 0: F ends at 600 s and O
/// runs beyond the bound for those 600 s.
#[test]
fn muxflow_yields_to_an_online_surge_and_keeps_the_bound() {
    let mut c = cfg(Policy::Muxflow);
    c.sharing.sm_per_util = 1.0;
    c.sharing.space_contention = 0.5;
    c.sharing.online_bound = 1.25;
    c.sharing.min_offline_share = 0.25;
    c.sharing.profile = Some(LoadProfile { step: 225_000, factors: vec![1.0, 4.0], origin: 0 });
    let specs = [online(1000, 25.0), off(0, 300, 1.0, 50.0, 1.0)];
    let r = run(&c, 1, 1, &specs);
    assert_eq!(times(&r), vec![(0, 1_000_000), (0, 562_500)]);
    assert_eq!(r.jobs[1].preemptions, 1);
    let s = r.sharing.as_ref().unwrap();
    assert_eq!(s.evictions, 1);
    let o = s.online.as_ref().unwrap();
    assert_eq!((o.max_slowdown, o.violations, o.violation_share), (1.25, 0, 0.0));
    assert!((o.mean_slowdown.mean - 1.084375).abs() < 1e-12, "{}", o.mean_slowdown.mean);

    c.policy = Policy::TimeSharing;
    let r = run(&c, 1, 1, &specs);
    assert_eq!(times(&r), vec![(0, 1_000_000), (0, 600_000)]);
    let o = r.sharing.unwrap().online.unwrap();
    assert_eq!((o.max_slowdown, o.violations, o.violation_share), (2.0, 1, 0.6));
}

// ---------------------------------------------------------------- invariants

fn random_specs(rng: &mut Rng, max_gpus: u32) -> Vec<Spec> {
    let n = 8 + rng.below(30) as usize;
    let sizes = [250.0, 500.0, 1000.0, 1000.0, 1000.0, 2000.0, 4000.0];
    let mut specs: Vec<Spec> = (0..n)
        .map(|_| Spec {
            submit_s: rng.below(300) as i64,
            dur_s: 1 + rng.below(200) as i64,
            gpus: (sizes[rng.below(sizes.len() as u64) as usize] / 1000.0f64).min(max_gpus as f64),
            util: rng.below(101) as f32,
            mem: rng.below(17) as f32,
            class: JobClass::Offline,
        })
        .collect();
    for _ in 0..rng.below(3) {
        specs.push(Spec {
            submit_s: rng.below(100) as i64,
            ..online(100 + rng.below(500) as i64, rng.below(101) as f32)
        });
    }
    specs
}

fn random_cfg(rng: &mut Rng, policy: Policy) -> SimConfig {
    let mut c = config(policy, Discipline::Greedy, Placement::Pack);
    c.record_segments = true;
    c.seed = rng.next_u64();
    c.on_unplaceable = OnUnplaceable::Skip;
    c.sharing.max_tenants = 1 + rng.below(4) as u32;
    c.sharing.default_util_pct = rng.below(101) as f64;
    if rng.below(2) == 0 {
        let factors = (0..1 + rng.below(6)).map(|_| rng.below(400) as f64 / 100.0).collect();
        c.sharing.profile = Some(LoadProfile { step: 1000 * (1 + rng.below(120) as i64), factors, origin: 0 });
    }
    c
}

/// At every instant, per GPU of a tenant segment: memory within capacity
/// (a job alone may exceed it) and at most `max_tenants` tenants.
fn assert_gpus(r: &SimResult, w: &Workload, c: &SimConfig) {
    let mut events: HashMap<u32, Vec<(i64, i32, u32)>> = HashMap::new();
    for s in r.segments.iter().filter(|s| s.shared_gpu.is_some()) {
        let g = s.shared_gpu.unwrap();
        events.entry(g).or_default().push((s.start, 1, s.job));
        events.entry(g).or_default().push((s.end, -1, s.job));
    }
    for (g, mut ev) in events {
        ev.sort(); // leaves (-1) before joins at the same instant
        let mut on: Vec<u32> = Vec::new();
        for (t, d, j) in ev {
            if d < 0 {
                on.retain(|&x| x != j);
                continue;
            }
            on.push(j);
            let mem: f64 = on.iter().map(|&x| w.usage[x as usize].gpu_mem_gib.unwrap() as f64).sum();
            assert!(on.len() as u32 <= c.sharing.max_tenants, "GPU {g} has {} tenants at {t}", on.len());
            assert!(on.len() == 1 || mem <= c.sharing.default_gpu_mem_gib, "GPU {g} holds {mem} GiB at {t}");
        }
    }
}

/// Whether some GPU is entirely free at `t` (after the pass), from the segments.
fn free_gpus_at(r: &SimResult, cluster: &Cluster, t: i64) -> Vec<u64> {
    let mut used: Vec<u64> = vec![0; cluster.nodes().len()];
    let mut gpus: HashMap<u32, u32> = HashMap::new();
    for s in r.segments.iter().filter(|s| s.start <= t && t < s.end) {
        match s.shared_gpu {
            Some(g) => {
                gpus.insert(g, s.node);
            }
            None => used[s.node as usize] += s.milli / 1000,
        }
    }
    for (_, n) in gpus {
        used[n as usize] += 1;
    }
    cluster.nodes().iter().zip(used).map(|(n, u)| n.gpus as u64 - u).collect()
}

#[test]
fn random_workloads_keep_the_sharing_invariants() {
    let shapes = [(1, 2), (2, 2), (1, 4), (3, 2)];
    let policies =
        [Policy::Exclusive, Policy::TimeSharing, Policy::PriorityTimeSharing, Policy::Horus, Policy::Muxflow];
    for seed in 0..300u64 {
        let mut rng = Rng::new(seed);
        let (nodes, gpus) = shapes[(seed % 4) as usize];
        let cluster = Cluster::homogeneous(nodes, gpus).unwrap();
        let w = workload(&random_specs(&mut rng, nodes * gpus));
        let policy = policies[(seed / 4 % 5) as usize];
        let c = random_cfg(&mut rng, policy);
        let r = simulate(&w, &cluster, &c).unwrap();
        assert_gpus(&r, &w, &c);
        let s = r.sharing.as_ref().unwrap();
        for j in &r.jobs {
            assert_eq!(j.status, JobStatus::Done, "seed {seed} {policy}: job {} not done", j.id);
            assert!(j.end.unwrap() - j.first_start.unwrap() >= j.duration, "seed {seed}: job {} ran short", j.id);
            let (mean, max) = (s.jobs[j.id as usize].mean_slowdown, s.jobs[j.id as usize].max_slowdown);
            if j.duration > 0 {
                assert!(mean.unwrap() >= 1.0 - 1e-12 && max.unwrap() >= mean.unwrap() - 1e-9);
            }
        }
        if policy == Policy::Muxflow {
            if let Some(o) = &s.online {
                assert!(o.max_slowdown <= c.sharing.online_bound + 1e-9, "seed {seed}: online at {}", o.max_slowdown);
                assert_eq!(o.violations, 0);
            }
        }
        {
            // Work conservation: nobody waits while a free GPU it could use
            // exists (every policy ends its round walking the waiting jobs
            // onto free GPUs; these workloads are within the lookahead).
            for &t in &r.series.time {
                let free = free_gpus_at(&r, &cluster, t);
                for j in r.jobs.iter().filter(|j| j.submit <= t && j.first_start.unwrap() > t && j.preemptions == 0) {
                    let need = (w.jobs[j.id as usize].gpu_milli as u64).div_ceil(1000);
                    assert!(free.iter().all(|&f| f < need), "seed {seed} {policy}: job {} waits at {t}", j.id);
                }
            }
        }
        assert_eq!(r, simulate(&w, &cluster, &c).unwrap(), "seed {seed}: not deterministic");
    }
}
