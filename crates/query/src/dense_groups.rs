//! Groupings on a packed key of few bits: each row's group is found by
//! indexing a table with the key itself instead of hashing it.
//!
//! [`DictionaryGroupKeys`](crate::dictionary_keys) turns a grouping on text
//! columns into one on an integer made of their dictionary codes. When the
//! files' dictionaries are small (a trace's users, virtual clusters,
//! statuses), that integer is below 2^[`DENSE_BITS`], and DataFusion's
//! one-key group table still hashes it and probes for it on every row: 8 %
//! of `top-users-by-gpu-hours` for Helios (3.4 M jobs, 1,190 users). Here a
//! table of one slot per possible key holds the key's group number, so a
//! row costs one load from a table that stays in the core's cache.
//!
//! Everything else is DataFusion's: the aggregates' own group accumulators
//! are created and fed exactly as its aggregate operator feeds them
//! (arguments and `FILTER` evaluated per batch, `update_batch` with the
//! rows' group numbers), and groups are numbered in the order their keys
//! are first met, as its table numbers them. So the results are the same
//! values in the same order, bit for bit (a float sum adds in the same
//! order).
//!
//! Used only where that operator would never need to spill: the
//! aggregates are `count`, `sum`, `avg`, `min` and `max` (not `DISTINCT`,
//! not ordered), over numbers, times or dates, whose state is a few words per
//! group; with at most 2^16 groups, a few MB at most. That state is still
//! reserved in the memory pool, and the query fails with the pool's error
//! if even that does not fit. A grouping whose aggregates hold their rows
//! (quantiles, `array_agg`, `DISTINCT`) keeps DataFusion's operator, which
//! spills.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int64Array};
use datafusion::arrow::datatypes::{DataType, Int64Type, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_datafusion_err, Result};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{EmitTo, GroupsAccumulator};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{Distribution, PhysicalExpr};
use datafusion::physical_expr_common::utils::evaluate_expressions_to_arrays;
use datafusion::physical_plan::aggregates::{aggregate_expressions, AggregateExec, AggregateMode};
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, SendableRecordBatchStream,
};
use futures::StreamExt;

/// The most bits a key may have: a table of 2^16 four-byte slots is
/// 256 KiB, which stays in a core's L2 cache while the rows stream by.
pub(crate) const DENSE_BITS: u32 = 16;

/// The aggregates whose state per group is a few words whatever the rows,
/// given numbers, times or dates (`count` counts whatever it is given).
const FIXED_STATE: [&str; 5] = ["count", "sum", "avg", "min", "max"];

/// `aggregate` (a `Single` grouping on one `Int64` key column whose values
/// are below 2^`bits`) by direct index, if it qualifies (see the module
/// documentation).
pub(crate) fn dense_grouping(aggregate: &AggregateExec, bits: u32) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let group_by = aggregate.group_expr();
    let input_schema = aggregate.input().schema();
    let [(key, key_name)] = group_by.expr() else { return Ok(None) };
    let Some(column) = key.downcast_ref::<Column>() else { return Ok(None) };
    let key_field = input_schema.field(column.index());
    if bits > DENSE_BITS
        || *aggregate.mode() != AggregateMode::Single
        || !group_by.is_single()
        || aggregate.limit_options().is_some()
        || *key_field.data_type() != DataType::Int64
        || key_field.is_nullable()
        || !aggregate.aggr_expr().iter().all(|a| fixed_state(a, &input_schema))
    {
        return Ok(None);
    }
    let arguments = aggregate_expressions(aggregate.aggr_expr(), aggregate.mode(), 1)?;
    Ok(Some(Arc::new(DenseGroupsExec {
        input: Arc::clone(aggregate.input()),
        key: Arc::new(column.clone()),
        key_name: key_name.clone(),
        bits,
        aggregates: aggregate.aggr_expr().to_vec(),
        arguments,
        filters: aggregate.filter_expr().to_vec(),
        schema: aggregate.schema(),
        properties: Arc::clone(aggregate.properties()),
        metrics: ExecutionPlanMetricsSet::new(),
    })))
}

