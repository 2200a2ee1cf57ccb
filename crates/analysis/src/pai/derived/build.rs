//! Builds the row maps of every derived frame, with the same joins as the
//! lazy plans ([`super::super::plans`]) but on row numbers:
//!
//! 1. Per joined table (sensor, task, group tag, machine spec), one at a
//!    time: its distinct join keys, each with an id (the first row holding
//!    it), and every row's id ([`Ids`]); then every instance row's id of
//!    that key (one-to-one, in row order; where a key is on several rows,
//!    the join on the id brings them all back later, as the string join
//!    would). The table's key strings are dropped before the next table is
//!    read, so at most one key's strings are in memory. The instance
//!    table's worker names are read whole once, with their 64-bit hashes,
//!    and matched to the sensor's by those hashes ([`match_by_hash`]); the
//!    other keys by a streamed join against the distinct keys.
//! 2. The repeated workers (`dfiw`'s dedupe) found by sorting the same
//!    hashes, and keyed by an integer; then the instance columns `dfa`'s
//!    aggregates and the dedupe need, read last.
//! 3. `dfa`'s instance aggregates by task-key id, in one pass over the
//!    rows ([`instance_aggregates`]); then `dfiw` (after which the keyed
//!    instance rows are freed), `dfw` and `dfws` by integer joins in the
//!    plans' order; `dfa` and `dfas` from the task, job and tag tables
//!    (one row per task); `sensor_times` from `dfiw`.
//!
//! Every join keeps left-then-right row order, so the output is
//! deterministic and ordered as the plans'. At full scale (7.2 M instances)
//! the build peaks at about 1.5 GB: holding every key's strings at once,
//! and grouping the worker names in a hash table, it peaked at 2.8 GB.

use polars::polars_utils::aliases::{PlSeedableRandomStateQuality, SeedableFromU64SeedExt};
use polars::polars_utils::kahan_sum::KahanSum;
use polars::prelude::*;

use super::super::super::frame::{collect, seconds_between};
use super::super::plans::{self, join_on, USAGE_SUMS};
use super::columns::{DFA_STORED, INST_ROW, JOB_ROW, SENSOR_ROW, SPEC_ROW, TAG_ROW, TASK_ROW};
use super::Frame;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, MACHINE_SPEC, SENSOR, TASK};
use tracelab_schema::Table;
use tracelab_store::Store;

/// Key-id columns of the lookups.
const TASK_KEY: &str = "task_key";
const TAG_KEY: &str = "tag_key";
const SPEC_KEY: &str = "spec_key";
const SENSOR_KEY: &str = "sensor_key";
/// A repeated worker's key: its first instance row.
const WORKER_KEY: &str = "worker_key";

fn cols_of(names: &[&str]) -> Vec<Expr> {
    names.iter().map(|c| col(*c)).collect()
}

/// The distinct keys of a table (`keys` + `id`) and its [`Ids`]. The key
/// strings are only needed while the instance table is keyed; [`Ids`] is
/// what the frames' joins keep.
struct Lookup {
    keys: DataFrame,
    ids: Ids,
}

/// Every row's key id of a table (`id`, `row`, in row order). `unique`:
/// every key is on one row, so a row's id is the row itself (the usual
/// case, where the id join is skipped and `rows` is empty).
struct Ids {
    rows: DataFrame,
    unique: bool,
    id: &'static str,
    row: &'static str,
}

fn lookup(store: &Store, table: &Table, keys: &[&str], row: &'static str, id: &'static str) -> Result<Lookup> {
    let what = format!("{} keys", table.qualified_name());
    let df = collect(store.scan(table)?.select(cols_of(keys)).with_row_index(row, None), &what)?;
    let mut k = cols_of(keys);
    k.push(col(id));
    if !has_repeats(&df, keys)? {
        // Every row its own id: the rows are the keys (no copy of the strings).
        let keys = collect(df.lazy().with_column(col(row).alias(id)).select(k), &what)?;
        return Ok(Lookup { keys, ids: Ids { rows: DataFrame::empty(), unique: true, id, row } });
    }
    let first = col(row).min().over(cols_of(keys)).map_err(|e| Error::polars(what.clone(), e))?;
    let df = collect(df.lazy().with_column(first.alias(id)), &what)?;
    let rows = collect(df.clone().lazy().select([col(id), col(row)]), &what)?;
    let keys = collect(df.lazy().filter(col(row).eq(col(id))).select(k), &what)?;
    Ok(Lookup { keys, ids: Ids { rows, unique: false, id, row } })
}

impl Ids {
    /// `lf` (with this table's id column) with the `row` of every matching
    /// row: a join on the id (`how` Left or Inner), or, with unique keys,
    /// the id itself.
    fn rows_of(&self, lf: LazyFrame, how: JoinType) -> LazyFrame {
        if !self.unique {
            return join_on(lf, self.rows.clone().lazy(), &[self.id], how);
        }
        let lf = lf.with_column(col(self.id).alias(self.row));
        match how {
            JoinType::Inner => lf.filter(col(self.row).is_not_null()),
            _ => lf,
        }
    }
}

/// The joined tables' [`Ids`], once the instance rows hold their key ids.
struct Lookups {
    task: Ids,
    tag: Ids,
    spec: Ids,
    sensor: Ids,
}

