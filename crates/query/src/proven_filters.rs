//! Conditions the file itself decides: a filter's `column = 'text'`
//! conditions that the Parquet file's row-group statistics prove true or
//! false for every row group are taken out of the filter, and the scan
//! reads only the row groups where they hold, without that column unless
//! something else uses it.
//!
//! The store writes the unified `jobs` table sorted by trace, one trace per
//! row group, so every row group's statistics for `trace` are one value
//! with no NULL. DataFusion skips the row groups of other traces by those
//! statistics, but still decodes `trace` for every row it reads and
//! compares it with the value: in `top-users-by-gpu-hours` for Helios,
//! 3.4 M string views built and compared only to keep all of them.
//! [`ProvenFilters`] rewrites
//!
//! ```text
//! FilterExec: trace = 'helios' AND gpus > 0      FilterExec: gpus > 0
//!   DataSourceExec [trace, user, gpus]      =>     DataSourceExec [user, gpus], row groups 5-18
//! ```
//!
//! A condition `c = v` (or `v = c`) on a text column `c` of the scan and a
//! text value `v` is decided for a row group by its statistics, whose
//! minimum and maximum bound every value (a writer may cut them short, but
//! they still bound): true for every row when they say no NULL and a
//! minimum and maximum both equal to `v`, since every value then is `v`;
//! false for every row when every value is NULL, or the minimum and maximum
//! are one value other than `v`, or `v` lies outside them in the byte order
//! the file declares for the column.
//! Row groups where some such condition is false for every row are
//! skipped; a condition true for every row of every row group left is
//! proven and leaves the filter. Anything undecided keeps the filter as
//! DataFusion made it, and a footer that cannot be read keeps the plan.
//!
//! The scan's predicate (which prunes row groups by the same statistics)
//! loses the proven conditions too, so a text key that only they read can
//! be read as a dictionary (`dictionary_keys`). A proven column the filter
//! passes up is still read; it is no longer known to the plan above as one
//! value, and a grouping over it, which DataFusion runs as a sorted
//! grouping when a filter makes its first key one value (about three
//! times slower in `outcomes-by-gpus` for one trace), runs as a plain one.
//! Every row read still holds that one value, so an operator above that
//! relied on it (a sort that left the column out) is still right; one
//! that needs it declared (a sorted window over it) fails DataFusion's
//! sanity check, and then the whole plan stays as DataFusion made it.
//!
//! Only a filter directly on a scan of one local Parquet file, and without
//! a row limit of its own when nothing is left of it.

use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::{HashSet, Result};
use datafusion::datasource::physical_plan::parquet::{ParquetAccessPlan, ParquetRowSelection};
use datafusion::datasource::physical_plan::FileSource;
use datafusion::logical_expr::Operator;
use datafusion::parquet::basic::{ColumnOrder, SortOrder};
use datafusion::parquet::file::metadata::{ParquetMetaData, RowGroupMetaData};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::utils::{collect_columns, conjunction, split_conjunction};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_optimizer::sanity_checker::SanityCheckPlan;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::filter::{FilterExec, FilterExecBuilder};
use datafusion::physical_plan::ExecutionPlan;

use crate::file_scan::FileScan;
use crate::plan_rewrite::{column_compared, rewrite_nodes};

/// The physical optimizer rule (see the module documentation).
#[derive(Debug)]
pub(crate) struct ProvenFilters;

impl PhysicalOptimizerRule for ProvenFilters {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        let rewritten = rewrite_nodes(Arc::clone(&plan), |node| match node.downcast_ref::<FilterExec>() {
            Some(filter) => rewrite(filter),
            None => Ok(None),
        })?;
        // An operator above that needs its input ordered or partitioned as
        // the filter's constant made it keeps DataFusion's plan whole.
        match SanityCheckPlan::new().optimize(Arc::clone(&rewritten), config) {
            Ok(_) => Ok(rewritten),
            Err(_) => Ok(plan),
        }
    }

    fn name(&self) -> &str {
        "ProvenFilters"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// What a row group's statistics say of a condition.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Verdict {
    AllTrue,
    AllFalse,
    Undecided,
}

/// A condition `column = value` on a text column of the scan.
struct TextEquality {
    /// Its place among the filter's conjuncts.
    conjunct: usize,
    /// The scan's output column.
    column: usize,
    value: Vec<u8>,
}

