//! The Python extension module `tracelab._tracelab`: the store, its tables,
//! queries, analyses, replays and reports, ingests, synthetic traces for
//! Python, with progress for the long calls, each calling the library function the
//! matching CLI verb calls (no logic of its own beyond converting values),
//! and tables handed over through the Arrow C stream interface. The Python
//! face (keyword arguments, docstrings, type stubs) is in
//! `python/tracelab/`; this crate must not print or read the environment
//! beyond what the libraries do.

mod errors;
mod ingest;
mod open;
mod policy;
mod progress;
mod report;
mod simulate;
mod synth;
mod table;

use pyo3::prelude::*;

#[pymodule]
fn _tracelab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Before any query builds a thread pool: the settings the binary
    // applies, so a Python answer has the CLI's bytes.
    tracelab_store::polars_settings::apply();
    errors::register(m)?;
    m.add_class::<table::Table>()?;
    m.add_class::<open::Store>()?;
    m.add_class::<policy::job::Job>()?;
    m.add_class::<policy::full::State>()?;
    m.add_function(wrap_pyfunction!(ingest::open_store, m)?)?;
    m.add_function(wrap_pyfunction!(ingest::ingest, m)?)?;
    m.add_function(wrap_pyfunction!(synth::synth, m)?)?;
    Ok(())
}
