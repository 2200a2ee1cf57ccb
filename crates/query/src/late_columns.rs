//! Late columns: a top-k over many rows decodes the columns it only
//! carries (names, paths, hashes, measurements) for the rows it keeps, not
//! for every row.
//!
//! `ORDER BY ... LIMIT n` over a scan, a join or a filter of a Parquet table
//! reads each column the query prints for every row the scan reads, and
//! carries it through the join, though only n rows are printed. In the named
//! query `instances-over-request` the 60-character worker names are three
//! quarters of the bytes read (116 of 150 MB compressed at full scale) for
//! the 20 rows printed. DuckDB avoids this the same way (its "late
//! materialization" of a top-n over Parquet).
//!
//! [`LateColumns`] rewrites such a plan. The scan emits each such column's
//! row number in the file (DataFusion's `file_row_index`, the Parquet
//! reader's row-number column, which costs no decoding) in its place; the
//! row numbers travel through the plan unchanged; [`TopCandidatesExec`]
//! keeps the rows that can still be among the n; [`FetchLateExec`] reads the
//! values of the late columns a sort key uses for those rows (the store's
//! files carry page indexes, so it reads the pages holding them); the
//! original top-k orders and cuts them; a second [`FetchLateExec`] reads the
//! other late columns for the n rows left. Many rows can tie at the cut (a
//! utilization of 100 %), and every one of them is a candidate:
//!
//! ```text
//! SortExec: TopK(n) [k1, k2, w]       FetchLateExec [x]
//!   HashJoinExec ...                    SortExec: TopK(n) [k1, k2, w]
//!     DataSourceExec [a, w, x]   =>       FetchLateExec [w]
//!                                           TopCandidatesExec: n, [k1, k2]
//!                                             HashJoinExec ...
//!                                               DataSourceExec [a, row(w), row(x)]
//! ```
//!
//! Why the answer is unchanged: let P be the sort keys before the first one
//! that uses a late column, and K the n-th smallest P value among all rows.
//! A row whose P value is above K has n rows before it whatever the later
//! keys say, so it is not printed; [`TopCandidatesExec`] keeps every row
//! whose P value is at most K (ties included), a superset of the rows
//! printed, and the top-k over them picks the same rows in the same order.
//! The columns read after it are the same rows' values, in the same order.
//!
//! The rule applies only where that reasoning holds: a column passes from a
//! Parquet scan of one file to the top-k as itself, through projections
//! that only rename it, filters and join keys and join filters that do not
//! use it, inner and outer hash joins (an outer join's missing row has no
//! row number and gets no value), on one partition. Anything else keeps the
//! plan as DataFusion made it.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, BooleanArray, Int64Array, RecordBatch, UInt32Array,
};
use datafusion::arrow::compute::{cast_with_options, concat_batches, filter_record_batch, take, CastOptions};
use datafusion::arrow::datatypes::{DataType, Schema, SchemaRef};
use datafusion::arrow::row::{OwnedRow, RowConverter, Rows, SortField};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_datafusion_err, JoinSide, JoinType, Result};
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::parquet::{CachedParquetFileReaderFactory, ParquetFileReaderFactory};
use datafusion::datasource::physical_plan::{FileSource, ParquetSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::execution::TaskContext;
use datafusion::functions::core::file_row_index::FileRowIndexFunc;
use datafusion::logical_expr::ScalarUDF;
use datafusion::parquet::arrow::arrow_reader::{ArrowReaderOptions, RowSelection};
use datafusion::parquet::arrow::async_reader::AsyncFileReader;
use datafusion::parquet::arrow::{ParquetRecordBatchStreamBuilder, ProjectionMask};
use datafusion::parquet::file::metadata::PageIndexPolicy;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::projection::ProjectionExpr;
use datafusion::physical_expr::utils::collect_columns;
use datafusion::physical_expr::{EquivalenceProperties, LexOrdering, PhysicalExpr, ScalarFunctionExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::coop::CooperativeExec;
use datafusion::physical_plan::execution_plan::{
    apply_expression_roots, replace_children_if_necessary, Boundedness, EmissionType,
};
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::joins::HashJoinExec;
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning, PlanProperties,
    SendableRecordBatchStream,
};
use futures::{StreamExt, TryStreamExt};

use crate::plan_rewrite::rewrite_nodes;

/// The largest `LIMIT` the rule rewrites: the candidates are held in memory
/// and their values fetched row by row.
const MAX_FETCH: usize = 10_000;

/// The fewest rows [`Candidates`] holds before it compacts them: fewer
/// would compact every batch of a large top-k. The tests compact after a
/// few rows so that their small tables are cut many times while read.
#[cfg(not(test))]
const MIN_COMPACT: usize = 4096;
#[cfg(test)]
const MIN_COMPACT: usize = 8;

/// The physical optimizer rule; see the module documentation.
#[derive(Debug, Default)]
pub(crate) struct LateColumns;

impl PhysicalOptimizerRule for LateColumns {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        rewrite_nodes(plan, rewrite_top_k)
    }

    fn name(&self) -> &str {
        "late_columns"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `node` rewritten if it is a top-k with late columns below it.
fn rewrite_top_k(node: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let Some(sort) = node.downcast_ref::<SortExec>() else { return Ok(None) };
    let Some(n) = sort.fetch().filter(|n| (1..=MAX_FETCH).contains(n)) else { return Ok(None) };
    let input = sort.input();
    if sort.preserve_partitioning() || input.output_partitioning().partition_count() != 1 {
        return Ok(None);
    }
    let schema = input.schema();
    let mut late: Vec<usize> = (0..schema.fields().len())
        .filter(|&i| may_be_late(schema.field(i).data_type()))
        .filter(|&i| matches!(late_plan(input, &[i]), Ok(Some(_))))
        .collect();
    // The keys before the first one that uses a late column decide the
    // candidates; a late column the first key uses is read as usual.
    let prefix = loop {
        let uses_late = |key: &&datafusion::physical_expr::PhysicalSortExpr| {
            collect_columns(&key.expr).iter().any(|c| late.contains(&c.index()))
        };
        match sort.expr().iter().position(|key| uses_late(&key)) {
            Some(0) => {
                let first = collect_columns(&sort.expr()[0].expr);
                late.retain(|i| !first.iter().any(|c| c.index() == *i));
            }
            Some(p) => break sort.expr().iter().take(p).cloned().collect::<Vec<_>>(),
            None => break sort.expr().iter().cloned().collect::<Vec<_>>(),
        }
    };
    if late.is_empty() {
        return Ok(None);
    }
    let Some((rewritten, mut sources)) = late_plan(input, &late)? else { return Ok(None) };
    let prefix = LexOrdering::new(prefix).ok_or_else(|| internal_datafusion_err!("late columns: no sort key"))?;
    let candidates: Arc<dyn ExecutionPlan> = Arc::new(TopCandidatesExec::new(rewritten, prefix, n));
    // The late columns a sort key reads are fetched for every candidate,
    // the others only for the n rows the sort keeps: many rows can tie at
    // the cut (a utilization of 100 %), and all of them are candidates.
    let sorted_on: Vec<usize> = sort.expr().iter().flat_map(|k| collect_columns(&k.expr)).map(|c| c.index()).collect();
    let after: Sources = sources.extract_if(.., |i, _| !sorted_on.contains(i)).collect();
    let sort_input = if sources.is_empty() {
        candidates
    } else {
        let fields: Vec<_> = (0..schema.fields().len())
            .map(|i| {
                if after.contains_key(&i) {
                    candidates.schema().fields()[i].clone()
                } else {
                    schema.fields()[i].clone()
                }
            })
            .collect();
        let keys_read = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
        Arc::new(FetchLateExec::new(candidates, sources, keys_read, None)) as Arc<dyn ExecutionPlan>
    };
    let sorted = replace_children_if_necessary(Arc::clone(node), vec![sort_input])?;
    if after.is_empty() {
        return Ok(Some(sorted));
    }
    Ok(Some(Arc::new(FetchLateExec::new(sorted, after, node.schema(), Some(sort.expr().clone())))))
}

/// The columns that may be read late: text and binary (whose decoding and
/// carrying cost grows with their length) and numbers and booleans, whose
/// values the file holds as they are printed, so that the cast of what the
/// fetch reads to the column's type is exact. Times and dates are carried:
/// their units and zones are the scan's to reconcile.
fn may_be_late(data_type: &DataType) -> bool {
    data_type.is_numeric()
        || matches!(
            data_type,
            DataType::Boolean
                | DataType::Utf8
                | DataType::LargeUtf8
                | DataType::Utf8View
                | DataType::Binary
                | DataType::LargeBinary
                | DataType::BinaryView
        )
}

/// Where a late column's values are: a column of one Parquet file.
#[derive(Debug, Clone)]
struct LateSource {
    store: ObjectStoreUrl,
    file: PartitionedFile,
    column: String,
}

/// `plan` with its output columns `columns` replaced by their row numbers
/// in the Parquet file they are read from, and where each one's values are
/// (by output index); `None` where a column is not carried unchanged from
/// such a scan.
fn late_plan(plan: &Arc<dyn ExecutionPlan>, columns: &[usize]) -> Result<Option<(Arc<dyn ExecutionPlan>, Sources)>> {
    if columns.is_empty() {
        return Ok(Some((Arc::clone(plan), Sources::new())));
    }
    if plan.is::<DataSourceExec>() {
        return late_scan(plan, columns);
    }
    if plan.is::<CooperativeExec>() {
        return late_child(plan, 0, columns.to_vec(), |sources| sources);
    }
    if let Some(projection) = plan.downcast_ref::<ProjectionExec>() {
        return late_projection(plan, projection.expr(), columns);
    }
    if let Some(filter) = plan.downcast_ref::<FilterExec>() {
        let Some(below) = through_projection(filter.projection().as_deref(), columns) else { return Ok(None) };
        if collect_columns(filter.predicate()).iter().any(|c| below.contains(&c.index())) {
            return Ok(None);
        }
        let renumber = renumbering(&below, columns);
        return late_child(plan, 0, below, renumber);
    }
    if let Some(join) = plan.downcast_ref::<HashJoinExec>() {
        return late_join(plan, join, columns);
    }
    Ok(None)
}

/// Output index -> where the late column's values are.
type Sources = BTreeMap<usize, LateSource>;

/// The indices `columns` of a node's output in its input, through the
/// node's optional projection; `None` if one is repeated (the same input
/// column twice in the output would need one row number for two columns).
pub(crate) fn through_projection(projection: Option<&[usize]>, columns: &[usize]) -> Option<Vec<usize>> {
    let below: Vec<usize> = match projection {
        Some(p) => columns.iter().map(|&c| p.get(c).copied()).collect::<Option<_>>()?,
        None => columns.to_vec(),
    };
    if let Some(p) = projection {
        if below.iter().any(|b| p.iter().filter(|x| *x == b).count() > 1) {
            return None;
        }
    }
    Some(below)
}

/// Maps the sources found at input indices `below` to the output indices
/// `columns` (the same order).
fn renumbering(below: &[usize], columns: &[usize]) -> impl FnOnce(Sources) -> Sources {
    let pairs: Vec<(usize, usize)> = below.iter().copied().zip(columns.iter().copied()).collect();
    move |mut sources| pairs.iter().filter_map(|(b, c)| sources.remove(b).map(|s| (*c, s))).collect()
}

/// A one-child node over its child rewritten for `below`, the sources
/// renumbered by `renumber`.
fn late_child(
    plan: &Arc<dyn ExecutionPlan>,
    child: usize,
    below: Vec<usize>,
    renumber: impl FnOnce(Sources) -> Sources,
) -> Result<Option<(Arc<dyn ExecutionPlan>, Sources)>> {
    let Some((input, sources)) = late_plan(plan.children()[child], &below)? else { return Ok(None) };
    Ok(Some((replace_children_if_necessary(Arc::clone(plan), vec![input])?, renumber(sources))))
}

/// A projection passes a late column on only as a plain column that no
/// other expression reads.
fn late_projection(
    plan: &Arc<dyn ExecutionPlan>,
    exprs: &[ProjectionExpr],
    columns: &[usize],
) -> Result<Option<(Arc<dyn ExecutionPlan>, Sources)>> {
    let mut below = Vec::with_capacity(columns.len());
    for &c in columns {
        let Some(column) = exprs.get(c).and_then(|e| e.expr.downcast_ref::<Column>()) else { return Ok(None) };
        below.push(column.index());
    }
    let read_elsewhere = exprs
        .iter()
        .enumerate()
        .any(|(i, e)| !columns.contains(&i) && collect_columns(&e.expr).iter().any(|c| below.contains(&c.index())));
    if read_elsewhere || (1..below.len()).any(|i| below[..i].contains(&below[i])) {
        return Ok(None);
    }
    let Some((input, sources)) = late_plan(plan.children()[0], &below)? else { return Ok(None) };
    // Built anew: a projection keeps the output schema it was made with
    // when only its child is replaced.
    let rebuilt: Arc<dyn ExecutionPlan> = Arc::new(ProjectionExec::try_new(exprs.to_vec(), input)?);
    Ok(Some((rebuilt, renumbering(&below, columns)(sources))))
}

/// A hash join passes on the columns of either side that its keys and
/// filter do not read; an outer join's missing side has no row number.
fn late_join(
    plan: &Arc<dyn ExecutionPlan>,
    join: &HashJoinExec,
    columns: &[usize],
) -> Result<Option<(Arc<dyn ExecutionPlan>, Sources)>> {
    if !matches!(join.join_type(), JoinType::Inner | JoinType::Left | JoinType::Right | JoinType::Full) {
        return Ok(None);
    }
    let Some(joined) = through_projection(join.projection.as_deref(), columns) else { return Ok(None) };
    let left_width = join.left().schema().fields().len();
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for &j in &joined {
        if j < left_width {
            left.push(j);
        } else {
            right.push(j - left_width);
        }
    }
    let keys_read = |side: JoinSide, cols: &[usize]| {
        join.on().iter().any(|(l, r)| {
            let key = if side == JoinSide::Left { l } else { r };
            collect_columns(key).iter().any(|c| cols.contains(&c.index()))
        }) || join
            .filter()
            .is_some_and(|f| f.column_indices().iter().any(|ci| ci.side == side && cols.contains(&ci.index)))
    };
    if keys_read(JoinSide::Left, &left) || keys_read(JoinSide::Right, &right) {
        return Ok(None);
    }
    let Some((new_left, left_sources)) = late_plan(join.left(), &left)? else { return Ok(None) };
    let Some((new_right, right_sources)) = late_plan(join.right(), &right)? else { return Ok(None) };
    let mut at_join: Sources = left_sources;
    at_join.extend(right_sources.into_iter().map(|(i, s)| (i + left_width, s)));
    let sources = renumbering(&joined, columns)(at_join);
    Ok(Some((replace_children_if_necessary(Arc::clone(plan), vec![new_left, new_right])?, sources)))
}

/// A Parquet scan of one file whose output columns `columns` are file
/// columns: the same scan with `file_row_index()` in their place.
fn late_scan(plan: &Arc<dyn ExecutionPlan>, columns: &[usize]) -> Result<Option<(Arc<dyn ExecutionPlan>, Sources)>> {
    let Some(scan) = plan.downcast_ref::<DataSourceExec>() else { return Ok(None) };
    let Some((config, source)) = scan.downcast_to_file_source::<ParquetSource>() else { return Ok(None) };
    let files: Vec<_> =
        config.file_groups.iter().flat_map(datafusion::datasource::physical_plan::FileGroup::iter).collect();
    let ([file], Some(projection)) = (files.as_slice(), source.projection()) else { return Ok(None) };
    let file_schema = config.file_schema();
    let exprs: Vec<&ProjectionExpr> = projection.iter().collect();
    let mut sources = Sources::new();
    for &c in columns {
        let Some(column) = exprs.get(c).and_then(|e| e.expr.downcast_ref::<Column>()) else { return Ok(None) };
        if column.index() >= file_schema.fields().len() {
            return Ok(None);
        }
        let name = file_schema.field(column.index()).name().clone();
        let store = config.object_store_url.clone();
        sources.insert(c, LateSource { store, file: (*file).clone(), column: name });
    }
    let output = plan.schema();
    let row_index = Arc::new(ScalarUDF::new_from_impl(FileRowIndexFunc::new()));
    let options = Arc::new(ConfigOptions::default());
    let mut over_scan = Vec::with_capacity(output.fields().len());
    for (i, field) in output.fields().iter().enumerate() {
        let expr: Arc<dyn PhysicalExpr> = if columns.contains(&i) {
            Arc::new(ScalarFunctionExpr::try_new(Arc::clone(&row_index), vec![], &output, Arc::clone(&options))?)
        } else {
            Arc::new(Column::new(field.name(), i))
        };
        over_scan.push(ProjectionExpr::new(expr, field.name().clone()));
    }
    let projection = ProjectionExec::try_new(over_scan, Arc::clone(plan))?;
    Ok(scan.try_swapping_with_projection(&projection)?.map(|scan| (scan, sources)))
}

/// The properties of this module's operators: one partition, emitted
/// once the input is read, with `equivalences` among its columns.
fn all_at_the_end(equivalences: EquivalenceProperties) -> Arc<PlanProperties> {
    Arc::new(PlanProperties::new(
        equivalences,
        Partitioning::UnknownPartitioning(1),
        EmissionType::Final,
        Boundedness::Bounded,
    ))
}

/// Keeps the rows of its input whose `prefix` key is at most the n-th
/// smallest one (ties included): every row a top-n on keys that start with
/// `prefix` can print.
#[derive(Debug)]
pub(crate) struct TopCandidatesExec {
    input: Arc<dyn ExecutionPlan>,
    prefix: LexOrdering,
    n: usize,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl TopCandidatesExec {
    fn new(input: Arc<dyn ExecutionPlan>, prefix: LexOrdering, n: usize) -> TopCandidatesExec {
        let properties = all_at_the_end(input.equivalence_properties().clone());
        TopCandidatesExec { input, prefix, n, properties, metrics: ExecutionPlanMetricsSet::new() }
    }
}

impl DisplayAs for TopCandidatesExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "TopCandidatesExec: n={}, prefix=[{}]", self.n, self.prefix)
    }
}

