//! Differential tests: the engine's incremental algorithms (multi-node
//! placement by cursors, the preemptive pass over a ranked sum list) against
//! the earlier ones kept in [`super::reference`], on seeded random workloads
//! and clusters. Every job's times, nodes and preemptions, every segment, the
//! series and the summary must be identical.

use super::reference;
use crate::config::{Discipline, OnUnplaceable, Placement, Policy, PreemptOverhead, SimConfig};
use crate::engine::nodes::Nodes;
use crate::job::{Job, Workload};
use crate::placement::search;
use crate::rng::Rng;
use crate::{simulate, Cluster, NodeGroup, SimResult};

fn pick<T: Copy>(rng: &mut Rng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u64) as usize]
}

fn clusters() -> Vec<(Cluster, bool)> {
    let g = |count, gpus, cpu_milli, gpu_type| NodeGroup { count, gpus, cpu_milli, gpu_type };
    vec![
        (Cluster::homogeneous(4, 8).unwrap(), false),
        (Cluster::homogeneous(1, 4).unwrap(), false),
        (Cluster::homogeneous(12, 2).unwrap(), false),
        // Groups of equal size that differ by CPUs or type: placement's
        // tie-breaks between groups matter here.
        (
            Cluster::from_groups(&[
                g(3, 2, None, 0),
                g(2, 8, None, 1),
                g(2, 8, Some(16_000), 0),
                g(1, 4, None, 1),
                g(3, 2, Some(8_000), 1),
            ])
            .unwrap(),
            true,
        ),
    ]
}

fn workload(rng: &mut Rng, total_gpus: u32, typed: bool, n: u32) -> Workload {
    let sizes = [250, 500, 750, 1000, 1000, 1000, 2000, 3000, 4000, 8000, 12_000, 16_000, 24_000];
    let horizon = 1 + rng.below(400) as i64;
    let jobs = (0..n)
        .map(|id| {
            let big = rng.below(8) == 0;
            let gpu_milli = if big { (1 + rng.below(total_gpus as u64)) as u32 * 1000 } else { pick(rng, &sizes) };
            Job {
                id,
                submit: rng.below(horizon as u64) as i64 * 1000
                    + if rng.below(5) == 0 { rng.below(999) as i64 } else { 0 },
                duration: 1000 + rng.below(90_000) as i64,
                gpu_milli,
                cpu_milli: (rng.below(6) == 0).then(|| rng.below(12_000) as u32),
                user: rng.below(3) as u32,
                vc: rng.below(2) as u32,
                group: rng.below(4) as u32,
                gpu_type: (typed && rng.below(4) == 0).then(|| rng.below(2) as u16),
                // Two classes, so `priority` evicts (other policies ignore it).
                priority: rng.below(2) as u8,
            }
        })
        .collect();
    Workload { n_users: 3, n_vcs: 2, n_groups: 4, n_gpu_types: 2, ..Workload::from_jobs(jobs) }
}

fn config(rng: &mut Rng, policies: &[Policy]) -> SimConfig {
    let policy = pick(rng, policies);
    let preemptive = matches!(policy, Policy::Srtf | Policy::Las | Policy::Priority);
    let disciplines: &[Discipline] =
        if preemptive { &[Discipline::Strict, Discipline::Greedy] } else { Discipline::ALL };
    let starvation = pick(rng, &[None, None, Some(1.5), Some(4.0)]);
    // A promoted job preempts a demoted one, which is promoted back in turn:
    // with an overhead larger than what a job runs between two preemptions
    // the pair never finishes (in either implementation), so the starvation
    // guard runs without overhead here.
    let overheads: &[PreemptOverhead] = match starvation {
        Some(_) => &[PreemptOverhead::None],
        None => &[PreemptOverhead::None, PreemptOverhead::Helios, PreemptOverhead::Fixed(1500)],
    };
    SimConfig {
        seed: rng.next_u64(),
        share_slowdown: pick(rng, &[1.0, 1.0, 2.5]),
        preempt_overhead: pick(rng, overheads),
        record_segments: true,
        las_thresholds_gpu_s: pick(rng, &[&[3600.0][..], &[20.0, 100.0], &[2.5, 30.0, 250.0]]).to_vec(),
        las_starvation_factor: starvation,
        on_unplaceable: OnUnplaceable::Skip,
        until: (rng.below(6) == 0).then(|| rng.below(300_000) as i64),
        ..SimConfig::new(policy, pick(rng, disciplines), pick(rng, Placement::ALL))
    }
}

