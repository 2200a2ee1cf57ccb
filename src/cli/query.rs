//! `tracelab query`: ad hoc SQL, a `-f` file or a named query from
//! `queries/` over the store, printed as a table, CSV or JSON, or written
//! to Parquet. The engine, guard and writers are in `tracelab_query`; this
//! file turns argv into a plan and prints.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;

use tracelab_query::catalog::ParamKind;
use tracelab_query::{ask, catalog, limits, params, Limits, NamedQuery};
use tracelab_schema::error::Error;
use tracelab_store::{Store, Tails};

use super::listing::{self, Entry, ParamDoc};
use super::output::OutputArgs;

/// Significant digits of floats in the terminal table (CSV and JSON keep 12).
const TABLE_DIGITS: usize = 6;

/// Run SQL over the store: ad hoc, from a file, or a named query.
///
/// QUERY is SQL text or the name of a named query (`--list` shows them).
/// The engine is Apache DataFusion with PostgreSQL's semantics where
/// engines differ: integer division (a note on stderr says where), NULLs
/// sorting last ascending and first descending, exact percentile_cont,
/// rounding casts to integers (queries/README.md lists the few remaining
/// differences). Tables have stable names (`tracelab tables` lists them:
/// pai_instances, philly_attempts, helios_jobs, the unified jobs, ...) and
/// are read as Parquet scans, so a query reads only the columns and row
/// groups it needs. Queries are read-only: one SELECT / WITH ... SELECT
/// that reads only the store's tables, its CTEs and subqueries; other
/// statements, table functions (read_parquet, read_csv, ...) and
/// qualified names are refused. Quote the columns "user" and "group",
/// which are SQL keywords.
///
/// Ceilings: a query text of at most 1 MiB and 1,000 levels of nested
/// expression; a text value built by a string function (lpad, repeat,
/// concat, ...) of at most 16 MiB; and --memory-limit for the rows a sort,
/// grouping or join holds, past which it spills to temporary files.
///
/// Output: a table on a terminal, csv when piped (or from the extension
/// of -o); floats are rounded to 12 significant digits (6 in the table),
/// timestamps are RFC 3339 UTC, durations are seconds; control characters
/// in the data are shown escaped in the table.
///
/// A named query's `trace` parameter, when not given and its default is a
/// trace the store does not hold, is the store's only trace.
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
    /// A parameter of the named query or file, NAME=VALUE (repeatable,
    /// each name once).
    #[arg(short, long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    #[command(flatten)]
    output: OutputArgs,
    /// Print the SQL that would run (parameters substituted) and stop.
    #[arg(long)]
    sql: bool,
    /// Memory for the rows sorts, groupings and joins hold (e.g. 2GiB,
    /// 512MiB); past it they spill to temporary files [default: half the
    /// machine's memory]
    #[arg(long, value_name = "SIZE", value_parser = limits::parse_bytes)]
    memory_limit: Option<u64>,
    #[command(flatten)]
    store: super::store::StoreArg,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let sink = args.output.resolve()?;
    if args.list {
        sink.table(&listing::table(&list(&catalog::bundled()?)), TABLE_DIGITS, false)?;
        return Ok(0);
    }
    let mut given: BTreeMap<String, String> = super::params::parse(&args.params)?.into_iter().collect();
    let query = named_or_adhoc(&args)?;
    if args.sql {
        super::out(&params::bind(&query, &given)?)?;
        return Ok(0);
    }
    let mut limits = Limits::default();
    if let Some(bytes) = args.memory_limit {
        limits.memory_limit = bytes;
    }
    let answer = crate::keeping_freed_memory(|| -> anyhow::Result<_> {
        let store = args.store.open_checking(Tails::OnUse)?;
        if let Some(only) = only_trace_for(&query, &given, &store) {
            given.insert(TRACE.to_string(), only);
        }
        Ok(ask::answer(&store, &query, &given, limits)?)
    })?;
    for note in &answer.notes {
        super::progress::note(note);
    }
    sink.table(&answer.table(), TABLE_DIGITS, true)?;
    Ok(0)
}

/// The parameter of a named query that chooses the trace.
const TRACE: &str = "trace";

/// The `trace` a query takes when none is given and its default is a
/// trace the store does not hold: the store's only trace, when the query
/// accepts it (a store of one Helios trace answers `top-users-by-gpu-hours`
/// for Helios, not an empty Philly). `all` and a held default stay.
fn only_trace_for(query: &NamedQuery, given: &BTreeMap<String, String>, store: &Store) -> Option<String> {
    let param = query.params.iter().find(|p| p.name == TRACE).filter(|_| !given.contains_key(TRACE))?;
    let ParamKind::OneOf(accepted) = &param.kind else { return None };
    let held: Vec<&str> = store.manifests().iter().map(|(t, _)| t.name()).collect();
    if param.default == "all" || held.contains(&param.default.as_str()) {
        return None;
    }
    super::store::only_trace(store).ok().filter(|only| accepted.contains(only))
}

/// QUERY as a named query if it is one, else as SQL; or the -f file.
fn named_or_adhoc(args: &Args) -> anyhow::Result<NamedQuery> {
    if let Some(path) = &args.file {
        let text = read_sql_file(path)?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("stdin");
        let source = if path.as_os_str() == "-" { "stdin".to_string() } else { path.display().to_string() };
        return Ok(NamedQuery::parse(&source, stem, &text)?);
    }
    Ok(ask::named_or_sql(args.query.as_deref().unwrap_or_default())?)
}

fn read_sql_file(path: &Path) -> anyhow::Result<String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("reading the query from stdin")?;
        return Ok(text);
    }
    std::fs::read_to_string(path).map_err(|e| Error::io(path, e).into())
}

/// The catalog as listing entries.
fn list(queries: &[NamedQuery]) -> Vec<Entry> {
    queries
        .iter()
        .map(|q| Entry {
            name: q.name.clone(),
            scope: String::new(),
            mirrors: String::new(),
            tables: q.tables.clone(),
            params: q
                .params
                .iter()
                .map(|p| ParamDoc { name: p.name.clone(), kind: p.kind.to_string(), default: p.default.clone() })
                .collect(),
            summary: q.question.clone(),
        })
        .collect()
}
