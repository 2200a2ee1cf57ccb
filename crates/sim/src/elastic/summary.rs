//! From the replay's final state to its typed result: per-job records,
//! the summary and finish-time fairness (definitions in
//! [`crate::elastic::results`]).

use crate::elastic::app::{packed, Application};
use crate::elastic::config::ElasticConfig;
use crate::elastic::job::{BatchRule, ElasticJob, Runtime};
use crate::elastic::results::{ElasticJobResult, ElasticResult, ElasticStatus, ElasticSummary, RoundPoint};
use crate::metrics::stats::dist;
use crate::time::{from_secs, Millis};

pub(crate) fn result(
    jobs: &[ElasticJob],
    state: &[Runtime],
    rounds: &[RoundPoint],
    node_gpus: &[u32],
    config: &ElasticConfig,
    policy: &str,
    stopped: Millis,
) -> ElasticResult {
    let total: u32 = node_gpus.iter().sum();
    let per_node = node_gpus.iter().copied().max().unwrap_or(1);
    let records: Vec<ElasticJobResult> = jobs
        .iter()
        .zip(state)
        .enumerate()
        .map(|(i, (j, s))| record(i, j, s, stopped, rounds, total, per_node))
        .collect();
    ElasticResult {
        policy: policy.to_string(),
        summary: summarise(&records, rounds, config),
        jobs: records,
        rounds: rounds.to_vec(),
    }
}

fn record(
    index: usize,
    job: &ElasticJob,
    s: &Runtime,
    stopped: Millis,
    rounds: &[RoundPoint],
    total: u32,
    per_node: u32,
) -> ElasticJobResult {
    let end = s.done_at.map(from_secs);
    let status = match end {
        Some(_) => ElasticStatus::Done,
        None if job.submit <= stopped => ElasticStatus::Unfinished,
        None => ElasticStatus::NotSubmitted,
    };
    let jct = end.map(|e| e - job.submit);
    let ftf = end.and_then(|e| {
        let share = fair_share(rounds, job.submit, e, total, job.application);
        isolated_seconds(job.application, job.batch_size, share, per_node)
            .map(|iso| (e - job.submit) as f64 / 1000.0 / iso)
    });
    ElasticJobResult {
        index,
        name: job.name.clone(),
        application: job.application.name.to_string(),
        status,
        submit: job.submit,
        first_start: s.first_start,
        end,
        jct,
        restarts: s.restarts.unwrap_or(0),
        gpu_seconds: s.gpu_seconds,
        epochs: s.epoch,
        ftf,
    }
}

/// The cluster's GPUs over the mean number of active jobs at the rounds of
/// the job's lifetime, rounded, within [1, what the application can use].
fn fair_share(rounds: &[RoundPoint], submit: Millis, end: Millis, total: u32, app: &Application) -> u32 {
    let during: Vec<f64> =
        rounds.iter().filter(|r| r.time >= submit && r.time < end).map(|r| r.active as f64).collect();
    let mean = if during.is_empty() { 1.0 } else { during.iter().sum::<f64>() / during.len() as f64 };
    ((total as f64 / mean).round() as u32).clamp(1, app.max_replicas().max(1))
}

/// Seconds to train alone on `gpus` GPUs packed `per_node` to a node at
/// total batch `batch` (raised so every GPU gets the smallest measured
/// per-GPU batch), without restarts; `None` where nothing was measured.
pub fn isolated_seconds(app: &'static Application, batch: u32, gpus: u32, per_node: u32) -> Option<f64> {
    let batch = batch.max(app.min_local_bsz * gpus).min(app.max_batch_size);
    let mut run = Runtime::new(app, BatchRule::Fixed(batch));
    let placement: Vec<u32> = packed(gpus, per_node)
        .iter()
        .enumerate()
        .flat_map(|(k, &g)| std::iter::repeat_n(k as u32, g as usize))
        .collect();
    run.reallocate(placement, 0, 0.0).ok()?;
    run.advance(0.0, 1e12, 0.0).ok()?;
    run.done_at
}

fn summarise(records: &[ElasticJobResult], rounds: &[RoundPoint], config: &ElasticConfig) -> ElasticSummary {
    let done: Vec<&ElasticJobResult> = records.iter().filter(|r| r.status == ElasticStatus::Done).collect();
    let count = |s: ElasticStatus| records.iter().filter(|r| r.status == s).count();
    let first = records.iter().map(|r| r.submit).min().unwrap_or(0);
    let ftf: Vec<f64> = done.iter().filter_map(|r| r.ftf).collect();
    let submitted: Vec<&ElasticJobResult> =
        records.iter().filter(|r| r.status != ElasticStatus::NotSubmitted).collect();
    ElasticSummary {
        config: config.clone(),
        jobs_submitted: submitted.len(),
        jobs_done: done.len(),
        jobs_unfinished: count(ElasticStatus::Unfinished),
        jobs_not_submitted: count(ElasticStatus::NotSubmitted),
        jct_ms: dist(done.iter().filter_map(|r| r.jct).map(|m| m as f64).collect()),
        queue_ms: dist(done.iter().filter_map(|r| r.first_start.map(|s| (s - r.submit) as f64)).collect()),
        makespan_ms: done.iter().filter_map(|r| r.end).max().map_or(0, |e| e - first),
        mean_restarts: mean(submitted.iter().map(|r| r.restarts as f64)),
        gpu_hours: records.iter().map(|r| r.gpu_seconds).sum::<f64>() / 3600.0,
        ftf_mean: mean(ftf.iter().copied()),
        ftf_max: ftf.iter().copied().fold(f64::NAN, f64::max),
        ftf_fair_share: mean(ftf.iter().map(|&x| if x <= 1.0 { 1.0 } else { 0.0 })),
        rounds: rounds.len() as u64,
    }
}

fn mean(x: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = x.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        s / n as f64
    }
}
