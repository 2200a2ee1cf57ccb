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
use arrow_schema::SchemaRef;
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
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Table {
        Table { schema, batches }
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
