//! k-means (Lloyd's algorithm) with k-means++ seeding, as Horus groups its
//! pending jobs into queues. Small and self-contained on purpose: the
//! maintained Rust crates (linfa-clustering) bring ndarray and a linear
//! algebra stack for what is a few dozen lines over 3-4 features; the
//! iteration is checked against scikit-learn's `KMeans` from the same
//! initial centers (`algorithm="lloyd"`, `n_init=1`).
//!
//! Points are rows of `dim` numbers in one flat slice. Seeding draws from
//! the engine's seeded generator, so a fit is deterministic.

use crate::rng::Rng;

/// Squared Euclidean distance of two rows.
fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// The index of the center nearest to `point` (ties: the lower index).
pub fn nearest(centers: &[f64], dim: usize, point: &[f64]) -> usize {
    let mut best = (f64::INFINITY, 0);
    for (i, c) in centers.chunks_exact(dim).enumerate() {
        let d = dist2(c, point);
        if d < best.0 {
            best = (d, i);
        }
    }
    best.1
}

/// k-means++ seeding (Arthur and Vassilvitskii 2007): the first center
/// uniform, each next one drawn with probability proportional to the
/// squared distance to the nearest center chosen so far. Fewer distinct
/// points than `k` give fewer centers.
pub fn seed_plus_plus(points: &[f64], dim: usize, k: usize, rng: &mut Rng) -> Vec<f64> {
    let n = points.len() / dim;
    if n == 0 || k == 0 {
        return Vec::new();
    }
    let row = |i: usize| &points[i * dim..(i + 1) * dim];
    let mut centers = row(rng.below(n as u64) as usize).to_vec();
    let mut d2: Vec<f64> = (0..n).map(|i| dist2(row(i), &centers[..dim])).collect();
    while centers.len() / dim < k {
        let total: f64 = d2.iter().sum();
        if total <= 0.0 {
            break;
        }
        let mut r = rng.unit() * total;
        let mut pick = n - 1;
        for (i, d) in d2.iter().enumerate() {
            if r < *d {
                pick = i;
                break;
            }
            r -= d;
        }
        let c = row(pick).to_vec();
        for (i, d) in d2.iter_mut().enumerate() {
            *d = d.min(dist2(row(i), &c));
        }
        centers.extend(c);
    }
    centers
}

/// Lloyd's iterations from `centers` until no label changes or `max_iter`
/// rounds: returns the centers and each point's label. A center that loses
/// every point stays where it was.
pub fn lloyd(points: &[f64], dim: usize, mut centers: Vec<f64>, max_iter: usize) -> (Vec<f64>, Vec<usize>) {
    let n = points.len() / dim;
    let k = centers.len() / dim;
    let mut labels = vec![usize::MAX; n];
    for _ in 0..max_iter {
        let mut changed = false;
        for (i, p) in points.chunks_exact(dim).enumerate() {
            let l = nearest(&centers, dim, p);
            changed |= labels[i] != l;
            labels[i] = l;
        }
        if !changed {
            break;
        }
        let mut sums = vec![0.0; k * dim];
        let mut counts = vec![0usize; k];
        for (p, &l) in points.chunks_exact(dim).zip(&labels) {
            counts[l] += 1;
            sums[l * dim..(l + 1) * dim].iter_mut().zip(p).for_each(|(s, x)| *s += x);
        }
        for c in 0..k {
            if counts[c] > 0 {
                for d in 0..dim {
                    centers[c * dim + d] = sums[c * dim + d] / counts[c] as f64;
                }
            }
        }
    }
    (centers, labels)
}

/// A k-means fit: k-means++ seeding, then Lloyd's iterations.
pub fn fit(points: &[f64], dim: usize, k: usize, rng: &mut Rng, max_iter: usize) -> (Vec<f64>, Vec<usize>) {
    let centers = seed_plus_plus(points, dim, k, rng);
    lloyd(points, dim, centers, max_iter)
}

