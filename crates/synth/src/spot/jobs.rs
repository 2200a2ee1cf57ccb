//! The jobs of the spot-GPU trace before they are written: GPU model,
//! class (HP or Spot), submission, duration and size.
//!
//! Durations follow GFS §2's tail (P90 6.4 h, P99 19.8 days) through a
//! quantile function log-linear between anchors, drawn stratified so any
//! sample hits them; the longest go to HP jobs submitted at the start (the
//! README's first rows: HP jobs submitted at 0 that run until the trace's
//! last second), and HP jobs run longer than Spot ones. Sizes: GPUs per
//! worker by model, workers by class (Spot jobs spread over many workers:
//! the README's Spot rows have 16 and 94). Then, per model, the worker
//! counts are scaled (bisection) until the offered load (GPUs asked by the
//! jobs running at each instant, averaged over the window) is the model's
//! target ([`super::models::Model::load`]).

use super::models::{Model, MODELS};
use crate::helios::dist::apportion;
use crate::rng::{Cumulative, Rng};

/// The trace spans six months, 2024-03-01..08-31: 184 days of seconds.
pub const PERIOD_S: i64 = 184 * 86_400;
/// GFS §2: P90 and P99 of the job durations (6.4 hours, 19.8 days).
pub const P90_S: f64 = 6.4 * 3600.0;
pub const P99_S: f64 = 19.8 * 86_400.0;
/// Quantile anchors of the durations (level, seconds); the median (30
/// minutes) and the shortest (10 s) are tracelab's choice.
const ANCHORS: [(f64, f64); 5] =
    [(0.0, 10.0), (0.5, 1800.0), (0.9, P90_S), (0.99, P99_S), (1.0, (PERIOD_S - 1) as f64)];
/// Share of HP jobs, and of jobs that stand from the first second (HP).
const HP_SHARE: f64 = 0.3;
const STANDING_SHARE: f64 = 0.005;

#[derive(Clone, Debug, PartialEq)]
pub struct SpotJob {
    pub model: usize,
    pub hp: bool,
    pub submit: i64,
    pub duration: i64,
    pub per_worker: u32,
    pub workers: u32,
    pub cpu_per_worker: u32,
    pub org: usize,
}

/// The duration at quantile level `u`.
pub fn duration_at(u: f64) -> f64 {
    let i = ANCHORS.iter().position(|a| a.0 >= u).unwrap_or(ANCHORS.len() - 1).max(1);
    let ((u0, x0), (u1, x1)) = (ANCHORS[i - 1], ANCHORS[i]);
    let t = ((u - u0) / (u1 - u0)).clamp(0.0, 1.0);
    (x0.ln() + t * (x1.ln() - x0.ln())).exp()
}

/// `n` jobs over a window of `window` seconds from the trace's first
/// second, calibrated to the GPUs of `cap` (per model).
pub fn jobs(n: usize, window: i64, cap: &[u64; 6], orgs: usize, rng: &mut Rng) -> Vec<SpotJob> {
    let counts = apportion(n, &MODELS.iter().map(|m| m.job_share).collect::<Vec<_>>());
    let mut durations: Vec<f64> = (0..n).map(|k| duration_at((k as f64 + rng.f64()) / n as f64)).collect();
    durations.reverse();
    let org_pick = Cumulative::new(&(1..=orgs.max(1)).map(|r| 1.0 / (r as f64).powf(1.1)).collect::<Vec<_>>());
    let mut all: Vec<SpotJob> = Vec::with_capacity(n);
    for (m, &count) in counts.iter().enumerate() {
        all.extend(model_jobs(m, count, window, &org_pick, rng));
    }
    deal_durations(&mut all, durations, rng);
    for (m, model) in MODELS.iter().enumerate() {
        calibrate(&mut all, m, model, window, cap[m]);
    }
    all.sort_by_key(|j| (j.submit, !j.hp, j.model));
    all
}

/// One model's jobs with their classes, submissions and sizes (durations
/// are dealt later, over all models).
fn model_jobs(m: usize, count: usize, window: i64, orgs: &Cumulative, rng: &mut Rng) -> Vec<SpotJob> {
    let model = &MODELS[m];
    let hp = ((count as f64 * HP_SHARE).round() as usize).min(count);
    let standing = ((count as f64 * STANDING_SHARE).round() as usize).clamp(1.min(hp), hp);
    let submits = super::submit_times(count - standing, window, rng);
    let per_worker = Cumulative::new(&model.per_worker.iter().map(|p| p.1).collect::<Vec<_>>());
    let cpu = Cumulative::new(&model.cpu_per_gpu.iter().map(|p| p.1).collect::<Vec<_>>());
    let mut classes: Vec<bool> = (0..count - standing).map(|i| i < hp - standing).collect();
    rng.shuffle(&mut classes);
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let (is_hp, submit) = if i < standing { (true, 0) } else { (classes[i - standing], submits[i - standing]) };
        let g = model.per_worker[per_worker.sample(rng)].0;
        out.push(SpotJob {
            model: m,
            hp: is_hp,
            submit,
            duration: 0,
            per_worker: g,
            workers: base_workers(is_hp, rng),
            cpu_per_worker: g * model.cpu_per_gpu[cpu.sample(rng)].0,
            org: orgs.sample(rng),
        });
    }
    out
}

