//! The elastic replay loop, round by round as Pollux's simulator runs
//! (OSDI'21 §5.3): at every multiple of the interval the policy sees every
//! active job (submitted at or before the round, not finished) and
//! allocates the cluster; a job whose GPUs change restarts (it holds its
//! new GPUs through the restart delay without progress); then every job
//! trains until the next round. Between rounds jobs cross epoch ends,
//! finish and arrive at their exact times, but GPUs change hands only at
//! rounds: a job that finishes mid-round leaves its GPUs idle until the
//! next round, and a job that arrives waits for it.
//!
//! Interference: while two jobs that each span several nodes share a node,
//! both progress `1 - interference` as fast (the artifact's option; with
//! `pollux`'s interference avoidance it never happens).
//!
//! Rounds with no active job are skipped up to the round at or after the
//! next submission.

use crate::elastic::config::ElasticConfig;
use crate::elastic::error::ElasticError;
use crate::elastic::job::{ElasticJob, Runtime};
use crate::elastic::policy::{Allocation, ElasticPolicy, JobView, Round};
use crate::elastic::results::{ElasticResult, RoundPoint};
use crate::elastic::summary;
use crate::time::{to_secs, Millis};

/// Rounds in a row in which jobs wait and no GPU is allocated before the
/// replay is declared stuck (a policy that starves every job).
const MAX_IDLE_ROUNDS: u64 = 100_000;

/// Replays `jobs` on nodes of `node_gpus` GPUs under `policy`.
pub fn replay(
    jobs: &[ElasticJob],
    node_gpus: &[u32],
    config: &ElasticConfig,
    policy: &mut dyn ElasticPolicy,
) -> Result<ElasticResult, ElasticError> {
    config.validate()?;
    if node_gpus.is_empty() || node_gpus.contains(&0) {
        return Err(ElasticError::EmptyCluster);
    }
    let total: u32 = node_gpus.iter().sum();
    for j in jobs {
        policy.check(j, total).map_err(|what| ElasticError::Model { job: j.name.clone(), what })?;
    }
    let mut state: Vec<Runtime> = jobs.iter().map(|j| Runtime::new(j.application, policy.batch_rule(j))).collect();
    let mut idle_rounds = 0u64;
    let mut rounds = Vec::new();
    let mut t: Millis = 0;
    let restart_s = to_secs(config.restart_delay);
    loop {
        let active: Vec<usize> =
            (0..jobs.len()).filter(|&i| jobs[i].submit <= t && state[i].done_at.is_none()).collect();
        if let Some(next) = skip_to(jobs, &state, &active, t, config.interval) {
            t = next;
            continue;
        }
        if active.is_empty() || config.until.is_some_and(|u| t >= u) {
            break;
        }
        let allocations = allocate(jobs, &mut state, &active, node_gpus, t, restart_s, policy)?;
        apply(jobs, &mut state, &active, allocations, t, restart_s, policy.name(), node_gpus)?;
        rounds.push(point(&state, &active, t));
        idle_rounds = if rounds.last().is_some_and(|r| r.allocated_gpus == 0) { idle_rounds + 1 } else { 0 };
        if idle_rounds > MAX_IDLE_ROUNDS {
            return Err(ElasticError::Allocation {
                policy: policy.name().to_string(),
                time_s: to_secs(t),
                what: format!("no job has held a GPU for {MAX_IDLE_ROUNDS} rounds while jobs wait"),
            });
        }
        let slow = interference(&state, &active, node_gpus.len(), config.interference);
        let dt = to_secs(config.interval);
        for (&i, s) in active.iter().zip(slow) {
            state[i].advance(to_secs(t), dt, s).map_err(|e| model(&jobs[i], e))?;
        }
        t += config.interval;
    }
    Ok(summary::result(jobs, &state, &rounds, node_gpus, config, policy.name(), t))
}

/// With no active job, the first round at or after the next submission
/// (None: go on at `t`, or stop when nothing is left).
fn skip_to(jobs: &[ElasticJob], state: &[Runtime], active: &[usize], t: Millis, interval: Millis) -> Option<Millis> {
    if !active.is_empty() {
        return None;
    }
    let next =
        (0..jobs.len()).filter(|&i| state[i].done_at.is_none() && jobs[i].submit > t).map(|i| jobs[i].submit).min()?;
    Some((next + interval - 1).div_euclid(interval) * interval)
}

