//! `tracelab report`: specs in, a report folder out (layer 3). For every
//! spec whose trace is in the store, runs each analysis the spec names once
//! (figures that share an analysis and parameters share the run), renders
//! its figures through [`tracelab_plot`], and assembles `index.html`,
//! `summary.md`, `summary.json` and one SVG per figure.
//!
//! Generation is pure: it returns the files as bytes, so `write` can
//! replace a folder and `check` can compare one byte for byte (CI's
//! `tracelab report --check`). Nothing here prints; progress goes through a
//! callback.

mod cache;
mod figure;
mod format;
mod html;
mod spec;
mod summary;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;

use tracelab_analysis::Ctx;
use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::Trace;
use tracelab_store::Store;

use cache::{Cache, RunEntry};
pub use figure::{ccdf_points, Rendered, TextTable};
pub use spec::{params_of, FigureSpec, Kind, Spec, BUILTIN};
pub use summary::HeadlineRow;

/// What to generate.
pub struct Plan {
    pub store: Store,
    pub specs: Vec<Spec>,
    /// Reuse and fill `<store>/.cache/report/`.
    pub cache: bool,
    /// A generation time to print (`--stamp`); none keeps the output
    /// independent of the time of the run.
    pub stamp: Option<String>,
}

/// One spec's part of the report.
pub struct SpecReport<'a> {
    pub spec: &'a Spec,
    /// Why the spec was skipped (its traces are not in the store).
    pub skipped: Option<String>,
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
    /// Presentation steps (CDF convention, rescaling, binning).
    pub notes: Vec<String>,
    pub rendered: Rendered,
    /// The SVG's path relative to the report folder.
    pub file: Option<String>,
    pub size: (u32, u32),
}

/// Progress events for the CLI to print.
pub enum Event<'a> {
    Skipped { spec: &'a str, why: &'a str },
    Ran { analysis: &'a str, index: usize, total: usize, seconds: f64, cached: bool },
}

/// How the run went.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Stats {
    pub figures: usize,
    pub tables: usize,
    pub runs: usize,
    pub cached_runs: usize,
    pub skipped_specs: Vec<String>,
}

/// The report's files (relative path -> bytes).
pub type Files = BTreeMap<PathBuf, Vec<u8>>;

/// A figure's place: (spec index, figure index).
type Slot = (usize, usize);

/// One analysis run: (id, parameters with defaults).
type RunKey = (String, Vec<(String, String)>);

/// Generates every file of the report.
pub fn generate(plan: &Plan, progress: &dyn Fn(Event)) -> Result<(Files, Stats)> {
    let mut reports: Vec<SpecReport> = plan.specs.iter().map(|s| skip_or_empty(s, &plan.store)).collect();
    for r in reports.iter().filter(|r| r.skipped.is_some()) {
        progress(Event::Skipped { spec: &r.spec.body.id, why: r.skipped.as_deref().unwrap_or_default() });
    }
    let runs = group_runs(plan, &reports);
    let cache = Cache::new(&plan.store, plan.cache);
    let ctx = Ctx::new(plan.store.clone());
    let mut stats = Stats::default();
    let total = runs.len();
    for (index, ((analysis, params), slots)) in runs.into_iter().enumerate() {
        let started = Instant::now();
        let key = cache.run_key(&analysis, &params);
        let (entry, figs, cached) = run_or_reuse(plan, &cache, &ctx, &key, (&analysis, &params), &slots)?;
        stats.runs += 1;
        stats.cached_runs += usize::from(cached);
        let seconds = started.elapsed().as_secs_f64();
        progress(Event::Ran { analysis: &analysis, index: index + 1, total, seconds, cached });
        place(&mut reports, plan, &entry, &analysis, slots, figs);
    }
    for r in &mut reports {
        r.figures.sort_by_key(|f| figure_index(r.spec, &f.id));
    }
    stats.figures = reports.iter().flat_map(|r| &r.figures).filter(|f| f.file.is_some()).count();
    stats.tables = reports.iter().flat_map(|r| &r.figures).filter(|f| f.file.is_none()).count();
    stats.skipped_specs = reports.iter().filter(|r| r.skipped.is_some()).map(|r| r.spec.body.id.clone()).collect();
    Ok((assemble(plan, &reports), stats))
}

