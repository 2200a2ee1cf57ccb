//! The derived-frame cache: the owners' frames ([`super::plans`]: `dfa`,
//! `dfiw`, `dfw`, `dfws`, `dfas`, and `sensor_times`) materialized once per
//! store content, so that an analysis reads the few columns it needs instead
//! of re-running the joins of 7 M instance rows on 60-character keys (14 s
//! and 4 GB for `dfws` at full scale) every time it needs a frame.
//!
//! What is stored is each frame's *row map*: for every frame row, the row
//! numbers of the canonical tables it joins (`task_row`, `job_row`,
//! `tag_row`, `inst_row`, `spec_row`, `sensor_row`; null where a left join
//! found nothing), plus the columns no table holds (`dfa`'s instance
//! aggregates, waits and group; `dfas`'s usage sums). A frame's columns are
//! then gathered from the canonical tables by those row numbers
//! ([`select`]), reading only the requested columns. Writing the joined
//! frames themselves (13 string columns of 60-character ids) took longer
//! than all the analyses together; the row maps are a few integer columns.
//!
//! The frames live in the store's cache ([`tracelab_store::cache`], kind
//! `derived`): one entry per store content, tracelab version and
//! [`DERIVED_VERSION`], holding `{dfa,dfiw,dfw,dfws,dfas,sensor_times}.parquet`
//! and `key.json` (the entry's key, [`DERIVED_VERSION`] and each frame's row
//! count). The store makes the key from its manifests (which hold the
//! SHA-256 of every input and every table), so a re-ingest, another
//! tracelab or a bumped [`DERIVED_VERSION`] (bump it whenever a frame's
//! definition changes) means another entry, built from scratch
//! ([`build`]); ingest deletes the old ones. While `key.json` and every
//! frame file exist the frames are read. The build keys the instance table
//! one join key at a time, so at most one key's strings are in memory
//! (peak about 1.5 GB at full scale, 5-6 s on 2 cores); the files take
//! 190 MB.
//!
//! Writes are atomic: every frame is written under a temporary name and
//! renamed into place, and `key.json` is written last. Two processes racing
//! build the same bytes (every join keeps its order; fixed row groups), so
//! either rename wins. When the cache cannot be written (a read-only store,
//! a full disk) the lazy plans are used instead: slower, same rows.

mod build;
pub mod columns;

use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde::{Deserialize, Serialize};

use super::super::frame::collect;
pub use super::plans::Frame;
use columns::Source;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::Table;
use tracelab_store::cache::{CacheEntry, CacheKind};
use tracelab_store::parquet::ParquetFile;
use tracelab_store::Store;

use crate::Ctx;

/// Bump whenever a derived frame's definition (rows, columns, order)
/// changes: every cached frame is then rebuilt.
pub const DERIVED_VERSION: u32 = 1;

/// Rows per Parquet row group of a derived file.
const ROW_GROUP: usize = 1 << 18;
const KEY_FILE: &str = "key.json";

/// The key file: which store content the frames were built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyFile {
    pub key: String,
    pub derived_version: u32,
    /// Rows per frame, by frame name.
    pub rows: Vec<(String, u64)>,
}

/// The cache entry of `store`'s derived frames.
pub fn entry(store: &Store) -> CacheEntry {
    store.cache(CacheKind::Derived, &[&DERIVED_VERSION.to_string()])
}

fn file_name(frame: Frame) -> String {
    format!("{}.parquet", frame.name())
}

fn path_of(store: &Store, frame: Frame) -> PathBuf {
    entry(store).path(&file_name(frame))
}

/// The entry's key file if it is complete.
pub fn key_file(entry: &CacheEntry) -> Option<KeyFile> {
    let bytes = entry.read(KEY_FILE)?;
    serde_json::from_slice::<KeyFile>(&bytes).ok().filter(|k| k.key == entry.key())
}

/// Peak memory of a build per `pai/instance` row: 1.44-1.53 GB for the
/// 7.18 M instances of the full-scale synthetic trace (`bench/pai.py`'s
/// cold pass), rounded up.
pub const BUILD_BYTES_PER_INSTANCE: u64 = 230;

/// Whether the frames are built and complete for `store`'s content (no
/// build is started).
pub fn is_built(store: &Store) -> bool {
    let entry = entry(store);
    key_file(&entry).is_some() && Frame::ALL.iter().all(|f| entry.path(&file_name(*f)).is_file())
}

/// The tables a build joins.
const BUILD_READS: [&Table; 6] = {
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, MACHINE_SPEC, SENSOR, TASK};
    [&JOB, &TASK, &INSTANCE, &SENSOR, &GROUP_TAG, &MACHINE_SPEC]
};

