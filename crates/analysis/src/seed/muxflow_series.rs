//! The cluster utilization time series behind `seed.muxflow-predictability`,
//! one regular series per trace (one value per bin of `bin_s` seconds, bins
//! aligned to the UTC epoch, from the first bin anything covers to the
//! last):
//!
//! - PAI: 100 x (sum of `gpu_wrk_util` / 100 over the sensor rows whose
//!   instance covers the bin; a null utilization counts 0) / (GPUs of every machine in `machine_spec`).
//!   Sensor values are lifetime averages, so this is the reconstruction
//!   `pai.machine-util` also uses: a row covers the bins its `[start, end)`
//!   overlaps (`crate::pai::bins`), with its worker's `dfiw` times.
//! - Philly: the mean of every non-null GPU reading of `philly/gpu_util` in
//!   the bin (hardware utilization of all reporting GPUs, busy or idle);
//!   NaN where no machine reported.
//! - Helios: GPU ALLOCATION, not utilization (the trace has none): 100 x
//!   GPUs held by running GPU jobs (those covering the bin, as PAI) / the
//!   day's GPUs over all clusters (`helios/vc_gpus`, local day of the bin
//!   start), capped at 100; NaN on days with no capacity row.

use std::collections::BTreeMap;

use chrono::{TimeZone, Timelike};
use polars::prelude::*;

use crate::frame::{collect, f64s, i64s};
use crate::pai::bins::{covers_time, end_bin, first_bin};
use crate::pai::frames;
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::{helios, pai, philly, Trace};
use tracelab_stats::interval_sums;

/// A regular series of one trace.
pub struct Series {
    pub trace: Trace,
    /// UTC seconds of the first bin's start.
    pub start_s: i64,
    pub bin_s: i64,
    /// One value per bin, NaN where there is none.
    pub values: Vec<f64>,
    /// What the values are, for labels.
    pub what: &'static str,
}

impl Series {
    /// Local hour of day (the trace's zone) of every bin start.
    pub fn local_hours(&self) -> Vec<u32> {
        let tz: chrono_tz::Tz = self.trace.local_tz().parse().expect("Trace::local_tz names valid zones");
        (0..self.values.len() as i64)
            .map(|i| tz.timestamp_opt(self.start_s + i * self.bin_s, 0).single().map_or(0, |t| t.hour()))
            .collect()
    }
}

/// The series of `trace` at `bin_s`; None when nothing covers any bin.
pub fn series(ctx: &Ctx, trace: Trace, bin_s: i64) -> Result<Option<Series>> {
    let (start_bin, values, what) = match trace {
        Trace::Pai => pai_series(ctx, bin_s)?,
        Trace::Philly => philly_series(ctx, bin_s)?,
        Trace::Helios => helios_series(ctx, bin_s)?,
        // SWF logs count processors, not GPUs: no GPU series.
        Trace::Swf => return Ok(None),
        // Not among the seed traces; their allocation series come from their own analyses.
        Trace::Acme | Trace::Spot => return Ok(None),
    };
    Ok((!values.is_empty()).then(|| Series { trace, start_s: start_bin * bin_s, bin_s, values, what }))
}

