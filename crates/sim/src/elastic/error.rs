//! What an elastic replay can reject: bad options and clusters, a bad
//! workload file (named with its line and column), a configuration the
//! measurements do not cover, an allocation no cluster can honour.

use thiserror::Error;

use crate::error::SimError;

#[derive(Debug, Error)]
pub enum ElasticError {
    #[error(transparent)]
    Sim(#[from] SimError),
    /// A bad workload row: file, line (the header is line 1), column
    /// (empty when the whole row is wrong) and what is wrong.
    #[error("{file}: line {line}{}: {what}", if column.is_empty() { String::new() } else { format!(", column `{column}`") })]
    Workload { file: String, line: usize, column: String, what: String },
    /// A job asked for a configuration nothing was measured for.
    #[error("job {job}: {what}")]
    Model { job: String, what: String },
    /// A policy returned an allocation the cluster cannot honour.
    #[error("policy {policy} at {time_s} s: {what}")]
    Allocation { policy: String, time_s: f64, what: String },
    #[error("the cluster has no nodes or a node without GPUs")]
    EmptyCluster,
}
