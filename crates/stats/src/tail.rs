//! Concentration and heavy tails: Lorenz curve and Gini coefficient, the
//! Hill estimator, and a log-normal vs power-law comparison by KS distance.
//! Used for the PAI paper's skew claims (top 5 % of users submit about 77 %
//! of instances) and the Helios user-concentration figures (Fig 8, Fig 9a).
//!
//! Tail fit method (stated in every result that uses it):
//! - log-normal: maximum likelihood on ln(x) over all x > 0 (mu, population
//!   sigma);
//! - power law: Clauset, Shalizi & Newman (2009): for candidate x_min at 40
//!   evenly spaced quantiles in [0, 0.95], alpha = 1 + m / sum(ln(x/x_min))
//!   over the m samples >= x_min; the x_min with the smallest KS distance
//!   wins;
//! - both models are then compared by KS distance on that same tail (the
//!   log-normal conditioned on x >= x_min), the smaller wins.

use serde::Serialize;
use statrs::function::erf::erfc;

use super::Dist;

/// Lorenz curve of non-negative values sorted in DESCENDING order, as the
/// Helios notebooks draw it: point i = (share of population in the top i,
/// share of the total they hold), from (0, 0) to (1, 1).
pub fn lorenz(values: &[f64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(|a, b| b.total_cmp(a));
    let total: f64 = v.iter().sum();
    let n = v.len() as f64;
    let mut out = vec![(0.0, 0.0)];
    let mut acc = 0.0;
    for (i, x) in v.iter().enumerate() {
        acc += x;
        out.push(((i + 1) as f64 / n, if total > 0.0 { acc / total } else { 0.0 }));
    }
    out
}

/// Gini coefficient of non-negative values: sum_i (2i - n - 1) x_(i) /
/// (n sum x) over the ascending order statistics; 0 for equal values, ->1
/// when one holds everything.
pub fn gini(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let total: f64 = v.iter().sum();
    if v.is_empty() || total <= 0.0 {
        return f64::NAN;
    }
    let weighted: f64 = v.iter().enumerate().map(|(i, x)| (2.0 * (i + 1) as f64 - n - 1.0) * x).sum();
    weighted / (n * total)
}

/// Hill estimator of the tail index alpha from the k largest samples:
/// k / sum_{i<k} ln(x_(i) / x_(k)), x_(0) the largest. NaN when k is not in
/// 1..n or the tail is not positive.
pub fn hill(dist: &Dist, k: u64) -> f64 {
    let n = dist.n();
    if k == 0 || k >= n {
        return f64::NAN;
    }
    let x_k = desc_order_stat(dist, k);
    if x_k <= 0.0 {
        return f64::NAN;
    }
    let mut sum = 0.0;
    let mut taken = 0;
    for (v, &c) in dist.values().iter().zip(dist.counts()).rev() {
        let take = c.min(k - taken);
        sum += take as f64 * (v / x_k).ln();
        taken += take;
        if taken == k {
            break;
        }
    }
    k as f64 / sum
}

/// The k-th largest sample, 0-based.
fn desc_order_stat(dist: &Dist, k: u64) -> f64 {
    let n = dist.n();
    let q = (n - 1 - k) as f64 / (n - 1) as f64;
    dist.quantile(q)
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TailFit {
    pub n: u64,
    pub lognormal_mu: f64,
    pub lognormal_sigma: f64,
    /// KS distance of the log-normal over all positive samples.
    pub lognormal_ks: f64,
    pub powerlaw_alpha: f64,
    pub powerlaw_xmin: f64,
    /// Samples >= x_min.
    pub tail_n: u64,
    /// KS distance of the power law over the tail.
    pub powerlaw_ks: f64,
    /// KS distance of the (conditioned) log-normal over the same tail.
    pub lognormal_tail_ks: f64,
    /// "log-normal" or "power law": the smaller KS distance on the tail.
    pub better_tail_model: &'static str,
}

/// Fits both models to the positive samples of `dist`; None with fewer
/// than 50 positive samples (too few to say anything about a tail).
pub fn fit_tail(dist: &Dist) -> Option<TailFit> {
    let pos = Dist::from_counts(dist.values().iter().copied().zip(dist.counts().iter().copied()).filter(|p| p.0 > 0.0));
    if pos.n() < 50 {
        return None;
    }
    let (mu, sigma) = lognormal_mle(&pos);
    let lognormal_cdf = |x: f64| normal_cdf((x.ln() - mu) / sigma);
    let lognormal_ks = ks(&pos, lognormal_cdf);
    let (alpha, xmin, tail, powerlaw_ks) = best_powerlaw(&pos)?;
    let f_min = lognormal_cdf(xmin);
    let lognormal_tail_ks = ks(&tail, |x| (lognormal_cdf(x) - f_min) / (1.0 - f_min));
    let better = if powerlaw_ks < lognormal_tail_ks { "power law" } else { "log-normal" };
    Some(TailFit {
        n: pos.n(),
        lognormal_mu: mu,
        lognormal_sigma: sigma,
        lognormal_ks,
        powerlaw_alpha: alpha,
        powerlaw_xmin: xmin,
        tail_n: tail.n(),
        powerlaw_ks,
        lognormal_tail_ks,
        better_tail_model: better,
    })
}

fn lognormal_mle(pos: &Dist) -> (f64, f64) {
    let n = pos.n() as f64;
    let pairs = || pos.values().iter().zip(pos.counts());
    let mu = pairs().map(|(v, &c)| v.ln() * c as f64).sum::<f64>() / n;
    let var = pairs().map(|(v, &c)| (v.ln() - mu).powi(2) * c as f64).sum::<f64>() / n;
    (mu, var.sqrt().max(f64::MIN_POSITIVE))
}

/// (alpha, x_min, tail, KS) of the best x_min candidate.
///
/// Each candidate's tail is a suffix of the sorted values, read in place
/// with ln(x) computed once: with millions of distinct values (PAI memory
/// usage) copying the tail and calling `powf` per candidate took seconds.
/// The candidates are independent and are split over two threads.
fn best_powerlaw(pos: &Dist) -> Option<(f64, f64, Dist, f64)> {
    let mut candidates: Vec<f64> = (0..40).map(|i| pos.quantile(0.95 * i as f64 / 39.0)).collect();
    candidates.dedup();
    let (values, counts) = (pos.values(), pos.counts());
    let ln: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    // n of the suffix starting at each index.
    let mut suffix_n = vec![0u64; values.len() + 1];
    for i in (0..values.len()).rev() {
        suffix_n[i] = suffix_n[i + 1] + counts[i];
    }
    let fit = |xmin: f64| -> Option<(f64, f64, usize, f64)> {
        let start = values.partition_point(|v| *v < xmin);
        let n = suffix_n[start];
        let ln_min = xmin.ln();
        let log_sum: f64 = ln[start..].iter().zip(&counts[start..]).map(|(l, &c)| (l - ln_min) * c as f64).sum();
        if n < 10 || log_sum <= 0.0 {
            return None;
        }
        let alpha = 1.0 + n as f64 / log_sum;
        let d = ks_steps(&ln[start..], &counts[start..], n, |l| 1.0 - ((1.0 - alpha) * (l - ln_min)).exp());
        Some((alpha, xmin, start, d))
    };
    let fits = super::map_on_two_threads(&candidates, |&x| fit(x));
    // The first candidate with the smallest distance, as a sequential scan.
    let mut best: Option<(f64, f64, usize, f64)> = None;
    for f in fits.into_iter().flatten() {
        if best.as_ref().is_none_or(|b| f.3 < b.3) {
            best = Some(f);
        }
    }
    let (alpha, xmin, start, d) = best?;
    let tail = Dist::from_counts(values[start..].iter().copied().zip(counts[start..].iter().copied()));
    Some((alpha, xmin, tail, d))
}

/// Kolmogorov-Smirnov distance between the empirical CDF of `d` and `cdf`,
/// checked on both sides of every step.
fn ks(d: &Dist, cdf: impl Fn(f64) -> f64) -> f64 {
    ks_steps(d.values(), d.counts(), d.n(), cdf)
}

/// [`ks`] over sorted steps `xs` with `counts` (n = their sum). The power-law
/// fit passes a suffix of a distribution as ln(x), with the model CDF as a
/// function of ln(x).
fn ks_steps(xs: &[f64], counts: &[u64], n: u64, cdf: impl Fn(f64) -> f64) -> f64 {
    let n = n as f64;
    let mut below = 0u64;
    let mut worst: f64 = 0.0;
    for (x, &c) in xs.iter().zip(counts) {
        let f = cdf(*x);
        let lo = below as f64 / n;
        below += c;
        let hi = below as f64 / n;
        worst = worst.max((f - lo).abs()).max((f - hi).abs());
    }
    worst
}

fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gini of [1, 1, 1, 1] is 0; of [0, 0, 0, 4] it is (2*4-4-1)*4/(4*4) = 3/4.
    #[test]
    fn gini_of_equal_and_concentrated_values() {
        assert!(gini(&[1.0; 4]).abs() < 1e-12);
        assert!((gini(&[0.0, 0.0, 0.0, 4.0]) - 0.75).abs() < 1e-12);
    }

    #[test]
    fn the_lorenz_curve_starts_with_the_largest() {
        assert_eq!(lorenz(&[1.0, 3.0]), vec![(0.0, 0.0), (0.5, 0.75), (1.0, 1.0)]);
    }

    /// Samples 2^0..2^9 (10 values); with k = 3 the top are 512, 256, 128
    /// over x_(3) = 64: sum ln = ln 8 + ln 4 + ln 2 = 6 ln 2, alpha = 3/(6 ln 2).
    #[test]
    fn hill_by_hand() {
        let d = Dist::from_samples((0..10).map(|i| 2f64.powi(i)).collect());
        let expected = 3.0 / (6.0 * 2f64.ln());
        assert!((hill(&d, 3) - expected).abs() < 1e-12, "{}", hill(&d, 3));
        assert!(hill(&d, 0).is_nan() && hill(&d, 10).is_nan());
    }

    /// Exact Pareto quantiles x = (1 - u)^(-1/1.5) for evenly spaced u are
    /// a power law with alpha = 2.5 (density exponent) and x_min = 1; the fit
    /// must find about that, and prefer it to the log-normal on the tail.
    /// Exact log-normal quantiles must prefer the log-normal.
    #[test]
    fn fits_tell_a_power_law_from_a_log_normal() {
        let n = 4000;
        let u = |i: usize| (i as f64 + 0.5) / n as f64;
        let pareto = Dist::from_samples((0..n).map(|i| (1.0 - u(i)).powf(-1.0 / 1.5)).collect());
        let fit = fit_tail(&pareto).unwrap();
        assert!((fit.powerlaw_alpha - 2.5).abs() < 0.1, "{fit:?}");
        assert_eq!(fit.better_tail_model, "power law", "{fit:?}");
        let probit = |p: f64| -> f64 { -std::f64::consts::SQRT_2 * statrs::function::erf::erfc_inv(2.0 * p) };
        let lognormal = Dist::from_samples((0..n).map(|i| (1.0 + 2.0 * probit(u(i))).exp()).collect());
        let fit = fit_tail(&lognormal).unwrap();
        assert!((fit.lognormal_mu - 1.0).abs() < 0.01 && (fit.lognormal_sigma - 2.0).abs() < 0.02, "{fit:?}");
        assert!(fit.lognormal_ks < 0.01, "{fit:?}");
        assert_eq!(fit.better_tail_model, "log-normal", "{fit:?}");
    }
}
