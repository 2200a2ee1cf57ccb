//! Groupings on text columns the Parquet file stores as dictionaries: the
//! grouping runs on one integer made of the dictionaries' codes and the
//! other keys' bits, and the keys are put back after it.
//!
//! DataFusion 55 reads every text column as string views and picks its
//! group table inside the aggregate operator: for several keys, a
//! column-wise table that hashes each key of each row and compares it with
//! its group's, about 3 ns per row and key, a double's as much as a text's.
//! In `outcomes-by-gpus`, which counts 6.1 M jobs per trace, GPUs requested
//! and status, that table was 45 % of the CPU time. Yet the store's
//! low-cardinality text columns (trace, cluster, user, status, ...) are
//! dictionary-encoded in its files: each row is already a small code.
//! [`DictionaryGroupKeys`] rewrites such a grouping when it sits on a scan
//! (directly, or through a filter, a projection or both):
//!
//! ```text
//! AggregateExec gby=[a, b, c]        ProjectionExec [unpack(k, 0) AS a, ..., aggregates]
//!   [ProjectionExec]            =>     AggregateExec gby=[k]
//!     [FilterExec]                       ProjectionExec [the input's columns, pack(a, b, c) AS k]
//!       DataSourceExec (a, c text)         [ProjectionExec]
//!                                            [FilterExec]
//!                                              DataSourceExec (a, c as dictionaries)
//! ```
//!
//! The scan reads the text keys as Arrow dictionaries (the Parquet reader
//! hands over the page's codes and its dictionary instead of a view per
//! row), and DataFusion groups on one integer key with its one-key table.
//! The packed key holds each key's bits at a place of its own:
//!
//! - a text key as a code numbered in the order its values are first met in
//!   the file's dictionaries, 0 for NULL, in as many bits as the values the
//!   dictionary pages of the file's row groups hold together need (at most
//!   30; see [`CodeWidths`] for when that count is not a bound). A
//!   dictionary is mapped to codes once, when it is first seen: the reader
//!   shares one dictionary across the batches of a row group;
//! - a number (double, 64- or 32-bit integer, timestamp, date) as its bits
//!   beside a NULL flag, a double after the one change DataFusion's own
//!   table makes (-0 becomes 0, so both are one group shown as 0; NaNs of
//!   different bits stay different groups).
//!
//! Two rows have the same packed key exactly when every key is equal as
//! DataFusion's table compares them, so the groups are the same; where the
//! query gives no order they may come out in another order, as they may
//! from one DataFusion version to the next.
//!
//! Rewritten only: a grouping of one partition (`Single`), without grouping
//! sets, a limit or an ordered input, whose keys fit in 126 bits (an `Int64`
//! key up to 63), with at least one text key, every text key a column of
//! one Parquet file that has a dictionary in every row group (a column
//! written plain would make the reader build a dictionary per batch), and
//! read by nothing else: no aggregate argument or filter, no other key, no
//! computed column of the projection, neither the filter nor the scan's
//! own predicate reads it, so only the keys see the dictionary type. The
//! codes of a text key live as long as the plan: as many as its distinct
//! values in the file, which a group table holds too.

use std::fmt;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{
    make_array, Array, ArrayRef, AsArray, Decimal128Array, Float64Array, Int32Array, Int64Array, LargeStringArray,
    StringArray, StringViewArray,
};
use datafusion::arrow::buffer::{NullBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{
    DataType, Decimal128Type, FieldRef, Fields, Float64Type, Int32Type, Int64Type, Schema,
};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::config::ConfigOptions;
use datafusion::common::stats::ColumnStatistics;
use datafusion::common::{exec_err, internal_datafusion_err, DataFusionError, HashMap, HashSet, Result};
use datafusion::datasource::physical_plan::FileSource;
use datafusion::logical_expr::ColumnarValue;
use datafusion::parquet::column::page::{Page, PageReader};
use datafusion::parquet::file::metadata::ParquetMetaData;
use datafusion::parquet::file::serialized_reader::SerializedPageReader;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::projection::ProjectionExpr;
use datafusion::physical_expr::utils::collect_columns;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode, PhysicalGroupBy};
use datafusion::physical_plan::execution_plan::ChildrenPropertiesMode;
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::{ExecutionPlan, InputOrderMode, ReplaceChildrenOptions};

use crate::dense_groups::dense_grouping;
use crate::file_scan::FileScan;
use crate::plan_rewrite::rewrite_nodes;

/// The physical optimizer rule (see the module documentation).
#[derive(Debug)]
pub(crate) struct DictionaryGroupKeys {
    pub(crate) widths: CodeWidths,
}

/// How many bits a text key's codes take in the packed key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CodeWidths {
    /// As many as the file's dictionaries have values, counted from the
    /// dictionary page of each row group. That bounds the codes only if no
    /// page of the column fell back to plain encoding, which the footer
    /// does not tell; a query whose codes outgrow it fails with
    /// [`CodesOverflow`] and is run again with [`CodeWidths::Widest`]
    /// ([`fitted_then_widest`]).
    Fitted,
    /// [`TEXT_BITS`] each.
    Widest,
}

impl PhysicalOptimizerRule for DictionaryGroupKeys {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        rewrite_nodes(plan, |node| match node.downcast_ref::<AggregateExec>() {
            Some(aggregate) => rewrite(aggregate, self.widths),
            None => Ok(None),
        })
    }

    fn name(&self) -> &str {
        "DictionaryGroupKeys"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// The name of the packed key in the plan.
const PACKED: &str = "__dictionary_group_key";

/// The type a dictionary-read text column gets: the reader's codes are
/// 32-bit, its values plain strings.
fn dictionary_type() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

/// `aggregate` grouping on its packed keys over a scan that reads its text
/// keys as dictionaries, if it qualifies.
fn rewrite(aggregate: &AggregateExec, widths: CodeWidths) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let group_by = aggregate.group_expr();
    if *aggregate.mode() != AggregateMode::Single
        || !group_by.is_single()
        || group_by.expr().is_empty()
        || aggregate.limit_options().is_some()
        || *aggregate.input_order_mode() != InputOrderMode::Linear
    {
        return Ok(None);
    }
    let Some(path) = Path::of(aggregate.input()) else { return Ok(None) };
    let input_schema = aggregate.input().schema();
    // The keys' kinds, and whether they could fit with a text key's codes
    // in one bit.
    let Some(kinds) = Layout::of(group_by.expr(), &input_schema, |_| 1)? else { return Ok(None) };
    let Some(text) = text_key_columns(aggregate, &kinds, &path)? else { return Ok(None) };
    // A footer that cannot be read here only keeps the plan as it was: the
    // scan then reports the file's trouble in its own words.
    let Ok(metadata) = path.scan.footer() else { return Ok(None) };
    if !path.all_dictionary_encoded(&metadata, &text) {
        return Ok(None);
    }
    let bits = match widths {
        CodeWidths::Fitted => path.fitted_bits(aggregate, &kinds, &metadata),
        CodeWidths::Widest => vec![TEXT_BITS; kinds.parts.len()],
    };
    let Some(layout) = Layout::of(group_by.expr(), &input_schema, |k| bits[k])? else { return Ok(None) };
    let input = path.with_dictionaries(&text)?;
    Ok(Some(packed_grouping(aggregate, input, Arc::new(layout))?))
}

/// Runs `query` with text codes fitted to the files' dictionaries, and
/// again with the widest codes if they outgrew them (see
/// [`CodeWidths::Fitted`]); the first run's rows are dropped, so nothing
/// of it is seen.
pub(crate) async fn fitted_then_widest<T, F: std::future::Future<Output = Result<T>>>(
    query: impl Fn(CodeWidths) -> F,
) -> Result<T> {
    match query(CodeWidths::Fitted).await {
        Err(e) if outgrown(&e) => query(CodeWidths::Widest).await,
        done => done,
    }
}

