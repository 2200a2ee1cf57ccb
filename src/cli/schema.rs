//! `tracelab schema`: the canonical tables, columns, types and units: the
//! reference document (`text`, `markdown` = docs/schema.md, `json`) or one
//! row per column in any tabular format.

use std::path::PathBuf;

use clap::ValueEnum;

use tracelab_present::{Table as Rows, Value};
use tracelab_schema::{all_tables, render_json, render_markdown, render_text, Table, Trace};

use super::output::{self, Format};

/// Print the canonical tables tracelab writes.
///
/// Columns, types, units, unique keys and meaning of every table of the
/// store. `docs/schema.md` is this output in Markdown.
///
/// Output: a table (one row per column) on a terminal, csv when piped;
/// text, markdown and json are the reference document.
///
/// Examples:
///   tracelab schema pai
///   tracelab schema all --format markdown > docs/schema.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Which tables: a trace, `jobs` (the unified table) or `all`.
    #[arg(default_value = "all", value_parser = ["all", "pai", "philly", "helios", "swf", "acme", "spot", "jobs"])]
    which: String,
    /// Output format [default: table on a terminal, csv when piped]
    #[arg(long, value_enum)]
    format: Option<SchemaFormat>,
    /// Write to FILE instead of stdout (the extension gives the format)
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SchemaFormat {
    /// One row per column, aligned
    Table,
    /// One row per column, CSV
    Csv,
    /// The document as JSON: tables with their columns
    Json,
    /// One row per column, JSON lines
    Jsonl,
    /// One row per column, Parquet (needs -o)
    Parquet,
    /// The document as Markdown (docs/schema.md)
    Markdown,
    /// The document as plain text
    Text,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let tables: Vec<&Table> = match Trace::from_name(&args.which) {
        Some(trace) => trace.tables().to_vec(),
        None if args.which == "jobs" => vec![&tracelab_schema::unified::JOBS],
        None => all_tables(),
    };
    let tabular = match args.format {
        None => None,
        Some(SchemaFormat::Text) => Some(Format::Table),
        Some(f) => Format::from_str(&format!("{f:?}"), true).ok(),
    };
    let sink = output::resolve(tabular, args.output.as_deref(), std::io::IsTerminal::is_terminal(&std::io::stdout()))?;
    sink.check()?;
    match (args.format, sink.format) {
        (Some(SchemaFormat::Text), _) => sink.text(&render_text(&tables))?,
        (_, Format::Markdown) => sink.text(&render_markdown(&tables))?,
        (_, Format::Json) => sink.text(&render_json(&tables))?,
        _ => sink.table(&rows(&tables), 6, false)?,
    }
    Ok(0)
}

/// One row per column: trace, table, file, column, type, unit, nulls,
/// meaning.
fn rows(tables: &[&Table]) -> Rows {
    let mut t = Rows::of_text(&["trace", "table", "file", "column", "type", "unit", "nulls", "meaning"]);
    for table in tables {
        let trace = table.trace.map_or("unified", |tr| tr.name());
        let file = table.file_name();
        for c in table.columns {
            let nulls = if c.nullable { "null ok" } else { "not null" };
            let row = [trace, table.sql_name(), file.as_str(), c.name, c.ty.name(), c.unit, nulls, c.doc];
            t.push(row.into_iter().map(Value::from).collect());
        }
    }
    t
}
