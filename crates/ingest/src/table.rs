//! One canonical table being ingested: its writer, its unique-key guard and
//! its record accounting (records in = written + rejected).

use polars::prelude::PlHashSet;

use super::record::Fault;
use super::rejects::{Rejects, RejectsPart};
use super::sink::{Finished, TableWriter, Value};
use tracelab_schema::error::Result;
use tracelab_schema::Table;
use tracelab_store::manifest::Counts;
use tracelab_store::publish::Staged;

/// Remembers the keys seen so far and refuses repeats. A key is kept as one
/// string, each part preceded by its length (`3:a,b1:c`), in a foldhash set
/// (SipHash and per-row allocations showed up at 5 % of PAI ingest time).
/// The lengths make the encoding unambiguous: joined with a separator,
/// `("a\x1fb", "c")` and `("a", "b\x1fc")` were the same key.
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

    /// Writes the key of `row` into `key` (cleared first), so that checking
    /// a row allocates only for a key that is kept.
    fn key_of(&self, row: &[Value<'_>], key: &mut String) {
        use std::fmt::Write;
        key.clear();
        for &i in &self.columns {
            let text = match row[i] {
                Value::Str(s) => std::borrow::Cow::Borrowed(s),
                other => other.key_text().into(),
            };
            // Writing into a String cannot fail.
            let _ = write!(key, "{}:{text}", text.len());
        }
    }

    /// The key's parts joined by commas, for the reject.
    fn shown(&self, row: &[Value<'_>]) -> String {
        self.columns.iter().map(|&i| row[i].key_text()).collect::<Vec<_>>().join(",")
    }

    /// Accepts the keys of all `rows` or none of them.
    fn check(&mut self, rows: &[Value<'_>], width: usize) -> Result<(), Fault> {
        let mut key = String::new();
        if rows.len() == width {
            // One row, the common case: no list of fresh keys.
            self.key_of(rows, &mut key);
            if self.seen.contains(key.as_str()) {
                return Err(self.duplicate(rows));
            }
            self.seen.insert(key.into_boxed_str());
            return Ok(());
        }
        let mut fresh: Vec<Box<str>> = Vec::with_capacity(rows.len() / width.max(1));
        for row in rows.chunks(width) {
            self.key_of(row, &mut key);
            if self.seen.contains(key.as_str()) || fresh.iter().any(|k| **k == *key) {
                return Err(self.duplicate(row));
            }
            fresh.push(key.as_str().into());
        }
        self.seen.extend(fresh);
        Ok(())
    }

    fn duplicate(&self, row: &[Value<'_>]) -> Fault {
        Fault::new(
            self.names.join("+"),
            self.shown(row),
            "duplicate key; expected each key once (the first occurrence was kept)",
        )
    }
}

pub struct TableIngest {
    staged: Staged,
    writer: TableWriter,
    keys: Option<KeyGuard>,
    rejects: Rejects,
    pub counts: Counts,
}

/// A table that is complete under its partial name, with its rejects.
pub struct TableDone {
    pub finished: (Staged, Finished),
    pub counts: Counts,
    pub rejects: RejectsPart,
}

impl TableIngest {
    /// Opens `table`, written at `staged`, its rejects collected in `rejects`.
    pub fn create(staged: Staged, table: &'static Table, rejects: Rejects) -> Result<TableIngest> {
        Ok(TableIngest {
            writer: TableWriter::create(staged.path.clone(), table)?,
            staged,
            keys: KeyGuard::new(table),
            rejects,
            counts: Counts::default(),
        })
    }

    /// Drops the unique-key guard (for a table whose key extends a parent's
    /// key that is already checked).
    pub fn without_key_guard(mut self) -> TableIngest {
        self.keys = None;
        self
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
        let finished = (self.staged, self.writer.finish()?);
        Ok(TableDone { finished, counts, rejects: self.rejects.finish()? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracelab_schema::pai;

    #[test]
    fn composite_keys_with_separator_characters_do_not_collide() {
        // pai/task's key is (job_name, task_name).
        let mut guard = KeyGuard::new(&pai::TASK).unwrap();
        let width = pai::TASK.columns.len();
        let row = |job: &'static str, task: &'static str| {
            let mut r = vec![Value::Null; width];
            r[0] = Value::Str(job);
            r[1] = Value::Str(task);
            r
        };
        assert!(guard.check(&row("a\u{1f}b", "c"), width).is_ok());
        assert!(guard.check(&row("a", "b\u{1f}c"), width).is_ok(), "a different key");
        // A record that maps to no row offers none: nothing to check.
        assert!(guard.check(&[], width).is_ok());
        let dup = guard.check(&row("a", "b\u{1f}c"), width).unwrap_err();
        assert_eq!((dup.column.as_str(), dup.raw.as_str()), ("job_name+task_name", "a,b\u{1f}c"));
    }
}
