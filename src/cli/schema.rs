//! `tracelab schema`: prints the canonical tables, columns, types and units.

use clap::ValueEnum;

use tracelab_schema::{all_tables, render_json, render_markdown, render_text, Table, Trace};

/// Print the canonical tables tracelab writes.
///
/// Columns, types, units, unique keys and meaning of every table of the
/// store. `docs/schema.md` is this output in Markdown.
///
/// Examples:
///   tracelab schema pai
///   tracelab schema all --format markdown > docs/schema.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Which tables: a trace, `jobs` (the unified table) or `all`.
    #[arg(default_value = "all", value_parser = ["all", "pai", "philly", "helios", "jobs"])]
    which: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Markdown,
    Json,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let tables: Vec<&Table> = match Trace::from_name(&args.which) {
        Some(trace) => trace.tables().to_vec(),
        None if args.which == "jobs" => vec![&tracelab_schema::unified::JOBS],
        None => all_tables(),
    };
    let text = match args.format {
        Format::Text => render_text(&tables),
        Format::Markdown => render_markdown(&tables),
        Format::Json => render_json(&tables),
    };
    super::out(&text)?;
    Ok(0)
}
