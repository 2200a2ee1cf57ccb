//! k-means for the utilization classes Horus (Yeung et al., TPDS 2022)
//! queues jobs by: min-max scaling, a seeded k-means++ start and Lloyd's
//! iterations. Lloyd is the textbook algorithm (scikit-learn's
//! `KMeans(algorithm="lloyd")`); it lives here rather than in an ML crate
//! because the result must be reproducible from given initial centroids
//! (the cross-check runs scikit-learn from the same start), which smartcore
//! does not allow. The seed drives a SplitMix64 generator, so a seed gives
//! the same start on every platform and crate version.
//!
//! Points are rows of a row-major slice with `dim` columns.

/// The result of [`lloyd`].
#[derive(Debug, Clone, PartialEq)]
pub struct Clustering {
    /// k rows of `dim` values.
    pub centroids: Vec<Vec<f64>>,
    /// The centroid of each point (the nearest; ties to the lowest index).
    pub labels: Vec<usize>,
    /// Assignment steps run (the last one changed nothing, unless the
    /// iteration limit stopped it).
    pub iterations: usize,
    /// Sum of squared distances of the points to their centroids.
    pub inertia: f64,
}

/// Scales `column` to [0, 1] in place, (x - min) / (max - min); a constant
/// column becomes 0. Returns (min, max). Values must be finite.
pub fn min_max_scale(column: &mut [f64]) -> (f64, f64) {
    let min = column.iter().copied().fold(f64::INFINITY, f64::min);
    let max = column.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = max - min;
    for v in column.iter_mut() {
        *v = if span > 0.0 { (*v - min) / span } else { 0.0 };
    }
    (min, max)
}

/// k-means++ (Arthur & Vassilvitskii 2007): the first centroid a uniformly
/// drawn point, each next one a point drawn with probability proportional
/// to its squared distance to the nearest centroid so far. Fewer than k
/// distinct points give repeated centroids. Empty input gives none.
pub fn kmeans_plus_plus(points: &[f64], dim: usize, k: usize, seed: u64) -> Vec<Vec<f64>> {
    let n = points.len().checked_div(dim).unwrap_or(0);
    if n == 0 || k == 0 {
        return Vec::new();
    }
    let row = |i: usize| &points[i * dim..(i + 1) * dim];
    let mut rng = SplitMix64(seed);
    let mut centroids = vec![row(rng.below(n)).to_vec()];
    let mut d2: Vec<f64> = (0..n).map(|i| sq_dist(row(i), &centroids[0])).collect();
    while centroids.len() < k {
        let total: f64 = d2.iter().sum();
        let pick = if total > 0.0 { draw(&d2, rng.unit() * total) } else { rng.below(n) };
        centroids.push(row(pick).to_vec());
        let c = centroids.last().expect("pushed");
        d2.iter_mut().enumerate().for_each(|(i, d)| *d = d.min(sq_dist(row(i), c)));
    }
    centroids
}

/// The first index whose cumulative weight exceeds `target`.
fn draw(weights: &[f64], target: f64) -> usize {
    let mut acc = 0.0;
    for (i, w) in weights.iter().enumerate() {
        acc += w;
        if acc > target {
            return i;
        }
    }
    weights.iter().rposition(|w| *w > 0.0).unwrap_or(0)
}

/// Lloyd's algorithm from `init`: assign every point to its nearest
/// centroid, move each centroid to the mean of its points, until an
/// assignment changes nothing or `max_iter` assignments ran. A centroid
/// that loses all its points stays where it was (scikit-learn would move
/// it to a far point instead).
pub fn lloyd(points: &[f64], dim: usize, init: Vec<Vec<f64>>, max_iter: usize) -> Clustering {
    let n = points.len().checked_div(dim).unwrap_or(0);
    let mut centroids = init;
    let mut labels = vec![usize::MAX; n];
    let mut iterations = 0;
    while iterations < max_iter {
        iterations += 1;
        let changed = assign(points, dim, &centroids, &mut labels);
        if !changed {
            break;
        }
        update(points, dim, &labels, &mut centroids);
    }
    let inertia = (0..n).map(|i| sq_dist(&points[i * dim..(i + 1) * dim], &centroids[labels[i]])).sum();
    Clustering { centroids, labels, iterations, inertia }
}

