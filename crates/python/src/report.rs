//! `Store.report`: the report `tracelab report --store STORE --out OUT`
//! writes, through the functions the command calls (`tracelab_report`'s
//! `generate`, then `write` or, with `check`, `check`), with its options:
//! `--only`, `--formats`, `--spec`, `--max-figures`, `--no-cache`,
//! `--stamp` (the time given by the Python side), `--jobs`,
//! `--memory-budget`. The output folder is checked before any work and
//! published whole by the store's folder rules, so a folder tracelab did
//! not write is refused (docs/output-files.md).
//!
//! What the command prints on stderr (skipped specs and figures, notes,
//! waits for the folder's lock) comes back as notes; progress is the
//! number of analysis runs done of the runs the report needs.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use pyo3::prelude::*;

use tracelab_report::{self as report, schedule, Event, Formats, Plan, Spec};
use tracelab_schema::error::Error;
use tracelab_schema::Trace;
use tracelab_store::Store;

use crate::errors::to_py;
use crate::progress::{self, Hook};

/// The options of one report (the Python keywords).
pub struct Request {
    pub out: PathBuf,
    pub only: Vec<String>,
    pub formats: Vec<String>,
    pub check: bool,
    pub specs: Vec<PathBuf>,
    pub max_figures: Option<usize>,
    pub cache: bool,
    pub stamp: Option<String>,
    pub jobs: Option<usize>,
    pub memory_budget: Option<f64>,
}

/// What a report call returns: every file's path relative to `out`,
/// `summary.json`'s text, the counts (figures, tables, runs, runs from the
/// cache, figures skipped), the specs skipped, the notes, and with `check`
/// the differences from the folder on disk.
pub type Reported = (Vec<String>, String, [usize; 5], Vec<String>, Vec<String>, Option<Vec<String>>);

/// Generates the report of `store` and writes it to `out` (or compares it,
/// with `check`), the work with the interpreter's lock released.
pub fn report(py: Python<'_>, store: &Store, req: &Request, progress: Option<Py<PyAny>>) -> PyResult<Reported> {
    let hook = progress.map(Hook::new);
    let notes = Mutex::new(Vec::new());
    let done = py.detach(|| run(store, req, hook.as_ref(), &notes));
    let mut reported = progress::finish(hook.as_ref(), done.map_err(to_py))?;
    reported.4 = notes.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    Ok(reported)
}

fn run(store: &Store, req: &Request, hook: Option<&Arc<Hook>>, notes: &Mutex<Vec<String>>) -> anyhow::Result<Reported> {
    let note = |text: String| notes.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(text);
    let max_figures = req.max_figures.unwrap_or(report::DEFAULT_MAX_FIGURES);
    if max_figures == 0 {
        return Err(Error::Usage("max_figures=0: expected at least one figure (--max-figures)".into()).into());
    }
    let specs = Spec::chosen(&req.specs, max_figures)?;
    if !req.check {
        report::check_out(&req.out)?;
    }
    let plan = Plan {
        store: store.clone(),
        specs,
        only: only(&req.only, store)?,
        formats: formats(&req.formats)?,
        cache: req.cache && !req.check,
        stamp: req.stamp.clone(),
        limits: limits(req.jobs, req.memory_budget)?,
        hooks: tracelab_analysis::Hooks::default(),
    };
    // `index` counts the finished runs (they may end out of order) of
    // `total`, the runs that read data.
    let events = |e: Event| match e {
        Event::Ran { index, total, .. } => {
            if let Some(h) = hook {
                h.set(index as u64, total as u64);
            }
        }
        other => {
            if let Some(text) = other.note() {
                note(text);
            }
        }
    };
    let (files, stats) = report::generate(&plan, &events).context("report")?;
    if let Some(h) = hook {
        // Every run is done (a report whose runs all come from a missing
        // trace sends no `Ran`).
        h.complete();
    }
    let summary = String::from_utf8_lossy(&files[Path::new("summary.json")]).into_owned();
    let names = files.keys().map(|p| p.to_string_lossy().replace('\\', "/")).collect();
    let counts = [stats.figures, stats.tables, stats.runs, stats.cached_runs, stats.skipped_figures];
    if req.check {
        let diffs = report::check(&req.out, &files)?;
        return Ok((names, summary, counts, stats.skipped_specs, Vec::new(), Some(diffs)));
    }
    let (wait, told) = (|m: &str| note(m.to_string()), |m: &str| note(m.to_string()));
    let opts = report::WriteOptions { wait: &wait, note: &told, crash_before_step: None };
    report::write(&req.out, &files, &opts)?;
    Ok((names, summary, counts, stats.skipped_specs, Vec::new(), None))
}

/// `only`'s traces, checked against the store as `--only` is: naming only
/// traces it lacks would leave nothing to report.
fn only(names: &[String], store: &Store) -> anyhow::Result<Option<Vec<Trace>>> {
    if names.is_empty() {
        return Ok(None);
    }
    let mut traces = Vec::new();
    for name in names {
        let trace = Trace::from_name(name).ok_or_else(|| {
            let all: Vec<&str> = Trace::ALL.iter().map(|t| t.name()).collect();
            Error::Usage(format!("only: no trace `{name}`; expected one of {}", all.join(", ")))
        })?;
        traces.push(trace);
    }
    if !traces.iter().any(|t| store.has_trace(*t)) {
        let has: Vec<&str> = Trace::ALL.iter().filter(|t| store.has_trace(**t)).map(|t| t.name()).collect();
        return Err(Error::Usage(format!(
            "only={}: the store holds none of these (it holds {})",
            names.join(","),
            has.join(", ")
        ))
        .into());
    }
    Ok(Some(traces))
}

/// `formats` as `--formats`: svg (always written), png, pdf.
fn formats(names: &[String]) -> Result<Formats, Error> {
    let mut f = Formats::default();
    for name in names {
        match name.as_str() {
            "svg" => {}
            "png" => f.png = true,
            "pdf" => f.pdf = true,
            other => return Err(Error::Usage(format!("formats: no format `{other}`; expected svg, png or pdf"))),
        }
    }
    Ok(f)
}

/// `jobs` and `memory_budget` (GiB) over the machine's defaults, as
/// `--jobs` and `--memory-budget`.
fn limits(jobs: Option<usize>, memory_budget: Option<f64>) -> Result<schedule::Limits, Error> {
    let mut limits = schedule::Limits::for_this_machine();
    match jobs {
        Some(0) => return Err(Error::Usage("jobs=0: expected at least one (--jobs)".into())),
        Some(n) => limits.workers = n,
        None => {}
    }
    if let Some(gib) = memory_budget {
        if !(gib.is_finite() && gib > 0.0) {
            return Err(Error::Usage(format!("memory_budget={gib}: expected a positive number of GiB")));
        }
        limits.budget = (gib * f64::from(1u32 << 30)) as u64;
    }
    Ok(limits)
}
