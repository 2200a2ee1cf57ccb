//! The GPU-minute join behind P4/P5 (`get_utilization_data` of the Philly
//! notebook): every attempt with a start and an end is stepped minute by
//! minute from the start floored to the minute while `minute < end`; at each
//! minute, each GPU the attempt holds on each of its machines yields the
//! `gpu<i>_util_pct` of that machine's `philly/gpu_util` row for the minute,
//! when the row exists and the value is not NA (null).
//!
//! Done set-wise in the engine, in time windows so memory stays bounded:
//! per (attempt, machine) the held GPUs are folded into 8 boolean columns;
//! for each window the overlapping part of every attempt is exploded into
//! minutes (`int_range` + explode), inner-joined to that window of
//! `gpu_util` on (machine, time) (the parquet scan is time-sorted, so the
//! window filter prunes row groups), and reduced to value counts per
//! (status, GPUs, utilization). Both time axes are UTC already (ingest
//! converted the job log and the PDT/PST utilization times), so the
//! notebook's ambiguous hour at the 2017-11-05 DST change matches correctly
//! here.

use std::collections::BTreeMap;

use polars::prelude::*;

use super::{time_span, time_window};
use crate::frame::{collect, f64s, i64s, strs};
use crate::Ctx;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::philly::{ATTEMPTS, GPU_UTIL, JOBS, PLACEMENTS};
use tracelab_stats::Dist;

const MINUTE_US: i64 = 60_000_000;
/// Minutes per join window: two days, about 1.6 M `gpu_util` rows on the
/// full 552-machine trace, which keeps the exploded join well under 1 GB.
const WINDOW_MIN: i64 = 2 * 1440;
const GPU_COLUMNS: usize = 8;

/// How a GPU-minute sample arises, as the P4/P5 definitions state it.
pub const SAMPLE_RULE: &str =
    "For every attempt with a start and an end (philly/attempts), minute m runs from the start \
     floored to the minute while m < end; at each m, every GPU the attempt holds (philly/placements: machine, GPU \
     index) gives one sample, the gpu<i>_util_pct of that machine's philly/gpu_util row at m, when the row exists \
     and the value is not NA. One sample = one GPU-minute; every attempt counts, with the job's FIRST-attempt GPU \
     count and final status. Times are UTC on both sides, so an attempt spanning the 2017-11-05 fall-back counts \
     both 01:00 hours, each with its own utilization row; the notebook steps naive wall-clock minutes and matches \
     them to utilization times with PDT/PST cut off, so it visits the repeated hour once (60 GPU-minutes fewer per \
     GPU) and reads the later of its two rows there. No clock parameter: one hour of the trace.";

/// The series label of a job size.
pub fn size_label(g: i64) -> String {
    format!("{g} GPU")
}

/// Which attempts contribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// Every job with attempts and a GPU count (P4 picks sizes afterwards).
    All,
    /// P5: jobs of 8 or 16 GPUs, attempts with `len(detail) <= num_gpus / 8`.
    Dedicated,
}

/// Utilization value counts per (status, first-attempt GPUs).
pub type Samples = BTreeMap<(String, i64), Dist>;

fn gpu_col(i: usize) -> String {
    format!("gpu{i}_util_pct")
}

/// One row per (attempt, machine): status, GPUs (first attempt), the
/// machine's number `mid` in `machines`, the minute-floored start `lo` and
/// end `hi` in microseconds, and `g0..g7` = whether the attempt holds that
/// GPU of the machine.
struct Placed {
    rows: DataFrame,
    /// (machine, mid): the machines jobs were placed on, numbered so the
    /// join key (machine, minute) is one integer.
    machines: DataFrame,
    /// (status, GPUs, dedicated) of each group number `grp` the rows carry
    /// instead of a string through the explode and the counting.
    groups: Vec<Group>,
}

