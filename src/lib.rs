//! tracelab: public GPU-cluster job traces (Alibaba PAI gpu-v2020, Microsoft
//! Philly, SenseTime Helios) in, normalized Parquet, analyses and figures out.
//!
//! Layers (a module imports only from layers below it):
//! - L0 [`schema`] (canonical tables and raw layouts), [`error`]
//! - L1 [`civil`] (naive calendar arithmetic), [`store`] (reading an ingested
//!   store), [`query`] (SQL over the store, named queries)
//! - L2 [`ingest`] (downloads -> Parquet store), [`synth`] (synthetic traces
//!   in the official raw formats)
//! - L4 [`cli`] (argv, printing, exit codes); `main.rs` only calls it.

pub mod civil;
pub mod cli;
pub mod error;
pub mod ingest;
pub mod query;
pub mod schema;
pub mod store;
pub mod synth;

pub use error::{Error, Result};
