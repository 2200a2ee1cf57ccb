//! Regular time series (one value per bin, NaN where a bin has no data):
//! the per-bin sum of weighted intervals, the lag-k autocorrelation and the
//! three simple forecasters with which MuxFlow (Zhao et al. 2023) argues
//! that cluster utilization is "smooth within minutes, periodic over days":
//! last value, same time one period earlier, and an exponentially weighted
//! moving average.

/// Per bin `lo..hi`, the summed weight of the intervals `[start, end)` (in
/// bins) that cover it, by a difference array: O(n + bins). Intervals are
/// clipped to the range; empty ones (`end <= start`) and non-finite
/// weights cover nothing. A bin that no interval covers is exactly 0, not
/// the rounding residue of the additions and removals before it.
pub fn interval_sums(starts: &[i64], ends: &[i64], weights: &[f64], lo: i64, hi: i64) -> Vec<f64> {
    assert!(starts.len() == ends.len() && ends.len() == weights.len(), "interval_sums: unequal lengths");
    let bins = (hi - lo).max(0) as usize;
    let mut delta = vec![0.0f64; bins + 1];
    let mut active = vec![0i64; bins + 1];
    for ((&s, &e), &w) in starts.iter().zip(ends).zip(weights) {
        let (s, e) = (s.max(lo), e.min(hi));
        if e <= s || !w.is_finite() {
            continue;
        }
        let (a, b) = ((s - lo) as usize, (e - lo) as usize);
        delta[a] += w;
        delta[b] -= w;
        active[a] += 1;
        active[b] -= 1;
    }
    let (mut sum, mut count) = (0.0, 0i64);
    (0..bins)
        .map(|i| {
            sum += delta[i];
            count += active[i];
            if count == 0 {
                sum = 0.0;
            }
            sum
        })
        .collect()
}

/// Pearson correlation of `x[t]` with `x[t + lag]` over the pairs where
/// both are finite (pandas `Series.autocorr(lag)`); None with fewer than
/// two pairs or no variance on either side.
pub fn autocorrelation(x: &[f64], lag: usize) -> Option<f64> {
    let pairs: Vec<(f64, f64)> = x
        .iter()
        .zip(x.iter().skip(lag))
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .map(|(a, b)| (*a, *b))
        .collect();
    if pairs.len() < 2 {
        return None;
    }
    let n = pairs.len() as f64;
    let (ma, mb) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (a, b) in &pairs {
        sab += (a - ma) * (b - mb);
        saa += (a - ma) * (a - ma);
        sbb += (b - mb) * (b - mb);
    }
    (saa > 0.0 && sbb > 0.0).then(|| (sab / (saa * sbb).sqrt()).clamp(-1.0, 1.0))
}

/// A forecaster of the value `horizon` bins ahead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Forecaster {
    /// The last value seen: x[t - h] for target t.
    LastValue,
    /// The value one period before the target: x[t - period] (needs
    /// period >= horizon to be known at the forecast origin).
    SamePeriodBefore(usize),
    /// The exponentially weighted moving average at the origin, s[t - h],
    /// s[i] = alpha x[i] + (1 - alpha) s[i-1], started at the first finite
    /// value; NaN bins leave it unchanged.
    Ewma(f64),
}

/// The forecast for every target bin t of `x` made `horizon` bins earlier;
/// NaN where the forecaster has nothing to go on.
pub fn forecasts(x: &[f64], horizon: usize, f: Forecaster) -> Vec<f64> {
    let at = |i: Option<usize>| i.and_then(|i| x.get(i)).copied().unwrap_or(f64::NAN);
    match f {
        Forecaster::LastValue => (0..x.len()).map(|t| at(t.checked_sub(horizon))).collect(),
        Forecaster::SamePeriodBefore(period) => {
            assert!(period >= horizon, "a forecast cannot use values after its origin");
            (0..x.len()).map(|t| at(t.checked_sub(period))).collect()
        }
        Forecaster::Ewma(alpha) => {
            let s = ewma(x, alpha);
            (0..x.len()).map(|t| t.checked_sub(horizon).map_or(f64::NAN, |o| s[o])).collect()
        }
    }
}

/// The smoothed series of [`Forecaster::Ewma`].
fn ewma(x: &[f64], alpha: f64) -> Vec<f64> {
    let mut s = f64::NAN;
    x.iter()
        .map(|&v| {
            if v.is_finite() {
                s = if s.is_finite() { alpha * v + (1.0 - alpha) * s } else { v };
            }
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bins 0..5: [0, 2) weight 1, [1, 4) weight 2, [3, 9) weight 0.5
    /// (clipped to 5), [2, 2) empty: 1, 3, 2, 2.5, 0.5.
    #[test]
    fn interval_sums_by_hand() {
        let v = interval_sums(&[0, 1, 3, 2], &[2, 4, 9, 2], &[1.0, 2.0, 0.5, 7.0], 0, 5);
        assert_eq!(v, vec![1.0, 3.0, 2.0, 2.5, 0.5]);
        // A gap is exactly zero even when the sums do not cancel exactly.
        let v = interval_sums(&[0, 0, 2], &[1, 1, 3], &[0.1, 0.2, 1.0], 0, 3);
        assert_eq!(v[1], 0.0);
    }

    /// x = 1, 2, 1, 2, 1, 2: lag 1 pairs are perfectly anti-correlated,
    /// lag 2 perfectly correlated; a NaN drops the pairs it is in.
    #[test]
    fn autocorrelation_by_hand() {
        let x = [1.0, 2.0, 1.0, 2.0, 1.0, 2.0];
        assert!((autocorrelation(&x, 1).unwrap() + 1.0).abs() < 1e-12);
        assert!((autocorrelation(&x, 2).unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(autocorrelation(&[1.0, 1.0, 1.0], 1), None);
        // Pairs (1,3), (3,2) only: x 1, 3 vs y 3, 2 -> r = -1.
        let y = [1.0, 3.0, 2.0, f64::NAN];
        assert!((autocorrelation(&y, 1).unwrap() + 1.0).abs() < 1e-12);
    }

    /// x = 4, 8, NaN, 2 with horizon 1: last value NaN, 4, 8, NaN; one
    /// period of 2 before: NaN, NaN, 4, 8; EWMA with alpha 0.5 smooths to
    /// 4, 6, 6, 4, so the forecasts are NaN, 4, 6, 6.
    #[test]
    fn forecasters_by_hand() {
        let x = [4.0, 8.0, f64::NAN, 2.0];
        let same = |a: Vec<f64>, b: [f64; 4]| a.iter().zip(b).all(|(p, q)| p == &q || (p.is_nan() && q.is_nan()));
        assert!(same(forecasts(&x, 1, Forecaster::LastValue), [f64::NAN, 4.0, 8.0, f64::NAN]));
        assert!(same(forecasts(&x, 1, Forecaster::SamePeriodBefore(2)), [f64::NAN, f64::NAN, 4.0, 8.0]));
        assert!(same(forecasts(&x, 1, Forecaster::Ewma(0.5)), [f64::NAN, 4.0, 6.0, 6.0]));
    }
}