type Raw = (i64, Vec<f64>, &'static str);

/// The covering bins `[b0, b1)` and weights `w` of `rows` (with
/// start_time, end_time and `weight`) summed per bin.
fn swept(rows: LazyFrame, weight: Expr, bin_s: i64, what: &str) -> Result<(i64, Vec<f64>)> {
    let lf = rows.filter(covers_time()).select([
        first_bin(col("start_time"), bin_s).alias("b0"),
        end_bin(col("end_time"), bin_s).alias("b1"),
        weight.cast(DataType::Float64).alias("w"),
    ]);
    let df = collect(lf, what)?;
    let (b0, b1): (Vec<i64>, Vec<i64>) = (flat(i64s(&df, "b0")?), flat(i64s(&df, "b1")?));
    let w: Vec<f64> = f64s(&df, "w")?.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect();
    let (Some(lo), Some(hi)) = (b0.iter().min().copied(), b1.iter().max().copied()) else {
        return Ok((0, Vec::new()));
    };
    Ok((lo, interval_sums(&b0, &b1, &w, lo, hi)))
}

fn flat(v: Vec<Option<i64>>) -> Vec<i64> {
    v.into_iter().map(|x| x.unwrap_or(0)).collect()
}

fn pai_series(ctx: &Ctx, bin_s: i64) -> Result<Raw> {
    let rows = frames::sensor_times(ctx, &["start_time", "end_time", "gpu_wrk_util_pct"])?;
    let gpus = collect(ctx.store.scan(&pai::MACHINE_SPEC)?.select([col("cap_gpu").sum()]), "PAI GPUs")?;
    let total = f64s(&gpus, "cap_gpu")?.first().copied().flatten().unwrap_or(0.0);
    let util = col("gpu_wrk_util_pct").fill_null(lit(0.0)) / lit(100.0);
    let (lo, sums) = swept(rows, util, bin_s, "seed PAI series")?;
    let values = sums.into_iter().map(|s| if total > 0.0 { 100.0 * s / total } else { f64::NAN }).collect();
    Ok((lo, values, "GPU utilization (% of the cluster's GPUs)"))
}

/// Philly's cluster series: per bin, the mean of every GPU reading. Summed
/// per two-day window and combined (a bin may straddle two windows), so the
/// 42 M rows of a full-scale `gpu_util` are never held at once.
fn philly_series(ctx: &Ctx, bin_s: i64) -> Result<Raw> {
    let gpu = |i: usize| col(format!("gpu{i}_util_pct"));
    let sum = (1..8).fold(gpu(0).fill_null(lit(0.0)), |acc, i| acc + gpu(i).fill_null(lit(0.0)));
    let count = (1..8).fold(gpu(0).is_not_null().cast(DataType::Float64), |acc, i| {
        acc + gpu(i).is_not_null().cast(DataType::Float64)
    });
    let bin = col("time").cast(DataType::Int64).floor_div(lit(bin_s * 1_000_000));
    let plan = |w: LazyFrame| {
        w.select([bin.clone().alias("bin"), sum.clone().alias("s"), count.clone().alias("n")])
            .group_by([col("bin")])
            .agg([col("s").sum(), col("n").sum()])
    };
    let mut per_bin: BTreeMap<i64, (f64, f64)> = BTreeMap::new();
    crate::philly::for_each_window(ctx, &philly::GPU_UTIL, plan, |df| {
        let (bins, s, n) = (i64s(&df, "bin")?, f64s(&df, "s")?, f64s(&df, "n")?);
        for i in 0..bins.len() {
            let Some(b) = bins[i] else { continue };
            let acc = per_bin.entry(b).or_default();
            acc.0 += s[i].unwrap_or(0.0);
            acc.1 += n[i].unwrap_or(0.0);
        }
        Ok(())
    })?;
    let (Some(&lo), Some(&hi)) = (per_bin.keys().next(), per_bin.keys().next_back()) else {
        return Ok((0, Vec::new(), ""));
    };
    let mut values = vec![f64::NAN; (hi - lo + 1) as usize];
    for (b, (s, n)) in per_bin {
        if n > 0.0 {
            values[(b - lo) as usize] = s / n;
        }
    }
    Ok((lo, values, "GPU utilization (mean of all GPU readings, %)"))
}

fn helios_series(ctx: &Ctx, bin_s: i64) -> Result<Raw> {
    let jobs = ctx.store.scan(&helios::JOBS)?.filter(col("gpus").gt(lit(0)));
    let (lo, running) = swept(jobs, col("gpus"), bin_s, "seed Helios series")?;
    let capacity = daily_gpus(ctx)?;
    let values = running
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let day = ((lo + i as i64) * bin_s + 8 * 3600).div_euclid(86_400);
            match capacity.binary_search_by_key(&day, |d| d.0) {
                Ok(k) if capacity[k].1 > 0.0 => (100.0 * r / capacity[k].1).min(100.0),
                _ => f64::NAN,
            }
        })
        .collect();
    Ok((lo, values, "GPU allocation (% of the day's GPUs; not utilization)"))
}

/// (local day since the epoch, GPUs over every cluster and VC), by day.
fn daily_gpus(ctx: &Ctx) -> Result<Vec<(i64, f64)>> {
    let lf = ctx
        .store
        .scan(&helios::VC_GPUS)?
        .group_by([col("date").cast(DataType::Int32).cast(DataType::Int64).alias("day")])
        .agg([col("gpus").sum().cast(DataType::Float64).alias("gpus")])
        .sort(["day"], SortMultipleOptions::default());
    let df = collect(lf, "helios daily GPUs")?;
    Ok(flat(i64s(&df, "day")?).into_iter().zip(f64s(&df, "gpus")?.into_iter().map(|g| g.unwrap_or(0.0))).collect())
}