/// The id of every instance row's `keys` in `lookup` (a left join on the
/// distinct keys: one-to-one, in row order). Streamed: only a slice of the
/// instance table's key strings is in memory at a time, beside the lookup.
fn key_column(store: &Store, keys: &[&str], lookup: &Lookup) -> Result<Column> {
    let id = lookup.ids.id;
    let rows = store.scan(&INSTANCE)?.select(cols_of(keys));
    let keyed = join_on(rows, lookup.keys.clone().lazy(), keys, JoinType::Left).select([col(id)]);
    let df = streamed(keyed, &format!("instance {id}"))?;
    df.column(id).cloned().map_err(|e| Error::polars(id.to_string(), e))
}

/// Collects `lf` with Polars' streaming engine, which reads the scanned
/// table in slices (the joins here keep the left side's order either way).
// The closure names a method of a type Polars does not re-export.
#[allow(clippy::redundant_closure_for_method_calls)]
fn streamed(lf: LazyFrame, what: &str) -> Result<DataFrame> {
    lf.collect_with_engine(Engine::Streaming).map(|r| r.unwrap_single()).map_err(|e| Error::polars(what.to_string(), e))
}

/// The 64-bit hash of every row of `columns` together (fixed seed; nulls
/// hash alike): equal rows hash equally.
fn hashes(columns: &[&Series], what: &str) -> Result<Vec<u64>> {
    let mut hashes = Vec::with_capacity(columns.first().map_or(0, |s| s.len()));
    let state = PlSeedableRandomStateQuality::seed_from_u64(0);
    for (i, s) in columns.iter().enumerate() {
        let hashed = match i {
            0 => s.vec_hash(state.clone(), &mut hashes),
            _ => s.vec_hash_combine(state.clone(), &mut hashes),
        };
        hashed.map_err(|e| Error::polars(what.to_string(), e))?;
    }
    Ok(hashes)
}

/// Whether two rows of `df` have the same `keys` (nulls equal): exact. The
/// 64-bit hashes of the keys are sorted and compared first (an integer
/// sort, much cheaper than hashing millions of 60-character strings into a
/// set); only when two hashes are equal are the keys themselves counted.
fn has_repeats(df: &DataFrame, keys: &[&str]) -> Result<bool> {
    let what = || format!("{} hashes", keys.join(", "));
    let columns = keys
        .iter()
        .map(|k| df.column(k).map(Column::as_materialized_series))
        .collect::<PolarsResult<Vec<_>>>()
        .map_err(|e| Error::polars(what(), e))?;
    let mut hashes = hashes(&columns, &what())?;
    hashes.sort_unstable();
    if hashes.windows(2).all(|w| w[0] != w[1]) {
        return Ok(false);
    }
    let distinct = collect(df.clone().lazy().select(cols_of(keys)).unique(None, UniqueKeepStrategy::Any), &what())?;
    Ok(distinct.height() < df.height())
}

/// The instance table's worker names and their 64-bit [`hashes`], read
/// once: the sensor join ([`ids_by_hash`]) and the repeated workers
/// ([`worker_columns`]) both use them.
struct WorkerNames {
    names: Series,
    hashes: Vec<u64>,
}

fn worker_names(store: &Store) -> Result<WorkerNames> {
    let what = "worker names";
    let names = collect(store.scan(&INSTANCE)?.select([col("worker_name")]), what)?;
    let names = names.column("worker_name").map_err(|e| Error::polars(what, e))?.as_materialized_series().clone();
    let hashes = hashes(&[&names], what)?;
    Ok(WorkerNames { names, hashes })
}

/// Per instance row: whether it has a worker, whether that worker is on
/// several rows (`repeated`) and, for those, the worker's key
/// (`worker_key`: the first instance row with that name), which is what
/// `dfiw`'s dedupe groups by, so no worker name is kept.
///
/// Grouping 7 M names in a hash table took 2 GB; instead every name is
/// hashed to 64 bits and the hashes sorted: a row whose hash no other row
/// has is a worker that occurs once (equal names hash equally). Only the
/// rows whose hash repeats (the repeated workers, plus any collision) are
/// grouped by their names, exactly.
fn worker_columns(workers: &WorkerNames) -> Result<DataFrame> {
    let what = "worker keys";
    let named = workers.names.is_not_null();
    let key = worker_keys(&workers.names, &repeated_hashes(&workers.hashes, &named))?;
    let repeated = key.is_not_null().with_name("repeated".into());
    let columns = vec![named.with_name("has_worker".into()).into_column(), repeated.into_column(), key.into_column()];
    DataFrame::new(columns[0].len(), columns).map_err(|e| Error::polars(what, e))
}

/// Per row of `names`: the first row with the same name when that name is
/// on several rows, else null. Only the `candidates` rows are grouped (by
/// their names, exactly): they must include every row of a repeated name.
fn worker_keys(names: &Series, candidates: &[IdxSize]) -> Result<IdxCa> {
    let what = "worker keys";
    let rows = Column::new(INST_ROW.into(), candidates);
    let gathered = names.take_slice(candidates).map_err(|e| Error::polars(what, e))?;
    let repeats = DataFrame::new(candidates.len(), vec![rows, gathered.into()]).map_err(|e| Error::polars(what, e))?;
    let over = |e: Expr| e.over([col("worker_name")]).map_err(|e| Error::polars(what, e));
    let repeats = repeats
        .lazy()
        .filter(col("worker_name").is_not_null())
        .with_columns([over(col(INST_ROW).min())?.alias(WORKER_KEY), over(len())?.alias("rows")])
        .filter(col("rows").gt(lit(1)))
        .select([col(INST_ROW), col(WORKER_KEY)]);
    let repeats = collect(repeats, what)?;
    let values = |name: &str| -> Result<Vec<IdxSize>> {
        let ca = repeats.column(name).and_then(|c| c.idx()).map_err(|e| Error::polars(what, e))?;
        Ok(ca.downcast_iter().flat_map(|a| a.values_iter().copied()).collect())
    };
    let mut key: Vec<Option<IdxSize>> = vec![None; names.len()];
    for (row, k) in values(INST_ROW)?.into_iter().zip(values(WORKER_KEY)?) {
        key[row as usize] = Some(k);
    }
    Ok(IdxCa::from_iter_options(WORKER_KEY.into(), key.into_iter()))
}

