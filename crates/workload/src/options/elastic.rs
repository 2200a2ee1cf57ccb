//! The options of elastic replays (pollux, optimus, tiresias: Pollux's
//! simulator's), as `tracelab simulate` and the Python package's `simulate`
//! take them, checked and turned into an [`ElasticRequest`]. An elastic
//! replay is chosen by its policies or its source: a Pollux workload CSV
//! (header `name,time,application,num_replicas,batch_size`), a shipped
//! artifact workload (`artifact:6`) or the `pollux` recipe over a trace.
//! Options shared with rigid replays (`policy`, `sample`, `load`, ...) are
//! [`Options`]' own.

use std::io::BufRead;
use std::path::Path;

use tracelab_schema::error::{Error, Result};
use tracelab_sim::elastic::workload::is_pollux_header;
use tracelab_sim::elastic::{ElasticConfig, ElasticPolicyName};
use tracelab_sim::Policy;

use super::Options;
use crate::pollux::recipe::Recipe;
use crate::pollux::run::{ElasticRequest, Sweep};
use crate::pollux::ElasticSource;
use crate::{select, ClusterSpec, TraceSel};

/// Options of elastic replays only (docs/simulate-elastic.md), with
/// `tracelab simulate`'s defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct ElasticOptions {
    /// With a trace: build the workload by this recipe (`pollux`).
    pub recipe: Option<String>,
    /// Recipe: hours to shift submissions back before taking hours of the day.
    pub start: u32,
    /// Recipe: hours of the day kept.
    pub duration: u32,
    /// Recipe: keep the trace's GPU counts instead of TunedJobs configurations.
    pub realistic: bool,
    /// Time between scheduling rounds, comma-separated for a sweep.
    pub interval: String,
    /// Time a job restarts after each re-allocation.
    pub restart_delay: String,
    /// Let pollux put two multi-node jobs on one node.
    pub no_interference_avoidance: bool,
    /// Fairness exponent p of pollux's generalised mean (<= 1).
    pub fairness_p: f64,
}

impl Default for ElasticOptions {
    fn default() -> ElasticOptions {
        ElasticOptions {
            recipe: None,
            start: 2,
            duration: 8,
            realistic: false,
            interval: "60s".into(),
            restart_delay: "30s".into(),
            no_interference_avoidance: false,
            fairness_p: -1.0,
        }
    }
}

fn usage(msg: String) -> Error {
    Error::Usage(msg)
}

impl Options {
    /// Whether these options ask for an elastic replay: an elastic policy
    /// name, a recipe, or an elastic workload file.
    pub fn is_elastic(&self) -> bool {
        let elastic_name = self.policy.split(',').any(|p| p.trim().parse::<ElasticPolicyName>().is_ok());
        elastic_name
            || self.elastic.recipe.is_some()
            || self.jobs.as_deref().is_some_and(|p| is_artifact(p) || pollux_csv(p))
    }

    /// The elastic replay these options ask for, checked; `threads` runs at
    /// a time (default 2).
    pub fn elastic_request(&self, threads: Option<usize>) -> Result<ElasticRequest> {
        let a = self;
        let e = &a.elastic;
        let policies = elastic_policies(&a.policy)?;
        let source = self.elastic_source()?;
        let (nodes, gpus) = match a.cluster.as_str() {
            "from-trace" => (16, 4),
            raw => match ClusterSpec::parse(raw)? {
                ClusterSpec::Shape { nodes, gpus } => (nodes, gpus),
                _ => return Err(usage(format!("--cluster {raw}: elastic replays take NODESxGPUS (default 16x4)"))),
            },
        };
        let intervals = e.interval.split(',').map(|r| span("interval", r.trim())).collect::<Result<Vec<_>>>()?;
        let loads = a.load.split(',').map(select::parse_load).collect::<Result<Vec<f64>>>()?;
        let base = ElasticConfig {
            restart_delay: span("restart-delay", &e.restart_delay)?,
            fairness_p: e.fairness_p,
            until: a.until.as_deref().map(|u| span("until", u)).transpose()?,
            ..ElasticConfig::default()
        };
        base.validate().map_err(|err| usage(err.to_string()))?;
        let sweep = Sweep {
            policies,
            loads,
            intervals,
            interference: self.interference_levels()?.into_iter().map(|l| (l, !e.no_interference_avoidance)).collect(),
        };
        Ok(ElasticRequest { source, nodes, gpus, sweep, base, threads: threads.unwrap_or(2) })
    }

    /// `--interference` is shared with the rigid replays, whose default is
    /// `constant`: for an elastic replay that default means no slowdown.
    fn interference_levels(&self) -> Result<Vec<f64>> {
        let raw = if self.interference == "constant" { "0" } else { self.interference.as_str() };
        raw.split(',')
            .map(|r| r.trim().parse::<f64>().ok().filter(|x| (0.0..1.0).contains(x)))
            .collect::<Option<Vec<f64>>>()
            .ok_or_else(|| {
                usage(format!(
                    "--interference {}: an elastic replay expects slowdowns in [0, 1), comma-separated",
                    self.interference
                ))
            })
    }

    fn elastic_source(&self) -> Result<ElasticSource> {
        let e = &self.elastic;
        if let Some(path) = &self.jobs {
            if e.recipe.is_some() {
                return Err(usage("--recipe builds a workload from --trace, not from --jobs".into()));
            }
            return match path.to_str() {
                Some(s) if s.starts_with("artifact:") => ElasticSource::parse_artifact(s),
                _ => Ok(ElasticSource::Csv(path.clone())),
            };
        }
        match e.recipe.as_deref() {
            Some("pollux") => {}
            Some(other) => return Err(usage(format!("--recipe {other}: the recipe known is pollux"))),
            None => {
                return Err(usage(
                    "elastic policies need an elastic workload: --jobs FILE.csv (Pollux's columns name,time,\
                     application,num_replicas,batch_size), --jobs artifact:N, or --trace T --recipe pollux"
                        .into(),
                ))
            }
        }
        let recipe = Recipe {
            jobs: self.sample.unwrap_or(160),
            start_h: e.start,
            duration_h: e.duration,
            seed: self.seed,
            tuned: !e.realistic,
        };
        Ok(ElasticSource::Trace(TraceSel::parse(&self.trace)?, recipe))
    }
}

/// The elastic policies of `--policy`; a rigid name is told apart.
fn elastic_policies(raw: &str) -> Result<Vec<ElasticPolicyName>> {
    let policies: Vec<ElasticPolicyName> = raw
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<ElasticPolicyName>().map_err(|e| {
                let rigid = s.parse::<Policy>().is_ok();
                let why = if rigid { " (a rigid policy: it replays trace jobs, not an elastic workload)" } else { "" };
                usage(format!("--policy {s}: {e}{why}"))
            })
        })
        .collect::<Result<_>>()?;
    if policies.is_empty() {
        return Err(usage("--policy: expected pollux, optimus or tiresias".into()));
    }
    Ok(policies)
}

fn span(option: &str, raw: &str) -> Result<tracelab_sim::Millis> {
    select::parse_span(raw).ok_or_else(|| usage(format!("--{option} {raw}: expected a duration such as 60s or 2m")))
}

fn is_artifact(p: &Path) -> bool {
    p.to_str().is_some_and(|s| s.starts_with("artifact:"))
}

/// Whether the file's header is Pollux's (an unreadable file is left to the reader's error).
fn pollux_csv(path: &Path) -> bool {
    let Ok(f) = std::fs::File::open(path) else { return false };
    let mut line = String::new();
    std::io::BufReader::new(f).read_line(&mut line).is_ok() && is_pollux_header(&line)
}
