//! SQL over the store (layer 1): the tables a query reads registered under
//! their stable SQL names in a Polars [`SQLContext`], the read-only guard,
//! the refusal of what the engine would answer wrongly, the result's
//! column names and ORDER BY over them, the folding of constant WHERE
//! conditions and of zoned time literals to UTC, the rewrites that give
//! functions their standard results, the named-query catalog
//! (`queries/*.sql`) with its parameters, errors that point into the query
//! text, and the output writers.
//!
//! It imports only `schema`, `store`, `present` and `error`; the CLI (`cli::query`,
//! `cli::tables`) decides formats and prints. Nothing here writes a file
//! except [`output::write_parquet`], to the path the user gave with `-o`.

pub mod catalog;
mod diagnose;
mod fold;
mod guard;
mod lex;
pub mod output;
pub mod params;
mod result_names;
mod standard_results;
pub mod tables;
mod utc_literals;
mod wrong_answers;

use std::fmt;

use polars::prelude::*;
use polars::sql::SQLContext;

use tracelab_present::text::{neutralize, neutralize_lines};
use tracelab_schema::error::{Error, Result};
use tracelab_store::{Store, StoredTable};

pub use catalog::{Execution, NamedQuery, Param, ParamKind};

/// A SQL engine over one store. A query's tables are registered when it
/// runs, under their `sql_name()`, and only those it reads (as the guard
/// found them): each is a Parquet scan, which opens the file, and
/// registering all twenty tables of a three-trace store cost every query
/// about 1 ms of CPU, a sixth of `SELECT 1`'s. A scan reads only the
/// columns and row groups the query needs.
pub struct Engine {
    ctx: SQLContext,
    store: Store,
    tables: Vec<StoredTable>,
}

impl Engine {
    /// An engine over the tables present in `store`.
    pub fn new(store: &Store) -> Result<Engine> {
        Ok(Engine { ctx: SQLContext::new(), store: store.clone(), tables: store.tables() })
    }

    /// The tables present in the store, in documentation order.
    pub fn tables(&self) -> &[StoredTable] {
        &self.tables
    }

    /// Runs one read-only query with the given engine. `source` names where
    /// the text came from (`query`, a named query's file, `-f` path) for
    /// error messages.
    pub fn run(&mut self, source: &str, sql: &str, execution: Execution) -> Result<DataFrame> {
        let located = |e: QueryError| Error::input(source, e.to_string());
        let mut checked = guard::check(sql, &self.tables).map_err(located)?;
        wrong_answers::check(sql, &checked.query).map_err(located)?;
        // The engine parses the query again: the rewritten text when a
        // computed column was named, an ORDER BY pointed at a column, a WHERE
        // folded, a zoned time literal made UTC or a function given its
        // standard result (printed from the parsed
        // statement, which sqlparser prints back in a form it parses to the
        // same statement), else the text as written. Names first, so that
        // they are the expressions as written.
        let named = result_names::name_and_order(&mut checked.query);
        let folded = fold::where_constants(&mut checked.query);
        let utc = utc_literals::to_utc(&mut checked.query, &checked.reads);
        let standard = standard_results::rewrite(&mut checked.query);
        let rewritten = (named || folded || utc || standard).then(|| checked.query.to_string());
        let engine_sql = rewritten.as_deref().unwrap_or(sql);
        for t in checked.reads {
            let name = t.table.sql_name();
            if !self.ctx.get_tables().iter().any(|r| r == name) {
                self.ctx.register(name, self.store.scan(t.table)?);
            }
        }
        let mut lf = self.ctx.execute(engine_sql).map_err(|e| located(diagnose::explain(sql, &e, &self.tables)))?;
        if standard_results::reads_no_column(&checked.query) {
            let mut flags = lf.get_current_optimizations();
            flags.remove(OptFlags::COMM_SUBEXPR_ELIM);
            lf = lf.with_optimizations(flags);
        }
        let result = match execution {
            Execution::InMemory => lf.collect(),
            Execution::Streaming => {
                lf.collect_with_engine(polars::prelude::Engine::Streaming).map(|r| r.unwrap_single())
            }
        };
        result.map_err(|e| located(diagnose::explain(sql, &e, &self.tables)))
    }
}

/// An error in a query: the message, where in the text it is when known,
/// and a hint (the tables or columns that exist).
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
        .map(|table| StoredTable { table, path: std::path::PathBuf::from("/nonexistent") })
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
