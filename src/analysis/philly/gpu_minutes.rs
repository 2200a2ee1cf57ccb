//! The GPU-minute join behind P4/P5 (`get_utilization_data` of the Philly
//! notebook): every attempt with a start and an end is stepped minute by
//! minute from the start floored to the minute while `minute < end`; at each
//! minute, each GPU the attempt holds on each of its machines yields the
//! `gpu<i>_util_pct` of that machine's `philly/gpu_util` row for the minute,
//! when the row exists and the value is not NA (null).
//!
//! Computed as a sweep rather than the notebook's explode-and-join: per
//! machine, the attempts' `[start floored, end)` intervals cut time into
//! segments with a constant set of held (GPU, group) pairs; each
//! `gpu_util` row (read in time windows, so memory stays bounded) finds
//! its machine's segment by binary search and counts the held GPUs'
//! values per (status, GPUs). This gives exactly the join's pairs (a row
//! matches an attempt when `start floored <= minute < end`, the minute
//! being the row's time floored), without exploding 100 M attempt-minutes
//! into a hash join, which took four times as long on the full trace. Both
//! time axes are UTC already (ingest converted the job log and the PDT/PST
//! utilization times), so the notebook's ambiguous hour at the 2017-11-05
//! DST change matches correctly here.

use std::collections::BTreeMap;

use polars::prelude::*;

use crate::analysis::frame::{collect, for_each_collected, i64s, strs};
use crate::analysis::Ctx;
use crate::error::{Error, Result};
use crate::schema::philly::{ATTEMPTS, GPU_UTIL, JOBS, PLACEMENTS};
use crate::stats::Dist;

const MINUTE_US: i64 = 60_000_000;
/// Minutes of `gpu_util` read at once: two days, about 1.6 M rows of the
/// full 552-machine trace.
const WINDOW_MIN: i64 = 2 * 1440;
const GPU_COLUMNS: usize = 8;

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

fn utc_us() -> DataType {
    DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC))
}

fn gpu_col(i: usize) -> String {
    format!("gpu{i}_util_pct")
}

/// One machine's timeline: segment k is `[points[k], points[k + 1])` and
/// holds the (GPU index, group) pairs `held[offsets[k]..offsets[k + 1]]`,
/// one per attempt holding that GPU then (an attempt holding two GPUs
/// gives two pairs; two attempts of a group on one GPU give two samples,
/// as the join does).
#[derive(Default)]
struct Timeline {
    points: Vec<i64>,
    offsets: Vec<usize>,
    held: Vec<(u8, u32)>,
}

/// An attempt's stay on one machine: `[lo, hi)` in microseconds, its
/// group and the GPUs it holds there.
#[derive(Clone, Copy)]
struct Stay {
    lo: i64,
    hi: i64,
    grp: u32,
    gpus: [bool; GPU_COLUMNS],
}

impl Timeline {
    fn new(mut stays: Vec<Stay>) -> Timeline {
        let mut points: Vec<i64> = stays.iter().flat_map(|s| [s.lo, s.hi]).collect();
        points.sort_unstable();
        points.dedup();
        stays.sort_by_key(|s| s.lo);
        let mut t = Timeline { offsets: vec![0], ..Timeline::default() };
        let (mut next, mut active): (usize, Vec<Stay>) = (0, Vec::new());
        for &p in &points {
            active.retain(|s| s.hi > p);
            while next < stays.len() && stays[next].lo <= p {
                active.push(stays[next]);
                next += 1;
            }
            for s in &active {
                let held = s.gpus.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| (i as u8, s.grp));
                t.held.extend(held);
            }
            t.offsets.push(t.held.len());
        }
        t.points = points;
        t
    }

    /// The (GPU, group) pairs held at time `x`. `cursor` is the number of
    /// points at or before the previous `x` asked for: checked, then its
    /// successor, before a binary search.
    fn at(&self, x: i64, cursor: &mut usize) -> &[(u8, u32)] {
        let fits = |k: usize| (k == 0 || self.points[k - 1] <= x) && (k == self.points.len() || self.points[k] > x);
        let k = match *cursor {
            c if fits(c) => c,
            c if c < self.points.len() && fits(c + 1) => c + 1,
            _ => self.points.partition_point(|&p| p <= x),
        };
        *cursor = k;
        match k {
            0 => &[],
            k => &self.held[self.offsets[k - 1]..self.offsets[k]],
        }
    }
}

