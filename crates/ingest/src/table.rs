//! One canonical table being ingested: its writer, its unique-key guard and
//! its record accounting (records in = written + rejected).

use std::hash::BuildHasher;
use std::path::PathBuf;

use hashbrown::hash_table::{Entry, HashTable};
use polars::prelude::PlRandomState;

use super::record::Fault;
use super::rejects::{Rejects, RejectsPart};
use super::sink::{Derived, Finished, TableWriter, Value};
use tracelab_schema::error::Result;
use tracelab_schema::Table;
use tracelab_store::manifest::Counts;
use tracelab_store::publish::Staged;

/// Remembers the keys seen so far and refuses repeats. Every kept key is
/// appended to one arena of bytes, each part preceded by its length as 8
/// big-endian bytes (so `("a\x1fb", "c")` and `("a", "b\x1fc")` differ);
/// the hash table holds only each key's number, with its hash and place on
/// the side. A set of boxed strings cost a heap allocation per key, a
/// pointer chase per probe and a re-hash of every key when it grew; with a
/// million keys, every probe is a cache miss, so the table is kept small
/// (8 bytes a key).
///
/// Traces often list their records in key order (AcmeTrace's Seren by job
/// id). A key greater than every kept key cannot repeat, so it is only
/// kept, on a tail of keys not yet in the table, and nothing is probed
/// (those cache misses were a sixth of AcmeTrace's parsing). A key that is
/// not the greatest first moves the tail into the table, then is probed.
/// Comparing the encoded bytes orders keys part by part, by length and then
/// by bytes (the big-endian length prefix): a strict order, so "greater than
/// the greatest" means "new".
struct KeyGuard {
    columns: Vec<usize>,
    names: Vec<&'static str>,
    hasher: PlRandomState,
    /// Numbers into `keys`.
    seen: HashTable<usize>,
    /// (hash, start in `arena`, length) of every kept key.
    keys: Vec<(u64, usize, usize)>,
    arena: Vec<u8>,
    /// Kept keys from this number on are not in `seen` yet; each is greater
    /// than every key before it.
    tail: usize,
    /// The number of the greatest kept key.
    greatest: Option<usize>,
    /// The key being checked.
    scratch: Vec<u8>,
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
            tail: 0,
            greatest: None,
            scratch: Vec::new(),
        })
    }

    /// Writes the key of `row` into `key` (cleared first).
    fn key_of(&self, row: &[Value<'_>], key: &mut Vec<u8>) {
        key.clear();
        for &i in &self.columns {
            let mut part = |text: &[u8]| {
                key.extend_from_slice(&(text.len() as u64).to_be_bytes());
                key.extend_from_slice(text);
            };
            match row[i] {
                Value::Str(s) => part(s.as_bytes()),
                other => part(other.key_text().as_bytes()),
            }
        }
    }

    fn known(&mut self, hash: u64, key: &[u8]) -> bool {
        if self.after_last(key) {
            return false;
        }
        self.build_table();
        self.seen.find(hash, |&i| same(&self.keys, &self.arena, i, hash, key)).is_some()
    }

    /// Whether `key` is greater than every kept key.
    fn after_last(&self, key: &[u8]) -> bool {
        self.greatest.is_none_or(|i| {
            let (_, at, len) = self.keys[i];
            &self.arena[at..at + len] < key
        })
    }

    /// Puts the tail's keys into the table.
    fn build_table(&mut self) {
        let KeyGuard { seen, keys, tail, .. } = self;
        let fresh = &keys[*tail..];
        seen.reserve(fresh.len(), |&i| keys[i].0);
        for (i, &(hash, ..)) in fresh.iter().enumerate() {
            seen.insert_unique(hash, *tail + i, |&i| keys[i].0);
        }
        *tail = keys.len();
    }

    /// Keeps `key` unless it is known; says whether it was new. At most one
    /// probe of the table.
    fn insert(&mut self, hash: u64, key: &[u8]) -> bool {
        if self.after_last(key) {
            self.greatest = Some(self.keys.len());
            self.keys.push((hash, self.arena.len(), key.len()));
            self.arena.extend_from_slice(key);
            return true;
        }
        self.build_table();
        let KeyGuard { seen, keys, arena, tail, .. } = self;
        let entry = seen.entry(hash, |&i| same(keys, arena, i, hash, key), |&i| keys[i].0);
        match entry {
            Entry::Occupied(_) => false,
            Entry::Vacant(slot) => {
                slot.insert(keys.len());
                keys.push((hash, arena.len(), key.len()));
                arena.extend_from_slice(key);
                *tail = keys.len();
                true
            }
        }
    }

    /// Accepts the keys of all `rows` or none of them.
    fn check(&mut self, rows: &[Value<'_>], width: usize) -> Result<(), Fault> {
        // The key buffer is kept between records, whatever their outcome:
        // one allocation per table, not one per record.
        let mut key = std::mem::take(&mut self.scratch);
        let checked =
            if rows.len() == width { self.check_one(rows, &mut key) } else { self.check_many(rows, width, &mut key) };
        self.scratch = key;
        checked
    }

    /// One row, the common case: no list of fresh keys.
    fn check_one(&mut self, row: &[Value<'_>], key: &mut Vec<u8>) -> Result<(), Fault> {
        self.key_of(row, key);
        let hash = self.hasher.hash_one(&*key);
        if self.insert(hash, key) {
            Ok(())
        } else {
            Err(self.duplicate(row))
        }
    }

    fn check_many(&mut self, rows: &[Value<'_>], width: usize, key: &mut Vec<u8>) -> Result<(), Fault> {
        let mut fresh: Vec<(u64, Vec<u8>)> = Vec::with_capacity(rows.len() / width.max(1));
        for row in rows.chunks(width) {
            self.key_of(row, key);
            let hash = self.hasher.hash_one(&*key);
            if self.known(hash, key) || fresh.iter().any(|(h, k)| *h == hash && k == key) {
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
    /// The file of rows derived from this table's batches, if any.
    derived: Option<PathBuf>,
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
    /// The file of derived rows, complete.
    pub derived: Option<PathBuf>,
}

impl TableIngest {
    /// Opens `table`, written at `staged`, its rejects collected in
    /// `rejects`; with `derived`, also writing the rows it maps from each
    /// batch of written rows.
    pub fn create(
        staged: Staged,
        table: &'static Table,
        rejects: Rejects,
        derived: Option<Derived>,
    ) -> Result<TableIngest> {
        let derived_path = derived.as_ref().map(|d| d.path.clone());
        Ok(TableIngest {
            writer: TableWriter::create_deriving(staged.path.clone(), table, derived)?,
            derived: derived_path,
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
        Ok(TableDone { finished, counts, rejects: self.rejects.finish()?, derived: self.derived })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracelab_schema::pai;

    /// A `pai/task` row with its key, (job_name, task_name), and nulls.
    fn task_row(job: &'static str, task: &'static str) -> Vec<Value<'static>> {
        let mut r = vec![Value::Null; pai::TASK.columns.len()];
        r[0] = Value::Str(job);
        r[1] = Value::Str(task);
        r
    }

    #[test]
    fn composite_keys_with_separator_characters_do_not_collide() {
        // pai/task's key is (job_name, task_name).
        let mut guard = KeyGuard::new(&pai::TASK).unwrap();
        let (width, row) = (pai::TASK.columns.len(), task_row);
        assert!(guard.check(&row("a\u{1f}b", "c"), width).is_ok());
        assert!(guard.check(&row("a", "b\u{1f}c"), width).is_ok(), "a different key");
        // A record that maps to no row offers none: nothing to check.
        assert!(guard.check(&[], width).is_ok());
        let dup = guard.check(&row("a", "b\u{1f}c"), width).unwrap_err();
        assert_eq!((dup.column.as_str(), dup.raw.as_str()), ("job_name+task_name", "a,b\u{1f}c"));
    }

    /// A guard over `pai/job`, whose key is `job_name` alone.
    fn one_column_guard() -> (KeyGuard, usize) {
        let guard = KeyGuard::new(&pai::JOB).unwrap();
        (guard, pai::JOB.columns.len())
    }

    fn job_row(name: &'static str) -> Vec<Value<'static>> {
        let mut r = vec![Value::Null; pai::JOB.columns.len()];
        r[pai::JOB.columns.iter().position(|c| c.name == "job_name").unwrap()] = Value::Str(name);
        r
    }

    #[test]
    fn ascending_keys_then_a_repeat_of_any_earlier_key_is_refused() {
        // Ascending by length, then bytes: "9" < "10" < "11" < "100".
        for repeat in ["9", "10", "11", "100"] {
            let (mut guard, width) = one_column_guard();
            for name in ["9", "10", "11", "100"] {
                assert!(guard.check(&job_row(name), width).is_ok(), "{name} is new");
            }
            assert_eq!(guard.seen.len(), 0, "no table while keys ascend");
            let dup = guard.check(&job_row(repeat), width).unwrap_err();
            assert_eq!(dup.raw, repeat);
            assert_eq!(guard.seen.len(), 4, "the tail moved into the table");
            // The table now holds every earlier key, and new ones still pass.
            for name in ["9", "10", "11", "100"] {
                assert!(guard.check(&job_row(name), width).is_err(), "{name} repeats");
            }
            for name in ["5", "1000", "12"] {
                assert!(guard.check(&job_row(name), width).is_ok(), "{name} is new");
            }
            assert!(guard.check(&job_row("12"), width).is_err());
        }
    }

    #[test]
    fn an_ascending_run_after_keys_in_any_order_is_checked_too() {
        // AcmeTrace's shape: a few keys in no order (Kalos), then a long run
        // of ascending ones (Seren), then repeats of either.
        let (mut guard, width) = one_column_guard();
        for name in ["m", "c", "k", "n", "o", "p", "q"] {
            assert!(guard.check(&job_row(name), width).is_ok(), "{name} is new");
        }
        assert_eq!(guard.seen.len(), 3, "n, o, p and q only on the tail");
        for name in ["q", "n", "c", "m"] {
            assert!(guard.check(&job_row(name), width).is_err(), "{name} repeats");
        }
        assert_eq!(guard.seen.len(), 7);
        for name in ["d", "r", "s", "a"] {
            assert!(guard.check(&job_row(name), width).is_ok(), "{name} is new");
        }
        for name in ["d", "r", "s", "a", "k", "p"] {
            assert!(guard.check(&job_row(name), width).is_err(), "{name} repeats");
        }
    }

    #[test]
    fn random_runs_of_keys_agree_with_a_set() {
        // Ascending runs, random keys and repeats mixed, against a plain
        // HashSet of what was accepted.
        let names: Vec<&'static str> = (0..3000).map(|i| &*format!("{i}").leak()).collect();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut guard, width) = one_column_guard();
        let mut model = std::collections::HashSet::new();
        let mut cursor = 0;
        for _ in 0..20_000 {
            let i = match next(3) {
                0 => {
                    cursor = (cursor + 1 + next(3)) % names.len();
                    cursor
                }
                _ => next(names.len()),
            };
            let accepted = guard.check(&job_row(names[i]), width).is_ok();
            assert_eq!(accepted, model.insert(names[i]), "key {}", names[i]);
        }
    }

    #[test]
    fn keys_out_of_order_from_the_start_are_all_checked() {
        let (mut guard, width) = one_column_guard();
        for name in ["b", "a", "c"] {
            assert!(guard.check(&job_row(name), width).is_ok(), "{name} is new");
        }
        for name in ["a", "b", "c"] {
            assert!(guard.check(&job_row(name), width).is_err(), "{name} repeats");
        }
    }

    #[test]
    fn a_record_of_several_rows_is_checked_whole_in_either_mode() {
        // pai/task's key is (job_name, task_name); a record offering two rows
        // is taken whole or not at all.
        let mut guard = KeyGuard::new(&pai::TASK).unwrap();
        let (width, row) = (pai::TASK.columns.len(), task_row);
        let two = |a: Vec<Value<'static>>, b: Vec<Value<'static>>| [a, b].concat();
        assert!(guard.check(&two(row("j1", "t2"), row("j1", "t1")), width).is_ok(), "fresh and distinct");
        // A record repeating itself is refused and keeps none of its keys.
        assert!(guard.check(&two(row("j2", "t1"), row("j2", "t1")), width).is_err());
        assert!(guard.check(&row("j2", "t1"), width).is_ok(), "the refused record kept nothing");
        assert!(guard.check(&two(row("j3", "t1"), row("j1", "t1")), width).is_err(), "j1,t1 is known");
        assert!(guard.check(&row("j3", "t1"), width).is_ok());
    }
}