/// The rows (ascending) of the `named` rows whose 64-bit hash (of their
/// name, in `hashes`) is on more than one named row. The (hash, row) pairs
/// are split by the hash's top bit, so equal hashes share a half, and the
/// halves sorted on both cores (7.2 M pairs at full scale).
fn repeated_hashes(hashes: &[u64], named: &BooleanChunked) -> Vec<IdxSize> {
    let pairs = hashes
        .iter()
        .zip(named.downcast_iter().flat_map(|a| a.values_iter()))
        .enumerate()
        .filter(|(_, (_, named))| *named)
        .map(|(row, (h, _))| (*h, row as IdxSize));
    let (mut low, mut high): (Vec<_>, Vec<_>) = pairs.partition(|(h, _)| h >> 63 == 0);
    let repeated = |pairs: &mut Vec<(u64, IdxSize)>| -> Vec<IdxSize> {
        pairs.sort_unstable();
        let runs = pairs.chunk_by(|a, b| a.0 == b.0).filter(|run| run.len() > 1);
        runs.flat_map(|run| run.iter().map(|p| p.1)).collect()
    };
    let mut rows = std::thread::scope(|s| {
        let other = s.spawn(|| repeated(&mut high));
        let mut rows = repeated(&mut low);
        rows.extend(other.join().expect("a sorting thread panicked"));
        rows
    });
    rows.sort_unstable();
    rows
}

/// The id in `lookup` (keyed by one string column, `key`) of every row of
/// `probe`, matched by 64-bit hashes ([`match_by_hash`]); `None` when two
/// of the lookup's keys share a hash, where only the string join
/// ([`key_column`]) is exact.
///
/// The sensor join this replaces read the instance table's 7 M worker
/// names a second time and joined them as strings (0.8-1.5 s of the
/// full-scale build); with this and the frame files written side by side
/// the build takes about 0.9 CPU-seconds and 0.6 s less.
fn ids_by_hash(probe: &WorkerNames, lookup: &Lookup, key: &str) -> Result<Option<IdxCa>> {
    let what = format!("{} by hash", lookup.ids.id);
    let fail = |e| Error::polars(what.clone(), e);
    let keys = lookup.keys.column(key).map_err(fail)?.as_materialized_series();
    let key_hashes = hashes(&[keys], &what)?;
    let ids = lookup.keys.column(lookup.ids.id).and_then(|c| c.idx()).map_err(fail)?;
    let (keys, names) = (keys.str().map_err(fail)?, probe.names.str().map_err(fail)?);
    let found = match_by_hash((names, &probe.hashes), (keys, &key_hashes), ids);
    Ok(found.map(|found| IdxCa::from_iter_options(lookup.ids.id.into(), found.into_iter())))
}

/// Every instance row's sensor key, when the sensor's worker names are all
/// present and their 64-bit hashes distinct (so the names are too): the
/// usual case, where a sensor row's key is the row itself ([`Ids`] with
/// `unique`), found by [`match_by_hash`] on one hashing of the names.
/// [`lookup`] would hash and sort them first only to learn they are
/// distinct. `None` otherwise, for the general lookup.
fn distinct_sensor_ids(store: &Store, workers: &WorkerNames) -> Result<Option<(IdxCa, Ids)>> {
    let what = "sensor keys";
    let fail = |e| Error::polars(what, e);
    let df = collect(store.scan(&SENSOR)?.select([col("worker_name")]), what)?;
    let names = df.column("worker_name").map_err(fail)?.as_materialized_series();
    if names.null_count() > 0 {
        return Ok(None);
    }
    let key_hashes = hashes(&[names], what)?;
    let rows = IdxCa::from_vec(SENSOR_KEY.into(), (0..names.len() as IdxSize).collect());
    let (names, probe) = (names.str().map_err(fail)?, workers.names.str().map_err(fail)?);
    let Some(found) = match_by_hash((probe, &workers.hashes), (names, &key_hashes), &rows) else {
        return Ok(None);
    };
    let ids = IdxCa::from_iter_options(SENSOR_KEY.into(), found.into_iter());
    Ok(Some((ids, Ids { rows: DataFrame::empty(), unique: true, id: SENSOR_KEY, row: SENSOR_ROW })))
}

/// A left join of `probe` on distinct `keys` (each a string column with
/// its rows' hashes), giving each probe row the `ids` value of the key
/// with its string. The keys go into a hash table by their hashes; a probe
/// row takes the key with its hash, and the two strings are compared, so a
/// name that only shares a hash with a key finds nothing, as the string
/// join would. Null never matches (as in the joins). `None` when two keys
/// share a hash: a probe row could then match either. The probe rows are
/// matched in two halves, one per core (7.2 M worker names at full scale).
fn match_by_hash(
    probe: (&StringChunked, &[u64]),
    keys: (&StringChunked, &[u64]),
    ids: &IdxCa,
) -> Option<Vec<Option<IdxSize>>> {
    let mut by_hash: PlHashMap<u64, (&str, IdxSize)> = PlHashMap::with_capacity(keys.0.len());
    for ((key, h), id) in keys.0.iter().zip(keys.1).zip(ids.iter()) {
        let (Some(key), Some(id)) = (key, id) else { continue };
        if by_hash.insert(*h, (key, id)).is_some() {
            return None;
        }
    }
    // The probe rows in two halves, one per core, each written in place.
    let mut found = vec![None; probe.1.len()];
    let (first, second) = found.split_at_mut(probe.1.len() / 2);
    let fill = |out: &mut [Option<IdxSize>], from: usize| {
        let names = probe.0.slice(from as i64, out.len());
        for ((slot, name), h) in out.iter_mut().zip(names.iter()).zip(&probe.1[from..]) {
            *slot = by_hash.get(h).and_then(|(key, id)| (name? == *key).then_some(*id));
        }
    };
    let at = first.len();
    std::thread::scope(|s| {
        s.spawn(|| fill(second, at));
        fill(first, 0);
    });
    Some(found)
}

