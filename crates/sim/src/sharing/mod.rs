//! GPU sharing as Horus (TPDS'22) and MuxFlow (2023) do it, and the
//! baselines they compare with: the interference model ([`model`]), its
//! parameters ([`config`]), the online load profile ([`profile`]), the
//! pieces the policies are made of (Kuhn-Munkres matching, usage
//! prediction; k-means is `tracelab_stats::kmeans`), and the full-control hook the sharing policies implement
//! ([`policy::SharingPolicy`]: their own queues, placement, co-location,
//! evictions and SM shares, through the commands of [`policy::Round`]).
//!
//! The policies themselves are one module each in `crate::policy`
//! (`exclusive`, `time_sharing`, `priority_time_sharing`, `horus`,
//! `muxflow`). Semantics and calibration: `docs/sharing.md`.

pub mod config;
pub mod matching;
pub mod model;
pub mod policy;
pub mod predict;
pub mod profile;
pub mod view;
pub(crate) mod waitlist;

use crate::config::{Policy, SimConfig};
use crate::job::Workload;
use crate::policy::{exclusive, horus, muxflow, priority_time_sharing, time_sharing};
use policy::SharingPolicy;

/// The sharing policy of `cfg`, if it names one.
pub(crate) fn build(cfg: &SimConfig, w: &Workload) -> Option<Box<dyn SharingPolicy>> {
    Some(match cfg.policy {
        Policy::Exclusive => Box::new(exclusive::new()),
        Policy::TimeSharing => Box::new(time_sharing::new()),
        Policy::PriorityTimeSharing => Box::new(priority_time_sharing::new()),
        Policy::Horus => Box::new(horus::Horus::new(cfg, w)),
        Policy::Muxflow => Box::new(muxflow::Muxflow::new(cfg, w)),
        _ => return None,
    })
}
