//! `--store` for the verbs that read a store (`tables`, `query`, `analyze`):
//! the given store, or else the bundled `data-samples/` store, ingested
//! first when it is missing or stale (ingest is a no-op when nothing
//! changed), so every command works right after the README's set-up.

use std::path::PathBuf;
use std::sync::Arc;

use tracelab_ingest::{self as ingest, NoProgress, Plan};
use tracelab_schema::error::Error;
use tracelab_store::Store;

/// The store to read: `--store`, else the bundled samples' store.
pub fn resolve(store: Option<&PathBuf>) -> anyhow::Result<Store> {
    if let Some(path) = store {
        return Ok(Store::open(path)?);
    }
    let dir = super::ingest::bundled_samples().ok_or_else(|| {
        Error::Usage(
            "no --store given and no data-samples/ here; pass --store <store> (see `tracelab ingest --help`)".into(),
        )
    })?;
    let plan = Plan { store: Plan::default_store(&dir), dir, force: false };
    let report = ingest::run(&plan, Arc::new(NoProgress))?;
    if report.traces.iter().any(|t| matches!(t, ingest::TraceResult::Ingested { .. })) {
        eprintln!("note: ingested {} into {}", plan.dir.display(), plan.store.display());
    }
    Ok(Store::open(&plan.store)?)
}