/// Every instance row keyed: row number, the four key ids, the columns of
/// `dfa`'s aggregates, and the dedupe inputs; and the joined tables' ids.
/// One lookup at a time: its key strings, and that key's strings of the
/// instance table, are dropped before the next is read.
fn key_instances(store: &Store) -> Result<(DataFrame, Lookups)> {
    let mut columns = Vec::new();
    // The sensor key first: its join holds the most (3.6 M sensor names at
    // full scale), so it runs while the fewest key columns are kept; the
    // instance table's worker names are read once for it and the repeated
    // workers, and dropped before the other keys.
    let workers = worker_names(store)?;
    let sensor = match distinct_sensor_ids(store, &workers)? {
        Some((ids, sensor)) => {
            columns.push(ids.into_column());
            sensor
        }
        None => {
            let sensor = lookup(store, &SENSOR, &["worker_name"], SENSOR_ROW, SENSOR_KEY)?;
            columns.push(match ids_by_hash(&workers, &sensor, "worker_name")? {
                Some(ids) => ids.into_column(),
                None => key_column(store, &["worker_name"], &sensor)?,
            });
            sensor.ids
        }
    };
    let worker = worker_columns(&workers)?;
    drop(workers);
    let mut key = |table: &Table, keys: &[&str], row, id| -> Result<Ids> {
        let l = lookup(store, table, keys, row, id)?;
        columns.push(key_column(store, keys, &l)?);
        Ok(l.ids)
    };
    let task = key(&TASK, &["job_name", "task_name"], TASK_ROW, TASK_KEY)?;
    let tag = key(&GROUP_TAG, &["inst_id"], TAG_ROW, TAG_KEY)?;
    let spec = key(&MACHINE_SPEC, &["machine"], SPEC_ROW, SPEC_KEY)?;
    columns.extend(worker.into_columns());
    // Read last, so that they are not in memory while the keys are joined.
    let values = collect(
        store.scan(&INSTANCE)?.select(cols_of(&["status", "start_time", "end_time", "run_s"])),
        "instance values",
    )?;
    let n = values.height();
    columns.insert(0, Column::new(INST_ROW.into(), (0..n as IdxSize).collect::<Vec<_>>()));
    columns.extend(values.into_columns());
    let keyed = DataFrame::new(n, columns).map_err(|e| Error::polars("instance rows", e))?;
    Ok((keyed, Lookups { task, tag, spec, sensor }))
}

/// `dfiw`'s row map (with the key ids `dfw` needs): the instance rows with
/// a worker, those of repeated workers deduplicated. Takes the keyed rows,
/// so they are freed before the other frames are built.
fn workers_frame(keyed: DataFrame) -> Result<DataFrame> {
    let named = keyed.lazy().filter(col("has_worker"));
    let single = named.clone().filter(col("repeated").not());
    let deduplicated = plans::deduplicate(named.filter(col("repeated")), WORKER_KEY);
    let ids = [INST_ROW, TASK_KEY, TAG_KEY, SPEC_KEY, SENSOR_KEY];
    let dfiw = concat([single.select(cols_of(&ids)), deduplicated.select(cols_of(&ids))], UnionArgs::default())
        .map_err(|e| Error::polars("dfiw", e))?;
    collect(dfiw, "dfiw")
}

/// `dfw` and `dfws` row maps (with the task key id `dfas` needs).
fn instance_frames(dfiw: &DataFrame, l: &Lookups) -> Result<(DataFrame, DataFrame)> {
    let dfw = l.tag.rows_of(l.task.rows_of(dfiw.clone().lazy(), JoinType::Left), JoinType::Left);
    let dfw = collect(dfw, "dfw")?;
    let dfws = l.sensor.rows_of(l.spec.rows_of(dfw.clone().lazy(), JoinType::Left), JoinType::Inner);
    let dfws = collect(dfws, "dfws")?;
    Ok((dfw, dfws))
}

