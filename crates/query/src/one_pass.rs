//! The rule that puts this crate's one-pass expressions in the plan: in
//! every projection and every aggregate argument, each expression one of
//! them evaluates (see `round_casts` and `case_select`) is replaced by it.

use std::sync::Arc;

use datafusion::arrow::datatypes::Schema;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::Result;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::aggregates::AggregateExec;
use datafusion::physical_plan::projection::{ProjectionExec, ProjectionExpr};
use datafusion::physical_plan::ExecutionPlan;

use crate::case_select::CaseSelectExpr;
use crate::plan_rewrite::rewrite_nodes;
use crate::round_casts::RoundCastExpr;

/// The physical optimizer rule (see the module documentation).
#[derive(Debug)]
pub(crate) struct OnePass;

impl PhysicalOptimizerRule for OnePass {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        rewrite_nodes(plan, |node| {
            if let Some(projection) = node.downcast_ref::<ProjectionExec>() {
                rewrite_projection(projection)
            } else if let Some(aggregate) = node.downcast_ref::<AggregateExec>() {
                rewrite_aggregate(aggregate)
            } else {
                Ok(None)
            }
        })
    }

    fn name(&self) -> &str {
        "OnePass"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `projection` with its expressions fused, if it has any to fuse.
fn rewrite_projection(projection: &ProjectionExec) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let schema = projection.input().schema();
    let mut changed = false;
    let mut exprs = Vec::with_capacity(projection.expr().len());
    for e in projection.expr() {
        let fused = fuse(&e.expr, &schema)?;
        changed |= fused.transformed;
        exprs.push(ProjectionExpr { expr: fused.data, alias: e.alias.clone() });
    }
    if !changed {
        return Ok(None);
    }
    Ok(Some(Arc::new(ProjectionExec::try_new(exprs, Arc::clone(projection.input()))?)))
}

/// `aggregate` with the expressions of its arguments fused, if it has any
/// to fuse.
fn rewrite_aggregate(aggregate: &AggregateExec) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let schema = aggregate.input_schema();
    let mut changed = false;
    let mut aggr_exprs = Vec::with_capacity(aggregate.aggr_expr().len());
    for a in aggregate.aggr_expr() {
        let mut args = Vec::new();
        for arg in a.expressions() {
            let fused = fuse(&arg, &schema)?;
            changed |= fused.transformed;
            args.push(fused.data);
        }
        let order_by = a.order_bys().iter().map(|s| Arc::clone(&s.expr)).collect();
        match a.with_new_expressions(args, order_by) {
            Some(rewritten) => aggr_exprs.push(Arc::new(rewritten)),
            None => return Ok(None),
        }
    }
    if !changed {
        return Ok(None);
    }
    Ok(Some(Arc::new(aggregate.with_new_aggr_exprs(aggr_exprs))))
}

/// `e` with every rounding cast and every two-way CASE in it fused.
fn fuse(e: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Result<Transformed<Arc<dyn PhysicalExpr>>> {
    Arc::clone(e).transform_up(|node| {
        if let Some(fused) = RoundCastExpr::try_from_cast(&node, schema)? {
            return Ok(Transformed::yes(Arc::new(fused) as Arc<dyn PhysicalExpr>));
        }
        Ok(match CaseSelectExpr::try_from_case(&node, schema)? {
            Some(fused) => Transformed::yes(Arc::new(fused) as Arc<dyn PhysicalExpr>),
            None => Transformed::no(node),
        })
    })
}
