//! Elastic runs: one replay per policy x load x interval x interference
//! setting on a prepared workload, two at a time on two threads, returned
//! in plan order; and their typed output (summary, workload mix, the
//! source's accounting).

use tracelab_analysis::{Cell, Output, ResultTable};
use tracelab_schema::error::{Error, Result};
use tracelab_sim::elastic::{self, ElasticConfig, ElasticPolicyName, ElasticResult};
use tracelab_sim::time::{to_secs, Millis};

use super::recipe::{CLASS_LABELS, PUBLISHED_MIX_PCT};
use super::ElasticPrepared;
use crate::results::accounting;

/// One planned elastic run.
#[derive(Clone, Debug, PartialEq)]
pub struct ElasticSpec {
    /// Unique within a plan: the policy, plus what varies.
    pub label: String,
    pub load: f64,
    pub config: ElasticConfig,
}

/// The settings a plan varies (each list non-empty).
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    pub policies: Vec<ElasticPolicyName>,
    pub loads: Vec<f64>,
    pub intervals: Vec<Millis>,
    /// (interference level, avoidance on).
    pub interference: Vec<(f64, bool)>,
}

/// The cross product, policy-major, each with `base`'s other options.
pub fn plan(s: &Sweep, base: &ElasticConfig) -> Vec<ElasticSpec> {
    let mut out = Vec::new();
    for &policy in &s.policies {
        for &load in &s.loads {
            for &interval in &s.intervals {
                for &(interference, avoid) in &s.interference {
                    let mut label = policy.name().to_string();
                    if s.loads.len() > 1 {
                        label.push_str(&format!(" x{load}"));
                    }
                    if s.intervals.len() > 1 {
                        label.push_str(&format!(" {}s", interval / 1000));
                    }
                    if s.interference.len() > 1 {
                        label.push_str(&format!(" i{interference}{}", if avoid { "" } else { " no-avoid" }));
                    }
                    let config =
                        ElasticConfig { policy, interval, interference, avoid_interference: avoid, ..base.clone() };
                    out.push(ElasticSpec { label, load, config });
                }
            }
        }
    }
    out
}

/// Runs every spec, two at a time, results in plan order.
pub fn run_all(
    p: &ElasticPrepared,
    specs: &[ElasticSpec],
    threads: usize,
) -> Result<Vec<(ElasticSpec, ElasticResult)>> {
    let mut out = Vec::new();
    for batch in specs.chunks(threads.max(1)) {
        let results: Vec<Result<ElasticResult>> = std::thread::scope(|s| {
            let handles: Vec<_> = batch.iter().map(|spec| s.spawn(move || run_one(p, spec))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(Error::Usage("an elastic replay thread panicked".into()))))
                .collect()
        });
        for (spec, r) in batch.iter().zip(results) {
            out.push((spec.clone(), r?));
        }
    }
    Ok(out)
}

/// One run: submissions divided by the load factor.
pub fn run_one(p: &ElasticPrepared, spec: &ElasticSpec) -> Result<ElasticResult> {
    let mut jobs = p.jobs.clone();
    for j in &mut jobs {
        j.submit = (j.submit as f64 / spec.load).round() as Millis;
    }
    elastic::simulate_elastic(&jobs, &p.node_gpus, &spec.config)
        .map_err(|e| Error::Usage(format!("{}: {e}", spec.label)))
}

const SUMMARY: [&str; 19] = [
    "run",
    "policy",
    "load",
    "interval_s",
    "interference",
    "avoid_interference",
    "jobs",
    "done",
    "mean_jct_s",
    "p50_jct_s",
    "p90_jct_s",
    "p99_jct_s",
    "mean_wait_s",
    "makespan_s",
    "restarts_per_job",
    "gpu_hours",
    "ftf_mean",
    "ftf_max",
    "ftf_fair_pct",
];

/// One row per run.
pub fn summary_table(runs: &[(ElasticSpec, ElasticResult)]) -> ResultTable {
    let mut t = ResultTable::new(&SUMMARY);
    let s = |ms: f64| ms / 1000.0;
    for (spec, r) in runs {
        let (m, c) = (&r.summary, &spec.config);
        t.push(vec![
            spec.label.clone().into(),
            c.policy.name().into(),
            spec.load.into(),
            to_secs(c.interval).into(),
            c.interference.into(),
            (if c.avoid_interference { "yes" } else { "no" }).into(),
            Cell::Int((m.jobs_submitted + m.jobs_not_submitted) as i64),
            Cell::Int(m.jobs_done as i64),
            s(m.jct_ms.mean).into(),
            s(m.jct_ms.p50).into(),
            s(m.jct_ms.p90).into(),
            s(m.jct_ms.p99).into(),
            s(m.queue_ms.mean).into(),
            s(m.makespan_ms as f64).into(),
            m.mean_restarts.into(),
            m.gpu_hours.into(),
            m.ftf_mean.into(),
            m.ftf_max.into(),
            (100.0 * m.ftf_fair_share).into(),
        ]);
    }
    t
}

/// Jobs, GPUs and batch sizes asked for, per application.
pub fn workload_table(p: &ElasticPrepared) -> ResultTable {
    let mut t = ResultTable::new(&["application", "jobs", "mean_gpus_asked", "mean_batch_size"]);
    for a in tracelab_sim::elastic::app::all() {
        let of: Vec<_> = p.jobs.iter().filter(|j| j.application.name == a.name).collect();
        if of.is_empty() {
            continue;
        }
        let n = of.len() as f64;
        t.push(vec![
            a.name.into(),
            Cell::Int(of.len() as i64),
            (of.iter().map(|j| j.replicas as f64).sum::<f64>() / n).into(),
            (of.iter().map(|j| j.batch_size as f64).sum::<f64>() / n).into(),
        ]);
    }
    t
}

