//! Typed column buffers and the streaming Parquet writer of one canonical
//! table. Rows are appended as [`Value`]s; every `BATCH_ROWS` rows the
//! buffers become a Polars `DataFrame` that a writer thread encodes and
//! compresses while parsing goes on, so the two cores overlap. Each batch is
//! one Parquet row group, so the same input always gives the same bytes.
//!
//! A table is written to the path it is given: a publication's partial
//! file ([`tracelab_store::publish`]), which the store renames into place
//! once every table of the trace succeeded, or a scratch file.

use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

use polars::prelude::*;

use tracelab_schema::error::{Error, Result};
use tracelab_schema::{ColType, Table};
use tracelab_store::parquet::{polars_schema, ParquetFile, SharedPages, Written};

/// Rows per batch and so per Parquet row group.
pub const BATCH_ROWS: usize = 1 << 18;

/// One typed cell, borrowed from the input line where it is text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Null,
    Str(&'a str),
    I64(i64),
    F64(f64),
    /// UTC microseconds.
    Ts(i64),
    /// Days since the epoch.
    Date(i32),
}

impl<'a> Value<'a> {
    pub fn opt_f64(v: Option<f64>) -> Value<'a> {
        v.map_or(Value::Null, Value::F64)
    }

    pub fn opt_ts(v: Option<i64>) -> Value<'a> {
        v.map_or(Value::Null, Value::Ts)
    }

    pub fn opt_i64(v: Option<i64>) -> Value<'a> {
        v.map_or(Value::Null, Value::I64)
    }

    /// Text form used for unique-key checks and reject messages.
    pub fn key_text(&self) -> String {
        match self {
            Value::Null => String::new(),
            Value::Str(s) => (*s).to_string(),
            Value::I64(v) | Value::Ts(v) => v.to_string(),
            Value::F64(v) => v.to_string(),
            Value::Date(v) => v.to_string(),
        }
    }
}

enum Builder {
    Str(StringChunkedBuilder),
    I64(PrimitiveChunkedBuilder<Int64Type>),
    F64(PrimitiveChunkedBuilder<Float64Type>),
    Ts(PrimitiveChunkedBuilder<Int64Type>),
    Date(PrimitiveChunkedBuilder<Int32Type>),
}

impl Builder {
    fn new(name: &str, ty: ColType) -> Builder {
        let name = PlSmallStr::from_str(name);
        match ty {
            ColType::Str => Builder::Str(StringChunkedBuilder::new(name, BATCH_ROWS)),
            ColType::I64 => Builder::I64(PrimitiveChunkedBuilder::new(name, BATCH_ROWS)),
            ColType::F64 => Builder::F64(PrimitiveChunkedBuilder::new(name, BATCH_ROWS)),
            ColType::Timestamp => Builder::Ts(PrimitiveChunkedBuilder::new(name, BATCH_ROWS)),
            ColType::Date => Builder::Date(PrimitiveChunkedBuilder::new(name, BATCH_ROWS)),
        }
    }

    /// Appends one value; a value of the wrong type is a bug in the parser
    /// that produced it, not bad input, hence the panic.
    fn push(&mut self, v: Value<'_>) {
        match (self, v) {
            (Builder::Str(b), Value::Str(s)) => b.append_value(s),
            (Builder::Str(b), Value::Null) => b.append_null(),
            (Builder::I64(b), Value::I64(x)) | (Builder::Ts(b), Value::Ts(x)) => b.append_value(x),
            (Builder::I64(b) | Builder::Ts(b), Value::Null) => b.append_null(),
            (Builder::F64(b), Value::F64(x)) => b.append_value(x),
            (Builder::F64(b), Value::Null) => b.append_null(),
            (Builder::Date(b), Value::Date(x)) => b.append_value(x),
            (Builder::Date(b), Value::Null) => b.append_null(),
            (_, v) => panic!("value {v:?} does not match its column type"),
        }
    }

    fn finish(self) -> Column {
        let series = match self {
            Builder::Str(b) => b.finish().into_series(),
            Builder::I64(b) => b.finish().into_series(),
            Builder::F64(b) => b.finish().into_series(),
            Builder::Ts(b) => b.finish().into_datetime(TimeUnit::Microseconds, Some(TimeZone::UTC)).into_series(),
            Builder::Date(b) => b.finish().into_date().into_series(),
        };
        series.into_column()
    }
}

/// A complete Parquet file: what was written and how many rows.
#[derive(Debug)]
pub struct Finished {
    pub written: Written,
    pub rows: u64,
}

/// Rows derived from each batch of a table, written to a second file as
/// the batch is written (a trace's unified `jobs` rows, [`crate::unified::derive`]).
pub struct Derived {
    pub path: PathBuf,
    pub table: &'static Table,
    pub map: fn(LazyFrame) -> LazyFrame,
}

/// What the writer thread is asked to do, in order.
enum Job {
    /// Write a batch as one row group.
    Frame(DataFrame),
    /// Copy every row group of a file written the same way.
    Copy(PathBuf),
}

