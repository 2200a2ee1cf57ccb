//! The GPU-hour size classes of Pollux (Qiao et al., OSDI'21 Sec 5), which
//! `seed.pollux-classes` counts per trace and `seed.pollux-busiest-window`
//! inside its window: small 0-1, medium 1-10, large 10-100, extra large
//! 100-1000 GPU-hours (the bounds are parameters; jobs above 1000 are
//! extra large here). Owns the bound parameters, the GPU jobs both read and
//! the per-class mix.
//!
//! Jobs: the unified `jobs` table, GPU jobs (`gpus_requested > 0`) with a
//! submission time and a runtime; GPU-hours = `gpus_requested x run_s /
//! 3600` (PAI's request is fractional with GPU sharing).

use std::ops::Bound;

use polars::prelude::*;

use crate::frame::{collect, f64s};
use crate::params::Param;
use crate::Ctx;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::{unified::JOBS, Trace};

pub const SMALL: Param<f64> =
    Param::number_in("small", "1", "small: GPU-hours below this", Bound::Excluded(0.0), Bound::Unbounded);
pub const MEDIUM: Param<f64> =
    Param::number_in("medium", "10", "medium: below this (and not small)", Bound::Excluded(0.0), Bound::Unbounded);
pub const LARGE: Param<f64> = Param::number_in(
    "large",
    "100",
    "large: below this; extra large from here",
    Bound::Excluded(0.0),
    Bound::Unbounded,
);

/// Class labels in output order.
pub const LABELS: [&str; 4] = ["small", "medium", "large", "xlarge"];

/// The class bounds (small, medium, large) of analysis `id`, which must
/// increase (each parameter alone is already > 0).
pub fn bounds(id: &str, small: f64, medium: f64, large: f64) -> Result<[f64; 3]> {
    if !(small < medium && medium < large) {
        return Err(Error::Usage(format!(
            "{id}: class bounds must increase: small < medium < large (given {small}, {medium}, {large})"
        )));
    }
    Ok([small, medium, large])
}

/// GPU jobs of one trace, by submission then job id.
pub struct Jobs {
    pub submit_s: Vec<f64>,
    pub gpu_hours: Vec<f64>,
}

impl Jobs {
    pub fn empty() -> Jobs {
        Jobs { submit_s: Vec::new(), gpu_hours: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.gpu_hours.len()
    }

    pub fn total_gpu_hours(&self) -> f64 {
        self.gpu_hours.iter().sum()
    }
}

/// The GPU jobs of `trace` in the unified table.
pub fn jobs(ctx: &Ctx, trace: Trace) -> Result<Jobs> {
    let lf = ctx
        .store
        .scan(&JOBS)?
        .filter(
            col("trace")
                .eq(lit(trace.name()))
                .and(col("gpus_requested").gt(lit(0.0)))
                .and(col("run_s").is_not_null())
                .and(col("submit_time").is_not_null()),
        )
        .sort(["submit_time", "job_id"], SortMultipleOptions::default())
        .select([
            (col("submit_time").cast(DataType::Int64).cast(DataType::Float64) / lit(1e6)).alias("t"),
            (col("gpus_requested") * col("run_s") / lit(3600.0)).alias("h"),
        ]);
    let df = collect(lf, "seed.pollux jobs")?;
    let flat = |v: Vec<Option<f64>>| v.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect();
    Ok(Jobs { submit_s: flat(f64s(&df, "t")?), gpu_hours: flat(f64s(&df, "h")?) })
}

/// Class index of a GPU-hour value: a bound belongs to the class above it.
pub fn class_of(h: f64, b: &[f64; 3]) -> usize {
    b.iter().take_while(|x| h >= **x).count()
}

/// (jobs, GPU hours) per class of the jobs in `range`.
pub fn mix(jobs: &Jobs, range: std::ops::Range<usize>, b: &[f64; 3]) -> [(usize, f64); 4] {
    let mut m = [(0usize, 0.0f64); 4];
    for i in range {
        let c = class_of(jobs.gpu_hours[i], b);
        m[c].0 += 1;
        m[c].1 += jobs.gpu_hours[i];
    }
    m
}

/// 100 x part / total; NaN for an empty total.
pub fn pct(part: f64, total: f64) -> f64 {
    if total > 0.0 {
        100.0 * part / total
    } else {
        f64::NAN
    }
}

/// The jobs and classes, as both analyses' definitions state them.
pub fn class_definition(b: [f64; 3]) -> String {
    format!(
        "Unified jobs table, GPU jobs (gpus_requested > 0) with a submit_time and a run_s, per trace. GPU-hours = \
         gpus_requested x run_s / 3600 (PAI: sum over tasks of inst_num x plan_gpu_pct / 100; Philly: first attempt's \
         GPUs x last end - first start; Helios: gpu_num x duration). Classes: small < {} <= medium < {} <= large < {} \
         <= xlarge GPU-hours (Pollux: 0-1, 1-10, 10-100, 100-1000; jobs above 1000 GPU-hours are xlarge here). \
         jobs_pct and gpu_hours_pct are shares of the trace's GPU jobs and GPU-hours.",
        b[0], b[1], b[2]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bounds 1, 10, 100: 0.5 small, 1 medium (the bound is the next
    /// class's), 99.9 large, 1000 xlarge.
    #[test]
    fn classes_by_hand() {
        let b = [1.0, 10.0, 100.0];
        assert_eq!([0.5, 1.0, 99.9, 1000.0].map(|h| class_of(h, &b)), [0, 1, 2, 3]);
    }

    #[test]
    fn bounds_must_increase() {
        assert_eq!(bounds("x", 1.0, 10.0, 100.0).unwrap(), [1.0, 10.0, 100.0]);
        let err = bounds("x", 10.0, 5.0, 100.0).unwrap_err().to_string();
        assert_eq!(err, "x: class bounds must increase: small < medium < large (given 10, 5, 100)");
        assert!(bounds("x", 1.0, 10.0, 10.0).is_err());
    }
}