/// A text key met more values than its file's dictionaries hold.
#[derive(Debug)]
pub(crate) struct CodesOverflow;

impl fmt::Display for CodesOverflow {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a text key has more values than its file's dictionaries")
    }
}

impl std::error::Error for CodesOverflow {}

/// Whether `e` is, or wraps, [`CodesOverflow`].
fn outgrown(e: &DataFusionError) -> bool {
    match e.find_root() {
        DataFusionError::External(inner) => inner.downcast_ref::<CodesOverflow>().is_some(),
        _ => false,
    }
}

/// The operators from the aggregate down to the scan, as this rule takes
/// them apart: at most a projection, then at most a filter, then the scan.
struct Path<'a> {
    projection: Option<(&'a Arc<dyn ExecutionPlan>, &'a ProjectionExec)>,
    filter: Option<(&'a Arc<dyn ExecutionPlan>, &'a FilterExec)>,
    scan: FileScan<'a>,
}

impl<'a> Path<'a> {
    /// A Parquet scan of one local file whose output is file columns,
    /// under `input`, a projection, a filter or both.
    fn of(input: &'a Arc<dyn ExecutionPlan>) -> Option<Path<'a>> {
        let (projection, below) = match input.downcast_ref::<ProjectionExec>() {
            Some(p) => (Some((input, p)), p.input()),
            None => (None, input),
        };
        let (filter, below) = match below.downcast_ref::<FilterExec>() {
            Some(f) => (Some((below, f)), f.input()),
            None => (None, below),
        };
        Some(Path { projection, filter, scan: FileScan::of(below)? })
    }

    /// The scan's output column under the aggregate's input column `i`, if
    /// it is passed up as it is.
    fn scan_column(&self, i: usize) -> Option<usize> {
        let c = match self.projection {
            Some((_, p)) => p.expr().get(i)?.expr.downcast_ref::<Column>()?.index(),
            None => i,
        };
        self.below_projection(c)
    }

    /// Whether an operator on the way reads any of the scan's output
    /// columns `columns` other than by passing it up as it is: the
    /// projection's computed columns, the filter's predicate, the scan's
    /// own predicate.
    fn reads(&self, columns: &HashSet<usize>) -> bool {
        let reads = |e: &Arc<dyn PhysicalExpr>, columns: &HashSet<usize>| {
            collect_columns(e).iter().any(|c| columns.contains(&c.index()))
        };
        // The projection's columns are the filter's output.
        let computed = self.projection.is_some_and(|(_, p)| {
            p.expr().iter().filter(|e| e.expr.downcast_ref::<Column>().is_none()).any(|e| {
                collect_columns(&e.expr)
                    .iter()
                    .filter_map(|c| self.below_projection(c.index()))
                    .any(|c| columns.contains(&c))
            })
        });
        let filtered = self.filter.is_some_and(|(_, f)| reads(f.predicate(), columns));
        let in_file: HashSet<usize> = columns.iter().map(|&c| self.scan.file_columns[c]).collect();
        let pruned = self.scan.source.filter().is_some_and(|p| reads(&p, &in_file));
        computed || filtered || pruned
    }

    /// The scan's output column under the projection's input column `c`.
    fn below_projection(&self, c: usize) -> Option<usize> {
        match self.filter.and_then(|(_, f)| f.projection().as_ref()) {
            Some(projection) => projection.get(c).copied(),
            None => Some(c),
        }
    }

    /// Whether every row group of the file has a dictionary for each of
    /// the scan's output columns `columns`, by the file's footer.
    fn all_dictionary_encoded(&self, metadata: &ParquetMetaData, columns: &[usize]) -> bool {
        let descriptor = metadata.file_metadata().schema_descr();
        columns.iter().all(|&c| {
            self.scan.leaf(descriptor, c).is_some_and(|leaf| {
                metadata.row_groups().iter().all(|g| g.column(leaf).dictionary_page_offset().is_some())
            })
        })
    }

    /// Per key of `aggregate`: the bits its codes take if it is text
    /// ([`CodeWidths::Fitted`]), the widest where the dictionaries cannot
    /// be counted: a page this cannot read (say, of a codec not built in)
    /// leaves the scan to report it in its own words.
    fn fitted_bits(&self, aggregate: &AggregateExec, layout: &Layout, metadata: &ParquetMetaData) -> Vec<u32> {
        let file = self.scan.open().map(Arc::new);
        let mut bits = Vec::new();
        for ((key, _), (kind, _, _)) in aggregate.group_expr().expr().iter().zip(&layout.parts) {
            let column = key.downcast_ref::<Column>().filter(|_| *kind == Kind::Text);
            let column = column.and_then(|c| self.scan_column(c.index()));
            let values = match (column, &file) {
                (Some(c), Ok(file)) => self.dictionary_values(metadata, file, c).unwrap_or(None),
                _ => None,
            };
            bits.push(values.map_or(TEXT_BITS, bits_for));
        }
        bits
    }

    /// How many values the dictionaries of the scan's output column `c`
    /// hold over the file's row groups, from each dictionary page's header
    /// (read and decompressed here: a few KB each); `None` if a column
    /// chunk does not start with one.
    fn dictionary_values(&self, metadata: &ParquetMetaData, file: &Arc<File>, c: usize) -> Result<Option<u64>> {
        let Some(leaf) = self.scan.leaf(metadata.file_metadata().schema_descr(), c) else { return Ok(None) };
        let mut total = 0;
        for group in metadata.row_groups() {
            let rows = usize::try_from(group.num_rows()).unwrap_or(0);
            let mut pages = SerializedPageReader::new(Arc::clone(file), group.column(leaf), rows, None)?;
            match pages.get_next_page()? {
                Some(Page::DictionaryPage { num_values, .. }) => total += u64::from(num_values),
                _ => return Ok(None),
            }
        }
        Ok(Some(total))
    }

    /// The input again, its scan reading the scan's output columns
    /// `columns` as dictionaries.
    fn with_dictionaries(&self, columns: &[usize]) -> Result<Arc<dyn ExecutionPlan>> {
        let scan = &self.scan;
        let file_schema = scan.config.file_schema();
        let as_dictionary: HashSet<usize> = columns.iter().map(|&c| scan.file_columns[c]).collect();
        let fields: Fields = file_schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| match as_dictionary.contains(&i) {
                true => Arc::new(f.as_ref().clone().with_data_type(dictionary_type())),
                false => Arc::clone(f),
            })
            .collect();
        let schema = Arc::new(Schema::new_with_metadata(fields, file_schema.metadata().clone()));
        // The file's own schema, as the reader is to produce it.
        let file = scan.file.clone().with_arrow_schema(Arc::clone(&schema));
        // Statistics in the views' type would not fit the new type.
        let mut statistics = scan.config.statistics();
        for &i in &as_dictionary {
            statistics.column_statistics[i] = ColumnStatistics::new_unknown();
        }
        let outputs: Vec<usize> = (0..scan.file_columns.len()).collect();
        let mut plan = scan.rebuilt(schema, &outputs, file, statistics, scan.source.filter())?;
        debug_assert_eq!(plan.schema().fields().len(), scan.scan.schema().fields().len());
        // The filter and the projection as they were, over the new scan,
        // their output types worked out again (a projection's
        // `replace_children` would keep its old schema).
        if let Some((node, _)) = self.filter {
            let recompute = ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute);
            plan = Arc::clone(node).replace_children(vec![plan], recompute)?;
        }
        if let Some((_, projection)) = self.projection {
            plan = Arc::new(ProjectionExec::try_new(projection.expr().to_vec(), plan)?);
        }
        Ok(plan)
    }
}