/// `filter` without its proven conditions over a scan of the row groups
/// left, if any condition is proven.
fn rewrite(filter: &FilterExec) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let Some(scan) = FileScan::of(filter.input()) else { return Ok(None) };
    let extensions = &scan.file.extensions;
    if scan.config.limit.is_some()
        || extensions.get::<ParquetAccessPlan>().is_some()
        || extensions.get::<ParquetRowSelection>().is_some()
    {
        return Ok(None);
    }
    let width = scan.file_columns.len();
    let output: Vec<usize> = match filter.projection() {
        Some(p) => p.iter().copied().collect(),
        None => (0..width).collect(),
    };
    let conjuncts = split_conjunction(filter.predicate());
    let conditions: Vec<TextEquality> =
        conjuncts.iter().enumerate().filter_map(|(i, c)| text_equality(i, c, &scan)).collect();
    if conditions.is_empty() {
        return Ok(None);
    }
    let Ok(metadata) = scan.footer() else { return Ok(None) };
    let Some(verdicts) = verdicts(&conditions, &scan, &metadata) else { return Ok(None) };
    let groups = metadata.num_row_groups();
    let skipped: Vec<bool> = (0..groups).map(|g| verdicts.iter().any(|v| v[g] == Verdict::AllFalse)).collect();
    let proven: Vec<&TextEquality> = conditions
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| (0..groups).all(|g| skipped[g] || v[g] == Verdict::AllTrue))
        .map(|(c, _)| c)
        .collect();
    if proven.is_empty() {
        return Ok(None);
    }
    let residual: Vec<Arc<dyn PhysicalExpr>> = conjuncts
        .iter()
        .enumerate()
        .filter(|(i, _)| !proven.iter().any(|c| c.conjunct == *i))
        .map(|(_, c)| Arc::clone(c))
        .collect();
    if residual.is_empty() && filter.fetch().is_some() {
        return Ok(None);
    }
    let mut access = ParquetAccessPlan::new_all(groups);
    (0..groups).filter(|&g| skipped[g]).for_each(|g| access.skip(g));
    filtered_scan(filter, &scan, residual, &output, access, &scan_predicate_without(&scan, &proven))
}

/// The scan's predicate (for pruning, with any dynamic filter) without the
/// proven conditions, which the row groups chosen already decide: a text
/// key that only they read can then be read as a dictionary
/// (`dictionary_keys`).
fn scan_predicate_without(scan: &FileScan, proven: &[&TextEquality]) -> Option<Arc<dyn PhysicalExpr>> {
    let predicate = scan.source.filter()?;
    let is_proven = |e: &Arc<dyn PhysicalExpr>| {
        column_equals_text(e).is_some_and(|(column, value)| {
            proven.iter().any(|c| scan.file_columns[c.column] == column && c.value == value.as_bytes())
        })
    };
    let kept: Vec<Arc<dyn PhysicalExpr>> =
        split_conjunction(&predicate).into_iter().filter(|e| !is_proven(e)).cloned().collect();
    (!kept.is_empty()).then(|| conjunction(kept))
}

/// `expr` as `column = 'text'` (either way round): the column's index in
/// its input and the text.
fn column_equals_text(expr: &Arc<dyn PhysicalExpr>) -> Option<(usize, &str)> {
    match column_compared(expr)? {
        (column, Operator::Eq, value) => Some((column.index(), value.try_as_str()??)),
        _ => None,
    }
}

/// The conjunct `expr` (the filter's `i`-th) as a text equality on a column
/// of the scan, if it is one.
fn text_equality(i: usize, expr: &Arc<dyn PhysicalExpr>, scan: &FileScan) -> Option<TextEquality> {
    let (column, value) = column_equals_text(expr)?;
    let file_column = *scan.file_columns.get(column)?;
    let text = matches!(
        scan.config.file_schema().field(file_column).data_type(),
        DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8
    );
    text.then(|| TextEquality { conjunct: i, column, value: value.as_bytes().to_vec() })
}

