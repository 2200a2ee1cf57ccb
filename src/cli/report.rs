//! `tracelab report`: resolves the trace directory to a store (ingesting
//! when needed), loads and validates the specs and the report folder
//! (`--out`, or the input's own folder) before any work, generates the
//! report, and publishes it or (`--check`) compares it byte for byte with
//! the folder on disk.

use std::path::{Path, PathBuf};

use anyhow::Context;

use tracelab_ingest::Plan as IngestPlan;
use tracelab_report::{self as report, schedule, Event, Formats, Plan, Spec};
use tracelab_schema::error::Error;
use tracelab_schema::Trace;
use tracelab_store::Store;

/// Render the papers' figures from the traces in DIR as an HTML report.
///
/// Ingests DIR (cached: unchanged inputs are not read again), runs every
/// analysis the specs name, and writes OUT/index.html (what the data is,
/// figures with captions, headline numbers beside the published ones, the
/// input manifest), OUT/summary.md, OUT/summary.json and per figure an SVG
/// and a CSV of its points (PNG and PDF with --formats). The specs are
/// notebooks-equivalents/{pai-nsdi22,philly-atc19,helios-sc21,
/// cross-trace}.toml (built in). Any subset of the three traces works: a
/// spec, figure or series whose trace is not in the store (or not in
/// --only) is skipped with a note in the report and on stderr, and
/// cross-trace figures are drawn with the traces there are. The output
/// depends only on the inputs, the specs and the tracelab version, byte
/// for byte (no dates unless --stamp). OUT is replaced whole once the new
/// report is complete, and only the files tracelab wrote there are removed;
/// a folder it did not write is refused (docs/output-files.md).
///
/// Cost: the ingest (once), then every analysis once; results are cached
/// in <STORE>/.cache/report, so an unchanged store re-renders in seconds.
///
/// Examples:
///   tracelab report
///   tracelab report ~/traces --out ~/pai-report
///   tracelab report ~/traces --spec notebooks-equivalents/pai-nsdi22.toml
///   tracelab report --only pai,philly --out /tmp/pai-philly
///   tracelab report --formats svg,png,pdf --out /tmp/paper-figures
///   tracelab report --check
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Directory holding the traces as downloaded [default: the bundled
    /// data-samples/]
    dir: Option<PathBuf>,
    /// The report folder [default: reports for the bundled data-samples/,
    /// else DIR/tracelab-report (with only --store: beside the store); the
    /// folder is named on stderr]. It is replaced whole when the new report
    /// is complete; a folder tracelab did not write is refused
    #[arg(long, value_name = "OUT")]
    out: Option<PathBuf>,
    /// The store to read or ingest into [default: <DIR>/.tracelab]; with
    /// --store and no DIR the store is read as it is. A folder of traces
    /// holding a .tracelab store stands for that store, as in the other verbs
    #[arg(long, value_name = "STORE")]
    store: Option<PathBuf>,
    /// A spec to render instead of the built-in ones (repeatable)
    #[arg(long = "spec", value_name = "FILE")]
    specs: Vec<PathBuf>,
    /// The most figures one spec may hold; each costs its rendering time
    /// and memory [default: 500]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_figures: Option<u32>,
    /// Report on these traces only, as if the store held nothing else
    /// (comma-separated) [default: every trace in the store]
    #[arg(long, value_name = "TRACES", value_delimiter = ',', value_enum)]
    only: Vec<TraceArg>,
    /// Figure formats to write (comma-separated); svg (with the CSV of the
    /// plotted points) is always written, png (2x) and pdf are drawn from
    /// the same SVG
    #[arg(long, value_name = "FORMATS", value_delimiter = ',', value_enum, default_value = "svg")]
    formats: Vec<FormatArg>,
    /// Regenerate (without the cache) and compare with OUT byte for byte;
    /// exit 1 listing every difference, writing nothing
    #[arg(long)]
    check: bool,
    /// Neither read nor write the result cache
    #[arg(long)]
    no_cache: bool,
    /// Print the generation time (UTC) in index.html
    #[arg(long)]
    stamp: bool,
    /// Analyses run side by side [default: the number of cores]; the
    /// report's bytes do not depend on it
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Memory the analyses running side by side may hold together, in GiB,
    /// by their declared estimates; an analysis estimated above it runs
    /// alone [default: 2.5]
    #[arg(long, value_name = "GIB")]
    memory_budget: Option<f64>,
    /// No progress lines
    #[arg(long, short)]
    quiet: bool,
}

