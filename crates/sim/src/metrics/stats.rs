//! The numeric definitions of the summary: percentiles by linear
//! interpolation between closest ranks (numpy's default, `method="linear"`),
//! means, and Jain's fairness index.

use serde::{Deserialize, Serialize};

/// Mean and percentiles of a sample, in the sample's unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Dist {
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
}

/// `q`-th percentile (0..=100) of sorted `x`: position `q/100 * (n-1)`,
/// linear between the two neighbours (numpy `percentile`, linear method).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q / 100.0 * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Mean, P50, P90 and P99 (NaN for an empty sample).
pub fn dist(mut x: Vec<f64>) -> Dist {
    if x.is_empty() {
        return Dist { mean: f64::NAN, p50: f64::NAN, p90: f64::NAN, p99: f64::NAN };
    }
    x.sort_by(f64::total_cmp);
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    Dist { mean, p50: percentile(&x, 50.0), p90: percentile(&x, 90.0), p99: percentile(&x, 99.0) }
}

/// Jain's index `(sum x)^2 / (n * sum x^2)`: 1 when all equal, 1/n when one
/// value holds everything. NaN for no values.
pub fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || sq == 0.0 {
        return if x.is_empty() { f64::NAN } else { 1.0 };
    }
    sum * sum / (x.len() as f64 * sq)
}
