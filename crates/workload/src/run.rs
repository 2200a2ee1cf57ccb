//! Running the replays: one engine run per (policy x placement x load) on a
//! prepared workload, two at a time on two threads, delivered in plan order
//! so every output is deterministic. A partitioned cluster (Helios VCs) runs
//! each partition separately and merges the results ([`crate::merge`]).

use tracelab_schema::error::{Error, Result};
use tracelab_sim::{simulate, Job, Placement, Policy, SimConfig, SimError, SimResult, Workload};

use crate::merge;
use crate::prepare::Prepared;
use crate::select::scale_arrivals;

/// One planned run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    /// Unique within a plan: the policy, plus the placement and the load
    /// when several are compared (`fifo`, `sjf/spread`, `qssf x2`).
    pub label: String,
    pub load: f64,
    pub config: SimConfig,
}

/// One finished run.
#[derive(Clone, Debug)]
pub struct Run {
    pub spec: RunSpec,
    /// Jobs by replayed-job id; node ids numbered across partitions.
    pub result: SimResult,
}

/// The cross product of the choices, policy-major, each with `base`'s
/// other options.
pub fn plan(policies: &[Policy], placements: &[Placement], loads: &[f64], base: &SimConfig) -> Vec<RunSpec> {
    let mut out = Vec::new();
    for &policy in policies {
        for &placement in placements {
            for &load in loads {
                let mut label = policy.name().to_string();
                if placements.len() > 1 {
                    label = format!("{label}/{placement}");
                }
                if loads.len() > 1 {
                    label = format!("{label} x{load}");
                }
                let config = SimConfig { policy, placement, ..base.clone() };
                out.push(RunSpec { label, load, config });
            }
        }
    }
    out
}

/// Runs every spec, at most `threads` at a time, handing each result to
/// `sink` in plan order (a batch finishes before the next starts, so at
/// most `threads` results are held at once).
pub fn run_all(p: &Prepared, specs: &[RunSpec], threads: usize, mut sink: impl FnMut(Run) -> Result<()>) -> Result<()> {
    for batch in specs.chunks(threads.max(1)) {
        let results: Vec<Result<Run>> = std::thread::scope(|s| {
            let handles: Vec<_> = batch.iter().map(|spec| s.spawn(move || run_one(p, spec))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(Error::Usage("a replay thread panicked".into()))))
                .collect()
        });
        for r in results {
            sink(r?)?;
        }
    }
    Ok(())
}

/// The run's configuration with what the workload knows filled in where
/// the run left it open: the online load profile and the GPU types' memory.
fn config(p: &Prepared, spec: &RunSpec) -> SimConfig {
    let mut cfg = spec.config.clone();
    let s = &mut cfg.sharing;
    if s.profile.is_none() {
        s.profile = p.profile.clone();
    }
    if s.gpu_mem_gib.is_empty() && p.gpu_mem_gib.iter().any(Option::is_some) {
        s.gpu_mem_gib = p.gpu_mem_gib.iter().map(|m| m.unwrap_or(s.default_gpu_mem_gib)).collect();
    }
    cfg
}

/// A failed run as a usage error naming the run and, when the engine names a
/// job, the trace's id of that job (`replayed` maps the engine's job number
/// to the replayed job).
fn err(p: &Prepared, spec: &RunSpec, e: SimError, replayed: impl Fn(u32) -> u32) -> Error {
    match e {
        SimError::BadJob { job, what } => {
            let j = replayed(job);
            let id = p.job_ids.get(j as usize).map_or("?", String::as_str);
            Error::Usage(format!("{}: job {id} (replayed job {j}): {what}", spec.label))
        }
        e => Error::Usage(format!("{}: {e}", spec.label)),
    }
}

/// One run: every partition, merged.
pub fn run_one(p: &Prepared, spec: &RunSpec) -> Result<Run> {
    let mut jobs = p.workload.jobs.clone();
    scale_arrivals(&mut jobs, spec.load);
    let cfg = config(p, spec);
    if p.cluster.partitions.len() == 1 {
        let w = Workload { jobs, ..p.workload.clone() };
        let result = simulate(&w, &p.cluster.partitions[0].cluster, &cfg).map_err(|e| err(p, spec, e, |j| j))?;
        return Ok(Run { spec: spec.clone(), result });
    }
    let mut parts = Vec::new();
    let mut node_offset = 0;
    for (i, part) in p.cluster.partitions.iter().enumerate() {
        let ids: Vec<u32> = (0..jobs.len() as u32).filter(|&j| p.partition_of[j as usize] == i as u32).collect();
        let nodes = part.cluster.nodes().len() as u32;
        if !ids.is_empty() {
            let sub = ids.iter().enumerate().map(|(k, &j)| Job { id: k as u32, ..jobs[j as usize].clone() }).collect();
            let usage = if p.workload.usage.is_empty() {
                Vec::new()
            } else {
                ids.iter().map(|&j| p.workload.usage[j as usize]).collect()
            };
            let w = Workload { jobs: sub, usage, ..p.workload.clone() };
            let result = simulate(&w, &part.cluster, &cfg).map_err(|e| err(p, spec, e, |k| ids[k as usize]))?;
            parts.push(merge::Part { ids, node_offset, result });
        }
        node_offset += nodes;
    }
    let w = Workload { jobs, ..p.workload.clone() };
    Ok(Run { spec: spec.clone(), result: merge::merge(parts, &w, p.cluster.total_gpus(), &cfg) })
}
