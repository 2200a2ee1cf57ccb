//! One canonical table being ingested: its writer, its unique-key guard and
//! its record accounting (records in = written + rejected).

use std::path::Path;

use polars::prelude::PlHashSet;

use super::record::Fault;
use super::rejects::{Rejects, RejectsPart};
use super::sink::{Finished, TableWriter, Value};
use tracelab_schema::error::Result;
use tracelab_schema::Table;
use tracelab_store::manifest::Counts;

/// Remembers the keys seen so far and refuses repeats. Keys are kept as
/// their text joined by U+001F in a foldhash set (SipHash and per-row
/// allocations showed up at 5 % of PAI ingest time).
struct KeyGuard {
    columns: Vec<usize>,
    names: Vec<&'static str>,
    seen: PlHashSet<Box<str>>,
}

impl KeyGuard {
    fn new(table: &Table) -> Option<KeyGuard> {
        if table.key.is_empty() {
            return None;
        }
        let columns = table
            .key
            .iter()
            .map(|k| table.columns.iter().position(|c| c.name == *k).expect("key column exists"))
            .collect();
        Some(KeyGuard { columns, names: table.key.to_vec(), seen: PlHashSet::default() })
    }

    fn key_of(&self, row: &[Value<'_>]) -> String {
        let mut key = String::new();
        for (n, &i) in self.columns.iter().enumerate() {
            if n > 0 {
                key.push('\u{1f}');
            }
            match row[i] {
                Value::Str(s) => key.push_str(s),
                other => key.push_str(&other.key_text()),
            }
        }
        key
    }

    /// Accepts the keys of all `rows` or none of them.
    fn check(&mut self, rows: &[Value<'_>], width: usize) -> Result<(), Fault> {
        let mut fresh: Vec<Box<str>> = Vec::with_capacity(rows.len() / width.max(1));
        for row in rows.chunks(width) {
            let key: Box<str> = self.key_of(row).into();
            if self.seen.contains(&key) || fresh.contains(&key) {
                return Err(Fault::new(
                    self.names.join("+"),
                    key.replace('\u{1f}', ","),
                    "duplicate key; expected each key once (the first occurrence was kept)",
                ));
            }
            fresh.push(key);
        }
        self.seen.extend(fresh);
        Ok(())
    }
}

pub struct TableIngest {
    writer: TableWriter,
    keys: Option<KeyGuard>,
    rejects: Rejects,
    pub counts: Counts,
}

/// A table that is complete under its partial name, with its rejects.
pub struct TableDone {
    pub finished: Finished,
    pub counts: Counts,
    pub rejects: RejectsPart,
}

impl TableIngest {
    /// Opens `table` in `dir`; its rejects go to the trace's `rejects` table
    /// (schema `rejects`).
    pub fn create(dir: &Path, table: &'static Table, rejects: &'static Table) -> Result<TableIngest> {
        Ok(TableIngest {
            writer: TableWriter::create(dir, table)?,
            keys: KeyGuard::new(table),
            rejects: Rejects::new(dir, rejects, table.name),
            counts: Counts::default(),
        })
    }

    /// Like [`TableIngest::create`] without the unique-key guard.
    pub fn create_unchecked(dir: &Path, table: &'static Table, rejects: &'static Table) -> Result<TableIngest> {
        let mut t = TableIngest::create(dir, table, rejects)?;
        t.keys = None;
        Ok(t)
    }

    pub fn table(&self) -> &'static Table {
        self.writer.table()
    }

    pub fn width(&self) -> usize {
        self.table().columns.len()
    }

    /// Checks the unique keys of `rows` (a multiple of the table width) and
    /// writes them. A key fault writes nothing.
    pub fn offer(&mut self, rows: &[Value<'_>]) -> Result<Result<(), Fault>> {
        let width = self.width();
        if let Some(keys) = &mut self.keys {
            if let Err(f) = keys.check(rows, width) {
                return Ok(Err(f));
            }
        }
        for row in rows.chunks(width) {
            self.writer.push(row)?;
            self.counts.rows += 1;
        }
        Ok(Ok(()))
    }

    /// Counts a rejected record and lists it in the rejects table.
    pub fn reject(&mut self, file: &str, line: u64, fault: Fault) -> Result<()> {
        self.counts.rejected += 1;
        self.rejects.add(file, line, fault)
    }

    pub fn finish(self) -> Result<TableDone> {
        let counts = self.counts;
        Ok(TableDone { finished: self.writer.finish()?, counts, rejects: self.rejects.finish()? })
    }
}
