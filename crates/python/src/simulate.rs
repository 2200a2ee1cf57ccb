//! `Store.simulate`: a replay through `tracelab_workload::options`, the
//! functions `tracelab simulate` calls, from keyword arguments named as the
//! command's options (`--fair-by` is `fair_by`). Values are taken as given
//! (lists already joined by the Python side); the library checks them.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use tracelab_analysis::render;
use tracelab_schema::error::Error;
use tracelab_workload::options::Options;
use tracelab_workload::pollux::ElasticSource;
use tracelab_workload::Source;

use crate::errors::to_py;
use crate::table::Table;

/// Runs a replay with `options` over `store` (None: a CSV job list only);
/// the result as `analyze` gives it: the JSON document and the tidy table.
pub fn simulate(
    py: Python<'_>,
    store: &tracelab_store::Store,
    given: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<(String, Table)> {
    let options = options(given)?;
    py.detach(|| -> anyhow::Result<(String, Table)> {
        if options.is_elastic() {
            let req = options.elastic_request(threads)?;
            let store = matches!(req.source, ElasticSource::Trace(..)).then_some(store);
            let (out, _) = tracelab_workload::pollux::run::replay(store, &req)?;
            let json = serde_json::to_string(&out.to_json())?;
            return Ok((json, Table::of(&render::tidy(&out, None))?));
        }
        let planned = options.plan()?;
        let store = match planned.0.source {
            Source::Trace(_) => Some(store),
            Source::Csv(_) => None,
        };
        let out = options.replay(planned, store, threads, |_, _| Ok(()))?;
        let json = serde_json::to_string(&out.to_json())?;
        Ok((json, Table::of(&render::tidy(&out, None))?))
    })
    .map_err(to_py)
}

/// The options from keyword arguments, starting from the command's defaults.
fn options(given: &Bound<'_, PyDict>) -> PyResult<Options> {
    let mut o = Options::default();
    for (key, value) in given.iter() {
        let key: String = key.extract()?;
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
