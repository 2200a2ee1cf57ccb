//! Time literals with a zone, compared with the store's timestamps.
//!
//! tracelab prints timestamps in RFC 3339 UTC (`2017-11-02T14:07:32Z`), and
//! users paste them back: `WHERE submit_time >= '2017-11-02T14:07:32Z'`.
//! Polars 0.55 compares a timestamp column with a string only when the
//! string has no zone (`'2017-11-02 14:07:32'`, read in the column's zone,
//! UTC); with `Z` or an offset it stops with "cannot compare
//! 'date/datetime/time' to a string value". So a string literal compared
//! with one of the store's timestamp columns (`=`, `<>`, `<`, `<=`, `>`,
//! `>=`, `BETWEEN`), when it parses as RFC 3339 with a zone (`Z`, `+08:00`,
//! a `T` or a space between date and time), is rewritten as the same
//! instant in UTC without a zone: `'2017-11-02 06:07:32'` for
//! `'2017-11-02T14:07:32+08:00'`. A string compared with anything else,
//! and a string without a zone, are left as written.
//!
//! Columns are matched by name, so a name the query itself gives to
//! something else (`CAST(start_time AS VARCHAR) AS start_time` in a CTE,
//! `WITH t(start_time) AS ...`, `AS t(start_time)`) is not taken for the
//! store's column anywhere in that query: rewriting there would compare
//! text with other text. Its zoned literals are left as written, and the
//! engine's error (with tracelab's hint) says so, rather than an answer
//! that is silently wrong.

use std::ops::ControlFlow;

use chrono::DateTime;
use sqlparser::ast::{BinaryOperator, Expr, Query, Select, SelectItem, TableFactor, Value, VisitMut, VisitorMut};

use tracelab_schema::ColType;
use tracelab_store::StoredTable;

/// Rewrites the zoned time literals compared with a timestamp column of
/// `reads` (the tables the query reads); true when any was rewritten.
pub(crate) fn to_utc(query: &mut Query, reads: &[&StoredTable]) -> bool {
    let mut names = Redefined::default();
    let _ = query.visit(&mut names);
    let mut rewriter = Rewriter { reads, redefined: names.0, changed: false };
    let _ = query.visit(&mut rewriter);
    rewriter.changed
}

struct Rewriter<'a> {
    reads: &'a [&'a StoredTable],
    /// Column names the query defines itself ([`Redefined`]).
    redefined: Vec<String>,
    changed: bool,
}

/// The column names a query gives to expressions of its own: `expr AS
/// name` where `expr` is not the column `name` itself, and the column
/// lists of CTEs and table aliases (`WITH t(name)`, `AS t(name)`).
#[derive(Default)]
struct Redefined(Vec<String>);