fn placed(ctx: &Ctx, filter: Filter) -> Result<Placed> {
    let rows = placed_rows(ctx, filter)?;
    let machines = collect(
        rows.clone()
            .lazy()
            .select([col("machine")])
            .unique(None, UniqueKeepStrategy::Any)
            .sort(["machine"], SortMultipleOptions::default())
            .with_row_index("mid", None)
            .select([col("machine"), col("mid").cast(DataType::Int64)]),
        "philly GPU-minutes: machines",
    )?;
    let groups = collect(
        rows.clone()
            .lazy()
            .select([col("status"), col("gpus"), col("ded")])
            .unique(None, UniqueKeepStrategy::Any)
            .sort(["status", "gpus", "ded"], SortMultipleOptions::default())
            .with_row_index("grp", None)
            .with_column(col("grp").cast(DataType::Int64)),
        "philly GPU-minutes: groups",
    )?;
    let rows = collect(
        rows.lazy()
            .join(machines.clone().lazy(), [col("machine")], [col("machine")], JoinArgs::new(JoinType::Inner))
            .join(
                groups.clone().lazy(),
                [col("status"), col("gpus"), col("ded")],
                [col("status"), col("gpus"), col("ded")],
                JoinArgs::new(JoinType::Inner),
            )
            .drop(Selector::ByName {
                names: Arc::new(["machine".into(), "status".into(), "gpus".into(), "ded".into()]),
                strict: true,
            }),
        "philly GPU-minutes: machine and group numbers",
    )?;
    let ded = groups
        .column("ded")
        .and_then(|c| c.bool().cloned())
        .map_err(|e| Error::polars("philly GPU-minutes: groups".to_string(), e))?;
    let groups = strs(&groups, "status")?
        .into_iter()
        .zip(i64s(&groups, "gpus")?)
        .zip(ded.iter())
        .map(|((s, g), d)| (s.unwrap_or_default(), g.unwrap_or(0), d.unwrap_or(false)))
        .collect();
    Ok(Placed { rows, machines, groups })
}

/// The integer join key of (machine number, minute since the epoch).
fn key(mid: Expr, minute: Expr) -> Expr {
    mid * lit(1i64 << 32) + minute
}

/// P5's `only_dedicated_servers`: the attempt's servers `<= num_gpus / 8`
/// (in Python 3 a float comparison).
fn on_dedicated_servers() -> Expr {
    col("machines").cast(DataType::Float64).lt_eq(col("gpus").cast(DataType::Float64) / lit(8.0))
}

/// The attempts x placements that contribute, with `ded`: whether the
/// attempt is one P5 keeps (8 or 16 GPUs, on dedicated servers).
fn placed_rows(ctx: &Ctx, filter: Filter) -> Result<DataFrame> {
    let mut jobs = ctx
        .store
        .scan(&JOBS)?
        .filter(col("attempts").gt(lit(0i64)).and(col("gpus").is_not_null()))
        .select([col("job_id"), col("status"), col("gpus")]);
    let mut att = ctx
        .store
        .scan(&ATTEMPTS)?
        .filter(col("start_time").is_not_null().and(col("end_time").is_not_null()))
        .select([col("job_id"), col("attempt"), col("start_time"), col("end_time"), col("machines")]);
    if filter == Filter::Dedicated {
        jobs = jobs.filter(col("gpus").eq(lit(8i64)).or(col("gpus").eq(lit(16i64))));
        att = att.join(
            jobs.clone().select([col("job_id"), col("gpus")]),
            [col("job_id")],
            [col("job_id")],
            JoinArgs::new(JoinType::Inner),
        );
        att = att
            .filter(on_dedicated_servers())
            .drop(Selector::ByName { names: Arc::new(["gpus".into()]), strict: true });
    }
    let held: Vec<Expr> =
        (0..GPU_COLUMNS).map(|i| col("gpu").eq(lit(i as i64)).any(true).alias(format!("g{i}"))).collect();
    let pl = ctx.store.scan(&PLACEMENTS)?.group_by([col("job_id"), col("attempt"), col("machine")]).agg(held);
    let lf = att
        .join(jobs, [col("job_id")], [col("job_id")], JoinArgs::new(JoinType::Inner))
        .join(pl, [col("job_id"), col("attempt")], [col("job_id"), col("attempt")], JoinArgs::new(JoinType::Inner))
        .select(
            [
                vec![
                    col("status"),
                    col("gpus"),
                    col("machine"),
                    col("start_time").cast(DataType::Int64).floor_div(lit(MINUTE_US)).alias("lo") * lit(MINUTE_US),
                    col("end_time").cast(DataType::Int64).alias("hi"),
                    (col("gpus").eq(lit(8i64)).or(col("gpus").eq(lit(16i64))))
                        .and(on_dedicated_servers())
                        .fill_null(lit(false))
                        .alias("ded"),
                ],
                (0..GPU_COLUMNS).map(|i| col(format!("g{i}"))).collect(),
            ]
            .concat(),
        )
        .filter(col("hi").gt(col("lo")));
    collect(lf, "philly GPU-minutes: attempts x placements")
}

