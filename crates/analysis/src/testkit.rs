//! Tiny hand-made stores for the analyses' unit tests: give each table the
//! few columns a test needs (timestamps as whole seconds since the epoch);
//! the rest of the canonical columns are filled with nulls and every column
//! is cast to its canonical type, so the analysis reads exactly what ingest
//! would have written. The tables are published through the store, with a
//! manifest per trace, as ingest publishes them.

use polars::prelude::*;
use tempfile::TempDir;

use crate::declare::{Analysis, Analyze};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::{ColType, Table, Trace};
use tracelab_store::manifest::{Counts, Manifest, TableReport};
use tracelab_store::parquet::{dtype, ParquetFile};
use tracelab_store::publish::StoreWriter;
use tracelab_store::Store;

/// A store in a temporary folder, deleted on drop.
pub struct TinyStore {
    _dir: TempDir,
    pub ctx: Ctx,
}

/// Writes `tables` (partial frames) as a store.
pub fn store(tables: Vec<(&'static Table, DataFrame)>) -> TinyStore {
    let dir = tempfile::tempdir().expect("tempdir");
    publish(dir.path(), &tables, "");
    let store = Store::open(dir.path()).expect("tiny store");
    TinyStore { _dir: dir, ctx: Ctx::new(store) }
}

/// Publishes `tables` into the store at `root`, one publication per trace
/// (and one for the unified table), each manifest noting `note` (so that
/// the same tables with another note are other store content).
pub fn publish(root: &std::path::Path, tables: &[(&'static Table, DataFrame)], note: &str) {
    let mut writer = StoreWriter::open(root, &|_| {}).expect("tiny store writer");
    writer.exclusive(&|_| {}).expect("tiny store lock");
    for trace in Trace::ALL.iter().copied().map(Some).chain([None]) {
        let mine: Vec<_> = tables.iter().filter(|(t, _)| t.trace == trace).collect();
        if mine.is_empty() {
            continue;
        }
        let publication = match trace {
            Some(t) => writer.begin(t),
            None => writer.begin_unified(),
        }
        .expect("begin");
        let mut files = Vec::new();
        let mut reports = Vec::new();
        for (table, df) in mine {
            let staged = publication.stage(table);
            let full = canonical(table, df);
            let mut file = ParquetFile::create(&staged.path, full.schema()).expect("create");
            file.write(&full).expect("write");
            files.push((staged, file.finish().expect("finish")));
            let n = full.height() as u64;
            let counts = Counts { records_in: n, written: n, rejected: 0, rows: n };
            reports.push(TableReport { table: table.name.into(), source: "testkit".into(), counts });
        }
        match trace {
            Some(t) => {
                let manifest = Manifest::new(t, vec![], reports, 0, vec![note.to_string()]);
                publication.commit_trace(manifest, files).expect("commit");
            }
            None => {
                let file = files.pop().expect("the unified table");
                publication.commit_unified(vec![], file).expect("commit");
            }
        }
    }
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
