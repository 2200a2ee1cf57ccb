//! Read-only enforcement on the parsed statement: a query may read only the
//! store's registered tables (and its own CTEs and subqueries).
//!
//! Polars' SQL engine never writes files, but it executes a few statements
//! that are not queries (CREATE TABLE, DROP TABLE, DELETE, TRUNCATE act on
//! its catalog; EXPLAIN and SHOW run too) and table functions that read any
//! file on disk (`read_csv`, `read_parquet`, `read_ipc`, `read_json`, found
//! by the first part of the name, unquoted and lowercased). A check of the
//! text's tokens misses spellings the parser accepts (`"read_csv"(...)`,
//! backquotes, `read_csv.x(...)`, `/*! ... */`, `$$...$$` strings), so this
//! parses the text exactly as polars-sql 0.55.2 does in
//! `SQLContext::execute` (the same sqlparser version, `GenericDialect`,
//! trailing commas allowed) and walks every node of the statement with
//! sqlparser's visitor, which reaches every query, table factor and
//! expression (subqueries in WHERE, SELECT, JOIN, UNION, CTEs):
//!
//! - exactly one statement, and it is a query (`SELECT`, `WITH`, `VALUES`,
//!   set operations); no statement inside it and no `SELECT ... INTO`;
//! - every table factor is a plain name (one part, no arguments) that is a
//!   registered table or a CTE in scope, a subquery, a nested join or an
//!   `UNNEST` of values; anything else (table functions, `TABLE(...)`,
//!   `LATERAL f(...)`, PIVOT, JSON_TABLE, ...) is refused;
//! - no CTE takes the name of a registered table (Polars would read the
//!   table where SQL reads the CTE);
//! - every function called in an expression has a one-part name that is not
//!   a file-reading function (scalar functions are fine).

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Function, FunctionArguments, ObjectName, ObjectNamePart, Query, Select, SetExpr, Spanned, Statement,
    TableFactor, Visit, Visitor,
};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::{Parser, ParserError, ParserOptions};
use sqlparser::tokenizer::Span as SqlSpan;

use super::diagnose;
use super::lex;
use super::QueryError;
use tracelab_store::StoredTable;

/// Functions that read files named in the query: Polars' table functions
/// (`PolarsTableFunctions`), DuckDB's, and anything spelled `read_*` or
/// `scan_*`. Refused anywhere, also where Polars would not call them.
const FILE_FUNCTIONS: &[&str] = &["parquet_scan", "csv_scan", "glob", "sniff_csv", "query_table"];

/// Parses `sql` exactly as polars-sql 0.55.2's `SQLContext::execute` does.
pub(crate) fn parse(sql: &str) -> Result<Vec<Statement>, ParserError> {
    Parser::new(&GenericDialect)
        .with_options(ParserOptions { trailing_commas: true, ..Default::default() })
        .try_with_sql(sql)?
        .parse_statements()
}

/// A query that passed the guard: the statement as parsed, and the store's
/// tables it reads (each once, in the order first named).
#[derive(Debug)]
pub struct Checked<'a> {
    pub query: Query,
    pub reads: Vec<&'a StoredTable>,
}

/// Checks that `sql` is a single read-only query over `tables` and returns
/// it parsed, with the tables it reads; the error points at the offending
/// name.
pub fn check<'a>(sql: &str, tables: &'a [StoredTable]) -> Result<Checked<'a>, QueryError> {
    let statements = parse(sql).map_err(|e| diagnose::syntax(sql, &e.to_string()))?;
    let query = single_query(sql, statements)?;
    let mut walker = ReadOnly { sql, tables, scopes: Vec::new(), reads: Vec::new() };
    match query.visit(&mut walker) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(Checked { query, reads: walker.reads }),
    }
}