/// A generated workload's GPU-hour class mix beside Pollux's published one.
pub fn mix_table(classes: &[usize]) -> ResultTable {
    let mut t = ResultTable::new(&["class", "jobs", "jobs_pct", "pollux_pct"]);
    let n = classes.len().max(1) as f64;
    for (c, label) in CLASS_LABELS.iter().enumerate() {
        let k = classes.iter().filter(|&&x| x == c).count();
        t.push(vec![(*label).into(), Cell::Int(k as i64), (100.0 * k as f64 / n).into(), PUBLISHED_MIX_PCT[c].into()]);
    }
    t
}

/// The runs as an output: summary, workload, and for a trace the
/// accounting of every row and the class mix.
pub fn output(id: &str, p: &ElasticPrepared, runs: &[(ElasticSpec, ElasticResult)]) -> Output {
    let mut out = Output::new(id, &format!("Elastic replay of {}", p.source), definition(p));
    out.table("summary", summary_table(runs));
    out.table("workload", workload_table(p));
    if let Some(t) = &p.trace {
        out.table("left-out", accounting("replayed", p.jobs.len(), &t.left_out, t.rows));
        out.table("mix", mix_table(&t.classes));
    }
    out
}

/// Where the workload came from, in one sentence's worth of words.
pub fn source_text(p: &ElasticPrepared) -> String {
    match &p.trace {
        Some(t) => format!(
            "{} jobs drawn by Pollux's generator (OSDI'21 artifact simulator/workload.py semantics: at least 60 s, under \
             1,000 GPU-hours, submitted at hours [{}, {}) of the day in the trace's local time, placed at that time of \
             day; applications by GPU-hour class; {}; seed {}) from {} of {} eligible jobs of {}",
            p.jobs.len(),
            t.recipe.start_h,
            t.recipe.start_h + t.recipe.duration_h,
            if t.recipe.tuned { "TunedJobs GPUs and batch sizes" } else { "the trace's GPUs" },
            t.recipe.seed,
            p.jobs.len(),
            t.eligible,
            p.source
        ),
        None => format!("{} jobs of {}", p.jobs.len(), p.source),
    }
}

/// What every elastic output states.
pub fn definition(p: &ElasticPrepared) -> String {
    let gpus: u32 = p.node_gpus.iter().sum();
    let source = source_text(p);
    format!(
        "Source: {source}. Cluster: {} nodes of {} GPUs ({gpus} GPUs). Elastic replay as Pollux's simulator runs it \
         (OSDI'21 §5.3): scheduling rounds every interval; a re-allocation restarts the job (no progress for the \
         restart delay); a job is done when its application's training reaches its last measured epoch, at the \
         goodput the artifact's measurements give its placement and batch size. pollux maximises the generalised \
         mean of speedups (fairness exponent p); optimus and tiresias keep the workload's batch sizes (tiresias also \
         its GPUs). Per run, over done jobs: JCT = completion - submission; wait = first GPUs - submission; \
         percentiles linear (numpy's default); makespan = last completion - first submission; restarts = \
         re-allocations after a job's first; GPU-hours held (restart delays included); finish-time fairness ρ = JCT / \
         the job's time alone on an equal share of the cluster (GPUs / mean active jobs over its lifetime, packed 4 \
         to a node, at its workload batch size), fair when <= 1. Load x: submission times divided by x. Engine \
         semantics: docs/simulate-elastic.md.",
        p.node_gpus.len(),
        p.node_gpus.first().copied().unwrap_or(0),
    )
}

/// One row per job and run (for `--out`): times in seconds.
pub fn jobs_table(runs: &[(ElasticSpec, ElasticResult)]) -> ResultTable {
    let mut t = ResultTable::new(&[
        "run",
        "job",
        "application",
        "status",
        "submit_s",
        "start_s",
        "end_s",
        "jct_s",
        "restarts",
        "gpu_hours",
        "epochs",
        "ftf",
    ]);
    let secs = |m: Option<Millis>| m.map_or(Cell::Null, |v| to_secs(v).into());
    for (spec, r) in runs {
        for j in &r.jobs {
            let status = match j.status {
                elastic::ElasticStatus::Done => "done",
                elastic::ElasticStatus::Unfinished => "unfinished",
                elastic::ElasticStatus::NotSubmitted => "not submitted",
            };
            t.push(vec![
                spec.label.clone().into(),
                j.name.clone().into(),
                j.application.clone().into(),
                status.into(),
                to_secs(j.submit).into(),
                secs(j.first_start),
                secs(j.end),
                secs(j.jct),
                Cell::Int(j.restarts as i64),
                (j.gpu_seconds / 3600.0).into(),
                Cell::Int(j.epochs as i64),
                j.ftf.map_or(Cell::Null, Cell::from),
            ]);
        }
    }
    t
}

/// Everything `tracelab simulate` needs for an elastic replay.
#[derive(Clone, Debug)]
pub struct ElasticRequest {
    pub source: super::ElasticSource,
    pub nodes: u32,
    pub gpus: u32,
    pub sweep: Sweep,
    pub base: ElasticConfig,
    pub threads: usize,
}

/// Prepares the workload and runs the plan: the printed output and the runs.
pub fn replay(
    store: Option<&tracelab_store::Store>,
    req: &ElasticRequest,
) -> Result<(Output, Vec<(ElasticSpec, ElasticResult)>)> {
    let p = super::prepare(store, &req.source, req.nodes, req.gpus)?;
    let specs = plan(&req.sweep, &req.base);
    for s in &specs {
        s.config.validate().map_err(|e| Error::Usage(format!("{}: {e}", s.label)))?;
    }
    let runs = run_all(&p, &specs, req.threads)?;
    Ok((output("simulate", &p, &runs), runs))
}
