//! The one integration-test binary: runs the `tracelab` CLI end to end
//! against `data-samples/`, the real files in `tests/fixtures/real-traces/`
//! and the `tests/malformed/` corpus, and cross-checks the Parquet it writes
//! with a second engine (DuckDB, through `tests/crosscheck/*.py`).

// Tests print what a failing run wrote, to show why it failed; helpers
// outside #[test] functions unwrap as the tests do.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

mod analyze_helios;
mod analyze_pai;
mod analyze_pai_paper;
mod analyze_philly;
mod analyze_registry;
mod analyze_seed;
mod common;
mod determinism;
mod export;
mod hardening_output;
mod hardening_store;
mod help;
mod ingest;
mod ingest_acme;
mod ingest_spot;
mod ingest_swf;
mod malformed;
mod one_trace;
mod output_files;
mod outputs;
mod query;
mod query_semantics;
mod report;
mod report_files;
mod report_folder;
mod report_traces;
mod schema;
mod simulate;
mod synth;
mod tables;
