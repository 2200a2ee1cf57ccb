//! Opening stores for the verbs: `--store` for the verbs that read one
//! (`tables`, `query`, `analyze`, `report`): the given store, or else the
//! bundled `data-samples/` store, ingested first when it is missing or
//! stale (ingest is a no-op when nothing changed), so every command works
//! right after the README's set-up. A store locked by an ingest is waited
//! for, with a note on stderr saying so.

use std::path::{Path, PathBuf};

use anyhow::Context;
use tracelab_ingest::{self as ingest, Plan};
use tracelab_schema::error::Error;
use tracelab_store::{Store, Tails};

/// `--store`, declared once for the verbs that read a store.
#[derive(Debug, Clone, clap::Args)]
pub struct StoreArg {
    /// The store to read: the folder `tracelab ingest` or `report` wrote,
    /// or the folder of traces they were given (its .tracelab store is
    /// used) [default: data-samples/.tracelab, ingested on first use]
    #[arg(long, value_name = "STORE")]
    pub store: Option<PathBuf>,
}

impl StoreArg {
    /// [`resolve`]s the store.
    pub fn open(&self) -> anyhow::Result<Store> {
        self.open_checking(Tails::Now)
    }

    /// [`StoreArg::open`], comparing each table file's tail with its
    /// manifest when `tails` says (`query`: [`Tails::OnUse`], when the
    /// statement reads the table).
    pub fn open_checking(&self, tails: Tails) -> anyhow::Result<Store> {
        resolve(self.store.as_ref(), tails)
    }
}

/// The store to read: `--store` (or the store `ingest` and `report` make
/// in that folder, [`locate`]), opened checking `tails`; else the bundled
/// samples' store (small: every tail is compared at the open).
pub fn resolve(store: Option<&PathBuf>, tails: Tails) -> anyhow::Result<Store> {
    if let Some(path) = store {
        return open_checking(&locate(path), tails);
    }
    let dir = bundled_samples().ok_or_else(|| {
        Error::Usage(
            "no --store given and no data-samples/ here; pass --store <store> (see `tracelab ingest --help`)".into(),
        )
    })?;
    let store = Plan::default_store(&dir);
    let plan = Plan { crash: super::crash_hook(), ..Plan::new(dir, store) };
    ingest_then_open(&plan, false)
}

/// The trace a verb reads when no `--trace` is given: the store's only
/// one; with several (or none) a usage error listing what it holds.
pub fn only_trace(store: &Store) -> anyhow::Result<String> {
    only_trace_or(store, "--trace")
}

/// [`only_trace`], the error naming `choose` as the way to choose one.
fn only_trace_or(store: &Store, choose: &str) -> anyhow::Result<String> {
    let held: Vec<&str> = store.manifests().iter().map(|(t, _)| t.name()).collect();
    match held.as_slice() {
        [one] => Ok(one.to_string()),
        [] => {
            Err(Error::Usage(format!("{} holds no trace; run `tracelab ingest <trace-dir>`", store.root().display()))
                .into())
        }
        many => Err(Error::Usage(format!(
            "{} holds {} traces ({}); choose one with {choose}",
            store.root().display(),
            many.len(),
            many.join(", ")
        ))
        .into()),
    }
}

/// The trace a replay reads when no `--trace` is given: the store's only
/// one; of several, PAI when the store holds it (the default before stores
/// of one trace were common); else a usage error listing what it holds.
/// `choose` names the option that chooses one (`--trace`, `--param trace=`).
pub fn default_trace(store: &Store, choose: &str) -> anyhow::Result<String> {
    let pai = tracelab_schema::Trace::Pai;
    match only_trace_or(store, choose) {
        Err(_) if store.has_trace(pai) => Ok(pai.name().to_string()),
        other => other,
    }
}

/// The store `path` names: `path` itself, or `path/.tracelab` when that is
/// a folder, the store `tracelab ingest DIR` and `tracelab report DIR`
/// create (a store never holds a `.tracelab` folder of its own), so
/// `--store` takes the folder those verbs were given.
pub fn locate(path: &Path) -> PathBuf {
    Plan::locate_store(path)
}

/// Opens a store to read, waiting (with a note) while an ingest writes it.
pub fn open(path: &Path) -> anyhow::Result<Store> {
    open_checking(path, Tails::Now)
}

/// [`open`], comparing the files' tails when `tails` says.
fn open_checking(path: &Path, tails: Tails) -> anyhow::Result<Store> {
    Ok(Store::open_checking(path, &super::progress::note, tails)?)
}

/// Ingests `plan` (a no-op when nothing changed), saying which traces were
/// ingested unless `quiet`, then opens the store.
pub fn ingest_then_open(plan: &Plan, quiet: bool) -> anyhow::Result<Store> {
    let report = crate::keeping_freed_memory(|| ingest::run(plan, super::progress::ingest(quiet)))
        .with_context(|| format!("ingest of {}", plan.dir.display()))?;
    if !quiet {
        for t in report.traces.iter().filter(|t| matches!(t, ingest::TraceResult::Ingested { .. })) {
            eprintln!("note: ingested {} into {}", t.manifest().trace, plan.store.display());
        }
    }
    open(&plan.store)
}

/// The folder of trace downloads a verb reads (`ingest DIR`, `report DIR`):
/// the given one, else the bundled samples; a usage error when it is not a
/// directory.
pub(super) fn trace_dir(dir: Option<&PathBuf>) -> anyhow::Result<PathBuf> {
    let dir = match dir {
        Some(d) => d.clone(),
        None => bundled_samples().ok_or_else(|| {
            Error::Usage("no DIR given and no data-samples/ here; pass the directory holding the traces".into())
        })?,
    };
    if !dir.is_dir() {
        return Err(Error::Usage(format!(
            "{}: not a directory; expected the folder holding the traces",
            dir.display()
        ))
        .into());
    }
    Ok(dir)
}

/// `./data-samples`, else the copy in the source tree tracelab was built from.
pub(super) fn bundled_samples() -> Option<PathBuf> {
    [PathBuf::from("data-samples"), Path::new(env!("CARGO_MANIFEST_DIR")).join("data-samples")]
        .into_iter()
        .find(|p| p.is_dir())
}