/// The (attempt, machine) minutes in `[w0, w1)`, one row each, keyed.
fn minutes_in(placed: &DataFrame, w0: i64, w1: i64) -> LazyFrame {
    let a = when(col("lo").lt(lit(w0))).then(lit(w0)).otherwise(col("lo"));
    let b = when(col("hi").gt(lit(w1))).then(lit(w1)).otherwise(col("hi"));
    placed
        .clone()
        .lazy()
        .filter(col("lo").lt(lit(w1)).and(col("hi").gt(lit(w0))))
        .with_columns([a.alias("a"), b.alias("b")])
        // minutes m = a, a+1, ... while m < b (a is on the minute).
        .with_column(
            int_ranges(
                lit(0i64),
                (col("b") - col("a") + lit(MINUTE_US - 1)).floor_div(lit(MINUTE_US)),
                lit(1i64),
                DataType::Int64,
            )
            .alias("k"),
        )
        .explode(
            Selector::ByName { names: Arc::new(["k".into()]), strict: true },
            ExplodeOptions { empty_as_null: false, keep_nulls: false },
        )
        .with_column(key(col("mid"), col("a").floor_div(lit(MINUTE_US)) + col("k")).alias("key"))
        .drop(Selector::ByName {
            names: Arc::new(["a".into(), "b".into(), "k".into(), "lo".into(), "hi".into(), "mid".into()]),
            strict: true,
        })
}

/// `gpu_util` rows with `w0 <= time < w1` on the placed machines, keyed.
fn util_in(ctx: &Ctx, machines: &DataFrame, w0: i64, w1: i64) -> Result<LazyFrame> {
    let minute = col("time").cast(DataType::Int64).floor_div(lit(MINUTE_US));
    let cols: Vec<Expr> =
        [key(col("mid"), minute).alias("key")].into_iter().chain((0..GPU_COLUMNS).map(|i| col(gpu_col(i)))).collect();
    Ok(time_window(ctx, &GPU_UTIL, w0, w1)?
        .join(machines.clone().lazy(), [col("machine")], [col("machine")], JoinArgs::new(JoinType::Inner))
        .select(cols))
}

/// Value counts (grp, value, n) of one window.
fn window_counts(ctx: &Ctx, placed: &Placed, w0: i64, w1: i64) -> Result<DataFrame> {
    let joined = minutes_in(&placed.rows, w0, w1).join(
        util_in(ctx, &placed.machines, w0, w1)?,
        [col("key")],
        [col("key")],
        JoinArgs::new(JoinType::Inner),
    );
    let joined = collect(joined, "philly GPU-minutes: join")?.lazy();
    let per_gpu: Vec<LazyFrame> = (0..GPU_COLUMNS)
        .map(|i| {
            joined
                .clone()
                .filter(col(format!("g{i}")).and(col(gpu_col(i)).is_not_null()))
                .select([col("grp"), col(gpu_col(i)).alias("v")])
        })
        .collect();
    let counted = concat(per_gpu, UnionArgs::default())
        .map_err(|e| tracelab_schema::error::Error::polars("philly GPU-minutes: concat".to_string(), e))?
        .group_by([col("grp"), col("v")])
        .agg([len().alias("n")]);
    collect(counted, "philly GPU-minutes: counts")
}

