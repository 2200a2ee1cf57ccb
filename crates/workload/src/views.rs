//! Simulation results as analyses, so that report specs can plot them like
//! any other typed result: `sim.summary`, `sim.jct-cdf`, `sim.wait-by-gpus`,
//! `sim.by-class`, `sim.timeline` and `sim.load-sweep`. Each takes the replay's parameters
//! (trace, policies, placement, discipline, window, sample, seed, loads,
//! cluster); the views of one report that share them share one set of runs,
//! and runs on the same workload (trace, window, sample, seed, cluster)
//! share its preparation (both kept in the analysis context for the
//! report's lifetime).
//!
//! This is the one module that uses the analysis crate's declarations
//! (`Analysis`, `Param`, `Args`, `Ctx`), so adapting to their refactoring
//! touches this file only.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;

use tracelab_analysis::params::{FromParam, Param, Params};
use tracelab_analysis::{About, Analysis, Analyze, Args, Cell, Ctx, Output, ParamSpec, ResultTable, Scope};
use tracelab_schema::error::Result;
use tracelab_sim::{Discipline, JobStatus, Placement, Policy, SimConfig};
use tracelab_stats::Dist;

use crate::prepare::{prepare, Prepared, Request, Source};
use crate::results::{self, Digest};
use crate::run::{plan, run_all, Run};
use crate::select::{parse_load, Selection, Window};
use crate::{ClusterSpec, TraceSel};

/// A comma-separated list of names the engine parses (`fifo,sjf`).
#[derive(Debug, Clone, PartialEq)]
pub struct List<T>(pub Vec<T>);

impl<T: FromStr> FromParam for List<T> {
    fn from_param(raw: &str) -> Option<Self> {
        raw.split(',').map(|s| s.trim().parse().ok()).collect::<Option<Vec<T>>>().map(List)
    }
}

/// One name the engine parses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Named<T>(pub T);

impl<T: FromStr> FromParam for Named<T> {
    fn from_param(raw: &str) -> Option<Self> {
        raw.parse().ok().map(Named)
    }
}

/// Load factors (`0.5,1,2`).
#[derive(Debug, Clone, PartialEq)]
pub struct Loads(pub Vec<f64>);

impl FromParam for Loads {
    fn from_param(raw: &str) -> Option<Self> {
        raw.split(',').map(|s| parse_load(s).ok()).collect::<Option<Vec<f64>>>().map(Loads)
    }
}

impl FromParam for TraceSel {
    fn from_param(raw: &str) -> Option<Self> {
        TraceSel::parse(raw).ok()
    }
}

impl FromParam for Window {
    fn from_param(raw: &str) -> Option<Self> {
        Window::parse(raw).ok()
    }
}

impl FromParam for ClusterSpec {
    fn from_param(raw: &str) -> Option<Self> {
        ClusterSpec::parse(raw).ok()
    }
}

const TRACE: Param<TraceSel> =
    Param::custom("trace", "pai", "the trace to replay", "pai, philly, helios or helios:CLUSTER");
const POLICIES: Param<List<Policy>> = Param::custom(
    "policies",
    "fifo,sjf,qssf",
    "policies, comma-separated",
    "policy names from `tracelab simulate --list`, comma-separated",
);
const PLACEMENT: Param<List<Placement>> = Param::custom(
    "placement",
    "pack",
    "placements, comma-separated",
    "placement names from `tracelab simulate --list`, comma-separated",
);
const DISCIPLINE: Param<Named<Discipline>> =
    Param::custom("discipline", "greedy", "the queue discipline", "strict, greedy or easy");
const WINDOW: Param<Window> =
    Param::custom("window", "all", "the part of the trace to replay", "FROM..TO, busiest:DURATION or all");
