//! Simulation results as analyses, so that report specs can plot them like
//! any other typed result: `sim.summary`, `sim.jct-cdf`, `sim.wait-by-gpus`,
//! `sim.timeline` and `sim.load-sweep`. Each takes the replay's parameters
//! (trace, policies, placement, discipline, window, sample, seed, loads,
//! cluster); the views of one report that share them share one set of runs
//! (cached in the analysis context for the report's lifetime).
//!
//! This is the one module that uses the analysis crate's declarations
//! (`Analysis`, `Param`, `Args`, `Ctx`), so adapting to their refactoring
//! touches this file only.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tracelab_analysis::{Analysis, Args, Cell, Ctx, Output, Param, ResultTable, Scope};
use tracelab_schema::error::{Error, Result};
use tracelab_sim::{JobStatus, Placement, Policy, SimConfig};
use tracelab_stats::Dist;

use crate::prepare::{prepare, Prepared, Request, Source};
use crate::results::{self, Digest};
use crate::run::{plan, run_all, Run};
use crate::select::{parse_load, Selection, Window};
use crate::{ClusterSpec, TraceSel};

const PARAMS: &[Param] = &[
    Param { name: "trace", default: "pai", doc: "pai, philly, helios or helios:CLUSTER", choices: &[] },
    Param { name: "policies", default: "fifo,sjf,qssf", doc: "policies, comma-separated", choices: &[] },
    Param { name: "placement", default: "pack", doc: "placements, comma-separated", choices: &[] },
    Param {
        name: "discipline",
        default: "greedy",
        doc: "strict, greedy or easy",
        choices: &["strict", "greedy", "easy"],
    },
    Param { name: "window", default: "all", doc: "FROM..TO, busiest:DURATION or all", choices: &[] },
    Param { name: "sample", default: "0", doc: "replay this many jobs of the window (0 = all)", choices: &[] },
    Param { name: "seed", default: "1", doc: "seed of the sample and of random placement", choices: &[] },
    Param { name: "loads", default: "1", doc: "load factors, comma-separated", choices: &[] },
    Param { name: "cluster", default: "from-trace", doc: "from-trace or NODESxGPUS", choices: &[] },
];

const MIRRORS: &str = "tracelab simulate (docs/simulate.md)";

static VIEWS: [Analysis; 5] = [
    Analysis {
        id: "sim.summary",
        scope: Scope::Cross,
        mirrors: MIRRORS,
        summary:
            "Per-run summary of a replay: JCT, wait, slowdown, makespan, utilisation, fairness; jobs left out by reason",
        params: PARAMS,
        run: summary,
    },
    Analysis {
        id: "sim.jct-cdf",
        scope: Scope::Cross,
        mirrors: "PAI NSDI'22 Fig 13; Helios SC'21 QSSF evaluation (JCT per policy)",
        summary: "JCT and wait distributions of done jobs, one series per run",
        params: PARAMS,
        run: jct_cdf,
    },
    Analysis {
        id: "sim.wait-by-gpus",
        scope: Scope::Cross,
        mirrors: "PAI NSDI'22 Fig 5a bins (wait by GPU request), per run",
        summary: "Mean wait of done jobs by GPU-request bin, per run",
        params: PARAMS,
        run: wait_by_gpus,
    },
    Analysis {
        id: "sim.timeline",
        scope: Scope::Cross,
        mirrors: MIRRORS,
        summary: "GPU utilisation, queued and running jobs over time, per run",
        params: PARAMS,
        run: timeline,
    },
    Analysis {
        id: "sim.load-sweep",
        scope: Scope::Cross,
        mirrors: "Pollux OSDI'21 Fig 8a (JCT vs workload intensity)",
        summary: "Mean JCT and wait against the load factor, per policy",
        params: PARAMS,
        run: load_sweep,
    },
];

/// Every simulation view.
pub fn views() -> Vec<&'static Analysis> {
    VIEWS.iter().collect()
}

/// The view with this id.
pub fn find(id: &str) -> Option<&'static Analysis> {
    VIEWS.iter().find(|a| a.id == id)
}

/// A replay's workload and every run of it.
pub struct Experiment {
    pub prepared: Prepared,
    pub runs: Vec<Run>,
}

impl Experiment {
    pub fn digests(&self) -> Vec<Digest> {
        self.runs
            .iter()
            .map(|r| Digest {
                spec: r.spec.clone(),
                summary: r.result.summary.clone(),
                series: r.result.series.clone(),
            })
            .collect()
    }
}