/// (status, first-attempt GPUs, whether P5 keeps the attempt).
type Group = (String, i64, bool);
/// The join's value counts per group.
type Counts = BTreeMap<Group, Dist>;
/// Where P4's counts wait for P5 in [`Ctx::shared`].
const SHARED: &str = "philly.gpu-minutes";

/// Every GPU-minute sample, as utilization value counts per (status, GPUs).
/// P4's join (every attempt) keeps the dedicated flag in its groups and
/// leaves its counts in `ctx.shared`, where P5 takes its part (the
/// dedicated groups) instead of joining again; alone, P5 joins only its
/// own attempts.
pub fn samples(ctx: &Ctx, filter: Filter) -> Result<Samples> {
    let counts = match (filter, ctx.shared.get::<Counts>(SHARED)) {
        (Filter::Dedicated, Some(all)) => all,
        _ => {
            let counts = Arc::new(join_counts(ctx, filter)?);
            if filter == Filter::All {
                ctx.shared.put(SHARED, Arc::clone(&counts));
            }
            counts
        }
    };
    let mut merged: BTreeMap<(String, i64), Vec<&Dist>> = BTreeMap::new();
    for ((status, gpus, ded), d) in counts.iter() {
        if filter == Filter::All || *ded {
            merged.entry((status.clone(), *gpus)).or_default().push(d);
        }
    }
    Ok(merged.into_iter().map(|(k, ds)| (k, Dist::pooled(ds))).collect())
}