/// Whether `aggregate`'s state per group stays a few words (an argument
/// whose type cannot be worked out does not qualify).
fn fixed_state(aggregate: &AggregateFunctionExpr, schema: &SchemaRef) -> bool {
    let name = aggregate.fun().name();
    FIXED_STATE.contains(&name)
        && !aggregate.is_distinct()
        && aggregate.order_bys().is_empty()
        && aggregate.groups_accumulator_supported()
        && (name == "count"
            || aggregate.expressions().iter().all(|a| a.data_type(schema).is_ok_and(|t| t.is_primitive())))
}

/// The grouping (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct DenseGroupsExec {
    input: Arc<dyn ExecutionPlan>,
    key: Arc<Column>,
    key_name: String,
    bits: u32,
    aggregates: Vec<Arc<AggregateFunctionExpr>>,
    /// Per aggregate: its arguments, as DataFusion's operator evaluates them.
    arguments: Vec<Vec<Arc<dyn PhysicalExpr>>>,
    filters: Vec<Option<Arc<dyn PhysicalExpr>>>,
    /// The replaced operator's schema and properties: the output is the same.
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl DenseGroupsExec {
    /// The aggregates it computes (for tests that look into a plan).
    #[cfg(test)]
    pub(crate) fn aggregates(&self) -> &[Arc<AggregateFunctionExpr>] {
        &self.aggregates
    }
}

impl DisplayAs for DenseGroupsExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let aggregates: Vec<&str> = self.aggregates.iter().map(|a| a.name()).collect();
        write!(
            f,
            "DenseGroupsExec: gby=[{} as {}], bits={}, aggr=[{}]",
            self.key,
            self.key_name,
            self.bits,
            aggregates.join(", ")
        )
    }
}

impl ExecutionPlan for DenseGroupsExec {
    fn name(&self) -> &str {
        "DenseGroupsExec"
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

    /// As a `Single` aggregate: all its input in one partition.
    fn required_input_distribution(&self) -> Vec<Distribution> {
        vec![Distribution::SinglePartition]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![false]
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        if children.len() != 1 {
            return Err(internal_datafusion_err!("DenseGroupsExec has one input, given {}", children.len()));
        }
        let input = children.swap_remove(0);
        Ok(Arc::new(DenseGroupsExec { input, metrics: ExecutionPlanMetricsSet::new(), ..self.as_ref().clone() }))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let mut input = self.input.execute(partition, Arc::clone(&context))?;
        let reservation = MemoryConsumer::new(format!("DenseGroupsExec[{partition}]")).register(context.memory_pool());
        let mut table = DenseTable::new(self, reservation)?;
        let baseline = BaselineMetrics::new(&self.metrics, partition);
        let batch_size = context.session_config().batch_size().max(1);
        let output = futures::stream::once(async move {
            while let Some(batch) = input.next().await {
                let batch = batch?;
                let _timer = baseline.elapsed_compute().timer();
                table.add(&batch)?;
            }
            let _timer = baseline.elapsed_compute().timer();
            let out = table.emit()?;
            baseline.record_output(out.as_ref().map_or(0, RecordBatch::num_rows));
            Ok::<_, datafusion::error::DataFusionError>(slices(out, batch_size))
        })
        .map(|slices| match slices {
            Ok(slices) => futures::stream::iter(slices.into_iter().map(Ok)).left_stream(),
            Err(e) => futures::stream::once(async { Err(e) }).right_stream(),
        })
        .flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(Arc::clone(&self.schema), output)))
    }
}

/// `batch` cut into batches of at most `size` rows, as DataFusion's
/// operator hands its groups on.
fn slices(batch: Option<RecordBatch>, size: usize) -> Vec<RecordBatch> {
    let Some(batch) = batch else { return Vec::new() };
    (0..batch.num_rows()).step_by(size).map(|at| batch.slice(at, size.min(batch.num_rows() - at))).collect()
}

