//! `tracelab analyze`: lists the registered analyses or runs one over a store
//! and prints its typed result as a table, CSV or JSON.

use std::path::PathBuf;

use clap::ValueEnum;
use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};

use tracelab_analysis::{self as analysis, describe, render, Ctx};
use tracelab_schema::error::Error;

/// Run a named analysis over an ingested store.
///
/// Every analysis mirrors a paper figure or notebook cell (or says it is
/// tracelab's own) and prints its definition: tables, filters, joins,
/// units, and which upstream convention it follows. Where the paper or
/// notebook printed a number, it is shown beside ours.
///
/// Without --store, the bundled data-samples/ are used (ingested on first
/// use).
///
/// Examples:
///   tracelab analyze --list
///   tracelab analyze pai.wait-by-gpu-type
///   tracelab analyze pai.machine-util --param bin=5m --format json
///   tracelab analyze philly.gpu-util-by-status --store ~/tl-store --format csv --part by-size
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The analysis id (see --list).
    #[arg(required_unless_present = "list")]
    id: Option<String>,
    /// List every analysis: id, paper figure, parameters, one line.
    #[arg(long)]
    list: bool,
    /// The store written by `tracelab ingest` [default: data-samples/.tracelab]
    #[arg(long, value_name = "STORE")]
    store: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// A parameter of the analysis, NAME=VALUE (repeatable; see --list).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = parse_param)]
    params: Vec<(String, String)>,
    /// CSV only: print just this part of the result, without block markers.
    #[arg(long, value_name = "PART")]
    part: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Table,
    Csv,
    Json,
}

fn parse_param(raw: &str) -> Result<(String, String), String> {
    raw.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("expected NAME=VALUE, got `{raw}`"))
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    if args.list {
        super::out(&list())?;
        return Ok(0);
    }
    let id = args.id.as_deref().unwrap_or_default();
    let analysis = analysis::find(id)?;
    let store = super::store::resolve(args.store.as_ref())?;
    let ctx = Ctx::new(store);
    let out = analysis.run(&ctx, &args.params)?;
    if let Some(part) = &args.part {
        if out.part(part).is_none() {
            let names: Vec<&str> = out.parts.iter().map(|p| p.name.as_str()).collect();
            return Err(Error::Usage(format!("{id} has no part `{part}`; its parts: {}", names.join(", "))).into());
        }
    }
    let text = match args.format {
        Format::Table => render::text(&out),
        Format::Csv => render::csv(&out, args.part.as_deref()),
        Format::Json => serde_json::to_string_pretty(&out.to_json())? + "\n",
    };
    super::out(&text)?;
    Ok(0)
}

fn list() -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic).set_width(140);
    t.set_header(["id", "mirrors", "parameters", "what it computes"]);
    for a in analysis::registry() {
        t.add_row([a.id, a.mirrors, &describe(a), a.summary]);
    }
    format!("{t}\n")
}
