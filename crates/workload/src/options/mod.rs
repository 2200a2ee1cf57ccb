//! A replay's options as a user gives them (the text of `tracelab simulate`'s
//! options; the Python package's `simulate` keywords), checked and turned
//! into a [`Request`] and run plan before any work, and the options that
//! shape a result, recorded with it. The front ends only collect the values:
//! every rule and every error message is here, so both give the same
//! answers and the same errors. Elastic replays (pollux, optimus, tiresias)
//! take their own options ([`elastic`]).

use std::path::PathBuf;

use tracelab_schema::error::{Error, Result};
use tracelab_sim::{
    Discipline, Interference, Placement, Policy, Predictor, PreemptOverhead, ShareBy, SharingConfig, SimConfig,
};

use tracelab_analysis::Output;
use tracelab_store::Store;

pub mod elastic;

use crate::online::{self, Online, ProfileSource};
use crate::results::Digest;
use crate::run::{plan_choices, run_all_with, Choice, CustomRef, Run, RunSpec};
use crate::select::{self, Selection, Window};
use crate::{prepare, ClusterSpec, Prepared, Request, Source, TraceSel};
use tracelab_sim::custom::Custom;

/// The options of a replay, named and spelled as `tracelab simulate`'s
/// (lists are comma-separated text, durations text such as `30s`).
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// pai, philly, helios or helios:CLUSTER, acme or acme:CLUSTER, spot
    /// (ignored with `jobs`).
    pub trace: String,
    /// A CSV job list to replay instead of the trace.
    pub jobs: Option<PathBuf>,
    pub policy: String,
    pub placement: String,
    pub discipline: String,
    pub predictor: String,
    pub fair_by: String,
    pub preempt_overhead: String,
    pub share_slowdown: f64,
    pub interference: String,
    pub online: u32,
    pub online_util: f64,
    pub online_mem: f64,
    pub online_profile: Option<String>,
    pub default_gpu_util: f64,
    pub default_gpu_mem: f64,
    pub max_tenants: u32,
    pub online_bound: f64,
    pub window: String,
    pub sample: Option<usize>,
    pub seed: u64,
    pub load: String,
    pub cluster: String,
    pub max_nodes: u64,
    pub max_gpus: u64,
    /// Whether a job the cluster can never hold is an error (else it is
    /// left out); None: an error unless the cluster is the trace's own.
    pub unplaceable_is_error: Option<bool>,
    pub until: Option<String>,
    /// The options of elastic replays only.
    pub elastic: elastic::ElasticOptions,
}

impl Default for Options {
    /// `tracelab simulate`'s defaults (its tests check that they agree).
    fn default() -> Options {
        let sharing = SharingConfig::default();
        Options {
            trace: "pai".into(),
            jobs: None,
            policy: "fifo".into(),
            placement: "pack".into(),
            discipline: "greedy".into(),
            predictor: "group".into(),
            fair_by: "vc".into(),
            preempt_overhead: "helios".into(),
            share_slowdown: 1.0,
            interference: "constant".into(),
            online: 0,
            online_util: 26.0,
            online_mem: 2.0,
            online_profile: None,
            default_gpu_util: sharing.default_util_pct,
            default_gpu_mem: sharing.default_mem_gib,
            max_tenants: sharing.max_tenants,
            online_bound: sharing.online_bound,
            window: "all".into(),
            sample: None,
            seed: 1,
            load: "1".into(),
            cluster: "from-trace".into(),
            max_nodes: tracelab_sim::cluster::DEFAULT_MAX_NODES,
            max_gpus: tracelab_sim::cluster::DEFAULT_MAX_GPUS,
            unplaceable_is_error: None,
            until: None,
            elastic: elastic::ElasticOptions::default(),
        }
    }
}

fn usage(msg: String) -> Error {
    Error::Usage(msg)
}

/// Names in a comma-separated list, each parsed; errors name the option.
fn names<T: std::str::FromStr<Err = tracelab_sim::SimError>>(option: &str, raw: &str) -> Result<Vec<T>> {
    let items: Vec<&str> = raw.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if items.is_empty() {
        return Err(usage(format!("--{option}: expected at least one name (see --list)")));
    }
    items.iter().map(|s| s.parse::<T>().map_err(|e| usage(format!("--{option} {s}: {e}")))).collect()
}

/// The built-in policies in order with the caller's at their positions.
fn choices(builtins: Vec<Policy>, custom: &[(usize, CustomRef)]) -> Vec<Choice> {
    let mut out: Vec<Choice> = builtins.into_iter().map(Choice::Builtin).collect();
    let mut custom: Vec<&(usize, CustomRef)> = custom.iter().collect();
    custom.sort_by_key(|(at, _)| *at);
    for (at, c) in custom {
        out.insert((*at).min(out.len()), Choice::Custom(c.clone()));
    }
    out
}

