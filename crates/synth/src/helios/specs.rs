//! The jobs of one cluster before they are placed in time: GPU count, final
//! state, run time and queue time, drawn to the cluster's row of the
//! published summary (`helios_cluster_summary.csv`).
//!
//! Per kind (CPU jobs, `gpu_num = 0`, and GPU jobs), at the published job
//! counts: run times from a log-normal cut at 7 days with the published
//! median and mean; queue times 0 for most jobs (the published medians are
//! 0) with a log-normal tail fitted to the published mean; final-state
//! counts exactly the published rates. GPU counts are 1 for 55-65 % of GPU
//! jobs (published median 1) and powers of two up to 128 otherwise, fitted
//! to the published mean. Large jobs run longer: GPU counts and run times
//! are paired through a Gaussian copula whose strength is fitted to the
//! published total GPU time. GPU jobs' states follow the published GPU time
//! by final state (SC'21 Fig 1b): the jobs holding the top 90 % of GPU time
//! get, largest first, the state furthest below its GPU-time share; the
//! rest the remaining counts at random. All draws are stratified
//! ([`super::dist`]), so even small samples hit the targets.

use super::dist::{apportion, gpu_shares, stratified_tail, Pairing, Queue, TruncLogNormal};
use super::summary::{Summary, CPU, GPU};
use crate::rng::Rng;

/// The longest run time (7 days) and queue time (3 days) drawn.
const RUN_CAP: f64 = 7.0 * 86_400.0;
const QUEUE_CAP: f64 = 3.0 * 86_400.0;
/// Share of jobs that start at once, per kind (CPU, GPU).
const NO_WAIT: [f64; 2] = [0.8, 0.65];
/// Failed jobs end as FAILED, TIMEOUT or NODE_FAIL (all "failed" upstream).
const FAILED: [(&str, f64); 3] = [("FAILED", 0.8), ("TIMEOUT", 0.12), ("NODE_FAIL", 0.08)];

/// The shape choices the published summary does not fix, per trace: caps,
/// the share of jobs that start at once, the share of 1-GPU jobs, how
/// failures split into FAILED / TIMEOUT / NODE_FAIL, and (when published)
/// the median queueing delay per kind. AcmeTrace (the same owners and
/// columns) reuses the Helios generator with its own shape.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub run_cap: f64,
    pub queue_cap: f64,
    pub no_wait: [f64; 2],
    pub one_gpu: f64,
    pub largest_gpus: u32,
    pub failed: &'static [(&'static str, f64)],
    pub queue_median: Option<[f64; 2]>,
}

impl Shape {
    fn helios(cluster: &str, max_gpus: u32) -> Shape {
        Shape {
            run_cap: RUN_CAP,
            queue_cap: QUEUE_CAP,
            no_wait: NO_WAIT,
            one_gpu: one_gpu_share(cluster),
            largest_gpus: max_gpus,
            failed: &FAILED,
            queue_median: None,
        }
    }
}

/// One job before it is placed in time and in a VC.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub gpus: u32,
    pub state: &'static str,
    pub run: i64,
    pub queue: i64,
}

impl Spec {
    pub fn gpu_time(&self) -> f64 {
        self.gpus as f64 * self.run as f64
    }
}

/// Share of 1-GPU jobs among GPU jobs per cluster (all published medians are 1).
fn one_gpu_share(cluster: &str) -> f64 {
    match cluster {
        "Venus" => 0.55,
        "Earth" => 0.65,
        _ => 0.6,
    }
}

/// The `n` jobs of a cluster sample, in random order; GPU counts at most `max_gpus`.
pub fn specs(sum: &Summary, n: usize, max_gpus: u32, rng: &mut Rng) -> Vec<Spec> {
    specs_shaped(sum, &Shape::helios(&sum.id, max_gpus), n, rng)
}

/// [`specs`] with the trace's own [`Shape`].
pub fn specs_shaped(sum: &Summary, shape: &Shape, n: usize, rng: &mut Rng) -> Vec<Spec> {
    let n_gpu = (n as f64 * sum.gpu_jobs / sum.jobs).round() as usize;
    let mut all = kind_specs(sum, shape, CPU, n - n_gpu, rng);
    all.extend(kind_specs(sum, shape, GPU, n_gpu, rng));
    rng.shuffle(&mut all);
    all
}

fn queue_of(sum: &Summary, shape: &Shape, kind: usize) -> Queue {
    match shape.queue_median {
        Some(m) => Queue::fit_median(sum.avg_queue[kind], shape.no_wait[kind], m[kind], shape.queue_cap),
        None => Queue::fit(sum.avg_queue[kind], shape.no_wait[kind], shape.queue_cap),
    }
}

