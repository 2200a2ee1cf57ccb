//! A weighted empirical distribution: sorted distinct values with counts.
//!
//! Analyses reduce tens of millions of samples (Philly GPU-minutes, PAI
//! instances) to distinct values with counts in the engine; this type then
//! answers quantiles and CDF curves exactly as if the samples were expanded.
//!
//! Conventions, both the trace owners' (`docs/definitions.md#quantiles-and-cdfs`):
//! - quantiles interpolate linearly between order statistics (numpy's and
//!   pandas' default, which the owners' notebooks use);
//! - the CDF curve puts the i-th of n sorted samples at 100*i/(n-1) percent
//!   (PAI `utils.get_cdf` and the Philly notebook's `get_cdf`).

/// How many points a CDF curve is reduced to for printing and plotting.
pub const CDF_POINTS: usize = 201;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dist {
    /// Sorted, distinct, finite values.
    values: Vec<f64>,
    /// Occurrences of each value (all > 0).
    counts: Vec<u64>,
    /// Running total of `counts` (ends at n).
    cum: Vec<u64>,
}

impl Dist {
    /// From raw samples; NaN and infinite values must be filtered by the
    /// caller (an analysis states how it treats them), so they panic here.
    pub fn from_samples(mut samples: Vec<f64>) -> Dist {
        assert!(samples.iter().all(|v| v.is_finite()), "Dist::from_samples: non-finite sample");
        samples.sort_by(f64::total_cmp);
        let mut pairs: Vec<(f64, u64)> = Vec::new();
        for v in samples {
            match pairs.last_mut() {
                Some((last, c)) if *last == v => *c += 1,
                _ => pairs.push((v, 1)),
            }
        }
        Dist::from_pairs(pairs)
    }

    /// From (value, count) pairs in any order; equal values are merged and
    /// zero counts skipped.
    pub fn from_counts(pairs: impl IntoIterator<Item = (f64, u64)>) -> Dist {
        let mut pairs: Vec<(f64, u64)> = pairs.into_iter().filter(|p| p.1 > 0).collect();
        assert!(pairs.iter().all(|p| p.0.is_finite()), "Dist::from_counts: non-finite value");
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut merged: Vec<(f64, u64)> = Vec::with_capacity(pairs.len());
        for (v, c) in pairs {
            match merged.last_mut() {
                Some((last, n)) if *last == v => *n += c,
                _ => merged.push((v, c)),
            }
        }
        Dist::from_pairs(merged)
    }

    /// The samples of several distributions together.
    pub fn pooled<'a>(dists: impl IntoIterator<Item = &'a Dist>) -> Dist {
        Dist::from_counts(dists.into_iter().flat_map(|d| d.values.iter().copied().zip(d.counts.iter().copied())))
    }

    /// A builder for samples given in ascending order (as an engine's sort
    /// returns them), which never holds the samples themselves: for tens of
    /// millions of mostly distinct values (Philly's per-minute memory
    /// utilization) this is the difference between the distribution and
    /// three copies of the samples.
    pub fn sorted_builder(capacity: usize) -> SortedSamples {
        let d = Dist {
            values: Vec::with_capacity(capacity),
            counts: Vec::with_capacity(capacity),
            cum: Vec::with_capacity(capacity),
        };
        SortedSamples { d }
    }

    fn from_pairs(pairs: Vec<(f64, u64)>) -> Dist {
        let mut total = 0;
        let mut d = Dist::default();
        for (v, c) in pairs {
            total += c;
            d.values.push(v);
            d.counts.push(c);
            d.cum.push(total);
        }
        d
    }

    /// Number of samples.
    pub fn n(&self) -> u64 {
        self.cum.last().copied().unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.n() == 0
    }

    pub fn values(&self) -> &[f64] {
        &self.values
    }

    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The k-th smallest sample (0-based) of the expanded sample.
    fn order_stat(&self, k: u64) -> f64 {
        let i = self.cum.partition_point(|&c| c <= k);
        self.values[i]
    }

    /// Quantile `q` in [0, 1], linear interpolation (numpy default); NaN
    /// when empty.
    pub fn quantile(&self, q: f64) -> f64 {
        let n = self.n();
        if n == 0 {
            return f64::NAN;
        }
        let h = (n - 1) as f64 * q.clamp(0.0, 1.0);
        let lo = h.floor() as u64;
        let a = self.order_stat(lo);
        if lo + 1 >= n {
            return a;
        }
        let b = self.order_stat(lo + 1);
        a + (h - lo as f64) * (b - a)
    }

    pub fn mean(&self) -> f64 {
        let n = self.n();
        if n == 0 {
            return f64::NAN;
        }
        let sum: f64 = self.values.iter().zip(&self.counts).map(|(v, &c)| v * c as f64).sum();
        sum / n as f64
    }

    pub fn min(&self) -> f64 {
        self.values.first().copied().unwrap_or(f64::NAN)
    }

    pub fn max(&self) -> f64 {
        self.values.last().copied().unwrap_or(f64::NAN)
    }

    /// Share (0..1) of samples <= x; the Helios notebooks' fixed-grid CDF
    /// (`len(x <= t) / len(x)`).
    pub fn share_at_most(&self, x: f64) -> f64 {
        let n = self.n();
        if n == 0 {
            return f64::NAN;
        }
        let i = self.values.partition_point(|&v| v <= x);
        let le = if i == 0 { 0 } else { self.cum[i - 1] };
        le as f64 / n as f64
    }

    /// Share (0..1) of samples strictly above x.
    pub fn share_above(&self, x: f64) -> f64 {
        1.0 - self.share_at_most(x)
    }

    /// The upstream CDF curve (x = value, y = percent 100*i/(n-1)), reduced
    /// to at most `points` points taken at evenly spaced ranks, always
    /// including the first and last sample. With n = 1 the single point is at
    /// 100 %.
    pub fn cdf_curve(&self, points: usize) -> Vec<(f64, f64)> {
        let n = self.n();
        if n == 0 {
            return Vec::new();
        }
        if n == 1 {
            return vec![(self.values[0], 100.0)];
        }
        let steps = (points.max(2) as u64 - 1).min(n - 1);
        let mut out: Vec<(f64, f64)> = (0..=steps)
            .map(|j| {
                let k = j * (n - 1) / steps;
                (self.order_stat(k), 100.0 * k as f64 / (n - 1) as f64)
            })
            .collect();
        out.dedup();
        out
    }

    /// Sum of all samples.
    pub fn sum(&self) -> f64 {
        self.values.iter().zip(&self.counts).map(|(v, &c)| v * c as f64).sum()
    }
}

