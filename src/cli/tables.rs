//! `tracelab tables`: the tables of a store under their SQL names: one row
//! per table (rows from the Parquet footers, columns, file size), or with
//! NAME one row per column of that table (type, unit, meaning).

use tracelab_query::tables::{columns, describe, overview};
use tracelab_schema::error::Error;

use super::output::{Format, OutputArgs};

/// List the tables of the store that SQL queries can read.
///
/// Without NAME, one row per table present: its SQL name (as used by
/// `tracelab query`), trace, rows, columns and file size. With NAME, one
/// row per column of that table: type, unit, nulls and meaning.
/// Cost: reads only the Parquet footers.
///
/// Output: a table on a terminal, csv when piped (or from the extension
/// of -o).
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
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    store: super::store::StoreArg,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let sink = args.output.resolve()?;
    let store = args.store.open()?;
    let mut tables = describe(&store)?;
    let Some(name) = &args.name else {
        sink.table(&overview(&tables), 6, false)?;
        return Ok(0);
    };
    let names: Vec<&str> = tables.iter().map(|t| t.stored.table.sql_name()).collect();
    if !names.contains(&name.as_str()) {
        let list = names.join(", ");
        return Err(Error::Usage(format!("no table `{name}` in this store; its tables are: {list}")).into());
    }
    tables.retain(|t| t.stored.table.sql_name() == name);
    if sink.format == Format::Table {
        let t = &tables[0];
        let about = format!("{name} ({}, {} rows): {}", t.stored.path.display(), t.rows, t.stored.table.doc);
        sink.text(&(tracelab_present::terminal::line(&about) + "\n"))?;
    }
    sink.table(&columns(&tables), 6, false)?;
    Ok(0)
}