fn kind_specs(sum: &Summary, shape: &Shape, kind: usize, n: usize, rng: &mut Rng) -> Vec<Spec> {
    if n == 0 {
        return Vec::new();
    }
    let runs = stratified_tail(n, rng, &TruncLogNormal::fit(sum.med_run[kind], sum.avg_run[kind], shape.run_cap));
    let mut queues = stratified_tail(n, rng, &queue_of(sum, shape, kind));
    rng.shuffle(&mut queues);
    let (gpus, runs, states) = if kind == GPU {
        let gpus = gpu_counts(sum, shape, n, rng);
        let runs = paired(sum, &gpus, &runs, rng);
        let states = gpu_states(sum, &gpus, &runs, rng);
        (gpus, runs, states)
    } else {
        let mut runs = runs;
        rng.shuffle(&mut runs);
        let counts = apportion(n, &sum.rates_cpu);
        let mut states: Vec<usize> = (0..3).flat_map(|s| std::iter::repeat_n(s, counts[s])).collect();
        rng.shuffle(&mut states);
        (vec![0; n], runs, states)
    };
    (0..n)
        .map(|i| Spec {
            gpus: gpus[i],
            state: state_name(states[i], shape.failed, rng),
            run: runs[i].round() as i64,
            queue: queues[i].round() as i64,
        })
        .collect()
}