/// The stays of the contributing attempts, per machine, and the (status,
/// GPUs) of every group number.
struct Placed {
    /// Machine name -> its timeline in `lines`.
    index: PlHashMap<String, usize>,
    lines: Vec<Timeline>,
    groups: Vec<(String, i64)>,
    /// First `lo` and last `hi` over all stays.
    span: Option<(i64, i64)>,
}

fn bool_col<'a>(df: &'a DataFrame, name: &str) -> Result<&'a BooleanChunked> {
    df.column(name).and_then(|c| c.bool()).map_err(|e| Error::polars(format!("column {name}"), e))
}

fn placed(ctx: &Ctx, filter: Filter) -> Result<Placed> {
    let rows = placed_rows(ctx, filter)?;
    let (status, gpus) = (strs(&rows, "status")?, i64s(&rows, "gpus")?);
    let (machine, lo, hi) = (strs(&rows, "machine")?, i64s(&rows, "lo")?, i64s(&rows, "hi")?);
    let held: Vec<&BooleanChunked> =
        (0..GPU_COLUMNS).map(|i| bool_col(&rows, &format!("g{i}"))).collect::<Result<_>>()?;
    let mut group_of: BTreeMap<(String, i64), u32> = BTreeMap::new();
    for (s, g) in status.iter().zip(&gpus) {
        if let (Some(s), Some(g)) = (s, g) {
            group_of.insert((s.clone(), *g), 0);
        }
    }
    for (n, v) in group_of.values_mut().enumerate() {
        *v = n as u32;
    }
    let mut stays: BTreeMap<String, Vec<Stay>> = BTreeMap::new();
    let mut span: Option<(i64, i64)> = None;
    for r in 0..rows.height() {
        let (Some(s), Some(g), Some(m), Some(lo), Some(hi)) = (&status[r], gpus[r], &machine[r], lo[r], hi[r]) else {
            continue;
        };
        let mut gpus = [false; GPU_COLUMNS];
        for (h, col) in gpus.iter_mut().zip(&held) {
            *h = col.get(r).unwrap_or(false);
        }
        let grp = group_of[&(s.clone(), g)];
        stays.entry(m.clone()).or_default().push(Stay { lo, hi, grp, gpus });
        span = Some(span.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
    }
    let index = stays.keys().enumerate().map(|(i, m)| (m.clone(), i)).collect();
    let lines = stays.into_values().map(Timeline::new).collect();
    Ok(Placed { index, lines, groups: group_of.into_keys().collect(), span })
}

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
        // Python 3: len(detail) > num_gpus / 8 is a float comparison.
        att = att
            .filter(col("machines").cast(DataType::Float64).lt_eq(col("gpus").cast(DataType::Float64) / lit(8.0)))
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
                ],
                (0..GPU_COLUMNS).map(|i| col(format!("g{i}"))).collect(),
            ]
            .concat(),
        )
        .filter(col("hi").gt(col("lo")));
    collect(lf, "philly GPU-minutes: attempts x placements")
}


/// Counts per group of every utilization value (as its bits).
type Counts = Vec<PlHashMap<u64, u64>>;

/// The `gpu_util` rows with `w0 <= time < w1`: time in microseconds,
/// machine, the GPU columns.
fn util_window(ctx: &Ctx, w0: i64, w1: i64) -> Result<LazyFrame> {
    let t = col("time");
    let cols: Vec<Expr> = [t.clone().cast(DataType::Int64), col("machine")]
        .into_iter()
        .chain((0..GPU_COLUMNS).map(|i| col(gpu_col(i))))
        .collect();
    Ok(ctx
        .store
        .scan(&GPU_UTIL)?
        .filter(t.clone().gt_eq(lit(w0).cast(utc_us())).and(t.lt(lit(w1).cast(utc_us()))))
        .select(cols))
}