const SAMPLE: Param<u64> = Param::whole("sample", "0", "replay this many jobs of the window (0 = all)", 0, u64::MAX);
const SEED: Param<u64> = Param::whole("seed", "1", "seed of the sample and of random placement", 0, u64::MAX);
const LOADS: Param<Loads> =
    Param::custom("loads", "1", "load factors, comma-separated", "positive numbers, comma-separated");
const CLUSTER: Param<ClusterSpec> =
    Param::custom("cluster", "from-trace", "the cluster to replay on", "from-trace or NODESxGPUS");

/// The replay's parameters, shared by every view.
#[derive(Debug, Clone)]
pub struct SimParams {
    pub trace: TraceSel,
    pub policies: List<Policy>,
    pub placement: List<Placement>,
    pub discipline: Named<Discipline>,
    pub window: Window,
    pub sample: u64,
    pub seed: u64,
    pub loads: Loads,
    pub cluster: ClusterSpec,
}

/// The replay's parameters, in the order every view lists them.
pub(crate) const SIM_PARAMS: [ParamSpec; 9] = [
    TRACE.spec,
    POLICIES.spec,
    PLACEMENT.spec,
    DISCIPLINE.spec,
    WINDOW.spec,
    SAMPLE.spec,
    SEED.spec,
    LOADS.spec,
    CLUSTER.spec,
];

impl Params for SimParams {
    const DECLARED: &'static [ParamSpec] = &SIM_PARAMS;

    fn read(args: &Args) -> Self {
        SimParams {
            trace: args.get(&TRACE),
            policies: args.get(&POLICIES),
            placement: args.get(&PLACEMENT),
            discipline: args.get(&DISCIPLINE),
            window: args.get(&WINDOW),
            sample: args.get(&SAMPLE),
            seed: args.get(&SEED),
            loads: args.get(&LOADS),
            cluster: args.get(&CLUSTER),
        }
    }
}

const MIRRORS: &str = "tracelab simulate (docs/simulate.md)";

/// The definition every view shares: the replay's, filled in by the run
/// (it depends on what the store holds and on the runs).
fn definition(_: &SimParams) -> String {
    "{replay}".to_string()
}

/// Declares a view: a unit struct whose run is `$run`.
macro_rules! view {
    ($name:ident, $id:literal, $mirrors:expr, $summary:literal, $run:ident) => {
        pub struct $name;

        impl Analyze for $name {
            type Params = SimParams;
            const ABOUT: About =
                About { id: $id, scope: Scope::Cross, mirrors: $mirrors, summary: $summary, title: "Replay" };

            fn definition(p: &SimParams) -> String {
                definition(p)
            }

            fn run(ctx: &Ctx, p: &SimParams, out: &mut Output) -> Result<()> {
                let e = experiment(ctx, p)?;
                out.title = format!("Replay of {}", e.prepared.source);
                out.fill("replay", crate::definition(&e.prepared, &e.digests()));
                $run(&e, out)
            }
        }
    };
}

view!(
    SimSummary,
    "sim.summary",
    MIRRORS,
    "Per-run summary of a replay: JCT, wait, slowdown, makespan, utilisation, fairness; jobs left out by reason",
    summary
);
view!(
    JctCdf,
    "sim.jct-cdf",
    "PAI NSDI'22 Fig 13; Helios SC'21 QSSF evaluation (JCT per policy)",
    "JCT and wait distributions of done jobs, one series per run",
    jct_cdf
);
view!(
    WaitByGpus,
    "sim.wait-by-gpus",
    "PAI NSDI'22 Fig 5a bins (wait by GPU request), per run",
    "Mean wait of done jobs by GPU-request bin, per run",
    wait_by_gpus
);
view!(
    ByClass,
    "sim.by-class",
    "GFS ASPLOS'26 §5 (HP and Spot jobs: queueing, evictions), per run",
    "Per priority class (spot trace: HP, Spot): jobs, waits, JCT and evictions, per run",
    by_class
);
view!(Timeline, "sim.timeline", MIRRORS, "GPU utilisation, queued and running jobs over time, per run", timeline);
view!(
    LoadSweep,
    "sim.load-sweep",
    "Pollux OSDI'21 Fig 8a (JCT vs workload intensity)",
    "Mean JCT and wait against the load factor, per policy",
    load_sweep
);

