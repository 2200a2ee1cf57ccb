//! Maximum-weight bipartite matching, as MuxFlow matches offline jobs to
//! GPUs each round: the Kuhn-Munkres (Hungarian) algorithm of the
//! maintained `pathfinding` crate, on integer weights.
//!
//! Weights are reals in [0, 1] (predicted normalised speeds), scaled to
//! millionths so the algorithm works on exact integers; a weight of 0 is no
//! edge, and pairs matched at 0 are dropped from the result.

use pathfinding::kuhn_munkres::kuhn_munkres;
use pathfinding::matrix::Matrix;

/// Resolution of the weights (1e-6).
const SCALE: f64 = 1e6;

/// A maximum-weight matching of `rows x cols` (`weight(r, c)` in [0, 1]):
/// the matched (row, column) pairs with positive weight, by row. Ties are
/// broken by the algorithm's order, which is deterministic.
pub fn max_weight(rows: usize, cols: usize, weight: impl Fn(usize, usize) -> f64) -> Vec<(usize, usize)> {
    if rows == 0 || cols == 0 {
        return Vec::new();
    }
    let w = |r: usize, c: usize| (weight(r, c).clamp(0.0, 1.0) * SCALE).round() as i64;
    // The algorithm assigns every row, so the smaller side goes in rows.
    let transposed = rows > cols;
    let (nr, nc) = if transposed { (cols, rows) } else { (rows, cols) };
    let m = Matrix::from_fn(nr, nc, |(r, c)| if transposed { w(c, r) } else { w(r, c) });
    let (_, assignment) = kuhn_munkres(&m);
    let mut pairs: Vec<(usize, usize)> = assignment
        .into_iter()
        .enumerate()
        .filter(|&(r, c)| m[(r, c)] > 0)
        .map(|(r, c)| if transposed { (c, r) } else { (r, c) })
        .collect();
    pairs.sort_unstable();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two GPUs, three jobs; weights (rows GPUs, columns jobs)
    ///   [0.9 0.8 0.1]
    ///   [0.8 0.2 0.0]
    /// By hand over the six assignments: (0,1)+(1,0) = 1.6 beats (0,0)+(1,1)
    /// = 1.1 and every other pairing; greedy (best edge first, 0.9) would
    /// give 0.9 + 0.2 = 1.1.
    #[test]
    fn the_best_total_not_the_best_edge() {
        let w = [[0.9, 0.8, 0.1], [0.8, 0.2, 0.0]];
        assert_eq!(max_weight(2, 3, |r, c| w[r][c]), vec![(0, 1), (1, 0)]);
        // Transposed (jobs in rows) gives the same pairs, swapped.
        assert_eq!(max_weight(3, 2, |r, c| w[c][r]), vec![(0, 1), (1, 0)]);
    }

    /// A zero weight is no edge: the second job cannot go anywhere.
    #[test]
    fn zero_weights_are_not_matched() {
        assert_eq!(max_weight(2, 2, |r, c| if c == 1 { 0.0 } else { 0.5 + r as f64 * 0.1 }), vec![(1, 0)]);
    }
}
