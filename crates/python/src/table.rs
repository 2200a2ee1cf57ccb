//! `tracelab.Table`: a result handed to Python through the Arrow PyCapsule
//! interface (`__arrow_c_stream__`), so pyarrow, polars, pandas and DuckDB
//! read it without pyarrow being a dependency of tracelab. The stream
//! exports the Polars frame's own buffers (Polars' Arrow crate implements
//! the C data interface), one record batch per chunk.
//!
//! Types are exported at Polars' oldest compatibility level (strings as
//! `large_string`, lists as `large_list`), which every consumer reads,
//! pyarrow 14 included; numeric, boolean and temporal columns cross without
//! a copy, string columns are re-laid out once from Polars' string views.

use polars::prelude::{CompatLevel, DataFrame, SchemaExt};
use polars_arrow::array::{Array, StructArray};
use polars_arrow::datatypes::{ArrowDataType, Field};
use polars_arrow::ffi;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// A table of results (Arrow C stream); pass it to `pyarrow.table`,
/// `polars.DataFrame`, `duckdb` or `pandas` via pyarrow.
#[pyclass(module = "tracelab", frozen)]
pub struct Table {
    df: DataFrame,
}

impl Table {
    pub fn new(df: DataFrame) -> Table {
        Table { df }
    }
}

#[pymethods]
impl Table {
    /// The number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.df.height()
    }

    /// The column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.df.get_column_names().iter().map(|s| s.to_string()).collect()
    }

    fn __len__(&self) -> usize {
        self.df.height()
    }

    fn __repr__(&self) -> String {
        format!("<tracelab.Table: {} rows, columns {}>", self.df.height(), self.column_names().join(", "))
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
        PyCapsule::new_with_value(py, stream(&self.df), c"arrow_array_stream")
    }

    /// Test support, not an API: the address of the values of column
    /// `name`'s first chunk (an Int64 or Float64 column) as this side holds
    /// them, so a test can check that a consumer reads that very memory.
    fn _values_address(&self, name: &str) -> PyResult<usize> {
        let column = self.df.column(name).map_err(crate::errors::to_py)?;
        let series = column.as_materialized_series();
        let address = match (series.i64(), series.f64()) {
            (Ok(ca), _) => ca.downcast_iter().next().map(|a| a.values().as_ptr() as usize),
            (_, Ok(ca)) => ca.downcast_iter().next().map(|a| a.values().as_ptr() as usize),
            _ => None,
        };
        address.ok_or_else(|| crate::errors::to_py(anyhow::anyhow!("{name}: not a non-empty Int64 or Float64 column")))
    }
}

/// The frame as an Arrow C stream of struct arrays, one per chunk.
fn stream(df: &DataFrame) -> ffi::ArrowArrayStream {
    let compat = CompatLevel::oldest();
    let schema = df.schema().to_arrow(compat);
    let fields: Vec<Field> = schema.iter_values().cloned().collect();
    let dtype = ArrowDataType::Struct(fields);
    let batches: Vec<Box<dyn Array>> = df
        .iter_chunks(compat, false)
        .map(|batch| {
            let len = batch.len();
            let arrays = batch.into_arrays();
            Box::new(StructArray::new(dtype.clone(), len, arrays, None)) as Box<dyn Array>
        })
        .collect();
    let field = Field::new("".into(), dtype, false);
    ffi::export_iterator(Box::new(batches.into_iter().map(Ok)), field)
}