pub(crate) static VIEWS: [Analysis; 6] = [
    Analysis::of(&SimSummary),
    Analysis::of(&JctCdf),
    Analysis::of(&WaitByGpus),
    Analysis::of(&ByClass),
    Analysis::of(&Timeline),
    Analysis::of(&LoadSweep),
];

/// A replay's workload and every run of it.
pub struct Experiment {
    /// Shared with the other experiments on the same workload.
    pub prepared: Arc<Prepared>,
    pub runs: Vec<Run>,
}

impl Experiment {
    pub fn digests(&self) -> Vec<Digest> {
        self.runs.iter().map(|r| Digest::of(&r.spec, &r.result, &self.prepared.workload)).collect()
    }
}

/// What a GPU-sharing view adds to a replay (nothing for the others).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extra {
    /// Read the jobs' measured usage.
    pub usage: bool,
    pub online: Option<crate::online::Online>,
    /// The sharing settings every run starts from.
    pub sharing: tracelab_sim::SharingConfig,
}

/// The experiment the parameters describe, from the context's shared
/// results or run now: the views of one replay share one set of runs, and a
/// view asking while another runs them waits for those runs.
fn experiment(ctx: &Ctx, p: &SimParams) -> Result<Arc<Experiment>> {
    experiment_with(ctx, p, &Extra::default())
}

/// The same with what a sharing view adds.
pub(crate) fn experiment_with(ctx: &Ctx, p: &SimParams, extra: &Extra) -> Result<Arc<Experiment>> {
    let key = if *extra == Extra::default() { format!("{p:?}") } else { format!("{p:?} {extra:?}") };
    ctx.shared.get_or_compute(&format!("workload.experiment {key}"), || run_experiment(ctx, p, extra).map(Arc::new))
}

fn run_experiment(ctx: &Ctx, p: &SimParams, extra: &Extra) -> Result<Experiment> {
    let req = Request {
        source: Source::Trace(p.trace.clone()),
        selection: Selection { window: p.window, sample: (p.sample > 0).then_some(p.sample as usize), seed: p.seed },
        cluster: p.cluster.clone(),
        strict_cluster: false,
        usage: extra.usage,
        online: extra.online.clone(),
        limits: tracelab_sim::Limits::default(),
    };
    let base =
        SimConfig { discipline: p.discipline.0, seed: p.seed, sharing: extra.sharing.clone(), ..SimConfig::default() };
    let specs = plan(&p.policies.0, &p.placement.0, &p.loads.0, &base);
    // The report's replays of one trace differ in policies or loads, not in
    // the workload: reading the full PAI trace to sample it takes seconds,
    // once.
    let prepared = ctx
        .shared
        .get_or_compute(&format!("workload.prepared {req:?}"), || prepare(Some(&ctx.store), &req).map(Arc::new))?;
    let mut runs = Vec::new();
    run_all(&prepared, &specs, 2, |r| {
        runs.push(r);
        Ok(())
    })?;
    Ok(Experiment { prepared, runs })
}

fn summary(e: &Experiment, out: &mut Output) -> Result<()> {
    let full = crate::output("sim.summary", &e.prepared, &e.digests());
    out.parts = full.parts;
    Ok(())
}

/// Seconds of done jobs, by `f`.
fn done_secs(r: &Run, f: impl Fn(&tracelab_sim::JobResult) -> Option<i64>) -> Vec<f64> {
    r.result
        .jobs
        .iter()
        .filter(|j| j.status == JobStatus::Done)
        .filter_map(|j| f(j).map(|ms| ms as f64 / 1000.0))
        .collect()
}

