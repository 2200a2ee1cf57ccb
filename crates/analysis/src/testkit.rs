//! Tiny hand-made stores for the analyses' unit tests: give each table the
//! few columns a test needs (timestamps as whole seconds since the epoch);
//! the rest of the canonical columns are filled with nulls and every column
//! is cast to its canonical type, so the analysis reads exactly what ingest
//! would have written.

use polars::prelude::*;
use tempfile::TempDir;

use crate::declare::{Analysis, Analyze};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::{ColType, Table};
use tracelab_store::parquet::dtype;
use tracelab_store::Store;

/// A store in a temporary folder, deleted on drop.
pub struct TinyStore {
    _dir: TempDir,
    pub ctx: Ctx,
}

/// Writes `tables` (partial frames) as a store.
pub fn store(tables: Vec<(&'static Table, DataFrame)>) -> TinyStore {
    let dir = tempfile::tempdir().expect("tempdir");
    for (table, df) in tables {
        let path = match table.trace {
            Some(t) => dir.path().join(t.name()).join(table.file_name()),
            None => dir.path().join(table.file_name()),
        };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut full = canonical(table, &df);
        let file = std::fs::File::create(&path).unwrap();
        ParquetWriter::new(file).finish(&mut full).unwrap();
    }
    let store = Store::open(dir.path()).expect("tiny store");
    TinyStore { _dir: dir, ctx: Ctx::new(store, None) }
}

/// Runs `analysis` over `t` with the (name, value) parameters, as the
/// registry would; panics on an error.
pub fn run<A: Analyze>(analysis: &'static A, t: &TinyStore, params: &[(&str, &str)]) -> Output {
    try_run(analysis, t, params).unwrap_or_else(|e| panic!("{}: {e}", A::ABOUT.id))
}

/// [`run`], returning the error.
pub fn try_run<A: Analyze>(
    analysis: &'static A,
    t: &TinyStore,
    params: &[(&str, &str)],
) -> tracelab_schema::error::Result<Output> {
    let given: Vec<(String, String)> = params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Analysis::of(analysis).run(&t.ctx, &given)
}

fn canonical(table: &Table, df: &DataFrame) -> DataFrame {
    let height = df.height();
    let columns: Vec<Column> = table
        .columns
        .iter()
        .map(|c| {
            let target = dtype(c.ty);
            match df.column(c.name) {
                Ok(given) if c.ty == ColType::Timestamp && given.dtype().is_integer() => {
                    let us = given.cast(&DataType::Int64).unwrap() * 1_000_000i64;
                    us.cast(&target).unwrap()
                }
                Ok(given) => given.cast(&target).unwrap(),
                Err(_) => Column::full_null(c.name.into(), height, &target),
            }
        })
        .collect();
    for name in df.get_column_names() {
        assert!(table.column(name).is_some(), "{} has no column {name}", table.qualified_name());
    }
    DataFrame::new(height, columns).unwrap()
}
