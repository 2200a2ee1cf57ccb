//! Window functions in a SELECT that aggregates, refused before they run.
//!
//! In SQL a window function in an aggregating SELECT (one with GROUP BY,
//! HAVING or an aggregate such as COUNT) runs over the aggregated rows:
//! `COUNT(*) * 100.0 / SUM(COUNT(*)) OVER ()` is each group's share of all
//! rows. Polars' SQL front end (0.55) evaluates the window inside each
//! group instead, and answers without an error but wrongly. On the bundled
//! samples:
//! - `SUM(COUNT(*)) OVER ()` beside `GROUP BY vc` is each group's own count,
//!   so every share is 100 %;
//! - `ROW_NUMBER() OVER (ORDER BY vc)` beside `GROUP BY vc` is a list per
//!   group;
//! - `SELECT COUNT(*), ROW_NUMBER() OVER ()` without GROUP BY gives one row
//!   per input row instead of one.
//!
//! Other shapes fail in the engine with a length error. So every window
//! function in an aggregating SELECT is refused, with the rewrite that
//! works: aggregate in a CTE, apply the window to the CTE's rows.
//! Subqueries are SELECTs of their own and are judged on their own.

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, Function, ObjectNamePart, Query, Select, Spanned, Visit, Visitor};
use sqlparser::tokenizer::Span as SqlSpan;

use super::guard::at_span;
use super::QueryError;

/// Polars SQL's aggregate functions (polars-sql 0.55.2 `PolarsSQLFunctions`,
/// the "Aggregate functions" group, plus `array_agg`).
const AGGREGATES: &[&str] = &[
    "avg",
    "corr",
    "count",
    "covar_pop",
    "covar_samp",
    "covar",
    "first",
    "last",
    "max",
    "median",
    "min",
    "quantile_cont",
    "quantile_disc",
    "stdev",
    "stddev",
    "stdev_samp",
    "stddev_samp",
    "string_agg",
    "listagg",
    "group_concat",
    "sum",
    "total",
    "var",
    "variance",
    "var_samp",
    "array_agg",
];

