//! Builds the row maps of every derived frame, with the same joins as the
//! lazy plans ([`super::super::plans`]) but on row numbers:
//!
//! 1. Lookups: per joined table (task, group tag, machine spec, sensor) the
//!    distinct join keys, each with an id (the first row holding it), and
//!    every row's id. A string join against the distinct keys is one-to-one
//!    and keeps the instance rows as they are; the join on the id then
//!    brings back every matching row, as the string join would.
//! 2. The instance table keyed one join key at a time (each lookup hashed
//!    once; only that key's strings in memory): the four key ids per row,
//!    plus what `dfa`'s instance aggregates and `dfiw`'s dedupe need.
//! 3. `dfiw`, `dfw` and `dfws` by integer joins in the plans' order;
//!    `dfa` and `dfas` from the task, job and tag tables (one row per task),
//!    the aggregates keyed by task-key id; `sensor_times` from `dfiw`.
//!
//! Every join keeps left-then-right row order, so the output is
//! deterministic and ordered as the plans'.

use polars::polars_utils::aliases::{PlSeedableRandomStateQuality, SeedableFromU64SeedExt};
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

fn cols_of(names: &[&str]) -> Vec<Expr> {
    names.iter().map(|c| col(*c)).collect()
}

/// The distinct keys of a table (`keys` + `id`) and every row's id (`id`,
/// `row`, in row order). `unique`: every key is on one row, so a row's id
/// is the row itself (the usual case, where the id join is skipped).
struct Lookup {
    keys: DataFrame,
    rows: DataFrame,
    unique: bool,
    id: &'static str,
    row: &'static str,
}

fn lookup(store: &Store, table: &Table, keys: &[&str], row: &'static str, id: &'static str) -> Result<Lookup> {
    let what = format!("{} keys", table.qualified_name());
    let df = collect(store.scan(table)?.select(cols_of(keys)).with_row_index(row, None), &what)?;
    let unique = !has_repeats(&df, keys)?;
    let first = if unique {
        col(row)
    } else {
        col(row).min().over(cols_of(keys)).map_err(|e| Error::polars(what.clone(), e))?
    };
    let df = collect(df.lazy().with_column(first.alias(id)), &what)?;
    let rows = collect(df.clone().lazy().select([col(id), col(row)]), &what)?;
    let mut k = cols_of(keys);
    k.push(col(id));
    let keys = collect(df.lazy().filter(col(row).eq(col(id))).select(k), &what)?;
    Ok(Lookup { keys, rows, unique, id, row })
}