/// Columns scaled to zero mean and unit variance (population), so that no
/// feature dominates by its unit; returns the means and scales applied (a
/// constant column keeps scale 1).
pub fn standardize(points: &mut [f64], dim: usize) -> (Vec<f64>, Vec<f64>) {
    let n = (points.len() / dim).max(1) as f64;
    let mut mean = vec![0.0; dim];
    let mut scale = vec![0.0; dim];
    for p in points.chunks_exact(dim) {
        mean.iter_mut().zip(p).for_each(|(m, x)| *m += x / n);
    }
    for p in points.chunks_exact(dim) {
        for d in 0..dim {
            scale[d] += (p[d] - mean[d]).powi(2) / n;
        }
    }
    for s in scale.iter_mut() {
        *s = if *s > 0.0 { s.sqrt() } else { 1.0 };
    }
    for p in points.chunks_exact_mut(dim) {
        for d in 0..dim {
            p[d] = (p[d] - mean[d]) / scale[d];
        }
    }
    (mean, scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Six points on a line, centers started at 0 and 1. By hand: every
    /// point but 0 is nearer 1, so the centers move to 0 and 31/5 = 6.2;
    /// then 1 is nearer 0 (1 < 5.2) and 5 nearer 6.2 (1.2 < 5), so they move
    /// to 0.5 and 30/4 = 7.5, where no label changes. scikit-learn
    /// `KMeans(n_clusters=2, init=[[0], [1]], n_init=1, algorithm="lloyd")`
    /// gives the same centers and labels.
    #[test]
    fn lloyd_by_hand_and_as_scikit_learn() {
        let pts = [0.0, 1.0, 5.0, 6.0, 9.0, 10.0];
        let (c, l) = lloyd(&pts, 1, vec![0.0, 1.0], 100);
        assert_eq!(c, vec![0.5, 7.5]);
        assert_eq!(l, vec![0, 0, 1, 1, 1, 1]);
    }

    /// Ten points in three groups, Lloyd started from three points of one
    /// group (the hard start): scikit-learn 1.9.1
    /// `KMeans(n_clusters=3, init=[[0, 0], [0.5, 1], [1, 0]], n_init=1,
    /// algorithm="lloyd", tol=0)` ends at centers (0.5, 1/3), (5.125, 5),
    /// (29/3, 2/3) with labels 0 0 0 1 1 1 2 2 2 1 after 3 iterations.
    #[test]
    fn lloyd_matches_scikit_learn_from_a_hard_start() {
        let pts =
            [0.0, 0.0, 0.5, 1.0, 1.0, 0.0, 5.0, 5.0, 6.0, 5.0, 5.5, 6.0, 10.0, 0.0, 9.0, 1.0, 10.0, 1.0, 4.0, 4.0];
        let (c, l) = lloyd(&pts, 2, vec![0.0, 0.0, 0.5, 1.0, 1.0, 0.0], 300);
        let want = [0.5, 0.3333333333333335, 5.125, 5.0, 9.666666666666666, 0.6666666666666667];
        assert!(c.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12), "{c:?}");
        assert_eq!(l, vec![0, 0, 0, 1, 1, 1, 2, 2, 2, 1]);
    }

    /// Points that coincide give no more centers than distinct points, and
    /// a seed repeats its fit.
    #[test]
    fn seeding_is_deterministic_and_stops_at_distinct_points() {
        let pts = [1.0, 1.0, 1.0, 1.0, 3.0, 3.0];
        let a = seed_plus_plus(&pts, 2, 3, &mut Rng::new(7));
        assert_eq!(a.len(), 4, "two distinct points, two centers");
        assert_eq!(a, seed_plus_plus(&pts, 2, 3, &mut Rng::new(7)));
    }

    #[test]
    fn standardized_columns_have_zero_mean_and_unit_variance() {
        let mut pts = vec![1.0, 10.0, 3.0, 10.0];
        let (mean, scale) = standardize(&mut pts, 2);
        assert_eq!((mean, scale), (vec![2.0, 10.0], vec![1.0, 1.0]));
        assert_eq!(pts, vec![-1.0, 0.0, 1.0, 0.0]);
    }
}