fn jct_cdf(e: &Experiment, out: &mut Output) -> Result<()> {
    let jct = e.runs.iter().map(|r| (r.spec.label.clone(), Dist::from_samples(done_secs(r, |j| j.jct)))).collect();
    let wait =
        e.runs.iter().map(|r| (r.spec.label.clone(), Dist::from_samples(done_secs(r, |j| j.queue_time)))).collect();
    out.dists("jct", "JCT (s)", jct);
    out.dists("wait", "wait (s)", wait);
    Ok(())
}

/// GPU-request bins: fractions of one GPU, 1, 2, 3-4, 5-8, 9-16, 17+.
const GPU_BINS: [(&str, f64); 7] = [
    ("<1", 1.0),
    ("1", 1.0001),
    ("2", 2.0001),
    ("3-4", 4.0001),
    ("5-8", 8.0001),
    ("9-16", 16.0001),
    ("17+", f64::INFINITY),
];

fn gpu_bin(gpus: f64) -> usize {
    GPU_BINS.iter().position(|(_, hi)| gpus < *hi).unwrap_or(GPU_BINS.len() - 1)
}

fn wait_by_gpus(e: &Experiment, out: &mut Output) -> Result<()> {
    let mut t = ResultTable::new(&["gpus", "run", "jobs", "mean_wait_s"]);
    for (b, (label, _)) in GPU_BINS.iter().enumerate() {
        for r in &e.runs {
            let waits: Vec<f64> = r
                .result
                .jobs
                .iter()
                .filter(|j| j.status == JobStatus::Done)
                .filter(|j| gpu_bin(e.prepared.workload.jobs[j.id as usize].gpu_milli as f64 / 1000.0) == b)
                .filter_map(|j| j.queue_time.map(|q| q as f64 / 1000.0))
                .collect();
            if waits.is_empty() {
                continue;
            }
            let mean = waits.iter().sum::<f64>() / waits.len() as f64;
            t.push(vec![(*label).into(), r.spec.label.clone().into(), Cell::Int(waits.len() as i64), mean.into()]);
        }
    }
    out.table("by-gpus", t);
    Ok(())
}

/// A priority class as the spot trace names it (`priority` of the job).
fn class_name(priority: u8) -> String {
    match priority {
        1 => "HP (priority 1)".into(),
        0 => "Spot (priority 0)".into(),
        p => format!("priority {p}"),
    }
}

/// Per run and priority class (highest first): jobs, done, wait and JCT of
/// done jobs, and the jobs evicted at least once.
fn by_class(e: &Experiment, out: &mut Output) -> Result<()> {
    let jobs = &e.prepared.workload.jobs;
    let mut classes: Vec<u8> = jobs.iter().map(|j| j.priority).collect();
    classes.sort_unstable_by(|a, b| b.cmp(a));
    classes.dedup();
    let mut t = ResultTable::new(&[
        "class",
        "run",
        "jobs",
        "done",
        "mean_wait_s",
        "p99_wait_s",
        "mean_jct_s",
        "evicted_jobs",
        "evicted_pct",
        "evictions",
    ]);
    for &c in &classes {
        for r in &e.runs {
            let mine: Vec<&tracelab_sim::JobResult> =
                r.result.jobs.iter().filter(|j| jobs[j.id as usize].priority == c).collect();
            let done: Vec<&&tracelab_sim::JobResult> = mine.iter().filter(|j| j.status == JobStatus::Done).collect();
            let secs = |f: &dyn Fn(&tracelab_sim::JobResult) -> Option<i64>| {
                Dist::from_samples(done.iter().filter_map(|j| f(j).map(|ms| ms as f64 / 1000.0)).collect())
            };
            let (wait, jct) = (secs(&|j| j.queue_time), secs(&|j| j.jct));
            let evicted = mine.iter().filter(|j| j.preemptions > 0).count();
            let evictions: u64 = mine.iter().map(|j| u64::from(j.preemptions)).sum();
            t.push(vec![
                class_name(c).into(),
                r.spec.label.clone().into(),
                Cell::Int(mine.len() as i64),
                Cell::Int(done.len() as i64),
                wait.mean().into(),
                wait.quantile(0.99).into(),
                jct.mean().into(),
                Cell::Int(evicted as i64),
                (100.0 * evicted as f64 / mine.len().max(1) as f64).into(),
                Cell::Int(evictions as i64),
            ]);
        }
    }
    out.table("by-class", t);
    Ok(())
}