/// Whether the cache is usable, building it first when missing: `false`
/// when the store lacks a table the frames join or the cache cannot be
/// written (a read-only store, a full disk: the
/// lazy plans are used instead, same rows); any other failure of the build
/// is the error.
pub fn ensure(ctx: &Ctx) -> Result<bool> {
    let _one_at_a_time = ctx.derived_build.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if is_built(&ctx.store) {
        return Ok(true);
    }
    // A store without some of the tables the frames join (a partial PAI
    // download) cannot have them; the plans read what is there.
    if BUILD_READS.iter().any(|t| ctx.store.rows(t).is_none()) {
        return Ok(false);
    }
    let entry = entry(&ctx.store);
    match rebuild(ctx, &entry) {
        Ok(()) => Ok(true),
        Err(e) if cannot_write(&e, &entry) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether `e` is a failure to write the cache entry (rather than of the
/// build itself, which is the caller's error).
fn cannot_write(e: &Error, entry: &CacheEntry) -> bool {
    let dir = entry.path("");
    let within = |p: &Path| p.starts_with(&dir) || dir.starts_with(p);
    matches!(e, Error::Io { path, .. } if within(path))
}

/// Builds every frame and publishes them in `entry`, inside the caller's
/// [`crate::Hooks`].
fn rebuild(ctx: &Ctx, entry: &CacheEntry) -> Result<()> {
    let progress = |step: Option<&str>| {
        if let Some(hook) = &ctx.hooks.progress {
            hook(step);
        }
    };
    let mut built = None;
    let mut steps = || built = Some(rebuild_steps(&ctx.store, entry, &progress));
    match &ctx.hooks.around_build {
        Some(around) => around(&mut steps),
        None => steps(),
    }
    progress(None);
    built.expect("the hook around the derived-frame build runs it")
}

fn rebuild_steps(store: &Store, entry: &CacheEntry, progress: &dyn Fn(Option<&str>)) -> Result<()> {
    let frames = build::build(store, &|step| progress(Some(step)))?;
    progress(Some("writing the PAI derived frames"));
    // One thread per frame: a frame's file is written by one thread
    // (encoding, zstd, SHA-256), and the six together took about 0.8 s of
    // the full-scale build one after another.
    let parts = std::thread::scope(|scope| {
        let writers: Vec<_> = frames
            .into_iter()
            .map(|(frame, mut df)| {
                scope.spawn(move || write_part(entry, frame, &mut df).map(|part| (frame, part, df.height() as u64)))
            })
            .collect();
        writers.into_iter().map(|w| w.join().expect("a derived-frame writer panicked")).collect::<Vec<_>>()
    });
    let parts = parts.into_iter().collect::<Result<Vec<_>>>()?;
    let mut rows = Vec::new();
    for (frame, part, n) in parts {
        part.commit(entry)?;
        rows.push((frame.name().to_string(), n));
    }
    let key = KeyFile { key: entry.key().to_string(), derived_version: DERIVED_VERSION, rows };
    let text = serde_json::to_string_pretty(&key).expect("key file serializes");
    entry.write(KEY_FILE, (text + "\n").as_bytes())
}

/// The columns `names` of `frame`, in that order, from the cache (built
/// first if needed); `None` when the cache is unavailable.
pub fn select(ctx: &Ctx, frame: Frame, names: &[&str]) -> Result<Option<DataFrame>> {
    if !ensure(ctx)? {
        return Ok(None);
    }
    let store = &ctx.store;
    let all = columns::columns(frame);
    let mut wanted = Vec::new();
    for name in names {
        let source = all
            .iter()
            .find(|c| c.0 == *name)
            .map(|c| c.1)
            .ok_or_else(|| Error::Usage(format!("derived frame {} has no column `{name}`", frame.name())))?;
        wanted.push((*name, source));
    }
    assemble(store, frame, &wanted).map(Some)
}

/// The stored columns `wanted` needs from the derived file.
fn stored_needs(wanted: &[(&str, Source)]) -> Vec<String> {
    let mut need: Vec<String> = Vec::new();
    for (name, source) in wanted {
        let c = match source {
            Source::Stored => name.to_string(),
            Source::Gather { index, .. } => index.to_string(),
            Source::TagGroupOrUser => columns::TAG_ROW.to_string(),
        };
        if !need.contains(&c) {
            need.push(c);
        }
    }
    need
}

/// Reads the derived file's columns, then gathers each table's columns.
fn assemble(store: &Store, frame: Frame, wanted: &[(&str, Source)]) -> Result<DataFrame> {
    let need = stored_needs(wanted);
    let stored = collect(
        scan_file(&path_of(store, frame))?.select(need.iter().map(|c| col(c.as_str())).collect::<Vec<_>>()),
        &format!("derived {}", frame.name()),
    )?;
    let height = stored.height();
    // One read per (table, index) pair, of all the columns wanted from it.
    let mut gathered: Vec<(String, Column)> = Vec::new();
    let mut groups: Vec<(&'static Table, &'static str, Vec<&'static str>)> = Vec::new();
    for (_, source) in wanted {
        let (table, index, cs): (&'static Table, &'static str, Vec<&'static str>) = match *source {
            Source::Gather { table, index, column } => (table, index, vec![column]),
            Source::TagGroupOrUser => (&tracelab_schema::pai::GROUP_TAG, columns::TAG_ROW, vec!["group", "user"]),
            Source::Stored => continue,
        };
        match groups.iter_mut().find(|g| std::ptr::eq(g.0, table) && g.1 == index) {
            Some(g) => {
                for c in cs {
                    if !g.2.contains(&c) {
                        g.2.push(c);
                    }
                }
            }
            None => groups.push((table, index, cs)),
        }
    }
    for (table, index, cs) in groups {
        let rows = stored.column(index).map_err(|e| Error::polars(format!("derived {index}"), e))?;
        for (c, values) in cs.iter().zip(gather(store, table, rows, &cs)?) {
            gathered.push((format!("{}.{}.{c}", table.name, index), values));
        }
    }
    let pick = |table: &Table, index: &str, c: &str| -> Column {
        let key = format!("{}.{index}.{c}", table.name);
        gathered.iter().find(|g| g.0 == key).map(|g| g.1.clone()).expect("gathered above")
    };
    let mut out = Vec::with_capacity(wanted.len());
    for (name, source) in wanted {
        let column = match *source {
            Source::Stored => stored.column(name).map_err(|e| Error::polars(format!("derived {name}"), e))?.clone(),
            Source::Gather { table, index, column } => pick(table, index, column),
            Source::TagGroupOrUser => {
                let tags = &tracelab_schema::pai::GROUP_TAG;
                group_or_user(pick(tags, columns::TAG_ROW, "group"), pick(tags, columns::TAG_ROW, "user"))?
            }
        };
        out.push(column.with_name((*name).into()));
    }
    DataFrame::new(height, out).map_err(|e| Error::polars(format!("derived {}", frame.name()), e))
}

/// `table`'s columns `cs` at the row numbers `rows` (null row: null).
pub(crate) fn gather(store: &Store, table: &Table, rows: &Column, cs: &[&str]) -> Result<Vec<Column>> {
    let what = || format!("gather from {}", table.qualified_name());
    let src = collect(store.scan(table)?.select(cs.iter().map(|c| col(*c)).collect::<Vec<_>>()), &what())?;
    let rows = rows.cast(&IDX_DTYPE).map_err(|e| Error::polars(what(), e))?;
    let rows = rows.idx().map_err(|e| Error::polars(what(), e))?;
    cs.iter().map(|c| src.column(c).and_then(|s| s.take(rows)).map_err(|e| Error::polars(what(), e))).collect()
}

/// `coalesce(group, user)` of two gathered columns.
fn group_or_user(group: Column, user: Column) -> Result<Column> {
    let height = group.len();
    let df = DataFrame::new(height, vec![group.with_name("g".into()), user.with_name("u".into())])
        .map_err(|e| Error::polars("group", e))?;
    let out = collect(df.lazy().select([coalesce(&[col("g"), col("u")]).alias("group")]), "group")?;
    out.column("group").cloned().map_err(|e| Error::polars("group", e))
}

fn scan_file(path: &Path) -> Result<LazyFrame> {
    LazyFrame::scan_parquet(PlRefPath::new(path.to_string_lossy().as_ref()), ScanArgsParquet::default())
        .map_err(|e| Error::polars(format!("{}: cannot scan", path.display()), e))
}

/// A derived file written under a temporary name, renamed into place by
/// [`Part::commit`] (removed on drop otherwise).
struct Part {
    tmp: PathBuf,
    name: String,
}

/// Writes `df` as `frame`'s temporary file, in row groups of [`ROW_GROUP`].
fn write_part(entry: &CacheEntry, frame: Frame, df: &mut DataFrame) -> Result<Part> {
    let name = file_name(frame);
    let part = Part { tmp: entry.temporary(&name)?, name };
    let mut file = ParquetFile::create(&part.tmp, df.schema())?;
    for offset in (0..df.height()).step_by(ROW_GROUP) {
        let mut group = df.slice(offset as i64, ROW_GROUP);
        group.rechunk_mut_par();
        file.write(&group)?;
    }
    file.finish()?;
    Ok(part)
}

impl Part {
    fn commit(self, entry: &CacheEntry) -> Result<()> {
        entry.put(&self.tmp, &self.name)
    }
}

impl Drop for Part {
    fn drop(&mut self) {
        // After a commit the temporary name no longer exists.
        let _ = std::fs::remove_file(&self.tmp);
    }
}

#[cfg(test)]
mod tests;