/// The scan's output columns of the text keys, if every text key is a
/// column passed up from the scan that nothing but keys reads.
fn text_key_columns(aggregate: &AggregateExec, layout: &Layout, path: &Path) -> Result<Option<Vec<usize>>> {
    // The aggregate's input columns that carry a text key.
    let mut keys = HashSet::new();
    let mut scan_columns = HashSet::new();
    for ((key, _), (kind, _, _)) in aggregate.group_expr().expr().iter().zip(&layout.parts) {
        if *kind != Kind::Text {
            continue;
        }
        let Some(column) = key.downcast_ref::<Column>() else { return Ok(None) };
        let Some(scan_column) = path.scan_column(column.index()) else { return Ok(None) };
        keys.insert(column.index());
        scan_columns.insert(scan_column);
    }
    // In the aggregate, nothing else reads them: no aggregate, no filter,
    // no other key...
    let mut readers: Vec<Arc<dyn PhysicalExpr>> = Vec::new();
    for function in aggregate.aggr_expr() {
        readers.extend(function.expressions());
        readers.extend(function.order_bys().iter().map(|s| Arc::clone(&s.expr)));
    }
    readers.extend(aggregate.filter_expr().iter().flatten().cloned());
    for (key, _) in aggregate.group_expr().expr() {
        if key.downcast_ref::<Column>().is_none_or(|c| !keys.contains(&c.index())) {
            readers.push(Arc::clone(key));
        }
    }
    if readers.iter().any(|e| collect_columns(e).iter().any(|c| keys.contains(&c.index()))) {
        return Ok(None);
    }
    // ... nor does anything on the way down, and they reach the aggregate
    // only as its keys: another column passed up from one of them would
    // change type under an aggregate that does not expect it.
    let input_width = aggregate.input().schema().fields().len();
    let elsewhere =
        (0..input_width).any(|i| !keys.contains(&i) && path.scan_column(i).is_some_and(|c| scan_columns.contains(&c)));
    if elsewhere || path.reads(&scan_columns) {
        return Ok(None);
    }
    Ok(Some(scan_columns.into_iter().collect()))
}

/// The aggregate over `input` (its text keys now dictionaries) grouping on
/// the packed key, the keys unpacked above it under their names.
fn packed_grouping(
    aggregate: &AggregateExec,
    input: Arc<dyn ExecutionPlan>,
    layout: Arc<Layout>,
) -> Result<Arc<dyn ExecutionPlan>> {
    // Below: the input's columns as they are (the aggregates' arguments and
    // filters read them at the same places), and the packed key after them.
    let input_schema = input.schema();
    let mut below: Vec<ProjectionExpr> = input_schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| ProjectionExpr { expr: Arc::new(Column::new(f.name(), i)), alias: f.name().clone() })
        .collect();
    let keys = aggregate.group_expr().expr().iter().map(|(e, _)| Arc::clone(e)).collect();
    below.push(ProjectionExpr { expr: Arc::new(PackKeys { keys, layout: Arc::clone(&layout) }), alias: PACKED.into() });
    let below = Arc::new(ProjectionExec::try_new(below, input)?);
    let key = Arc::new(Column::new(PACKED, input_schema.fields().len()));
    let packed = AggregateExec::try_new(
        AggregateMode::Single,
        PhysicalGroupBy::new_single(vec![(key, PACKED.into())]),
        aggregate.aggr_expr().to_vec(),
        aggregate.filter_expr().to_vec(),
        Arc::clone(&below) as Arc<dyn ExecutionPlan>,
        below.schema(),
    )?;
    // A key of few bits is grouped by direct index where that gives the
    // same groups (see `dense_groups`).
    let packed = match dense_grouping(&packed, layout.bits)? {
        Some(dense) => dense,
        None => Arc::new(packed),
    };

    // Above: the keys unpacked under their names, then the aggregates.
    let out = aggregate.schema();
    let n = layout.parts.len();
    let mut above = Vec::with_capacity(out.fields().len());
    for (part, field) in out.fields().iter().take(n).enumerate() {
        let packed = Arc::new(Column::new(PACKED, 0));
        let unpack = UnpackKey { packed, part, layout: Arc::clone(&layout), field: Arc::clone(field) };
        above.push(ProjectionExpr { expr: Arc::new(unpack), alias: field.name().clone() });
    }
    for (j, field) in out.fields().iter().enumerate().skip(n) {
        above
            .push(ProjectionExpr { expr: Arc::new(Column::new(field.name(), j - n + 1)), alias: field.name().clone() });
    }
    Ok(Arc::new(ProjectionExec::try_new(above, packed)?))
}

/// How one key is held in the packed key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// A code in [`TextCodes`], 0 for NULL.
    Text,
    /// The value's 64 bits, then a NULL flag.
    Bits64,
    /// The value's 32 bits, then a NULL flag.
    Bits32,
}

/// Bits of a text key's code at the widest: about a billion distinct
/// values.
const TEXT_BITS: u32 = 30;

/// The bits that hold the codes 0 (NULL) to `values`, at least one and at
/// most [`TEXT_BITS`].
fn bits_for(values: u64) -> u32 {
    (u64::BITS - values.leading_zeros()).clamp(1, TEXT_BITS)
}

impl Kind {
    fn of(t: &DataType) -> Option<Kind> {
        match t {
            DataType::Utf8View | DataType::Utf8 | DataType::LargeUtf8 => Some(Kind::Text),
            DataType::Float64 | DataType::Int64 | DataType::Timestamp(_, _) => Some(Kind::Bits64),
            DataType::Int32 | DataType::Date32 => Some(Kind::Bits32),
            _ => None,
        }
    }

    /// Its bits in the packed key, `text_bits` if it is text.
    fn width(self, text_bits: u32) -> u32 {
        match self {
            Kind::Text => text_bits,
            Kind::Bits64 => 65,
            Kind::Bits32 => 33,
        }
    }
}

/// Where each key is in the packed key, and the codes of the text keys.
#[derive(Debug)]
struct Layout {
    /// Per key: its kind, its type, its lowest bit.
    parts: Vec<(Kind, DataType, u32)>,
    /// Per key: the codes of its values if it is text.
    codes: Vec<Option<Mutex<TextCodes>>>,
    /// Whether the packed key is an `Int64` (63 bits or fewer) rather
    /// than a `Decimal128`.
    narrow: bool,
    /// The bits the packed key takes: its values are below 2^bits.
    bits: u32,
}

/// A packed key of more bits would not be a valid 38-digit decimal
/// (2^126 < 10^38 < 2^127).
const MAX_BITS: u32 = 126;

impl Layout {
    /// The layout of `keys`, the codes of text key k taking `text_bits(k)`
    /// bits, if they fit and one of them is text.
    fn of(
        keys: &[(Arc<dyn PhysicalExpr>, String)],
        schema: &Schema,
        text_bits: impl Fn(usize) -> u32,
    ) -> Result<Option<Layout>> {
        let mut parts = Vec::with_capacity(keys.len());
        let mut codes = Vec::with_capacity(keys.len());
        let mut offset = 0;
        for (k, (key, _)) in keys.iter().enumerate() {
            let t = key.data_type(schema)?;
            let Some(kind) = Kind::of(&t) else { return Ok(None) };
            let bits = text_bits(k);
            parts.push((kind, t, offset));
            codes.push((kind == Kind::Text).then(|| Mutex::new(TextCodes::new(bits))));
            offset += kind.width(bits);
        }
        let any_text = parts.iter().any(|(kind, _, _)| *kind == Kind::Text);
        Ok((any_text && offset <= MAX_BITS).then_some(Layout { parts, codes, narrow: offset <= 63, bits: offset }))
    }

