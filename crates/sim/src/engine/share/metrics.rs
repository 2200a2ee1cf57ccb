//! The sharing metrics integrated over time as step functions: useful GPU
//! busy time (each job's utilization at its progress rate; an online
//! service at its load), GPUs occupied, GPUs the running jobs would need
//! without sharing, and GPUs hosting online and offline work together.
//!
//! They are integrated over the arrival window (first event to the last
//! submission), while the workload keeps arriving, so that a policy's
//! utilization is not diluted by the drain after the last arrival (the
//! cluster empties the same way under every policy); over the whole replay
//! when every job arrives at once.

use crate::time::Millis;

#[derive(Default)]
pub(crate) struct Integrals {
    /// Current useful busy GPUs (a sum of fractions).
    pub(crate) busy: f64,
    /// Current GPUs the running jobs would hold alone, milli-GPUs.
    pub(crate) demand_milli: u64,
    /// Current GPUs occupied by at least one job, milli-GPUs.
    pub(crate) occupied_milli: u64,
    /// Areas over the arrival window and over the whole replay (GPU-ms):
    /// useful busy, needed alone, occupied, oversold.
    pub(crate) arrival: [f64; 4],
    pub(crate) whole: [f64; 4],
    /// The last submission (end of the arrival window).
    pub(crate) last_submit: Millis,
    /// Useful busy GPUs after the pass at each event time (a step function).
    pub(crate) series: Vec<(Millis, f64)>,
}

impl Integrals {
    /// A job starting or stopping: `demand` milli-GPUs it needs alone and
    /// `occupied` milli-GPUs it opened or closed.
    pub(crate) fn change(&mut self, start: bool, demand: u64, occupied: u64) {
        if start {
            self.demand_milli += demand;
            self.occupied_milli += occupied;
        } else {
            self.demand_milli -= demand;
            self.occupied_milli -= occupied;
        }
    }

    /// Adds `[from, to)` at the current values (`oversold` GPUs).
    pub(crate) fn integrate(&mut self, from: Millis, to: Millis, oversold: u32) {
        let values = [
            self.busy.max(0.0),
            self.demand_milli as f64 / 1000.0,
            self.occupied_milli as f64 / 1000.0,
            oversold as f64,
        ];
        let (dt, early) = ((to - from) as f64, (to.min(self.last_submit) - from).max(0) as f64);
        for (k, v) in values.iter().enumerate() {
            self.whole[k] += v * dt;
            self.arrival[k] += v * early;
        }
    }

    pub(crate) fn record(&mut self, t: Millis) {
        let v = self.busy.max(0.0);
        match self.series.last_mut() {
            Some(last) if last.0 == t => last.1 = v,
            _ => self.series.push((t, v)),
        }
    }
}
