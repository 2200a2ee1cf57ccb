//! The rejects table of a trace: every input record that could not be
//! ingested, with file, line, column, raw value and reason. Streams to
//! `<store>/<trace>/rejects.parquet` like any other table and keeps the first
//! few in memory for the summary printed after ingest.

use std::collections::BTreeMap;
use std::path::Path;

use super::record::Fault;
use super::sink::{Finished, TableWriter, Value};
use crate::error::Result;
use crate::schema::Table;

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

pub struct Rejects {
    writer: TableWriter,
    per_table: BTreeMap<String, u64>,
    samples: Vec<Reject>,
}

impl Rejects {
    pub fn create(dir: &Path, table: &'static Table) -> Result<Rejects> {
        Ok(Rejects { writer: TableWriter::create(dir, table)?, per_table: BTreeMap::new(), samples: Vec::new() })
    }

    pub fn add(&mut self, table: &str, file: &str, line: u64, fault: Fault) -> Result<()> {
        self.writer.push(&[
            Value::Str(table),
            Value::Str(file),
            Value::I64(line as i64),
            Value::Str(&fault.column),
            Value::Str(cut(&fault.raw)),
            Value::Str(&fault.reason),
        ])?;
        *self.per_table.entry(table.to_string()).or_default() += 1;
        if self.samples.len() < SAMPLES {
            self.samples.push(Reject { table: table.into(), file: file.into(), line, fault });
        }
        Ok(())
    }

    pub fn total(&self) -> u64 {
        self.per_table.values().sum()
    }

    pub fn finish(self) -> Result<(Finished, Vec<Reject>)> {
        Ok((self.writer.finish()?, self.samples))
    }
}