/// A trace `--only` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum TraceArg {
    Pai,
    Philly,
    Helios,
    Swf,
    Acme,
    Spot,
}

impl TraceArg {
    fn trace(self) -> Trace {
        match self {
            TraceArg::Pai => Trace::Pai,
            TraceArg::Philly => Trace::Philly,
            TraceArg::Helios => Trace::Helios,
            TraceArg::Swf => Trace::Swf,
            TraceArg::Acme => Trace::Acme,
            TraceArg::Spot => Trace::Spot,
        }
    }
}

/// A figure format `--formats` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FormatArg {
    Svg,
    Png,
    Pdf,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let max_figures = args.max_figures.map_or(report::DEFAULT_MAX_FIGURES, |n| n as usize);
    let specs = Spec::chosen(&args.specs, max_figures)?;
    let out = match &args.out {
        Some(out) => out.clone(),
        None => default_out(&args)?,
    };
    if !args.check {
        report::check_out(&out)?;
    }
    let store = resolve_store(&args)?;
    let only = only(&args.only, &store)?;
    let formats = Formats { png: args.formats.contains(&FormatArg::Png), pdf: args.formats.contains(&FormatArg::Pdf) };
    let stamp = args.stamp.then(|| chrono::Utc::now().format("%Y-%m-%d %H:%M:%S UTC").to_string());
    let limits = limits(&args)?;
    let hooks = super::progress::analysis_hooks();
    let plan = Plan { store, specs, only, formats, cache: !(args.no_cache || args.check), stamp, limits, hooks };
    let steps = (!args.quiet).then(super::progress::Steps::start);
    let progress = |e: Event| {
        let Some(steps) = &steps else { return };
        match e {
            Event::Started { analysis, run } => steps.started(run, analysis),
            Event::Ran { run, .. } | Event::Stopped { run } => steps.finished(run),
            _ => {}
        }
        if let Some(line) = describe(&e) {
            eprintln!("{}", tracelab_present::text::neutralize_lines(&line));
        }
    };
    let generated = crate::without_huge_pages(|| report::generate(&plan, &progress));
    drop(steps);
    let (files, stats) = generated.context("report")?;
    if args.check {
        return check(&out, &files);
    }
    let crash_before_step = std::env::var("TRACELAB_TEST_CRASH_AT_REPORT_STEP").ok().and_then(|v| v.parse().ok());
    let opts = report::WriteOptions { wait: &super::progress::note, note: &super::progress::note, crash_before_step };
    report::write(&out, &files, &opts)?;
    if !args.quiet {
        let cached =
            if stats.cached_runs > 0 { format!(" ({} from the cache)", stats.cached_runs) } else { String::new() };
        let n = |k: usize, what: &str| format!("{k} {what}{}", if k == 1 { "" } else { "s" });
        let skipped = match (stats.skipped_figures, stats.skipped_specs.len()) {
            (0, 0) => String::new(),
            (f, s) => format!(" (skipped for missing traces: {}, {})", n(s, "spec"), n(f, "figure")),
        };
        eprintln!(
            "report: {} figures and {} tables from {} analysis runs{cached}{skipped} -> {}",
            stats.figures,
            stats.tables,
            stats.runs,
            out.join("index.html").display()
        );
    }
    Ok(0)
}

/// `--jobs` and `--memory-budget` over the machine's defaults.
fn limits(args: &Args) -> anyhow::Result<schedule::Limits> {
    let mut limits = schedule::Limits::for_this_machine();
    if let Some(n) = args.jobs {
        limits.workers = usize::from(n);
    }
    if let Some(gib) = args.memory_budget {
        if !(gib.is_finite() && gib > 0.0) {
            return Err(Error::Usage(format!("--memory-budget {gib}: expected a positive number of GiB")).into());
        }
        limits.budget = (gib * f64::from(1u32 << 30)) as u64;
    }
    Ok(limits)
}