/// Nearest centroid per point; whether any label changed.
fn assign(points: &[f64], dim: usize, centroids: &[Vec<f64>], labels: &mut [usize]) -> bool {
    let mut changed = false;
    for (i, label) in labels.iter_mut().enumerate() {
        let p = &points[i * dim..(i + 1) * dim];
        let mut best = 0;
        let mut best_d = f64::INFINITY;
        for (c, centroid) in centroids.iter().enumerate() {
            let d = sq_dist(p, centroid);
            if d < best_d {
                (best, best_d) = (c, d);
            }
        }
        changed |= *label != best;
        *label = best;
    }
    changed
}

/// Each centroid to the mean of its points (unchanged when it has none).
fn update(points: &[f64], dim: usize, labels: &[usize], centroids: &mut [Vec<f64>]) {
    let mut sums = vec![vec![0.0; dim]; centroids.len()];
    let mut counts = vec![0usize; centroids.len()];
    for (i, &l) in labels.iter().enumerate() {
        counts[l] += 1;
        sums[l].iter_mut().zip(&points[i * dim..(i + 1) * dim]).for_each(|(s, v)| *s += v);
    }
    for ((c, s), n) in centroids.iter_mut().zip(sums).zip(counts) {
        if n > 0 {
            *c = s.into_iter().map(|v| v / n as f64).collect();
        }
    }
}

fn sq_dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// SplitMix64 (Steele, Lea & Flood 2014), the seed expander of the
/// xoshiro family: fully specified, so a seed is portable.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in 0..n (n > 0), by the multiply-shift of a 64-bit draw.
    fn below(&mut self, n: usize) -> usize {
        ((self.next() as u128 * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points 0, 1, 9, 10 (one dimension) from centroids 0 and 1: the
    /// first assignment puts 0 alone and 1, 9, 10 together (mean 20/3);
    /// then 1 moves to the first (0.5), 9 and 10 stay (9.5); then nothing
    /// changes: 3 assignments, inertia 4 x 0.25 = 1.
    #[test]
    fn lloyd_by_hand() {
        let c = lloyd(&[0.0, 1.0, 9.0, 10.0], 1, vec![vec![0.0], vec![1.0]], 100);
        assert_eq!(c.centroids, vec![vec![0.5], vec![9.5]]);
        assert_eq!(c.labels, vec![0, 0, 1, 1]);
        assert_eq!(c.iterations, 3);
        assert!((c.inertia - 1.0).abs() < 1e-12);
    }

    /// A point halfway between two centroids goes to the lower index; a
    /// centroid nobody is nearest to stays put.
    #[test]
    fn ties_and_empty_clusters() {
        let c = lloyd(&[1.0, 1.0], 2, vec![vec![0.0, 1.0], vec![2.0, 1.0], vec![50.0, 50.0]], 10);
        assert_eq!(c.labels, vec![0]);
        assert_eq!(c.centroids[2], vec![50.0, 50.0]);
    }

    /// Scaling: 2, 4, 6 -> 0, 0.5, 1; a constant column -> 0.
    #[test]
    fn min_max_by_hand() {
        let mut v = [2.0, 4.0, 6.0];
        assert_eq!(min_max_scale(&mut v), (2.0, 6.0));
        assert_eq!(v, [0.0, 0.5, 1.0]);
        let mut c = [3.0, 3.0];
        min_max_scale(&mut c);
        assert_eq!(c, [0.0, 0.0]);
    }

    /// Two tight, far-apart pairs: whatever the first draw, the second
    /// centroid comes from the other pair (its weight is ~100 % of the
    /// total); the same seed gives the same start.
    #[test]
    fn seeded_kmeans_plus_plus_spreads_out() {
        let pts = [0.0, 0.0, 0.0, 0.001, 100.0, 100.0, 100.0, 100.001];
        for seed in 0..20 {
            let c = kmeans_plus_plus(&pts, 2, 2, seed);
            assert!((c[0][0] - c[1][0]).abs() > 50.0, "seed {seed}: {c:?}");
            assert_eq!(c, kmeans_plus_plus(&pts, 2, 2, seed));
        }
        assert!(kmeans_plus_plus(&[], 2, 3, 1).is_empty());
    }

    /// SplitMix64's published first outputs for seed 0.
    #[test]
    fn splitmix_reference_values() {
        let mut r = SplitMix64(0);
        assert_eq!(r.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next(), 0x6E78_9E6A_A1B9_65F4);
    }
}