/// The one statement of `statements`, when it is a query.
fn single_query(sql: &str, statements: Vec<Statement>) -> Result<Query, QueryError> {
    let mut statements = statements.into_iter();
    match (statements.next(), statements.next()) {
        (None, _) => Err(QueryError::plain("the query is empty")),
        (Some(_), Some(second)) => {
            Err(at_span(sql, second.span(), "one statement at a time: remove the text after `;`"))
        }
        (Some(Statement::Query(q)), None) => Ok(*q),
        (Some(_), None) => {
            let first = lex::tokenize(sql).into_iter().next();
            let found = first.as_ref().map_or("", |t| t.text(sql));
            let message = format!("only SELECT (or WITH ... SELECT) queries are allowed; found `{found}`");
            Err(first.map_or_else(|| QueryError::plain(&message), |t| QueryError::at(sql, &t, message.clone())))
        }
    }
}

/// The error underlining `span` (sqlparser's 1-based line and column), or
/// without a position when the parser gave none.
pub(super) fn at_span(sql: &str, span: SqlSpan, message: impl Into<String>) -> QueryError {
    let (start, end) = (span.start, span.end);
    if start.line == 0 || start.column == 0 {
        return QueryError::plain(message);
    }
    let width = if end.line == start.line && end.column > start.column { end.column - start.column } else { 1 };
    QueryError::at_line_col(sql, start.line as usize, start.column as usize, width as usize, message.into())
}

/// The walk: the CTE names in scope at each enclosing query, and the
/// store's tables named so far.
struct ReadOnly<'s, 'a> {
    sql: &'s str,
    tables: &'a [StoredTable],
    scopes: Vec<Vec<String>>,
    reads: Vec<&'a StoredTable>,
}

impl<'a> Visitor for ReadOnly<'_, 'a> {
    type Break = QueryError;

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<QueryError> {
        // A CTE named like a table of the store: Polars reads the table, where
        // SQL reads the CTE (`WITH jobs AS (SELECT * FROM philly_jobs)` counted
        // all 10,783 sample jobs instead of Philly's 117).
        let ctes = q.with.iter().flat_map(|w| &w.cte_tables).map(|c| &c.alias.name);
        if let Some(name) = ctes.clone().find(|n| self.tables.iter().any(|t| t.table.sql_name() == n.value)) {
            let message = format!(
                "the CTE `{}` has the name of a table of the store, which tracelab's SQL engine would read instead; \
                 give the CTE another name",
                name.value
            );
            return self.refuse(name.span, message);
        }
        self.scopes.push(ctes.map(|n| n.value.clone()).collect());
        self.set_expr(&q.body)
    }

    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<QueryError> {
        self.scopes.pop();
        ControlFlow::Continue(())
    }

    fn pre_visit_statement(&mut self, s: &Statement) -> ControlFlow<QueryError> {
        // The top-level query is visited as a Query; a Statement here is one
        // nested in it (`WITH t AS (...) DELETE FROM ...`, INSERT bodies).
        self.refuse(s.span(), "queries are read-only: only SELECT is allowed inside a query".into())
    }

    fn pre_visit_select(&mut self, s: &Select) -> ControlFlow<QueryError> {
        match &s.into {
            Some(into) => {
                self.refuse(into.name.span(), "queries are read-only: `SELECT ... INTO` is not allowed".into())
            }
            None => ControlFlow::Continue(()),
        }
    }

    fn pre_visit_table_factor(&mut self, tf: &TableFactor) -> ControlFlow<QueryError> {
        match tf {
            TableFactor::Table { name, args: Some(_), .. } => self.refuse(
                name.span(),
                format!(
                    "`{name}(...)` is a table function, which reads files; a query can only read the store's tables"
                ),
            ),
            TableFactor::Table { name, .. } => self.table_name(name),
            TableFactor::Derived { .. } | TableFactor::NestedJoin { .. } | TableFactor::UNNEST { .. } => {
                ControlFlow::Continue(())
            }
            other => self.refuse(
                other.span(),
                "this FROM item is not allowed: a query reads the store's tables, its CTEs and subqueries".into(),
            ),
        }
    }

    fn pre_visit_relation(&mut self, name: &ObjectName) -> ControlFlow<QueryError> {
        self.table_name(name)
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<QueryError> {
        match e {
            Expr::Function(f) => self.function(f),
            _ => ControlFlow::Continue(()),
        }
    }
}