/// The stderr line of a report event (none for a run's start or stop).
fn describe(e: &Event) -> Option<String> {
    if let Event::Ran { analysis, index, total, seconds, cached, .. } = e {
        let how = if *cached { "cached".to_string() } else { format!("{seconds:.1} s") };
        return Some(format!("[{index:>2}/{total}] {analysis} ({how})"));
    }
    e.note().map(|note| format!("note: {note}"))
}

/// The `--only` traces, checked against the store: naming only traces it
/// lacks would leave nothing to report (a usage error, exit 2).
fn only(only: &[TraceArg], store: &Store) -> anyhow::Result<Option<Vec<Trace>>> {
    if only.is_empty() {
        return Ok(None);
    }
    let traces: Vec<Trace> = only.iter().map(|t| t.trace()).collect();
    if !traces.iter().any(|t| store.has_trace(*t)) {
        let has: Vec<&str> = Trace::ALL.iter().filter(|t| store.has_trace(**t)).map(|t| t.name()).collect();
        let asked: Vec<&str> = traces.iter().map(|t| t.name()).collect();
        return Err(Error::Usage(format!(
            "--only {}: the store holds none of these (it holds {})",
            asked.join(","),
            has.join(", ")
        ))
        .into());
    }
    Ok(Some(traces))
}

/// The report folder when no --out is given: a report belongs with its
/// data, so a run over other data never touches another report. The
/// bundled samples keep `reports`; a trace folder DIR gets
/// DIR/tracelab-report (ingest does not read a report folder); with only
/// --store, a store named `.tracelab` (the default, inside its DIR) gets
/// its DIR's, any other store STORE-report beside it. Named on stderr.
fn default_out(args: &Args) -> anyhow::Result<PathBuf> {
    let bundled = |dir: &Path| {
        let samples = super::store::bundled_samples().and_then(|s| s.canonicalize().ok());
        samples.is_some() && dir.canonicalize().ok() == samples
    };
    let store = args.store.as_deref().map(super::store::locate);
    let out = match (&args.dir, &store) {
        (None, None) => return Ok(PathBuf::from("reports")),
        (Some(dir), _) if bundled(dir) => return Ok(PathBuf::from("reports")),
        (Some(dir), _) => dir.join("tracelab-report"),
        (None, Some(store)) => {
            let parent = store.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            match store.file_name() {
                Some(name) if name == ".tracelab" && bundled(parent) => return Ok(PathBuf::from("reports")),
                Some(name) if name == ".tracelab" => parent.join("tracelab-report"),
                Some(name) => parent.join(format!("{}-report", name.to_string_lossy())),
                None => {
                    return Err(Error::Usage(format!(
                        "--store {}: give --out too (no report folder can be named after this store)",
                        store.display()
                    ))
                    .into())
                }
            }
        }
    };
    super::progress::note(&format!("the report goes to {} (--out chooses another folder)", out.display()));
    Ok(out)
}

/// The store: ingested from DIR (default: the bundled samples) unless only
/// --store is given. `--store` naming DIR itself, or a folder holding a
/// `.tracelab` store, stands for that store ([`super::store::locate`]).
fn resolve_store(args: &Args) -> anyhow::Result<Store> {
    if let (None, Some(store)) = (&args.dir, &args.store) {
        return super::store::open(&super::store::locate(store));
    }
    let dir = super::store::trace_dir(args.dir.as_ref())?;
    let same = |p: &Path| p.canonicalize().ok().is_some_and(|p| dir.canonicalize().ok() == Some(p));
    let store = match &args.store {
        Some(store) if same(store) => IngestPlan::default_store(&dir),
        Some(store) => super::store::locate(store),
        None => IngestPlan::default_store(&dir),
    };
    let plan = IngestPlan { crash: super::crash_hook(), ..IngestPlan::new(dir, store) };
    super::store::ingest_then_open(&plan, args.quiet)
}

fn check(out: &std::path::Path, files: &report::Files) -> anyhow::Result<i32> {
    let diffs = report::check(out, files)?;
    if diffs.is_empty() {
        eprintln!("report --check: {} matches ({} files, byte for byte)", out.display(), files.len());
        return Ok(0);
    }
    eprintln!("error: report --check: {} differs from a fresh report in {} file(s):", out.display(), diffs.len());
    for d in &diffs {
        eprintln!("  {d}");
    }
    eprintln!("regenerate with `tracelab report` (same DIR and --out) and review the diff");
    Ok(1)
}