/// [`Dist::sorted_builder`]: equal neighbours become one value with its
/// count.
pub struct SortedSamples {
    d: Dist,
}

impl SortedSamples {
    /// Adds a finite sample no smaller than the previous one.
    pub fn push(&mut self, v: f64) {
        let d = &mut self.d;
        let total = d.cum.last().copied().unwrap_or(0) + 1;
        match d.values.last() {
            Some(last) if *last == v => {
                *d.counts.last_mut().expect("a count per value") += 1;
                *d.cum.last_mut().expect("a total per value") = total;
            }
            last => {
                assert!(v.is_finite() && last.is_none_or(|l| *l < v), "SortedSamples: {v} out of order");
                d.values.push(v);
                d.counts.push(1);
                d.cum.push(total);
            }
        }
    }

    pub fn finish(mut self) -> Dist {
        self.d.values.shrink_to_fit();
        self.d.counts.shrink_to_fit();
        self.d.cum.shrink_to_fit();
        self.d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples 1, 2, 2, 5, 5, 5 in order: values 1, 2, 5 with counts 1, 2, 3
    /// and running totals 1, 3, 6, as from the unsorted samples.
    #[test]
    fn a_sorted_builder_counts_runs_as_from_samples_does() {
        let mut b = Dist::sorted_builder(2);
        for v in [1.0, 2.0, 2.0, 5.0, 5.0, 5.0] {
            b.push(v);
        }
        let d = b.finish();
        assert_eq!(
            (d.values.clone(), d.counts.clone(), d.cum.clone()),
            (vec![1.0, 2.0, 5.0], vec![1, 2, 3], vec![1, 3, 6])
        );
        assert_eq!(d, Dist::from_samples(vec![5.0, 2.0, 5.0, 1.0, 5.0, 2.0]));
        assert_eq!(Dist::sorted_builder(0).finish(), Dist::default());
    }

    #[test]
    #[should_panic(expected = "out of order")]
    fn a_sorted_builder_refuses_a_smaller_sample() {
        let mut b = Dist::sorted_builder(2);
        b.push(2.0);
        b.push(1.0);
    }

    /// numpy.percentile([1, 2, 2, 3, 10], q) computed by hand:
    /// positions h = 4q: q=.5 -> x[2] = 2; q=.9 -> x[3] + .6*(x[4]-x[3]) = 3 + 4.2.
    #[test]
    fn quantiles_interpolate_like_numpy() {
        let d = Dist::from_samples(vec![10.0, 2.0, 1.0, 3.0, 2.0]);
        assert_eq!(d.n(), 5);
        assert_eq!(d.quantile(0.5), 2.0);
        assert!((d.quantile(0.9) - 7.2).abs() < 1e-12);
        assert_eq!(d.quantile(0.0), 1.0);
        assert_eq!(d.quantile(1.0), 10.0);
        assert!((d.quantile(0.25) - 2.0).abs() < 1e-12);
        assert!((d.mean() - 3.6).abs() < 1e-12);
    }

    #[test]
    fn counts_and_samples_give_the_same_distribution() {
        let a = Dist::from_samples(vec![5.0, 1.0, 5.0, 5.0, 3.0]);
        let b = Dist::from_counts([(5.0, 2), (1.0, 1), (3.0, 1), (5.0, 1), (9.0, 0)]);
        assert_eq!(a, b);
    }

    #[test]
    fn share_at_most_counts_ties_inclusively() {
        let d = Dist::from_samples(vec![1.0, 2.0, 2.0, 4.0]);
        assert_eq!(d.share_at_most(2.0), 0.75);
        assert_eq!(d.share_at_most(0.5), 0.0);
        assert_eq!(d.share_above(3.0), 0.25);
    }

    /// get_cdf([3, 1, 2]) in the PAI utils: sorted [1, 2, 3] at 0, 50, 100 %.
    #[test]
    fn the_cdf_curve_uses_the_upstream_rank_convention() {
        let d = Dist::from_samples(vec![3.0, 1.0, 2.0]);
        assert_eq!(d.cdf_curve(100), vec![(1.0, 0.0), (2.0, 50.0), (3.0, 100.0)]);
        let big = Dist::from_samples((0..1001).map(f64::from).collect());
        let c = big.cdf_curve(11);
        assert_eq!(c.len(), 11);
        assert_eq!(c[5], (500.0, 50.0));
        assert_eq!(c[10], (1000.0, 100.0));
    }

    #[test]
    fn an_empty_distribution_has_nan_statistics() {
        let d = Dist::default();
        assert!(d.quantile(0.5).is_nan() && d.mean().is_nan());
        assert!(d.cdf_curve(10).is_empty());
    }
}
