//! The PAI workload model: users, recurring groups (the `group` tag: runs of
//! the same script with the same resources) and the job list.
//!
//! Everything here is decided before the simulation: each group's job
//! structure, requests, usage ratios, runtime and exact number of jobs, who
//! owns it, whether it names a GPU type or carries a workload tag. Exact
//! per-group job counts make the recurrence share, the user skew and the
//! tag shares hold by construction at any scale instead of by luck; the
//! simulation adds only what depends on the cluster (placement, capacity
//! waits, co-location, contention).

use super::super::rng::Rng;
use super::group::{Group, TaskSpec};
use super::machines::{Cluster, CPU, TYPES};
use super::params::{self as p, pick, Structure};

pub struct Workload {
    pub users: Vec<String>,
    pub groups: Vec<Group>,
    /// Jobs in submission order: (submit time, group index).
    pub jobs: Vec<(i64, u32)>,
}

/// Builds the workload for `cluster` at `scale`.
pub fn build(cluster: &Cluster, scale: f64, seed: u64) -> Workload {
    let mut rng = Rng::stream(seed, "pai:groups");
    let window = scale.max(1.0);
    let mut groups = Vec::new();
    let limits = Limits::of(cluster);
    for kind in 0..TYPES.len() {
        let share = if kind == CPU { limits.core_share } else { cluster.type_share[kind] };
        let target = (p::JOBS * p::TYPE_SHARE[kind] * share * window).round() as u64;
        // No group holds more than a small share of its type's jobs, so one
        // huge recurring group cannot dominate a small-scale sample; the
        // rest of a huge group becomes further recurring groups, so the
        // share of recurring tasks does not depend on the scale.
        let largest = ((target as f64 * p::GROUP_MAX_JOB_SHARE) as u32).max(5);
        let mut made = 0u64;
        let mut carry = 0;
        while made < target {
            let mut g = group(kind, &limits, &mut rng);
            if carry > 0 {
                g.jobs = carry;
            }
            carry = if g.jobs >= largest + 5 { g.jobs - largest } else { 0 };
            g.jobs = g.jobs.min(largest).min((target - made) as u32);
            made += g.jobs as u64;
            groups.push(g);
        }
    }
    let t = super::clock::t_end(scale) - super::clock::T_FIRST;
    super::load::normalize(&mut groups, &cluster.machines, &cluster.type_share, t as f64);
    // Interleave the types so tags and owners are not assigned in type order.
    rng.shuffle(&mut groups);
    let users = assign_users(&mut groups, scale, &mut rng);
    tag_specs(&mut groups, &mut rng);
    tag_workloads(&mut groups, &mut rng);
    let jobs = job_list(&groups, scale, seed);
    Workload { users, groups, jobs }
}

/// What a task may ask for on the machines that receive work.
struct Limits {
    /// Per type: the machines' capacities (cpu, mem, gpu) and the smallest.
    caps: [Vec<(i64, i64, i64)>; 6],
    smallest: [(i64, i64, i64); 6],
    core_share: f64,
}

impl Limits {
    fn of(c: &Cluster) -> Limits {
        let mut l = Limits { caps: Default::default(), smallest: [(i64::MAX, i64::MAX, i64::MAX); 6], core_share: 0.0 };
        let mut all_cpu = 0;
        for m in &c.machines {
            l.caps[m.kind].push((m.cap_cpu, m.cap_mem, m.cap_gpu));
            let s = &mut l.smallest[m.kind];
            *s = (s.0.min(m.cap_cpu), s.1.min(m.cap_mem), s.2.min(m.cap_gpu));
            all_cpu += m.cap_cpu;
        }
        // All real machines hold 156,576 vCPU (NSDI'22 Sec 4, `docs/definitions.md#paisupply-demand`).
        l.core_share = all_cpu as f64 / 15_657_600.0;
        l
    }

