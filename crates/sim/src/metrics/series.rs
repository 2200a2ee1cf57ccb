//! Time series of a replay as step functions: after the scheduling pass at
//! each event time, the allocated GPUs, the queue length and the running
//! jobs. A value holds from its time until the next point. [`Series::resample`]
//! turns them into fixed-interval, time-weighted means for plots.

use serde::{Deserialize, Serialize};

use crate::time::Millis;

/// Step functions sampled at event times (one point per distinct time).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub time: Vec<Millis>,
    /// Allocated GPUs in milli-GPUs (whole nodes held by large jobs count in full).
    pub allocated_milli: Vec<u64>,
    pub queued: Vec<u32>,
    pub running: Vec<u32>,
}

/// Fixed-interval means of a [`Series`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Resampled {
    /// Start of each bin.
    pub time: Vec<Millis>,
    /// Mean allocated GPUs over the bin.
    pub allocated_gpus: Vec<f64>,
    pub queued: Vec<f64>,
    pub running: Vec<f64>,
}

impl Series {
    pub(crate) fn push(&mut self, t: Millis, allocated_milli: u64, queued: u32, running: u32) {
        if self.time.last() == Some(&t) {
            self.time.pop();
            self.allocated_milli.pop();
            self.queued.pop();
            self.running.pop();
        }
        self.time.push(t);
        self.allocated_milli.push(allocated_milli);
        self.queued.push(queued);
        self.running.push(running);
    }

    /// Time-weighted means over bins `[start + k*interval, start + (k+1)*interval)`
    /// from the first point to `end`; before the first point every value is 0.
    pub fn resample(&self, interval: Millis, end: Millis) -> Resampled {
        let mut out = Resampled::default();
        let Some(&start) = self.time.first() else { return out };
        if interval <= 0 {
            return out;
        }
        let mut bin = start;
        while bin < end {
            let hi = (bin + interval).min(end);
            out.time.push(bin);
            out.allocated_gpus.push(self.mean(bin, hi, |i| self.allocated_milli[i] as f64 / 1000.0));
            out.queued.push(self.mean(bin, hi, |i| self.queued[i] as f64));
            out.running.push(self.mean(bin, hi, |i| self.running[i] as f64));
            bin = hi;
        }
        out
    }

    /// Mean of the step function `value` over `[lo, hi)`.
    fn mean(&self, lo: Millis, hi: Millis, value: impl Fn(usize) -> f64) -> f64 {
        let first = self.time.partition_point(|&t| t <= lo).saturating_sub(1);
        let mut area = 0.0;
        for i in first..self.time.len() {
            let a = self.time[i].max(lo);
            let b = self.time.get(i + 1).copied().unwrap_or(Millis::MAX).min(hi);
            if a >= hi {
                break;
            }
            if b > a {
                area += value(i) * (b - a) as f64;
            }
        }
        area / (hi - lo) as f64
    }
}
