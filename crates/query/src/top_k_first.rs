//! The first n rows of an outer join's kept side, taken before the join.
//!
//! `SELECT ... FROM jobs j LEFT JOIN (SELECT job_id, ... GROUP BY job_id) p
//! ON p.job_id = j.job_id ORDER BY j.attempts DESC, j.job_id LIMIT 10`
//! orders by the left side's columns alone. A LEFT JOIN gives every left
//! row at least once (with NULLs where nothing matches) and each of a left
//! row's copies sorts with it, so the first n rows of the join come from
//! the first n left rows: the join of those n has them all. DataFusion
//! joins all 117 k Philly jobs and then keeps 10 (`most-retried-jobs`: 25
//! ms to build the join's table); [`TopKFirst`] keeps the 10 first, and the
//! join, built from 10 rows, gives the scan of the other side a filter of
//! 10 keys, which skips most of its row groups.
//!
//! ```text
//! SortExec: TopK(n) [k]                SortExec: TopK(n) [k]
//!   [ProjectionExec]                     [ProjectionExec]
//!     HashJoinExec: Left        =>         HashJoinExec: Left
//!       L                                    SortExec: TopK(n) [k]
//!       R                                      L
//!                                            R
//! ```
//!
//! The outer top-k stays: it orders the join's output and cuts the copies.
//! Rewritten only: sort keys that are columns of the kept side (a left
//! join's left, a right join's right) passed up as they are, through
//! projections that pass them as they are. An inner or full join, or a key
//! of the other side, keeps DataFusion's plan. Where the order has ties at
//! the n-th row, the rows kept may be others of the tied ones than
//! DataFusion's plan keeps; both are the query's answer.

use std::sync::Arc;

use datafusion::common::config::ConfigOptions;
use datafusion::common::{JoinType, Result};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{LexOrdering, PhysicalSortExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::execution_plan::ChildrenPropertiesMode;
use datafusion::physical_plan::joins::HashJoinExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::{ExecutionPlan, ReplaceChildrenOptions};

use crate::late_columns::through_projection;
use crate::plan_rewrite::rewrite_nodes;

/// The physical optimizer rule (see the module documentation).
#[derive(Debug)]
pub(crate) struct TopKFirst;

impl PhysicalOptimizerRule for TopKFirst {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        rewrite_nodes(plan, |node| match node.downcast_ref::<SortExec>() {
            Some(sort) => rewrite(node, sort),
            None => Ok(None),
        })
    }

    fn name(&self) -> &str {
        "TopKFirst"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `sort` (the plan `node`) with a top-k under its join, if it qualifies.
fn rewrite(node: &Arc<dyn ExecutionPlan>, sort: &SortExec) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let Some(n) = sort.fetch() else { return Ok(None) };
    let columns = sort.expr().iter().map(|k| k.expr.downcast_ref::<Column>().map(Column::index));
    let Some(mut columns) = columns.collect::<Option<Vec<usize>>>() else { return Ok(None) };
    // Down through projections that pass the sort keys as they are.
    let mut projections: Vec<&ProjectionExec> = Vec::new();
    let mut below = sort.input();
    while let Some(projection) = below.downcast_ref::<ProjectionExec>() {
        let Some(under) = passed(projection, &columns) else { return Ok(None) };
        columns = under;
        projections.push(projection);
        below = projection.input();
    }
    let Some(join) = below.downcast_ref::<HashJoinExec>() else { return Ok(None) };
    let Some(joined) = through_projection(join.projection.as_deref(), &columns) else { return Ok(None) };
    let left_width = join.left().schema().fields().len();
    // The kept side's columns under the sort keys, and whether it is the left.
    let (kept, left_kept): (Vec<usize>, bool) = match join.join_type() {
        JoinType::Left if joined.iter().all(|&j| j < left_width) => (joined, true),
        JoinType::Right if joined.iter().all(|&j| j >= left_width) => {
            (joined.iter().map(|j| j - left_width).collect(), false)
        }
        _ => return Ok(None),
    };
    let side = if left_kept { join.left() } else { join.right() };
    if side.downcast_ref::<SortExec>().is_some_and(|s| s.fetch().is_some_and(|f| f <= n)) {
        return Ok(None);
    }
    let schema = side.schema();
    let keys = sort
        .expr()
        .iter()
        .zip(&kept)
        .map(|(k, &i)| PhysicalSortExpr { expr: Arc::new(Column::new(schema.field(i).name(), i)), options: k.options });
    let Some(ordering) = LexOrdering::new(keys) else { return Ok(None) };
    let first: Arc<dyn ExecutionPlan> = Arc::new(SortExec::new(ordering, Arc::clone(side)).with_fetch(Some(n)));
    let children = if left_kept { vec![first, Arc::clone(join.right())] } else { vec![Arc::clone(join.left()), first] };
    let recompute = ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute);
    let mut plan = Arc::clone(below).replace_children(children, recompute)?;
    for projection in projections.iter().rev() {
        plan = Arc::new(ProjectionExec::try_new(projection.expr().to_vec(), plan)?);
    }
    Ok(Some(Arc::clone(node).replace_children(vec![plan], recompute)?))
}