    fn packed_type(&self) -> DataType {
        if self.narrow {
            DataType::Int64
        } else {
            DataType::Decimal128(38, 0)
        }
    }

    fn text_codes(&self, part: usize) -> Result<std::sync::MutexGuard<'_, TextCodes>> {
        let codes = self.codes[part].as_ref().ok_or_else(|| internal_datafusion_err!("key {part} is not text"))?;
        codes.lock().map_err(|_| internal_datafusion_err!("text codes poisoned"))
    }
}

/// The codes of one text key's values, numbered from 1 in the order they
/// are first met.
#[derive(Debug)]
struct TextCodes {
    /// The bits a code may take.
    bits: u32,
    /// The code of each value, which shares its bytes with `values`.
    by_value: HashMap<Arc<[u8]>, u32>,
    /// The values, code 1 first.
    values: Vec<Arc<[u8]>>,
    /// The last dictionary mapped, held so that the addresses of its
    /// buffers are not reused by another while they are compared with, and
    /// the code of each of its values.
    last: Option<(ArrayRef, Vec<u32>)>,
}

impl TextCodes {
    fn new(bits: u32) -> TextCodes {
        TextCodes { bits, by_value: HashMap::default(), values: Vec::new(), last: None }
    }

    /// The code of `value`, a new one if it is new.
    fn code(&mut self, value: &[u8]) -> Result<u32> {
        if let Some(&code) = self.by_value.get(value) {
            return Ok(code);
        }
        if self.values.len() as u64 >= (1 << self.bits) - 1 {
            if self.bits < TEXT_BITS {
                return Err(DataFusionError::External(Box::new(CodesOverflow)));
            }
            return exec_err!("a grouping has more than {} distinct values of one text key", (1u64 << TEXT_BITS) - 1);
        }
        let value: Arc<[u8]> = value.into();
        self.values.push(Arc::clone(&value));
        let code = self.values.len() as u32;
        self.by_value.insert(value, code);
        Ok(code)
    }

    /// The codes of the values of a dictionary (0 for a NULL value).
    fn map_dictionary(&mut self, dictionary: &ArrayRef) -> Result<Vec<u32>> {
        let strings = dictionary
            .as_string_opt::<i32>()
            .ok_or_else(|| internal_datafusion_err!("a dictionary of {}", dictionary.data_type()))?;
        strings.iter().map(|v| v.map_or(Ok(0), |v| self.code(v.as_bytes()))).collect()
    }

    /// A column read as a dictionary: its codes into the dictionary, and
    /// the code of each of the dictionary's values here, mapped when the
    /// dictionary is first seen.
    fn codes_of<'a>(&'a mut self, column: &'a ArrayRef) -> Result<(&'a Int32Array, &'a [u32])> {
        let dictionary = column
            .as_dictionary_opt::<Int32Type>()
            .ok_or_else(|| internal_datafusion_err!("a text key of {}", column.data_type()))?;
        let values = dictionary.values();
        let seen = self.last.as_ref().is_some_and(|(last, _)| same_buffers(last, values));
        if !seen {
            let mapped = self.map_dictionary(values)?;
            self.last = Some((Arc::clone(values), mapped));
        }
        let mapped = self.last.as_ref().map(|(_, m)| m.as_slice()).unwrap_or_default();
        Ok((dictionary.keys(), mapped))
    }

    /// The value of `code` (not 0) as text.
    fn value(&self, code: u32) -> Result<&str> {
        let bytes =
            self.values.get(code as usize - 1).ok_or_else(|| internal_datafusion_err!("no text for code {code}"))?;
        std::str::from_utf8(bytes).map_err(|e| internal_datafusion_err!("{e}"))
    }
}

/// Whether two arrays are views of the same bytes: arrow's `ptr_eq`, the
/// same type, offset and length and buffers at the same addresses (a slice
/// starts at another offset). The Parquet reader gives each batch a new
/// array over the buffers of its column chunk's one dictionary, so the
/// arrays' own addresses differ from batch to batch where their buffers'
/// do not; remapping the dictionary for every batch cost
/// `machines-by-load` 7 % of its time.
fn same_buffers(a: &ArrayRef, b: &ArrayRef) -> bool {
    a.to_data().ptr_eq(&b.to_data())
}

/// The packed key of a batch's rows.
#[derive(Debug)]
struct PackKeys {
    keys: Vec<Arc<dyn PhysicalExpr>>,
    layout: Arc<Layout>,
}

impl PackKeys {
    /// Each row's packed key: every key's bits ORed in at its place, in
    /// one loop over the rows per key.
    fn packed(&self, batch: &RecordBatch) -> Result<Halves> {
        let n = batch.num_rows();
        let mut packed = Halves { low: vec![0; n], high: if self.layout.narrow { Vec::new() } else { vec![0; n] } };
        for (k, key) in self.keys.iter().enumerate() {
            let column = key.evaluate(batch)?.into_array(n)?;
            let (kind, _, offset) = self.layout.parts[k];
            match kind {
                Kind::Text => {
                    let mut codes = self.layout.text_codes(k)?;
                    let bits = codes.bits;
                    let (keys, mapped) = codes.codes_of(&column)?;
                    // The reader checks every code against its dictionary;
                    // `get` keeps a bad one from panicking all the same.
                    let code = |k: i32| u64::from(mapped.get(k as usize).copied().unwrap_or(0));
                    let codes = keys.values().iter().map(|&k| code(k));
                    packed.or(keys.nulls(), codes, (offset, bits), None);
                }
                Kind::Bits64 => {
                    let (nulls, flag) = (column.nulls(), Some(offset + 64));
                    if let Some(doubles) = column.as_primitive_opt::<Float64Type>() {
                        let bits = doubles.values().iter().map(|v| canonical(v.to_bits()));
                        packed.or(nulls, bits, (offset, 64), flag);
                    } else {
                        let data = column.to_data();
                        let bits = data.buffer::<i64>(0)[data.offset()..].iter().map(|&v| v as u64);
                        packed.or(nulls, bits, (offset, 64), flag);
                    }
                }
                Kind::Bits32 => {
                    let data = column.to_data();
                    let bits = data.buffer::<i32>(0)[data.offset()..].iter().map(|&v| u64::from(v as u32));
                    packed.or(column.nulls(), bits, (offset, 32), Some(offset + 32));
                }
            }
        }
        Ok(packed)
    }
}

/// The packed keys of a batch's rows as two columns of 64-bit halves
/// (`high` empty for a key of 63 bits or fewer): each key's loop then
/// shifts by an amount fixed for the loop, which vectorizes, where a
/// 128-bit shift by a variable amount does not.
struct Halves {
    low: Vec<u64>,
    high: Vec<u64>,
}