impl ExecutionPlan for TopCandidatesExec {
    fn name(&self) -> &str {
        "TopCandidatesExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        apply_expression_roots(self.prefix.iter().map(|k| &k.expr), f)
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(TopCandidatesExec::new(children.swap_remove(0), self.prefix.clone(), self.n)))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, Arc::clone(&context))?;
        let reservation = MemoryConsumer::new("TopCandidatesExec").register(context.memory_pool());
        let keys = Candidates::new(self.prefix.clone(), self.n, input.schema(), reservation)?;
        let baseline = BaselineMetrics::new(&self.metrics, partition);
        let schema = input.schema();
        let output = futures::stream::once(async move {
            let batch = keys.keep_from(input, &baseline).await?;
            baseline.record_output(batch.num_rows());
            Ok(batch)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, output)))
    }
}

/// The rows that can still be among the first n by `prefix`, as they are
/// read: once n rows are held, the n-th smallest key bounds what is kept.
struct Candidates {
    prefix: LexOrdering,
    n: usize,
    schema: SchemaRef,
    converter: RowConverter,
    kept: Vec<RecordBatch>,
    kept_rows: usize,
    /// Compact the kept rows when they pass this many.
    compact_at: usize,
    bound: Option<OwnedRow>,
    reservation: MemoryReservation,
}

