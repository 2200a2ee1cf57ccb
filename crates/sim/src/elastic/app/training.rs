//! How far training has come and how efficiently it goes: the artifact's
//! per-epoch training runs at several total batch sizes
//! (`validation-<B>.csv`).
//!
//! Progress is measured as the paper measures it (OSDI'21 §3.1): examples
//! processed, each weighted by the statistical efficiency of the batch size
//! it was processed at, so that a job needs the same progress to converge
//! whatever batch sizes it used. Epoch `e` ends at the smallest cumulative
//! progress any of the measured runs had at the end of its `e`-th epoch; the
//! job is done at the end of its last measured epoch. Between measured batch
//! sizes the gradient statistics (and iteration counts) are linear in the
//! batch size; a batch size outside the measured range is an error.

use super::tables::EpochRow;

/// The training runs of one application.
#[derive(Clone, Debug)]
pub struct Training {
    /// (total batch size, epochs), ascending batch size.
    runs: Vec<(u32, Vec<EpochRow>)>,
    /// Progress at the end of each epoch (index e = end of epoch e + 1).
    ends: Vec<f64>,
}

impl Training {
    pub fn new(runs: Vec<(u32, Vec<EpochRow>)>) -> Training {
        let epochs = runs.iter().map(|(_, r)| r.len()).min().unwrap_or(0);
        assert!(epochs > 0, "an application needs at least one epoch in every run");
        let ends = (0..epochs).map(|e| runs.iter().map(|(_, r)| r[e].progress).fold(f64::INFINITY, f64::min)).collect();
        Training { runs, ends }
    }

    /// Epochs to train (the shortest measured run).
    pub fn epochs(&self) -> usize {
        self.ends.len()
    }

    /// Progress at the start of `epoch` (0 at epoch 0).
    pub fn progress_at(&self, epoch: usize) -> f64 {
        if epoch == 0 {
            0.0
        } else {
            self.ends[epoch - 1]
        }
    }

    /// Progress needed to finish.
    pub fn total(&self) -> f64 {
        self.ends[self.ends.len() - 1]
    }

    /// The smallest and largest measured total batch sizes.
    pub fn batch_range(&self) -> (u32, u32) {
        (self.runs[0].0, self.runs[self.runs.len() - 1].0)
    }

    /// The measured total batch sizes, ascending.
    pub fn batches(&self) -> impl Iterator<Item = u32> + '_ {
        self.runs.iter().map(|(b, _)| *b)
    }

    /// (squared gradient norm, gradient variance) during `epoch` at total
    /// batch size `batch`, linear between the measured sizes.
    pub fn grad_stats(&self, batch: f64, epoch: usize) -> (f64, f64) {
        self.between(batch, |r| {
            let e = &r[epoch.min(r.len() - 1)];
            (e.grad_sqr, e.grad_var)
        })
    }

    /// Iterations done by the end of epoch `epoch` (0-based index) at total
    /// batch size `batch`, linear between the measured sizes.
    pub fn iterations(&self, batch: f64, epoch: usize) -> f64 {
        self.between(batch, |r| (r[epoch.min(r.len() - 1)].iteration, 0.0)).0
    }

    /// Whether `batch` lies in the measured range.
    pub fn measured(&self, batch: f64) -> bool {
        let (lo, hi) = self.batch_range();
        batch >= lo as f64 && batch <= hi as f64
    }

    fn between(&self, batch: f64, f: impl Fn(&[EpochRow]) -> (f64, f64)) -> (f64, f64) {
        let (lo_b, hi_b) = self.batch_range();
        let b = batch.clamp(lo_b as f64, hi_b as f64);
        let i = self.runs.partition_point(|(x, _)| (*x as f64) < b);
        let hi = &self.runs[i.min(self.runs.len() - 1)];
        if hi.0 as f64 == b || i == 0 {
            return f(&hi.1);
        }
        let lo = &self.runs[i - 1];
        let w = (b - lo.0 as f64) / (hi.0 - lo.0) as f64;
        let (a, c) = (f(&lo.1), f(&hi.1));
        (a.0 + (c.0 - a.0) * w, a.1 + (c.1 - a.1) * w)
    }
}

/// Statistical efficiency's gain: how many iterations at the smallest
/// batch size one iteration at `scale` times that size is worth, from the
/// gradient noise (OSDI'21 §3.1, Eq. 3: (var + sqr) / (var / scale + sqr)).
pub fn gain(grad_sqr: f64, grad_var: f64, scale: f64) -> f64 {
    let denom = grad_var / scale + grad_sqr;
    if denom > 0.0 {
        (grad_var + grad_sqr) / denom
    } else {
        1.0
    }
}