fn one<T: std::str::FromStr<Err = tracelab_sim::SimError>>(option: &str, raw: &str) -> Result<T> {
    raw.parse::<T>().map_err(|e| usage(format!("--{option} {raw}: {e}")))
}

/// The jobs a replay or an export takes, checked: `window` parsed and a
/// sample of at least one job (the one rule `tracelab simulate`, `tracelab
/// export` and the Python package share).
pub fn selection(window: &str, sample: Option<usize>, seed: u64) -> Result<Selection> {
    let window = Window::parse(window)?;
    if sample == Some(0) {
        return Err(usage("--sample 0: expected at least one job".into()));
    }
    Ok(Selection { window, sample, seed })
}

impl Options {
    /// The validated request and run plan.
    pub fn plan(&self) -> Result<(Request, Vec<RunSpec>)> {
        self.plan_with(&[])
    }

    /// [`Options::plan`] with the caller's policies too: each `(position,
    /// policy)` goes at that position of the list of policies (`policy`'s
    /// names fill the other places, in order; `policy` may be empty then).
    pub fn plan_with(&self, custom: &[(usize, CustomRef)]) -> Result<(Request, Vec<RunSpec>)> {
        let a = self;
        let source = match &a.jobs {
            Some(path) => Source::Csv(path.clone()),
            None => Source::Trace(TraceSel::parse(&a.trace)?),
        };
        let cluster = ClusterSpec::parse(&a.cluster)?;
        let strict_cluster = a.unplaceable_is_error.unwrap_or(cluster != ClusterSpec::FromTrace);
        let selection = selection(&a.window, a.sample, a.seed)?;
        let limits = tracelab_sim::Limits::new(a.max_nodes, a.max_gpus)
            .map_err(|e| usage(format!("--max-nodes {} --max-gpus {}: {e}", a.max_nodes, a.max_gpus)))?;
        let base = self.config()?;
        let policies = if custom.is_empty() || !a.policy.trim().is_empty() {
            names::<Policy>("policy", &a.policy)?
        } else {
            Vec::new()
        };
        let wants_usage = base.sharing.interference == Interference::Utilization
            || custom.iter().any(|(_, c)| c.full)
            || policies.iter().any(|&p| SimConfig { policy: p, ..base.clone() }.sharing_policy());
        let online = self.online(&source)?;
        let req = Request { source, selection, cluster, strict_cluster, limits, usage: wants_usage, online };
        let loads = a.load.split(',').map(select::parse_load).collect::<Result<Vec<f64>>>()?;
        let specs =
            plan_choices(&choices(policies, custom), &names::<Placement>("placement", &a.placement)?, &loads, &base);
        for s in &specs {
            s.config.validate().map_err(|e| {
                usage(format!("--policy {} with --discipline {}: {e}", s.config.policy, s.config.discipline))
            })?;
        }
        Ok((req, specs))
    }

    /// Replays a plan from [`Options::plan`]: the jobs prepared (`store` is
    /// read for a trace, not for a CSV job list), the runs executed
    /// `threads` at a time (default 2, or 1 above 250,000 jobs: each run
    /// holds its own engine state), each finished run handed to `each`
    /// (the CLI writes its per-job rows there), and the replay's record
    /// with these options as its parameters.
    pub fn replay(
        &self,
        planned: (Request, Vec<RunSpec>),
        store: Option<&Store>,
        threads: Option<usize>,
        each: impl FnMut(&Prepared, &Run) -> Result<()>,
    ) -> Result<Output> {
        let mut none = |c: &CustomRef| -> Result<Custom> {
            Err(Error::Usage(format!("{}: a policy given by a caller, and none was", c.name)))
        };
        self.replay_with(planned, store, threads, &mut none, each)
    }

    /// [`Options::replay`] of a plan from [`Options::plan_with`]: `make`
    /// gives the engine-side policy of each of the caller's policies (for
    /// every run of it, and every partition of a partitioned cluster).
    pub fn replay_with(
        &self,
        (req, specs): (Request, Vec<RunSpec>),
        store: Option<&Store>,
        threads: Option<usize>,
        make: &mut dyn FnMut(&CustomRef) -> Result<Custom>,
        mut each: impl FnMut(&Prepared, &Run) -> Result<()>,
    ) -> Result<Output> {
        let prepared = prepare(store, &req)?;
        let threads = threads.unwrap_or(if prepared.workload.jobs.len() > 250_000 { 1 } else { 2 });
        let mut digests = Vec::new();
        run_all_with(&prepared, &specs, threads, make, |run| {
            each(&prepared, &run)?;
            digests.push(Digest::of(&run.spec, &run.result, &prepared.workload));
            Ok(())
        })?;
        let mut out = crate::output("simulate", &prepared, &digests);
        out.params = self.provenance();
        Ok(out)
    }

