//! Typed errors of the engine: bad names, bad inputs, impossible jobs, CSV
//! rows. Every variant names what was wrong and what was expected, so the CLI
//! can print it as is.

use thiserror::Error;

/// Why a job can never run on a cluster, whatever the schedule.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Error, serde::Serialize, serde::Deserialize)]
pub enum Unplaceable {
    /// `gpu_milli == 0`: the engine schedules GPUs only.
    #[error("asks for no GPU")]
    NoGpuDemand,
    /// No node has the GPU type the job is pinned to.
    #[error("needs GPU type {0}, which no node has")]
    NoNodeOfType(u16),
    /// More GPUs than all nodes it may use together.
    #[error("needs {need} GPUs but the nodes it may use have {have} in total")]
    TooManyGpus { need: u32, have: u64 },
    /// More CPU than any node that could hold it.
    #[error("needs {need} milli-cores but the largest fitting node has {have}")]
    TooManyCpus { need: u32, have: u32 },
}

/// Everything the engine can reject.
#[derive(Debug, Error)]
pub enum SimError {
    #[error("unknown {kind} `{name}`; valid names: {valid}")]
    UnknownName { kind: &'static str, name: String, valid: String },
    #[error("the workload has no jobs")]
    EmptyWorkload,
    #[error("bad cluster: {0}")]
    BadCluster(String),
    /// A count past its ceiling (nodes or GPUs of a cluster, GPU types...).
    #[error("{have} {what}, more than the limit of {limit}")]
    TooLarge { what: &'static str, have: u64, limit: u64 },
    #[error("job {job}: {what}")]
    /// `job`: the job's id (`crate::job::JobId`).
    BadJob { job: u32, what: String },
    #[error("job {job} can never run: {reason}")]
    Unplaceable { job: u32, reason: Unplaceable },
    #[error("bad option: {0}")]
    BadOption(String),
    /// A bad CSV job list: the line, the column (empty when the whole row is
    /// wrong) and what is wrong.
    #[error("line {line}{}: {what}", if column.is_empty() { String::new() } else { format!(", column `{column}`") })]
    Csv { line: usize, column: String, what: String },
    /// A policy given by the caller (`crate::custom`) could not go on (the
    /// Python package's policy raised); the replay stopped at that pass.
    #[error("the policy stopped the replay: {0}")]
    PolicyStopped(String),
    #[error("reading the job list: {0}")]
    Io(#[from] std::io::Error),
}
