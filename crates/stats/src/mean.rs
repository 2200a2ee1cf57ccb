//! The mean of a sample with its 95 % confidence interval from Student's t
//! (mean +- t(0.975, n-1) s / sqrt(n), s the sample standard deviation):
//! the per-group slowdown means of the Horus interference view (Yeung et
//! al., TPDS 2022) carry it so overlapping groups are visible as such.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MeanInterval {
    pub n: usize,
    pub mean: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// Mean and 95 % t interval of the finite values; NaN interval below two
/// values, NaN mean with none.
pub fn mean_interval(values: &[f64]) -> MeanInterval {
    let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    let n = v.len();
    let mean = if n > 0 { v.iter().sum::<f64>() / n as f64 } else { f64::NAN };
    if n < 2 {
        return MeanInterval { n, mean, ci_low: f64::NAN, ci_high: f64::NAN };
    }
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64).expect("df > 0").inverse_cdf(0.975);
    let half = t * (var / n as f64).sqrt();
    MeanInterval { n, mean, ci_low: mean - half, ci_high: mean + half }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1, 2, 3: mean 2, s = 1, t(0.975, 2) = 4.302653 (tables): 2 +- 4.302653 / sqrt 3.
    #[test]
    fn t_interval_by_hand() {
        let m = mean_interval(&[1.0, 2.0, 3.0, f64::NAN]);
        assert_eq!((m.n, m.mean), (3, 2.0));
        let half = 4.302_653 / 3f64.sqrt();
        assert!((m.ci_low - (2.0 - half)).abs() < 1e-5 && (m.ci_high - (2.0 + half)).abs() < 1e-5);
        assert!(mean_interval(&[5.0]).ci_low.is_nan());
        assert!(mean_interval(&[]).mean.is_nan());
    }
}