impl Candidates {
    fn new(prefix: LexOrdering, n: usize, schema: SchemaRef, reservation: MemoryReservation) -> Result<Candidates> {
        let fields = prefix
            .iter()
            .map(|k| Ok(SortField::new_with_options(k.expr.data_type(&schema)?, k.options)))
            .collect::<Result<Vec<_>>>()?;
        let converter = RowConverter::new(fields)?;
        let compact_at = (2 * n).max(MIN_COMPACT);
        Ok(Candidates {
            prefix,
            n,
            schema,
            converter,
            kept: Vec::new(),
            kept_rows: 0,
            compact_at,
            bound: None,
            reservation,
        })
    }

    /// The candidates among `input`'s rows; the time spent here (not in
    /// the input) counted in `metrics`.
    async fn keep_from(
        mut self,
        mut input: SendableRecordBatchStream,
        metrics: &BaselineMetrics,
    ) -> Result<RecordBatch> {
        while let Some(batch) = input.next().await {
            let batch = batch?;
            let _timer = metrics.elapsed_compute().timer();
            self.push(batch)?;
        }
        let _timer = metrics.elapsed_compute().timer();
        if self.kept_rows > self.n {
            self.compact()?;
        }
        let all = concat_batches(&self.schema, &self.kept)?;
        self.reservation.free();
        Ok(all)
    }