fn assert_same(new: &SimResult, old: &SimResult, what: &str) {
    assert_eq!(format!("{:?}", new.jobs), format!("{:?}", old.jobs), "jobs differ: {what}");
    assert_eq!(format!("{:?}", new.segments), format!("{:?}", old.segments), "segments differ: {what}");
    assert_eq!(format!("{:?}", new.series), format!("{:?}", old.series), "series differ: {what}");
    assert_eq!(format!("{:?}", new.summary), format!("{:?}", old.summary), "summaries differ: {what}");
}

fn compare(seed: u64, policies: &[Policy], jobs: u32) {
    let mut rng = Rng::new(seed);
    let shapes = clusters();
    let (cluster, typed) = &shapes[rng.below(shapes.len() as u64) as usize];
    let w = workload(&mut rng, cluster.total_gpus() as u32, *typed, jobs);
    let cfg = config(&mut rng, policies);
    let old = reference::with(|| simulate(&w, cluster, &cfg).unwrap());
    let new = simulate(&w, cluster, &cfg).unwrap();
    assert_same(&new, &old, &format!("seed {seed}, {cfg:?}"));
}

#[test]
fn preemptive_passes_match_the_full_reranking_on_random_workloads() {
    for seed in 0..200 {
        compare(seed, &[Policy::Srtf, Policy::Las], 10 + seed as u32 % 50);
    }
}

#[test]
fn preemptive_passes_match_on_longer_busy_workloads() {
    for seed in 0..2 {
        compare(1_000 + seed, &[Policy::Srtf, Policy::Las], 1_000);
    }
}

#[test]
fn multi_node_placement_matches_under_every_policy_and_discipline() {
    // The GPU-sharing policies place jobs themselves (`crate::sharing`), not
    // through the search this compares.
    let classic: Vec<Policy> = Policy::ALL
        .iter()
        .copied()
        .filter(|&p| !SimConfig::new(p, Discipline::Greedy, Placement::Pack).sharing_policy())
        .collect();
    for seed in 0..300 {
        compare(5_000 + seed, &classic, 10 + seed as u32 % 40);
    }
}

/// A random state of the free-capacity index: whole GPUs taken on random
/// nodes, so that levels other than "entirely free" are populated too.
fn random_nodes(rng: &mut Rng, cluster: &Cluster) -> Nodes {
    let mut nodes = Nodes::new(cluster);
    for n in 0..cluster.nodes().len() as u32 {
        if rng.below(3) == 0 {
            let take = 1 + rng.below(cluster.nodes()[n as usize].gpus as u64) as u32;
            nodes.alloc_whole(n, take, 0);
        }
    }
    nodes
}

#[test]
fn whole_node_choices_match_the_plain_search() {
    let mut rng = Rng::new(42);
    let g = |count, gpus, cpu_milli, gpu_type| NodeGroup { count, gpus, cpu_milli, gpu_type };
    let shapes = [
        Cluster::homogeneous(300, 8).unwrap(),
        Cluster::from_groups(&[g(40, 2, None, 0), g(30, 8, None, 1), g(30, 8, Some(1), 0), g(25, 4, None, 1)]).unwrap(),
    ];
    for round in 0..600 {
        let cluster = &shapes[round % shapes.len()];
        let nodes = random_nodes(&mut rng, cluster);
        let need = 1 + rng.below(cluster.total_gpus()) as u32;
        let ty = pick(&mut rng, &[None, None, Some(0), Some(1)]);
        let modulus = 1 + rng.below(5) as u32;
        let accept = move |n: u32| !n.is_multiple_of(modulus) || modulus == 1;
        let seed = rng.next_u64();
        for random in [false, true] {
            let (mut r1, mut r2) = (Rng::new(seed), Rng::new(seed));
            let new = search::whole_nodes(&nodes, need, ty, &accept, random.then_some(&mut r1));
            let old = reference::with(|| search::whole_nodes(&nodes, need, ty, &accept, random.then_some(&mut r2)));
            assert_eq!(new, old, "round {round}: need {need}, type {ty:?}, every {modulus}th node refused");
            assert_eq!(r1.next_u64(), r2.next_u64(), "round {round}: the same draws were made");
        }
    }
}
