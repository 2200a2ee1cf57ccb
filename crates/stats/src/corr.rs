//! Pearson and Spearman correlation with n, a 95 % confidence interval and a
//! two-sided p-value, as the PAI paper's CPU-contention analysis needs
//! (Sec 6, "CPU can be the bottleneck"). statrs has neither coefficient, so
//! they are computed here; statrs supplies the Student t distribution.
//!
//! - p-value: t = r * sqrt((n-2)/(1-r^2)) against Student t with n-2 degrees
//!   of freedom (scipy.stats.pearsonr; scipy.stats.spearmanr uses the same t
//!   approximation for rho).
//! - 95 % CI: Fisher z = atanh(r) +- 1.96 * se, se = 1/sqrt(n-3) for Pearson
//!   and sqrt(1.06/(n-3)) for Spearman (Fieller, Hartley & Pearson 1957).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The normal quantile for a two-sided 95 % interval.
const Z_975: f64 = 1.959_963_984_540_054;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Correlation {
    pub n: usize,
    pub r: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub p_value: f64,
}

/// Pearson's r of paired samples (pairs with a NaN are the caller's to drop).
pub fn pearson(x: &[f64], y: &[f64]) -> Correlation {
    let r = pearson_r(x, y);
    finish(x.len(), r, 1.0)
}

/// Spearman's rho: Pearson's r of the average ranks (ties share their mean
/// rank, as scipy does).
pub fn spearman(x: &[f64], y: &[f64]) -> Correlation {
    let r = pearson_r(&ranks(x), &ranks(y));
    finish(x.len(), r, 1.06)
}

fn pearson_r(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len(), "pearson: unequal lengths");
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        let (dx, dy) = (a - mx, b - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0)
}

/// 1-based average ranks.
fn ranks(v: &[f64]) -> Vec<f64> {
    // (value, position) pairs sorted directly: several times faster than
    // sorting positions by an indirect key on millions of samples (PAI
    // instances); ties get their mean rank whatever their order.
    let mut order: Vec<(f64, usize)> = v.iter().copied().zip(0..).collect();
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && order[j + 1].0 == order[i].0 {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &(_, k) in &order[i..=j] {
            out[k] = rank;
        }
        i = j + 1;
    }
    out
}

/// Adds the p-value and the Fisher-z interval; NaN where n is too small or
/// r is undefined (a constant sample).
fn finish(n: usize, r: f64, se_factor: f64) -> Correlation {
    let p_value = if n > 2 && r.is_finite() {
        if r.abs() >= 1.0 {
            0.0
        } else {
            let df = (n - 2) as f64;
            let t = r * (df / (1.0 - r * r)).sqrt();
            let dist = StudentsT::new(0.0, 1.0, df).expect("df > 0");
            2.0 * (1.0 - dist.cdf(t.abs()))
        }
    } else {
        f64::NAN
    };
    let (ci_low, ci_high) = if n > 3 && r.is_finite() {
        let z = r.clamp(-0.999_999_999, 0.999_999_999).atanh();
        let se = (se_factor / (n - 3) as f64).sqrt();
        ((z - Z_975 * se).tanh(), (z + Z_975 * se).tanh())
    } else {
        (f64::NAN, f64::NAN)
    };
    Correlation { n, r, ci_low, ci_high, p_value }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: [f64; 5] = [1.0, 2.0, 3.0, 4.0, 5.0];
    const Y: [f64; 5] = [2.0, 4.0, 5.0, 4.0, 5.0];

    /// Student t CDF with 3 degrees of freedom in closed form, independent of
    /// statrs: F(t) = 1/2 + (t/(sqrt3 (1 + t^2/3)) + atan(t/sqrt3)) / pi.
    fn t3_cdf(t: f64) -> f64 {
        let s = 3f64.sqrt();
        0.5 + (t / (s * (1.0 + t * t / 3.0)) + (t / s).atan()) / std::f64::consts::PI
    }

    /// By hand: Sxy = 6, Sxx = 10, Syy = 6, so r = 6/sqrt(60).
    #[test]
    fn pearson_matches_the_hand_computation() {
        let c = pearson(&X, &Y);
        let r = 6.0 / 60f64.sqrt();
        assert!((c.r - r).abs() < 1e-12);
        let t = r * (3.0 / (1.0 - r * r)).sqrt();
        assert!((c.p_value - 2.0 * (1.0 - t3_cdf(t))).abs() < 1e-9, "{}", c.p_value);
        let se = 1.0 / 2f64.sqrt();
        assert!((c.ci_low - (r.atanh() - 1.959964 * se).tanh()).abs() < 1e-6);
        assert!(c.ci_low < c.r && c.r < c.ci_high);
    }

    /// Ranks of Y with ties: [1, 2.5, 4.5, 2.5, 4.5]; Sxy = 7, Syy = 9, so
    /// rho = 7/sqrt(90).
    #[test]
    fn spearman_averages_tied_ranks() {
        assert_eq!(ranks(&Y), vec![1.0, 2.5, 4.5, 2.5, 4.5]);
        let c = spearman(&X, &Y);
        assert!((c.r - 7.0 / 90f64.sqrt()).abs() < 1e-12);
        assert_eq!(c.n, 5);
    }

    #[test]
    fn a_monotone_relation_has_rho_one_and_a_constant_is_undefined() {
        let y: Vec<f64> = X.iter().map(|v| v * v * v).collect();
        assert!((spearman(&X, &y).r - 1.0).abs() < 1e-12);
        assert_eq!(spearman(&X, &y).p_value, 0.0);
        assert!(pearson(&X, &[1.0; 5]).r.is_nan());
    }
}
