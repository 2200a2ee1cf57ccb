//! The rejects table of a trace: every input record that could not be
//! ingested, with file, line, column, raw value and reason.
//!
//! Each canonical table collects its own rejects (tables are ingested in
//! parallel), in a hidden partial Parquet file created at the first reject;
//! [`merge`] then writes `<store>/<trace>/rejects.parquet` from the parts in
//! schema order, so the file is the same whatever order the tables finished
//! in. A few rejects are kept in memory for the summary printed after ingest.

use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::record::Fault;
use super::sink::{Finished, TableWriter, Value, BATCH_ROWS};
use tracelab_schema::error::{Error, Result};
use tracelab_schema::Table;

/// How many rejects are kept for display.
const SAMPLES: usize = 10;
/// Raw values are cut to this many characters.
const RAW_MAX: usize = 200;

/// One reject, as shown to the user.
#[derive(Debug, Clone, PartialEq)]
pub struct Reject {
    pub table: String,
    pub file: String,
    pub line: u64,
    pub fault: Fault,
}

impl std::fmt::Display for Reject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: column {}: {} (got {:?})",
            self.file,
            self.line,
            self.fault.column,
            self.fault.reason,
            cut(&self.fault.raw)
        )
    }
}

fn cut(s: &str) -> &str {
    match s.char_indices().nth(RAW_MAX) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// The rejects of one canonical table.
pub struct Rejects {
    dir: PathBuf,
    schema: &'static Table,
    table: &'static str,
    writer: Option<TableWriter>,
    count: u64,
    samples: Vec<Reject>,
}

/// A table's rejects, written under a partial name, waiting for [`merge`].
#[derive(Debug)]
pub struct RejectsPart {
    partial: Option<PathBuf>,
    pub count: u64,
    pub samples: Vec<Reject>,
}

impl Rejects {
    /// The rejects of `table`, to be stored with the schema `schema` (the
    /// trace's `rejects` table) in `dir`.
    pub fn new(dir: &Path, schema: &'static Table, table: &'static str) -> Rejects {
        Rejects { dir: dir.to_path_buf(), schema, table, writer: None, count: 0, samples: Vec::new() }
    }

    pub fn add(&mut self, file: &str, line: u64, fault: Fault) -> Result<()> {
        let writer = match &mut self.writer {
            Some(w) => w,
            None => {
                let partial = self.dir.join(format!(".rejects-{}.partial", self.table));
                self.writer.insert(TableWriter::create_at(partial.clone(), partial, self.schema)?)
            }
        };
        writer.push(&[
            Value::Str(self.table),
            Value::Str(file),
            Value::I64(line as i64),
            Value::Str(&fault.column),
            Value::Str(cut(&fault.raw)),
            Value::Str(&fault.reason),
        ])?;
        self.count += 1;
        if self.samples.len() < SAMPLES {
            self.samples.push(Reject { table: self.table.into(), file: file.into(), line, fault });
        }
        Ok(())
    }

    pub fn finish(self) -> Result<RejectsPart> {
        let partial = match self.writer {
            Some(w) => Some(w.finish()?.partial),
            None => None,
        };
        Ok(RejectsPart { partial, count: self.count, samples: self.samples })
    }
}

/// Writes the trace's rejects table from the tables' parts, in the given
/// order, a row group at a time; returns it with the total and the first
/// rejects for display.
pub fn merge(dir: &Path, schema: &'static Table, parts: Vec<RejectsPart>) -> Result<(Finished, u64, Vec<Reject>)> {
    let mut writer = TableWriter::create(dir, schema)?;
    let (mut total, mut samples) = (0, Vec::new());
    for part in parts {
        total += part.count;
        samples.extend(part.samples);
        let Some(partial) = part.partial else { continue };
        copy_into(&partial, &mut writer)?;
        std::fs::remove_file(&partial).map_err(|e| Error::io(&partial, e))?;
    }
    samples.truncate(SAMPLES);
    Ok((writer.finish()?, total, samples))
}

fn copy_into(partial: &Path, writer: &mut TableWriter) -> Result<()> {
    let context = || partial.display().to_string();
    let path = PlRefPath::new(partial.to_string_lossy().as_ref());
    let scan = LazyFrame::scan_parquet(path, ScanArgsParquet::default()).map_err(|e| Error::polars(context(), e))?;
    let mut offset = 0;
    loop {
        let df =
            scan.clone().slice(offset, BATCH_ROWS as IdxSize).collect().map_err(|e| Error::polars(context(), e))?;
        if df.height() == 0 {
            return Ok(());
        }
        offset += df.height() as i64;
        writer.push_frame(df)?;
    }
}
