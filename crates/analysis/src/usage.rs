//! GPU usage as the replays of GPU sharing read it (`tracelab-workload`),
//! built on the analyses' own definitions so a replay and a figure never
//! disagree on what a trace measured:
//! - [`daily_profile`]: the shape of a trace's cluster utilization over a
//!   day, from the series behind `seed.muxflow-predictability`
//!   (MuxFlow's online load follows it);
//! - [`philly_job_util`]: each Philly job's mean GPU utilization over its
//!   GPU-minutes, from the join behind ATC'19 Fig 5-6 (`philly.gpu-util-*`);
//! - [`pai_gpu_mem_gib`]: the memory of a PAI GPU type, as
//!   `pai.machine-util` states it.
//!
//! The analyses stay private; this is the one door to their intermediates.

use std::collections::BTreeMap;

use tracelab_schema::error::Result;
use tracelab_schema::Trace;

use crate::Ctx;

/// A trace's utilization over a day: one factor per step (steps of
/// `step_s` seconds from UTC midnight), the mean of the series' values in
/// that step of every day divided by the mean over the day, so the factors
/// average 1 (a step without values takes 1).
#[derive(Clone, Debug, PartialEq)]
pub struct DailyProfile {
    pub step_s: i64,
    pub factors: Vec<f64>,
    /// What the series measures.
    pub what: &'static str,
}

const DAY_S: i64 = 86_400;

/// The daily profile of `trace`'s measured utilization series at `step_s`
/// (which must divide a day); `None` when the series is empty or all zero.
pub fn daily_profile(ctx: &Ctx, trace: Trace, step_s: i64) -> Result<Option<DailyProfile>> {
    debug_assert!(step_s > 0 && DAY_S % step_s == 0);
    let Some(series) = crate::seed::muxflow_series::series(ctx, trace, step_s)? else { return Ok(None) };
    Ok(profile_of(series.start_s, series.bin_s, &series.values).map(|factors| DailyProfile {
        step_s,
        factors,
        what: series.what,
    }))
}

/// Factors per step of the day from a regular series starting at `start_s`.
fn profile_of(start_s: i64, bin_s: i64, values: &[f64]) -> Option<Vec<f64>> {
    let steps = (DAY_S / bin_s) as usize;
    let mut acc = vec![(0.0, 0u64); steps];
    for (i, v) in values.iter().enumerate().filter(|(_, v)| v.is_finite()) {
        let step = ((start_s + i as i64 * bin_s).rem_euclid(DAY_S) / bin_s) as usize;
        acc[step] = (acc[step].0 + v, acc[step].1 + 1);
    }
    let means: Vec<Option<f64>> = acc.iter().map(|&(s, n)| (n > 0).then(|| s / n as f64)).collect();
    let known: Vec<f64> = means.iter().flatten().copied().collect();
    let day = known.iter().sum::<f64>() / known.len().max(1) as f64;
    (day > 0.0).then(|| means.iter().map(|m| m.map_or(1.0, |m| m / day)).collect())
}

/// Each Philly job's mean GPU utilization (%) over its GPU-minute samples
/// (every attempt, every GPU it held), with the sample count.
pub fn philly_job_util(ctx: &Ctx) -> Result<BTreeMap<String, (f64, u64)>> {
    Ok(crate::philly::gpu_minutes::job_sums(ctx)?.into_iter().map(|(k, (s, n))| (k, (s / n as f64, n))).collect())
}

/// GPU memory of a PAI GPU type, GiB (`None` for MISC and unknown types,
/// which have no published figure).
pub fn pai_gpu_mem_gib(gpu_type: &str) -> Option<f64> {
    let m = crate::pai::machine_util::gpu_mem_gib(gpu_type, f64::NAN);
    m.is_finite().then_some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bins of 12 h from 06:00 UTC holding 10, 30, 20; steps of 12 h from
    /// midnight. A bin counts in the step its start falls in: the bins
    /// starting at 06:00 (10 and 20) in step 0 (mean 15), the one at 18:00
    /// (30) in step 1. The day's mean is 22.5.
    #[test]
    fn factors_average_the_steps_of_every_day() {
        let f = profile_of(6 * 3600, 12 * 3600, &[10.0, 30.0, 20.0]).unwrap();
        assert_eq!(f, vec![15.0 / 22.5, 30.0 / 22.5]);
        assert!(profile_of(0, 3600, &[0.0, f64::NAN]).is_none());
    }
}