impl Lookup {
    /// `lf` (with this lookup's id column) with the `row` of every matching
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

struct Lookups {
    task: Lookup,
    tag: Lookup,
    spec: Lookup,
    sensor: Lookup,
}

impl Lookups {
    fn load(store: &Store) -> Result<Lookups> {
        Ok(Lookups {
            task: lookup(store, &TASK, &["job_name", "task_name"], TASK_ROW, TASK_KEY)?,
            tag: lookup(store, &GROUP_TAG, &["inst_id"], TAG_ROW, TAG_KEY)?,
            spec: lookup(store, &MACHINE_SPEC, &["machine"], SPEC_ROW, SPEC_KEY)?,
            sensor: lookup(store, &SENSOR, &["worker_name"], SENSOR_ROW, SENSOR_KEY)?,
        })
    }
}

/// The id of every instance row's `keys` in `lookup` (a left join on the
/// distinct keys: one-to-one, in row order). Only these key columns of the
/// instance table are in memory meanwhile.
fn key_column(store: &Store, keys: &[&str], lookup: &Lookup, id: &str) -> Result<Column> {
    let rows = store.scan(&INSTANCE)?.select(cols_of(keys));
    let keyed = join_on(rows, lookup.keys.clone().lazy(), keys, JoinType::Left).select([col(id)]);
    let df = collect(keyed, &format!("instance {id}"))?;
    df.column(id).cloned().map_err(|e| Error::polars(id.to_string(), e))
}

/// Whether two rows of `df` have the same `keys` (nulls equal): exact. The
/// 64-bit hashes of the keys are sorted and compared first (an integer
/// sort, much cheaper than hashing millions of 60-character strings into a
/// set); only when two hashes are equal are the keys themselves counted.
fn has_repeats(df: &DataFrame, keys: &[&str]) -> Result<bool> {
    let what = || format!("{} hashes", keys.join(", "));
    let mut hashes = Vec::with_capacity(df.height());
    let state = PlSeedableRandomStateQuality::seed_from_u64(0);
    for (i, k) in keys.iter().enumerate() {
        let s = df.column(k).map_err(|e| Error::polars(what(), e))?.as_materialized_series();
        let hashed = if i == 0 {
            s.vec_hash(state.clone(), &mut hashes)
        } else {
            s.vec_hash_combine(state.clone(), &mut hashes)
        };
        hashed.map_err(|e| Error::polars(what(), e))?;
    }
    hashes.sort_unstable();
    if hashes.windows(2).all(|w| w[0] != w[1]) {
        return Ok(false);
    }
    let distinct = collect(df.clone().lazy().select(cols_of(keys)).unique(None, UniqueKeepStrategy::Any), &what())?;
    Ok(distinct.height() < df.height())
}

/// Per instance row: the sensor key id, whether it has a worker, whether
/// that worker is on several rows (`repeated`) and, for those only, the
/// worker name (`dfiw`'s dedupe needs it). Repeats are grouped only when
/// [`has_repeats`] finds some.
fn worker_columns(store: &Store, l: &Lookups) -> Result<DataFrame> {
    let names = collect(store.scan(&INSTANCE)?.select([col("worker_name")]), "worker names")?;
    let w = || col("worker_name");
    let named = collect(plans::named_instances(names.clone().lazy()), "worker names")?;
    let repeats = has_repeats(&named, &["worker_name"])?;
    drop(named);
    let mut keyed = join_on(names.clone().lazy(), l.sensor.keys.clone().lazy(), &["worker_name"], JoinType::Left);
    let flag = if !repeats {
        lit(false)
    } else {
        let repeated = plans::repeated_workers(plans::named_instances(names.lazy()));
        keyed = join_on(keyed, repeated.with_column(lit(true).alias("repeated")), &["worker_name"], JoinType::Left);
        col("repeated").fill_null(lit(false))
    };
    let keep = [
        col(SENSOR_KEY),
        w().is_not_null().alias("has_worker"),
        flag.clone().alias("repeated"),
        when(flag).then(w()).otherwise(lit(NULL).cast(DataType::String)).alias("worker_name"),
    ];
    collect(keyed.select(keep), "worker keys")
}

/// Every instance row keyed: row number, the four key ids, the columns of
/// `dfa`'s aggregates, and the dedupe inputs. One pass per join key, so at
/// most one key's strings are in memory at a time, and each lookup is
/// hashed once.
fn key_instances(store: &Store, l: &Lookups) -> Result<DataFrame> {
    let values = collect(
        store.scan(&INSTANCE)?.select(cols_of(&["status", "start_time", "end_time", "run_s"])),
        "instance values",
    )?;
    let n = values.height();
    let mut columns = vec![Column::new(INST_ROW.into(), (0..n as IdxSize).collect::<Vec<_>>())];
    columns.push(key_column(store, &["job_name", "task_name"], &l.task, TASK_KEY)?);
    columns.push(key_column(store, &["inst_id"], &l.tag, TAG_KEY)?);
    columns.push(key_column(store, &["machine"], &l.spec, SPEC_KEY)?);
    columns.extend(worker_columns(store, l)?.into_columns());
    columns.extend(values.into_columns());
    DataFrame::new(n, columns).map_err(|e| Error::polars("instance rows", e))
}

/// `dfiw`, `dfw` and `dfws` row maps (with the key ids `dfas` needs).
fn instance_frames(keyed: &DataFrame, l: &Lookups) -> Result<(DataFrame, DataFrame, DataFrame)> {
    let named = keyed.clone().lazy().filter(col("has_worker"));
    let single = named.clone().filter(col("repeated").not());
    let deduplicated = plans::deduplicate(named.filter(col("repeated")));
    let ids = [INST_ROW, TASK_KEY, TAG_KEY, SPEC_KEY, SENSOR_KEY];
    let dfiw = concat([single.select(cols_of(&ids)), deduplicated.select(cols_of(&ids))], UnionArgs::default())
        .map_err(|e| Error::polars("dfiw", e))?;
    let dfiw = collect(dfiw, "dfiw")?;
    let dfw = l.tag.rows_of(l.task.rows_of(dfiw.clone().lazy(), JoinType::Left), JoinType::Left);
    let dfw = collect(dfw, "dfw")?;
    let dfws = l.sensor.rows_of(l.spec.rows_of(dfw.clone().lazy(), JoinType::Left), JoinType::Inner);
    let dfws = collect(dfws, "dfws")?;
    Ok((dfiw, dfw, dfws))
}

/// `dfa`: the plan's joins on the task, job and tag rows, with the instance
/// aggregates of every instance row keyed to the task's key.
fn task_frame(store: &Store, keyed: &DataFrame, l: &Lookups) -> Result<DataFrame> {
    let aggregates = keyed.clone().lazy().group_by([col(TASK_KEY)]).agg([
        col("status").max().alias("status_i"),
        col("start_time").min().alias("start_time_i"),
        col("end_time").max().alias("end_time_i"),
        col("run_s").mean().alias("runtime_i_s"),
    ]);
    let aggregates = collect(aggregates, "instance aggregates")?.lazy();
    let task = store.scan(&TASK)?.with_row_index(TASK_ROW, None).select(cols_of(&[
        TASK_ROW,
        "job_name",
        "start_time",
        "end_time",
    ]));
    let jobs = store.scan(&JOB)?.with_row_index(JOB_ROW, None).select([
        col(JOB_ROW),
        col("job_name"),
        col("inst_id"),
        col("user"),
        col("start_time").alias("start_time_j"),
    ]);
    let first_task =
        store.scan(&TASK)?.group_by([col("job_name")]).agg([col("start_time").min().alias("first_task_start")]);
    let tags = store.scan(&GROUP_TAG)?.with_row_index(TAG_ROW, None).select(cols_of(&[TAG_ROW, "inst_id", "group"]));
    let dfa = join_on(task, jobs, &["job_name"], JoinType::Inner)
        .with_column(seconds_between(col("end_time"), col("start_time")).alias("runtime_s"));
    // The task row's key id (itself when the task keys are unique).
    let dfa = match l.task.unique {
        true => dfa.with_column(col(TASK_ROW).alias(TASK_KEY)),
        false => join_on(dfa, l.task.rows.clone().lazy(), &[TASK_ROW], JoinType::Left),
    };
    let dfa = join_on(dfa, aggregates, &[TASK_KEY], JoinType::Inner);
    let dfa = join_on(dfa, first_task, &["job_name"], JoinType::Left).with_columns([
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
    let values = DataFrame::new(dfws.height(), columns).map_err(|e| Error::polars("dfas", e))?;
    let sums: Vec<Expr> =
        USAGE_SUMS.iter().map(|c| col(*c).cast(DataType::Float64).fill_null(lit(0.0)).sum()).collect();
    let sums = values.lazy().group_by([col(TASK_KEY)]).agg(sums);
    collect(join_on(dfa.clone().lazy(), sums, &[TASK_KEY], JoinType::Inner).drop(cols([TASK_KEY])), "dfas")
}

/// Every frame's row map, as written to `<store>/pai/derived/`.
/// `step` is told each step's name before it starts (progress).
pub fn build(store: &Store, step: &dyn Fn(&str)) -> Result<Vec<(Frame, DataFrame)>> {
    step("PAI derived frames: reading the keys");
    let lookups = Lookups::load(store)?;
    step("PAI derived frames: joining instances to tasks and jobs");
    let keyed = key_instances(store, &lookups)?;
    step("PAI derived frames: the task frame (dfa)");
    let dfa = task_frame(store, &keyed, &lookups)?;
    step("PAI derived frames: the instance frames (dfw, dfws)");
    let (dfiw, dfw, dfws) = instance_frames(&keyed, &lookups)?;
    drop(keyed);
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