/// Workers before calibration: HP jobs mostly one, Spot jobs spread out.
fn base_workers(hp: bool, rng: &mut Rng) -> u32 {
    const HP: [(u32, f64); 4] = [(1, 0.8), (2, 0.1), (4, 0.06), (8, 0.04)];
    const SPOT: [(u32, f64); 8] =
        [(1, 0.45), (2, 0.15), (4, 0.12), (8, 0.1), (16, 0.1), (32, 0.05), (64, 0.02), (94, 0.01)];
    let table: &[(u32, f64)] = if hp { &HP } else { &SPOT };
    table[rng.weighted(&table.iter().map(|t| t.1).collect::<Vec<_>>())].0
}

/// Deals `durations` (descending): the jobs standing from the first second
/// take the longest (half of them run to the trace's last second), then HP
/// jobs are favoured over Spot ones (with noise); no job runs past the
/// trace's end.
fn deal_durations(all: &mut [SpotJob], durations: Vec<f64>, rng: &mut Rng) {
    let mut keyed: Vec<(f64, usize)> = (0..all.len())
        .map(|i| {
            let j = &all[i];
            let key = if j.submit == 0 && j.hp { 100.0 } else { f64::from(u8::from(j.hp)) * 0.7 + rng.normal() };
            (key, i)
        })
        .collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (k, ((_, i), d)) in keyed.into_iter().zip(durations).enumerate() {
        let j = &mut all[i];
        let to_end = PERIOD_S - 1 - j.submit;
        j.duration = if j.submit == 0 && j.hp && k % 2 == 0 { to_end } else { (d.round() as i64).clamp(1, to_end) };
    }
}

/// GPU-seconds a job asks inside [0, window).
fn demand(j: &SpotJob, workers: u32, window: i64) -> f64 {
    let overlap = (j.submit + j.duration).min(window) - j.submit;
    (j.per_worker as f64) * workers as f64 * overlap.max(0) as f64
}

/// Scales model `m`'s worker counts by the factor that makes its offered
/// load the target (a job keeps at least one worker). When even one worker
/// per job asks too much (a small model at a small scale, where one
/// standing job weighs a lot), the GPUs per worker of the largest askers
/// are halved until the load is the target.
fn calibrate(all: &mut [SpotJob], m: usize, model: &Model, window: i64, cap: u64) {
    let idx: Vec<usize> = (0..all.len()).filter(|&i| all[i].model == m).collect();
    let target = model.load * cap as f64 * window as f64;
    shrink(all, &idx, target, window);
    let scaled = |w: u32, k: f64| ((w as f64 * k).round() as u32).clamp(1, 4096);
    let load = |k: f64| idx.iter().map(|&i| demand(&all[i], scaled(all[i].workers, k), window)).sum::<f64>();
    let (mut lo, mut hi) = (-6.0f64, 6.0f64);
    for _ in 0..50 {
        let mid = 0.5 * (lo + hi);
        if load(mid.exp()) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let k = (0.5 * (lo + hi)).exp();
    for &i in &idx {
        all[i].workers = scaled(all[i].workers, k);
    }
}

/// Halves the GPUs per worker of the jobs asking the most (one worker each)
/// while their load exceeds `target`.
fn shrink(all: &mut [SpotJob], idx: &[usize], target: f64, window: i64) {
    let load = |all: &[SpotJob]| idx.iter().map(|&i| demand(&all[i], 1, window)).sum::<f64>();
    let mut by_ask: Vec<usize> = idx.to_vec();
    by_ask.sort_by(|&a, &b| demand(&all[b], 1, window).total_cmp(&demand(&all[a], 1, window)).then(a.cmp(&b)));
    let mut current = load(all);
    for &i in by_ask.iter().cycle().take(4 * by_ask.len()) {
        if current <= target {
            return;
        }
        if all[i].per_worker > 1 {
            let before = demand(&all[i], 1, window);
            all[i].per_worker /= 2;
            current -= before - demand(&all[i], 1, window);
        }
    }
}

/// The offered load of model `m` over [0, window): mean GPUs asked / GPUs.
#[cfg(test)]
fn offered_load(all: &[SpotJob], m: usize, window: i64, cap: u64) -> f64 {
    let asked: f64 = all.iter().filter(|j| j.model == m).map(|j| demand(j, j.workers, window)).sum();
    asked / (cap as f64 * window as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_duration_quantiles_are_the_anchors() {
        assert!((duration_at(0.9) - P90_S).abs() < 1e-6);
        assert!((duration_at(0.99) - P99_S).abs() < 1e-3);
        assert!((duration_at(0.5) - 1800.0).abs() < 1e-6);
        // Halfway between the 0.9 and 0.99 anchors in level: the geometric mean.
        assert!((duration_at(0.945) / (P90_S * P99_S).sqrt() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn loads_are_calibrated_and_durations_stay_inside_the_trace() {
        // Scale 0.04: a fifth of the nodes and of the six months.
        let mut rng = Rng::new(3);
        let cap = super::super::models::capacity(&super::super::models::nodes(0.2, &mut rng));
        let window = PERIOD_S / 5;
        let all = jobs(18_675, window, &cap, 24, &mut rng);
        assert_eq!(all.len(), 18_675);
        for (m, model) in MODELS.iter().enumerate() {
            let load = offered_load(&all, m, window, cap[m]);
            assert!((load / model.load - 1.0).abs() < 0.05, "{}: {load}", model.name);
        }
        assert!(all.iter().all(|j| j.duration >= 1 && j.submit + j.duration < PERIOD_S));
        assert!(all[0].submit == 0 && all[0].hp);
        let hp = all.iter().filter(|j| j.hp).count() as f64 / all.len() as f64;
        assert!((hp - HP_SHARE).abs() < 0.01, "{hp}");
    }
}
