//! `Store.simulate`: a replay through `tracelab_workload::options`, the
//! functions `tracelab simulate` calls, from keyword arguments named as the
//! command's options (`--fair-by` is `fair_by`). Values are taken as given
//! (lists already joined by the Python side); the library checks them.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use tracelab_analysis::render;
use tracelab_schema::error::Error;
use tracelab_workload::options::Options;
use tracelab_workload::pollux::ElasticSource;
use tracelab_workload::{results, CustomRef, Source};

use crate::errors::to_py;
use crate::policy::{Failure, Policies};
use crate::progress::{self, Hook};
use crate::table::Table;

/// A Python policy of a call: its place in the list of policies, its name
/// in the results, whether it takes full control, the object.
pub type Given = (usize, String, bool, Py<PyAny>);

/// What a replay returns: the JSON document and the tidy table `analyze`
/// gives, and (when asked) the per-job rows of every run.
pub type Replayed = (String, Table, Option<Table>);

/// Runs a replay with `options` over `store` (None: a CSV job list only),
/// with the Python policies `custom` beside the named ones. Without Python
/// policies the work runs with the interpreter's lock released.
pub fn simulate(
    py: Python<'_>,
    store: &tracelab_store::Store,
    given: &Bound<'_, PyDict>,
    threads: Option<usize>,
    custom: Vec<Given>,
    jobs: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<Replayed> {
    let options = options(given)?;
    let hook = progress.map(Hook::new);
    if custom.is_empty() {
        let done = py.detach(|| replay(&options, store, threads, None, jobs, hook.as_ref()));
        return progress::finish(hook.as_ref(), done.map_err(to_py));
    }
    if options.is_elastic() {
        return Err(to_py(Error::Usage(
            "simulate: a Python policy replays trace jobs (rigid), not an elastic workload".into(),
        )));
    }
    let policies =
        Policies { objects: custom.iter().map(|c| c.3.clone_ref(py)).collect(), failure: Failure::default() };
    let refs: Vec<(usize, CustomRef)> =
        custom.iter().enumerate().map(|(index, c)| (c.0, CustomRef { index, name: c.1.clone(), full: c.2 })).collect();
    // The interpreter's lock stays held: the Python policies run on this thread.
    let done = replay(&options, store, threads, Some((&policies, &refs)), jobs, hook.as_ref());
    let done = match policies.failure.take() {
        Some(e) => Err(e),
        None => done.map_err(to_py),
    };
    progress::finish(hook.as_ref(), done)
}

/// The replay itself (elastic or rigid). Progress counts the runs (policy,
/// placement, load) done of the runs planned; an elastic replay reports
/// none.
fn replay(
    options: &Options,
    store: &tracelab_store::Store,
    threads: Option<usize>,
    custom: Option<(&Policies, &[(usize, CustomRef)])>,
    want_jobs: bool,
    hook: Option<&Arc<Hook>>,
) -> anyhow::Result<Replayed> {
    if options.is_elastic() {
        let req = options.elastic_request(threads)?;
        let store = matches!(req.source, ElasticSource::Trace(..)).then_some(store);
        let (out, runs) = tracelab_workload::pollux::run::replay(store, &req)?;
        let json = serde_json::to_string(&out.to_json())?;
        let jobs = want_jobs
            .then(|| {
                // As `--out`'s jobs.csv: the per-job table of every run.
                let mut o = tracelab_analysis::Output::new("jobs", "per job", "");
                o.table("jobs", tracelab_workload::pollux::run::jobs_table(&runs));
                Table::of(&render::tidy(&o, Some("jobs")))
            })
            .transpose()?;
        return Ok((json, Table::of(&render::tidy(&out, None))?, jobs));
    }
    let planned = options.plan_with(custom.map_or(&[][..], |c| c.1))?;
    let store = match planned.0.source {
        Source::Trace(_) => Some(store),
        Source::Csv(_) => None,
    };
    let mut frames = Vec::new();
    let (total, mut done) = (planned.1.len() as u64, 0);
    if let Some(h) = hook {
        h.set(0, total);
    }
    let each = |p: &tracelab_workload::Prepared, run: &tracelab_workload::Run| {
        if want_jobs {
            frames.push(results::jobs_frame(p, &run.spec, &run.result)?);
        }
        done += 1;
        if let Some(h) = hook {
            h.set(done, total);
        }
        Ok(())
    };
    let out = match custom {
        None => options.replay(planned, store, threads, each)?,
        Some((policies, _)) => options.replay_with(planned, store, threads, &mut |c| policies.make(c), each)?,
    };
    let json = serde_json::to_string(&out.to_json())?;
    let jobs = want_jobs.then(|| Table::of_frames(&frames)).transpose()?;
    Ok((json, Table::of(&render::tidy(&out, None))?, jobs))
}

/// The keywords `simulate` takes: `tracelab simulate`'s options, `-` as `_`
/// (`--store`, `--out`, `--threads` and the output flags are the Python
/// API's own).
const OPTIONS: [&str; 36] = [
    "trace",
    "jobs",
    "policy",
    "placement",
    "discipline",
    "predictor",
    "fair_by",
    "preempt_overhead",
    "share_slowdown",
    "interference",
    "online",
    "online_util",
    "online_mem",
    "online_profile",
    "default_gpu_util",
    "default_gpu_mem",
    "max_tenants",
    "online_bound",
    "window",
    "sample",
    "seed",
    "load",
    "cluster",
    "max_nodes",
    "max_gpus",
    "unplaceable",
    "until",
    "recipe",
    "start",
    "duration",
    "realistic",
    "tuned",
    "interval",
    "restart_delay",
    "no_interference_avoidance",
    "fairness_p",
];

/// The options from keyword arguments, starting from the command's defaults.
fn options(given: &Bound<'_, PyDict>) -> PyResult<Options> {
    let mut o = Options::default();
    for (key, value) in given.iter() {
        let key: String = key.extract()?;
        if !OPTIONS.contains(&key.as_str()) {
            return Err(to_py(Error::Usage(format!(
                "simulate: no option `{key}` (see `tracelab simulate --help`; `-` is `_`)"
            ))));
        }
        set(&mut o, &key, &value).map_err(|e| {
            let given = value.repr().map_or_else(|_| "?".to_string(), |r| r.to_string());
            to_py(Error::Usage(format!("simulate: {key}={given}: {e}")))
        })?;
    }
    Ok(o)
}

/// Sets option `key` to `v`; an unknown key or a value of the wrong type
/// is an error naming it.
fn set(o: &mut Options, key: &str, v: &Bound<'_, PyAny>) -> PyResult<()> {
    {
        match key {
            "trace" => o.trace = v.extract()?,
            "jobs" => o.jobs = v.extract::<Option<PathBuf>>()?,
            "policy" => o.policy = v.extract()?,
            "placement" => o.placement = v.extract()?,
            "discipline" => o.discipline = v.extract()?,
            "predictor" => o.predictor = v.extract()?,
            "fair_by" => o.fair_by = v.extract()?,
            "preempt_overhead" => o.preempt_overhead = v.extract()?,
            "share_slowdown" => o.share_slowdown = v.extract()?,
            "interference" => o.interference = v.extract()?,
            "online" => o.online = v.extract()?,
            "online_util" => o.online_util = v.extract()?,
            "online_mem" => o.online_mem = v.extract()?,
            "online_profile" => o.online_profile = v.extract()?,
            "default_gpu_util" => o.default_gpu_util = v.extract()?,
            "default_gpu_mem" => o.default_gpu_mem = v.extract()?,
            "max_tenants" => o.max_tenants = v.extract()?,
            "online_bound" => o.online_bound = v.extract()?,
            "window" => o.window = v.extract()?,
            "sample" => o.sample = v.extract()?,
            "seed" => o.seed = v.extract()?,
            "load" => o.load = v.extract()?,
            "cluster" => o.cluster = v.extract()?,
            "max_nodes" => o.max_nodes = v.extract()?,
            "max_gpus" => o.max_gpus = v.extract()?,
            "unplaceable" => {
                o.unplaceable_is_error = match v.extract::<Option<String>>()?.as_deref() {
                    None => None,
                    Some("skip") => Some(false),
                    Some("error") => Some(true),
                    Some(_) => return Err(pyo3::exceptions::PyValueError::new_err("expected skip or error")),
                }
            }
            "until" => o.until = v.extract()?,
            "recipe" => o.elastic.recipe = v.extract()?,
            "start" => o.elastic.start = v.extract()?,
            "duration" => o.elastic.duration = v.extract()?,
            "realistic" => o.elastic.realistic = v.extract()?,
            "tuned" => o.elastic.realistic = !v.extract::<bool>()?,
            "interval" => o.elastic.interval = v.extract()?,
            "restart_delay" => o.elastic.restart_delay = v.extract()?,
            "no_interference_avoidance" => o.elastic.no_interference_avoidance = v.extract()?,
            "fairness_p" => o.elastic.fairness_p = v.extract()?,
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "no such option (see `tracelab simulate --help`; `-` is `_`)",
                ))
            }
        }
    }
    Ok(())
}