    fn keys(&self, batch: &RecordBatch) -> Result<Rows> {
        let columns = self
            .prefix
            .iter()
            .map(|k| k.expr.evaluate(batch)?.into_array(batch.num_rows()))
            .collect::<Result<Vec<ArrayRef>>>()?;
        Ok(self.converter.convert_columns(&columns)?)
    }

    fn push(&mut self, batch: RecordBatch) -> Result<()> {
        let batch = match &self.bound {
            Some(bound) => at_most(&batch, &self.keys(&batch)?, bound)?,
            None => batch,
        };
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.reservation.try_grow(batch.get_array_memory_size())?;
        self.kept_rows += batch.num_rows();
        self.kept.push(batch);
        if self.kept_rows >= self.compact_at {
            self.compact()?;
        }
        Ok(())
    }

    /// Keeps only the rows whose key is at most the n-th smallest held.
    fn compact(&mut self) -> Result<()> {
        let all = concat_batches(&self.schema, &self.kept)?;
        let keys = self.keys(&all)?;
        let mut order: Vec<usize> = (0..keys.num_rows()).collect();
        let n = self.n.min(order.len());
        order.select_nth_unstable_by(n - 1, |a, b| keys.row(*a).cmp(&keys.row(*b)));
        let bound = keys.row(order[n - 1]).owned();
        let kept = at_most(&all, &keys, &bound)?;
        self.kept_rows = kept.num_rows();
        self.compact_at = (2 * self.n).max(MIN_COMPACT).max(2 * self.kept_rows);
        self.reservation.try_resize(kept.get_array_memory_size())?;
        self.kept = vec![kept];
        self.bound = Some(bound);
        Ok(())
    }
}

