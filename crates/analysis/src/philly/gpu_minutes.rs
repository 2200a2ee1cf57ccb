//! The GPU-minute join behind P4/P5 (`get_utilization_data` of the Philly
//! notebook): every attempt with a start and an end is stepped minute by
//! minute from the start floored to the minute while `minute < end`; at each
//! minute, each GPU the attempt holds on each of its machines yields the
//! `gpu<i>_util_pct` of that machine's `philly/gpu_util` row for the minute,
//! when the row exists and the value is not NA (null).
//!
//! Done in time windows so memory stays bounded: per (attempt, machine) the
//! held GPUs are folded into a bit set (a span); each two-day window of
//! `gpu_util` that a span overlaps is read (the parquet scan is
//! time-sorted, so the window filter prunes row groups), its rows grouped
//! by machine in time order, and every span takes its machine's rows in
//! its minutes, counting each held GPU's value per (status, GPUs). Both
//! time axes are UTC already (ingest converted the job log and the PDT/PST
//! utilization times), so the notebook's ambiguous hour at the 2017-11-05
//! DST change matches correctly here.

use std::collections::BTreeMap;

use polars::prelude::*;

use super::{machine_windows, time_span, window_starts};
use crate::frame::{collect, f64_col, for_each_collected, i64_col, i64s, str_col, strs};
use crate::Ctx;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::philly::{ATTEMPTS, GPU_UTIL, JOBS, PLACEMENTS};
use tracelab_stats::Dist;

const MINUTE_US: i64 = 60_000_000;
/// Minutes per join window: two days, about 1.6 M `gpu_util` rows on the
/// full 552-machine trace, two of which (one counted, one decoding) stay
/// well under 1 GB.
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
    /// (machine, mid): the machines jobs were placed on, numbered so a
    /// window's rows can be grouped by machine in a vector.
    machines: DataFrame,
    /// (status, GPUs, dedicated) of each group number `grp` the rows carry
    /// instead of a string through the counting.
    groups: Vec<Group>,
}

/// The job ids of `rows` numbered in order of first appearance.
fn job_numbers(rows: &DataFrame) -> Result<(Vec<u32>, Vec<String>)> {
    let mut names: Vec<String> = Vec::new();
    let mut ids: PlHashMap<String, u32> = PlHashMap::default();
    let mut out = Vec::with_capacity(rows.height());
    for id in strs(rows, "job_id")? {
        let id = id.unwrap_or_default();
        let n = *ids.entry(id.clone()).or_insert_with(|| {
            names.push(id);
            names.len() as u32 - 1
        });
        out.push(n);
    }
    Ok((out, names))
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
                    col("job_id"),
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

/// One (attempt, machine) of the join: its group number, the machine's
/// number, its minutes `[lo, hi)` in microseconds (`lo` on the minute) and
/// the GPUs it holds there as bits (bit i = GPU i).
struct Span {
    grp: u32,
    /// The job's number in [`Placed::jobs`].
    job: u32,
    mid: u32,
    lo: i64,
    hi: i64,
    held: u8,
}

fn spans(rows: &DataFrame) -> Result<Vec<Span>> {
    let (grp, mid, lo, hi) = (i64s(rows, "grp")?, i64s(rows, "mid")?, i64s(rows, "lo")?, i64s(rows, "hi")?);
    let (jobs, _) = job_numbers(rows)?;
    let held: Vec<Vec<Option<bool>>> = (0..GPU_COLUMNS)
        .map(|i| {
            let name = format!("g{i}");
            rows.column(&name)
                .and_then(|c| c.bool().map(|b| b.iter().collect()))
                .map_err(|e| Error::polars(format!("philly GPU-minutes: column {name}"), e))
        })
        .collect::<Result<_>>()?;
    let mut out = Vec::with_capacity(rows.height());
    for r in 0..rows.height() {
        let (Some(g), Some(m), Some(l), Some(h)) = (grp[r], mid[r], lo[r], hi[r]) else { continue };
        let bits = held.iter().enumerate().filter(|(_, c)| c[r] == Some(true)).fold(0u8, |b, (i, _)| b | 1 << i);
        if bits != 0 {
            out.push(Span { grp: g as u32, job: jobs[r], mid: m as u32, lo: l, hi: h, held: bits });
        }
    }
    Ok(out)
}

/// `t` rounded up to a minute: a utilization row at time `u` falls in a
/// minute that starts before `t` iff `u < ceil_minute(t)`.
fn ceil_minute(t: i64) -> i64 {
    t.div_euclid(MINUTE_US) * MINUTE_US + if t.rem_euclid(MINUTE_US) == 0 { 0 } else { MINUTE_US }
}

/// One chunk of a `Float64` column.
type F64Array = <Float64Type as PolarsDataType>::Array;

/// One window of `gpu_util`, its rows grouped by placed machine, each
/// machine's rows in time order.
struct UtilWindow<'a> {
    /// Per machine number: (time, chunk, row within the chunk), in time order.
    rows: Vec<Vec<(i64, u32, u32)>>,
    /// Per GPU column, its chunks (aligned across the frame's columns).
    gpus: Vec<Vec<&'a F64Array>>,
}

