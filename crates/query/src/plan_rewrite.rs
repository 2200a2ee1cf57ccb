//! What this crate's physical optimizer rules share: the walk that gives
//! a plan with each node a rule gives a replacement for replaced, from the
//! leaves up, and the one expression shape two of them look for, a column
//! compared with a constant.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{BinaryExpr, Column, Literal};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::ExecutionPlan;

/// `plan` with each node that `rewrite` gives a replacement for replaced,
/// from the leaves up.
pub(crate) fn rewrite_nodes(
    plan: Arc<dyn ExecutionPlan>,
    mut rewrite: impl FnMut(&Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>>,
) -> Result<Arc<dyn ExecutionPlan>> {
    plan.transform_up(|node| {
        Ok(match rewrite(&node)? {
            Some(rewritten) => Transformed::yes(rewritten),
            None => Transformed::no(node),
        })
    })
    .data()
}

/// `expr` as `column <op> constant`, if it compares a column with a
/// constant on either side (`0 < x` is `x > 0`).
pub(crate) fn column_compared(expr: &Arc<dyn PhysicalExpr>) -> Option<(&Column, Operator, &ScalarValue)> {
    let binary = expr.downcast_ref::<BinaryExpr>()?;
    match (binary.left().downcast_ref::<Column>(), binary.right().downcast_ref::<Literal>()) {
        (Some(c), Some(l)) => Some((c, *binary.op(), l.value())),
        _ => {
            let (c, l) = (binary.right().downcast_ref::<Column>()?, binary.left().downcast_ref::<Literal>()?);
            Some((c, binary.op().swap()?, l.value()))
        }
    }
}
