//! The names of a result's computed columns, and an ORDER BY that repeats
//! a SELECT expression.
//!
//! Polars names an expression without `AS` after the column it reads:
//! `MIN(start_time)` and `MAX(start_time)` are both `start_time`, and
//! `COUNT(*)` is `len`. So `SELECT MIN(t), MAX(t) FROM ...`, which every
//! other engine answers, was two columns with one name, and a header said
//! `len` where the query said `COUNT(*)`. In the result (the outermost
//! SELECT, or the first branch of a UNION, which names the columns) an
//! expression without `AS` is named as written, as DuckDB and Spark do:
//! the header of `MAX(gpus)` is `MAX(gpus)`, printed back from the parsed
//! query (so `gpus*2` is `gpus * 2`). A plain column keeps its name.
//! Inside a subquery or CTE Polars' names stay, so that a query naming
//! those columns the way the engine does still runs.
//!
//! Polars also stops on `ORDER BY COUNT(*) DESC` after a GROUP BY ("sort
//! expressions must have same length as DataFrame"): it evaluates the
//! aggregate again over the grouped rows. In SQL an ORDER BY expression
//! that is one of the SELECT list's is that output column, so such an
//! expression is replaced by the column's name: the same value, which
//! Polars sorts by. Only expressions spelled the same as a named SELECT
//! item are replaced; any other ORDER BY is left to the engine.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Ident, OrderByKind, Query, Select, SelectItem, SetExpr, Value, ValueWithSpan, VisitMut, VisitorMut,
};

/// Names the result's unnamed computed columns as written, then points
/// every ORDER BY that repeats a named SELECT expression at its column;
/// true when anything changed.
pub(crate) fn name_and_order(query: &mut Query) -> bool {
    let named = first_select(&mut query.body).is_some_and(name_as_written);
    let mut orders = OrderByOutputs { changed: false };
    let _ = query.visit(&mut orders);
    named | orders.changed
}

/// The SELECT that names a query body's columns: the body itself, or the
/// first branch of a set operation (`UNION`, `EXCEPT`, `INTERSECT`).
fn first_select(body: &mut SetExpr) -> Option<&mut Select> {
    match body {
        SetExpr::Select(select) => Some(select),
        SetExpr::SetOperation { left, .. } => first_select(left),
        SetExpr::Query(q) => first_select(&mut q.body),
        _ => None,
    }
}

/// Gives every computed item of `select` without `AS` its own text as its
/// name; true when any was named.
fn name_as_written(select: &mut Select) -> bool {
    let mut changed = false;
    for item in &mut select.projection {
        let SelectItem::UnnamedExpr(expr) = item else { continue };
        if is_column(expr) {
            continue;
        }
        let alias = Ident::with_quote('"', expr.to_string());
        *item = SelectItem::ExprWithAlias { expr: expr.clone(), alias };
        changed = true;
    }
    changed
}

/// A column reference (`gpus`, `j.gpus`, `(gpus)`): named after the column
/// already, by every engine.
fn is_column(e: &Expr) -> bool {
    match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => true,
        Expr::Nested(inner) => is_column(inner),
        _ => false,
    }
}

/// Replaces ORDER BY expressions that repeat a named item of their query's
/// SELECT list by that item's name, in every query (subqueries and CTEs
/// included).
struct OrderByOutputs {
    changed: bool,
}

impl VisitorMut for OrderByOutputs {
    type Break = ();

    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        // Only a plain SELECT: a set operation's ORDER BY sees the output
        // names alone, which the engine resolves already.
        let (SetExpr::Select(select), Some(order_by)) = (q.body.as_ref(), &mut q.order_by) else {
            return ControlFlow::Continue(());
        };
        let OrderByKind::Expressions(exprs) = &mut order_by.kind else { return ControlFlow::Continue(()) };
        let named: Vec<(String, &Ident)> = select
            .projection
            .iter()
            .filter_map(|item| match item {
                SelectItem::ExprWithAlias { expr, alias } => Some((expr.to_string(), alias)),
                _ => None,
            })
            .collect();
        for order in exprs.iter_mut() {
            if is_column(&order.expr) || is_position(&order.expr) {
                continue;
            }
            let text = order.expr.to_string();
            if let Some((_, alias)) = named.iter().find(|(expr, _)| *expr == text) {
                order.expr = Expr::Identifier((*alias).clone());
                self.changed = true;
            }
        }
        ControlFlow::Continue(())
    }
}

