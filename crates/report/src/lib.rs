//! `tracelab report`: specs in, a report folder out (layer 4). For every
//! spec with at least one of its traces in the store, runs each analysis the
//! spec names once (figures that share an analysis and parameters share the
//! run), renders its figures through [`tracelab_plot`], and assembles
//! `index.html`, `summary.md`, `summary.json`, and per figure its SVG, the
//! CSV of its points and, when asked, PNG and PDF ([`tracelab_render`]).
//!
//! A spec, figure or series whose trace the store lacks (or `--only`
//! leaves out) is skipped with a note in the report and an [`Event`] for
//! the run's stderr; a cross-trace figure is drawn with the traces there
//! are. Anything else a spec gets wrong stays an error naming its line.
//!
//! Generation is pure: it returns the files as bytes, so `write` can
//! publish them as a folder (through [`tracelab_store::folder`]: built
//! beside the target, swapped in whole, locked, removing only what
//! tracelab wrote) and `check` can compare one byte for byte (CI's
//! `tracelab report --check`). Nothing here prints; progress goes through a
//! callback. Files: `spec` (parsing, validation), `run` (analysis runs,
//! the cache, placing figures), `figure`/`selection`/`charts`/`tables`/
//! `csv` (one figure), `inputs`, `headline` and `calibration` (what the
//! data is, how headlines compare), `headline_tables`, `html`/`summary`
//! (the pages), `files` (writing, checking), `cache`. Numbers and text are
//! spelled and escaped by the presentation layer, [`tracelab_present`].

mod cache;
mod caption;
mod charts;
mod csv;
mod figure;
mod files;
mod headline_tables;
mod html;
mod inputs;
mod run;
pub mod schedule;
mod selection;
mod spec;
mod summary;
mod tables;

use serde_json::Value;

use tracelab_schema::error::Result;
use tracelab_schema::Trace;
use tracelab_store::Store;

pub use charts::ccdf_points;
pub use figure::{FigureOut, Rendered};
pub use files::{check, check_out, write};
pub use tracelab_analysis::headline_row::HeadlineRow;
// The judging of headlines lives with the analyses, so `tracelab analyze`
// compares them as the report does.
pub use spec::{id_problem, params_of, FigureSpec, Kind, Spec, BUILTIN, DEFAULT_MAX_FIGURES, MAX_ID_LEN};
pub use tables::TextTable;
use tracelab_analysis::{calibration, headline_row as headline};

/// What to generate.
pub struct Plan {
    pub store: Store,
    pub specs: Vec<Spec>,
    /// Report on these traces only (`--only`): the store is seen as if it
    /// held nothing else.
    pub only: Option<Vec<Trace>>,
    /// Also write each figure as PNG and PDF (`--formats`).
    pub formats: Formats,
    /// Reuse and fill `<store>/.cache/report/`.
    pub cache: bool,
    /// A generation time to print (`--stamp`); none keeps the output
    /// independent of the time of the run.
    pub stamp: Option<String>,
    /// How many analyses run side by side, within which memory.
    pub limits: schedule::Limits,
    /// The caller's hooks around the analyses' long steps.
    pub hooks: tracelab_analysis::Hooks,
}

/// The figure formats besides SVG (and its CSV), which are always written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Formats {
    pub png: bool,
    pub pdf: bool,
}

/// One spec's part of the report.
pub struct SpecReport<'a> {
    pub spec: &'a Spec,
    /// Why the spec was skipped (none of its traces is in the report).
    pub skipped: Option<String>,
    /// Notes for the whole spec (traces it lacks).
    pub notes: Vec<String>,
    pub figures: Vec<FigureReport>,
    /// Every headline of every analysis run the spec's figures use.
    pub headlines: Vec<HeadlineRow>,
}

/// One rendered figure or table with its provenance.
pub struct FigureReport {
    pub id: String,
    pub title: String,
    pub mirrors: String,
    pub caption: String,
    pub analysis: String,
    /// All parameters, defaults included.
    pub params: Vec<(String, String)>,
    pub part: String,
    pub definition: String,
    /// Presentation steps (CDF convention, rescaling, binning, gaps) and
    /// series left out.
    pub notes: Vec<String>,
    pub rendered: Rendered,
    /// The SVG's path relative to the report folder (charts only).
    pub file: Option<String>,
    /// The CSV of its points, relative to the report folder.
    pub csv: Option<(String, String)>,
    pub size: (u32, u32),
    /// False when synthetic data the generator does not target feed it.
    pub calibrated: bool,
}

impl FigureReport {
    /// The file beside the SVG with another extension (`png`, `pdf`).
    pub fn sibling(&self, ext: &str) -> Option<String> {
        self.file.as_ref().map(|f| format!("{}.{ext}", f.trim_end_matches(".svg")))
    }
}

