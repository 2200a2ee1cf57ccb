//! The one integration-test binary: runs the `tracelab` CLI end to end
//! against `data-samples/`, the real files in `tests/fixtures/real-traces/`
//! and the `tests/malformed/` corpus, and cross-checks the Parquet it writes
//! with a second engine (DuckDB, through `tests/crosscheck/*.py`).

mod analyze_helios;
mod analyze_pai;
mod analyze_pai_paper;
mod analyze_philly;
mod common;
mod export;
mod ingest;
mod malformed;
mod query;
mod report;
mod schema;
mod synth;
mod tables;
