//! The interference model: how much slower each job on a shared GPU runs,
//! from its own and its co-tenants' utilizations (fractions of one GPU a job
//! keeps busy when alone), in the way a policy shares the GPU.
//!
//! With `U` the sum of the tenants' utilizations, `u_i` job i's, `c` the
//! time-multiplexing contention and `c_s` the space-sharing one (defaults
//! and their published sources in [`super::config::SharingConfig`]), job
//! i's slowdown (wall time per unit of its work, 1 = as if alone) is:
//!
//! - `Concurrent` (jobs interleave on the GPU as CUDA time-slices separate
//!   processes; Horus' co-location, PAI's fractional jobs):
//!   `max(1, U) x (1 + c (U - u_i))`: a GPU asked for more than all of its
//!   time is shared in proportion, and every co-tenant's work costs context
//!   switches and cache and memory contention in proportion to its use.
//! - `TimeSlice` (Gandiva's equal time slices): each of the `n` jobs has the
//!   GPU alone one slice in `n`: `n`.
//! - `Priority` (AntMan's and PAI's priority time sharing): the
//!   high-priority tenants (online services; without one, the tenant placed
//!   first) run as if only they shared the GPU; the others fill the time the
//!   high ones leave, `1 - U_h`: `max(1, U_l / (1 - U_h)) x (1 + c (U - u_i))`.
//! - `Space` (MuxFlow's MPS sharing): the low-priority (offline) tenants may
//!   use a share `S` of the SMs (the policy sets it; at most the `1 - k U_h`
//!   the online load leaves, `k` SM activity per unit of utilization); they
//!   slow the high ones by `1 + c_s min(U_l, S)` and run at
//!   `max(1, U_l / S) x (1 + c_s (k U_h + U_l - u_i))`.
//!
//! Every slowdown is capped at `max_slowdown`; a job alone on its GPU has
//! slowdown 1 in every mode. Must not: know jobs, GPUs or time.

use super::config::SharingConfig;

/// How co-located jobs share a GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareMode {
    Concurrent,
    TimeSlice,
    Priority,
    Space,
}

/// One job on a GPU, as the model sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tenant {
    /// Utilization alone, a fraction of one GPU (0-1).
    pub util: f64,
    /// High priority (an online service).
    pub high: bool,
}

/// The model's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    pub contention: f64,
    pub space_contention: f64,
    pub sm_per_util: f64,
    pub max_slowdown: f64,
}

/// The least time a low-priority tenant is left (a 1 % floor keeps the
/// slowdown finite; the cap then applies).
const FLOOR: f64 = 0.01;

impl Model {
    pub fn of(cfg: &SharingConfig) -> Model {
        Model {
            contention: cfg.contention,
            space_contention: cfg.space_contention,
            sm_per_util: cfg.sm_per_util,
            max_slowdown: cfg.max_slowdown,
        }
    }

    /// The SM share the online load `u_high` (sum of the high tenants'
    /// utilizations) leaves to the other tenants under space sharing.
    pub fn space_left(&self, u_high: f64) -> f64 {
        (1.0 - self.sm_per_util * u_high).max(0.0)
    }

    /// The slowdown of every tenant, in order, into `out`. `share` is the SM
    /// share of the low-priority tenants under `Space` (ignored otherwise).
    pub fn slowdowns(&self, mode: ShareMode, tenants: &[Tenant], share: f64, out: &mut Vec<f64>) {
        out.clear();
        if tenants.len() <= 1 {
            out.extend(tenants.iter().map(|_| 1.0));
            return;
        }
        let total: f64 = tenants.iter().map(|t| t.util).sum();
        let any_high = tenants.iter().any(|t| t.high);
        // Without an online tenant, the one placed first has priority.
        let high = |i: usize| if any_high { tenants[i].high } else { i == 0 };
        let u_high: f64 = (0..tenants.len()).filter(|&i| high(i)).map(|i| tenants[i].util).sum();
        let u_low = total - u_high;
        let c = self.contention;
        for (i, t) in tenants.iter().enumerate() {
            let s = match mode {
                ShareMode::Concurrent => total.max(1.0) * (1.0 + c * (total - t.util)),
                ShareMode::TimeSlice => tenants.len() as f64,
                ShareMode::Priority if high(i) => u_high.max(1.0) * (1.0 + c * (u_high - t.util)),
                ShareMode::Priority => (u_low / (1.0 - u_high).max(FLOOR)).max(1.0) * (1.0 + c * (total - t.util)),
                ShareMode::Space => self.space(high(i), t.util, u_high, u_low, share),
            };
            out.push(s.clamp(1.0, self.max_slowdown));
        }
    }

