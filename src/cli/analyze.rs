//! `tracelab analyze`: lists the registered analyses or runs one over a store
//! and writes its typed result: on a terminal the definition and one table
//! per part; as CSV, JSONL or Parquet the tidy long table (the part as a
//! column; `--part` for one part alone); as JSON the whole result document.

use tracelab_analysis::{self as analysis, render, Ctx, Memory, Output};
use tracelab_schema::error::Error;
use tracelab_schema::synthetic::Marker;

use super::listing::{self, Entry, ParamDoc};
use super::output::{Format, OutputArgs, Sink};

/// Run a named analysis over an ingested store.
///
/// Every analysis mirrors a paper figure or notebook cell (or says it is
/// tracelab's own) and prints its definition: tables, filters, joins,
/// units, and which upstream convention it follows. Where the paper or
/// notebook printed a number, it is shown beside ours.
///
/// Without --store, the bundled data-samples/ are used (ingested on first
/// use). The replay views `sim.*` (docs/simulate.md) run here too; without
/// --param trace=... they replay the store's only trace (of several: pai if
/// the store holds it, else a list of them), as `simulate` does.
///
/// Examples:
///   tracelab analyze --list
///   tracelab analyze pai.machine-util --describe
///   tracelab analyze pai.wait-by-gpu-type
///   tracelab analyze pai.machine-util --param bin=5m --format json
///   tracelab analyze pai.wait-by-gpu-type --format csv > wait.csv
///   tracelab analyze philly.gpu-util-by-status --store ~/tl-store --part by-size -o by-size.parquet
///   tracelab analyze sim.by-class --param trace=spot --param policies=fifo,priority
///
/// Output: on a terminal the definition and a table per part; piped or
/// with --format csv|jsonl|parquet one tidy table (columns: part, then
/// each part's own: series, x, y for distributions and curves, a table's
/// columns, key, label, value, unit, published, source for headline
/// numbers); --format json the whole result with axis labels and units.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The analysis id (see --list).
    #[arg(required_unless_present_any = ["list", "describe"])]
    id: Option<String>,
    /// List every analysis: id, trace, paper figure, parameters, one line.
    #[arg(long, conflicts_with_all = ["id", "params", "part", "describe"])]
    list: bool,
    /// Print the analysis's definition (Markdown: what it computes, its
    /// parameters, the published values it is compared with, where it
    /// differs from the owners' code) for the --param values given, without
    /// running it; without an id, all of docs/definitions.md.
    #[arg(long, conflicts_with = "part")]
    describe: bool,
    #[command(flatten)]
    store: super::store::StoreArg,
    #[command(flatten)]
    output: OutputArgs,
    /// A parameter of the analysis, NAME=VALUE (repeatable, each name once;
    /// see --list).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Only this part of the result (every format).
    #[arg(long, value_name = "PART")]
    part: Option<String>,
}

/// The parameter naming the trace a replay view reads.
const TRACE: &str = "trace";

pub fn run(args: Args) -> anyhow::Result<i32> {
    let sink = args.output.resolve()?;
    if args.list {
        sink.table(&listing::table(&list()), render::DISPLAY_DIGITS, false)?;
        return Ok(0);
    }
    let mut params = super::params::parse(&args.params)?;
    if args.describe {
        return describe(args.id.as_deref(), &params, &sink);
    }
    let id = args.id.as_deref().unwrap_or_default();
    // The registry's analyses, then the replay views (`sim.*`) the report
    // specs use.
    let analysis = analysis::find(id).or_else(|e| tracelab_workload::find(id).ok_or(e))?;
    let store = args.store.open()?;
    // A replay view (`sim.*`) without `trace` replays the trace simulate
    // would: the store's only one, else PAI, else a list of them.
    let replays = tracelab_workload::find(id).is_some_and(|v| v.params.iter().any(|p| p.name == TRACE));
    if replays && !params.iter().any(|(name, _)| name == TRACE) {
        params.push((TRACE.to_string(), super::store::default_trace(&store, "--param trace=...")?));
    }
    let ctx = Ctx::with_hooks(store, super::progress::analysis_hooks());
    // Without transparent huge pages when it declares more than a small
    // analysis's memory (crate::without_huge_pages says why); a small one
    // is faster with them.
    let run = || analysis.run(&ctx, &params);
    let out = if analysis.memory_now(&ctx.store) > Memory::SMALL { crate::without_huge_pages(run) } else { run() }?;
    if let Some(part) = &args.part {
        if out.part(part).is_none() {
            let names: Vec<&str> = out.parts.iter().map(|p| p.name.as_str()).collect();
            return Err(Error::Usage(format!("{id} has no part `{part}`; its parts: {}", names.join(", "))).into());
        }
    }
    write(&out, args.part.as_deref(), &analysis::calibration::markers(&ctx.store), &sink)?;
    Ok(0)
}

