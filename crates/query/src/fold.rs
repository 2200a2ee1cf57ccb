//! Constant folding of WHERE clauses before the engine plans a query.
//!
//! A parameter is bound as a literal, so the optional-filter idiom of the
//! named queries, `WHERE $cluster = 'all' OR cluster = $cluster`, reaches
//! the engine as `'all' = 'all' OR cluster = 'all'`. Polars 0.55 folds
//! `'all' = 'all'` to `true` but keeps `true OR cluster = 'all'`: it reads
//! the column and compares it on every row, about 10 ms of CPU per query on
//! the full-scale Helios jobs (a ninth of `helios-failure-rate-by-gpus`).
//! Folding it here leaves `WHERE true`, which Polars drops.
//!
//! Only WHERE clauses are folded, where a constant is harmless: a constant
//! inside an aggregate is what [`super::wrong_answers`] refuses, and
//! folding one into being there would hide it from that check. The rules
//! keep SQL's three-valued logic: `TRUE OR x` is TRUE and `FALSE AND x` is
//! FALSE whatever x is, NULL included; `FALSE OR x` and `TRUE AND x` are x.
//! Only literals of the same kind that compare exactly are folded: two
//! strings, or two integers.

use std::ops::ControlFlow;

use sqlparser::ast::{BinaryOperator, Expr, Query, Select, UnaryOperator, Value, ValueWithSpan, VisitMut, VisitorMut};

/// Folds the constant parts of every WHERE clause in `query` (subqueries
/// and CTEs included); true when anything changed.
pub(crate) fn where_constants(query: &mut Query) -> bool {
    let mut folder = Folder { changed: false };
    let _ = query.visit(&mut folder);
    folder.changed
}

struct Folder {
    changed: bool,
}

impl VisitorMut for Folder {
    type Break = ();

    fn post_visit_select(&mut self, select: &mut Select) -> ControlFlow<()> {
        if let Some(selection) = &mut select.selection {
            self.changed |= fold(selection);
        }
        ControlFlow::Continue(())
    }
}

/// Folds `e` bottom-up in place; true when anything changed.
fn fold(e: &mut Expr) -> bool {
    let changed = match e {
        Expr::BinaryOp { left, right, .. } => fold(left) | fold(right),
        Expr::Nested(inner) | Expr::UnaryOp { expr: inner, .. } => fold(inner),
        _ => false,
    };
    match folded(e) {
        Some(simpler) => {
            *e = simpler;
            true
        }
        None => changed,
    }
}

