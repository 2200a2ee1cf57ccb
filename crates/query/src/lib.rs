//! SQL over the store (layer 2), executed by Apache DataFusion with
//! PostgreSQL's semantics where engines differ: the store's tables under
//! their stable SQL names ([`store_schema`]), the ceilings checked before
//! the parser runs ([`limits`]), the read-only guard on the parsed statement
//! ([`guard`]), the names of computed result columns ([`result_names`]),
//! a number times an interval ([`intervals`]),
//! the functions tracelab adds or bounds (exact quantiles in [`quantile`],
//! string results under a ceiling in [`strings`], PostgreSQL's casts in
//! [`semantics`]), the memory pool that makes a large query spill to disk
//! ([`session`]), a top-k that reads the wide columns it carries only for
//! the rows it keeps ([`late_columns`]), notes about what a query computes ([`notes`]), the
//! named-query catalog (`queries/*.sql`) with its parameters, errors that
//! point into the query text ([`diagnose`]), and the output writers.
//!
//! It imports only `schema`, `store` and `present` of tracelab; the CLI
//! (`cli::query`, `cli::tables`) decides formats, prints and writes `-o`'s
//! file ([`output::parquet_bytes`] gives a Parquet result's bytes). Nothing
//! here writes a file except DataFusion's spill files in the system's
//! temporary folder while a query runs over its memory limit.

pub mod ask;
mod case_select;
pub mod catalog;
mod dense_groups;
mod diagnose;
mod dictionary_keys;
mod file_scan;
mod guard;
mod intervals;
mod late_columns;
mod lex;
pub mod limits;
mod mapped_files;
mod notes;
mod one_pass;
pub mod output;
pub mod params;
mod plan_rewrite;
#[cfg(test)]
mod plan_tests;
mod proven_filters;
mod quantile;
mod quantile_values;
mod result_names;
mod round_casts;
mod semantics;
mod session;
mod store_schema;
mod strings;
pub mod tables;
mod top_k_first;

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;

use tracelab_present::text::{neutralize, neutralize_lines};
use tracelab_schema::error::{Error, Result};
use tracelab_store::{Store, StoredTable};

pub use catalog::{NamedQuery, Param, ParamKind};
pub use limits::Limits;

/// A SQL engine over one store. Each [`Engine::run`] builds its own
/// DataFusion session: a table is opened only when a query names it (its
/// Parquet footer gives the schema), and a scan reads only the columns and
/// row groups the query needs.
pub struct Engine {
    store: Store,
    tables: Vec<StoredTable>,
    limits: Limits,
}

/// What a query returned: its rows as Arrow record batches (the form the
/// Python package hands on through the Arrow C interface), their schema,
/// and notes for the user about how the query was computed (an integer
/// division, a spill to disk), which the CLI prints on stderr.
#[derive(Debug, Clone)]
pub struct Answer {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
    pub notes: Vec<String>,
}

impl Answer {
    /// The rows as a neutral table for the presentation layer.
    pub fn table(&self) -> tracelab_present::Table {
        output::table(&self.schema, &self.batches)
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

impl Engine {
    /// An engine over the tables present in `store`, with the default
    /// [`Limits`].
    pub fn new(store: &Store) -> Result<Engine> {
        Ok(Engine { store: store.clone(), tables: store.tables(), limits: Limits::default() })
    }

    /// The same engine with other ceilings (`--memory-limit`).
    pub fn with_limits(mut self, limits: Limits) -> Engine {
        self.limits = limits;
        self
    }

    /// The tables present in the store, in documentation order.
    pub fn tables(&self) -> &[StoredTable] {
        &self.tables
    }

    /// The store this engine reads.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Runs one read-only query. `source` names where the text came from
    /// (`query`, a named query's file, a `-f` path) for error messages.
    ///
    /// The text is checked against the ceilings, parsed once and guarded;
    /// the engine plans exactly the statement the guard passed. Planning
    /// and execution run on a thread of their own with a large stack, so
    /// that an expression as deep as the ceiling allows is planned without
    /// overflowing the caller's stack.
    pub fn run(&self, source: &str, sql: &str) -> Result<Answer> {
        let located = |e: QueryError| Error::input(source, e.to_string());
        limits::check_text(sql, &self.limits).map_err(located)?;
        let checked = guard::check(sql, &self.tables).map_err(located)?;
        // The session's catalog holds only the tables the guard saw named.
        let reads: Vec<StoredTable> = checked.reads.into_iter().cloned().collect();
        let mut query = checked.query;
        result_names::name_as_written(&mut query);
        intervals::rewrite(&mut query);
        let tables = Arc::new(self.tables.clone());
        let limits = self.limits.clone();
        let sql_text = sql.to_string();
        let work = move || session::execute(&sql_text, query, Arc::new(reads), tables, &limits);
        let outcome = std::thread::Builder::new()
            .name("tracelab-query".into())
            .stack_size(limits::PLANNER_STACK_BYTES)
            .spawn(work)
            .map_err(|e| Error::input(source, format!("cannot start the query thread: {e}")))?
            .join()
            .map_err(|_| Error::input(source, "the query engine stopped unexpectedly (a panic); please report it"))?;
        outcome.map_err(located)
    }
}

/// An error in a query: the message, where in the text it is when known,
/// and a hint (the tables or columns that exist, the form that works).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError {
    message: String,
    at: Option<Span>,
    hint: Option<String>,
}

/// A place in the query text: 1-based line and column, the line itself and
/// how many characters to underline.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Span {
    line: usize,
    col: usize,
    width: usize,
    text: String,
}