/// `dfa`'s instance aggregates, per task key id: the greatest status, the
/// first start, the last end and the mean run time of the task's instance
/// rows (`status_i`, `start_time_i`, `end_time_i`, `runtime_i_s`).
///
/// One pass over the keyed rows into an array indexed by the key id, in
/// row order. Polars' GROUP BY of the 7.2 M rows by 1.3 M keys took 0.9 s
/// of the full-scale build; this takes a fraction of it. The mean is
/// Polars' grouped mean ([`GroupedFloats`]), so the frames keep their
/// bytes. Rows without a key are in no task (the join on the key drops
/// them).
fn instance_aggregates(keyed: &DataFrame) -> Result<DataFrame> {
    let what = "instance aggregates";
    let fail = |e| Error::polars(what, e);
    let column = |name: &str| keyed.column(name).map(|c| c.as_materialized_series().rechunk()).map_err(fail);
    let (key, status, run) = (column(TASK_KEY)?, column("status")?, column("run_s")?);
    let (start, end) = (column("start_time")?, column("end_time")?);
    let (key, status, run) = (key.idx().map_err(fail)?, status.str().map_err(fail)?, run.f64().map_err(fail)?);
    let times = |s: &Series| s.to_physical_repr().i64().map_err(fail).cloned();
    let (start_i, end_i) = (times(&start)?, times(&end)?);
    let groups = key.iter().flatten().max().map_or(0, |k| k as usize + 1);
    let mut tasks: Vec<TaskInstances> = vec![TaskInstances::default(); groups];
    let rows = key.iter().zip(status.iter()).zip(start_i.iter()).zip(end_i.iter()).zip(run.iter());
    for ((((k, st), s), e), r) in rows {
        if let Some(k) = k {
            tasks[k as usize].add(st, s, e, r);
        }
    }
    let seen = || tasks.iter().enumerate().filter(|(_, t)| t.run_s.rows > 0);
    let keys: Vec<IdxSize> = seen().map(|(k, _)| k as IdxSize).collect();
    let status_i = StringChunked::from_iter_options("status_i".into(), seen().map(|(_, t)| t.status));
    let time_column = |name: &str, values: Vec<Option<i64>>, like: &Series| {
        Int64Chunked::from_iter_options(name.into(), values.into_iter()).into_series().cast(like.dtype())
    };
    let start_i = time_column("start_time_i", seen().map(|(_, t)| t.start).collect(), &start).map_err(fail)?;
    let end_i = time_column("end_time_i", seen().map(|(_, t)| t.end).collect(), &end).map_err(fail)?;
    let mean = Float64Chunked::from_iter_options("runtime_i_s".into(), seen().map(|(_, t)| t.run_s.mean()));
    let columns: Vec<Column> = vec![
        IdxCa::from_vec(TASK_KEY.into(), keys).into_column(),
        status_i.into_column(),
        start_i.into_column(),
        end_i.into_column(),
        mean.into_column(),
    ];
    DataFrame::new(columns[0].len(), columns).map_err(fail)
}

/// What [`instance_aggregates`] keeps of one task's instance rows.
#[derive(Clone, Default)]
struct TaskInstances<'a> {
    status: Option<&'a str>,
    start: Option<i64>,
    end: Option<i64>,
    /// The run times; its row count is the task's.
    run_s: GroupedFloats,
}

impl<'a> TaskInstances<'a> {
    /// One instance row; nulls are skipped, as an aggregate skips them.
    fn add(&mut self, status: Option<&'a str>, start: Option<i64>, end: Option<i64>, run_s: Option<f64>) {
        self.status = self.status.max(status);
        self.start = match (self.start, start) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.end = self.end.max(end);
        self.run_s.add(run_s);
    }
}

/// One group's float values reduced as Polars' grouped sum and mean reduce
/// them (polars-core 0.55 `agg_sum`, `agg_mean`), so that the derived frames
/// keep the bytes Polars' GROUP BY gave them: a one-row group's value as it
/// is (a Kahan sum from 0.0 would turn -0.0 into 0.0), else a Kahan sum of
/// the non-null values in row order.
#[derive(Clone, Default)]
struct GroupedFloats {
    /// Rows added, nulls included.
    rows: u32,
    first: Option<f64>,
    sum: KahanSum<f64>,
    values: u32,
}

impl GroupedFloats {
    fn add(&mut self, value: Option<f64>) {
        if self.rows == 0 {
            self.first = value;
        }
        self.rows += 1;
        if let Some(v) = value {
            self.sum += v;
            self.values += 1;
        }
    }

    /// `SUM`: nulls add nothing, and a group of nulls sums to 0.
    fn sum(&self) -> f64 {
        match self.rows {
            1 => self.first.unwrap_or(0.0),
            _ => self.sum.sum(),
        }
    }

    /// `AVG`: null for a group of nulls.
    fn mean(&self) -> Option<f64> {
        match (self.rows, self.values) {
            (1, _) => self.first,
            (_, 0) => None,
            (_, n) => Some(self.sum.sum() / n as f64),
        }
    }
}

/// `dfa`: the plan's joins on the task, job and tag rows, with the instance
/// aggregates of every instance row keyed to the task's key.
fn task_frame(store: &Store, aggregates: DataFrame, l: &Lookups) -> Result<DataFrame> {
    let aggregates = aggregates.lazy();
    // The first start of the task's job, over all its tasks (a window on
    // job_name: one grouping of the names instead of a GROUP BY and a join).
    let first = col("start_time").min().over([col("job_name")]).map_err(|e| Error::polars("dfa", e))?;
    let task = store.scan(&TASK)?.with_row_index(TASK_ROW, None).select([
        col(TASK_ROW),
        col("job_name"),
        col("start_time"),
        col("end_time"),
        first.alias("first_task_start"),
    ]);
    let jobs = store.scan(&JOB)?.with_row_index(JOB_ROW, None).select([
        col(JOB_ROW),
        col("job_name"),
        col("inst_id"),
        col("user"),
        col("start_time").alias("start_time_j"),
    ]);
    let tags = store.scan(&GROUP_TAG)?.with_row_index(TAG_ROW, None).select(cols_of(&[TAG_ROW, "inst_id", "group"]));
    let dfa = join_on(task, jobs, &["job_name"], JoinType::Inner)
        .with_column(seconds_between(col("end_time"), col("start_time")).alias("runtime_s"));
    // The task row's key id (itself when the task keys are unique).
    let dfa = match l.task.unique {
        true => dfa.with_column(col(TASK_ROW).alias(TASK_KEY)),
        false => join_on(dfa, l.task.rows.clone().lazy(), &[TASK_ROW], JoinType::Left),
    };
    let dfa = join_on(dfa, aggregates, &[TASK_KEY], JoinType::Inner);
    let dfa = dfa.with_columns([
        seconds_between(col("start_time_i"), col("start_time")).alias("wait_s"),
        seconds_between(col("first_task_start"), col("start_time_j")).alias("job_wait_s"),
    ]);
    let dfa = join_on(dfa, tags, &["inst_id"], JoinType::Left)
        .with_column(coalesce(&[col("group"), col("user")]).alias("group"));
    let mut keep = cols_of(&[TASK_ROW, JOB_ROW, TAG_ROW, TASK_KEY]);
    keep.extend(cols_of(&DFA_STORED));
    collect(dfa.select(keep), "dfa")
}