    fn space(&self, high: bool, util: f64, u_high: f64, u_low: f64, share: f64) -> f64 {
        let cs = self.space_contention;
        let share = share.min(self.space_left(u_high));
        if high {
            return u_high.max(1.0) * (1.0 + cs * u_low.min(share));
        }
        (u_low / share.max(FLOOR)).max(1.0) * (1.0 + cs * (self.sm_per_util * u_high + u_low - util))
    }

    /// The SM share that keeps the high tenants' slowdown within `bound`
    /// under space sharing: at most what the online load leaves, and no more
    /// than `(bound - 1) / c_s` of low-priority use.
    pub fn bounded_share(&self, u_high: f64, bound: f64) -> f64 {
        let by_bound = if self.space_contention > 0.0 { (bound - 1.0) / self.space_contention } else { 1.0 };
        self.space_left(u_high).min(by_bound).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        Model::of(&SharingConfig::default())
    }

    fn t(util: f64, high: bool) -> Tenant {
        Tenant { util, high }
    }

    fn run(mode: ShareMode, tenants: &[Tenant], share: f64) -> Vec<f64> {
        let mut out = Vec::new();
        model().slowdowns(mode, tenants, share, &mut out);
        out
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-9, "{a:?} vs {b:?}");
        }
    }

    /// The calibration points, by hand: two 100 % jobs: U = 2, each
    /// 2 x (1 + 0.45 x 1) = 2.9 (Horus' bad pairs, 2.4-3.4x); two 40 % jobs:
    /// U = 0.8, each 1 x (1 + 0.45 x 0.4) = 1.18 (Horus' 18 % average).
    #[test]
    fn concurrent_pairs_match_the_published_calibration() {
        close(&run(ShareMode::Concurrent, &[t(1.0, false), t(1.0, false)], 1.0), &[2.9, 2.9]);
        close(&run(ShareMode::Concurrent, &[t(0.4, false), t(0.4, false)], 1.0), &[1.18, 1.18]);
        // 0.2 with 0.6: U = 0.8; 1 + 0.45 x 0.6 = 1.27 and 1 + 0.45 x 0.2 = 1.09.
        close(&run(ShareMode::Concurrent, &[t(0.2, false), t(0.6, false)], 1.0), &[1.27, 1.09]);
    }

    #[test]
    fn alone_is_never_slowed_and_time_slices_divide_by_the_tenants() {
        for mode in [ShareMode::Concurrent, ShareMode::TimeSlice, ShareMode::Priority, ShareMode::Space] {
            close(&run(mode, &[t(0.9, true)], 0.1), &[1.0]);
        }
        close(&run(ShareMode::TimeSlice, &[t(0.1, true), t(0.9, false), t(0.5, false)], 1.0), &[3.0, 3.0, 3.0]);
    }

    /// Online 0.3 with offline 0.6 under priority: the online job as if
    /// alone (1); the offline one has 1 - 0.3 = 0.7 of the time for its 0.6
    /// (no capacity slowdown) and contention 1 + 0.45 x (0.9 - 0.6) = 1.135.
    /// Offline 0.9 instead: 0.9 / 0.7 = 1.2857 x (1 + 0.45 x 0.3) = 1.4593.
    #[test]
    fn priority_keeps_the_online_job_whole() {
        close(&run(ShareMode::Priority, &[t(0.6, false), t(0.3, true)], 1.0), &[1.135, 1.0]);
        close(&run(ShareMode::Priority, &[t(0.3, true), t(0.9, false)], 1.0), &[1.0, 0.9 / 0.7 * 1.135]);
    }

    /// Space sharing at MuxFlow's calibration point: online 0.26, offline
    /// 1.0 on the share 1 - (16/26) 0.26 = 0.84 the online load leaves:
    /// online 1 + (0.2/0.84) x 0.84 = 1.2; offline (1 / 0.84) x
    /// (1 + (0.2/0.84) x (0.16 + 1 - 1)) = 1.2355.
    #[test]
    fn space_sharing_at_the_calibration_point() {
        let m = model();
        let share = m.bounded_share(0.26, 1.2);
        assert!((share - 0.84).abs() < 1e-9, "{share}");
        let cs = 0.2 / 0.84;
        close(&run(ShareMode::Space, &[t(0.26, true), t(1.0, false)], share), &[1.2, (1.0 / 0.84) * (1.0 + cs * 0.16)]);
        // An idle online job leaves every SM, but the bound caps the share at 0.2 / c_s = 0.84.
        assert!((m.bounded_share(0.0, 1.2) - 0.84).abs() < 1e-9);
    }
}