    /// The options that shape the result, as the output's parameters
    /// (printed and in result.json), so a result says how to reproduce it.
    pub fn provenance(&self) -> Vec<(String, String)> {
        let a = self;
        let source = a.jobs.as_ref().map_or(("trace", a.trace.clone()), |p| ("jobs", p.display().to_string()));
        let sample = a.sample.map_or("all".to_string(), |n| n.to_string());
        let pairs = [
            source,
            ("window", a.window.clone()),
            ("sample", sample),
            ("seed", a.seed.to_string()),
            ("load", a.load.clone()),
            ("cluster", a.cluster.clone()),
            ("policy", a.policy.clone()),
            ("placement", a.placement.clone()),
            ("discipline", a.discipline.clone()),
            ("predictor", a.predictor.clone()),
            ("share-slowdown", a.share_slowdown.to_string()),
            ("interference", a.interference.clone()),
            ("online", a.online.to_string()),
            ("online-util", a.online_util.to_string()),
            ("online-profile", a.online_profile.clone().unwrap_or_else(|| "default".into())),
            ("default-gpu-util", a.default_gpu_util.to_string()),
            ("default-gpu-mem", a.default_gpu_mem.to_string()),
            ("max-tenants", a.max_tenants.to_string()),
            ("online-bound", a.online_bound.to_string()),
            ("until", a.until.clone().unwrap_or_else(|| "none".into())),
        ];
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    fn config(&self) -> Result<SimConfig> {
        let a = self;
        let until = match &a.until {
            Some(raw) => Some(
                select::parse_span(raw)
                    .ok_or_else(|| usage(format!("--until {raw}: expected a duration such as 12h or 3d")))?,
            ),
            None => None,
        };
        let preempt_overhead = match a.preempt_overhead.as_str() {
            "helios" => PreemptOverhead::Helios,
            "none" => PreemptOverhead::None,
            raw => PreemptOverhead::Fixed(select::parse_span(raw).ok_or_else(|| {
                usage(format!("--preempt-overhead {raw}: expected helios, none or a duration such as 30s"))
            })?),
        };
        if !(a.share_slowdown >= 1.0 && a.share_slowdown.is_finite()) {
            return Err(usage(format!("--share-slowdown {}: expected a number >= 1", a.share_slowdown)));
        }
        let sharing = SharingConfig {
            interference: one::<Interference>("interference", &a.interference)?,
            default_util_pct: a.default_gpu_util,
            default_mem_gib: a.default_gpu_mem,
            max_tenants: a.max_tenants,
            online_bound: a.online_bound,
            ..SharingConfig::default()
        };
        sharing.validate().map_err(|e| usage(format!("sharing options: {e}")))?;
        Ok(SimConfig {
            sharing,
            discipline: one::<Discipline>("discipline", &a.discipline)?,
            predictor: one::<Predictor>("predictor", &a.predictor)?,
            fair_by: one::<ShareBy>("fair-by", &a.fair_by)?,
            preempt_overhead,
            share_slowdown: a.share_slowdown,
            seed: a.seed,
            until,
            ..SimConfig::default()
        })
    }

    /// `--online` and its options, checked.
    fn online(&self, source: &Source) -> Result<Option<Online>> {
        let a = self;
        if a.online == 0 {
            return Ok(None);
        }
        if a.online > online::MAX_SERVICES {
            return Err(usage(format!("--online {}: at most {} services", a.online, online::MAX_SERVICES)));
        }
        if !((0.0..=100.0).contains(&a.online_util) && a.online_mem.is_finite() && a.online_mem >= 0.0) {
            return Err(usage(format!(
                "--online-util {} / --online-mem {}: expected 0-100 % and a GPU memory >= 0 GiB",
                a.online_util, a.online_mem
            )));
        }
        let default = match source {
            Source::Trace(_) => "trace",
            Source::Csv(_) => "flat",
        };
        let profile = ProfileSource::parse(a.online_profile.as_deref().unwrap_or(default));
        Ok(Some(Online { services: a.online, util_pct: a.online_util, mem_gib: a.online_mem, profile }))
    }
}
