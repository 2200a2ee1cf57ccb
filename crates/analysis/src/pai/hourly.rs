//! Hour binning in the PAI trace's Asia/Shanghai wall clock (the README's
//! guarantee), shared by the submission patterns (NSDI'22 Fig 3, notebook
//! A3-A6): per hour over one week, and per hour of day as box statistics.
//!
//! The week: `hourofyear = dayofyear * 24 + hour` (1-based day of year), and
//! hour 0 = hourofyear 600, i.e. 1970-01-25 00:00 UTC+8, a Sunday (the
//! notebook's `offset=-600`, upstream issue #262). Hour-of-day boxes use one
//! value per calendar date and hour; dates missing any hour are dropped as
//! the notebook's `dropna` does; whiskers at 1 x IQR (seaborn `whis=1`).

use polars::prelude::*;

use crate::frame::{collect, f64s, i64s, local};
use crate::output::ResultTable;
use crate::params::{params, Param};
use tracelab_schema::error::{Error, Result};
use tracelab_schema::Trace;
use tracelab_stats::Dist;

/// The week series' hour 0 (A3 and A5).
pub const OFFSET: Param<u64> =
    Param::whole("offset", "600", "hourofyear shown as hour 0 (600 = a Sunday)", 0, u64::MAX);

params! {
    /// The week series' parameters.
    pub struct WeekParams {
        pub offset: u64 = OFFSET,
    }
}

/// The `dfw` columns the request series read.
pub const REQUEST_COLUMNS: [&str; 4] = ["start_time", "plan_cpu_pct", "plan_gpu_pct", "plan_mem_gib"];

const HOUR_US: i64 = 3_600_000_000;

/// The local (Asia/Shanghai) wall-clock hour of `ts` as one integer, hours
/// since 1970-01-01 00:00 local.
fn local_hour(ts: Expr) -> Expr {
    let wall = local(ts, Trace::Pai).dt().replace_time_zone(None, lit("raise"), NonExistent::Raise);
    wall.cast(DataType::Int64).floor_div(lit(HOUR_US)).alias("lh")
}

/// Per local hour (`lh`, [`local_hour`]) the sums of the `values` (name,
/// per-row expression) over the rows with a `ts`. The rows are summed per
/// UTC hour first (integer arithmetic, no time zone per row), then each UTC
/// hour is placed in its local hour, which is exact when every UTC hour of
/// the data lies within one local hour (whole-hour offsets: Asia/Shanghai
/// is UTC+8 throughout the trace); otherwise the rows are placed one by one.
fn hour_sums(lf: LazyFrame, ts: Expr, values: &[(&str, Expr)]) -> Result<LazyFrame> {
    let lf = lf
        .filter(ts.clone().is_not_null())
        .with_columns(values.iter().map(|(n, e)| e.clone().alias(*n)).collect::<Vec<_>>());
    let sums = || values.iter().map(|(n, _)| col(*n).sum()).collect::<Vec<_>>();
    let utc = collect(
        lf.clone().group_by([ts.clone().cast(DataType::Int64).floor_div(lit(HOUR_US)).alias("uh")]).agg(sums()),
        "per UTC hour",
    )?;
    let at = |us: Expr| us.cast(DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC)));
    let placed = collect(
        utc.lazy().with_columns([
            local_hour(at(col("uh") * lit(HOUR_US))),
            local_hour(at((col("uh") + lit(1i64)) * lit(HOUR_US) - lit(1i64))).alias("lh_end"),
        ]),
        "local hours",
    )?;
    let whole = collect(placed.clone().lazy().select([col("lh").eq(col("lh_end")).all(true).alias("ok")]), "offsets")?;
    if whole.column("ok").ok().and_then(|c| c.bool().ok()?.get(0)) == Some(true) {
        return Ok(placed.lazy().group_by([col("lh")]).agg(sums()));
    }
    Ok(lf.group_by([local_hour(ts)]).agg(sums()))
}

/// `hourofyear = dayofyear * 24 + hour` of a local hour from [`local_hour`].
fn hourofyear(lh: Expr) -> Expr {
    let t = (lh * lit(HOUR_US)).cast(DataType::Datetime(TimeUnit::Microseconds, None));
    (t.clone().dt().ordinal_day().cast(DataType::Int64) * lit(24i64) + t.dt().hour().cast(DataType::Int64)).alias("hoy")
}

/// The hours of the week series plotted, `0 <= hour < end`: A3 plots
/// `hour < 24*7+1` (0..=168, the next Sunday's first hour included), A5
/// `hour < 24*7` (0..=167).
pub const SUBMISSIONS_END: i64 = 24 * 7 + 1;
pub const REQUESTS_END: i64 = 24 * 7;

