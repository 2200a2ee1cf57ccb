//! tracelab's errors as Python exceptions: `tracelab.Error`, and its
//! subclass `tracelab.UsageError` for what the CLI calls a usage error
//! (exit code 2: a wrong name, parameter or option). The message is the
//! CLI's, without its `error: ` prefix.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use tracelab_schema::error::Error;

pyo3::create_exception!(
    tracelab,
    TracelabError,
    PyException,
    "An error tracelab reports: bad input, a missing table, a failed query."
);
pyo3::create_exception!(
    tracelab,
    UsageError,
    TracelabError,
    "A usage error: a wrong name, parameter or option (the CLI's exit code 2)."
);

/// Adds `Error` and `UsageError` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<TracelabError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    Ok(())
}

/// An error of the libraries as the Python exception, with the CLI's text
/// (`{:#}`: the error and its causes, as `tracelab` prints them).
pub fn to_py(e: impl Into<anyhow::Error>) -> PyErr {
    let e: anyhow::Error = e.into();
    let message = format!("{e:#}");
    if e.downcast_ref::<Error>().is_some_and(|x| x.exit_code() == 2) {
        UsageError::new_err(message)
    } else {
        TracelabError::new_err(message)
    }
}
