//! Read-only enforcement on the parsed statement: a query may read only the
//! store's tables (and its own CTEs and subqueries).
//!
//! DataFusion plans statements that are not queries (CREATE EXTERNAL TABLE
//! reads any file, COPY writes one, CREATE VIEW, SET, EXPLAIN), and other
//! engines' file readers (`read_csv`, `read_parquet`, ...) are one function
//! registration away. A check of the text's tokens misses spellings the
//! parser accepts (`"read_csv"(...)`, backquotes, `read_csv.x(...)`, `/*!
//! ... */`, `$$...$$` strings), so this parses the text once, with
//! DataFusion's own parser and dialect (the statement checked here is the
//! statement the engine plans: `session` plans this parsed statement, not
//! the text) in PostgreSQL's dialect, and walks every node with sqlparser's visitor, which reaches
//! every query, table factor and expression (subqueries in WHERE, SELECT,
//! JOIN, UNION, CTEs):
//!
//! - exactly one statement, and it is a query (`SELECT`, `WITH`, `VALUES`,
//!   set operations); no statement inside it and no `SELECT ... INTO`;
//! - every table factor is a plain name (one part, no arguments) that is a
//!   table of the store or a CTE in scope, a subquery, a nested join or an
//!   `UNNEST` of values; anything else (table functions, `TABLE(...)`,
//!   `LATERAL f(...)`, PIVOT, JSON_TABLE, ...) is refused;
//! - every function called in an expression has a one-part name that is not
//!   a file-reading function (scalar functions are fine);
//! - no `EXCEPT ALL` or `INTERSECT ALL`, which DataFusion 55 answers as if
//!   they kept every copy of a row that matches (INTERSECT) or none of them
//!   (EXCEPT), where SQL counts copies;
//! - no RIGHT or FULL join with USING or NATURAL: there SQL's joined column
//!   is the COALESCE of the two tables' keys, and DataFusion 55 gives the
//!   left table's, NULL on every row only the right table has (a silently
//!   wrong answer, refused with the form that works).
//!
//! This is the first wall; the second is the session itself, which has no
//! table functions, refuses DDL, DML and other statements in the plan
//! (`SQLOptions`), and has no catalog but the store's tables.

use std::ops::ControlFlow;

use datafusion::sql::parser::{DFParserBuilder, Statement as DFStatement};
use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArguments, Join, JoinConstraint, JoinOperator, ObjectName, ObjectNamePart, Query, Select,
    SetExpr, SetOperator, SetQuantifier, Spanned, Statement, TableFactor, TableWithJoins, Visit, Visitor,
};
use datafusion::sql::sqlparser::dialect::PostgreSqlDialect;
use datafusion::sql::sqlparser::tokenizer::Span as SqlSpan;

use super::diagnose;
use super::lex;
use super::QueryError;
use tracelab_store::StoredTable;

/// Functions that read files named in the query in other engines (DuckDB,
/// Polars, datafusion-cli), and anything spelled `read_*` or `scan_*`.
/// Refused anywhere, although tracelab's session has none of them.
const FILE_FUNCTIONS: &[&str] =
    &["parquet_scan", "csv_scan", "glob", "sniff_csv", "query_table", "parquet_metadata", "metadata_cache"];

/// How deeply the parser may nest (parentheses, subqueries): DataFusion's
/// default, which it refuses past with an error rather than recursing on.
const PARSER_RECURSION_LIMIT: usize = 50;

/// Parses `sql` with DataFusion's SQL front end in PostgreSQL's dialect.
/// (DataFusion's default, the generic dialect, allows a trailing comma in
/// the SELECT list, so `SELECT state, cluster FROM ...` ended the list at
/// the comma before `cluster`, a keyword there.)
pub(crate) fn parse(sql: &str) -> datafusion::error::Result<Vec<DFStatement>> {
    let statements = DFParserBuilder::new(sql)
        .with_dialect(&PostgreSqlDialect {})
        .with_recursion_limit(PARSER_RECURSION_LIMIT)
        .build()?
        .parse_statements()?;
    Ok(statements.into_iter().collect())
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
    let statements = parse(sql).map_err(|e| diagnose::syntax(sql, &e.strip_backtrace()))?;
    let query = single_query(sql, statements)?;
    let mut walker = ReadOnly { sql, tables, scopes: Vec::new(), reads: Vec::new() };
    match query.visit(&mut walker) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(Checked { query, reads: walker.reads }),
    }
}