impl<'a> ReadOnly<'_, 'a> {
    fn refuse(&self, span: SqlSpan, message: String) -> ControlFlow<QueryError> {
        ControlFlow::Break(at_span(self.sql, span, message))
    }

    /// `TABLE name` is a query body naming a table without a FROM.
    fn set_expr(&mut self, body: &SetExpr) -> ControlFlow<QueryError> {
        match body {
            SetExpr::SetOperation { left, right, .. } => {
                self.set_expr(left)?;
                self.set_expr(right)
            }
            SetExpr::Table(t) => match (&t.schema_name, &t.table_name) {
                (None, Some(name)) => self.known(name, SqlSpan::empty()),
                _ => self.refuse(SqlSpan::empty(), format!("`TABLE {t}`: name a table of the store")),
            },
            _ => ControlFlow::Continue(()),
        }
    }

    /// A table reference: one unquoted or quoted name, registered or a CTE.
    /// Polars resolves only the first part of a qualified name, so
    /// `read_csv.x` or `jobs.x` would not mean what it says.
    fn table_name(&mut self, name: &ObjectName) -> ControlFlow<QueryError> {
        match name.0.as_slice() {
            [ObjectNamePart::Identifier(ident)] => self.known(&ident.value, ident.span),
            _ => self.refuse(
                name.span(),
                format!("`{name}`: qualified names are not allowed; name a table of the store (see `tracelab tables`)"),
            ),
        }
    }

    /// A name in FROM or `TABLE`: a CTE in scope, else a table of the store
    /// (which the query then reads: no CTE may shadow one).
    fn known(&mut self, name: &str, span: SqlSpan) -> ControlFlow<QueryError> {
        if self.scopes.iter().flatten().any(|c| c == name) {
            return ControlFlow::Continue(());
        }
        if let Some(t) = self.tables.iter().find(|t| t.table.sql_name() == name) {
            if !self.reads.iter().any(|r| std::ptr::eq(*r, t)) {
                self.reads.push(t);
            }
            return ControlFlow::Continue(());
        }
        let message = format!("relation '{name}' was not found");
        ControlFlow::Break(at_span(self.sql, span, message).with_hint(diagnose::unknown_table_hint(name, self.tables)))
    }

    /// Scalar functions are fine; file readers and qualified names are not.
    fn function(&self, f: &Function) -> ControlFlow<QueryError> {
        let [ObjectNamePart::Identifier(ident)] = f.name.0.as_slice() else {
            // `j.user` parses as a call of the keyword function USER.
            if let (Some(keyword), FunctionArguments::None) = (keyword_column(&f.name), &f.args) {
                let name = f.name.to_string();
                let (table, _) = name.rsplit_once('.').unwrap_or_default();
                let message = format!("`{}`: `{keyword}` is a SQL keyword; write {table}.\"{keyword}\"", f.name);
                return self.refuse(f.name.span(), message);
            }
            let message = format!("`{}(...)`: qualified function names are not allowed", f.name);
            return self.refuse(f.name.span(), message);
        };
        if reads_files(&ident.value.to_lowercase()) {
            let message = format!("`{}` reads files; a query can only read the store's tables", f.name);
            return self.refuse(ident.span, message);
        }
        ControlFlow::Continue(())
    }
}

/// `user` or `group` ([`diagnose::KEYWORD_COLUMNS`]) as the last part of a
/// qualified name.
fn keyword_column(name: &ObjectName) -> Option<String> {
    match name.0.last()? {
        ObjectNamePart::Identifier(i) if i.quote_style.is_none() => {
            let lower = i.value.to_lowercase();
            diagnose::KEYWORD_COLUMNS.contains(&lower.as_str()).then_some(lower)
        }
        _ => None,
    }
}

fn reads_files(function: &str) -> bool {
    function.starts_with("read_") || function.starts_with("scan_") || FILE_FUNCTIONS.contains(&function)
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
