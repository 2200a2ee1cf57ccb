//! Test support for this crate's physical optimizer rules: SQL over
//! Parquet files on one partition, with tracelab's rules or DataFusion's
//! alone, the rows as text and the plan as shown; SQL in tracelab's own
//! session, and the expressions of a type a plan holds.

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::display::array_value_to_string;
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::common::Result;
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_optimizer::optimizer::PhysicalOptimizer;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::aggregates::AggregateExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::{collect, displayable, ExecutionPlan};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

use crate::limits::Limits;

/// `sql` over `dir/<table>.parquet` for each of `tables`, on one partition
/// in batches of `batch_size` rows, with tracelab's physical rules (`ours`)
/// or DataFusion's alone: each row as its cells joined by `|` (`NULL` for
/// a NULL), in the order they come, and the plan.
pub(crate) fn run_over_parquet(
    dir: &Path,
    tables: &[&str],
    sql: &str,
    ours: bool,
    batch_size: usize,
) -> (Vec<String>, String) {
    let config = SessionConfig::new().with_batch_size(batch_size);
    run_over_parquet_with(dir, tables, sql, ours, config)
}

/// [`run_over_parquet`] with the session's options `config` (on one
/// partition whatever they say).
pub(crate) fn run_over_parquet_with(
    dir: &Path,
    tables: &[&str],
    sql: &str,
    ours: bool,
    config: SessionConfig,
) -> (Vec<String>, String) {
    let rules = if ours { crate::session::physical_rules() } else { PhysicalOptimizer::new().rules };
    let (rows, plan) = plan_over_parquet(dir, tables, sql, rules, config).unwrap();
    let shown = displayable(plan.as_ref()).indent(true).to_string();
    (rows, shown)
}

/// `sql` over `dir/<table>.parquet` for each of `tables` on one partition
/// with the physical optimizer rules `rules`: the rows as
/// [`run_over_parquet`] gives them and the plan, or the error.
pub(crate) fn plan_over_parquet(
    dir: &Path,
    tables: &[&str],
    sql: &str,
    rules: Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>>,
    config: SessionConfig,
) -> Result<(Vec<String>, Arc<dyn ExecutionPlan>)> {
    let state = SessionStateBuilder::new()
        .with_config(config.with_target_partitions(1))
        .with_default_features()
        .with_physical_optimizer_rules(rules)
        .build();
    let ctx = SessionContext::new_with_state(state);
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async {
        for table in tables {
            let path = dir.join(format!("{table}.parquet"));
            ctx.register_parquet(*table, path.to_str().unwrap(), ParquetReadOptions::default()).await?;
        }
        let plan = ctx.sql(sql).await?.create_physical_plan().await?;
        let batches = collect(Arc::clone(&plan), ctx.task_ctx()).await?;
        Ok((batches.iter().flat_map(rows_as_text).collect(), plan))
    })
}

/// Each row of `batch` as its cells joined by `|` (`NULL` for a NULL).
pub(crate) fn rows_as_text(batch: &RecordBatch) -> Vec<String> {
    (0..batch.num_rows())
        .map(|r| {
            let cells: Vec<String> = batch
                .columns()
                .iter()
                .map(|c| if c.is_null(r) { "NULL".into() } else { array_value_to_string(c, r).unwrap() })
                .collect();
            cells.join("|")
        })
        .collect()
}

/// `sql` in tracelab's session over no tables: the rows as text (NULL
/// as nothing) and the physical plan, or the error.
pub(crate) fn run_in_session(sql: &str) -> std::result::Result<(Vec<String>, Arc<dyn ExecutionPlan>), String> {
    let limits = Limits { memory_limit: 64 << 20, ..Limits::default() };
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async {
        let ctx = crate::session::context(Arc::new(Vec::new()), &limits).unwrap();
        let frame = ctx.sql(sql).await.map_err(|e| e.to_string())?;
        let plan = frame.create_physical_plan().await.map_err(|e| e.to_string())?;
        let batches = collect(Arc::clone(&plan), ctx.task_ctx()).await.map_err(|e| e.to_string())?;
        let mut rows = Vec::new();
        for batch in &batches {
            for r in 0..batch.num_rows() {
                let cells: Vec<String> = batch.columns().iter().map(|c| array_value_to_string(c, r).unwrap()).collect();
                rows.push(cells.join("|"));
            }
        }
        Ok((rows, plan))
    })
}

/// The expressions of type `E` in the plan's projections and aggregate
/// arguments.
pub(crate) fn fused_exprs<E: PhysicalExpr>(plan: &Arc<dyn ExecutionPlan>) -> Vec<Arc<dyn PhysicalExpr>> {
    let here: Vec<Arc<dyn PhysicalExpr>> = if let Some(p) = plan.downcast_ref::<ProjectionExec>() {
        p.expr().iter().map(|e| Arc::clone(&e.expr)).collect()
    } else if let Some(a) = plan.downcast_ref::<AggregateExec>() {
        a.aggr_expr().iter().flat_map(|e| e.expressions()).collect()
    } else if let Some(a) = plan.downcast_ref::<crate::dense_groups::DenseGroupsExec>() {
        a.aggregates().iter().flat_map(|e| e.expressions()).collect()
    } else {
        Vec::new()
    };
    let mut found = Vec::new();
    for e in here {
        e.apply(|node| {
            if node.downcast_ref::<E>().is_some() {
                found.push(Arc::clone(node));
            }
            Ok(TreeNodeRecursion::Continue)
        })
        .unwrap();
    }
    found.extend(plan.children().into_iter().flat_map(fused_exprs::<E>));
    found
}

/// How many expressions of type `E` the plan's projections and
/// aggregate arguments hold.
pub(crate) fn fused<E: PhysicalExpr>(plan: &Arc<dyn ExecutionPlan>) -> usize {
    fused_exprs::<E>(plan).len()
}

/// A seeded stream of draws for random tests: each call gives a number in
/// `0..n` (xorshift64; `seed` not 0).
pub(crate) fn draws(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed;
    move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    }
}