/// Per condition, per row group of the file: what its statistics say.
/// None when a condition's column is not one leaf of the file.
fn verdicts(conditions: &[TextEquality], scan: &FileScan, metadata: &ParquetMetaData) -> Option<Vec<Vec<Verdict>>> {
    let descriptor = metadata.file_metadata().schema_descr();
    conditions
        .iter()
        .map(|c| {
            let leaf = scan.leaf(descriptor, c.column)?;
            let unsigned =
                metadata.file_metadata().column_order(leaf) == ColumnOrder::TYPE_DEFINED_ORDER(SortOrder::UNSIGNED);
            Some(metadata.row_groups().iter().map(|g| verdict(g, leaf, unsigned, &c.value)).collect())
        })
        .collect()
}

/// What row group `group`'s statistics for its column `leaf` say of
/// `leaf = value`; `unsigned` when the file declares the column's values
/// ordered as unsigned bytes (the order of its minimum and maximum).
fn verdict(group: &RowGroupMetaData, leaf: usize, unsigned: bool, value: &[u8]) -> Verdict {
    let rows = u64::try_from(group.num_rows()).unwrap_or(u64::MAX);
    let Some(statistics) = group.column(leaf).statistics() else { return Verdict::Undecided };
    let nulls = statistics.null_count_opt();
    if nulls == Some(rows) {
        // NULL = v is not true: no row passes.
        return Verdict::AllFalse;
    }
    // Bounds, exact or not (a writer may cut a long text short, and many
    // writers do not say which they wrote): every value lies between them.
    // The old fields some writers filled in with a wrong order are not.
    let bounds = match (statistics.min_bytes_opt(), statistics.max_bytes_opt()) {
        (Some(min), Some(max)) if !statistics.is_min_max_deprecated() => (min, max),
        _ => return Verdict::Undecided,
    };
    match bounds {
        (min, max) if min == max && min == value && nulls == Some(0) => Verdict::AllTrue,
        (min, max) if min == max && min != value => Verdict::AllFalse,
        (min, max) if unsigned && (value < min || value > max) => Verdict::AllFalse,
        _ => Verdict::Undecided,
    }
}