/// Sums the `values` (name, per-row expression) per hourofyear of `ts`,
/// shifted by the offset and cut to hours `0 <= hour < end`.
pub fn week_series(lf: LazyFrame, ts: Expr, values: &[(&str, Expr)], offset: i64, end: i64) -> Result<DataFrame> {
    let per_hoy: Vec<Expr> = values.iter().map(|(n, _)| col(*n).sum()).collect();
    let grouped = hour_sums(lf, ts, values)?
        .group_by([hourofyear(col("lh"))])
        .agg(per_hoy)
        .with_column((col("hoy") - lit(offset)).alias("hour"))
        .filter(col("hour").gt_eq(lit(0i64)).and(col("hour").lt(lit(end))))
        .sort(["hour"], SortMultipleOptions::default());
    collect(grouped, "hourly series")
}

/// The (hour, y / scale) points of a week series.
pub fn points(df: &DataFrame, y: &str, scale: f64) -> Result<Vec<(f64, f64)>> {
    let hours = i64s(df, "hour")?;
    let ys = f64s(df, y)?;
    Ok(hours.into_iter().zip(ys).filter_map(|(h, v)| Some((h? as f64, v? / scale))).collect())
}

/// Per (local date, hour) sums of `value`, dates missing an hour dropped,
/// then box statistics per hour.
pub fn by_hour_boxes(lf: LazyFrame, ts: Expr, value: Expr) -> Result<ResultTable> {
    let hours_of_date = col("hour").n_unique().over([col("date")]).map_err(|e| Error::polars("hours per date", e))?;
    // A local hour index splits into the local date (days since 1970-01-01)
    // and the hour of that day.
    let per = hour_sums(lf, ts, &[("v", value)])?
        .with_column(col("lh").floor_div(lit(24i64)).alias("date"))
        .with_column((col("lh") - col("date") * lit(24i64)).alias("hour"))
        .filter(hours_of_date.eq(lit(24u32)))
        // Group-by rows come out in no fixed order, and the means below add
        // in row order: sort for the same bits on every run.
        .sort(["date", "hour"], SortMultipleOptions::default())
        .select([col("hour"), col("v").cast(DataType::Float64)]);
    let df = collect(per, "per date and hour")?;
    let (hours, values) = (i64s(&df, "hour")?, f64s(&df, "v")?);
    let mut by_hour: Vec<Vec<f64>> = vec![Vec::new(); 24];
    for (h, v) in hours.into_iter().zip(values) {
        if let (Some(h), Some(v)) = (h, v) {
            by_hour[h as usize].push(v);
        }
    }
    Ok(box_table(by_hour))
}

/// Box statistics per hour: quartiles (linear), whiskers at the furthest
/// values within 1 x IQR of the box (seaborn `whis=1`), the mean, and
/// whether the mean is at or above the overall mean (the boxes the notebook
/// highlights).
fn box_table(by_hour: Vec<Vec<f64>>) -> ResultTable {
    let all: Vec<f64> = by_hour.iter().flatten().copied().collect();
    let overall = all.iter().sum::<f64>() / all.len() as f64;
    let mut t =
        ResultTable::new(&["hour", "days", "whisker_low", "q1", "median", "q3", "whisker_high", "mean", "above_mean"]);
    for (h, values) in by_hour.into_iter().enumerate() {
        let d = Dist::from_samples(values.clone());
        let (q1, q3) = (d.quantile(0.25), d.quantile(0.75));
        let iqr = q3 - q1;
        let lo = values.iter().copied().filter(|v| *v >= q1 - iqr).fold(f64::NAN, f64::min);
        let hi = values.iter().copied().filter(|v| *v <= q3 + iqr).fold(f64::NAN, f64::max);
        let mean = d.mean();
        let above = if mean >= overall { "yes" } else { "no" };
        t.push(vec![
            (h as i64).into(),
            d.n().into(),
            lo.into(),
            q1.into(),
            d.quantile(0.5).into(),
            q3.into(),
            hi.into(),
            mean.into(),
            above.into(),
        ]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values 1..=5: q1 2, q3 4, IQR 2; whiskers reach 1 and 5 (within
    /// [0, 6]); with an outlier 20 added (n=6): q1 = 2.25, q3 = 4.75, IQR 2.5,
    /// high whisker = 5 (20 > 7.25).
    #[test]
    fn box_statistics_by_hand() {
        let mut hours = vec![Vec::new(); 24];
        hours[0] = vec![1.0, 2.0, 3.0, 4.0, 5.0];
        hours[1] = vec![1.0, 2.0, 3.0, 4.0, 5.0, 20.0];
        let t = box_table(hours);
        let row = |h: usize| -> Vec<f64> { t.rows[h].iter().filter_map(crate::output::Cell::as_f64).collect() };
        assert_eq!(row(0), vec![0.0, 5.0, 1.0, 2.0, 3.0, 4.0, 5.0, 3.0]);
        assert_eq!(row(1)[2..7], [1.0, 2.25, 3.5, 4.75, 5.0]);
    }
}