type Cache = Mutex<HashMap<String, Arc<Experiment>>>;
const CACHE_KEY: &str = "workload.experiments";

/// The experiment the parameters describe, from the context's cache or run now.
fn experiment(ctx: &Ctx, args: &Args) -> Result<Arc<Experiment>> {
    let key = PARAMS.iter().map(|p| format!("{}={}", p.name, args.str(p.name))).collect::<Vec<_>>().join("&");
    let cache = ctx.shared.get::<Cache>(CACHE_KEY).unwrap_or_else(|| {
        let c = Arc::new(Cache::default());
        ctx.shared.put(CACHE_KEY, c.clone());
        c
    });
    if let Some(e) = cache.lock().expect("experiment cache").get(&key) {
        return Ok(e.clone());
    }
    let e = Arc::new(run_experiment(ctx, args)?);
    cache.lock().expect("experiment cache").insert(key, e.clone());
    Ok(e)
}

fn list<T: std::str::FromStr<Err = tracelab_sim::SimError>>(args: &Args, name: &str) -> Result<Vec<T>> {
    args.str(name)
        .split(',')
        .map(|s| s.trim().parse::<T>().map_err(|e| Error::Usage(format!("--param {name}: {e}"))))
        .collect()
}

fn run_experiment(ctx: &Ctx, args: &Args) -> Result<Experiment> {
    let sample = args.u64("sample")? as usize;
    let req = Request {
        source: Source::Trace(TraceSel::parse(args.str("trace"))?),
        selection: Selection {
            window: Window::parse(args.str("window"))?,
            sample: (sample > 0).then_some(sample),
            seed: args.u64("seed")?,
        },
        cluster: ClusterSpec::parse(args.str("cluster"))?,
        strict_cluster: false,
    };
    let base = SimConfig { discipline: list(args, "discipline")?[0], seed: args.u64("seed")?, ..SimConfig::default() };
    let loads = args.str("loads").split(',').map(parse_load).collect::<Result<Vec<f64>>>()?;
    let specs = plan(&list::<Policy>(args, "policies")?, &list::<Placement>(args, "placement")?, &loads, &base);
    let prepared = prepare(Some(&ctx.store), &req)?;
    let mut runs = Vec::new();
    run_all(&prepared, &specs, 2, |r| {
        runs.push(r);
        Ok(())
    })?;
    Ok(Experiment { prepared, runs })
}

fn base_output(id: &str, e: &Experiment) -> Output {
    Output::new(id, &format!("Replay of {}", e.prepared.source), crate::definition(&e.prepared, &e.digests()))
}

fn summary(ctx: &Ctx, args: &Args) -> Result<Output> {
    let e = experiment(ctx, args)?;
    Ok(crate::output("sim.summary", &e.prepared, &e.digests()))
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

fn jct_cdf(ctx: &Ctx, args: &Args) -> Result<Output> {
    let e = experiment(ctx, args)?;
    let mut out = base_output("sim.jct-cdf", &e);
    let jct = e.runs.iter().map(|r| (r.spec.label.clone(), Dist::from_samples(done_secs(r, |j| j.jct)))).collect();
    let wait =
        e.runs.iter().map(|r| (r.spec.label.clone(), Dist::from_samples(done_secs(r, |j| j.queue_time)))).collect();
    out.dists("jct", "JCT (s)", jct);
    out.dists("wait", "wait (s)", wait);
    Ok(out)
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

fn wait_by_gpus(ctx: &Ctx, args: &Args) -> Result<Output> {
    let e = experiment(ctx, args)?;
    let mut out = base_output("sim.wait-by-gpus", &e);
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
    Ok(out)
}

fn timeline(ctx: &Ctx, args: &Args) -> Result<Output> {
    let e = experiment(ctx, args)?;
    let digests = e.digests();
    let mut out = base_output("sim.timeline", &e);
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
    Ok(out)
}

fn load_sweep(ctx: &Ctx, args: &Args) -> Result<Output> {
    let e = experiment(ctx, args)?;
    let mut out = base_output("sim.load-sweep", &e);
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
    Ok(out)
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
        for v in views() {
            assert!(v.id.starts_with("sim."));
            assert_eq!(v.params.len(), PARAMS.len());
            assert!(find(v.id).is_some());
        }
        assert!(find("pai.wait-by-gpu-type").is_none());
    }
}
