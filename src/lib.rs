//! tracelab: public GPU-cluster job traces (Alibaba PAI gpu-v2020, Microsoft
//! Philly, SenseTime Helios) in, normalized Parquet, analyses and figures out.
//!
//! Layers (a module imports only from layers below it):
//! - L0 [`schema`] (canonical tables and raw layouts), [`error`]
//! - L1 [`civil`] (naive calendar arithmetic), [`store`] (reading an ingested
//!   store), [`stats`] (distributions, correlations, tails; pure), [`query`]
//!   (SQL over the store, named queries)
//! - L2 [`analysis`] (named analyses -> typed results), [`ingest`] (downloads
//!   -> Parquet store), [`synth`] (synthetic traces in the official raw formats),
//!   [`plot`] (chart model -> deterministic SVG)
//! - L3 [`report`] (specs -> figures, index.html, summaries)
//! - L4 [`cli`] (argv, printing, exit codes); `main.rs` only calls it.

pub mod analysis;
pub mod civil;
pub mod cli;
pub mod error;
pub mod ingest;
pub mod plot;
pub mod query;
pub mod report;
pub mod schema;
pub mod stats;
pub mod store;
pub mod synth;

pub use error::{Error, Result};
