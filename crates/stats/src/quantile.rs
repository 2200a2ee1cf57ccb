//! Linear quantiles (numpy's and pandas' default, docs/definitions.md#quantiles-and-cdfs) of a
//! plain slice, by selection: the per-time P50/P90 across machines of PAI
//! and Philly Fig 7 compute them 10^5 times over a few hundred values each.
//! [`crate::Dist::quantile`] is the same rule over counted values.

/// numpy-linear quantiles `qs` (ascending) of `v`, reordering `v` in place
/// (selection, not a full sort).
pub fn quantiles_in_place(v: &mut [f64], qs: &[f64]) -> Vec<f64> {
    let n = v.len();
    if n == 0 {
        return vec![f64::NAN; qs.len()];
    }
    let mut out = vec![0.0; qs.len()];
    // Largest quantile first: each selection leaves smaller ones to the left.
    let mut hi = n;
    for (i, q) in qs.iter().enumerate().rev() {
        let h = (n - 1) as f64 * q;
        let lo = h.floor() as usize;
        let part = &mut v[..hi];
        let (_, a, right) = part.select_nth_unstable_by(lo, f64::total_cmp);
        let a = *a;
        let min = |s: &[f64]| s.iter().copied().fold(f64::INFINITY, f64::min);
        // The (lo+1)-th order statistic lies beyond `hi` when a larger
        // quantile already cut right after `lo`.
        let b = if lo + 1 >= n {
            a
        } else if lo + 1 < hi {
            min(right)
        } else {
            min(&v[hi..])
        };
        out[i] = a + (h - lo as f64) * (b - a);
        hi = lo + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// numpy.percentile([1, 2, 2, 3, 10], [50, 90]) = [2, 7.2] (h = 2 and
    /// 3.6: 3 + .6 * 7); one sample gives itself.
    #[test]
    fn quantiles_match_numpy() {
        let mut v = vec![10.0, 2.0, 1.0, 3.0, 2.0];
        let q = quantiles_in_place(&mut v, &[0.5, 0.9]);
        assert_eq!(q[0], 2.0);
        assert!((q[1] - 7.2).abs() < 1e-12);
        assert_eq!(quantiles_in_place(&mut [4.0], &[0.5, 0.9]), vec![4.0, 4.0]);
        // Adjacent order statistics: [0, 1] at 0.5 -> 0.5, at 0.9 -> 0.9.
        let q = quantiles_in_place(&mut [1.0, 0.0], &[0.5, 0.9]);
        assert_eq!(q, vec![0.5, 0.9]);
        // Both quantiles between the same order statistics: numpy gives
        // [2.5, 2.8] for [1, 2, 3, 5] at 50 and 60 %.
        let q = quantiles_in_place(&mut [5.0, 1.0, 3.0, 2.0], &[0.5, 0.6]);
        assert!((q[0] - 2.5).abs() < 1e-12 && (q[1] - 2.8).abs() < 1e-12, "{q:?}");
    }
}