/// The rows of `batch` whose key (`keys`, one per row) is at most `bound`.
fn at_most(batch: &RecordBatch, keys: &Rows, bound: &OwnedRow) -> Result<RecordBatch> {
    let keep: BooleanArray = keys.iter().map(|k| Some(k <= bound.row())).collect();
    own_views(filter_record_batch(batch, &keep)?)
}

/// `batch` with its string and binary views holding only their own
/// bytes: a filtered view array still holds every buffer of the batch it
/// came from (the decoded pages of a column), which the few rows kept of
/// each batch would otherwise keep alive and count against the memory pool.
fn own_views(batch: RecordBatch) -> Result<RecordBatch> {
    let columns: Vec<ArrayRef> = batch
        .columns()
        .iter()
        .map(|c| match c.data_type() {
            DataType::Utf8View => Arc::new(c.as_string_view().gc()) as ArrayRef,
            DataType::BinaryView => Arc::new(c.as_binary_view().gc()) as ArrayRef,
            _ => Arc::clone(c),
        })
        .collect();
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

/// Replaces the row-number columns of its (few) input rows by the values
/// of the columns they stand for, read from their Parquet files.
#[derive(Debug)]
pub(crate) struct FetchLateExec {
    input: Arc<dyn ExecutionPlan>,
    sources: Sources,
    schema: SchemaRef,
    ordering: Option<LexOrdering>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl FetchLateExec {
    /// Over `input`, its rows in their order as `schema`; `ordering`, the
    /// order of a sort below that this keeps.
    fn new(
        input: Arc<dyn ExecutionPlan>,
        sources: Sources,
        schema: SchemaRef,
        ordering: Option<LexOrdering>,
    ) -> FetchLateExec {
        let equivalences = EquivalenceProperties::new_with_orderings(Arc::clone(&schema), ordering.clone());
        let properties = all_at_the_end(equivalences);
        FetchLateExec { input, sources, schema, ordering, properties, metrics: ExecutionPlanMetricsSet::new() }
    }
}

impl DisplayAs for FetchLateExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let columns: Vec<String> = self
            .sources
            .iter()
            .map(|(i, s)| format!("{}@{i} from {}", s.column, s.file.object_meta.location))
            .collect();
        write!(f, "FetchLateExec: [{}]", columns.join(", "))
    }
}

