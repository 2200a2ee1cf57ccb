//! One canonical table being ingested: its writer, its unique-key guard and
//! its record accounting (records in = written + rejected).

use std::hash::BuildHasher;

use hashbrown::hash_table::{Entry, HashTable};
use polars::prelude::PlRandomState;

use super::record::Fault;
use super::rejects::{Rejects, RejectsPart};
use super::sink::{Finished, TableWriter, Value};
use tracelab_schema::error::Result;
use tracelab_schema::Table;
use tracelab_store::manifest::Counts;
use tracelab_store::publish::Staged;

/// Remembers the keys seen so far and refuses repeats. Every kept key is
/// appended to one arena of bytes, each part preceded by its length as 8
/// bytes (so `("a\x1fb", "c")` and `("a", "b\x1fc")` differ); the hash
/// table holds only each key's number, with its hash and place on the side.
/// A set of boxed strings cost a heap allocation per key, a pointer chase
/// per probe and a re-hash of every key when it grew; with a million keys,
/// every probe is a cache miss, so the table is kept small (8 bytes a key).
struct KeyGuard {
    columns: Vec<usize>,
    names: Vec<&'static str>,
    hasher: PlRandomState,
    /// Numbers into `keys`.
    seen: HashTable<usize>,
    /// (hash, start in `arena`, length) of every kept key.
    keys: Vec<(u64, usize, usize)>,
    arena: Vec<u8>,
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
        Some(KeyGuard {
            columns,
            names: table.key.to_vec(),
            hasher: PlRandomState::default(),
            seen: HashTable::new(),
            keys: Vec::new(),
            arena: Vec::new(),
        })
    }

    /// Writes the key of `row` into `key` (cleared first).
    fn key_of(&self, row: &[Value<'_>], key: &mut Vec<u8>) {
        key.clear();
        for &i in &self.columns {
            let mut part = |text: &[u8]| {
                key.extend_from_slice(&(text.len() as u64).to_le_bytes());
                key.extend_from_slice(text);
            };
            match row[i] {
                Value::Str(s) => part(s.as_bytes()),
                other => part(other.key_text().as_bytes()),
            }
        }
    }

    fn known(&self, hash: u64, key: &[u8]) -> bool {
        self.seen.find(hash, |&i| same(&self.keys, &self.arena, i, hash, key)).is_some()
    }

    /// Keeps `key` unless it is known; says whether it was new. One probe
    /// of the table.
    fn insert(&mut self, hash: u64, key: &[u8]) -> bool {
        let KeyGuard { seen, keys, arena, .. } = self;
        let entry = seen.entry(hash, |&i| same(keys, arena, i, hash, key), |&i| keys[i].0);
        match entry {
            Entry::Occupied(_) => false,
            Entry::Vacant(slot) => {
                slot.insert(keys.len());
                keys.push((hash, arena.len(), key.len()));
                arena.extend_from_slice(key);
                true
            }
        }
    }

    /// Accepts the keys of all `rows` or none of them.
    fn check(&mut self, rows: &[Value<'_>], width: usize) -> Result<(), Fault> {
        let mut key = Vec::new();
        if rows.len() == width {
            // One row, the common case: no list of fresh keys.
            self.key_of(rows, &mut key);
            let hash = self.hasher.hash_one(&key);
            if !self.insert(hash, &key) {
                return Err(self.duplicate(rows));
            }
            return Ok(());
        }
        let mut fresh: Vec<(u64, Vec<u8>)> = Vec::with_capacity(rows.len() / width.max(1));
        for row in rows.chunks(width) {
            self.key_of(row, &mut key);
            let hash = self.hasher.hash_one(&key);
            if self.known(hash, &key) || fresh.iter().any(|(h, k)| *h == hash && *k == key) {
                return Err(self.duplicate(row));
            }
            fresh.push((hash, key.clone()));
        }
        for (hash, key) in fresh {
            self.insert(hash, &key);
        }
        Ok(())
    }

    /// The key's parts joined by commas, for the reject.
    fn shown(&self, row: &[Value<'_>]) -> String {
        self.columns.iter().map(|&i| row[i].key_text()).collect::<Vec<_>>().join(",")
    }

    fn duplicate(&self, row: &[Value<'_>]) -> Fault {
        Fault::new(
            self.names.join("+"),
            self.shown(row),
            "duplicate key; expected each key once (the first occurrence was kept)",
        )
    }
}

/// Whether kept key number `i` is `key` (of hash `hash`).
fn same(keys: &[(u64, usize, usize)], arena: &[u8], i: usize, hash: u64, key: &[u8]) -> bool {
    let (h, at, len) = keys[i];
    h == hash && &arena[at..at + len] == key
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
