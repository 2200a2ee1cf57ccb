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
//! and a string without a zone, are left as written. Columns are matched
//! by name: a CTE that gave a timestamp column's name to text would have
//! its zoned literals rewritten too (the engine would then compare text
//! with text, without the zone).

use std::ops::ControlFlow;

use chrono::DateTime;
use sqlparser::ast::{BinaryOperator, Expr, Query, Value, VisitMut, VisitorMut};

use tracelab_schema::ColType;
use tracelab_store::StoredTable;

/// Rewrites the zoned time literals compared with a timestamp column of
/// `reads` (the tables the query reads); true when any was rewritten.
pub(crate) fn to_utc(query: &mut Query, reads: &[&StoredTable]) -> bool {
    let mut rewriter = Rewriter { reads, changed: false };
    let _ = query.visit(&mut rewriter);
    rewriter.changed
}

struct Rewriter<'a> {
    reads: &'a [&'a StoredTable],
    changed: bool,
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
    /// timestamp column of a table the query reads.
    fn is_timestamp_column(&self, e: &Expr) -> bool {
        let name = match e {
            Expr::Identifier(i) => &i.value,
            Expr::CompoundIdentifier(parts) => match parts.last() {
                Some(i) => &i.value,
                None => return false,
            },
            _ => return false,
        };
        self.reads.iter().flat_map(|t| t.table.columns).any(|c| c.name == name && c.ty == ColType::Timestamp)
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
        ] {
            assert_eq!(utc_sql(sql), None, "{sql}");
        }
    }
}