impl Halves {
    /// ORs each value's bits (`width` of them) into its row's packed key
    /// at `offset`, then gives each NULL row no bits there (whatever lay
    /// under it) but its flag bit, if the key has one (a text key's NULL is
    /// code 0). The loop over the values has no branch; the NULLs, usually
    /// few, are visited alone.
    fn or(
        &mut self,
        nulls: Option<&NullBuffer>,
        values: impl Iterator<Item = u64>,
        (offset, width): (u32, u32),
        flag: Option<u32>,
    ) {
        let Halves { low, high } = self;
        if offset >= 64 {
            for (h, v) in high.iter_mut().zip(values) {
                *h |= v << (offset - 64);
            }
        } else if offset == 0 || high.is_empty() {
            for (l, v) in low.iter_mut().zip(values) {
                *l |= v << offset;
            }
        } else {
            for ((l, h), v) in low.iter_mut().zip(high.iter_mut()).zip(values) {
                *l |= v << offset;
                *h |= v >> (64 - offset);
            }
        }
        let Some(nulls) = nulls.filter(|n| n.null_count() > 0) else { return };
        let keep = !(((1u128 << width) - 1) << offset);
        let null = flag.map_or(0, |f| 1u128 << f);
        for i in (!nulls.inner()).set_indices() {
            let key = (u128::from(high.get(i).copied().unwrap_or(0)) << 64) | u128::from(low[i]);
            let key = (key & keep) | null;
            low[i] = key as u64;
            if let Some(h) = high.get_mut(i) {
                *h = (key >> 64) as u64;
            }
        }
    }

    /// The packed keys as a column: `Int64` from the low halves alone, or
    /// `Decimal128(38, 0)` (never negative: a key has 126 bits at most).
    fn into_array(self) -> Result<ArrayRef> {
        if self.high.is_empty() {
            return Ok(Arc::new(Int64Array::from(self.low.into_iter().map(|l| l as i64).collect::<Vec<_>>())));
        }
        let keys: Vec<i128> =
            self.low.iter().zip(&self.high).map(|(&l, &h)| (i128::from(h) << 64) | i128::from(l)).collect();
        Ok(Arc::new(Decimal128Array::new(ScalarBuffer::from(keys), None).with_precision_and_scale(38, 0)?))
    }
}

/// A double's bits as DataFusion's group table keeps them: -0 as 0
/// (`canonicalize` in its primitive group values), every other value,
/// each NaN included, as it is.
fn canonical(bits: u64) -> u64 {
    if bits << 1 == 0 {
        0
    } else {
        bits
    }
}

impl PhysicalExpr for PackKeys {
    fn data_type(&self, _: &Schema) -> Result<DataType> {
        Ok(self.layout.packed_type())
    }

    fn nullable(&self, _: &Schema) -> Result<bool> {
        Ok(false)
    }

    fn evaluate(&self, batch: &RecordBatch) -> Result<ColumnarValue> {
        Ok(ColumnarValue::Array(self.packed(batch)?.into_array()?))
    }

    fn children(&self) -> Vec<&Arc<dyn PhysicalExpr>> {
        self.keys.iter().collect()
    }

    fn with_new_children(self: Arc<Self>, keys: Vec<Arc<dyn PhysicalExpr>>) -> Result<Arc<dyn PhysicalExpr>> {
        Ok(Arc::new(PackKeys { keys, layout: Arc::clone(&self.layout) }))
    }

    fn fmt_sql(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for PackKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys: Vec<String> = self.keys.iter().map(ToString::to_string).collect();
        write!(f, "pack({})", keys.join(", "))
    }
}

impl PartialEq for PackKeys {
    fn eq(&self, other: &PackKeys) -> bool {
        Arc::ptr_eq(&self.layout, &other.layout)
            && self.keys.len() == other.keys.len()
            && self.keys.iter().zip(&other.keys).all(|(a, b)| a.as_ref() == b.as_ref())
    }
}

impl Eq for PackKeys {}

impl Hash for PackKeys {
    fn hash<H: Hasher>(&self, state: &mut H) {
        Arc::as_ptr(&self.layout).hash(state);
        self.keys.hash(state);
    }
}

/// One key of a packed key, as it was.
#[derive(Debug)]
struct UnpackKey {
    packed: Arc<dyn PhysicalExpr>,
    part: usize,
    layout: Arc<Layout>,
    /// The key's field in the original grouping's output.
    field: FieldRef,
}

impl UnpackKey {
    fn unpack(&self, packed: &ArrayRef) -> Result<ArrayRef> {
        let (kind, ref t, offset) = self.layout.parts[self.part];
        let raw: Vec<u128> = match packed.data_type() {
            DataType::Int64 => packed.as_primitive::<Int64Type>().values().iter().map(|&p| p as u128).collect(),
            _ => packed.as_primitive::<Decimal128Type>().values().iter().map(|&p| p as u128).collect(),
        };
        let raw = raw.into_iter().map(|p| p >> offset);
        Ok(match kind {
            Kind::Text => {
                let codes = self.layout.text_codes(self.part)?;
                let values: Vec<Option<&str>> = raw
                    .map(|r| (r as u32) & ((1 << codes.bits) - 1))
                    .map(|c| if c == 0 { Ok(None) } else { codes.value(c).map(Some) })
                    .collect::<Result<_>>()?;
                match t {
                    DataType::Utf8View => Arc::new(StringViewArray::from(values)),
                    DataType::LargeUtf8 => Arc::new(LargeStringArray::from(values)),
                    _ => Arc::new(StringArray::from(values)),
                }
            }
            Kind::Bits64 => {
                let values: Vec<Option<u64>> = raw.map(|r| ((r >> 64) & 1 == 0).then_some(r as u64)).collect();
                match t {
                    DataType::Float64 => {
                        Arc::new(values.into_iter().map(|v| v.map(f64::from_bits)).collect::<Float64Array>())
                    }
                    _ => retyped(values.into_iter().map(|v| v.map(|b| b as i64)).collect::<Int64Array>(), t)?,
                }
            }
            Kind::Bits32 => {
                let values: Int32Array = raw.map(|r| ((r >> 32) & 1 == 0).then_some(r as u32 as i32)).collect();
                retyped(values, t)?
            }
        })
    }
}

/// `values` as `t`, a type of the same width (a timestamp as its 64-bit
/// count, a date as its 32-bit one).
fn retyped(values: impl Array, t: &DataType) -> Result<ArrayRef> {
    if values.data_type() == t {
        return Ok(make_array(values.into_data()));
    }
    Ok(make_array(values.into_data().into_builder().data_type(t.clone()).build()?))
}

impl PhysicalExpr for UnpackKey {
    fn data_type(&self, _: &Schema) -> Result<DataType> {
        Ok(self.field.data_type().clone())
    }

    fn nullable(&self, _: &Schema) -> Result<bool> {
        Ok(self.field.is_nullable())
    }

    fn return_field(&self, _: &Schema) -> Result<FieldRef> {
        Ok(Arc::clone(&self.field))
    }

    fn evaluate(&self, batch: &RecordBatch) -> Result<ColumnarValue> {
        let packed = self.packed.evaluate(batch)?.into_array(batch.num_rows())?;
        Ok(ColumnarValue::Array(self.unpack(&packed)?))
    }

    fn children(&self) -> Vec<&Arc<dyn PhysicalExpr>> {
        vec![&self.packed]
    }

    fn with_new_children(self: Arc<Self>, children: Vec<Arc<dyn PhysicalExpr>>) -> Result<Arc<dyn PhysicalExpr>> {
        let [packed] = <[_; 1]>::try_from(children)
            .map_err(|c| internal_datafusion_err!("unpack takes 1 child, got {}", c.len()))?;
        let (part, layout, field) = (self.part, Arc::clone(&self.layout), Arc::clone(&self.field));
        Ok(Arc::new(UnpackKey { packed, part, layout, field }))
    }

    fn fmt_sql(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for UnpackKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unpack({}, {})", self.packed, self.part)
    }
}

impl PartialEq for UnpackKey {
    fn eq(&self, other: &UnpackKey) -> bool {
        Arc::ptr_eq(&self.layout, &other.layout)
            && self.part == other.part
            && self.packed.as_ref() == other.packed.as_ref()
    }
}