fn model(job: &ElasticJob, e: crate::elastic::app::throughput::Unmeasured) -> ElasticError {
    ElasticError::Model { job: job.name.clone(), what: e.to_string() }
}

/// The policy's allocations for the active jobs.
fn allocate(
    jobs: &[ElasticJob],
    state: &mut [Runtime],
    active: &[usize],
    node_gpus: &[u32],
    t: Millis,
    restart_s: f64,
    policy: &mut dyn ElasticPolicy,
) -> Result<Vec<Allocation>, ElasticError> {
    let views: Vec<JobView> = active
        .iter()
        .map(|&i| {
            let s = &mut state[i];
            JobView {
                index: i,
                application: jobs[i].application,
                submit: jobs[i].submit,
                replicas: jobs[i].replicas,
                batch_size: jobs[i].batch_size,
                attained_gpu_s: s.gpu_seconds,
                restarts: s.restarts.unwrap_or(0),
                epoch: s.epoch,
                progress: s.progress,
                max_observed_replicas: s.max_observed_replicas(),
                goodput: match s.rule {
                    crate::elastic::job::BatchRule::Adaptive => s.goodput(),
                    crate::elastic::job::BatchRule::Fixed(_) => None,
                },
                gpus: s.gpus.clone(),
            }
        })
        .collect();
    let round = Round { now: t, node_gpus, jobs: &views, restart_delay_s: restart_s };
    let out = policy.allocate(&round);
    if out.len() != views.len() {
        return Err(ElasticError::Allocation {
            policy: policy.name().to_string(),
            time_s: to_secs(t),
            what: format!("{} allocations for {} jobs", out.len(), views.len()),
        });
    }
    Ok(out)
}

/// Checks the allocations against the cluster and re-allocates the jobs
/// whose GPUs changed.
#[allow(clippy::too_many_arguments)]
fn apply(
    jobs: &[ElasticJob],
    state: &mut [Runtime],
    active: &[usize],
    allocations: Vec<Allocation>,
    t: Millis,
    restart_s: f64,
    policy: &str,
    node_gpus: &[u32],
) -> Result<(), ElasticError> {
    let bad = |what: String| ElasticError::Allocation { policy: policy.to_string(), time_s: to_secs(t), what };
    let mut used = vec![0u32; node_gpus.len()];
    for a in &allocations {
        for &g in &a.gpus {
            let slot = used.get_mut(g as usize).ok_or_else(|| bad(format!("node {g} does not exist")))?;
            *slot += 1;
        }
    }
    if let Some(k) = (0..used.len()).find(|&k| used[k] > node_gpus[k]) {
        return Err(bad(format!("{} GPUs on node {k}, which has {}", used[k], node_gpus[k])));
    }
    for (&i, a) in active.iter().zip(allocations) {
        if let Some(b) = a.batch {
            state[i].rule = crate::elastic::job::BatchRule::Fixed(b);
        }
        if a.gpus != state[i].gpus {
            state[i].reallocate(a.gpus, t, restart_s).map_err(|e| model(&jobs[i], e))?;
        } else if a.batch.is_some() {
            state[i].choose_batch().map_err(|e| model(&jobs[i], e))?;
        }
    }
    Ok(())
}

fn point(state: &[Runtime], active: &[usize], t: Millis) -> RoundPoint {
    let gpus = |i: &usize| state[*i].gpus.len() as u32;
    RoundPoint {
        time: t,
        allocated_gpus: active.iter().map(gpus).sum(),
        active: active.len() as u32,
        running: active.iter().filter(|i| gpus(i) > 0).count() as u32,
    }
}

/// The slowdown of each active job this round.
fn interference(state: &[Runtime], active: &[usize], nodes: usize, level: f64) -> Vec<f64> {
    if level == 0.0 {
        return vec![0.0; active.len()];
    }
    let multi = |i: usize| state[i].placement.len() > 1;
    let mut on = vec![0u32; nodes];
    for &i in active.iter().filter(|&&i| multi(i)) {
        let mut seen = state[i].gpus.clone();
        seen.dedup();
        seen.sort_unstable();
        seen.dedup();
        seen.iter().for_each(|&g| on[g as usize] += 1);
    }
    active
        .iter()
        .map(|&i| if multi(i) && state[i].gpus.iter().any(|&g| on[g as usize] > 1) { level } else { 0.0 })
        .collect()
}