    /// The largest gang of (cpu, mem, gpu) instances that takes at most
    /// `GANG_CAPACITY_SHARE` of the type's empty machines, counted machine
    /// by machine so it is certain to fit once they drain.
    fn max_gang(&self, kind: usize, cpu: i64, mem: i64, gpu: i64) -> u32 {
        let per = |cap: i64, need: i64| if need <= 0 { i64::MAX } else { cap / need };
        let fit: i64 = self.caps[kind].iter().map(|&(c, m, g)| per(c, cpu).min(per(m, mem)).min(per(g, gpu))).sum();
        ((fit as f64 * p::GANG_CAPACITY_SHARE) as u32).max(1)
    }
}

fn group(kind: usize, limits: &Limits, rng: &mut Rng) -> Group {
    let jobs = if rng.chance(p::P_RECURRING_GROUP) {
        (5.0 * rng.pareto(1.0, p::RECURRING_ALPHA)).min(p::MAX_GROUP_JOBS) as u32
    } else {
        pick(rng, &p::ONE_OFF_SIZES)
    };
    let tasks =
        if kind == CPU { vec![cpu_task(pick(rng, &p::CPU_NAMES), limits, rng)] } else { gpu_tasks(kind, limits, rng) };
    let runtime = rng.lognormal(p::RUNTIME_MEDIAN[kind], p::RUNTIME_SIGMA).clamp(3.0, p::MAX_RUNTIME) as f32;
    let fail = if rng.chance(p::P_FLAKY_GROUP) { p::FAIL_FLAKY } else { p::FAIL_STABLE } as f32;
    let tag = ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128;
    let rel_runtime = runtime / p::RUNTIME_MEDIAN[kind] as f32;
    Group { tag, user: 0, kind, spec: false, workload: None, tasks, runtime, rel_runtime, norm: 1.0, fail, jobs }
}

fn gpu_tasks(kind: usize, limits: &Limits, rng: &mut Rng) -> Vec<TaskSpec> {
    let structure = pick(rng, &p::STRUCTURES);
    match structure {
        Structure::Single => {
            let gang = rng.chance(p::P_SINGLE_GANG);
            let name = pick(rng, &p::SINGLE_NAMES);
            vec![gpu_task(name, kind, gang, limits, rng)]
        }
        Structure::PsWorker => {
            vec![cpu_task("ps", limits, rng), gpu_task("worker", kind, true, limits, rng)]
        }
        Structure::ChiefPsWorker => vec![
            gpu_task("chief", kind, false, limits, rng),
            cpu_task("ps", limits, rng),
            gpu_task("worker", kind, true, limits, rng),
            gpu_task("evaluator", kind, false, limits, rng),
        ],
    }
}

fn gpu_task(name: &'static str, kind: usize, gang: bool, limits: &Limits, rng: &mut Rng) -> TaskSpec {
    let (cap_cpu, cap_mem, cap_gpu) = limits.smallest[kind];
    let gpu = if gang { pick(rng, &p::GPU_GANG) } else { pick(rng, &p::GPU_SINGLE) }.min(cap_gpu as u32);
    let cpu = pick(rng, &p::CPU_GPU_TASK).min(cap_cpu as u32 / 2);
    let mem = pick(rng, &p::MEM_MIB).min(cap_mem as u32 / 2);
    let wanted = if gang { gang_size(rng) } else { 1 };
    // A gang must fit in a share of its type's machines (binds at small scale).
    let inst_num = wanted.min(limits.max_gang(kind, cpu as i64, mem as i64, gpu as i64)).max(if gang { 2 } else { 1 });
    let mut t = usage(name, inst_num, cpu, mem, Some(gpu), rng);
    let bin = if gpu >= 100 { p::RUNTIME_WHOLE } else { p::RUNTIME_SHARING };
    t.stretch = (bin * wanted as f64 / inst_num as f64) as f32;
    t
}

fn cpu_task(name: &'static str, limits: &Limits, rng: &mut Rng) -> TaskSpec {
    let cpu = pick(rng, &p::CPU_CPU_TASK);
    let mem = pick(rng, &p::MEM_MIB).min(192 * 1024);
    let wanted = if name == "ps" {
        pick(rng, &p::PS_SIZES)
    } else if rng.chance(p::P_SINGLE_GANG) {
        gang_size(rng)
    } else {
        1
    };
    let inst_num = wanted.min(limits.max_gang(CPU, cpu as i64, mem as i64, 0));
    let mut t = usage(name, inst_num, cpu, mem, None, rng);
    t.stretch = wanted as f32 / inst_num as f32;
    t
}

