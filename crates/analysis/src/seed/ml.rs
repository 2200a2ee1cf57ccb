//! The machine-learning adapter: the only module that names an ML crate,
//! so the tree (smartcore's CART regressor) can be swapped without
//! touching the analyses. k-means comes from `tracelab_stats` (see there
//! why). Feature matrices are row-major `f64` with `dim` columns.
//!
//! Depth follows scikit-learn: `max_depth` = the number of split levels
//! (a depth-1 tree is one split). smartcore counts the root as level 1, so
//! it is given `max_depth + 1`.

use smartcore::linalg::basic::matrix::DenseMatrix;
use smartcore::tree::decision_tree_regressor::{DecisionTreeRegressor, DecisionTreeRegressorParameters};

use tracelab_schema::error::{Error, Result};
use tracelab_stats::{kmeans_plus_plus, lloyd, Clustering};

/// The tree's settings, with scikit-learn's meaning and defaults
/// (`DecisionTreeRegressor(max_depth=None, min_samples_split=2,
/// min_samples_leaf=1)`, squared error).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeParams {
    pub max_depth: Option<u16>,
    pub min_samples_split: usize,
    pub min_samples_leaf: usize,
    /// Orders the features tried at each split (ties between equally good
    /// splits go to the first tried).
    pub seed: u64,
}

/// A fitted regression tree.
pub struct Tree {
    model: DecisionTreeRegressor<f64, f64, DenseMatrix<f64>, Vec<f64>>,
    dim: usize,
}

fn matrix(x: &[f64], dim: usize) -> Result<DenseMatrix<f64>> {
    let rows = x.len().checked_div(dim).unwrap_or(0);
    DenseMatrix::new(rows, dim, x.to_vec(), false).map_err(|e| Error::Usage(format!("feature matrix: {e}")))
}

/// Fits a squared-error CART tree of `y` on the rows of `x`.
pub fn fit_tree(x: &[f64], dim: usize, y: &[f64], p: TreeParams) -> Result<Tree> {
    let mut params = DecisionTreeRegressorParameters::default()
        .with_min_samples_leaf(p.min_samples_leaf)
        .with_min_samples_split(p.min_samples_split);
    if let Some(d) = p.max_depth {
        params = params.with_max_depth(d.saturating_add(1));
    }
    params.seed = Some(p.seed);
    let model = DecisionTreeRegressor::fit(&matrix(x, dim)?, &y.to_vec(), params)
        .map_err(|e| Error::Usage(format!("decision tree: {e}")))?;
    Ok(Tree { model, dim })
}

impl Tree {
    /// Predictions for the rows of `x`.
    pub fn predict(&self, x: &[f64]) -> Result<Vec<f64>> {
        if x.is_empty() {
            return Ok(Vec::new());
        }
        self.model.predict(&matrix(x, self.dim)?).map_err(|e| Error::Usage(format!("decision tree: {e}")))
    }

    /// Impurity-decrease importance per feature, summing to 1 (scikit-learn's
    /// `feature_importances_`); zeros for a tree without a split.
    pub fn importances(&self) -> Vec<f64> {
        let raw = self.model.compute_feature_importances(false).unwrap_or_else(|_| vec![0.0; self.dim]);
        let total: f64 = raw.iter().sum();
        raw.iter().map(|v| if total > 0.0 { v / total } else { 0.0 }).collect()
    }
}

/// k-means from a seeded k-means++ start; returns the start too (results
/// are reproducible from it).
pub fn kmeans(points: &[f64], dim: usize, k: usize, seed: u64, max_iter: usize) -> (Vec<Vec<f64>>, Clustering) {
    let init = kmeans_plus_plus(points, dim, k, seed);
    let clustering = lloyd(points, dim, init.clone(), max_iter);
    (init, clustering)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(max_depth: Option<u16>, leaf: usize) -> TreeParams {
        TreeParams { max_depth, min_samples_split: 2, min_samples_leaf: leaf, seed: 0 }
    }

    /// x = 0, 1, 2, 3 with y = 1, 1, 5, 7. A depth-1 tree makes one split:
    /// at 1.5 the squared error drops from 27 to 0 + 2 = 2, better than at
    /// 0.5 (18.67) or 2.5 (10.67); leaves predict 1 and 6.
    #[test]
    fn depth_one_is_one_split_as_in_sklearn() {
        let t = fit_tree(&[0.0, 1.0, 2.0, 3.0], 1, &[1.0, 1.0, 5.0, 7.0], params(Some(1), 1)).unwrap();
        assert_eq!(t.predict(&[0.4, 1.6, 3.0]).unwrap(), vec![1.0, 6.0, 6.0]);
        assert_eq!(t.importances(), vec![1.0]);
        // Unlimited depth fits every point; depth 0 is the mean.
        let full = fit_tree(&[0.0, 1.0, 2.0, 3.0], 1, &[1.0, 1.0, 5.0, 7.0], params(None, 1)).unwrap();
        assert_eq!(full.predict(&[2.0, 3.0]).unwrap(), vec![5.0, 7.0]);
        let stump = fit_tree(&[0.0, 1.0, 2.0, 3.0], 1, &[1.0, 1.0, 5.0, 7.0], params(Some(0), 1)).unwrap();
        assert_eq!(stump.predict(&[0.0]).unwrap(), vec![3.5]);
    }

    /// min_samples_leaf = 2 forbids the 1 | 3 splits: only 1.5 remains.
    #[test]
    fn leaf_size_limits_splits() {
        let t = fit_tree(&[0.0, 1.0, 2.0, 3.0], 1, &[0.0, 10.0, 10.0, 10.0], params(None, 2)).unwrap();
        assert_eq!(t.predict(&[0.0, 3.0]).unwrap(), vec![5.0, 10.0]);
    }
}