impl ExecutionPlan for FetchLateExec {
    fn name(&self) -> &str {
        "FetchLateExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        let (sources, schema, ordering) = (self.sources.clone(), Arc::clone(&self.schema), self.ordering.clone());
        Ok(Arc::new(FetchLateExec::new(children.swap_remove(0), sources, schema, ordering)))
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, Arc::clone(&context))?;
        let sources = self.sources.clone();
        let schema = Arc::clone(&self.schema);
        let baseline = BaselineMetrics::new(&self.metrics, partition);
        let output = futures::stream::once(async move {
            let batches: Vec<RecordBatch> = input.try_collect().await?;
            let timer = baseline.elapsed_compute().timer();
            let batch = fetch_late(&batches, &sources, &schema, &context).await?;
            timer.done();
            baseline.record_output(batch.num_rows());
            Ok(batch)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(Arc::clone(&self.schema), output)))
    }
}

/// `batches` (with row numbers where `sources` says) as `schema`: each
/// late column's values read from its file for those rows, one read per
/// file for all of its columns.
async fn fetch_late(
    batches: &[RecordBatch],
    sources: &Sources,
    schema: &SchemaRef,
    context: &TaskContext,
) -> Result<RecordBatch> {
    let Some(first) = batches.first() else { return Ok(RecordBatch::new_empty(Arc::clone(schema))) };
    let rows = concat_batches(&first.schema(), batches)?;
    let mut columns: Vec<ArrayRef> = rows.columns().to_vec();
    let mut by_file: BTreeMap<(&str, &str), Vec<(usize, &LateSource)>> = BTreeMap::new();
    for (&i, source) in sources {
        by_file
            .entry((source.store.as_str(), source.file.object_meta.location.as_ref()))
            .or_default()
            .push((i, source));
    }
    // An exact cast or an error, never a NULL for a value that does not
    // fit (arrow's default).
    let exact = CastOptions { safe: false, ..CastOptions::default() };
    for late in by_file.values() {
        let mut numbers = Vec::with_capacity(late.len());
        for (i, source) in late {
            let array = rows
                .column(*i)
                .as_any()
                .downcast_ref::<Int64Array>()
                .ok_or_else(|| internal_datafusion_err!("late column {} carries no row numbers", source.column))?;
            numbers.push(array);
        }
        let values = read_rows(&numbers, late, context).await?;
        for ((i, _), values) in late.iter().zip(values) {
            columns[*i] = cast_with_options(&values, schema.field(*i).data_type(), &exact)?;
        }
    }
    Ok(RecordBatch::try_new(Arc::clone(schema), columns)?)
}