/// `dfas`: per task key, the sums over `dfws` rows of the requests, usages
/// and capacities, inner-joined to `dfa`.
fn usage_frame(store: &Store, dfa: &DataFrame, dfws: &DataFrame) -> Result<DataFrame> {
    let mut columns = vec![dfws.column(TASK_KEY).map_err(|e| Error::polars("dfas", e))?.clone()];
    for (table, index, cs) in [
        (&SENSOR, SENSOR_ROW, &USAGE_SUMS[0..4]),
        (&TASK, TASK_ROW, &USAGE_SUMS[4..7]),
        (&MACHINE_SPEC, SPEC_ROW, &USAGE_SUMS[7..10]),
    ] {
        let rows = dfws.column(index).map_err(|e| Error::polars("dfas", e))?;
        columns.extend(super::gather(store, table, rows, cs)?);
    }
    let sums = sums_by_key(&columns[0], &columns[1..])?.lazy();
    collect(join_on(dfa.clone().lazy(), sums, &[TASK_KEY], JoinType::Inner).drop(cols([TASK_KEY])), "dfas")
}

/// Per id of the `key` column (rows without one are in no task), the sum
/// of each of `values` as a float, nulls counted as 0: `dfas`' sums, in
/// one pass per column into arrays indexed by the id, reduced as Polars'
/// grouped sum ([`GroupedFloats`]), so the frame keeps its bytes. Polars'
/// GROUP BY took about a third of `dfas`' time at full scale.
fn sums_by_key(key: &Column, values: &[Column]) -> Result<DataFrame> {
    let fail = |e| Error::polars("dfas sums", e);
    let key = key.as_materialized_series().rechunk();
    let key = key.idx().map_err(fail)?;
    let groups = key.iter().flatten().max().map_or(0, |k| k as usize + 1);
    let mut present = vec![false; groups];
    for k in key.iter().flatten() {
        present[k as usize] = true;
    }
    let present: Vec<IdxSize> = (0..groups).filter(|&k| present[k]).map(|k| k as IdxSize).collect();
    let mut columns = vec![IdxCa::from_slice(TASK_KEY.into(), &present).into_column()];
    for c in values {
        let f = c.cast(&DataType::Float64).map_err(fail)?;
        let f = f.as_materialized_series().rechunk();
        let mut sums = vec![GroupedFloats::default(); groups];
        for (k, v) in key.iter().zip(f.f64().map_err(fail)?.iter()) {
            if let Some(k) = k {
                sums[k as usize].add(Some(v.unwrap_or(0.0)));
            }
        }
        let sum = |&k: &IdxSize| sums[k as usize].sum();
        columns.push(Float64Chunked::from_iter_values(c.name().clone(), present.iter().map(sum)).into_column());
    }
    DataFrame::new(present.len(), columns).map_err(fail)
}

/// Every frame's row map, as written to the store's cache ([`super::entry`]).
/// `step` is told each step's name before it starts (progress).
pub fn build(store: &Store, step: &dyn Fn(&str)) -> Result<Vec<(Frame, DataFrame)>> {
    step("PAI derived frames: joining instances to tasks, tags, machines and sensors");
    let (keyed, lookups) = key_instances(store)?;
    let aggregates = instance_aggregates(&keyed)?;
    step("PAI derived frames: the instance frames (dfiw, dfw, dfws)");
    let dfiw = workers_frame(keyed)?;
    let (dfw, dfws) = instance_frames(&dfiw, &lookups)?;
    step("PAI derived frames: the task frame (dfa)");
    let dfa = task_frame(store, aggregates, &lookups)?;
    step("PAI derived frames: the usage frame (dfas)");
    let dfas = usage_frame(store, &dfa, &dfws)?;
    step("PAI derived frames: sensor times");
    // Each sensor row matches at most one worker (dfiw has one row per
    // worker_name): the plan's order is the sensor table's.
    let times = lookups
        .sensor
        .rows_of(dfiw.clone().lazy(), JoinType::Inner)
        .select(cols_of(&[SENSOR_ROW, INST_ROW]))
        .sort([SENSOR_ROW, INST_ROW], SortMultipleOptions::default());
    let times = collect(times, "sensor times")?;
    let only = |df: &DataFrame, keep: &[&str]| collect(df.clone().lazy().select(cols_of(keep)), "row map");
    Ok(vec![
        (Frame::Tasks, dfa.drop(TASK_KEY).map_err(|e| Error::polars("dfa", e))?),
        (Frame::Workers, only(&dfiw, &[INST_ROW])?),
        (Frame::Instances, only(&dfw, &[INST_ROW, TASK_ROW, TAG_ROW])?),
        (Frame::InstancesWithSensor, only(&dfws, &[INST_ROW, TASK_ROW, TAG_ROW, SPEC_ROW, SENSOR_ROW])?),
        (Frame::TaskUsage, dfas),
        (Frame::SensorTimes, times),
    ])
}