fn timeline(e: &Experiment, out: &mut Output) -> Result<()> {
    let digests = e.digests();
    let span = digests.iter().filter_map(|d| d.series.time.last()).max().copied().unwrap_or(0);
    let interval = results::nice_interval(span, 200);
    let gpus = e.prepared.cluster.total_gpus() as f64;
    let series = results::resampled(&digests, interval);
    let hours = |t: &i64| *t as f64 / 3_600_000.0;
    let pick = |f: &dyn Fn(&tracelab_sim::Resampled, usize) -> f64| -> Vec<(String, Vec<(f64, f64)>)> {
        series
            .iter()
            .map(|(l, r)| (l.clone(), r.time.iter().enumerate().map(|(i, t)| (hours(t), f(r, i))).collect()))
            .collect()
    };
    out.curves(
        "utilisation",
        "hours from the window start",
        "GPUs allocated (%)",
        pick(&|r, i| 100.0 * r.allocated_gpus[i] / gpus),
    );
    out.curves("queued", "hours from the window start", "queued jobs", pick(&|r, i| r.queued[i]));
    out.curves("running", "hours from the window start", "running jobs", pick(&|r, i| r.running[i]));
    out.definition.push_str(&format!(" Time series: time-weighted means over bins of {} s.", interval / 1000));
    Ok(())
}

fn load_sweep(e: &Experiment, out: &mut Output) -> Result<()> {
    let mut keys: Vec<String> = Vec::new();
    let mut jct: HashMap<String, Vec<(f64, f64)>> = HashMap::new();
    let mut wait: HashMap<String, Vec<(f64, f64)>> = HashMap::new();
    let several = e.runs.iter().any(|r| r.spec.config.placement != e.runs[0].spec.config.placement);
    for r in &e.runs {
        let c = &r.spec.config;
        let key = if several { format!("{}/{}", c.policy, c.placement) } else { c.policy.to_string() };
        if !keys.contains(&key) {
            keys.push(key.clone());
        }
        let s = &r.result.summary;
        jct.entry(key.clone()).or_default().push((r.spec.load, s.jct_ms.mean / 1000.0));
        wait.entry(key).or_default().push((r.spec.load, s.queue_ms.mean / 1000.0));
    }
    let series = |m: &HashMap<String, Vec<(f64, f64)>>| keys.iter().map(|k| (k.clone(), m[k].clone())).collect();
    out.curves("mean-jct", "load factor", "mean JCT (s)", series(&jct));
    out.curves("mean-wait", "load factor", "mean wait (s)", series(&wait));
    out.table("summary", results::summary_table(&e.digests()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_bins_split_where_the_labels_say() {
        let at = |g: f64| GPU_BINS[gpu_bin(g)].0;
        assert_eq!(
            [at(0.25), at(1.0), at(2.0), at(3.0), at(4.0), at(5.0), at(8.0), at(16.0), at(17.0), at(64.0)],
            ["<1", "1", "2", "3-4", "3-4", "5-8", "5-8", "9-16", "17+", "17+"]
        );
    }

    #[test]
    fn every_view_declares_the_replay_parameters() {
        for v in &VIEWS {
            assert!(v.id.starts_with("sim."));
            assert_eq!(v.params.len(), SimParams::DECLARED.len());
            assert!(crate::find(v.id).is_some());
        }
        assert!(crate::find("pai.wait-by-gpu-type").is_none());
    }
}
