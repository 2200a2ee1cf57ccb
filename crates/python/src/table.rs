//! `tracelab.Table`: a result handed to Python through the Arrow PyCapsule
//! interface (`__arrow_c_stream__`), so pyarrow, polars, pandas and DuckDB
//! read it without pyarrow being a dependency of tracelab. The stream
//! exports the record batches' own buffers (Arrow's C data interface): a
//! query's batches are DataFusion's as it produced them, other results
//! (tables, analyses, replays) are built once from their neutral table by
//! `tracelab_query::output::batch`, the writer the CLI's Parquet output uses.

use std::sync::Arc;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, Float64Array, Int64Array, RecordBatch, RecordBatchIterator};
use arrow_schema::{DataType, SchemaRef};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// A table of results (Arrow C stream); pass it to `pyarrow.table`,
/// `polars.DataFrame`, `duckdb` or `pandas` via pyarrow.
#[pyclass(module = "tracelab", frozen)]
pub struct Table {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl Table {
    /// A query's batches: view-typed columns (string and binary views)
    /// cast to `large_string` / `large_binary`, which every consumer reads
    /// (pyarrow 14 has no view types); other columns are kept as they are.
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> anyhow::Result<Table> {
        if !schema.fields().iter().any(|f| view(f.data_type()).is_some()) {
            return Ok(Table { schema, batches });
        }
        let fields: Vec<arrow_schema::Field> = schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_data_type(view(f.data_type()).unwrap_or_else(|| f.data_type().clone())))
            .collect();
        let to = Arc::new(arrow_schema::Schema::new_with_metadata(fields, schema.metadata().clone()));
        let batches = batches
            .iter()
            .map(|b| {
                let columns = b
                    .columns()
                    .iter()
                    .zip(to.fields())
                    .map(|(c, f)| {
                        if c.data_type() == f.data_type() {
                            Ok(Arc::clone(c))
                        } else {
                            arrow_cast::cast(c, f.data_type())
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(RecordBatch::try_new(Arc::clone(&to), columns)?)
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Table { schema: to, batches })
    }

    /// A neutral table (the presentation layer's) as one record batch.
    pub fn of(t: &tracelab_present::Table) -> anyhow::Result<Table> {
        let batch = tracelab_query::output::batch(t)?;
        Ok(Table { schema: batch.schema(), batches: vec![batch] })
    }

    fn rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

#[pymethods]
impl Table {
    /// The number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.rows()
    }

    /// The column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema.fields().iter().map(|f| f.name().clone()).collect()
    }

    fn __len__(&self) -> usize {
        self.rows()
    }

    fn __repr__(&self) -> String {
        format!("<tracelab.Table: {} rows, columns {}>", self.rows(), self.column_names().join(", "))
    }

    /// The Arrow C stream of this table (the Arrow PyCapsule interface).
    /// `requested_schema` is accepted and not applied: consumers cast.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(self.batches.clone().into_iter().map(Ok), Arc::clone(&self.schema));
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// Test support, not an API: the address of the values of column
    /// `name` in the first batch (an Int64 or Float64 column) as this side
    /// holds them, so a test can check that a consumer reads that very memory.
    fn _values_address(&self, name: &str) -> PyResult<usize> {
        let column = self.batches.first().and_then(|b| b.column_by_name(name));
        let address = column.and_then(|c| {
            let any = c.as_any();
            match (any.downcast_ref::<Int64Array>(), any.downcast_ref::<Float64Array>()) {
                (Some(a), _) if !a.is_empty() => Some(a.values().as_ptr() as usize),
                (_, Some(a)) if !a.is_empty() => Some(a.values().as_ptr() as usize),
                _ => None,
            }
        });
        address.ok_or_else(|| crate::errors::to_py(anyhow::anyhow!("{name}: not a non-empty Int64 or Float64 column")))
    }
}

/// The type a view-typed column crosses as, if it is one.
fn view(t: &DataType) -> Option<DataType> {
    match t {
        DataType::Utf8View => Some(DataType::LargeUtf8),
        DataType::BinaryView => Some(DataType::LargeBinary),
        _ => None,
    }
}

impl Table {
    /// Polars frames (the per-job tables of replays) as one table of their
    /// chunks: each chunk crosses from Polars' Arrow to these Arrow crates
    /// through the C data interface in memory, so its buffers are not copied
    /// (strings are re-laid out once, from Polars' string views to
    /// `large_string`, which every consumer reads).
    pub fn of_frames(frames: &[polars::prelude::DataFrame]) -> anyhow::Result<Table> {
        use polars::prelude::{CompatLevel, SchemaExt};
        use polars_arrow::array::StructArray as PlStruct;
        use polars_arrow::datatypes::{ArrowDataType, Field as PlField};

        let compat = CompatLevel::oldest();
        let mut batches = Vec::new();
        let mut schema: Option<SchemaRef> = None;
        for df in frames {
            let fields: Vec<PlField> = df.schema().to_arrow(compat).iter_values().cloned().collect();
            let dtype = ArrowDataType::Struct(fields);
            let field = PlField::new("".into(), dtype.clone(), false);
            for chunk in df.iter_chunks(compat, false) {
                let len = chunk.len();
                let array = PlStruct::new(dtype.clone(), len, chunk.into_arrays(), None);
                let batch = import(Box::new(array), &field)?;
                schema.get_or_insert_with(|| batch.schema());
                batches.push(batch);
            }
        }
        let schema = schema.unwrap_or_else(|| Arc::new(arrow_schema::Schema::empty()));
        Ok(Table { schema, batches })
    }
}

/// One Polars struct array as a record batch, through the C data interface.
fn import(
    array: Box<dyn polars_arrow::array::Array>,
    field: &polars_arrow::datatypes::Field,
) -> anyhow::Result<RecordBatch> {
    use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
    let c_array = polars_arrow::ffi::export_array_to_c(array);
    let c_schema = polars_arrow::ffi::export_field_to_c(field);
    // SAFETY: both crates implement the Arrow C data interface; the structs
    // have its C layout, so one crate's export is the other's import. The
    // importer takes ownership of the array (its release callback frees it).
    let (c_array, c_schema) = unsafe {
        (
            std::mem::transmute::<polars_arrow::ffi::ArrowArray, FFI_ArrowArray>(c_array),
            std::mem::transmute::<polars_arrow::ffi::ArrowSchema, FFI_ArrowSchema>(c_schema),
        )
    };
    let data = unsafe { from_ffi(c_array, &c_schema) }?;
    Ok(RecordBatch::from(arrow_array::StructArray::from(data)))
}