fn gang_size(rng: &mut Rng) -> u32 {
    rng.lognormal(p::GANG_MEDIAN, p::GANG_SIGMA).clamp(2.0, p::GANG_MAX).round() as u32
}

fn usage(name: &'static str, inst_num: u32, cpu: u32, mem: u32, gpu: Option<u32>, rng: &mut Rng) -> TaskSpec {
    TaskSpec {
        name,
        inst_num,
        plan_cpu: cpu,
        plan_mem: mem,
        plan_gpu: gpu,
        cpu_ratio: rng.lognormal(p::CPU_RATIO.0, p::CPU_RATIO.1) as f32,
        gpu_ratio: rng.lognormal(p::GPU_RATIO.0, p::GPU_RATIO.1) as f32,
        mem_ratio: rng.lognormal(p::MEM_RATIO.0, p::MEM_RATIO.1) as f32,
        read_bps: rng.lognormal(p::READ_BPS.0, p::READ_BPS.1) as f32,
        stretch: 1.0,
    }
}

/// Zipf exponent whose top 5 % of `n` ranks hold `share` of the mass.
pub fn zipf_exponent(n: usize, share: f64) -> f64 {
    let top = ((n as f64 * 0.05).round() as usize).max(1);
    let top_share = |b: f64| {
        let w = |i: usize| (i as f64 + 1.0).powf(-b);
        (0..top).map(w).sum::<f64>() / (0..n).map(w).sum::<f64>()
    };
    let (mut lo, mut hi) = (0.0, 4.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if top_share(mid) < share {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// Gives each group an owner so that per-user instance counts follow a
/// Zipf law whose top 5 % hold 77 % (NSDI'22 §3): groups in random order
/// go to the user furthest below their target.
fn assign_users(groups: &mut [Group], scale: f64, rng: &mut Rng) -> Vec<String> {
    let n = ((p::USERS * scale.min(1.0).sqrt()).round() as usize).max(40);
    let b = zipf_exponent(n, p::TOP5_INSTANCE_SHARE);
    let total: u64 = groups.iter().map(Group::instances).sum();
    let norm: f64 = (0..n).map(|i| (i as f64 + 1.0).powf(-b)).sum();
    let target: Vec<f64> = (0..n).map(|i| total as f64 * (i as f64 + 1.0).powf(-b) / norm).collect();
    let mut got = vec![0.0f64; n];
    // Biggest groups first, so no small user is handed a giant group.
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(groups[i].instances()));
    let mut heap: std::collections::BinaryHeap<(u64, std::cmp::Reverse<usize>)> =
        (0..n).map(|u| ((target[u] * 1000.0) as u64, std::cmp::Reverse(u))).collect();
    for i in order {
        let (_, std::cmp::Reverse(u)) = heap.pop().expect("users");
        groups[i].user = u as u32;
        got[u] += groups[i].instances() as f64;
        let deficit = (target[u] - got[u]).max(0.0);
        heap.push(((deficit * 1000.0) as u64, std::cmp::Reverse(u)));
    }
    (0..n).map(|_| rng.hex(12)).collect()
}

/// Marks groups as naming their GPU type until ~6 % of tasks do (NSDI'22
/// §3), preferring the high-end types.
fn tag_specs(groups: &mut [Group], rng: &mut Rng) {
    let tasks = |g: &Group| (g.tasks.len() as u64 * g.jobs as u64) as f64;
    let goal = p::SPEC_SHARE * groups.iter().map(tasks).sum::<f64>();
    let order = weighted_order(groups, |g| p::P_SPEC[g.kind], rng);
    for i in take_until(&order, |i| tasks(&groups[i]), goal) {
        groups[i].spec = true;
    }
}

/// Tags groups with a workload until ~9 % of instances carry one.
fn tag_workloads(groups: &mut [Group], rng: &mut Rng) {
    let goal = p::WORKLOAD_SHARE * groups.iter().map(|g| g.instances() as f64).sum::<f64>();
    let order = weighted_order(groups, |_| 1.0, rng);
    for i in take_until(&order, |i| groups[i].instances() as f64, goal) {
        groups[i].workload = Some(pick(rng, &p::WORKLOADS));
    }
}

/// Group indices in a random order in which a higher `weight` tends to come
/// first (Efraimidis-Spirakis keys u^(1/w)); weight 0 never comes.
fn weighted_order(groups: &[Group], weight: impl Fn(&Group) -> f64, rng: &mut Rng) -> Vec<usize> {
    let mut keyed: Vec<(f64, usize)> = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        let w = weight(g);
        let u = rng.f64();
        if w > 0.0 {
            keyed.push((u.powf(1.0 / w), i));
        }
    }
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// Takes groups in `order` until their sizes reach `goal`, skipping any
/// that would overshoot it by more than half their size.
fn take_until(order: &[usize], size: impl Fn(usize) -> f64, goal: f64) -> Vec<usize> {
    let mut got = 0.0;
    let mut out = Vec::new();
    for &i in order {
        if got >= goal {
            break;
        }
        let n = size(i);
        if got + n / 2.0 <= goal {
            got += n;
            out.push(i);
        }
    }
    out
}

/// Every group's jobs over the sorted submission times, in bursts: a
/// group's runs come a few at a time (a user submitting a sweep), each
/// burst at a random point of the window, its jobs `BURST_SPACING` of the
/// window apart (minutes, at every scale).
fn job_list(groups: &[Group], scale: f64, seed: u64) -> Vec<(i64, u32)> {
    let mut rng = Rng::stream(seed, "pai:jobs");
    let mut keyed: Vec<(f64, u32)> = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        // Gangs are not submitted in bursts: a burst of gangs would flood
        // the few machines of a small scale.
        let gang = g.tasks.iter().any(|t| t.inst_num > 1);
        let mut left = g.jobs;
        while left > 0 {
            let burst = if gang { 1 } else { pick(&mut rng, &p::BURST_SIZES).min(left) };
            let at = rng.f64();
            for k in 0..burst {
                keyed.push((at + k as f64 * p::BURST_SPACING, i as u32));
            }
            left -= burst;
        }
    }
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let times = super::clock::submissions(keyed.len(), scale, &mut rng);
    times.into_iter().zip(keyed.into_iter().map(|(_, g)| g)).collect()
}

#[cfg(test)]
mod tests {
    use super::super::machines::{cluster, parse_spec};
    use super::*;
    use crate::inventory::PAI_MACHINE_SPEC;

    #[test]
    fn zipf_exponent_hits_the_top_share() {
        for n in [40, 260, 1300] {
            let b = zipf_exponent(n, 0.77);
            let w: Vec<f64> = (0..n).map(|i| (i as f64 + 1.0).powf(-b)).collect();
            let top = ((n as f64 * 0.05).round() as usize).max(1);
            let share = w[..top].iter().sum::<f64>() / w.iter().sum::<f64>();
            assert!((share - 0.77).abs() < 1e-6, "n={n} share={share}");
        }
    }

    #[test]
    fn gangs_fit_their_small_cluster_and_job_counts_follow_the_machine_share() {
        let c = cluster(parse_spec(PAI_MACHINE_SPEC), 0.01, 3);
        let w = build(&c, 0.01, 3);
        for g in &w.groups {
            for t in &g.tasks {
                if let Some(gpu) = t.plan_gpu {
                    let total: i64 = c.by_type[g.kind].iter().map(|&i| c.machines[i].cap_gpu).sum();
                    let share = (gpu as u64 * t.inst_num as u64) as f64 / total as f64;
                    assert!(t.inst_num <= 2 || share <= p::GANG_CAPACITY_SHARE, "{share}");
                }
            }
        }
        let misc_jobs: u64 = w.groups.iter().filter(|g| g.kind == 0).map(|g| g.jobs as u64).sum();
        let want = p::JOBS * p::TYPE_SHARE[0] * c.type_share[0];
        assert!((misc_jobs as f64 - want).abs() <= 1.0, "{misc_jobs} vs {want}");
        assert_eq!(w.jobs.len() as u64, w.groups.iter().map(|g| g.jobs as u64).sum::<u64>());
    }
}
