//! Test support for this crate's physical optimizer rules: SQL over
//! Parquet files on one partition, with tracelab's rules or DataFusion's
//! alone, the rows as text and the plan as shown.

use std::path::Path;

use datafusion::arrow::util::display::array_value_to_string;
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::physical_optimizer::optimizer::PhysicalOptimizer;
use datafusion::physical_plan::{collect, displayable};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

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
    let rules = if ours { crate::session::physical_rules() } else { PhysicalOptimizer::new().rules };
    let state = SessionStateBuilder::new()
        .with_config(SessionConfig::new().with_target_partitions(1).with_batch_size(batch_size))
        .with_default_features()
        .with_physical_optimizer_rules(rules)
        .build();
    let ctx = SessionContext::new_with_state(state);
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async {
        for table in tables {
            let path = dir.join(format!("{table}.parquet"));
            ctx.register_parquet(*table, path.to_str().unwrap(), ParquetReadOptions::default()).await.unwrap();
        }
        let plan = ctx.sql(sql).await.unwrap().create_physical_plan().await.unwrap();
        let shown = displayable(plan.as_ref()).indent(true).to_string();
        let batches = collect(plan, ctx.task_ctx()).await.unwrap();
        let mut rows = Vec::new();
        for batch in &batches {
            for r in 0..batch.num_rows() {
                let cells: Vec<String> = batch
                    .columns()
                    .iter()
                    .map(|c| if c.is_null(r) { "NULL".into() } else { array_value_to_string(c, r).unwrap() })
                    .collect();
                rows.push(cells.join("|"));
            }
        }
        (rows, shown)
    })
}
