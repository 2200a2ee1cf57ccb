//! `tracelab query`: ad hoc SQL, a `-f` file or a named query from
//! `queries/` over the store, printed as a table, CSV or JSON, or written
//! to Parquet. The engine, guard and writers are in `tracelab_query`; this
//! file turns argv into a plan and prints.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::ValueEnum;
use polars::prelude::*;

use tracelab_query::{catalog, output, params, Engine, NamedQuery};
use tracelab_schema::error::Error;
use tracelab_store::Store;

/// Run SQL over the store: ad hoc, from a file, or a named query.
///
/// QUERY is SQL text or the name of a named query (`--list` shows them).
/// Tables are registered under stable names (`tracelab tables` lists them:
/// pai_instances, philly_attempts, helios_jobs, the unified jobs, ...) as
/// lazy Parquet scans, so a query reads only the columns it needs.
/// Queries are read-only: only SELECT / WITH ... SELECT over the store's
/// tables; statements that change anything and functions that read files
/// (read_parquet, read_csv, ...) are refused. Quote the columns "user" and
/// "group", which are SQL keywords.
///
/// Output: --format table on a terminal, csv when stdout is not a terminal
/// (or from the extension of -o); floats are rounded to 12 significant
/// digits (6 in table), timestamps are RFC 3339 UTC.
///
/// Examples:
///   tracelab query "SELECT vc, count(*) AS jobs FROM philly_jobs GROUP BY vc ORDER BY 2 DESC LIMIT 5"
///   tracelab query --list
///   tracelab query top-users-by-gpu-hours --param trace=helios
///   tracelab query -f queries/top-users-by-gpu-hours.sql --format csv > out.csv
///   tracelab query "SELECT * FROM pai_machines" -o machines.parquet
///   tracelab query busiest-windows --param trace=pai --sql
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// SQL text, or the name of a named query.
    #[arg(value_name = "QUERY", required_unless_present_any = ["file", "list"])]
    query: Option<String>,
    /// Read the SQL from FILE (`-` for stdin); a header comment as in
    /// queries/ declares its parameters.
    #[arg(short, long, value_name = "FILE", conflicts_with = "query")]
    file: Option<PathBuf>,
    /// List the named queries: name, question, tables and parameters.
    #[arg(long, conflicts_with_all = ["query", "file", "params", "sql"])]
    list: bool,
    /// A parameter of the named query or file, NAME=VALUE (repeatable).
    #[arg(short, long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Output format [default: table on a terminal, else csv; with -o, from
    /// its extension]. parquet needs -o.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write the result to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print the SQL that would run (parameters substituted) and stop.
    #[arg(long)]
    sql: bool,
    /// The store to query [default: the bundled data-samples/ store,
    /// ingested on first use].
    #[arg(long, value_name = "STORE")]
    store: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum Format {
    Table,
    Csv,
    Json,
    Parquet,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let format = format(&args)?;
    if args.list {
        let mut df = list_frame(&catalog::bundled()?)?;
        return emit(&mut df, format, args.output.as_deref());
    }
    let query = named_or_adhoc(&args)?;
    let sql = params::bind(&query, &params::parse_pairs(&args.params)?)?;
    if args.sql {
        super::out(&sql)?;
        return Ok(0);
    }
    let store = super::store::resolve(args.store.as_ref())?;
    require_tables(&query, &store)?;
    let mut engine = Engine::new(&store)?;
    let mut df = engine.run(&query.source, &sql)?;
    emit(&mut df, format, args.output.as_deref())
}

/// The format asked for, else from -o's extension, else by terminal.
fn format(args: &Args) -> anyhow::Result<Format> {
    let by_extension = args.output.as_ref().and_then(|p| p.extension()).and_then(|e| match e.to_str()? {
        "parquet" => Some(Format::Parquet),
        "json" => Some(Format::Json),
        "csv" => Some(Format::Csv),
        _ => None,
    });
    let terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let format = args.format.or(by_extension).unwrap_or(if terminal { Format::Table } else { Format::Csv });
    if format == Format::Parquet && args.output.is_none() {
        return Err(Error::Usage("--format parquet writes a file: give it with -o FILE".into()).into());
    }
    Ok(format)
}

/// QUERY as a named query if it is one, else as SQL; or the -f file.
fn named_or_adhoc(args: &Args) -> anyhow::Result<NamedQuery> {
    if let Some(path) = &args.file {
        let text = read_sql_file(path)?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("stdin");
        let source = if path.as_os_str() == "-" { "stdin".to_string() } else { path.display().to_string() };
        return Ok(NamedQuery::parse(&source, stem, &text)?);
    }
    let text = args.query.as_deref().unwrap_or_default();
    if let Some(q) = catalog::find(text)? {
        return Ok(q);
    }
    if looks_like_a_name(text) {
        let names: Vec<String> = catalog::bundled()?.into_iter().map(|q| q.name).collect();
        return Err(Error::Usage(format!(
            "no named query `{text}`; the named queries are: {} (SQL text needs at least SELECT ... FROM ...)",
            names.join(", ")
        ))
        .into());
    }
    Ok(NamedQuery::parse("query", "query", text)?)
}

/// A word without spaces (`top-users`) is meant as a name, not as SQL.
fn looks_like_a_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn read_sql_file(path: &Path) -> anyhow::Result<String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("reading the query from stdin")?;
        return Ok(text);
    }
    std::fs::read_to_string(path).map_err(|e| Error::io(path, e).into())
}

/// A named query's declared tables must be in the store; say which trace
/// to ingest rather than fail inside the SQL.
fn require_tables(query: &NamedQuery, store: &Store) -> anyhow::Result<()> {
    let present: Vec<&str> = store.tables().iter().map(|t| t.table.sql_name()).collect();
    let missing: Vec<&String> = query.tables.iter().filter(|t| !present.contains(&t.as_str())).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let list: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
    Err(Error::input(
        &query.source,
        format!(
            "needs {} which {} does not hold; ingest the trace(s) first. Tables in this store: {}",
            list.join(", "),
            store.root().display(),
            present.join(", ")
        ),
    )
    .into())
}

/// The catalog as a frame, so `--list` prints in every format.
fn list_frame(queries: &[NamedQuery]) -> anyhow::Result<DataFrame> {
    let col = |f: &dyn Fn(&NamedQuery) -> String| queries.iter().map(f).collect::<Vec<String>>();
    let params = |q: &NamedQuery| q.params.iter().map(|p| p.summary()).collect::<Vec<_>>().join("; ");
    Ok(DataFrame::new_infer_height(vec![
        Column::new("name".into(), col(&|q| q.name.clone())),
        Column::new("question".into(), col(&|q| q.question.clone())),
        Column::new("tables".into(), col(&|q| q.tables.join(", "))),
        Column::new("params".into(), col(&params)),
    ])?)
}

/// Prints or writes `df` in `format`.
pub(super) fn emit(df: &mut DataFrame, format: Format, to: Option<&Path>) -> anyhow::Result<i32> {
    let text = match format {
        Format::Parquet => {
            let path = to.expect("checked in format()");
            tracelab_query::output::write_parquet(df, path)?;
            return Ok(0);
        }
        Format::Table => output::table(df, to.is_none() && std::io::stdout().is_terminal()),
        Format::Csv => output::csv(df),
        Format::Json => output::json(df),
    };
    match to {
        Some(path) => std::fs::write(path, text).map_err(|e| Error::io(path, e))?,
        None => super::out(&text)?,
    }
    Ok(0)
}
