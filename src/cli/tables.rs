//! `tracelab tables`: the tables of a store under their SQL names, with
//! rows (from the Parquet footers) and documented columns, types and units.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::ValueEnum;

use super::query::{emit, Format as QueryFormat};
use tracelab_query::tables::{columns_frame, describe};
use tracelab_schema::error::Error;

/// List the tables of the store that SQL queries can read.
///
/// One row per column of every table present: the table's SQL name (as
/// used by `tracelab query`), its rows, and the column's name, type and
/// unit. With NAME, only that table, with each column's meaning.
/// Cost: reads only the Parquet footers.
///
/// Output: --format table on a terminal, csv when stdout is not a terminal.
///
/// Examples:
///   tracelab tables
///   tracelab tables philly_jobs
///   tracelab tables --format csv > tables.csv
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// One table's SQL name, e.g. pai_instances.
    name: Option<String>,
    /// Output format [default: table on a terminal, else csv].
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// The store to read [default: the bundled data-samples/ store,
    /// ingested on first use].
    #[arg(long, value_name = "STORE")]
    store: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Table,
    Csv,
    Json,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let store = super::store::resolve(args.store.as_ref())?;
    let mut tables = describe(&store)?;
    if let Some(name) = &args.name {
        let names: Vec<&str> = tables.iter().map(|t| t.stored.table.sql_name()).collect();
        if !names.contains(&name.as_str()) {
            return Err(
                Error::Usage(format!("no table `{name}` in this store; its tables are: {}", names.join(", "))).into()
            );
        }
        tables.retain(|t| t.stored.table.sql_name() == name);
    }
    let format = match args.format {
        Some(Format::Table) => QueryFormat::Table,
        Some(Format::Csv) => QueryFormat::Csv,
        Some(Format::Json) => QueryFormat::Json,
        None if std::io::stdout().is_terminal() => QueryFormat::Table,
        None => QueryFormat::Csv,
    };
    if let (Some(t), QueryFormat::Table) = (tables.first(), format) {
        if args.name.is_some() {
            super::out(&format!(
                "{} ({}): {}\n",
                t.stored.table.sql_name(),
                t.stored.path.display(),
                t.stored.table.doc
            ))?;
        }
    }
    let mut df = columns_frame(&tables, args.name.is_some())?;
    emit(&mut df, format, None)
}