fn state_name(s: usize, failed: &[(&'static str, f64)], rng: &mut Rng) -> &'static str {
    match s {
        0 => "COMPLETED",
        1 => "CANCELLED",
        _ => failed[rng.weighted(&failed.iter().map(|f| f.1).collect::<Vec<_>>())].0,
    }
}

/// GPU counts at their exact shares, in random order.
fn gpu_counts(sum: &Summary, shape: &Shape, n: usize, rng: &mut Rng) -> Vec<u32> {
    let shares = gpu_shares(sum.avg_gpu_num, shape.one_gpu, shape.largest_gpus);
    let per = apportion(n, &shares.iter().map(|s| s.1).collect::<Vec<_>>());
    let mut all: Vec<u32> = shares.iter().zip(per).flat_map(|(s, k)| std::iter::repeat_n(s.0, k)).collect();
    rng.shuffle(&mut all);
    all
}

/// Run times (`runs` ascending) given to the jobs so that GPU time
/// (Σ gpus × run) matches the published GPU time per GPU job (copula
/// strength by bisection).
fn paired(sum: &Summary, gpus: &[u32], runs: &[f64], rng: &mut Rng) -> Vec<f64> {
    let target = gpus.len() as f64 * sum.gpu_time.iter().sum::<f64>() / sum.gpu_jobs;
    let pairing = Pairing::new(gpus, rng);
    let at = |c: f64| pairing.at(runs, c);
    let gpu_time = |r: &[f64]| gpus.iter().zip(r).map(|(g, d)| *g as f64 * d).sum::<f64>();
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    if gpu_time(&at(hi)) <= target {
        return at(hi);
    }
    // In a small sample GPU time moves in steps (one large job at a time):
    // keep the pairing that came closest.
    let mut best = (f64::INFINITY, 0.0);
    for _ in 0..20 {
        let mid = 0.5 * (lo + hi);
        let gt = gpu_time(&at(mid));
        if (gt - target).abs() < best.0 {
            best = ((gt - target).abs(), mid);
        }
        if gt < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    at(best.1)
}

/// Final states (0 complete, 1 cancel, 2 fail) meeting both the published
/// rates and the GPU-time shares by state (module docs).
fn gpu_states(sum: &Summary, gpus: &[u32], runs: &[f64], rng: &mut Rng) -> Vec<usize> {
    let n = gpus.len();
    let x = |i: usize| gpus[i] as f64 * runs[i];
    let mut quota: Vec<i64> = apportion(n, &sum.rates_gpu).iter().map(|&c| c as i64).collect();
    let gt_total: f64 = sum.gpu_time.iter().sum();
    let share: Vec<f64> = sum.gpu_time.iter().map(|g| g / gt_total).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| x(b).total_cmp(&x(a)).then(a.cmp(&b)));
    let total: f64 = (0..n).map(x).sum();
    let (mut big, mut acc) = (0, 0.0);
    while big < n && acc < 0.9 * total {
        acc += x(order[big]);
        big += 1;
    }
    let left: i64 = quota.iter().sum();
    let mut filled: Vec<f64> = quota.iter().map(|&q| (total - acc) * q as f64 / left.max(1) as f64).collect();
    let mut state = vec![0usize; n];
    for &i in &order[..big] {
        let k = (0..3)
            .filter(|&k| quota[k] > 0)
            .max_by(|&a, &b| {
                let d = |k: usize| share[k] * total - filled[k] - x(i) / 2.0;
                d(a).total_cmp(&d(b)).then(b.cmp(&a))
            })
            .unwrap_or(0);
        state[i] = k;
        filled[k] += x(i);
        quota[k] -= 1;
    }
    let mut pool: Vec<usize> = (0..3).flat_map(|k| std::iter::repeat_n(k, quota[k].max(0) as usize)).collect();
    rng.shuffle(&mut pool);
    for (&i, k) in order[big..].iter().zip(pool) {
        state[i] = k;
    }
    state
}

/// Puts the jobs holding the top half of the GPU time at evenly spaced
/// places of the submission order (a scheduler would queue them rather
/// than run them all at once), the others in random order; keeps small
/// samples from stacking their few large jobs into one overloaded day.
pub fn spread(specs: &mut Vec<Spec>, rng: &mut Rng) {
    let n = specs.len();
    let total: f64 = specs.iter().map(Spec::gpu_time).sum();
    if n < 2 || total <= 0.0 {
        return;
    }
    specs.sort_by(|a, b| b.gpu_time().total_cmp(&a.gpu_time()));
    let (mut k, mut acc) = (0, 0.0);
    while k < n && acc < 0.5 * total {
        acc += specs[k].gpu_time();
        k += 1;
    }
    let mut big: Vec<Spec> = specs.drain(..k).collect();
    rng.shuffle(&mut big);
    rng.shuffle(specs);
    let mut rest = std::mem::take(specs).into_iter();
    let slots: Vec<usize> = (0..k).map(|i| ((i as f64 + rng.f64()) * n as f64 / k as f64) as usize).collect();
    let mut next_big = big.into_iter().zip(slots).peekable();
    for pos in 0..n {
        match next_big.peek() {
            Some((_, slot)) if *slot <= pos => specs.push(next_big.next().expect("peeked").0),
            _ => specs.push(rest.next().or_else(|| next_big.next().map(|b| b.0)).expect("n specs")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::helios::summary::cluster;

    #[test]
    fn specs_meet_the_summary() {
        for name in ["Venus", "Earth"] {
            let sum = cluster(name);
            let n = 20_000;
            let s = specs(&sum, n, 128, &mut Rng::new(4));
            let gpu: Vec<&Spec> = s.iter().filter(|x| x.gpus > 0).collect();
            assert!((gpu.len() as f64 / n as f64 - sum.gpu_jobs / sum.jobs).abs() < 1e-3);
            let mean_g = gpu.iter().map(|x| x.gpus as f64).sum::<f64>() / gpu.len() as f64;
            assert!((mean_g / sum.avg_gpu_num - 1.0).abs() < 0.01, "{mean_g}");
            let mean_run = gpu.iter().map(|x| x.run as f64).sum::<f64>() / gpu.len() as f64;
            assert!((mean_run / sum.avg_run[GPU] - 1.0).abs() < 0.03, "{mean_run}");
            let done = gpu.iter().filter(|x| x.state == "COMPLETED").count() as f64 / gpu.len() as f64;
            assert!((done - sum.rates_gpu[0]).abs() < 1e-3);
            let gt: f64 = gpu.iter().map(|x| x.gpu_time()).sum();
            let want = gpu.len() as f64 * sum.gpu_time.iter().sum::<f64>() / sum.gpu_jobs;
            assert!((gt / want - 1.0).abs() < 0.1, "{name}: GPU time {gt} vs {want}");
            let cancel: f64 = gpu.iter().filter(|x| x.state == "CANCELLED").map(|x| x.gpu_time()).sum();
            let want = sum.gpu_time[1] / sum.gpu_time.iter().sum::<f64>();
            assert!((cancel / gt - want).abs() < 0.03, "{name}: cancel share {}", cancel / gt);
        }
    }

    #[test]
    fn spreading_keeps_every_job_and_spaces_the_large_ones() {
        let sum = cluster("Saturn");
        let mut s = specs(&sum, 3000, 64, &mut Rng::new(5));
        let before: f64 = s.iter().map(Spec::gpu_time).sum();
        spread(&mut s, &mut Rng::new(6));
        assert_eq!(s.len(), 3000);
        assert_eq!(s.iter().map(Spec::gpu_time).sum::<f64>(), before);
        // The GPU time of each tenth of the order is near a tenth of the total.
        for part in s.chunks(300) {
            let share = part.iter().map(Spec::gpu_time).sum::<f64>() / before;
            assert!(share < 0.3, "{share}");
        }
    }
}