/// `--describe`: one analysis's section of docs/definitions.md, or all of it.
fn describe(id: Option<&str>, params: &[(String, String)], sink: &Sink) -> anyhow::Result<i32> {
    let text = match id {
        Some(id) => {
            let analysis = analysis::find(id).or_else(|e| tracelab_workload::find(id).ok_or(e))?;
            analysis::docs::section(analysis, params)?
        }
        None if !params.is_empty() => {
            return Err(Error::Usage("--describe with --param needs an analysis id".into()).into())
        }
        None => analysis::docs::document(),
    };
    sink.text(&text)?;
    Ok(0)
}

/// The result in the sink's format (module documentation); `markers`, the
/// store's synthetic markers, decide how headlines compare with their
/// published values.
pub(super) fn write(out: &Output, part: Option<&str>, markers: &[Marker], sink: &Sink) -> anyhow::Result<()> {
    match sink.format {
        Format::Table | Format::Markdown => {
            let style = sink.style(render::DISPLAY_DIGITS, false);
            sink.text(&display(out, part, markers, sink.format == Format::Markdown, &style))
        }
        Format::Json => {
            let doc = out.to_json();
            let doc = match part {
                Some(p) => {
                    doc["parts"].as_array().and_then(|a| a.iter().find(|v| v["name"] == p)).cloned().unwrap_or_default()
                }
                None => doc,
            };
            sink.text(&(serde_json::to_string_pretty(&doc)? + "\n"))
        }
        Format::Csv | Format::Jsonl | Format::Parquet => {
            sink.table(&render::tidy(out, part), render::DISPLAY_DIGITS, false)
        }
    }
}

/// The terminal view of `out` as lines as long as the data, for what goes
/// to stderr beside a command's real output (export's accounting).
pub(super) fn terminal_text(out: &Output) -> String {
    let style = tracelab_present::terminal::Style { digits: render::DISPLAY_DIGITS, ..Default::default() };
    display(out, None, &[], false, &style)
}

/// The view for people: the definition, then a table per part.
fn display(
    out: &Output,
    part: Option<&str>,
    markers: &[Marker],
    markdown: bool,
    style: &tracelab_present::terminal::Style,
) -> String {
    let preamble = render::preamble(out);
    let mut s = if markdown {
        preamble.lines().map(|l| tracelab_present::markdown::cell(l) + "  \n").collect()
    } else {
        preamble.lines().map(|l| tracelab_present::terminal::line(l) + "\n").collect::<String>()
    };
    for (name, table) in render::display(out, part, markers) {
        let body = if markdown {
            tracelab_present::markdown::render(&table, render::DISPLAY_DIGITS)
        } else {
            tracelab_present::terminal::render(&table, style)
        };
        s.push_str(&format!("\n[{}]\n{body}", tracelab_present::terminal::line(name)));
    }
    s
}

/// Every analysis as a listing entry.
fn list() -> Vec<Entry> {
    analysis::registry()
        .iter()
        .chain(tracelab_workload::views())
        .map(|a| Entry {
            name: a.id.to_string(),
            scope: a.scope.name().to_string(),
            mirrors: a.mirrors.to_string(),
            tables: Vec::new(),
            params: a
                .params
                .iter()
                .map(|p| ParamDoc { name: p.name.to_string(), kind: p.kind.label(), default: p.default.to_string() })
                .collect(),
            summary: a.summary.to_string(),
        })
        .collect()
}