/// Streams rows of one canonical table into a Parquet file.
pub struct TableWriter {
    table: &'static Table,
    builders: Vec<Builder>,
    rows_in_batch: usize,
    rows: u64,
    tx: Option<SyncSender<Job>>,
    worker: Option<JoinHandle<Result<Written>>>,
    path: PathBuf,
    /// The writer thread's result once joined.
    written: Option<Written>,
}

impl TableWriter {
    /// Writes `table` to `path`.
    pub fn create(path: PathBuf, table: &'static Table) -> Result<TableWriter> {
        TableWriter::create_deriving(path, table, None)
    }

    /// Writes `table` to `path` and, when `derived` is given, the rows it
    /// derives from each batch to its own file.
    pub fn create_deriving(path: PathBuf, table: &'static Table, derived: Option<Derived>) -> Result<TableWriter> {
        let mut file = ParquetFile::create(&path, &polars_schema(table))?;
        let mut part = match derived {
            Some(d) => Some((ParquetFile::create(&d.path, &polars_schema(d.table))?, d)),
            None => None,
        };
        // Three batches in flight let parsing run ahead while a row group is
        // encoded; with one, ingest of the full PAI trace took 25 % longer.
        let (tx, rx) = sync_channel::<Job>(3);
        let worker =
            std::thread::Builder::new().name(format!("tl-write-{}", table.name)).spawn(move || -> Result<Written> {
                for job in rx {
                    match job {
                        Job::Frame(df) => match &mut part {
                            None => file.write(&df)?,
                            Some((part_file, d)) => {
                                // The derived rows share most of the batch's
                                // columns: each is encoded once, for both files.
                                let mut shared = SharedPages::default();
                                file.write_sharing(&df, &mut shared)?;
                                part_file.write_sharing(&derive_rows(d, df)?, &mut shared)?;
                            }
                        },
                        Job::Copy(from) => {
                            file.append_file(&from)?;
                        }
                    }
                }
                if let Some((part_file, _)) = part {
                    part_file.finish()?;
                }
                file.finish()
            });
        let worker = worker.map_err(|e| Error::io(&path, e))?;
        Ok(TableWriter {
            table,
            builders: fresh_builders(table),
            rows_in_batch: 0,
            rows: 0,
            tx: Some(tx),
            worker: Some(worker),
            path,
            written: None,
        })
    }

    pub fn table(&self) -> &'static Table {
        self.table
    }

    /// Appends one row; `values` follow the table's column order.
    pub fn push(&mut self, values: &[Value<'_>]) -> Result<()> {
        assert_eq!(values.len(), self.builders.len(), "row width of {}", self.table.qualified_name());
        for (b, v) in self.builders.iter_mut().zip(values) {
            b.push(*v);
        }
        self.rows_in_batch += 1;
        self.rows += 1;
        if self.rows_in_batch == BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends a whole frame of this table's schema as one row group.
    pub fn push_frame(&mut self, df: DataFrame) -> Result<()> {
        self.flush()?;
        self.rows += df.height() as u64;
        self.send(Job::Frame(df))
    }

    /// Appends the row groups of `part`, a file of this table's schema
    /// holding `rows` rows, by copying its pages.
    pub fn push_file(&mut self, part: PathBuf, rows: u64) -> Result<()> {
        self.flush()?;
        self.rows += rows;
        self.send(Job::Copy(part))
    }

    fn flush(&mut self) -> Result<()> {
        if self.rows_in_batch == 0 {
            return Ok(());
        }
        let builders = std::mem::replace(&mut self.builders, fresh_builders(self.table));
        let columns: Vec<Column> = builders.into_iter().map(Builder::finish).collect();
        let df = DataFrame::new(self.rows_in_batch, columns)
            .map_err(|e| Error::polars(self.path.display().to_string(), e))?;
        self.rows_in_batch = 0;
        self.send(Job::Frame(df))
    }

    fn send(&mut self, job: Job) -> Result<()> {
        let sent = self.tx.as_ref().expect("writer open").send(job);
        if sent.is_err() {
            // The writer thread stopped early; its error says why.
            return self.join().and(Err(Error::Usage("parquet writer stopped".into())));
        }
        Ok(())
    }

    fn join(&mut self) -> Result<()> {
        drop(self.tx.take());
        if let Some(handle) = self.worker.take() {
            self.written = Some(handle.join().expect("parquet writer thread panicked")?);
        }
        Ok(())
    }

    /// Writes the last batch and the footer.
    pub fn finish(mut self) -> Result<Finished> {
        self.flush()?;
        self.join()?;
        let written = self.written.take().expect("the writer thread finished");
        Ok(Finished { written, rows: self.rows })
    }
}

/// The derived rows of one batch, in one chunk (one row group).
fn derive_rows(d: &Derived, batch: DataFrame) -> Result<DataFrame> {
    let context = |e| Error::polars(d.path.display().to_string(), e);
    let mut rows = (d.map)(batch.lazy()).collect().map_err(context)?;
    rows.rechunk_mut();
    Ok(rows)
}

fn fresh_builders(table: &Table) -> Vec<Builder> {
    table.columns.iter().map(|c| Builder::new(c.name, c.ty)).collect()
}

impl Drop for TableWriter {
    fn drop(&mut self) {
        // An abandoned writer (an error elsewhere) leaves only its partial
        // file, which its publication removes.
        let _ = self.join();
    }
}