/// `filter` with only the conditions `residual` (none: no filter) over the
/// scan reading the row groups `access` lets through and only the columns
/// the filter's output and `residual` need, its predicate `scan_predicate`.
fn filtered_scan(
    filter: &FilterExec,
    scan: &FileScan,
    residual: Vec<Arc<dyn PhysicalExpr>>,
    output: &[usize],
    access: ParquetAccessPlan,
    scan_predicate: &Option<Arc<dyn PhysicalExpr>>,
) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let file = scan.file.clone().with_extension(access);
    // Rows in skipped row groups no longer count; what is left is known
    // only after reading.
    let statistics = scan.config.statistics().to_inexact();
    let schema = Arc::clone(scan.config.file_schema());
    if residual.is_empty() {
        let unique: HashSet<&usize> = output.iter().collect();
        if unique.len() != output.len() {
            return Ok(None);
        }
        return Ok(Some(scan.rebuilt(schema, output, file, statistics, scan_predicate.clone())?));
    }
    // The scan's columns still read, in their order, and where each lands.
    let mut kept: Vec<usize> = output.to_vec();
    kept.extend(residual.iter().flat_map(collect_columns).map(|c| c.index()));
    kept.sort_unstable();
    kept.dedup();
    let position = |c: usize| kept.binary_search(&c).ok();
    let predicate = conjunction(residual).transform(|e| {
        Ok(match e.downcast_ref::<Column>() {
            Some(c) => match position(c.index()) {
                Some(p) => Transformed::yes(Arc::new(Column::new(c.name(), p)) as Arc<dyn PhysicalExpr>),
                None => Transformed::no(e),
            },
            None => Transformed::no(e),
        })
    });
    let predicate = predicate.data()?;
    let input = scan.rebuilt(schema, &kept, file, statistics, scan_predicate.clone())?;
    let projection = output.iter().map(|&c| position(c)).collect::<Option<Vec<usize>>>();
    let rebuilt = FilterExecBuilder::new(predicate, input)
        .apply_projection(projection)?
        .with_default_selectivity(filter.default_selectivity())
        .with_batch_size(filter.batch_size())
        .with_fetch(filter.fetch())
        .build()?;
    Ok(Some(Arc::new(rebuilt)))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use datafusion::arrow::array::{Int64Array, RecordBatch, StringArray};
    use datafusion::arrow::datatypes::{Field, Schema};
    use datafusion::parquet::arrow::ArrowWriter;
    use datafusion::parquet::file::properties::WriterProperties;
    use datafusion::prelude::SessionConfig;

    use super::*;

    /// Writes `dir/t.parquet` with columns `trace`, `user` (text) and `x`
    /// (64-bit integers), one row group per element of `groups`.
    fn write(dir: &Path, groups: &[Vec<(Option<&str>, &str, i64)>], props: WriterProperties) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("trace", DataType::Utf8, true),
            Field::new("user", DataType::Utf8, false),
            Field::new("x", DataType::Int64, false),
        ]));
        let file = std::fs::File::create(dir.join("t.parquet")).unwrap();
        let mut writer = ArrowWriter::try_new(file, Arc::clone(&schema), Some(props)).unwrap();
        for rows in groups {
            let trace: StringArray = rows.iter().map(|r| r.0).collect();
            let user: StringArray = rows.iter().map(|r| Some(r.1)).collect();
            let x: Int64Array = rows.iter().map(|r| Some(r.2)).collect();
            let batch =
                RecordBatch::try_new(Arc::clone(&schema), vec![Arc::new(trace), Arc::new(user), Arc::new(x)]).unwrap();
            writer.write(&batch).unwrap();
            writer.flush().unwrap();
        }
        writer.close().unwrap();
    }

    /// `sql` over `dir/t.parquet` in batches of 2 rows, with tracelab's
    /// physical rules (`ours`) or DataFusion's alone.
    fn run(dir: &Path, sql: &str, ours: bool) -> (Vec<String>, String) {
        crate::plan_tests::run_over_parquet(dir, &["t"], sql, ours, 2)
    }

    /// Whether the plan still filters on `trace`, and whether its scan
    /// still reads it.
    fn filters_and_reads_trace(plan: &str) -> (bool, bool) {
        let filters = plan.lines().any(|l| l.contains("FilterExec") && l.contains("trace@"));
        let reads = plan.lines().any(|l| {
            l.contains("DataSourceExec")
                && l.split("projection=[").nth(1).and_then(|p| p.split(']').next()).is_some_and(|p| p.contains("trace"))
        });
        (filters, reads)
    }

    /// Worked by hand: row groups of trace a (x 1, 2, 3), b (10, 20), NULL
    /// only (100, 200) and a (4). Every condition on `trace` below is
    /// decided by each row group's statistics.
    #[test]
    fn conditions_decided_by_every_row_group_leave_the_filter() {
        let groups = vec![
            vec![(Some("a"), "u1", 1), (Some("a"), "u2", 2), (Some("a"), "u1", 3)],
            vec![(Some("b"), "u1", 10), (Some("b"), "u3", 20)],
            vec![(None, "u9", 100), (None, "u9", 200)],
            vec![(Some("a"), "u2", 4)],
        ];
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &groups, WriterProperties::default());
        let check = |sql: &str, expected: &[&str], filters: bool, reads: bool| {
            let (rows, plan) = run(dir.path(), sql, true);
            assert_eq!(rows, expected, "{sql}\n{plan}");
            assert_eq!(filters_and_reads_trace(&plan), (filters, reads), "{sql}\n{plan}");
        };
        let sums = "SELECT \"user\", SUM(x) AS s FROM t WHERE";
        // The b and NULL row groups skipped, no filter left, trace unread.
        check(&format!("{sums} trace = 'a' GROUP BY \"user\" ORDER BY \"user\""), &["u1|4", "u2|6"], false, false);
        check(&format!("{sums} 'a' = trace GROUP BY \"user\" ORDER BY \"user\""), &["u1|4", "u2|6"], false, false);
        // The other condition stays in the filter.
        check(&format!("{sums} trace = 'b' AND x > 10 GROUP BY \"user\""), &["u3|20"], false, false);
        // A name the query gives a column, which DataFusion gives the scan.
        check("SELECT DISTINCT \"user\" AS c1 FROM t WHERE trace = 'a' ORDER BY 1", &["u1", "u2"], false, false);
        // A value in no row group: every row group skipped.
        check(&format!("{sums} trace = 'c' GROUP BY \"user\""), &[], false, false);
        // The row groups are skipped by this rule, not only by DataFusion's
        // pruning on the scan's predicate: with that pruning (of row groups
        // and of pages) off, the same.
        let mut unpruned = SessionConfig::new().with_batch_size(2);
        unpruned.options_mut().execution.parquet.pruning = false;
        unpruned.options_mut().execution.parquet.enable_page_index = false;
        let sql = format!("{sums} trace = 'a' GROUP BY \"user\" ORDER BY \"user\"");
        let (rows, plan) = crate::plan_tests::run_over_parquet_with(dir.path(), &["t"], &sql, true, unpruned);
        assert_eq!((rows, filters_and_reads_trace(&plan)), (vec!["u1|4".into(), "u2|6".into()], (false, false)));
        // The filter's output shows trace: the filter goes, trace is read.
        check("SELECT trace, x FROM t WHERE trace = 'a' ORDER BY x", &["a|1", "a|2", "a|3", "a|4"], false, true);
        // A window over trace needs its input declared sorted by it, which
        // the filter's constant gave: without it the plan fails DataFusion's
        // sanity check, so the whole plan stays as it was.
        let window =
            "SELECT x, ROW_NUMBER() OVER (PARTITION BY trace ORDER BY x DESC) FROM t WHERE trace = 'a' ORDER BY x";
        let (rows, plan) = run(dir.path(), window, true);
        assert_eq!(rows, ["1|4", "2|3", "3|2", "4|1"], "{plan}");
        assert_eq!(filters_and_reads_trace(&plan), (true, true), "{plan}");
        // Nothing left of the filter but its limit: the filter stays.
        let (rows, plan) = run(dir.path(), "SELECT x FROM t WHERE trace = 'a' LIMIT 2", true);
        assert_eq!(rows.len(), 2, "{plan}");
        assert!(rows.iter().all(|r| ["1", "2", "3", "4"].contains(&r.as_str())), "{rows:?}");
    }

    /// Row groups the statistics do not decide keep the filter: a and b in
    /// one row group, a beside a NULL, and a long value whose minimum and
    /// maximum the writer cuts to 4 bytes (`a-lo` and `a-lp`, which bound
    /// it but differ).
    #[test]
    fn undecided_row_groups_keep_the_filter() {
        let dir = tempfile::tempdir().unwrap();
        let mixed = vec![vec![(Some("a"), "u1", 1), (Some("b"), "u2", 2)], vec![(Some("a"), "u3", 3)]];
        write(dir.path(), &mixed, WriterProperties::default());
        let (rows, plan) = run(dir.path(), "SELECT x FROM t WHERE trace = 'a' ORDER BY x", true);
        assert_eq!((rows, filters_and_reads_trace(&plan)), (vec!["1".into(), "3".into()], (true, true)), "{plan}");
        // Outside the mixed row group's bounds in byte order: decided.
        let (rows, plan) = run(dir.path(), "SELECT x FROM t WHERE trace = 'c' ORDER BY x", true);
        assert_eq!((rows, filters_and_reads_trace(&plan)), (vec![], (false, false)), "{plan}");

        let with_null = vec![vec![(Some("a"), "u1", 1), (None, "u2", 2)], vec![(Some("a"), "u3", 3)]];
        write(dir.path(), &with_null, WriterProperties::default());
        let (rows, plan) = run(dir.path(), "SELECT x FROM t WHERE trace = 'a' ORDER BY x", true);
        assert_eq!((rows, filters_and_reads_trace(&plan)), (vec!["1".into(), "3".into()], (true, true)), "{plan}");

        let long = "a-long-trace-name";
        let cut = WriterProperties::builder().set_statistics_truncate_length(Some(4)).build();
        write(dir.path(), &[vec![(Some(long), "u1", 1), (Some(long), "u2", 2)], vec![(Some("a-lo"), "u3", 3)]], cut);
        let (rows, plan) = run(dir.path(), &format!("SELECT x FROM t WHERE trace = '{long}' ORDER BY x"), true);
        assert_eq!((rows, filters_and_reads_trace(&plan)), (vec!["1".into(), "2".into()], (true, true)), "{plan}");
    }

    /// Column `c` (0: trace, 1: user) of a row group as written.
    fn column<'a>(group: &[(Option<&'a str>, &'a str, i64)], c: usize) -> Vec<Option<&'a str>> {
        group.iter().map(|r| if c == 0 { r.0 } else { Some(r.1) }).collect()
    }

    /// What a row group's values say of `= value`, worked out from the
    /// values themselves (the writer's statistics are exact for them).
    fn verdict_of_values(values: &[Option<&str>], value: &str) -> Verdict {
        let present: Vec<&str> = values.iter().flatten().copied().collect();
        let (Some(min), Some(max)) = (present.iter().min(), present.iter().max()) else { return Verdict::AllFalse };
        if min == max && *min == value && present.len() == values.len() {
            Verdict::AllTrue
        } else if (min == max && *min != value) || value < *min || value > *max {
            Verdict::AllFalse
        } else {
            Verdict::Undecided
        }
    }

    /// Random files (row groups of one trace, of one trace and NULLs, of
    /// NULLs only, of mixed traces; users likewise) and queries: the same
    /// rows as DataFusion's own plan, and the trace condition leaves the
    /// filter exactly when every row group left decides it.
    #[test]
    fn the_same_rows_as_datafusions_plan() {
        let traces = ["a", "b", "ab", "", "c"];
        let mut next = crate::plan_tests::draws(0x9e37_79b9_7f4a_7c15u64);
        let dir = tempfile::tempdir().unwrap();
        let mut applied = 0;
        for _ in 0..40 {
            let mut groups: Vec<Vec<(Option<&str>, &str, i64)>> = Vec::new();
            let mut x = 0;
            for _ in 0..1 + next(5) {
                let one = traces[next(traces.len())];
                let users = ["u1", "u2", "u3"];
                let user = users[next(3)];
                let kind = next(4);
                let rows = 1 + next(6);
                let group = (0..rows)
                    .map(|_| {
                        x += 1;
                        let trace = match kind {
                            0 | 1 => Some(one),
                            2 if next(3) == 0 => None,
                            2 => Some(one),
                            _ => [None, Some(traces[next(traces.len())])][next(2)],
                        };
                        let user = if next(2) == 0 { user } else { users[next(3)] };
                        (trace, user, x)
                    })
                    .collect();
                groups.push(group);
            }
            write(dir.path(), &groups, WriterProperties::default());
            let value = traces[next(traces.len())];
            let expect = |conditions: &[(usize, &str)]| {
                let verdicts: Vec<Vec<Verdict>> = conditions
                    .iter()
                    .map(|(c, v)| groups.iter().map(|g| verdict_of_values(&column(g, *c), v)).collect())
                    .collect();
                let skipped: Vec<bool> =
                    (0..groups.len()).map(|g| verdicts.iter().any(|v| v[g] == Verdict::AllFalse)).collect();
                (0..groups.len()).all(|g| skipped[g] || verdicts[0][g] == Verdict::AllTrue)
            };
            let shapes: [(String, Option<bool>); 5] = [
                (
                    format!(
                        "SELECT \"user\", SUM(x) FROM t WHERE trace = '{value}' GROUP BY \"user\" ORDER BY \"user\""
                    ),
                    Some(expect(&[(0, value)])),
                ),
                (
                    format!("SELECT x FROM t WHERE trace = '{value}' AND x % 3 = 0 ORDER BY x"),
                    Some(expect(&[(0, value)])),
                ),
                (
                    format!("SELECT COUNT(*), SUM(x) FROM t WHERE trace = '{value}' AND \"user\" = 'u1'"),
                    Some(expect(&[(0, value), (1, "u1")])),
                ),
                (format!("SELECT x FROM t WHERE trace = '{value}' OR x = 1 ORDER BY x"), None),
                (
                    format!("SELECT trace, \"user\", COUNT(*) FROM t WHERE trace = '{value}' GROUP BY trace, \"user\" ORDER BY 2"),
                    Some(expect(&[(0, value)])),
                ),
            ];
            for (sql, proven) in shapes {
                let (ours, plan) = run(dir.path(), &sql, true);
                let (theirs, _) = run(dir.path(), &sql, false);
                assert_eq!(ours, theirs, "{sql}\n{groups:?}\n{plan}");
                let (filters, reads) = filters_and_reads_trace(&plan);
                let proven = proven.unwrap_or(false);
                let shown = sql.starts_with("SELECT trace");
                assert_eq!((filters, reads), (!proven, !proven || shown), "{sql}\n{groups:?}\n{plan}");
                applied += usize::from(proven);
            }
        }
        // Both outcomes are exercised.
        assert!((20..180).contains(&applied), "{applied} of 200 queries rewritten");
    }
}