fn skip_or_empty<'a>(spec: &'a Spec, store: &Store) -> SpecReport<'a> {
    let present = spec.body.traces.iter().filter_map(|t| Trace::from_name(t)).any(|t| store.has_trace(t));
    let skipped = (!present).then(|| format!("the store holds none of: {}", spec.body.traces.join(", ")));
    SpecReport { spec, skipped, figures: Vec::new(), headlines: Vec::new() }
}

/// Analysis runs (id, given parameters) in first-use order, each with the
/// figures that draw it.
fn group_runs(plan: &Plan, reports: &[SpecReport]) -> Vec<(RunKey, Vec<Slot>)> {
    let mut runs: Vec<(RunKey, Vec<Slot>)> = Vec::new();
    for (si, _) in reports.iter().enumerate().filter(|(_, r)| r.skipped.is_none()) {
        for (fi, fig) in plan.specs[si].body.figures.iter().enumerate() {
            let f = fig.get_ref();
            let run = (f.analysis.get_ref().clone(), full_params(f));
            match runs.iter_mut().find(|(k, _)| *k == run) {
                Some((_, slots)) => slots.push((si, fi)),
                None => runs.push((run, vec![(si, fi)])),
            }
        }
    }
    runs
}

/// The figure's parameters with the analysis's defaults filled in, so that
/// `bin=5m` and no `bin` share one run.
fn full_params(f: &FigureSpec) -> Vec<(String, String)> {
    let analysis = spec::analysis_of(f);
    tracelab_analysis::Args::validate(analysis, &params_of(f)).map(|a| a.pairs()).unwrap_or_else(|_| params_of(f))
}

type RunResult = (RunEntry, Vec<Rendered>, bool);

/// The run's entry and its figures, from the cache when all are there,
/// else by running the analysis once.
fn run_or_reuse(
    plan: &Plan,
    cache: &Cache,
    ctx: &Ctx,
    key: &str,
    (analysis, params): (&str, &[(String, String)]),
    slots: &[Slot],
) -> Result<RunResult> {
    let fig_keys: Vec<String> = slots.iter().map(|&(s, f)| cache.fig_key(key, figure_source(plan, s, f))).collect();
    if let Some(entry) = cache.get_run(key) {
        let figs: Option<Vec<Rendered>> = fig_keys.iter().map(|k| cache.get_fig(k)).collect();
        if let Some(figs) = figs {
            return Ok((entry, figs, true));
        }
    }
    let a = tracelab_analysis::find(analysis)?;
    let out = a.run(ctx, params).map_err(|e| context(analysis, e))?;
    let entry = RunEntry {
        title: out.title.clone(),
        definition: out.definition.clone(),
        params: out.params.clone(),
        headlines: out.all_headlines().map(|h| HeadlineRow::new(analysis, h)).collect(),
    };
    let mut figs = Vec::new();
    for (&(s, f), k) in slots.iter().zip(&fig_keys) {
        let fig = plan.specs[s].body.figures[f].get_ref();
        let r = figure::render(fig, &out)
            .map_err(|e| plan.specs[s].error_at(plan.specs[s].body.figures[f].span(), &e.to_string()))?;
        cache.put_fig(k, &r);
        figs.push(r);
    }
    cache.put_run(key, &entry);
    Ok((entry, figs, false))
}

fn context(analysis: &str, e: Error) -> Error {
    match e {
        Error::Usage(m) => Error::Usage(format!("{analysis}: {m}")),
        other => other,
    }
}

/// The spec text of one figure (its cache identity).
fn figure_source(plan: &Plan, s: usize, f: usize) -> &str {
    let spec = &plan.specs[s];
    let span = spec.body.figures[f].span();
    spec.source.get(span).unwrap_or_default()
}