#[cfg(test)]
mod worker_tests {
    use super::*;

    fn names() -> Series {
        Series::new(
            "worker_name".into(),
            [Some("a"), Some("b"), Some("a"), Some("c"), None, Some("c"), Some("d"), None],
        )
    }

    fn keys(ca: &IdxCa) -> Vec<Option<IdxSize>> {
        ca.iter().collect()
    }

    #[test]
    fn the_hashes_single_out_the_rows_of_repeated_names() {
        let names = names();
        // Four distinct names: their 64-bit hashes differ (seeded, so this
        // holds on every run), and the two nulls are not workers.
        let hashes = hashes(&[&names], "test").unwrap();
        assert_eq!(repeated_hashes(&hashes, &names.is_not_null()), vec![0, 2, 3, 5]);
    }

    #[test]
    fn repeats_are_found_in_both_halves_of_the_hash_range() {
        let top = 1u64 << 63;
        let hashes = [top | 5, 3, top | 5, 3, 7, top | 9, 3];
        // Row 6 repeats hash 3 but has no name; row 5's hash is alone.
        let named = BooleanChunked::from_slice("named".into(), &[true, true, true, true, true, true, false]);
        assert_eq!(repeated_hashes(&hashes, &named), vec![0, 1, 2, 3]);
    }

    #[test]
    fn a_repeated_name_is_keyed_by_its_first_row() {
        let names = names();
        let key = worker_keys(&names, &[0, 2, 3, 5]).unwrap();
        assert_eq!(keys(&key), [Some(0), None, Some(0), Some(3), None, Some(3), None, None]);
    }

    fn strings(values: &[Option<&str>]) -> StringChunked {
        StringChunked::from_iter_options("s".into(), values.iter().copied())
    }

    #[test]
    fn a_hash_join_finds_each_name_by_its_string() {
        let probe = strings(&[Some("a"), Some("b"), None, Some("c"), Some("a")]);
        let keys = strings(&[Some("c"), Some("a"), None]);
        let ids = IdxCa::from_slice("id".into(), &[7, 9, 4]);
        // Worked by hand: a is key 9, c key 7, b no key, and null matches
        // nothing (not even the null key).
        let probe_hashes = [1, 2, 3, 4, 1];
        let found = match_by_hash((&probe, &probe_hashes), (&keys, &[4, 1, 3]), &ids);
        assert_eq!(found, Some(vec![Some(9), None, None, Some(7), Some(9)]));
    }

    #[test]
    fn a_name_that_only_shares_a_hash_with_a_key_finds_nothing() {
        let probe = strings(&[Some("a"), Some("x")]);
        let keys = strings(&[Some("a")]);
        let ids = IdxCa::from_slice("id".into(), &[5]);
        let found = match_by_hash((&probe, &[1, 1]), (&keys, &[1]), &ids);
        assert_eq!(found, Some(vec![Some(5), None]));
    }

    #[test]
    fn keys_that_share_a_hash_leave_the_join_to_the_strings() {
        let probe = strings(&[Some("a")]);
        let keys = strings(&[Some("a"), Some("b")]);
        let ids = IdxCa::from_slice("id".into(), &[0, 1]);
        assert_eq!(match_by_hash((&probe, &[1]), (&keys, &[1, 1]), &ids), None);
    }

    #[test]
    fn candidates_that_only_share_a_hash_stay_single() {
        // As after a hash collision: every row a candidate, nulls included.
        let names = names();
        let key = worker_keys(&names, &(0..8).collect::<Vec<_>>()).unwrap();
        assert_eq!(keys(&key), [Some(0), None, Some(0), Some(3), None, Some(3), None, None]);
    }
}

#[cfg(test)]
mod aggregate_tests {
    use super::*;