/// Refuses a window function in an aggregating SELECT of `query`; the
/// error underlines the window function's name.
pub(super) fn check(sql: &str, query: &Query) -> Result<(), QueryError> {
    let mut walk = Walk { frames: Vec::new() };
    match query.visit(&mut walk) {
        ControlFlow::Break(span) => Err(at_span(
            sql,
            span,
            "a window function (OVER) in a SELECT that aggregates: tracelab's SQL engine would evaluate it \
             inside each group instead of over the grouped rows, and give wrong numbers",
        )
        .with_hint(
            "aggregate in a CTE, then apply the window to its rows, e.g. WITH g AS (SELECT vc, COUNT(*) AS n \
             FROM philly_jobs GROUP BY vc) SELECT vc, n, n * 100.0 / SUM(n) OVER () AS pct FROM g",
        )),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// What the walk knows of the innermost SELECT (or query) it is in.
enum Frame {
    /// A query's own clauses (ORDER BY, LIMIT): not a SELECT list.
    Query,
    Select {
        aggregates: bool,
        window: Option<SqlSpan>,
    },
}

struct Walk {
    frames: Vec<Frame>,
}

impl Visitor for Walk {
    type Break = SqlSpan;

    fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<SqlSpan> {
        self.frames.push(Frame::Query);
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<SqlSpan> {
        self.frames.pop();
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, s: &Select) -> ControlFlow<SqlSpan> {
        let aggregates = groups(s) || s.having.is_some();
        self.frames.push(Frame::Select { aggregates, window: None });
        ControlFlow::Continue(())
    }

    fn post_visit_select(&mut self, _: &Select) -> ControlFlow<SqlSpan> {
        match self.frames.pop() {
            Some(Frame::Select { aggregates: true, window: Some(span) }) => ControlFlow::Break(span),
            _ => ControlFlow::Continue(()),
        }
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<SqlSpan> {
        if let (Expr::Function(f), Some(Frame::Select { aggregates, window })) = (e, self.frames.last_mut()) {
            if f.over.is_some() {
                window.get_or_insert(f.name.span());
            } else if is_aggregate(f) {
                *aggregates = true;
            }
        }
        ControlFlow::Continue(())
    }
}

fn groups(s: &Select) -> bool {
    match &s.group_by {
        sqlparser::ast::GroupByExpr::All(_) => true,
        sqlparser::ast::GroupByExpr::Expressions(exprs, _) => !exprs.is_empty(),
    }
}

fn is_aggregate(f: &Function) -> bool {
    match f.name.0.as_slice() {
        [ObjectNamePart::Identifier(ident)] => AGGREGATES.contains(&ident.value.to_lowercase().as_str()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(sql: &str) -> Result<(), QueryError> {
        let statements = crate::guard::parse(sql).unwrap();
        let [sqlparser::ast::Statement::Query(q)] = statements.as_slice() else { panic!("{sql}: not one query") };
        check(sql, q)
    }

    #[test]
    fn windows_beside_an_aggregate_are_refused_at_the_window() {
        // Each with the window function's name, which the error underlines.
        for (sql, window) in [
            ("SELECT vc, COUNT(*) * 100.0 / SUM(COUNT(*)) OVER () AS pct FROM philly_jobs GROUP BY vc", "SUM("),
            ("SELECT vc, ROW_NUMBER() OVER (ORDER BY vc) AS r FROM philly_jobs GROUP BY vc", "ROW_NUMBER"),
            ("SELECT COUNT(*) AS n, ROW_NUMBER() OVER () AS r FROM philly_jobs", "ROW_NUMBER"),
            ("SELECT vc, RANK() OVER (ORDER BY vc) AS r FROM philly_jobs GROUP BY ALL", "RANK"),
            ("SELECT vc, RANK() OVER (ORDER BY vc) AS r FROM philly_jobs HAVING COUNT(*) > 1", "RANK"),
            // In a subquery, judged as its own SELECT.
            (
                "SELECT * FROM (SELECT vc, MAX(gpus) AS g, LAG(vc) OVER () AS p FROM philly_jobs GROUP BY vc) AS s",
                "LAG",
            ),
        ] {
            let err = verdict(sql).expect_err(sql).to_string();
            let col = sql.find(window).unwrap() + 1;
            let name_len = window.trim_end_matches('(').len();
            let caret = format!("{}{}", " ".repeat(col - 1), "^".repeat(name_len));
            assert!(err.contains(&format!("line 1, column {col}")) && err.contains(&caret), "{sql}: {err}");
            assert!(err.contains("WITH g AS (SELECT vc, COUNT(*) AS n"), "{err}");
        }
    }

    #[test]
    fn windows_over_plain_rows_or_a_cte_pass() {
        for sql in [
            "SELECT vc, SUM(gpus) OVER (PARTITION BY vc) AS s FROM philly_jobs",
            "WITH g AS (SELECT vc, COUNT(*) AS n FROM philly_jobs GROUP BY vc) \
             SELECT vc, n, n * 100.0 / SUM(n) OVER () AS pct FROM g",
            // The aggregate is the subquery's; the outer SELECT does not aggregate.
            "SELECT vc, (SELECT COUNT(*) FROM philly_jobs) AS n, ROW_NUMBER() OVER (ORDER BY vc) AS r FROM philly_jobs",
            // The window is the subquery's, over plain rows; the outer SELECT aggregates only.
            "SELECT vc, COUNT(*) AS n FROM (SELECT vc, LAG(gpus) OVER (ORDER BY job_id) AS g FROM philly_jobs) AS s GROUP BY vc",
            "SELECT vc, COUNT(*) AS n FROM philly_jobs GROUP BY vc ORDER BY n DESC",
        ] {
            if let Err(e) = verdict(sql) {
                panic!("{sql}: {e}");
            }
        }
    }
}
