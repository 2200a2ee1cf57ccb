//! The walk this crate's physical optimizer rules share: a plan with each
//! node a rule gives a replacement for replaced, from the leaves up.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::Result;
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