    /// Keyed instance rows as [`key_instances`] gives them (times in
    /// microseconds).
    fn keyed(
        keys: &[Option<IdxSize>],
        status: &[Option<&str>],
        start: &[Option<i64>],
        end: &[Option<i64>],
        run: &[Option<f64>],
    ) -> DataFrame {
        let time = |name: &str, v: &[Option<i64>]| {
            Int64Chunked::from_iter_options(name.into(), v.iter().copied())
                .into_series()
                .cast(&DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC)))
                .unwrap()
                .into_column()
        };
        let columns = vec![
            IdxCa::from_iter_options(TASK_KEY.into(), keys.iter().copied()).into_column(),
            StringChunked::from_iter_options("status".into(), status.iter().copied()).into_column(),
            time("start_time", start),
            time("end_time", end),
            Float64Chunked::from_iter_options("run_s".into(), run.iter().copied()).into_column(),
        ];
        DataFrame::new(keys.len(), columns).unwrap()
    }

    /// The aggregates as Polars' GROUP BY computes them: the reference.
    fn by_polars(keyed: &DataFrame) -> DataFrame {
        let aggregates = keyed.clone().lazy().filter(col(TASK_KEY).is_not_null()).group_by([col(TASK_KEY)]).agg([
            col("status").max().alias("status_i"),
            col("start_time").min().alias("start_time_i"),
            col("end_time").max().alias("end_time_i"),
            col("run_s").mean().alias("runtime_i_s"),
        ]);
        aggregates.sort([TASK_KEY], SortMultipleOptions::default()).collect().unwrap()
    }

    #[test]
    fn each_task_gets_its_rows_aggregates_worked_by_hand() {
        let df = keyed(
            &[Some(3), Some(0), Some(3), None, Some(3), Some(5)],
            &[Some("Running"), Some("Failed"), Some("Terminated"), Some("Zzz"), None, None],
            &[Some(50), Some(7), Some(20), Some(1), None, None],
            &[Some(60), None, Some(90), Some(999), Some(70), None],
            &[Some(1.0), None, None, Some(100.0), Some(2.5), Some(4.0)],
        );
        let out = instance_aggregates(&df).unwrap();
        // Key 3: rows 0, 2, 4; key 0: row 1; key 5: row 5; row 3 has no key.
        let keys: Vec<_> = out.column(TASK_KEY).unwrap().idx().unwrap().iter().collect();
        assert_eq!(keys, [Some(0), Some(3), Some(5)]);
        let status: Vec<_> = out.column("status_i").unwrap().str().unwrap().iter().collect();
        assert_eq!(status, [Some("Failed"), Some("Terminated"), None]);
        let times = |name: &str| -> Vec<Option<i64>> {
            let c = out.column(name).unwrap().as_materialized_series().to_physical_repr().into_owned();
            c.i64().unwrap().iter().collect()
        };
        assert_eq!(times("start_time_i"), [Some(7), Some(20), None]);
        assert_eq!(times("end_time_i"), [None, Some(90), None]);
        let mean: Vec<_> = out.column("runtime_i_s").unwrap().f64().unwrap().iter().collect();
        // Key 3: (1.0 + 2.5) / 2 over its two known run times.
        assert_eq!(mean, [None, Some(1.75), Some(4.0)]);
        assert_eq!(out, by_polars(&df));
    }

    /// `dfas`' sums as Polars' GROUP BY computes them: the reference.
    fn sums_by_polars(key: &Column, values: &[Column]) -> DataFrame {
        let mut columns = vec![key.clone()];
        columns.extend(values.iter().cloned());
        let df = DataFrame::new(key.len(), columns).unwrap();
        let sums: Vec<Expr> =
            values.iter().map(|c| col(c.name().as_str()).cast(DataType::Float64).fill_null(lit(0.0)).sum()).collect();
        let grouped = df.lazy().filter(col(TASK_KEY).is_not_null()).group_by([col(TASK_KEY)]).agg(sums);
        grouped.sort([TASK_KEY], SortMultipleOptions::default()).collect().unwrap()
    }

    #[test]
    fn usage_sums_per_task_worked_by_hand() {
        let key = IdxCa::from_iter_options(TASK_KEY.into(), [Some(2), None, Some(2), Some(0), Some(2)].into_iter());
        let a = Float64Chunked::from_iter_options(
            "a".into(),
            [Some(1.5), Some(9.0), None, Some(-0.0), Some(2.0)].into_iter(),
        );
        let b = Int64Chunked::from_iter_options("b".into(), [Some(1), Some(1), Some(2), None, Some(3)].into_iter());
        let (key, values) = (key.into_column(), [a.into_column(), b.into_column()]);
        let out = sums_by_key(&key, &values).unwrap();
        // Key 0: its one row, -0.0 and a null b (0); key 2: 1.5 + 0 + 2.0
        // and 1 + 2 + 3; the row without a key is left out.
        let column =
            |name: &str| -> Vec<f64> { out.column(name).unwrap().f64().unwrap().into_no_null_iter().collect() };
        assert_eq!(out.column(TASK_KEY).unwrap().idx().unwrap().into_no_null_iter().collect::<Vec<_>>(), [0, 2]);
        assert_eq!(column("a"), [-0.0, 3.5]);
        assert!(column("a")[0].is_sign_negative());
        assert_eq!(column("b"), [0.0, 6.0]);
        assert_eq!(out, sums_by_polars(&key, &values));
    }

    #[test]
    fn random_rows_give_polars_group_by_bit_for_bit() {
        // A small LCG: deterministic rows with nulls, repeats and long
        // groups whose float sums depend on the order and the method.
        let mut state = 0x2545f4914f6cdd1d_u64;
        let mut next = move |m: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let n = 20_000;
        let statuses = ["Terminated", "Failed", "Running", "Waiting"];
        let (mut keys, mut status, mut start, mut end, mut run) = (vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..n {
            keys.push((next(20) > 0).then(|| next(700) as IdxSize));
            status.push((next(10) > 0).then(|| statuses[next(4) as usize]));
            start.push((next(10) > 0).then(|| next(1 << 40) as i64));
            end.push((next(10) > 0).then(|| next(1 << 40) as i64));
            run.push((next(8) > 0).then(|| next(1 << 30) as f64 / (1 + next(1000)) as f64 * 0.37));
        }
        let df = keyed(&keys, &status, &start, &end, &run);
        assert_eq!(instance_aggregates(&df).unwrap(), by_polars(&df));
        let values = [df.column("run_s").unwrap().clone(), df.column("end_time").unwrap().clone()];
        let sums = sums_by_key(df.column(TASK_KEY).unwrap(), &values).unwrap();
        let reference = sums_by_polars(df.column(TASK_KEY).unwrap(), &values);
        // Compared bit for bit (sums of up to 40 large values per key).
        for name in ["run_s", "end_time"] {
            let bits = |df: &DataFrame| -> Vec<u64> {
                df.column(name).unwrap().f64().unwrap().into_no_null_iter().map(f64::to_bits).collect()
            };
            assert_eq!(bits(&sums), bits(&reference), "{name}");
        }
        assert_eq!(sums.column(TASK_KEY).unwrap(), reference.column(TASK_KEY).unwrap());
    }
}