/// The simpler form of `e` when its operands are (now) constants.
fn folded(e: &Expr) -> Option<Expr> {
    match e {
        Expr::Nested(inner) => boolean(inner).map(bool_expr),
        Expr::UnaryOp { op: UnaryOperator::Not, expr } => boolean(expr).map(|b| bool_expr(!b)),
        Expr::BinaryOp { left, op: BinaryOperator::Eq, right } => same_literal(left, right).map(bool_expr),
        Expr::BinaryOp { left, op: BinaryOperator::NotEq, right } => same_literal(left, right).map(|b| bool_expr(!b)),
        Expr::BinaryOp { left, op: BinaryOperator::Or, right } => match (boolean(left), boolean(right)) {
            (Some(true), _) | (_, Some(true)) => Some(bool_expr(true)),
            (Some(false), _) => Some((**right).clone()),
            (_, Some(false)) => Some((**left).clone()),
            _ => None,
        },
        Expr::BinaryOp { left, op: BinaryOperator::And, right } => match (boolean(left), boolean(right)) {
            (Some(false), _) | (_, Some(false)) => Some(bool_expr(false)),
            (Some(true), _) => Some((**right).clone()),
            (_, Some(true)) => Some((**left).clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether two literals of the same kind are equal: two strings, or two
/// integers; None for anything else (a column, NULL, a float, mixed kinds).
fn same_literal(a: &Expr, b: &Expr) -> Option<bool> {
    let (Expr::Value(a), Expr::Value(b)) = (a, b) else { return None };
    match (&a.value, &b.value) {
        (Value::SingleQuotedString(x), Value::SingleQuotedString(y)) => Some(x == y),
        (Value::Number(x, false), Value::Number(y, false)) => Some(x.parse::<i64>().ok()? == y.parse::<i64>().ok()?),
        _ => None,
    }
}

fn boolean(e: &Expr) -> Option<bool> {
    match e {
        Expr::Value(ValueWithSpan { value: Value::Boolean(b), .. }) => Some(*b),
        _ => None,
    }
}

fn bool_expr(b: bool) -> Expr {
    Expr::value(Value::Boolean(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard;

    /// The query's text after folding, or None when nothing was folded.
    fn fold_sql(sql: &str) -> Option<String> {
        let mut statements = guard::parse(sql).unwrap();
        let sqlparser::ast::Statement::Query(query) = &mut statements[0] else { panic!("{sql}") };
        where_constants(query).then(|| query.to_string())
    }

    #[test]
    fn the_all_parameter_idiom_folds_to_the_filter_it_means() {
        let all = "SELECT * FROM jobs WHERE 'all' = 'all' OR trace = 'all'";
        assert_eq!(fold_sql(all).unwrap(), "SELECT * FROM jobs WHERE true");
        let pai = "SELECT * FROM jobs WHERE 'pai' = 'all' OR trace = 'pai'";
        assert_eq!(fold_sql(pai).unwrap(), "SELECT * FROM jobs WHERE trace = 'pai'");
        let with_more = "SELECT * FROM jobs WHERE ('pai' = 'all' OR trace = 'pai') AND run_s > 0";
        assert_eq!(fold_sql(with_more).unwrap(), "SELECT * FROM jobs WHERE (trace = 'pai') AND run_s > 0");
    }

    #[test]
    fn three_valued_logic_is_kept() {
        // TRUE OR NULL is TRUE, FALSE AND NULL is FALSE: the other side may go.
        assert_eq!(
            fold_sql("SELECT 1 AS x FROM jobs WHERE gpus > 1 OR 1 = 1").unwrap(),
            "SELECT 1 AS x FROM jobs WHERE true"
        );
        assert_eq!(
            fold_sql("SELECT 1 AS x FROM jobs WHERE gpus > 1 AND 1 <> 1").unwrap(),
            "SELECT 1 AS x FROM jobs WHERE false"
        );
        // FALSE OR x and TRUE AND x are x, NULL where x is NULL.
        assert_eq!(
            fold_sql("SELECT 1 AS x FROM jobs WHERE NOT 'a' = 'b' AND gpus > 1").unwrap(),
            "SELECT 1 AS x FROM jobs WHERE gpus > 1"
        );
    }

    #[test]
    fn what_is_not_a_constant_comparison_is_left_alone() {
        for sql in [
            "SELECT * FROM jobs WHERE trace = 'pai'",
            "SELECT * FROM jobs WHERE 'pai' = trace OR gpus > 1",
            // NULL = NULL is NULL, not TRUE; 1 = 1.0 and 'a' = 1 depend on the engine's casts.
            "SELECT * FROM jobs WHERE NULL = NULL OR gpus > 1",
            "SELECT * FROM jobs WHERE 1 = 1.0 OR gpus > 1",
            "SELECT * FROM jobs WHERE 'a' = 1 OR gpus > 1",
            // Only WHERE: a constant in the SELECT list stays for wrong_answers to see.
            "SELECT SUM(CASE WHEN 'a' = 'a' OR gpus > 0 THEN 1 ELSE 0 END) AS n FROM jobs",
        ] {
            assert_eq!(fold_sql(sql), None, "{sql}");
        }
    }

    #[test]
    fn subqueries_and_ctes_are_folded_too() {
        let sql = "WITH t AS (SELECT * FROM jobs WHERE 'x' = 'x' OR trace = 'x') \
                   SELECT * FROM t WHERE gpus IN (SELECT gpus FROM jobs WHERE 2 = 3 OR gpus > 1)";
        let want = "WITH t AS (SELECT * FROM jobs WHERE true) \
                    SELECT * FROM t WHERE gpus IN (SELECT gpus FROM jobs WHERE gpus > 1)";
        assert_eq!(fold_sql(sql).unwrap(), want);
    }
}