fn place(
    reports: &mut [SpecReport],
    plan: &Plan,
    entry: &RunEntry,
    analysis: &str,
    slots: Vec<Slot>,
    figs: Vec<Rendered>,
) {
    for ((s, f), rendered) in slots.into_iter().zip(figs) {
        let spec = &plan.specs[s];
        let fig = spec.body.figures[f].get_ref();
        let file = matches!(rendered, Rendered::Svg(_)).then(|| format!("{}/{}.svg", spec.body.id, fig.id));
        reports[s].figures.push(FigureReport {
            id: fig.id.clone(),
            title: fig.title.clone(),
            mirrors: fig.mirrors.clone(),
            caption: fig.caption.clone(),
            analysis: analysis.to_string(),
            params: entry.params.clone(),
            part: fig.part.clone(),
            definition: entry.definition.clone(),
            notes: notes(fig),
            rendered,
            file,
            size: fig.size.map_or(tracelab_plot::DEFAULT_SIZE, |[w, h]| (w, h)),
        });
        let r = &mut reports[s];
        for h in &entry.headlines {
            if !r.headlines.iter().any(|x| x.analysis == h.analysis && x.key == h.key) {
                r.headlines.push(h.clone());
            }
        }
    }
}

fn figure_index(spec: &Spec, id: &str) -> usize {
    spec.body.figures.iter().position(|f| f.get_ref().id == id).unwrap_or(usize::MAX)
}

/// What the figure does to the analysis's numbers on the way to the page.
fn notes(f: &FigureSpec) -> Vec<String> {
    let mut n = Vec::new();
    match f.kind {
        Kind::Cdf => n.push("CDF as the owners draw it: the i-th of n sorted samples at 100·i/(n-1) %.".to_string()),
        Kind::Ccdf => {
            n.push("CCDF: the exact share of samples above x; the largest sample is off the log axis.".into())
        }
        _ => {}
    }
    if let Some(w) = f.bin {
        n.push(format!("Drawn as the mean over x bins of width {}.", format::number(w)));
    }
    if let Some(d) = f.x_div {
        n.push(format!("x divided by {} for display.", format::number(d)));
    }
    n
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

fn assemble(plan: &Plan, reports: &[SpecReport]) -> Files {
    let version = env!("CARGO_PKG_VERSION");
    let inputs = manifests(&plan.store);
    let mut files = Files::new();
    for f in reports.iter().flat_map(|r| &r.figures) {
        if let (Rendered::Svg(svg), Some(file)) = (&f.rendered, &f.file) {
            files.insert(PathBuf::from(file), svg.as_bytes().to_vec());
        }
    }
    files.insert("index.html".into(), html::index(reports, &inputs, version, plan.stamp.as_deref()).into_bytes());
    files.insert("summary.md".into(), summary::markdown(reports, version).into_bytes());
    files.insert("summary.json".into(), summary::json(reports, &inputs, version).into_bytes());
    files
}

/// Replaces the report folder's contents with `files`. Refuses a non-empty
/// folder that is not a tracelab report (no `summary.json`), so a typo in
/// `--out` cannot wipe unrelated files.
pub fn write(out: &Path, files: &Files) -> Result<()> {
    if out.is_dir() && !out.join("summary.json").is_file() && std::fs::read_dir(out).at(out)?.next().is_some() {
        return Err(Error::Usage(format!(
            "{}: not empty and not a tracelab report (no summary.json); choose another --out",
            out.display()
        )));
    }
    for stale in existing(out)?.into_iter().filter(|p| !files.contains_key(p)) {
        std::fs::remove_file(out.join(&stale)).at(out.join(&stale))?;
    }
    for (rel, bytes) in files {
        let path = out.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).at(dir)?;
        }
        if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            std::fs::write(&path, bytes).at(&path)?;
        }
    }
    Ok(())
}

/// Files under `out`, relative, sorted (none when it does not exist).
fn existing(out: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut dirs = vec![out.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries {
            let path = e.at(&dir)?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(rel) = path.strip_prefix(out) {
                found.push(rel.to_path_buf());
            }
        }
    }
    found.sort();
    Ok(found)
}

/// How `out` differs from `files`: missing, changed and extra files.
pub fn check(out: &Path, files: &Files) -> Result<Vec<String>> {
    let mut diffs = Vec::new();
    for (rel, bytes) in files {
        match std::fs::read(out.join(rel)) {
            Err(_) => diffs.push(format!("missing: {}", rel.display())),
            Ok(b) if b != *bytes => diffs.push(format!("differs: {}", rel.display())),
            Ok(_) => {}
        }
    }
    for extra in existing(out)?.into_iter().filter(|p| !files.contains_key(p)) {
        diffs.push(format!("extra: {}", extra.display()));
    }
    Ok(diffs)
}

#[cfg(test)]
mod tests;