impl VisitorMut for Redefined {
    type Break = ();

    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        let ctes = q.with.iter().flat_map(|w| &w.cte_tables);
        self.0.extend(ctes.flat_map(|c| &c.alias.columns).map(|c| c.name.value.clone()));
        ControlFlow::Continue(())
    }

    /// Every SELECT, the branches of a UNION included.
    fn pre_visit_select(&mut self, select: &mut Select) -> ControlFlow<()> {
        for item in &select.projection {
            if let SelectItem::ExprWithAlias { expr, alias } = item {
                if column_name(expr) != Some(&alias.value) {
                    self.0.push(alias.value.clone());
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, t: &mut TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table { alias: Some(a), .. } | TableFactor::Derived { alias: Some(a), .. } = t {
            self.0.extend(a.columns.iter().map(|c| c.name.value.clone()));
        }
        ControlFlow::Continue(())
    }
}

/// The column a plain reference names (`submit_time`, `j.submit_time`).
fn column_name(e: &Expr) -> Option<&String> {
    match e {
        Expr::Identifier(i) => Some(&i.value),
        Expr::CompoundIdentifier(parts) => parts.last().map(|i| &i.value),
        _ => None,
    }
}

impl VisitorMut for Rewriter<'_> {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        match e {
            Expr::BinaryOp { left, op, right } if is_comparison(op) => {
                if self.is_timestamp_column(left) {
                    self.changed |= rewrite(right);
                } else if self.is_timestamp_column(right) {
                    self.changed |= rewrite(left);
                }
            }
            Expr::Between { expr, low, high, .. } if self.is_timestamp_column(expr) => {
                self.changed |= rewrite(low) | rewrite(high);
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

impl Rewriter<'_> {
    /// A column reference (`submit_time`, `j.submit_time`) whose name is a
    /// timestamp column of a table the query reads, and that the query does
    /// not define itself.
    fn is_timestamp_column(&self, e: &Expr) -> bool {
        let Some(name) = column_name(e) else { return false };
        !self.redefined.contains(name)
            && self.reads.iter().flat_map(|t| t.table.columns).any(|c| c.name == name && c.ty == ColType::Timestamp)
    }
}

fn is_comparison(op: &BinaryOperator) -> bool {
    use BinaryOperator::*;
    matches!(op, Eq | NotEq | Lt | LtEq | Gt | GtEq)
}

/// Replaces a zoned RFC 3339 string literal by its UTC time without a
/// zone; true when it did.
fn rewrite(e: &mut Expr) -> bool {
    let Expr::Value(v) = e else { return false };
    let Value::SingleQuotedString(text) = &v.value else { return false };
    match DateTime::parse_from_rfc3339(text.trim()) {
        Ok(t) => {
            v.value = Value::SingleQuotedString(t.naive_utc().format("%Y-%m-%d %H:%M:%S%.f").to_string());
            true
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard;

    /// The query's text after the rewrite, or None when nothing changed.
    fn utc_sql(sql: &str) -> Option<String> {
        let tables = crate::every_schema_table();
        let mut checked = guard::check(sql, &tables).unwrap();
        to_utc(&mut checked.query, &checked.reads).then(|| checked.query.to_string())
    }

    #[test]
    fn a_printed_timestamp_reads_back_as_the_same_utc_instant() {
        let sql = "SELECT * FROM philly_jobs WHERE submit_time >= '2017-11-02T14:07:32Z'";
        assert_eq!(utc_sql(sql).unwrap(), "SELECT * FROM philly_jobs WHERE submit_time >= '2017-11-02 14:07:32'");
        // An offset is converted: 14:07:32 at +08:00 is 06:07:32 UTC; fractions are kept.
        let sql = "SELECT * FROM jobs AS j WHERE '2017-11-02 14:07:32.5+08:00' < j.end_time";
        assert_eq!(utc_sql(sql).unwrap(), "SELECT * FROM jobs AS j WHERE '2017-11-02 06:07:32.500' < j.end_time");
        let sql = "SELECT * FROM jobs WHERE start_time BETWEEN '2020-07-01T00:00:00Z' AND '2020-07-02T00:00:00-01:00'";
        let want = "SELECT * FROM jobs WHERE start_time BETWEEN '2020-07-01 00:00:00' AND '2020-07-02 01:00:00'";
        assert_eq!(utc_sql(sql).unwrap(), want);
        // Naming the store's column again, or another column, is no redefinition.
        let sql = "SELECT j.submit_time AS submit_time, submit_time AS t FROM jobs AS j \
                   WHERE submit_time >= '2017-11-02T14:07:32Z'";
        let want = "SELECT j.submit_time AS submit_time, submit_time AS t FROM jobs AS j \
                    WHERE submit_time >= '2017-11-02 14:07:32'";
        assert_eq!(utc_sql(sql).unwrap(), want);
    }

    #[test]
    fn strings_not_compared_with_a_timestamp_column_are_left_alone() {
        for sql in [
            // No zone: Polars reads it as UTC already.
            "SELECT * FROM jobs WHERE submit_time >= '2017-11-02 14:07:32'",
            // A string column, a string in the SELECT list, a number column.
            "SELECT * FROM jobs WHERE job_id = '2017-11-02T14:07:32Z'",
            "SELECT '2017-11-02T14:07:32Z' AS label FROM jobs",
            "SELECT * FROM jobs WHERE run_s > '2017-11-02T14:07:32Z'",
            // Not RFC 3339.
            "SELECT * FROM jobs WHERE submit_time >= '2017-11-02T14:07Z'",
            // The query's own column of that name, wherever it is compared.
            "WITH t AS (SELECT CAST(submit_time AS VARCHAR) AS submit_time FROM jobs) \
             SELECT * FROM t WHERE submit_time >= '2017-11-02T14:07:32Z'",
            "WITH t (submit_time) AS (SELECT job_id FROM jobs) SELECT * FROM t WHERE submit_time = '2017-11-02T14:07:32Z'",
            "SELECT * FROM (SELECT job_id FROM jobs) AS t (end_time) WHERE end_time < '2017-11-02T14:07:32Z'",
            "SELECT * FROM jobs WHERE submit_time >= '2017-11-02T14:07:32Z' AND job_id IN \
             (SELECT 'x' AS submit_time FROM jobs)",
            "SELECT * FROM (SELECT job_id FROM jobs UNION ALL SELECT job_id AS submit_time FROM jobs) AS t \
             WHERE submit_time > '2017-11-02T14:07:32Z'",
        ] {
            assert_eq!(utc_sql(sql), None, "{sql}");
        }
    }
}