impl<'a> UtilWindow<'a> {
    fn new(df: &'a DataFrame, machines: &PlHashMap<String, u32>) -> Result<UtilWindow<'a>> {
        let (times, names) = (i64_col(df, "time")?, str_col(df, "machine")?);
        let mut rows: Vec<Vec<(i64, u32, u32)>> = vec![Vec::new(); machines.len()];
        for (k, (times, names)) in times.downcast_iter().zip(names.downcast_iter()).enumerate() {
            for (r, (t, m)) in times.iter().zip(names.iter()).enumerate() {
                if let (Some(&t), Some(&mid)) = (t, m.and_then(|m| machines.get(m))) {
                    rows[mid as usize].push((t, k as u32, r as u32));
                }
            }
        }
        for machine in &mut rows {
            if !machine.is_sorted_by_key(|&(t, ..)| t) {
                machine.sort_by_key(|&(t, ..)| t);
            }
        }
        let gpus =
            (0..GPU_COLUMNS).map(|i| Ok(f64_col(df, &gpu_col(i))?.downcast_iter().collect())).collect::<Result<_>>()?;
        Ok(UtilWindow { rows, gpus })
    }

    /// Hands `sample` every sample of `span`'s minutes within `[w0, w1)`.
    fn each(&self, span: &Span, (w0, w1): (i64, i64), mut sample: impl FnMut(f64)) {
        let from = span.lo.max(w0);
        let to = ceil_minute(span.hi.min(w1));
        let rows = &self.rows[span.mid as usize];
        let first = rows.partition_point(|&(t, ..)| t < from);
        let held: Vec<&[&F64Array]> =
            (0..GPU_COLUMNS).filter(|i| span.held & (1 << i) != 0).map(|i| self.gpus[i].as_slice()).collect();
        for &(_, k, r) in rows[first..].iter().take_while(|&&(t, ..)| t < to) {
            for chunks in &held {
                if let Some(v) = chunks[k as usize].get(r as usize).filter(|v| v.is_finite()) {
                    sample(v);
                }
            }
        }
    }
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
/// dedicated groups) instead of joining again, waiting for them if P4 is
/// still joining; when P4 has not started, P5 joins only its own attempts.
pub fn samples(ctx: &Ctx, filter: Filter) -> Result<Samples> {
    let counts = match filter {
        Filter::All => ctx.shared.get_or_compute(SHARED, || join_counts(ctx, filter).map(Arc::new))?,
        Filter::Dedicated => match ctx.shared.get::<Counts>(SHARED) {
            Some(all) => all,
            None => Arc::new(join_counts(ctx, filter)?),
        },
    };
    let mut merged: BTreeMap<(String, i64), Vec<&Dist>> = BTreeMap::new();
    for ((status, gpus, ded), d) in counts.iter() {
        if filter == Filter::All || *ded {
            merged.entry((status.clone(), *gpus)).or_default().push(d);
        }
    }
    Ok(merged.into_iter().map(|(k, ds)| (k, Dist::pooled(ds))).collect())
}

/// The GPU-minute join's value counts per group ([`walk`]).
fn join_counts(ctx: &Ctx, filter: Filter) -> Result<Counts> {
    let placed = placed(ctx, filter)?;
    let mut acc: Vec<PlHashMap<u64, u64>> = vec![PlHashMap::default(); placed.groups.len()];
    // Counted by their bits: `Dist::from_counts` merges equal values (0.0
    // and -0.0 too), as it merged the windows' counts.
    walk(ctx, &placed, |span, v| *acc[span.grp as usize].entry(v.to_bits()).or_insert(0) += 1)?;
    Ok(placed
        .groups
        .into_iter()
        .zip(acc)
        .filter(|(_, counts)| !counts.is_empty())
        .map(|(group, counts)| (group, Dist::from_counts(counts.into_iter().map(|(v, n)| (f64::from_bits(v), n)))))
        .collect())
}

/// Per job (every job with a placed attempt), the sum and count of its
/// GPU-minute samples ([`SAMPLE_RULE`], all attempts): its mean hardware
/// utilization over the GPUs it held, per GPU.
pub fn job_sums(ctx: &Ctx) -> Result<BTreeMap<String, (f64, u64)>> {
    let placed = placed(ctx, Filter::All)?;
    let (_, names) = job_numbers(&placed.rows)?;
    let mut acc: Vec<(f64, u64)> = vec![(0.0, 0); names.len()];
    walk(ctx, &placed, |span, v| {
        let a = &mut acc[span.job as usize];
        *a = (a.0 + v, a.1 + 1);
    })?;
    Ok(names.into_iter().zip(acc).filter(|(_, (_, n))| *n > 0).collect())
}

/// The GPU-minute join: every `gpu_util` window that a span overlaps is
/// read (the next one decoding on a second thread while this one is
/// walked), its rows grouped by machine, and each overlapping span hands
/// its machine's rows in its minutes to `sample`. A row loop rather than
/// the engine's join: exploding every span into its minutes, joining them
/// to the window on (machine, minute) and filtering per GPU took 6.5 s and
/// 11.4 CPU-seconds at full scale, mostly gathering the joined columns and
/// zeroing the fresh memory they landed in.
fn walk(ctx: &Ctx, placed: &Placed, mut sample: impl FnMut(&Span, f64)) -> Result<()> {
    let spans = spans(&placed.rows)?;
    let (Some(start), Some(end), Some((u0, u1))) =
        (spans.iter().map(|s| s.lo).min(), spans.iter().map(|s| s.hi).max(), time_span(ctx, &GPU_UTIL)?)
    else {
        return Ok(());
    };
    let machines: PlHashMap<String, u32> = strs(&placed.machines, "machine")?
        .into_iter()
        .zip(i64s(&placed.machines, "mid")?)
        .filter_map(|(m, id)| Some((m?, id? as u32)))
        .collect();
    // Only minutes that gpu_util covers can match; windows stay aligned to
    // `start` (a minute), so every window starts on a minute.
    let width = WINDOW_MIN * MINUTE_US;
    let (start, end) = (start + (u0 - start).max(0) / width * width, end.min(u1 + 1));
    let windows: Vec<(i64, i64)> = window_starts(start, end - 1, width)
        .into_iter()
        .map(|w0| (w0, w0 + width))
        .filter(|&(w0, w1)| spans.iter().any(|s| s.lo < w1 && s.hi > w0))
        .collect();
    let gpus = (0..GPU_COLUMNS).map(|i| col(gpu_col(i))).collect();
    let plans = machine_windows(ctx, &GPU_UTIL, gpus, windows.iter().copied())?;
    let mut next = windows.iter();
    for_each_collected(plans, "philly GPU-minutes: gpu_util window", |df| {
        let window = *next.next().expect("one window per plan");
        let util = UtilWindow::new(&df, &machines)?;
        for span in spans.iter().filter(|s| s.lo < window.1 && s.hi > window.0) {
            util.each(span, window, |v| sample(span, v));
        }
        Ok(())
    })
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

    /// Per job, the same samples summed: j1 10 + 30 over 2; j2 50 + 70 over
    /// 2; j3 0 + 1 + 2 + 3 over 4; j4 6 over 1 (from the test above).
    #[test]
    fn per_job_sums_are_the_jobs_samples() {
        let sums = job_sums(&tiny().ctx).unwrap();
        let want: BTreeMap<String, (f64, u64)> =
            [("j1", (40.0, 2)), ("j2", (120.0, 2)), ("j3", (6.0, 4)), ("j4", (6.0, 1))]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
        assert_eq!(sums, want);
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

    /// Random attempts over five days (so across the two-day windows) on
    /// four machines whose utilization rows come in no particular order,
    /// several to a minute, some values missing, against the rule evaluated
    /// row by row: every attempt, every utilization row of each of its
    /// machines whose minute starts in [start floored to the minute, end),
    /// every GPU it holds there with a value.
    #[test]
    fn random_attempts_count_what_the_rule_gives_row_by_row() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: i64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as i64
        };
        const DAY: i64 = 86_400;
        let statuses = ["Pass", "Killed", "Failed"];
        let (mut job_id, mut status, mut attempts_n, mut gpus) = (vec![], vec![], vec![], vec![]);
        let (mut a_job, mut a_no, mut a_start, mut a_end) = (vec![], vec![], vec![], vec![]);
        let (mut p_job, mut p_no, mut p_machine, mut p_gpu) = (vec![], vec![], vec![], vec![]);
        for j in 0..40 {
            let n = 1 + next(2);
            job_id.push(format!("j{j}"));
            status.push(statuses[next(3) as usize]);
            attempts_n.push(n);
            gpus.push([1i64, 2, 4, 8][next(4) as usize]);
            for a in 0..n {
                let start = next(5 * DAY);
                a_job.push(format!("j{j}"));
                a_no.push(a);
                a_start.push(start);
                a_end.push(start + 1 + next(3 * DAY));
                for m in 0..4 {
                    if next(2) == 0 {
                        for _ in 0..1 + next(3) {
                            p_job.push(format!("j{j}"));
                            p_no.push(a);
                            p_machine.push(format!("m{m}"));
                            p_gpu.push(next(8));
                        }
                    }
                }
            }
        }
        let (mut u_time, mut u_machine) = (vec![], vec![]);
        let mut u_values: Vec<Vec<Option<f64>>> = vec![vec![]; GPU_COLUMNS];
        for _ in 0..6000 {
            u_time.push(next(6 * DAY));
            u_machine.push(format!("m{}", next(4)));
            for column in &mut u_values {
                column.push((next(5) > 0).then(|| next(40) as f64));
            }
        }
        // The rule, row by row.
        let mut expected: BTreeMap<(String, i64), BTreeMap<i64, u64>> = BTreeMap::new();
        for a in 0..a_job.len() {
            let j: usize = a_job[a][1..].parse().unwrap();
            let lo = a_start[a].div_euclid(60) * 60;
            let mut held: Vec<(String, i64)> = (0..p_job.len())
                .filter(|&p| p_job[p] == a_job[a] && p_no[p] == a_no[a])
                .map(|p| (p_machine[p].clone(), p_gpu[p]))
                .collect();
            held.sort();
            held.dedup();
            for u in 0..u_time.len() {
                let minute = u_time[u].div_euclid(60) * 60;
                if minute < lo || minute >= a_end[a] {
                    continue;
                }
                for (_, g) in held.iter().filter(|(m, _)| *m == u_machine[u]) {
                    if let Some(v) = u_values[*g as usize][u] {
                        let group = expected.entry((status[j].to_string(), gpus[j])).or_default();
                        *group.entry(v as i64).or_default() += 1;
                    }
                }
            }
        }
        let mut gpu = df!("time" => u_time, "machine" => u_machine).unwrap();
        for (i, column) in u_values.into_iter().enumerate() {
            gpu.with_column(Column::new(gpu_col(i).into(), column)).unwrap();
        }
        let ones = vec![1i64; a_no.len()];
        let store = testkit::store(vec![
            (&JOBS, df!("job_id" => job_id, "status" => status, "attempts" => attempts_n, "gpus" => gpus).unwrap()),
            (
                &ATTEMPTS,
                df!("job_id" => a_job, "attempt" => a_no, "start_time" => a_start, "end_time" => a_end,
                    "machines" => ones)
                .unwrap(),
            ),
            (&PLACEMENTS, df!("job_id" => p_job, "attempt" => p_no, "machine" => p_machine, "gpu" => p_gpu).unwrap()),
            (&GPU_UTIL, gpu),
            (&MACHINES, df!("machine" => ["m0", "m1", "m2", "m3"], "gpus" => [8i64; 4]).unwrap()),
        ]);
        let found: BTreeMap<(String, i64), Vec<(f64, u64)>> = samples(&store.ctx, Filter::All)
            .unwrap()
            .into_iter()
            .map(|(k, d)| (k, d.values().iter().copied().zip(d.counts().iter().copied()).collect()))
            .collect();
        let expected: BTreeMap<(String, i64), Vec<(f64, u64)>> =
            expected.into_iter().map(|(k, c)| (k, c.into_iter().map(|(v, n)| (v as f64, n)).collect())).collect();
        assert!(expected.values().map(|c| c.iter().map(|p| p.1).sum::<u64>()).sum::<u64>() > 10_000);
        assert_eq!(found, expected);
    }

    #[test]
    fn dedicated_keeps_large_jobs_on_at_most_gpus_over_8_servers() {
        let s = samples(&tiny().ctx, Filter::Dedicated).unwrap();
        // j3: 8 GPUs on 1 server, kept; j4: 8 GPUs on 2 servers (2 > 8/8), skipped; j1, j2 too small.
        assert_eq!(s.keys().cloned().collect::<Vec<_>>(), vec![("Failed".to_string(), 8)]);
    }
}