/// Progress events for the CLI to print.
pub enum Event<'a> {
    /// A trace the report lacks: why, and the specs skipped for it.
    Missing { line: &'a str },
    /// A figure skipped or drawn without some series, or a spec drawn
    /// without some of its traces.
    Note { spec: &'a str, figure: Option<&'a str>, text: &'a str },
    /// An analysis run starts (`run` numbers the runs, in start order).
    Started { analysis: &'a str, run: usize },
    /// A run finished: `index` counts the finished runs of `total`, so it
    /// only goes up whatever order they finish in.
    Ran { analysis: &'a str, run: usize, index: usize, total: usize, seconds: f64, cached: bool },
    /// A run that started came back without figures (skipped or failed).
    Stopped { run: usize },
}

impl Event<'_> {
    /// The note this event is, worded as the command prints it after
    /// `note: ` (and as Python's `ReportNote` carries it); None for progress.
    pub fn note(&self) -> Option<String> {
        match self {
            Event::Missing { line } => Some((*line).to_string()),
            Event::Note { spec, figure: Some(figure), text } => Some(format!("{spec}/{figure}: {text}")),
            Event::Note { spec, figure: None, text } => Some(format!("spec {spec}: {text}")),
            Event::Started { .. } | Event::Ran { .. } | Event::Stopped { .. } => None,
        }
    }
}

/// How the run went.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Stats {
    pub figures: usize,
    pub tables: usize,
    pub runs: usize,
    pub cached_runs: usize,
    pub skipped_specs: Vec<String>,
    pub skipped_figures: usize,
}

/// The report's files (relative path -> bytes).
pub use tracelab_store::folder::Files;
/// How [`write`] reports waiting and what it left, and the tests' crash hook.
pub use tracelab_store::folder::Options as WriteOptions;

/// What the report knows about its data, shared by every part of it.
pub struct Data {
    /// The store as the report sees it (`--only` applied).
    pub store: Store,
    pub present: Vec<Trace>,
    pub missing: Vec<(Trace, String)>,
    /// Helios clusters the Helios data lacks, with why.
    pub missing_clusters: Vec<(String, String)>,
    pub traces: Vec<inputs::TraceData>,
    pub manifests: Vec<(String, Value)>,
}

impl Data {
    fn of(plan: &Plan) -> Data {
        let store = match &plan.only {
            Some(only) => plan.store.only(only),
            None => plan.store.clone(),
        };
        let present: Vec<Trace> = Trace::ALL.into_iter().filter(|t| store.has_trace(*t)).collect();
        let missing = inputs::missing(&present, plan.only.as_deref());
        let manifests = manifests(&store);
        let traces = inputs::trace_data(&manifests);
        let missing_clusters = inputs::missing_clusters(&manifests);
        Data { store, present, missing, missing_clusters, traces, manifests }
    }
}

/// Generates every file of the report.
pub fn generate(plan: &Plan, progress: &dyn Fn(Event)) -> Result<(Files, Stats)> {
    let data = Data::of(plan);
    let mut reports: Vec<SpecReport> = plan.specs.iter().map(|s| run::skip_or_empty(s, &data)).collect();
    // A missing trace is one note, not one per spec, figure and series it
    // takes away (a one-trace report would print dozens).
    missing_lines(&data, &reports).iter().for_each(|line| progress(Event::Missing { line }));
    let mut stats = run::run_all(plan, &data, &mut reports, plan.limits, progress)?;
    // Figures skipped or drawn without some series for missing clusters
    // (a trace's line above covers a missing trace).
    for r in reports.iter().filter(|_| data.missing.is_empty()) {
        for f in &r.figures {
            let text = match &f.rendered {
                Rendered::Skipped(why) => format!("skipped: {why}"),
                _ => match f.notes.iter().find(|n| n.starts_with("Left out")) {
                    Some(n) => n.clone(),
                    None => continue,
                },
            };
            progress(Event::Note { spec: &r.spec.body.id, figure: Some(&f.id), text: &text });
        }
    }
    let all = || reports.iter().flat_map(|r| &r.figures);
    stats.figures = all().filter(|f| matches!(f.rendered, Rendered::Svg(_))).count();
    stats.tables = all().filter(|f| matches!(f.rendered, Rendered::Table(_))).count();
    stats.skipped_figures = all().filter(|f| matches!(f.rendered, Rendered::Skipped(_))).count();
    stats.skipped_specs = reports.iter().filter(|r| r.skipped.is_some()).map(|r| r.spec.body.id.clone()).collect();
    Ok((files::assemble(plan, &data, &reports)?, stats))
}

/// One line per missing trace ([`inputs::missing_lines`]).
fn missing_lines(data: &Data, reports: &[SpecReport]) -> Vec<String> {
    let skipped: Vec<(&str, &[String], usize)> = reports
        .iter()
        .filter(|r| r.skipped.is_some())
        .map(|r| (r.spec.body.id.as_str(), r.spec.body.traces.as_slice(), r.spec.body.figures.len()))
        .collect();
    inputs::missing_lines(&data.missing, &skipped)
}

/// Every ingest manifest of the store: the report's inputs section. The
/// list of the store's own files (Parquet sizes and hashes) is left out:
/// the report states what it was made from, and Parquet bytes may change
/// with the writer where the inputs and the numbers do not.
fn manifests(store: &Store) -> Vec<(String, Value)> {
    store
        .manifests()
        .iter()
        .filter(|(t, _)| store.has_trace(*t))
        .map(|(t, m)| {
            let mut v = serde_json::to_value(m).expect("a manifest serializes");
            v.as_object_mut().map(|o| o.remove("files"));
            (t.name().to_string(), v)
        })
        .collect()
}

#[cfg(test)]
mod tests;
