//! Stores for Python: opening one (the bundled samples, ingested on first
//! use, when no path is given, as the CLI's `--store` default does),
//! ingesting a folder of traces, and the verbs that read a store: `tables`,
//! `query`, `analyze`. Each calls the library function its CLI verb calls;
//! the work runs with the interpreter's lock released.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use pyo3::prelude::*;

use tracelab_analysis::{self as analysis, render, Ctx};
use tracelab_ingest::{FileProgress, Limits, Plan, Progress};
use tracelab_query::{ask, tables, Limits as QueryLimits};
use tracelab_schema::error::Error;

use crate::errors::to_py;
use crate::table::Table;

/// An opened store (`tracelab.open`).
#[pyclass(module = "tracelab", frozen)]
pub struct Store {
    store: tracelab_store::Store,
}

#[pymethods]
impl Store {
    /// The store's folder.
    #[getter]
    fn path(&self) -> PathBuf {
        self.store.root().to_path_buf()
    }

    /// One row per table present (as `tracelab tables`).
    fn tables(&self, py: Python<'_>) -> PyResult<Table> {
        let store = &self.store;
        py.detach(|| Table::of(&tables::overview(&tables::describe(store)?))).map_err(to_py)
    }

    /// A named query or SQL text with its parameters (as `tracelab query`):
    /// DataFusion's record batches as they came, and the notes the CLI
    /// prints on stderr.
    #[pyo3(signature = (text, params, memory_limit=None))]
    fn query(
        &self,
        py: Python<'_>,
        text: &str,
        params: BTreeMap<String, String>,
        memory_limit: Option<u64>,
    ) -> PyResult<(Table, Vec<String>)> {
        let store = &self.store;
        let mut limits = QueryLimits::default();
        if let Some(bytes) = memory_limit {
            limits.memory_limit = bytes;
        }
        py.detach(|| -> anyhow::Result<(Table, Vec<String>)> {
            let a = ask::answer(store, &ask::named_or_sql(text)?, &params, limits)?;
            Ok((Table::new(a.schema, a.batches)?, a.notes))
        })
        .map_err(to_py)
    }

    /// A replay (as `tracelab simulate`) with the command's options as
    /// keywords and Python policies beside the named ones; the result as
    /// `analyze` gives it, and the per-job rows when `jobs`.
    #[pyo3(signature = (options, threads=None, custom=Vec::new(), jobs=false))]
    fn simulate(
        &self,
        py: Python<'_>,
        options: &Bound<'_, pyo3::types::PyDict>,
        threads: Option<usize>,
        custom: Vec<crate::simulate::Given>,
        jobs: bool,
    ) -> PyResult<crate::simulate::Replayed> {
        crate::simulate::simulate(py, &self.store, options, threads, custom, jobs)
    }

    /// An analysis with its parameters (as `tracelab analyze`): its JSON
    /// document (`--format json`) and its tidy table (`--format csv`).
    fn analyze(&self, py: Python<'_>, id: &str, params: Vec<(String, String)>) -> PyResult<(String, Table)> {
        let store = &self.store;
        py.detach(|| -> anyhow::Result<(String, Table)> {
            let found = analysis::find(id)?;
            let out = found.run(&Ctx::new(store.clone()), &params)?;
            let json = serde_json::to_string(&out.to_json())?;
            Ok((json, Table::of(&render::tidy(&out, None))?))
        })
        .map_err(to_py)
    }
}

/// Opens `path`, or the bundled samples' store (ingested first when missing
/// or stale) when `path` is None.
#[pyfunction]
#[pyo3(signature = (path=None))]
pub fn open_store(py: Python<'_>, path: Option<PathBuf>) -> PyResult<Store> {
    py.detach(|| match path {
        Some(p) => Ok(open(&p)?),
        None => {
            let dir = bundled_samples().ok_or_else(|| {
                Error::Usage("no store given and no data-samples/ here; pass the store's path".into())
            })?;
            run_ingest(&Plan { store: Plan::default_store(&dir), dir, force: false, limits: Limits::default() })
        }
    })
    .map(|store| Store { store })
    .map_err(to_py)
}

/// Ingests the traces in `dir` into `store` (`<dir>/.tracelab` when None),
/// as `tracelab ingest`, and opens the store.
#[pyfunction]
#[pyo3(signature = (dir, store=None, force=false))]
pub fn ingest(py: Python<'_>, dir: PathBuf, store: Option<PathBuf>, force: bool) -> PyResult<Store> {
    py.detach(|| {
        if !dir.is_dir() {
            return Err(Error::Usage(format!(
                "{}: not a directory; expected the folder holding the traces",
                dir.display()
            ))
            .into());
        }
        let store = store.unwrap_or_else(|| Plan::default_store(&dir));
        run_ingest(&Plan { dir, store, force, limits: Limits::default() })
    })
    .map(|store| Store { store })
    .map_err(to_py)
}

/// Ingests `plan` (a no-op when nothing changed) and opens its store; an
/// error names the folder as the CLI's does.
fn run_ingest(plan: &Plan) -> anyhow::Result<tracelab_store::Store> {
    tracelab_ingest::run(plan, Arc::new(Quiet)).with_context(|| format!("ingest of {}", plan.dir.display()))?;
    Ok(open(&plan.store)?)
}

fn open(path: &Path) -> Result<tracelab_store::Store, Error> {
    tracelab_store::Store::open(path)
}

/// `./data-samples`, else the copy in the source tree this module was built
/// from (an install from the checkout).
fn bundled_samples() -> Option<PathBuf> {
    [PathBuf::from("data-samples"), Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data-samples")]
        .into_iter()
        .find(|p| p.is_dir())
}

/// Ingest without progress output.
struct Quiet;

impl Progress for Quiet {
    fn file(&self, _: &str, _: u64) -> Box<dyn FileProgress> {
        Box::new(())
    }
}
