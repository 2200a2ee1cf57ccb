//! The rejects table of a trace: every input record that could not be
//! ingested, with file, line, column, raw value and reason.
//!
//! Each canonical table collects its own rejects (tables are ingested in
//! parallel), in a scratch Parquet file of the publication created at the
//! first reject; [`merge`] then writes the trace's `rejects.parquet` from
//! the parts in schema order, so the file is the same whatever order the
//! tables finished in. A few rejects are kept in memory for the summary
//! printed after ingest.
//!
//! Every text stored is cut to a bounded length ([`cut`]): a hostile record
//! (a 1 MiB line, a reason quoting a huge field) costs a few hundred bytes
//! in the rejects table, not its own size.

use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::record::Fault;
use super::sink::{Finished, TableWriter, Value, BATCH_ROWS};
use tracelab_schema::error::{Error, Result};
use tracelab_schema::Table;
use tracelab_store::publish::{Publication, Staged};

/// How many rejects are kept for display.
const SAMPLES: usize = 10;
/// Raw values, columns and reasons are cut to this many characters.
pub const TEXT_MAX: usize = 200;

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
            cut(&self.fault.column),
            cut(&self.fault.reason),
            cut(&self.fault.raw)
        )
    }
}

/// `s` cut to [`TEXT_MAX`] characters, marked with `...` when cut.
pub fn cut(s: &str) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(TEXT_MAX) {
        Some((i, _)) => format!("{}...", &s[..i]).into(),
        None => s.into(),
    }
}

/// The rejects of one canonical table.
pub struct Rejects {
    scratch: PathBuf,
    schema: &'static Table,
    table: &'static str,
    writer: Option<TableWriter>,
    count: u64,
    samples: Vec<Reject>,
}

/// A table's rejects, written to a scratch file, waiting for [`merge`].
#[derive(Debug)]
pub struct RejectsPart {
    scratch: Option<PathBuf>,
    pub count: u64,
    pub samples: Vec<Reject>,
}

impl Rejects {
    /// The rejects of `table`, to be stored with the schema `schema` (the
    /// trace's `rejects` table), written to `scratch` if there are any.
    pub fn new(scratch: PathBuf, schema: &'static Table, table: &'static str) -> Rejects {
        Rejects { scratch, schema, table, writer: None, count: 0, samples: Vec::new() }
    }

    pub fn add(&mut self, file: &str, line: u64, mut fault: Fault) -> Result<()> {
        let writer = match &mut self.writer {
            Some(w) => w,
            None => self.writer.insert(TableWriter::create(self.scratch.clone(), self.schema)?),
        };
        fault = Fault::new(cut(&fault.column), cut(&fault.raw), cut(&fault.reason));
        let file = cut(file);
        writer.push(&[
            Value::Str(self.table),
            Value::Str(&file),
            Value::I64(line as i64),
            Value::Str(&fault.column),
            Value::Str(&fault.raw),
            Value::Str(&fault.reason),
        ])?;
        self.count += 1;
        if self.samples.len() < SAMPLES {
            self.samples.push(Reject { table: self.table.into(), file: file.into_owned(), line, fault });
        }
        Ok(())
    }

    pub fn finish(self) -> Result<RejectsPart> {
        let scratch = match self.writer {
            Some(w) => {
                w.finish()?;
                Some(self.scratch)
            }
            None => None,
        };
        Ok(RejectsPart { scratch, count: self.count, samples: self.samples })
    }
}

/// Writes the trace's rejects table from the tables' parts, in the given
/// order, a row group at a time; returns it with the total and the first
/// rejects for display.
pub fn merge(
    publication: &Publication<'_>,
    schema: &'static Table,
    parts: Vec<RejectsPart>,
) -> Result<((Staged, Finished), u64, Vec<Reject>)> {
    let staged = publication.stage(schema);
    let mut writer = TableWriter::create(staged.path.clone(), schema)?;
    let (mut total, mut samples) = (0, Vec::new());
    for part in parts {
        total += part.count;
        samples.extend(part.samples);
        let Some(scratch) = part.scratch else { continue };
        copy_into(&scratch, &mut writer)?;
        std::fs::remove_file(&scratch).map_err(|e| Error::io(&scratch, e))?;
    }
    samples.truncate(SAMPLES);
    Ok(((staged, writer.finish()?), total, samples))
}

fn copy_into(scratch: &Path, writer: &mut TableWriter) -> Result<()> {
    let context = || scratch.display().to_string();
    let path = PlRefPath::new(scratch.to_string_lossy().as_ref());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_and_marked() {
        assert_eq!(cut("short"), "short");
        let long = "é".repeat(10_000_000);
        let c = cut(&long);
        assert_eq!(c.chars().count(), TEXT_MAX + 3);
        assert!(c.ends_with("..."));
    }
}
