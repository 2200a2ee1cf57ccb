//! Elastic replays (Pollux, OSDI'21): where the jobs come from and how the
//! runs come back as typed outputs. The engine is
//! `tracelab_sim::elastic`; this module knows the sources:
//! - a Pollux workload CSV (`name,time,application,num_replicas,batch_size`);
//! - one of the artifact's shipped workloads (`artifact:6`,
//!   `artifact:workloads-0.5/6`, `artifact:workloads-realistic/6`);
//! - any ingested trace through Pollux's generator ([`recipe`]).
//!
//! [`run`] plans and runs the replays (policy x load x interval x
//! interference); [`views`] serves them to reports. Semantics:
//! `docs/simulate-elastic.md`.

pub mod export;
pub mod recipe;
pub mod run;
pub mod views;

use std::io::BufReader;
use std::path::PathBuf;

use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_sim::elastic::workload::read_workload;
use tracelab_sim::elastic::{artifact, ElasticJob};
use tracelab_store::Store;

use crate::load::{self, LeftOut, TraceSel};
use recipe::Recipe;

/// Where an elastic workload comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum ElasticSource {
    /// A Pollux workload CSV file.
    Csv(PathBuf),
    /// A shipped artifact workload: set (`workloads`, `workloads-0.5`, ...)
    /// and number (1-8).
    Artifact { set: String, number: usize },
    /// Pollux's generator over an ingested trace.
    Trace(TraceSel, Recipe),
}

impl ElasticSource {
    /// `artifact:6`, `artifact:workloads-0.5/6`: a shipped workload.
    pub fn parse_artifact(raw: &str) -> Result<ElasticSource> {
        let bad = || {
            Error::Usage(format!(
                "{raw}: expected artifact:N or artifact:SET/N with N in 1..=8 and SET one of {}",
                artifact::SETS.join(", ")
            ))
        };
        let rest = raw.strip_prefix("artifact:").ok_or_else(bad)?;
        let (set, n) = rest.split_once('/').unwrap_or(("workloads", rest));
        let number: usize = n.parse().map_err(|_| bad())?;
        if artifact::workload(set, number).is_none() {
            return Err(bad());
        }
        Ok(ElasticSource::Artifact { set: set.to_string(), number })
    }
}

/// An elastic workload ready to replay, with the accounting of its source.
#[derive(Clone, Debug)]
pub struct ElasticPrepared {
    /// What was read (a file, `artifact:workloads/6`, `philly`).
    pub source: String,
    pub jobs: Vec<ElasticJob>,
    /// GPUs of each node.
    pub node_gpus: Vec<u32>,
    /// From a trace: rows read, rows left out by reason, GPU-hour class of
    /// each job and the jobs the filters kept before the sample.
    pub trace: Option<TraceAccount>,
}

#[derive(Clone, Debug)]
pub struct TraceAccount {
    pub rows: u64,
    pub left_out: LeftOut,
    pub classes: Vec<usize>,
    pub trace_ids: Vec<String>,
    pub eligible: usize,
    pub recipe: Recipe,
}

/// The most GPUs per node the measured placements cover.
pub const MAX_GPUS_PER_NODE: u32 = 4;

/// Reads or generates the workload; `store` is needed for traces only.
pub fn prepare(store: Option<&Store>, source: &ElasticSource, nodes: u32, gpus: u32) -> Result<ElasticPrepared> {
    if nodes == 0 || gpus == 0 || gpus > MAX_GPUS_PER_NODE {
        return Err(Error::Usage(format!(
            "--cluster {nodes}x{gpus}: elastic replays need nodes of 1 to {MAX_GPUS_PER_NODE} GPUs (Pollux's measured \
             placements; its evaluation cluster is 16x4)"
        )));
    }
    let node_gpus = vec![gpus; nodes as usize];
    let bad = |e: tracelab_sim::elastic::ElasticError| Error::Usage(e.to_string());
    match source {
        ElasticSource::Csv(path) => {
            let file = std::fs::File::open(path).at(path)?;
            let jobs = read_workload(BufReader::new(file), &path.display().to_string()).map_err(bad)?;
            Ok(ElasticPrepared { source: path.display().to_string(), jobs, node_gpus, trace: None })
        }
        ElasticSource::Artifact { set, number } => {
            let name = format!("artifact:{set}/{number}");
            let text =
                artifact::workload(set, *number).ok_or_else(|| Error::Usage(format!("{name}: no such workload")))?;
            let jobs = read_workload(text.as_bytes(), &name).map_err(bad)?;
            Ok(ElasticPrepared { source: name, jobs, node_gpus, trace: None })
        }
        ElasticSource::Trace(sel, r) => {
            let store = store.ok_or_else(|| Error::Usage("--trace needs a store".into()))?;
            let loaded = load::load(store, sel, false)?;
            let g = recipe::generate(loaded, sel.trace, r)?;
            let trace = TraceAccount {
                rows: g.rows,
                left_out: g.left_out,
                classes: g.classes,
                trace_ids: g.trace_ids,
                eligible: g.eligible,
                recipe: r.clone(),
            };
            Ok(ElasticPrepared { source: sel.label(), jobs: g.jobs, node_gpus, trace: Some(trace) })
        }
    }
}