/// One window of `gpu_util` (chunks aligned), counted into `counts`;
/// `cursors` holds each machine's last segment (rows come in time order,
/// so the next row's segment is almost always the same or the next one).
fn count_window(df: &DataFrame, placed: &Placed, counts: &mut Counts, cursors: &mut [usize]) -> Result<()> {
    let what = |e| Error::polars("philly GPU-minutes: gpu_util columns".to_string(), e);
    let time = df.column("time").and_then(|c| c.i64()).map_err(what)?;
    let machine = df.column("machine").and_then(|c| c.str()).map_err(what)?;
    let values: Vec<Vec<_>> = (0..GPU_COLUMNS)
        .map(|i| df.column(&gpu_col(i)).and_then(|c| c.f64()).map(|c| c.downcast_iter().collect()).map_err(what))
        .collect::<Result<_>>()?;
    for (k, (times, names)) in time.downcast_iter().zip(machine.downcast_iter()).enumerate() {
        for (r, (t, m)) in times.iter().zip(names.iter()).enumerate() {
            let (Some(&t), Some(m)) = (t, m) else { continue };
            let Some(&line) = placed.index.get(m) else { continue };
            let minute = t.div_euclid(MINUTE_US) * MINUTE_US;
            for &(gpu, grp) in placed.lines[line].at(minute, &mut cursors[line]) {
                if let Some(v) = values[gpu as usize][k].get(r).filter(|v| v.is_finite()) {
                    *counts[grp as usize].entry(v.to_bits()).or_default() += 1;
                }
            }
        }
    }
    Ok(())
}

/// Every GPU-minute sample, as utilization value counts per (status, GPUs).
pub fn samples(ctx: &Ctx, filter: Filter) -> Result<Samples> {
    let placed = placed(ctx, filter)?;
    let Some((start, end)) = placed.span else { return Ok(Samples::new()) };
    // A row up to a minute past the last end still floors into an
    // attempt's last minute (start is on the minute already).
    let end = end + MINUTE_US;
    let mut counts: Counts = vec![PlHashMap::default(); placed.groups.len()];
    let mut cursors = vec![0; placed.lines.len()];
    let starts = (0..).map(|k| start + k * WINDOW_MIN * MINUTE_US).take_while(|w0| *w0 < end);
    let windows = starts.map(|w0| util_window(ctx, w0, (w0 + WINDOW_MIN * MINUTE_US).min(end))).collect::<Result<_>>()?;
    for_each_collected(windows, "philly GPU-minutes: gpu_util window", |df| {
        count_window(&df, &placed, &mut counts, &mut cursors)
    })?;
    let mut out = Samples::new();
    for (group, c) in placed.groups.into_iter().zip(counts) {
        if !c.is_empty() {
            out.insert(group, Dist::from_counts(c.into_iter().map(|(v, n)| (f64::from_bits(v), n))));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testkit;
    use crate::schema::philly::MACHINES;

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

    /// The sweep's edge cases, against the join's rule worked by hand. Job
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
        let jobs = df!("job_id" => ["k1", "k2"], "status" => ["Pass", "Pass"], "attempts" => [2i64, 1], "gpus" => [2i64, 2])
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

    #[test]
    fn dedicated_keeps_large_jobs_on_at_most_gpus_over_8_servers() {
        let s = samples(&tiny().ctx, Filter::Dedicated).unwrap();
        // j3: 8 GPUs on 1 server, kept; j4: 8 GPUs on 2 servers (2 > 8/8), skipped; j1, j2 too small.
        assert_eq!(s.keys().cloned().collect::<Vec<_>>(), vec![("Failed".to_string(), 8)]);
    }
}