/// The projection's input columns under its output `columns`, if each is
/// a plain column.
fn passed(projection: &ProjectionExec, columns: &[usize]) -> Option<Vec<usize>> {
    columns.iter().map(|&c| projection.expr().get(c)?.expr.downcast_ref::<Column>().map(Column::index)).collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use datafusion::arrow::array::{Int64Array, RecordBatch, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::parquet::arrow::ArrowWriter;

    /// Writes `l` (id, k, v) and `r` (k, w) to `dir` as l.parquet and
    /// r.parquet.
    fn write_tables(dir: &Path, l: &[(i64, Option<&str>, i64)], r: &[(Option<&str>, i64)]) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("k", DataType::Utf8, true),
            Field::new("v", DataType::Int64, false),
        ]));
        let columns: Vec<Arc<dyn datafusion::arrow::array::Array>> = vec![
            Arc::new(Int64Array::from(l.iter().map(|x| x.0).collect::<Vec<_>>())),
            Arc::new(StringArray::from(l.iter().map(|x| x.1).collect::<Vec<_>>())),
            Arc::new(Int64Array::from(l.iter().map(|x| x.2).collect::<Vec<_>>())),
        ];
        write(dir, "l", RecordBatch::try_new(schema, columns).unwrap());
        let schema =
            Arc::new(Schema::new(vec![Field::new("k", DataType::Utf8, true), Field::new("w", DataType::Int64, false)]));
        let columns: Vec<Arc<dyn datafusion::arrow::array::Array>> = vec![
            Arc::new(StringArray::from(r.iter().map(|x| x.0).collect::<Vec<_>>())),
            Arc::new(Int64Array::from(r.iter().map(|x| x.1).collect::<Vec<_>>())),
        ];
        write(dir, "r", RecordBatch::try_new(schema, columns).unwrap());
    }

    fn write(dir: &Path, name: &str, batch: RecordBatch) {
        let file = std::fs::File::create(dir.join(format!("{name}.parquet"))).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
    }

    /// `sql` over l and r with tracelab's rules (`ours`) or DataFusion's
    /// alone, in batches of 3 rows: the rows and whether a top-k was put
    /// under the join (two top-k in the plan).
    fn run(dir: &Path, sql: &str, ours: bool) -> (Vec<String>, bool) {
        let (rows, plan) = crate::plan_tests::run_over_parquet(dir, &["l", "r"], sql, ours, 3);
        (rows, plan.matches("TopK(fetch=").count() == 2)
    }

    /// Worked by hand. l: (1, a, 5), (2, b, 9), (3, NULL, 7), (4, c, 9),
    /// (5, a, 1); r grouped by k: a -> 10 + 20 = 30, b -> 1, d -> 4, NULL
    /// -> 100. By v descending, then id: 2 (b: 1), 4 (c: no match), 3 (a
    /// NULL key matches nothing, not even r's NULL group), 1 (a: 30).
    #[test]
    fn the_first_rows_of_a_left_join_to_a_grouping_worked_by_hand() {
        let dir = tempfile::tempdir().unwrap();
        let l = [(1, Some("a"), 5), (2, Some("b"), 9), (3, None, 7), (4, Some("c"), 9), (5, Some("a"), 1)];
        let r = [(Some("a"), 10), (Some("b"), 1), (Some("a"), 20), (Some("d"), 4), (None, 100)];
        write_tables(dir.path(), &l, &r);
        let sql = "SELECT l.id, l.v, s.total FROM l LEFT JOIN (SELECT k, SUM(w) AS total FROM r GROUP BY k) s \
                   ON s.k = l.k ORDER BY l.v DESC, l.id LIMIT 3";
        let (rows, applied) = run(dir.path(), sql, true);
        assert_eq!(rows, ["2|9|1", "4|9|NULL", "3|7|NULL"]);
        assert!(applied);
        // The same with the grouping on the left of a RIGHT JOIN.
        let sql = "SELECT l.id, l.v, s.total FROM (SELECT k, SUM(w) AS total FROM r GROUP BY k) s \
                   RIGHT JOIN l ON s.k = l.k ORDER BY l.v DESC, l.id LIMIT 4";
        let (rows, applied) = run(dir.path(), sql, true);
        assert_eq!(rows, ["2|9|1", "4|9|NULL", "3|7|NULL", "1|5|30"]);
        assert!(applied);
    }

    /// Random tables: the rows of DataFusion's own plan, and the rule
    /// applied only to a left or right join ordered by its kept side.
    #[test]
    fn the_rows_of_datafusions_plan_and_the_rule_only_where_it_holds() {
        let queries = [
            (
                "SELECT l.id, s.n FROM l LEFT JOIN (SELECT k, COUNT(*) AS n FROM r GROUP BY k) s ON s.k = l.k \
              ORDER BY l.v, l.id LIMIT 4",
                true,
            ),
            // Offsets: the first offset + n rows.
            (
                "SELECT l.id, s.n FROM l LEFT JOIN (SELECT k, COUNT(*) AS n FROM r GROUP BY k) s ON s.k = l.k \
              ORDER BY l.v DESC, l.id LIMIT 3 OFFSET 2",
                true,
            ),
            // Copies of a left row: r itself, a join filter, and a copy
            // cut at the n-th row (the ids are the same whichever copies).
            ("SELECT l.id, l.v FROM l LEFT JOIN r ON r.k = l.k ORDER BY l.v, l.id LIMIT 7", true),
            ("SELECT l.id FROM l LEFT JOIN r ON r.k = l.k AND r.w > l.v ORDER BY l.v DESC, l.id LIMIT 9", true),
            ("SELECT l.id FROM r RIGHT JOIN l ON r.k = l.k ORDER BY l.id DESC LIMIT 5", true),
            // The order reads the other side.
            (
                "SELECT l.id, s.n FROM l LEFT JOIN (SELECT k, COUNT(*) AS n FROM r GROUP BY k) s ON s.k = l.k \
              ORDER BY s.n, l.id LIMIT 4",
                false,
            ),
            ("SELECT l.id, r.w FROM l LEFT JOIN r ON r.k = l.k ORDER BY r.w, l.id LIMIT 4", false),
            // An inner join can drop a left row, a full join add rows
            // (first, ordered descending).
            ("SELECT l.id FROM l JOIN r ON r.k = l.k ORDER BY l.v, l.id LIMIT 4", false),
            ("SELECT l.id, r.w FROM l FULL JOIN r ON r.k = l.k ORDER BY l.v DESC, l.id, r.w LIMIT 4", false),
        ];
        let mut next = crate::plan_tests::draws(7);
        let keys = [Some("a"), Some("b"), Some("c"), None, Some("d")];
        for round in 0..4 {
            // l smaller than r, so that a join with r builds on l and
            // keeps it on the left; a grouping of r is smaller than l.
            let l: Vec<(i64, Option<&str>, i64)> =
                (0..12).map(|i| (i, keys[next(keys.len())], next(6) as i64)).collect();
            let r: Vec<(Option<&str>, i64)> = (0..60).map(|_| (keys[next(keys.len())], next(6) as i64)).collect();
            let dir = tempfile::tempdir().unwrap();
            write_tables(dir.path(), &l, &r);
            for (sql, applies) in queries {
                let (expected, _) = run(dir.path(), sql, false);
                let (got, applied) = run(dir.path(), sql, true);
                assert_eq!(got, expected, "round {round}: {sql}");
                assert_eq!(applied, applies, "round {round}: {sql}");
            }
        }
    }
}
