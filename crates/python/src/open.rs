//! An opened store for Python (`tracelab.open` is `crate::ingest::open_store`:
//! opening may ingest the bundled samples first), and the verbs that read it: `tables`, `query`,
//! `analyze`, `simulate`, `report`. Each calls the library function its
//! CLI verb calls; the work runs with the interpreter's lock released.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::prelude::*;

use tracelab_analysis::{self as analysis, render, Ctx};
use tracelab_query::{ask, tables, Limits as QueryLimits};

use crate::errors::to_py;
use crate::report::{Reported, Request};
use crate::table::Table;

/// An opened store (`tracelab.open`).
#[pyclass(module = "tracelab", frozen)]
pub struct Store {
    store: tracelab_store::Store,
}

impl Store {
    pub fn new(store: tracelab_store::Store) -> Store {
        Store { store }
    }
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
    #[pyo3(signature = (options, threads=None, custom=Vec::new(), jobs=false, progress=None))]
    fn simulate(
        &self,
        py: Python<'_>,
        options: &Bound<'_, pyo3::types::PyDict>,
        threads: Option<usize>,
        custom: Vec<crate::simulate::Given>,
        jobs: bool,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<crate::simulate::Replayed> {
        crate::simulate::simulate(py, &self.store, options, threads, custom, jobs, progress)
    }

    /// The report (as `tracelab report --store STORE --out OUT`), written
    /// to `out` or, with `check`, compared with it.
    #[pyo3(signature = (out, only=Vec::new(), formats=Vec::new(), check=false, specs=Vec::new(),
                        max_figures=None, cache=true, stamp=None, jobs=None, memory_budget=None, progress=None))]
    #[allow(clippy::too_many_arguments)] // the command's options, one keyword each
    fn report(
        &self,
        py: Python<'_>,
        out: PathBuf,
        only: Vec<String>,
        formats: Vec<String>,
        check: bool,
        specs: Vec<PathBuf>,
        max_figures: Option<usize>,
        cache: bool,
        stamp: Option<String>,
        jobs: Option<usize>,
        memory_budget: Option<f64>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Reported> {
        let req = Request { out, only, formats, check, specs, max_figures, cache, stamp, jobs, memory_budget };
        crate::report::report(py, &self.store, &req, progress)
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
