//! Notes for the user about how a query was computed, printed on stderr by
//! the CLI beside a correct answer:
//!
//! - a division of two integer expressions is an integer division, rounded
//!   toward zero, as in PostgreSQL (`7 / 2` is 3), where DuckDB's and
//!   Spark's `/` give 3.5: the note says which division and the cast that
//!   gives a fraction;
//! - a query that spilled to disk says how much, and under which memory
//!   limit, since it ran slower than it would have in memory.
//!
//! Notes never change a result.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Column, DFSchema};
use datafusion::logical_expr::{BinaryExpr, Expr, ExprSchemable, LogicalPlan, Operator};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::sql::unparser::expr_to_sql;

use super::limits::show_bytes;
use super::semantics::input_schema;

/// A note for each distinct division of two integer expressions in `plan`
/// (as planned from the SQL, before any rewriting).
pub(crate) fn integer_divisions(plan: &LogicalPlan) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let _ = plan.apply_with_subqueries(|node| {
        let Ok(schema) = input_schema(node) else { return Ok(TreeNodeRecursion::Continue) };
        node.apply_expressions(|expr| {
            expr.apply(|e| {
                if let Some(text) = integer_division(e, &schema) {
                    if !found.contains(&text) {
                        found.push(text);
                    }
                }
                Ok(TreeNodeRecursion::Continue)
            })
        })
    });
    found.into_iter().map(|text| division_note(&text)).collect()
}

fn division_note(text: &str) -> String {
    let (left, right) = text.split_once(" / ").unwrap_or((text, "y"));
    format!(
        "`{text}` divides two integers, so it is an integer rounded toward zero (7 / 2 is 3), as in PostgreSQL; \
         for a fraction write CAST({left} AS DOUBLE) / {right}"
    )
}

/// `e` as written in SQL when it divides two integer expressions.
fn integer_division(e: &Expr, schema: &DFSchema) -> Option<String> {
    let Expr::BinaryExpr(BinaryExpr { left, op: Operator::Divide, right }) = e else { return None };
    let integer = |x: &Expr| x.get_type(schema).is_ok_and(|t| t.is_integer());
    if !(integer(left) && integer(right)) {
        return None;
    }
    let unqualified = e.clone().transform(|x| match x {
        Expr::Column(c) => Ok(Transformed::yes(Expr::Column(Column::new_unqualified(c.name)))),
        other => Ok(Transformed::no(other)),
    });
    let sql = expr_to_sql(&unqualified.ok()?.data).ok()?.to_string();
    // The unparser puts the division in parentheses of its own.
    let bare = sql.strip_prefix('(').and_then(|s| s.strip_suffix(')')).filter(|s| !s.contains(['(', ')']));
    Some(bare.map_or(sql.clone(), str::to_string))
}

/// A note when the executed `plan` spilled to disk.
pub(crate) fn spills(plan: &Arc<dyn ExecutionPlan>, memory_limit: u64) -> Option<String> {
    let (count, bytes) = spilled(plan);
    (count > 0).then(|| {
        format!(
            "the query held more than its memory limit ({}) and wrote {} to {count} temporary file{} on disk \
             (removed now); --memory-limit raises the limit",
            show_bytes(memory_limit),
            show_bytes(bytes as u64),
            if count == 1 { "" } else { "s" }
        )
    })
}

/// Spill files and bytes of `plan` and every plan below it.
fn spilled(plan: &Arc<dyn ExecutionPlan>) -> (usize, usize) {
    let own = plan.metrics().map_or((0, 0), |m| (m.spill_count().unwrap_or(0), m.spilled_bytes().unwrap_or(0)));
    plan.children().into_iter().map(spilled).fold(own, |(c, b), (c2, b2)| (c + c2, b + b2))
}
