//! Per-type load normalization: the group runtimes of each machine type are
//! scaled by one factor so that the expected allocation of the machines
//! that receive work (GPU and CPU requested x runtime, over capacity x
//! window) meets its target. Without it a handful of long-running groups
//! decide the load of a small pool, and with it queueing; with it every
//! scale and seed runs its machines at the same realistic level.
//!
//! Targets: NSDI'22 §4 reports weak-GPU machines ~74 % GPU / 77 % CPU
//! allocated and high-end ones ~49 % / 35 %; we aim a little lower on
//! average because the diurnal peak runs ~1.4x the mean and queues must
//! stay short outside the V100 pool (A9/A10).

use super::group::Group;
use super::machines::{Machine, CPU};
use super::params as p;

/// Expected runtime multiplier of the job and instance noise (log-normal
/// with median 1: mean exp(sigma^2 / 2)).
fn noise_mean() -> f64 {
    ((p::JOB_NOISE * p::JOB_NOISE + p::INSTANCE_NOISE * p::INSTANCE_NOISE) / 2.0).exp()
}

/// Requested (GPU, CPU) resource-seconds of a group's jobs on its pool, at
/// its current runtime. A run cannot outlast the window; on average it
/// starts half way in.
fn demand(g: &Group, window: f64) -> (f64, f64) {
    let mut gpu = 0.0;
    let mut cpu = 0.0;
    let runtime = (g.runtime as f64 * noise_mean()).min(window / 2.0);
    for t in &g.tasks {
        let n = t.inst_num as f64 * t.stretch as f64 * g.jobs as f64 * runtime;
        gpu += n * t.plan_gpu.unwrap_or(0) as f64;
        if t.plan_gpu.is_some() || g.kind == CPU {
            cpu += n * t.plan_cpu as f64;
        }
    }
    (gpu, cpu)
}

/// Scales the runtimes of each type's groups to the allocation targets of
/// `params::TARGET_ALLOCATION` on `machines` over `window` seconds.
pub fn normalize(groups: &mut [Group], machines: &[Machine], type_share: &[f64; 6], window: f64) {
    for (kind, &share) in type_share.iter().enumerate() {
        let cap_gpu: f64 = machines.iter().filter(|m| m.kind == kind).map(|m| m.cap_gpu as f64).sum();
        let cap_cpu: f64 = machines.iter().filter(|m| m.kind == kind).map(|m| m.cap_cpu as f64).sum();
        // No group may take more than a small share of its type's full
        // capacity (scale-independent, so small scales sample the same
        // groups); recurring runs do not overlap without bound either.
        let (full_gpu, full_cpu) = (cap_gpu / share, cap_cpu / share);
        for g in groups.iter_mut().filter(|g| g.kind == kind) {
            g.runtime = g.runtime.min(recurring_cap(g.jobs, window));
            let (a, b) = demand(g, window);
            let share = if kind == CPU { b / full_cpu } else { a / full_gpu } / window;
            if share > p::GROUP_LOAD_CAP {
                g.runtime *= (p::GROUP_LOAD_CAP / share) as f32;
            }
        }
        let (mut gpu, mut cpu) = (0.0, 0.0);
        for g in groups.iter().filter(|g| g.kind == kind) {
            let (a, b) = demand(g, window);
            gpu += a;
            cpu += b;
        }
        let (target_gpu, target_cpu) = p::TARGET_ALLOCATION[kind];
        let mut factor = f64::INFINITY;
        if gpu > 0.0 && cap_gpu > 0.0 {
            factor = factor.min(target_gpu * cap_gpu * window / gpu);
        }
        if cpu > 0.0 && cap_cpu > 0.0 {
            factor = factor.min(target_cpu * cap_cpu * window / cpu);
        }
        if !factor.is_finite() {
            continue;
        }
        // The runtime levels are calibrated so that the factor is ~1 at
        // scale 1; the clamp keeps a small sample's heavy tail from moving
        // them far.
        let factor = factor.clamp(p::LOAD_FACTOR_RANGE.0, p::LOAD_FACTOR_RANGE.1);
        for g in groups.iter_mut().filter(|g| g.kind == kind) {
            g.runtime = (g.runtime as f64 * factor).clamp(1.0, p::MAX_RUNTIME) as f32;
            g.norm = factor as f32;
        }
    }
}

/// The longest runtime a group of `jobs` runs can have: its runs fit in the
/// window about `params::RECURRING_OVERLAP` at a time (a job resubmitted
/// every hour does not run for a month each time).
fn recurring_cap(jobs: u32, window: f64) -> f32 {
    (p::RECURRING_OVERLAP * window / jobs as f64).min(p::MAX_RUNTIME) as f32
}