/// The GPU-minute join, value counts per group.
fn join_counts(ctx: &Ctx, filter: Filter) -> Result<Counts> {
    let placed = placed(ctx, filter)?;
    let mut acc: BTreeMap<Group, Vec<(f64, u64)>> = BTreeMap::new();
    let (lo, hi) = (i64s(&placed.rows, "lo")?, i64s(&placed.rows, "hi")?);
    let (Some(start), Some(end), Some((u0, u1))) =
        (lo.iter().flatten().min().copied(), hi.iter().flatten().max().copied(), time_span(ctx, &GPU_UTIL)?)
    else {
        return Ok(Counts::new());
    };
    // Only minutes that gpu_util covers can match; windows stay aligned to `start`.
    let (start, end) =
        (start + (u0 - start).max(0) / (WINDOW_MIN * MINUTE_US) * (WINDOW_MIN * MINUTE_US), end.min(u1 + 1));
    let mut w0 = start;
    while w0 < end {
        let w1 = w0 + WINDOW_MIN * MINUTE_US;
        if !lo.iter().zip(&hi).any(|(l, h)| l.zip(*h).is_some_and(|(l, h)| l < w1 && h > w0)) {
            w0 = w1;
            continue;
        }
        let df = window_counts(ctx, &placed, w0, w1)?;
        let (grp, v, n) = (i64s(&df, "grp")?, f64s(&df, "v")?, i64s(&df, "n")?);
        for i in 0..df.height() {
            if let (Some(g), Some(v), Some(n)) = (grp[i], v[i], n[i]) {
                if v.is_finite() {
                    acc.entry(placed.groups[g as usize].clone()).or_default().push((v, n as u64));
                }
            }
        }
        w0 = w1;
    }
    Ok(acc.into_iter().map(|(k, pairs)| (k, Dist::from_counts(pairs))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;
    use tracelab_schema::philly::MACHINES;

    const DAY2: i64 = 2 * 1440 * 60;

    fn tiny() -> testkit::TinyStore {
        let jobs = df!(
            "job_id" => ["j1", "j2", "j3", "j4"],
            "status" => ["Pass", "Killed", "Failed", "Pass"],
            "attempts" => [1i64, 2, 1, 1],
            "gpus" => [1i64, 4, 8, 8],
        )
        .unwrap();
        let attempts = df!(
            "job_id" => ["j1", "j2", "j2", "j3", "j4"],
            "attempt" => [0i64, 0, 1, 0, 0],
            "start_time" => [Some(30i64), Some(60), None, Some(0), Some(0)],
            "end_time" => [Some(150i64), Some(120), Some(200), Some(DAY2 + 120), Some(60)],
            "machines" => [1i64, 1, 1, 1, 2],
        )
        .unwrap();
        let placements = df!(
            "job_id" => ["j1", "j2", "j2", "j2", "j3", "j4", "j4"],
            "attempt" => [0i64, 0, 0, 1, 0, 0, 0],
            "machine" => ["m1", "m2", "m2", "m2", "m3", "m1", "m2"],
            "gpu" => [1i64, 0, 1, 0, 7, 0, 2],
        )
        .unwrap();
        let e = None::<f64>;
        let gpu = df!(
            "time" => [0i64, 60, 120, 180, 60, DAY2 - 60, DAY2, DAY2 + 60, DAY2 + 120, 0, 0],
            "machine" => ["m1", "m1", "m1", "m1", "m2", "m3", "m3", "m3", "m3", "m2", "m3"],
            "gpu0_util_pct" => [e, e, e, e, Some(50.0), e, e, e, e, Some(5.0), e],
            "gpu1_util_pct" => [Some(10.0), e, Some(30.0), Some(99.0), Some(70.0), e, e, e, e, e, e],
            "gpu2_util_pct" => [e, e, e, e, e, e, e, e, e, Some(6.0), e],
            "gpu7_util_pct" => [e, e, e, e, e, Some(1.0), Some(2.0), Some(3.0), Some(4.0), e, Some(0.0)],
        )
        .unwrap();
        let machines = df!("machine" => ["m1"], "gpus" => [2i64]).unwrap();
        testkit::store(vec![
            (&JOBS, jobs),
            (&ATTEMPTS, attempts),
            (&PLACEMENTS, placements),
            (&GPU_UTIL, gpu),
            (&MACHINES, machines),
        ])
    }

    fn values(s: &Samples, status: &str, g: i64) -> Vec<(f64, u64)> {
        let d = &s[&(status.to_string(), g)];
        d.values().iter().copied().zip(d.counts().iter().copied()).collect()
    }

    #[test]
    fn gpu_minutes_step_from_the_floored_start_while_before_the_end() {
        let s = samples(&tiny().ctx, Filter::All).unwrap();
        // j1: start 0:30 floored to 0:00; minutes 0, 1, 2 (2:00 < 2:30); m1 gpu1 = 10, NA, 30
        // (the NA minute gives nothing; minute 3 = 99 is past the end).
        assert_eq!(values(&s, "Pass", 1), vec![(10.0, 1), (30.0, 1)]);
        // j2 attempt 0: minute 1 only (1:00 < 2:00), m2 gpus 0 and 1 = 50, 70; attempt 1 has no start.
        assert_eq!(values(&s, "Killed", 4), vec![(50.0, 1), (70.0, 1)]);
        // j3 runs from 0 to 2 days + 2 min across the window boundary: m3 gpu7 rows at
        // 2d-1min, 2d, 2d+1min count once each (1, 2, 3); 2d+2min is not < end; minute 0 gives 0.0.
        assert_eq!(values(&s, "Failed", 8), vec![(0.0, 1), (1.0, 1), (2.0, 1), (3.0, 1)]);
        // j4 (8 GPUs on 2 machines), minute 0: m1 gpu0 is NA, m2 gpu2 = 6.
        assert_eq!(values(&s, "Pass", 8), vec![(6.0, 1)]);
    }

    /// Edge cases of the join's rule, worked by hand. Job
    /// k1 (Pass, 2 GPUs) has two attempts overlapping on m1's gpu0 from
    /// 1:00 to 2:00 (0:00-2:00 floored from 0:10, and 1:00-2:30); k2 (Pass,
    /// 2 GPUs too, so the same group) holds gpu1 from 2:00 to 3:00. Rows of
    /// m1: 0:00 -> 1 (attempt 0 only), 1:30 (minute 1:00) -> 2 twice (both
    /// attempts: two samples), 2:45 (minute 2:00, 2:00 < 2:30 for attempt 1;
    /// k2 from 2:00) -> gpu0 3 and gpu1 30, and a second row in minute 2:00
    /// (2:05) -> 4 and 40: a minute with two rows counts both, as the join
    /// does; 3:00 -> nothing (every end is past).
    #[test]
    fn overlapping_attempts_and_rows_within_a_minute_count_as_the_join_does() {
        let jobs =
            df!("job_id" => ["k1", "k2"], "status" => ["Pass", "Pass"], "attempts" => [2i64, 1], "gpus" => [2i64, 2])
                .unwrap();
        let attempts = df!(
            "job_id" => ["k1", "k1", "k2"],
            "attempt" => [0i64, 1, 0],
            "start_time" => [10i64, 60, 120],
            "end_time" => [120i64, 150, 180],
            "machines" => [1i64, 1, 1],
        )
        .unwrap();
        let placements = df!(
            "job_id" => ["k1", "k1", "k2"],
            "attempt" => [0i64, 1, 0],
            "machine" => ["m1", "m1", "m1"],
            "gpu" => [0i64, 0, 1],
        )
        .unwrap();
        let gpu = df!(
            "time" => [0i64, 90, 165, 125, 180],
            "machine" => ["m1", "m1", "m1", "m1", "m1"],
            "gpu0_util_pct" => [1.0, 2.0, 3.0, 4.0, 5.0],
            "gpu1_util_pct" => [10.0, 20.0, 30.0, 40.0, 50.0],
        )
        .unwrap();
        let store = testkit::store(vec![
            (&JOBS, jobs),
            (&ATTEMPTS, attempts),
            (&PLACEMENTS, placements),
            (&GPU_UTIL, gpu),
            (&MACHINES, df!("machine" => ["m1"], "gpus" => [2i64]).unwrap()),
        ]);
        let s = samples(&store.ctx, Filter::All).unwrap();
        assert_eq!(values(&s, "Pass", 2), vec![(1.0, 1), (2.0, 2), (3.0, 1), (4.0, 1), (30.0, 1), (40.0, 1)]);
    }

    /// P5 from the counts P4 left in the context equals P5 joining its own
    /// attempts, and P4 is the same whether or not P5 ran first.
    #[test]
    fn dedicated_samples_from_the_shared_join_equal_their_own_join() {
        let alone = samples(&tiny().ctx, Filter::Dedicated).unwrap();
        let store = tiny();
        assert!(store.ctx.shared.get::<Counts>(SHARED).is_none());
        let all = samples(&store.ctx, Filter::All).unwrap();
        assert!(store.ctx.shared.get::<Counts>(SHARED).is_some());
        assert_eq!(samples(&store.ctx, Filter::Dedicated).unwrap(), alone);
        let p5_first = tiny();
        samples(&p5_first.ctx, Filter::Dedicated).unwrap();
        assert_eq!(samples(&p5_first.ctx, Filter::All).unwrap(), all);
    }

    #[test]
    fn dedicated_keeps_large_jobs_on_at_most_gpus_over_8_servers() {
        let s = samples(&tiny().ctx, Filter::Dedicated).unwrap();
        // j3: 8 GPUs on 1 server, kept; j4: 8 GPUs on 2 servers (2 > 8/8), skipped; j1, j2 too small.
        assert_eq!(s.keys().cloned().collect::<Vec<_>>(), vec![("Failed".to_string(), 8)]);
    }
}