/// `ORDER BY 2`: a position in the SELECT list, which the engine resolves.
fn is_position(e: &Expr) -> bool {
    matches!(e, Expr::Value(ValueWithSpan { value: Value::Number(..), .. }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::GenericDialect;
    use sqlparser::parser::Parser;

    /// `sql` after the rewrite, printed back, and whether it changed.
    fn rewritten(sql: &str) -> (String, bool) {
        let mut statements = Parser::parse_sql(&GenericDialect {}, sql).unwrap();
        let sqlparser::ast::Statement::Query(query) = &mut statements[0] else { panic!("not a query: {sql}") };
        let changed = name_and_order(query);
        (query.to_string(), changed)
    }

    #[test]
    fn a_computed_column_is_named_as_written_and_a_column_keeps_its_name() {
        let (sql, changed) = rewritten("SELECT vc, j.gpus, (cpus), COUNT(*), MAX(gpus), gpus*2 FROM t AS j");
        assert!(changed);
        assert_eq!(
            sql,
            r#"SELECT vc, j.gpus, (cpus), COUNT(*) AS "COUNT(*)", MAX(gpus) AS "MAX(gpus)", gpus * 2 AS "gpus * 2" FROM t AS j"#
        );
    }

    #[test]
    fn a_name_given_with_as_and_a_query_without_computed_columns_are_left_alone() {
        let sql = "SELECT vc, COUNT(*) AS n FROM t GROUP BY vc ORDER BY n DESC";
        assert_eq!(rewritten(sql), (sql.to_string(), false));
        let sql = "SELECT * FROM t ORDER BY 2, vc";
        assert_eq!(rewritten(sql), (sql.to_string(), false));
    }

    #[test]
    fn a_quote_in_the_text_is_doubled_in_the_name() {
        let (sql, _) = rewritten(r#"SELECT 'a"b' FROM t"#);
        assert_eq!(sql, r#"SELECT 'a"b' AS "'a""b'" FROM t"#);
    }

    #[test]
    fn only_the_result_is_named_not_a_subquery_or_cte() {
        let (sql, _) = rewritten("WITH c AS (SELECT MAX(x) FROM t) SELECT x, MIN(x) FROM (SELECT MAX(x) FROM c) AS s");
        assert_eq!(
            sql,
            r#"WITH c AS (SELECT MAX(x) FROM t) SELECT x, MIN(x) AS "MIN(x)" FROM (SELECT MAX(x) FROM c) AS s"#
        );
    }

    #[test]
    fn the_first_branch_of_a_union_names_the_columns() {
        let (sql, _) = rewritten("SELECT MAX(x) FROM t UNION ALL SELECT MIN(x) FROM t");
        assert_eq!(sql, r#"SELECT MAX(x) AS "MAX(x)" FROM t UNION ALL SELECT MIN(x) FROM t"#);
    }

    #[test]
    fn an_order_by_repeating_a_select_expression_sorts_by_its_column() {
        let (sql, changed) =
            rewritten("SELECT vc, COUNT(*) FROM t GROUP BY vc ORDER BY COUNT(*) DESC, SUM(gpus), vc, 1");
        assert!(changed);
        // SUM(gpus) is not in the SELECT list: left to the engine.
        assert_eq!(
            sql,
            r#"SELECT vc, COUNT(*) AS "COUNT(*)" FROM t GROUP BY vc ORDER BY "COUNT(*)" DESC, SUM(gpus), vc, 1"#
        );
    }

    #[test]
    fn an_order_by_in_a_subquery_uses_the_names_given_there() {
        let (sql, _) = rewritten(
            "SELECT * FROM (SELECT vc, COUNT(*) AS n, MAX(gpus) FROM t GROUP BY vc ORDER BY COUNT(*), MAX(gpus)) AS s",
        );
        // The unnamed MAX(gpus) of the subquery has no name to sort by.
        assert_eq!(
            sql,
            "SELECT * FROM (SELECT vc, COUNT(*) AS n, MAX(gpus) FROM t GROUP BY vc ORDER BY n, MAX(gpus)) AS s"
        );
    }
}