/// The values of the columns `late` of one file at the row numbers
/// `numbers` (one array per column; NULL where a number is NULL), in
/// their order.
async fn read_rows(
    numbers: &[&Int64Array],
    late: &[(usize, &LateSource)],
    context: &TaskContext,
) -> Result<Vec<ArrayRef>> {
    let mut wanted: Vec<i64> = numbers.iter().flat_map(|n| n.iter().flatten()).collect();
    wanted.sort_unstable();
    wanted.dedup();
    if wanted.is_empty() {
        return Ok(numbers.iter().map(|n| new_null_array(&DataType::Null, n.len())).collect());
    }
    let file = &late[0].1;
    let location = &file.file.object_meta.location;
    let store = context.runtime_env().object_store(&file.store)?;
    // The scan read this file's footer a moment ago: the cache has it.
    let cache = context.runtime_env().cache_manager.get_file_metadata_cache();
    let reader: Box<dyn AsyncFileReader> = CachedParquetFileReaderFactory::new(store, cache).create_reader(
        0,
        file.file.clone(),
        None,
        &ExecutionPlanMetricsSet::new(),
    )?;
    let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Optional);
    let builder = ParquetRecordBatchStreamBuilder::new_with_options(reader, options).await?;
    let mut roots = Vec::with_capacity(late.len());
    for (_, source) in late {
        let root = builder.schema().fields().iter().position(|f| f.name() == &source.column);
        roots.push(root.ok_or_else(|| internal_datafusion_err!("{location} has no column {}", source.column))?);
    }
    let file_rows = usize::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0);
    // `wanted` is ascending and distinct; each row is a range of one, which
    // the selection merges with its neighbours.
    let rows: Vec<usize> = wanted.iter().filter_map(|&r| usize::try_from(r).ok()).filter(|&r| r < file_rows).collect();
    if rows.len() != wanted.len() {
        return Err(internal_datafusion_err!("{location}: row numbers beyond its {file_rows} rows"));
    }
    let selection = RowSelection::from_consecutive_ranges(rows.iter().map(|&r| r..r + 1), file_rows);
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots.iter().copied());
    let stream = builder.with_projection(mask).with_row_selection(selection).build()?;
    let read: Vec<RecordBatch> = stream.try_collect().await?;
    let Some(first) = read.first() else { return Err(internal_datafusion_err!("{location} gave no rows")) };
    let read = concat_batches(&first.schema(), &read)?;
    if read.num_rows() != wanted.len() {
        return Err(internal_datafusion_err!("{location} gave {} rows for {}", read.num_rows(), wanted.len()));
    }
    let mut out = Vec::with_capacity(late.len());
    for ((_, source), numbers) in late.iter().zip(numbers) {
        let values = read
            .column_by_name(&source.column)
            .ok_or_else(|| internal_datafusion_err!("{location}: no column {} read", source.column))?;
        let positions: UInt32Array =
            numbers.iter().map(|n| n.and_then(|n| wanted.binary_search(&n).ok()).map(|p| p as u32)).collect();
        out.push(take(values.as_ref(), &positions, None)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use datafusion::arrow::array::{Int64Array, StringArray};
    use datafusion::arrow::datatypes::{Field, Schema};
    use datafusion::parquet::arrow::ArrowWriter;
    use datafusion::parquet::file::properties::WriterProperties;

    use super::*;

    /// A table of an integer key `k`, a text `w` and `v`, `w` in capitals,
    /// written with small row groups and pages so that a fetch crosses both.
    fn write_table(dir: &Path, name: &str, rows: &[(Option<i64>, Option<&str>)]) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, true),
            Field::new("w", DataType::Utf8, true),
            Field::new("v", DataType::Utf8, true),
        ]));
        let k: Int64Array = rows.iter().map(|r| r.0).collect();
        let w: StringArray = rows.iter().map(|r| r.1).collect();
        let v: StringArray = rows.iter().map(|r| r.1.map(str::to_uppercase)).collect();
        let batch = RecordBatch::try_new(Arc::clone(&schema), vec![Arc::new(k), Arc::new(w), Arc::new(v)]).unwrap();
        let props =
            WriterProperties::builder().set_max_row_group_row_count(Some(5)).set_data_page_row_count_limit(2).build();
        let file = std::fs::File::create(dir.join(format!("{name}.parquet"))).unwrap();
        let mut writer = ArrowWriter::try_new(file, schema, Some(props)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
    }

    /// `sql` over the tables in `dir` in batches of 16 rows, with
    /// tracelab's physical rules (`late`) or DataFusion's alone.
    fn run(dir: &Path, tables: &[&str], sql: &str, late: bool) -> (Vec<String>, String) {
        crate::plan_tests::run_over_parquet(dir, tables, sql, late, 16)
    }

    const T: &[(Option<i64>, Option<&str>)] = &[
        (Some(3), Some("c")),
        (Some(1), Some("z")),
        (Some(2), Some("b")),
        (Some(1), Some("a")),
        (Some(2), Some("a")),
        (Some(5), Some("x")),
        (Some(1), Some("m")),
        (Some(2), Some("c")),
        (None, Some("n")),
        (Some(2), None),
        (Some(4), Some("d")),
        (Some(1), Some("q")),
    ];

    /// Worked by hand: sorted by (k, w) the rows start (1,a) (1,m) (1,q)
    /// (1,z) (2,a) (2,b); the 5th smallest k is 2, shared by the rows
    /// (2,b) (2,a) (2,c) (2,NULL) in three row groups, of which the top 5
    /// takes the smallest name, a. The names are read after the candidates
    /// are chosen.
    #[test]
    fn a_top_k_whose_last_key_is_late_breaks_the_ties_across_the_cut_by_it() {
        let dir = tempfile::tempdir().unwrap();
        write_table(dir.path(), "t", T);
        let (rows, plan) = run(dir.path(), &["t"], "SELECT k, w FROM t ORDER BY k, w LIMIT 5", true);
        assert_eq!(rows, ["1|a", "1|m", "1|q", "1|z", "2|a"], "{plan}");
        assert!(plan.contains("FetchLateExec: [w@1 from") && plan.contains("TopCandidatesExec: n=5"), "{plan}");
        // Two late columns of one file, read together.
        let (rows, plan) = run(dir.path(), &["t"], "SELECT k, v, w FROM t ORDER BY k, w LIMIT 5", true);
        assert_eq!(rows, ["1|A|a", "1|M|m", "1|Q|q", "1|Z|z", "2|A|a"], "{plan}");
        assert!(plan.contains("FetchLateExec: [w@1 from") && plan.contains("v@2 from"), "{plan}");
        // A late column no sort key reads is read after the sort, for its 5 rows only.
        let (rows, plan) = run(dir.path(), &["t"], "SELECT v, k, w FROM t ORDER BY k, w LIMIT 5", true);
        assert_eq!(rows, ["A|1|a", "M|1|m", "Q|1|q", "Z|1|z", "A|2|a"], "{plan}");
        let after = plan.find("FetchLateExec: [v@2 from").unwrap_or_else(|| panic!("v is late: {plan}"));
        assert!(after < plan.find("SortExec").unwrap() && plan.contains("FetchLateExec: [w@1 from"), "{plan}");
        // NULLs last: the largest k, descending, is NULL, then 5; NULL names last among 2s.
        let (rows, _) = run(dir.path(), &["t"], "SELECT k, w FROM t ORDER BY k DESC NULLS FIRST, w LIMIT 3", true);
        assert_eq!(rows, ["NULL|n", "5|x", "4|d"]);
        let (rows, _) =
            run(dir.path(), &["t"], "SELECT w, k FROM t WHERE k = 2 ORDER BY k, w NULLS FIRST LIMIT 2", true);
        assert_eq!(rows, ["NULL|2", "a|2"]);
    }

    /// Worked by hand: a left join of t to u (k 1 and 2 only) keeps t's
    /// rows of k 5, 4 and 3 with no label; the late label is NULL there
    /// (no row number) and read from u where it matched.
    #[test]
    fn an_outer_join_gives_the_missing_side_no_value_and_the_matched_side_its_own() {
        let dir = tempfile::tempdir().unwrap();
        write_table(dir.path(), "t", T);
        write_table(dir.path(), "u", &[(Some(1), Some("one")), (Some(2), Some("two")), (Some(7), Some("seven"))]);
        let sql = "SELECT t.k, t.w, u.w AS label FROM t LEFT JOIN u ON t.k = u.k \
                   WHERE t.k IS NOT NULL ORDER BY t.k DESC, t.w LIMIT 6";
        let (rows, plan) = run(dir.path(), &["t", "u"], sql, true);
        assert_eq!(rows, ["5|x|NULL", "4|d|NULL", "3|c|NULL", "2|a|two", "2|b|two", "2|c|two"], "{plan}");
        assert!(plan.contains("FetchLateExec"), "{plan}");
    }

    /// A column a key, a filter or a computed value reads is read as
    /// usual: the plan is DataFusion's.
    #[test]
    fn a_late_candidate_that_is_read_before_the_top_k_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        write_table(dir.path(), "t", T);
        write_table(dir.path(), "u", &[(Some(1), Some("a")), (Some(2), Some("b"))]);
        for sql in [
            "SELECT w FROM t ORDER BY w LIMIT 3",
            "SELECT k, w FROM t WHERE w > 'b' ORDER BY k LIMIT 3",
            "SELECT k, upper(w) AS w FROM t ORDER BY k LIMIT 3",
            "SELECT t.k, t.w FROM t JOIN u ON t.w = u.w ORDER BY t.k LIMIT 3",
            "SELECT k, w FROM t ORDER BY k",
        ] {
            let (rows, plan) = run(dir.path(), &["t", "u"], sql, true);
            assert!(!plan.contains("FetchLateExec"), "{sql}\n{plan}");
            assert_eq!(rows, run(dir.path(), &["t", "u"], sql, false).0, "{sql}");
        }
    }

    /// Random tables with many ties and NULLs, and top-k queries over a
    /// scan, a filter and joins, late text and numbers: the same rows with
    /// the rule as without it, and the rule applied to every one of them.
    #[test]
    fn random_top_ks_give_the_rows_datafusion_gives_without_the_rule() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |bound: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % bound
        };
        let words: Vec<String> =
            (0..40).map(|i| format!("name-{:03}-{}", (i * 7919) % 1000, "x".repeat(i % 13))).collect();
        for round in 0..4 {
            let dir = tempfile::tempdir().unwrap();
            let rows = 20 + next(600) as usize;
            let distinct_keys = 1 + next(if round % 2 == 0 { 4 } else { 400 });
            let t: Vec<(Option<i64>, Option<&str>)> = (0..rows)
                .map(|_| {
                    let k = (next(10) > 0).then(|| next(distinct_keys) as i64);
                    let w = (next(10) > 0).then(|| words[next(words.len() as u64) as usize].as_str());
                    (k, w)
                })
                .collect();
            write_table(dir.path(), "t", &t);
            let u: Vec<(Option<i64>, Option<&str>)> = (0..distinct_keys as i64)
                .step_by(2)
                .map(|k| (Some(k), Some(words[k as usize % 40].as_str())))
                .collect();
            write_table(dir.path(), "u", &u);
            for limit in [1, 7, 40] {
                for sql in [
                    format!("SELECT k, w, v FROM t ORDER BY k, w LIMIT {limit}"),
                    format!("SELECT w, k FROM t ORDER BY k DESC, w DESC LIMIT {limit}"),
                    format!("SELECT k, v, w FROM t ORDER BY w DESC NULLS LAST, k NULLS FIRST LIMIT {limit}"),
                    format!("SELECT k, w FROM t WHERE k % 3 <> 1 ORDER BY k NULLS FIRST, w LIMIT {limit}"),
                    format!("SELECT t.k, t.w, u.w AS v FROM t JOIN u ON t.k = u.k ORDER BY t.k, t.w, u.w LIMIT {limit}"),
                    format!("SELECT u.w AS label, t.k, t.w, t.v FROM t JOIN u ON t.k = u.k ORDER BY t.k DESC, t.w LIMIT {limit}"),
                    format!(
                        "SELECT t.k, u.w AS v, t.w FROM t LEFT JOIN u ON t.k = u.k ORDER BY t.k DESC, t.w, u.w LIMIT {limit}"
                    ),
                ] {
                    let (with, plan) = run(dir.path(), &["t", "u"], &sql, true);
                    let (without, _) = run(dir.path(), &["t", "u"], &sql, false);
                    assert!(plan.contains("FetchLateExec"), "{sql}\n{plan}");
                    assert_eq!(with, without, "round {round}: {sql}\n{plan}");
                }
            }
        }
    }
}