/// The groups met so far and their aggregates' state.
struct DenseTable {
    key: Arc<Column>,
    /// Per possible key: its group number plus one, 0 if not met yet.
    slots: Vec<u32>,
    /// Per group, in the order first met: its key.
    keys: Vec<i64>,
    /// The current batch's rows' group numbers.
    rows: Vec<usize>,
    accumulators: Vec<Box<dyn GroupsAccumulator>>,
    arguments: Vec<Vec<Arc<dyn PhysicalExpr>>>,
    filters: Vec<Option<Arc<dyn PhysicalExpr>>>,
    schema: SchemaRef,
    reservation: MemoryReservation,
}

impl DenseTable {
    fn new(exec: &DenseGroupsExec, reservation: MemoryReservation) -> Result<DenseTable> {
        let accumulators = exec.aggregates.iter().map(|a| a.create_groups_accumulator()).collect::<Result<_>>()?;
        let mut table = DenseTable {
            key: Arc::clone(&exec.key),
            slots: vec![0; 1 << exec.bits],
            keys: Vec::new(),
            rows: Vec::new(),
            accumulators,
            arguments: exec.arguments.clone(),
            filters: exec.filters.clone(),
            schema: Arc::clone(&exec.schema),
            reservation,
        };
        table.reserve()?;
        Ok(table)
    }

    /// Adds `batch`'s rows to their groups.
    fn add(&mut self, batch: &RecordBatch) -> Result<()> {
        let keys = self.key.evaluate(batch)?.into_array(batch.num_rows())?;
        self.number_rows(keys.as_primitive::<Int64Type>())?;
        let groups = self.keys.len();
        for ((accumulator, arguments), filter) in self.accumulators.iter_mut().zip(&self.arguments).zip(&self.filters) {
            let values = evaluate_expressions_to_arrays(arguments, batch)?;
            let filter = filter.as_ref().map(|f| f.evaluate(batch)?.into_array(batch.num_rows())).transpose()?;
            accumulator.update_batch(&values, &self.rows, filter.as_ref().map(AsArray::as_boolean), groups)?;
        }
        self.reserve()
    }

    /// Sets `rows` to the group number of each key, numbering new keys in
    /// the order they come.
    fn number_rows(&mut self, keys: &Int64Array) -> Result<()> {
        if keys.null_count() > 0 {
            return Err(internal_datafusion_err!("a packed group key is NULL"));
        }
        // Borrowed apart, so that the loop keeps them in registers.
        let DenseTable { slots, keys: met, rows, .. } = self;
        rows.clear();
        rows.resize(keys.len(), 0);
        for (row, &key) in rows.iter_mut().zip(keys.values()) {
            let Some(slot) = usize::try_from(key).ok().and_then(|s| slots.get_mut(s)) else {
                return Err(internal_datafusion_err!("packed group key {key} is outside its bits"));
            };
            if *slot == 0 {
                met.push(key);
                // At most 2^16 keys: the count fits.
                *slot = met.len() as u32;
            }
            *row = *slot as usize - 1;
        }
        Ok(())
    }

    /// Holds the table's memory in the pool.
    fn reserve(&mut self) -> Result<()> {
        let state: usize = self.accumulators.iter().map(|a| a.size()).sum();
        let table = self.slots.capacity() * 4 + self.keys.capacity() * 8 + self.rows.capacity() * 8;
        self.reservation.try_resize(state + table)
    }