impl Eq for UnpackKey {}

impl Hash for UnpackKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        Arc::as_ptr(&self.layout).hash(state);
        self.part.hash(state);
        self.packed.hash(state);
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path as FsPath;

    use datafusion::arrow::array::{Date32Array, TimestampMicrosecondArray};
    use datafusion::arrow::datatypes::{Field, TimeUnit};
    use datafusion::parquet::arrow::ArrowWriter;
    use datafusion::parquet::file::metadata::ParquetMetaDataReader;
    use datafusion::parquet::file::properties::WriterProperties;
    use datafusion::prelude::SessionConfig;

    use super::*;

    /// Writes `batch` to `dir/t.parquet` in row groups of `group_rows`,
    /// every column dictionary-encoded but those named in `plain`.
    fn write(dir: &FsPath, batch: &RecordBatch, group_rows: usize, plain: &[&str]) {
        let mut props = WriterProperties::builder().set_max_row_group_row_count(Some(group_rows));
        for column in plain {
            props = props.set_column_dictionary_enabled((*column).into(), false);
        }
        let file = std::fs::File::create(dir.join("t.parquet")).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props.build())).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
    }

    /// `sql` over `dir/t.parquet` in batches of 7 rows, with tracelab's
    /// physical rules (`ours`) or DataFusion's alone.
    fn run(dir: &FsPath, sql: &str, ours: bool) -> (Vec<String>, String) {
        crate::plan_tests::run_over_parquet(dir, &["t"], sql, ours, 7)
    }

    /// The packed key's type by the keys' widths, worked by hand: a text
    /// key takes 30 bits, a 32-bit number 33, a 64-bit one 65.
    #[test]
    fn a_packed_key_of_63_bits_or_fewer_is_a_64_bit_integer() {
        let schema = Schema::new(vec![
            Field::new("a", DataType::Utf8View, true),
            Field::new("d", DataType::Int32, true),
            Field::new("b", DataType::Float64, true),
            Field::new("l", DataType::List(Arc::new(Field::new("i", DataType::Int32, true))), true),
        ]);
        let layout = |names: &[&str]| {
            let keys: Vec<(Arc<dyn PhysicalExpr>, String)> = names
                .iter()
                .map(|n| (Arc::new(Column::new_with_schema(n, &schema).unwrap()) as _, n.to_string()))
                .collect();
            Layout::of(&keys, &schema, |_| TEXT_BITS).unwrap().map(|l| l.packed_type())
        };
        assert_eq!(layout(&["a"]), Some(DataType::Int64));
        assert_eq!(layout(&["a", "d"]), Some(DataType::Int64));
        assert_eq!(layout(&["a", "a", "d"]), Some(DataType::Decimal128(38, 0)));
        assert_eq!(layout(&["a", "a", "b"]), Some(DataType::Decimal128(38, 0)));
        // 30 + 65 + 33 = 128 and 30 + 65 + 65 bits, over 126; no text key; a list key.
        assert_eq!(layout(&["a", "b", "d"]), None);
        assert_eq!(layout(&["a", "b", "b"]), None);
        assert_eq!(layout(&["d", "b"]), None);
        assert_eq!(layout(&["a", "l"]), None);
    }

    /// Worked by hand over two row groups (two dictionaries, `y` in both):
    /// the groups (x, 1) twice, (NULL, NULL) twice, (y, 0) for 0 and -0,
    /// (y, NaN) for each of two NaNs of different bits, (y, 1) once in each
    /// row group. Both text values keep one code across the dictionaries.
    #[test]
    fn groups_worked_by_hand_across_row_groups() {
        let nan_b = f64::from_bits(f64::NAN.to_bits() | 1);
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Utf8, true),
            Field::new("b", DataType::Float64, true),
        ]));
        let a = [Some("x"), None, Some("x"), Some("y"), Some("y"), None, Some("y"), Some("y"), Some("y"), Some("y")];
        let b = [
            Some(1.0),
            None,
            Some(1.0),
            Some(-0.0),
            Some(1.0),
            None,
            Some(0.0),
            Some(f64::NAN),
            Some(nan_b),
            Some(1.0),
        ];
        let t = RecordBatch::try_new(
            schema,
            vec![Arc::new(StringArray::from(a.to_vec())), Arc::new(Float64Array::from(b.to_vec()))],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &t, 5, &[]);
        let (mut rows, plan) = run(dir.path(), "SELECT a, b, COUNT(*) FROM t GROUP BY a, b", true);
        rows.sort();
        assert_eq!(rows, ["NULL|NULL|2", "x|1.0|2", "y|0.0|2", "y|1.0|2", "y|NaN|1", "y|NaN|1"], "{plan}");
        assert!(plan.contains("pack(a@0, b@1)"), "{plan}");
        // One text key alone packs into a 64-bit integer.
        let (rows, plan) = run(dir.path(), "SELECT a, COUNT(*) AS n FROM t GROUP BY a ORDER BY n DESC, a", true);
        assert_eq!(rows, ["y|6", "x|2", "NULL|2"], "{plan}");
        assert!(plan.contains("pack(a@0)"), "{plan}");
        // A name the query gives the key, which DataFusion gives the scan.
        let (rows, plan) = run(dir.path(), "SELECT DISTINCT a AS c1 FROM t ORDER BY 1", true);
        assert_eq!(rows, ["x", "y", "NULL"], "{plan}");
        assert!(plan.contains("pack(c1@0)"), "{plan}");
    }

    /// The Parquet reader gives each batch a new dictionary array over the
    /// same buffers while it reads one column chunk: `same_buffers` knows
    /// them for one, so the chunk's dictionary is mapped once, and tells
    /// apart the next chunk's, a slice and an equal copy. The codes are
    /// worked by hand: x, y in the first row group, y, z in the second.
    #[test]
    fn a_column_chunks_dictionary_is_mapped_once() {
        use datafusion::arrow::array::DictionaryArray;
        use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        let text: Vec<&str> = ["x", "y", "x", "x", "y", "x", "y", "z", "z", "y", "y", "z"].to_vec();
        let column: DictionaryArray<Int32Type> = text.iter().copied().collect();
        let t = RecordBatch::try_from_iter([("a", Arc::new(column) as ArrayRef)]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &t, 6, &[]);
        let file = File::open(dir.path().join("t.parquet")).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap().with_batch_size(3).build().unwrap();
        let columns: Vec<ArrayRef> = reader.map(|b| Arc::clone(b.unwrap().column(0))).collect();
        let values: Vec<&ArrayRef> = columns.iter().map(|c| c.as_dictionary::<Int32Type>().values()).collect();
        assert_eq!(values.len(), 4);
        assert!(!Arc::ptr_eq(values[0], values[1]), "the reader's arrays are new ones");
        assert!(same_buffers(values[0], values[1]) && same_buffers(values[2], values[3]));
        assert!(!same_buffers(values[1], values[2]), "another row group, another dictionary");
        let copy: ArrayRef = Arc::new(StringArray::from(values[0].as_string::<i32>().iter().collect::<Vec<_>>()));
        assert!(!same_buffers(values[0], &copy) && !same_buffers(values[0], &values[0].slice(1, 1)));

        let mut codes = TextCodes::new(TEXT_BITS);
        let mut rows = Vec::new();
        let mut mapped_from = Vec::new();
        for column in &columns {
            let (keys, mapped) = codes.codes_of(column).unwrap();
            rows.extend(keys.values().iter().map(|&k| mapped[k as usize]));
            mapped_from.push(Arc::clone(&codes.last.as_ref().unwrap().0));
        }
        assert_eq!(rows, [1, 2, 1, 1, 2, 1, 2, 3, 3, 2, 2, 3]);
        assert!(Arc::ptr_eq(&mapped_from[1], values[0]), "the second batch's dictionary was not mapped again");
        assert!(Arc::ptr_eq(&mapped_from[3], values[2]));
    }

    /// A table of dictionary-encoded text `a` and `e` (empty, long, NULL),
    /// the same text `p` written plain, a double `b` (0, -0, two NaNs,
    /// NULL), integers `c` (64-bit) and `d` (32-bit), a timestamp `ts`, a
    /// date `dt`, with NULLs, and `x` to sum.
    fn table(rows: usize, seed: u64) -> RecordBatch {
        let texts =
            [Some("a"), Some("b"), Some(""), None, Some("a string longer than twelve bytes"), Some("twelve bytes")];
        let nan_b = f64::from_bits(f64::NAN.to_bits() | 1);
        let doubles = [Some(0.0), Some(-0.0), Some(1.5), Some(f64::NAN), Some(nan_b), None, Some(1e300)];
        let mut next = crate::plan_tests::draws(seed);
        let (mut a, mut e): (Vec<Option<&str>>, Vec<Option<&str>>) = (Vec::new(), Vec::new());
        let mut b: Vec<Option<f64>> = Vec::new();
        let (mut c, mut ts): (Vec<Option<i64>>, Vec<Option<i64>>) = (Vec::new(), Vec::new());
        let (mut d, mut dt): (Vec<Option<i32>>, Vec<Option<i32>>) = (Vec::new(), Vec::new());
        let mut x: Vec<i64> = Vec::new();
        for i in 0..rows {
            a.push(texts[next(texts.len())]);
            b.push(doubles[next(doubles.len())]);
            c.push([Some(-1i64), Some(i64::MIN), Some(7), None][next(4)]);
            d.push([Some(-1i32), Some(i32::MAX), Some(0), None][next(4)]);
            e.push(texts[next(texts.len())]);
            ts.push([Some(0i64), Some(1_600_000_000_000_000), Some(-5), None][next(4)]);
            dt.push([Some(0i32), Some(19_000), Some(-1), None][next(4)]);
            x.push(i as i64);
        }
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Utf8, true),
            Field::new("b", DataType::Float64, true),
            Field::new("c", DataType::Int64, true),
            Field::new("d", DataType::Int32, true),
            Field::new("e", DataType::Utf8, true),
            Field::new("p", DataType::Utf8, true),
            Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())), true),
            Field::new("dt", DataType::Date32, true),
            Field::new("x", DataType::Int64, false),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(StringArray::from(a.clone())),
                Arc::new(Float64Array::from(b.clone())),
                Arc::new(Int64Array::from(c.clone())),
                Arc::new(Int32Array::from(d.clone())),
                Arc::new(StringArray::from(e.clone())),
                Arc::new(StringArray::from(a.clone())),
                Arc::new(TimestampMicrosecondArray::from(ts.clone()).with_timezone("UTC")),
                Arc::new(Date32Array::from(dt.clone())),
                Arc::new(Int64Array::from(x.clone())),
            ],
        )
        .unwrap()
    }

    /// Random tables written in row groups of 37 rows, several key shapes
    /// and aggregates: the same rows as DataFusion's own plan (sorted where
    /// the query gives no order), and the rule applied exactly where the
    /// module documentation says.
    #[test]
    fn the_same_rows_as_datafusions_plan() {
        let queries = [
            ("SELECT a, b, COUNT(*), SUM(x) FROM t GROUP BY a, b", true),
            ("SELECT e, a, b, COUNT(*) AS n, MIN(x) FROM t GROUP BY a, b, e", true),
            ("SELECT a, e, d, SUM(x) FILTER (WHERE x > 10), COUNT(DISTINCT b) FROM t GROUP BY a, e, d", true),
            ("SELECT a, ts, COUNT(*) FROM t GROUP BY a, ts", true),
            ("SELECT dt, a, COUNT(*) FROM t GROUP BY dt, a", true),
            ("SELECT a, COUNT(*), AVG(b) FROM t GROUP BY a", true),
            ("SELECT a, c, SUM(x * 2) AS s FROM t GROUP BY c, a HAVING COUNT(*) > 1 ORDER BY s DESC, 1, 2", true),
            // A projection under the grouping that computes from other columns.
            ("SELECT a, x % 3 AS m, COUNT(*) FROM t GROUP BY 1, 2", true),
            // 65 + 65 bits and a's: more than a packed key holds.
            ("SELECT b, c, a, COUNT(*) FROM t GROUP BY b, c, a", false),
            // 30 + 65 + 33 = 128 bits with the widest codes, but a's
            // dictionaries (5 values in each of 9 row groups) need 6.
            ("SELECT a, ts, dt, COUNT(*) FROM t GROUP BY a, ts, dt", true),
            // No text key, a text key written plain, a text key read by an
            // aggregate or as an expression, a filter on the way, sets.
            ("SELECT b, d, COUNT(*) FROM t GROUP BY b, d", false),
            ("SELECT p, b, COUNT(*) FROM t GROUP BY p, b", false),
            ("SELECT a, b, MAX(a) FROM t GROUP BY a, b", false),
            // DataFusion plans this as a grouping on (a, e) without
            // aggregates under one on (a, e) that counts: the lower one
            // is rewritten.
            ("SELECT a, e, COUNT(DISTINCT e) FROM t GROUP BY a, e", true),
            ("SELECT upper(a) AS u, b, COUNT(*) FROM t GROUP BY 1, 2", false),
            // A computed column over a filter (a projection DataFusion
            // cannot take into the scan) that reads a text key.
            ("WITH u AS (SELECT a, length(a) AS l FROM t WHERE x > 1) SELECT a, SUM(l) FROM u GROUP BY a", false),
            // A filter on other columns is kept between the scan and the
            // grouping; one on a text key keeps the plan as it was.
            ("SELECT a, b, COUNT(*) FROM t WHERE x > 5 GROUP BY a, b", true),
            ("SELECT e, SUM(x) FROM t WHERE b IS NOT NULL AND x % 2 = 0 GROUP BY e", true),
            ("SELECT a, COUNT(*) FROM t WHERE a > 'a' GROUP BY a", false),
            ("SELECT a, COUNT(*) FROM t WHERE e = 'b' GROUP BY a", true),
            // The shape of `top-users-by-gpu-hours`: a filter on one text
            // column, computed columns, the grouping on another text.
            (
                "WITH u AS (SELECT a, CASE WHEN b > 0 THEN 1 ELSE 0 END AS pos, CAST(ROUND(x * 1.5) AS BIGINT) \
                 AS centi FROM t WHERE e = 'a string longer than twelve bytes') \
                 SELECT a, COUNT(*) AS n, SUM(pos), SUM(centi) FROM u GROUP BY a ORDER BY n DESC, a LIMIT 3",
                true,
            ),
            ("SELECT a, COUNT(*) FROM t WHERE e = 'b' OR a = 'b' GROUP BY a", false),
            ("SELECT a, e, COUNT(*) FROM t GROUP BY ROLLUP (a, e)", false),
        ];
        for seed in [1, 2, 3] {
            let dir = tempfile::tempdir().unwrap();
            write(dir.path(), &table(300, seed), 37, &["p"]);
            for (sql, applies) in queries {
                let (mut expected, _) = run(dir.path(), sql, false);
                let (mut got, plan) = run(dir.path(), sql, true);
                if !sql.contains("ORDER BY") {
                    expected.sort();
                    got.sort();
                }
                assert_eq!(got, expected, "{sql}\n{plan}");
                assert_eq!(plan.contains("pack("), applies, "{sql}\n{plan}");
            }
        }
    }

    /// The bits that hold codes 0 to n, by hand.
    #[test]
    fn bits_for_codes_worked_by_hand() {
        assert_eq!([0, 1, 2, 3, 4, 7, 8, 255, 256].map(bits_for), [1, 1, 2, 2, 3, 3, 4, 8, 9]);
        assert_eq!(bits_for((1 << 30) - 1), 30);
        // At most the widest, whose own limit then stands.
        assert_eq!(bits_for(1 << 30), TEXT_BITS);
        assert_eq!(bits_for(u64::MAX), TEXT_BITS);
    }

    /// The packed key's type and the grouping key's column type in a plan.
    fn packed_type_in(plan: &Arc<dyn ExecutionPlan>) -> Option<DataType> {
        if let Some(a) = plan.downcast_ref::<AggregateExec>() {
            if let [(key, name)] = a.group_expr().expr() {
                if name == PACKED {
                    return key.data_type(&a.input().schema()).ok();
                }
            }
        }
        plan.children().into_iter().find_map(packed_type_in)
    }

    /// A table of two text columns `a` and `e` and a 32-bit `d`.
    fn text_text_int(a: &[Option<&str>], e: &[Option<&str>], d: &[Option<i32>]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Utf8, true),
            Field::new("e", DataType::Utf8, true),
            Field::new("d", DataType::Int32, true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(a.to_vec())),
            Arc::new(StringArray::from(e.to_vec())),
            Arc::new(Int32Array::from(d.to_vec())),
        ];
        RecordBatch::try_new(schema, columns).unwrap()
    }

    /// Worked by hand: `a`'s two row groups have dictionaries of 3 values
    /// (x, y, z) and 2 (y, w), so codes 0 (NULL) to 5 in 3 bits; `e` has
    /// 1 + 1 values, 2 bits. a, e and a 32-bit d take 3 + 2 + 33 bits, a
    /// 64-bit key, where the widest codes (30 + 30 + 33) need a decimal.
    #[test]
    fn text_codes_fitted_to_the_dictionaries() {
        let a = [Some("x"), Some("y"), Some("z"), Some("y"), Some("w"), None];
        let e = [Some("p"), Some("p"), Some("p"), Some("q"), Some("q"), Some("q")];
        let d = [Some(1), Some(1), None, Some(2), Some(1), Some(1)];
        let t = text_text_int(&a, &e, &d);
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &t, 3, &[]);
        let sql = "SELECT a, e, d, COUNT(*) FROM t GROUP BY a, e, d ORDER BY a, e, d";
        let config = || SessionConfig::new().with_batch_size(2);
        let expected = ["w|q|1|1", "x|p|1|1", "y|p|1|1", "y|q|2|1", "z|p|NULL|1", "NULL|q|1|1"];
        for (widths, packed) in
            [(CodeWidths::Fitted, DataType::Int64), (CodeWidths::Widest, DataType::Decimal128(38, 0))]
        {
            let rules = crate::session::physical_rules_with(widths);
            let (rows, plan) = crate::plan_tests::plan_over_parquet(dir.path(), &["t"], sql, rules, config()).unwrap();
            assert_eq!(rows, expected, "{widths:?}");
            assert_eq!(packed_type_in(&plan), Some(packed), "{widths:?}");
        }
    }

    /// A dictionary page that cannot be read at planning (its bytes
    /// overwritten, the footer intact): the plan is made all the same, the
    /// key at the widest codes, and running it fails in the scan, which
    /// names the trouble.
    #[test]
    fn an_unreadable_dictionary_page_leaves_the_widest_codes() {
        let t = text_text_int(&[Some("x"), Some("y"), Some("x")], &[Some("p"), Some("q"), Some("p")], &[Some(1); 3]);
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &t, 3, &[]);
        let path = dir.path().join("t.parquet");
        let metadata = ParquetMetaDataReader::new().parse_and_finish(&File::open(&path).unwrap()).unwrap();
        let chunk = metadata.row_group(0).column(0);
        let start = chunk.dictionary_page_offset().unwrap() as usize;
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[start..chunk.data_page_offset() as usize].fill(0xff);
        std::fs::write(&path, bytes).unwrap();

        let state = datafusion::execution::session_state::SessionStateBuilder::new()
            .with_config(SessionConfig::new().with_target_partitions(1))
            .with_default_features()
            .with_physical_optimizer_rules(crate::session::physical_rules_with(CodeWidths::Fitted))
            .build();
        let ctx = datafusion::prelude::SessionContext::new_with_state(state);
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(async {
            let options = datafusion::prelude::ParquetReadOptions::default();
            ctx.register_parquet("t", path.to_str().unwrap(), options).await.unwrap();
            let sql = "SELECT a, e, d, COUNT(*) FROM t GROUP BY a, e, d";
            let plan = ctx.sql(sql).await.unwrap().create_physical_plan().await.unwrap();
            // a at 30 bits, e at 2 (p and q in its dictionary), d at 33:
            // 65, over 63; a at 2 bits would have made 37, an Int64.
            assert_eq!(packed_type_in(&plan), Some(DataType::Decimal128(38, 0)));
            let e = datafusion::physical_plan::collect(plan, ctx.task_ctx()).await.unwrap_err();
            assert!(e.to_string().to_lowercase().contains("parquet"), "{e}");
        });
    }

    /// A column whose dictionary filled up (the writer's limit of 64 bytes)
    /// and whose later pages are plain: 200 values where the dictionary
    /// page counts a few. The fitted codes outgrow their bits and the
    /// query fails with [`CodesOverflow`]; run as a query is, it runs again
    /// with the widest codes and gives DataFusion's own rows.
    #[test]
    fn codes_that_outgrow_the_dictionaries_run_again_with_the_widest() {
        let values: Vec<String> = (0..200).map(|i| format!("v{:03}", i % 200)).collect();
        let a: Vec<Option<&str>> = values.iter().map(|v| Some(v.as_str())).chain([Some("v007"), None]).collect();
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Utf8, true)]));
        let t = RecordBatch::try_new(schema, vec![Arc::new(StringArray::from(a))]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let props = WriterProperties::builder()
            .set_dictionary_page_size_limit(64)
            .set_write_batch_size(8)
            .set_data_page_row_count_limit(8)
            .build();
        let file = std::fs::File::create(dir.path().join("t.parquet")).unwrap();
        let mut writer = ArrowWriter::try_new(file, t.schema(), Some(props)).unwrap();
        writer.write(&t).unwrap();
        writer.close().unwrap();

        let sql = "SELECT a, COUNT(*) AS n FROM t GROUP BY a ORDER BY n DESC, a LIMIT 3";
        let config = || SessionConfig::new().with_batch_size(16);
        let over = |widths| {
            let rules = crate::session::physical_rules_with(widths);
            crate::plan_tests::plan_over_parquet(dir.path(), &["t"], sql, rules, config())
        };
        let Err(e) = over(CodeWidths::Fitted) else { panic!("the fitted codes did not overflow") };
        assert!(outgrown(&e), "{e}");
        let (rows, plan) = futures::executor::block_on(fitted_then_widest(|w| std::future::ready(over(w)))).unwrap();
        assert_eq!(rows, ["v007|2", "v000|1", "v001|1"]);
        assert_eq!(packed_type_in(&plan), Some(DataType::Int64));
        let (theirs, _) = run(dir.path(), sql, false);
        assert_eq!(rows, theirs);
    }
}
