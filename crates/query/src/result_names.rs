//! The names of a result's computed columns.
//!
//! DataFusion names an expression without `AS` after its plan: `MAX(gpus)`
//! over `jobs` is `max(jobs.gpus)` and `gpus * 2` is `jobs.gpus * Int64(2)`,
//! names a user did not write and cannot type back. In the result (the
//! outermost SELECT, or the first branch of a UNION, which names the
//! columns) an expression without `AS` is named as written, as DuckDB and
//! Spark do: the header of `MAX(gpus)` is `MAX(gpus)`, printed back from
//! the parsed query (so `gpus*2` is `gpus * 2`). A plain column keeps its
//! name. Inside a subquery or CTE the engine's names stay: there a name is
//! for the query to refer to, and every engine names differently, so the
//! files of `queries/` name every computed column with `AS`.

use datafusion::sql::sqlparser::ast::{Expr, Ident, Query, Select, SelectItem, SetExpr};

/// Names the result's unnamed computed columns as written; true when any
/// was named.
pub(crate) fn name_as_written(query: &mut Query) -> bool {
    first_select(&mut query.body).is_some_and(name_items)
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
fn name_items(select: &mut Select) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard;

    /// `sql` after the rewrite, printed back, and whether it changed.
    fn rewritten(sql: &str) -> (String, bool) {
        let tables = crate::every_schema_table();
        let mut query = guard::check(sql, &tables).unwrap_or_else(|e| panic!("{sql}: {e}")).query;
        let changed = name_as_written(&mut query);
        (query.to_string(), changed)
    }

    #[test]
    fn a_computed_column_is_named_as_written_and_a_column_keeps_its_name() {
        let (sql, changed) = rewritten("SELECT vc, j.gpus, (cpus), COUNT(*), MAX(gpus), gpus*2 FROM jobs AS j");
        assert!(changed);
        assert_eq!(
            sql,
            r#"SELECT vc, j.gpus, (cpus), COUNT(*) AS "COUNT(*)", MAX(gpus) AS "MAX(gpus)", gpus * 2 AS "gpus * 2" FROM jobs AS j"#
        );
    }

    #[test]
    fn a_name_given_with_as_and_a_query_without_computed_columns_are_left_alone() {
        let sql = "SELECT vc, COUNT(*) AS n FROM jobs GROUP BY vc ORDER BY n DESC";
        assert_eq!(rewritten(sql), (sql.to_string(), false));
        let sql = "SELECT * FROM jobs ORDER BY 2, vc";
        assert_eq!(rewritten(sql), (sql.to_string(), false));
    }

    #[test]
    fn a_quote_in_the_text_is_doubled_in_the_name() {
        let (sql, _) = rewritten(r#"SELECT 'a"b' FROM jobs"#);
        assert_eq!(sql, r#"SELECT 'a"b' AS "'a""b'" FROM jobs"#);
    }

    #[test]
    fn only_the_result_is_named_not_a_subquery_or_cte() {
        let (sql, _) =
            rewritten("WITH c AS (SELECT MAX(x) FROM jobs) SELECT x, MIN(x) FROM (SELECT MAX(x) FROM c) AS s");
        assert_eq!(
            sql,
            r#"WITH c AS (SELECT MAX(x) FROM jobs) SELECT x, MIN(x) AS "MIN(x)" FROM (SELECT MAX(x) FROM c) AS s"#
        );
    }

    #[test]
    fn the_first_branch_of_a_union_names_the_columns() {
        let (sql, _) = rewritten("SELECT MAX(x) FROM jobs UNION ALL SELECT MIN(x) FROM jobs");
        assert_eq!(sql, r#"SELECT MAX(x) AS "MAX(x)" FROM jobs UNION ALL SELECT MIN(x) FROM jobs"#);
    }
}