    /// The groups' keys and aggregates, none if no row came.
    fn emit(&mut self) -> Result<Option<RecordBatch>> {
        if self.keys.is_empty() {
            return Ok(None);
        }
        let mut columns: Vec<ArrayRef> = vec![Arc::new(Int64Array::from(std::mem::take(&mut self.keys)))];
        for accumulator in &mut self.accumulators {
            columns.push(accumulator.evaluate(EmitTo::All)?);
        }
        self.slots = Vec::new();
        let batch = RecordBatch::try_new(Arc::clone(&self.schema), columns)?;
        self.reservation.free();
        Ok(Some(batch))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use datafusion::arrow::array::{Float64Array, StringArray, TimestampMicrosecondArray};
    use datafusion::arrow::datatypes::{Field, Schema, TimeUnit};
    use datafusion::datasource::memory::MemorySourceConfig;
    use datafusion::execution::memory_pool::GreedyMemoryPool;
    use datafusion::execution::runtime_env::RuntimeEnvBuilder;
    use datafusion::functions_aggregate::count::count_udaf;
    use datafusion::functions_aggregate::sum::sum_udaf;
    use datafusion::parquet::arrow::ArrowWriter;
    use datafusion::parquet::file::properties::WriterProperties;
    use datafusion::physical_expr::aggregate::AggregateExprBuilder;
    use datafusion::physical_plan::aggregates::PhysicalGroupBy;
    use datafusion::physical_plan::collect;
    use datafusion::prelude::SessionConfig;

    use super::*;

    /// `COUNT(x)` and `SUM(x)` grouped on `k` (an `Int64` that is never
    /// NULL) over `batches`, as DataFusion's aggregate operator.
    fn count_and_sum(batches: Vec<RecordBatch>, nullable_key: bool) -> AggregateExec {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, nullable_key),
            Field::new("x", DataType::Int64, true),
        ]));
        let source = MemorySourceConfig::try_new_exec(&[batches], Arc::clone(&schema), None).unwrap();
        let x: Arc<dyn PhysicalExpr> = Arc::new(Column::new("x", 1));
        let aggregate = |f, name: &str| {
            let built = AggregateExprBuilder::new(f, vec![Arc::clone(&x)]).schema(Arc::clone(&schema)).alias(name);
            Arc::new(built.build().unwrap())
        };
        AggregateExec::try_new(
            AggregateMode::Single,
            PhysicalGroupBy::new_single(vec![(Arc::new(Column::new("k", 0)), "k".into())]),
            vec![aggregate(count_udaf(), "n"), aggregate(sum_udaf(), "s")],
            vec![None, None],
            source,
            schema,
        )
        .unwrap()
    }

    fn keys_and_values(k: &[i64], x: &[Option<i64>]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("x", DataType::Int64, true),
        ]));
        let columns: Vec<ArrayRef> =
            vec![Arc::new(Int64Array::from(k.to_vec())), Arc::new(Int64Array::from(x.to_vec()))];
        RecordBatch::try_new(schema, columns).unwrap()
    }

    /// Runs `plan` in batches of `batch_size` with a memory pool of
    /// `pool` bytes: each output batch's rows as their cells joined by `|`.
    fn run(plan: Arc<dyn ExecutionPlan>, batch_size: usize, pool: usize) -> Result<Vec<Vec<String>>> {
        let runtime = RuntimeEnvBuilder::new().with_memory_pool(Arc::new(GreedyMemoryPool::new(pool))).build_arc()?;
        let context = TaskContext::default()
            .with_session_config(SessionConfig::new().with_batch_size(batch_size))
            .with_runtime(runtime);
        let executor = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let batches = executor.block_on(collect(plan, Arc::new(context)))?;
        Ok(batches.iter().map(crate::plan_tests::rows_as_text).collect())
    }

    /// Worked by hand: keys 2, 0, 2 | 3, 0, 2 with x = 1, NULL, 3 | 4, 5,
    /// 6. Key 2 has x 1, 3, 6 (3 values, 10), key 0 NULL and 5 (1, 5),
    /// key 3 has 4 (1, 4); the groups come in the order their keys are
    /// first met, in batches of two.
    #[test]
    fn groups_worked_by_hand() {
        let batches = vec![
            keys_and_values(&[2, 0, 2], &[Some(1), None, Some(3)]),
            keys_and_values(&[3, 0, 2], &[Some(4), Some(5), Some(6)]),
        ];
        let dense = dense_grouping(&count_and_sum(batches, false), 2).unwrap().expect("qualifies");
        assert!(displayable_line(&dense).starts_with("DenseGroupsExec: gby=[k@0 as k], bits=2, aggr=[n, s]"));
        let rows = run(dense, 2, 1 << 20).unwrap();
        assert_eq!(rows, [vec!["2|3|10", "0|1|5"], vec!["3|1|4"]]);
    }

    fn displayable_line(plan: &Arc<dyn ExecutionPlan>) -> String {
        datafusion::physical_plan::displayable(plan.as_ref()).one_line().to_string()
    }

    /// No rows, no groups: nothing comes out, as from DataFusion's
    /// operator.
    #[test]
    fn no_rows_no_groups() {
        let dense = dense_grouping(&count_and_sum(vec![keys_and_values(&[], &[])], false), 3).unwrap().unwrap();
        assert_eq!(run(dense, 8, 1 << 20).unwrap(), Vec::<Vec<String>>::new());
    }

    /// A key beyond the bits it was said to have stops the query with an
    /// error naming it, instead of landing in another key's group.
    #[test]
    fn a_key_outside_its_bits_is_an_error() {
        let batches = vec![keys_and_values(&[1, 4], &[Some(1), Some(2)])];
        let dense = dense_grouping(&count_and_sum(batches, false), 2).unwrap().unwrap();
        let e = run(dense, 8, 1 << 20).unwrap_err().to_string();
        assert!(e.contains("packed group key 4 is outside its bits"), "{e}");
    }

    /// The table is held in the memory pool: 2^16 slots of four bytes do
    /// not fit in 64 KiB, and the query fails with the pool's error.
    #[test]
    fn the_table_is_held_in_the_memory_pool() {
        let batches = vec![keys_and_values(&[1], &[Some(1)])];
        let dense = dense_grouping(&count_and_sum(batches.clone(), false), 16).unwrap().unwrap();
        let e = run(dense, 8, 64 << 10).unwrap_err().to_string();
        assert!(e.contains("Resources exhausted"), "{e}");
        let dense = dense_grouping(&count_and_sum(batches, false), 16).unwrap().unwrap();
        assert_eq!(run(dense, 8, 1 << 20).unwrap(), [vec!["1|1|1"]]);
    }

    /// Left to DataFusion: a key of more bits, a key that may be NULL.
    #[test]
    fn wider_or_nullable_keys_are_left_alone() {
        let batches = || vec![keys_and_values(&[1], &[Some(1)])];
        assert!(dense_grouping(&count_and_sum(batches(), false), DENSE_BITS + 1).unwrap().is_none());
        assert!(dense_grouping(&count_and_sum(batches(), true), 2).unwrap().is_none());
    }

    /// Writes `batch` to `dir/t.parquet` in row groups of 37 rows, every
    /// column dictionary-encoded.
    fn write(dir: &Path, batch: &RecordBatch) {
        let props = WriterProperties::builder().set_max_row_group_row_count(Some(37)).build();
        let file = std::fs::File::create(dir.join("t.parquet")).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
    }

    /// Text `a` (six values: NULL, empty, long), `e` (three), `u` (50, so
    /// that the groups fill several output batches); a double `b` (NaN,
    /// -0, NULL, 1e300, tenths, whose sums depend on their order); an
    /// integer `x` with NULLs; a timestamp `ts`.
    fn table(rows: usize, seed: u64) -> RecordBatch {
        let texts = [Some("a"), Some("b"), Some(""), None, Some("a string longer than twelve bytes"), Some("c")];
        let doubles = [Some(0.1), Some(-0.0), Some(0.7), Some(f64::NAN), None, Some(1e300), Some(-2.3)];
        let users: Vec<String> = (0..50).map(|i| format!("user{i:02}")).collect();
        let mut next = crate::plan_tests::draws(seed);
        let mut a = Vec::new();
        let mut e = Vec::new();
        let mut u = Vec::new();
        let mut b = Vec::new();
        let mut x = Vec::new();
        let mut ts = Vec::new();
        for _ in 0..rows {
            a.push(texts[next(texts.len())]);
            e.push([Some("p"), Some("q"), None][next(3)]);
            u.push(Some(users[next(users.len())].as_str()));
            b.push(doubles[next(doubles.len())]);
            x.push([Some(-5i64), Some(7), Some(1 << 40), None][next(4)]);
            ts.push([Some(0i64), Some(1_600_000_000_000_000), None][next(3)]);
        }
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Utf8, true),
            Field::new("e", DataType::Utf8, true),
            Field::new("u", DataType::Utf8, true),
            Field::new("b", DataType::Float64, true),
            Field::new("x", DataType::Int64, true),
            Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())), true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(a)),
            Arc::new(StringArray::from(e)),
            Arc::new(StringArray::from(u)),
            Arc::new(Float64Array::from(b)),
            Arc::new(Int64Array::from(x)),
            Arc::new(TimestampMicrosecondArray::from(ts).with_timezone("UTC")),
        ];
        RecordBatch::try_new(schema, columns).unwrap()
    }

    /// Random tables, groupings on text keys with the aggregates this
    /// takes and those it leaves: the same rows in the same order as
    /// DataFusion's own plan (no query here gives an order but the last,
    /// so the groups' order is compared too), bit for bit in the float
    /// sums; and the grouping taken exactly where the module says.
    #[test]
    fn the_same_rows_in_the_same_order_as_datafusions_plan() {
        let queries = [
            ("SELECT a, COUNT(*), SUM(x), SUM(b), AVG(b), MIN(b), MAX(b), COUNT(b), AVG(x) FROM t GROUP BY a", true),
            ("SELECT u, COUNT(*), SUM(b) FROM t GROUP BY u", true),
            ("SELECT e, a, COUNT(*) AS n, MIN(ts), MAX(ts) FROM t GROUP BY a, e", true),
            // The codes take as many bits as the row groups' dictionaries
            // hold values together: 14 row groups of 37 rows, each with
            // a's five values, e's two and about 27 of u's 50, so 7 + 5 +
            // 9 or more bits, over 16.
            ("SELECT e, a, u, COUNT(*) AS n FROM t GROUP BY a, e, u", false),
            ("SELECT a, SUM(b) FILTER (WHERE x > 0), COUNT(*) FILTER (WHERE b < 0.5) FROM t GROUP BY a", true),
            ("SELECT e, SUM(x) FROM t WHERE b IS NOT NULL GROUP BY e", true),
            // count counts text too; min of text keeps its values.
            ("SELECT a, COUNT(u) FROM t GROUP BY a", true),
            ("SELECT a, MIN(e) FROM t GROUP BY a", false),
            ("SELECT a, median(b) FROM t GROUP BY a", false),
            ("SELECT a, array_agg(x) FROM t GROUP BY a", false),
            ("SELECT a, COUNT(DISTINCT x) FROM t GROUP BY a", false),
            ("SELECT a, x, COUNT(*) FROM t GROUP BY a, x", false),
            ("SELECT u, SUM(x) AS s FROM t GROUP BY u ORDER BY s DESC, u LIMIT 5", true),
        ];
        for seed in [1, 2, 3] {
            let dir = tempfile::tempdir().unwrap();
            write(dir.path(), &table(500, seed));
            for (sql, dense) in queries {
                let (expected, _) = crate::plan_tests::run_over_parquet(dir.path(), &["t"], sql, false, 7);
                let (got, plan) = crate::plan_tests::run_over_parquet(dir.path(), &["t"], sql, true, 7);
                assert_eq!(got, expected, "{sql}\n{plan}");
                assert_eq!(plan.contains("DenseGroupsExec"), dense, "{sql}\n{plan}");
            }
        }
    }
}