impl QueryError {
    fn plain(message: impl Into<String>) -> QueryError {
        QueryError { message: message.into(), at: None, hint: None }
    }

    /// An error underlining token `t` of `sql`.
    fn at(sql: &str, t: &lex::Token, message: String) -> QueryError {
        QueryError { message, at: Some(Span::of(sql, t.start, t.text(sql).chars().count())), hint: None }
    }

    /// An error underlining `width` characters from 1-based `line`, `col`.
    fn at_line_col(sql: &str, line: usize, col: usize, width: usize, message: String) -> QueryError {
        let text = sql.lines().nth(line.saturating_sub(1)).unwrap_or_default().trim_end_matches('\r');
        let col = col.clamp(1, text.chars().count() + 1);
        QueryError { message, at: Some(Span { line, col, width: width.max(1), text: text.to_string() }), hint: None }
    }

    fn with_hint(mut self, hint: impl Into<String>) -> QueryError {
        self.hint = Some(hint.into());
        self
    }
}

impl Span {
    fn of(sql: &str, at: usize, width: usize) -> Span {
        let (line, col, text) = lex::line_col(sql, at);
        Span { line, col, width: width.max(1), text: text.to_string() }
    }
}

/// Text of the query shown in an error: escaped ([`neutralize`]), so that a
/// query file cannot send control sequences to the terminal.
impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&neutralize_lines(&self.message))?;
        if let Some(s) = &self.at {
            let n = s.line.to_string();
            let pad = " ".repeat(n.len());
            write!(f, "\n{pad}--> line {}, column {}", s.line, s.col)?;
            // A tab is shown as one space and other controls escaped; the
            // underline is placed under the same characters as shown.
            let shown = |chars: &[char]| -> String {
                let text: String = chars.iter().map(|&c| if c == '\t' { ' ' } else { c }).collect();
                neutralize(&text).into_owned()
            };
            let chars: Vec<char> = s.text.chars().collect();
            let start = (s.col - 1).min(chars.len());
            let end = (start + s.width).min(chars.len());
            let before = shown(&chars[..start]).chars().count();
            let under = shown(&chars[start..end]).chars().count().max(1);
            write!(f, "\n{n} | {}", shown(&chars))?;
            write!(f, "\n{pad} | {}{}", " ".repeat(before), "^".repeat(under))?;
        }
        if let Some(h) = &self.hint {
            write!(f, "\n{}", neutralize_lines(h))?;
        }
        Ok(())
    }
}

impl std::error::Error for QueryError {}

/// Every table of the schema, as a store holding all of them lists them
/// (the files are not opened): for the tests of the guard and the rewrites.
#[cfg(test)]
fn every_schema_table() -> Vec<StoredTable> {
    tracelab_schema::all_tables()
        .into_iter()
        .map(|table| StoredTable { table, path: std::path::PathBuf::from("/nonexistent"), tail_check: None })
        .collect()
}

#[cfg(test)]
mod display_tests {
    use super::*;

    #[test]
    fn the_quoted_query_is_escaped_and_the_underline_follows_it() {
        // `nope` at column 16 of a line with an ESC and a tab before it.
        let sql = "SELECT '\u{1b}[2J',\tnope FROM t";
        let tokens = lex::tokenize(sql);
        let nope = tokens.iter().find(|t| t.text(sql) == "nope").unwrap();
        let err = QueryError::at(sql, nope, "no column 'nope\u{7}'".into()).with_hint("see\u{1b}]0;x");
        // Worked by hand: 15 characters precede `nope`; ESC is shown as the
        // 4 characters \x1b and the tab as one space, so 18 are shown.
        let want = format!(
            "no column 'nope\\x07'\n --> line 1, column 16\n1 | SELECT '\\x1b[2J', nope FROM t\n  | {}^^^^\nsee\\x1b]0;x",
            " ".repeat(18)
        );
        assert_eq!(err.to_string(), want);
    }
}
