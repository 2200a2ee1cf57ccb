//! `tracelab.synth`: synthetic traces in the owners' raw formats through
//! `tracelab_synth::run`, as `tracelab synth` makes them; the files written
//! come back as rows (trace, file, bytes, rows, folder).

use std::path::PathBuf;

use anyhow::Context;
use pyo3::prelude::*;

use tracelab_schema::error::Error;
use tracelab_schema::Trace;
use tracelab_synth::{Effects, Plan};

use crate::errors::to_py;

/// One file written: trace, file, bytes, rows, folder.
type FileRow = (String, String, u64, u64, String);

#[pyfunction]
#[pyo3(signature = (trace, out, scale=0.01, seed=1, archive=false, corrupt=None, cpu_contention=true, colocation=true))]
#[allow(clippy::too_many_arguments)] // the verb's options, one keyword each
pub fn synth(
    py: Python<'_>,
    trace: &str,
    out: PathBuf,
    scale: f64,
    seed: u64,
    archive: bool,
    corrupt: Option<f64>,
    cpu_contention: bool,
    colocation: bool,
) -> PyResult<Vec<FileRow>> {
    let traces = traces(trace).map_err(to_py)?;
    let plan = Plan { traces, scale, seed, out, archive, corrupt, effects: Effects { cpu_contention, colocation } };
    py.detach(|| -> anyhow::Result<Vec<FileRow>> {
        plan.validate()?;
        let report = tracelab_synth::run(&plan).with_context(|| format!("synth into {}", plan.out.display()))?;
        Ok(report
            .traces
            .iter()
            .flat_map(|t| {
                let dir = t.dir.display().to_string();
                t.files.iter().map(move |f| (t.trace.name().to_string(), f.file.clone(), f.bytes, f.rows, dir.clone()))
            })
            .collect())
    })
    .map_err(to_py)
}

/// The traces synth generates for `name` (`all`: PAI, Philly and Helios;
/// SWF logs are not generated).
fn traces(name: &str) -> Result<Vec<Trace>, Error> {
    match name {
        "all" => Ok(vec![Trace::Pai, Trace::Philly, Trace::Helios]),
        _ => match Trace::from_name(name) {
            Some(t @ (Trace::Pai | Trace::Philly | Trace::Helios)) => Ok(vec![t]),
            _ => Err(Error::Usage(format!("synth: unknown trace `{name}`; expected pai, philly, helios or all"))),
        },
    }
}