/// The one statement of `statements`, when it is a query.
fn single_query(sql: &str, statements: Vec<DFStatement>) -> Result<Query, QueryError> {
    let mut statements = statements.into_iter();
    match (statements.next(), statements.next()) {
        (None, _) => Err(QueryError::plain("the query is empty")),
        (Some(_), Some(second)) => {
            let span = match &second {
                DFStatement::Statement(s) => s.span(),
                _ => SqlSpan::empty(),
            };
            Err(at_span(sql, span, "one statement at a time: remove the text after `;`"))
        }
        (Some(DFStatement::Statement(statement)), None) if matches!(*statement, Statement::Query(_)) => {
            let Statement::Query(q) = *statement else { unreachable!("matched a query") };
            Ok(*q)
        }
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
        let ctes = q.with.iter().flat_map(|w| &w.cte_tables).map(|c| &c.alias.name);
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
        if let Some(span) = s.from.iter().find_map(outer_using) {
            let message = "USING or NATURAL in a RIGHT or FULL join: tracelab's engine would give the left table's \
                           key, NULL on the rows only the right table has, where SQL gives either table's key";
            return ControlFlow::Break(
                at_span(self.sql, span, message).with_hint("join ON a.k = b.k and select COALESCE(a.k, b.k) AS k"),
            );
        }
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

    fn refuse_with(&self, span: SqlSpan, message: String, hint: String) -> ControlFlow<QueryError> {
        ControlFlow::Break(at_span(self.sql, span, message).with_hint(hint))
    }

    /// `TABLE name` is a query body naming a table without a FROM.
    fn set_expr(&mut self, body: &SetExpr) -> ControlFlow<QueryError> {
        match body {
            SetExpr::SetOperation {
                op: op @ (SetOperator::Except | SetOperator::Intersect),
                set_quantifier: SetQuantifier::All,
                ..
            } => {
                let message = format!(
                    "{op} ALL: tracelab's engine would keep every copy of a matching row or none of them, where SQL \
                     counts the copies"
                );
                let hint = format!(
                    "number the copies and {op} those: SELECT x, ROW_NUMBER() OVER (PARTITION BY x) AS copy FROM a \
                     {op} SELECT x, ROW_NUMBER() OVER (PARTITION BY x) AS copy FROM b"
                );
                self.refuse_with(SqlSpan::empty(), message, hint)
            }
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

    /// A table reference: one unquoted or quoted name, a store table or a
    /// CTE. The store has one schema, so a qualified name (`read_csv.x`,
    /// `jobs.x`, `public.jobs`) names nothing tracelab holds.
    fn table_name(&mut self, name: &ObjectName) -> ControlFlow<QueryError> {
        match name.0.as_slice() {
            [ObjectNamePart::Identifier(ident)] => self.known(&ident.value, ident.span),
            _ => self.refuse(
                name.span(),
                format!("`{name}`: qualified names are not allowed; name a table of the store (see `tracelab tables`)"),
            ),
        }
    }

    /// A name in FROM or `TABLE`: a table of the store (listed in `reads`,
    /// also when a CTE of that name may shadow it: which one a reference
    /// means is the engine's to resolve), else a CTE in scope.
    fn known(&mut self, name: &str, span: SqlSpan) -> ControlFlow<QueryError> {
        if let Some(t) = self.tables.iter().find(|t| t.table.sql_name() == name) {
            if !self.reads.iter().any(|r| std::ptr::eq(*r, t)) {
                self.reads.push(t);
            }
            return ControlFlow::Continue(());
        }
        if self.scopes.iter().flatten().any(|c| c == name) {
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

/// Where a RIGHT or FULL join of `from` (nested joins included) joins with
/// USING or NATURAL.
fn outer_using(from: &TableWithJoins) -> Option<SqlSpan> {
    let nested = |t: &TableFactor| match t {
        TableFactor::NestedJoin { table_with_joins, .. } => outer_using(table_with_joins),
        _ => None,
    };
    let own = |j: &Join| match &j.join_operator {
        JoinOperator::Right(c) | JoinOperator::RightOuter(c) | JoinOperator::FullOuter(c) => match c {
            JoinConstraint::Using(names) => Some(
                names
                    .first()
                    .map_or_else(|| j.relation.span(), datafusion::logical_expr::sqlparser::ast::Spanned::span),
            ),
            JoinConstraint::Natural => Some(j.relation.span()),
            _ => None,
        },
        _ => None,
    };
    nested(&from.relation).or_else(|| from.joins.iter().find_map(|j| nested(&j.relation).or_else(|| own(j))))
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
