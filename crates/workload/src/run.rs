//! Running the replays: one engine run per (policy x placement x load) on a
//! prepared workload, two at a time on two threads, delivered in plan order
//! so every output is deterministic. A partitioned cluster (Helios VCs) runs
//! each partition separately and merges the results ([`crate::merge`]).
//! Policies given by the caller ([`CustomRef`]: the Python package's) are
//! planned beside the built-in ones and run on the caller's thread.

use tracelab_schema::error::{Error, Result};
use tracelab_sim::custom::{simulate_custom, Custom};
use tracelab_sim::{simulate, Cluster, Job, Placement, Policy, SimConfig, SimError, SimResult, Workload};

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
    /// The caller's policy this run replays instead of `config.policy`.
    pub custom: Option<CustomRef>,
}

/// A policy given by the caller, planned beside the built-in ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomRef {
    /// Which of the caller's policies (the caller's own numbering).
    pub index: usize,
    /// Its name in the results (unique among the run's policies).
    pub name: String,
    /// Whether it takes full control (a round per pass) rather than
    /// ordering the queue.
    pub full: bool,
}

/// One policy of a plan: built in or the caller's.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    Builtin(Policy),
    Custom(CustomRef),
}

impl RunSpec {
    /// The name of the run's policy, as results show it.
    pub fn policy_name(&self) -> &str {
        self.custom.as_ref().map_or(self.config.policy.name(), |c| c.name.as_str())
    }
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
    let choices: Vec<Choice> = policies.iter().map(|&p| Choice::Builtin(p)).collect();
    plan_choices(&choices, placements, loads, base)
}

/// [`plan`] over built-in and caller's policies, in the order given.
pub fn plan_choices(choices: &[Choice], placements: &[Placement], loads: &[f64], base: &SimConfig) -> Vec<RunSpec> {
    let mut out = Vec::new();
    for choice in choices {
        let (policy, custom) = match choice {
            Choice::Builtin(p) => (*p, None),
            Choice::Custom(c) => (base.policy, Some(c.clone())),
        };
        let name = custom.as_ref().map_or(policy.name(), |c| c.name.as_str()).to_string();
        for &placement in placements {
            for &load in loads {
                let mut label = name.clone();
                if placements.len() > 1 {
                    label = format!("{label}/{placement}");
                }
                if loads.len() > 1 {
                    label = format!("{label} x{load}");
                }
                let config = SimConfig { policy, placement, ..base.clone() };
                out.push(RunSpec { label, load, config, custom: custom.clone() });
            }
        }
    }
    out
}

/// Runs every spec, at most `threads` at a time, handing each result to
/// `sink` in plan order (a batch finishes before the next starts, so at
/// most `threads` results are held at once).
pub fn run_all(p: &Prepared, specs: &[RunSpec], threads: usize, sink: impl FnMut(Run) -> Result<()>) -> Result<()> {
    let mut none = |c: &CustomRef| -> Result<Custom> {
        Err(Error::Usage(format!("{}: a policy given by a caller, and none was", c.name)))
    };
    run_all_with(p, specs, threads, &mut none, sink)
}

/// [`run_all`] with the caller's policies: `make` gives a fresh engine-side
/// policy for a [`CustomRef`] (once per partition of a partitioned
/// cluster). Runs of the caller's policies go one at a time on this thread
/// (a Python policy is called under the interpreter's lock), the built-in
/// ones between them as `run_all` runs them; results still come in plan order.
pub fn run_all_with(
    p: &Prepared,
    specs: &[RunSpec],
    threads: usize,
    make: &mut dyn FnMut(&CustomRef) -> Result<Custom>,
    mut sink: impl FnMut(Run) -> Result<()>,
) -> Result<()> {
    let mut rest = specs;
    while !rest.is_empty() {
        let builtins = rest.iter().take_while(|s| s.custom.is_none()).count();
        if builtins == 0 {
            sink(run_one_with(p, &rest[0], make)?)?;
            rest = &rest[1..];
            continue;
        }
        run_builtin(p, &rest[..builtins], threads, &mut sink)?;
        rest = &rest[builtins..];
    }
    Ok(())
}

fn run_builtin(
    p: &Prepared,
    specs: &[RunSpec],
    threads: usize,
    sink: &mut impl FnMut(Run) -> Result<()>,
) -> Result<()> {
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
    run_one_with(p, spec, &mut |c| Err(Error::Usage(format!("{}: a policy given by a caller, and none was", c.name))))
}

/// One run of a built-in or a caller's policy (`make` gives the latter).
pub fn run_one_with(p: &Prepared, spec: &RunSpec, make: &mut dyn FnMut(&CustomRef) -> Result<Custom>) -> Result<Run> {
    let mut replay =
        |w: &Workload, cluster: &Cluster, cfg: &SimConfig| -> Result<std::result::Result<SimResult, SimError>> {
            Ok(match &spec.custom {
                None => simulate(w, cluster, cfg),
                Some(c) => simulate_custom(w, cluster, cfg, make(c)?),
            })
        };
    let mut jobs = p.workload.jobs.clone();
    scale_arrivals(&mut jobs, spec.load);
    let cfg = config(p, spec);
    if p.cluster.partitions.len() == 1 {
        let w = Workload { jobs, ..p.workload.clone() };
        let result = replay(&w, &p.cluster.partitions[0].cluster, &cfg)?.map_err(|e| err(p, spec, e, |j| j))?;
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
            let result = replay(&w, &part.cluster, &cfg)?.map_err(|e| err(p, spec, e, |k| ids[k as usize]))?;
            parts.push(merge::Part { ids, node_offset, result });
        }
        node_offset += nodes;
    }
    let w = Workload { jobs, ..p.workload.clone() };
    Ok(Run { spec: spec.clone(), result: merge::merge(parts, &w, p.cluster.total_gpus(), &cfg) })
}
