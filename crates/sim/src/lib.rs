//! tracelab-sim: a discrete-event replay of GPU-cluster job traces under the
//! schedulers the trace papers compare (PAI NSDI'22, Philly ATC'19, Helios
//! SC'21, Tiresias NSDI'19).
//!
//! A pure engine: plain jobs and a cluster in, typed results out. It reads no
//! Parquet and knows no other tracelab crate; the caller interns names and
//! converts units. Semantics (time unit, tie-breaks, disciplines, policies,
//! metrics) are documented in `docs/simulate.md`.
//!
//! ```
//! use tracelab_sim::{simulate, Cluster, Job, SimConfig, Workload};
//! // Two jobs of 4 GPUs submitted at 0, of 10 s and 5 s (times in ms).
//! let w = Workload::from_jobs(vec![Job::new(0, 0, 10_000, 4000), Job::new(1, 0, 5_000, 4000)]);
//! let cluster = Cluster::homogeneous(1, 4).unwrap();
//! let r = simulate(&w, &cluster, &SimConfig::default()).unwrap();
//! assert_eq!(r.jobs[1].first_start, Some(10_000));
//! ```

pub mod cluster;
pub mod config;
pub mod csv;
pub mod custom;
pub mod elastic;
mod engine;
pub mod error;
pub mod job;
pub mod metrics;
mod names;
mod placement;
pub mod policy;
pub mod rng;
pub mod sharing;
pub mod time;
pub mod usage;
mod validate;

pub use cluster::{Cluster, Limits, Node, NodeGroup};
pub use config::{
    Discipline, Interference, OnUnplaceable, Placement, Policy, Predictor, PreemptOverhead, ShareBy, SharingConfig,
    SimConfig,
};
pub use error::{SimError, Unplaceable};
pub use job::{Demand, Job, JobId, Workload};
pub use metrics::series::{Resampled, Series};
pub use metrics::{JobResult, JobStatus, Segment, SimResult, Summary};
pub use sharing::profile::LoadProfile;
pub use time::Millis;
pub use usage::{JobClass, Usage};

/// Replays `workload` on `cluster` under `config`.
///
/// Errors: an invalid configuration or workload, or (with
/// `on_unplaceable = error`, the default) a job that can never run on the
/// cluster. Deterministic: the same inputs give identical results.
pub fn simulate(workload: &Workload, cluster: &Cluster, config: &SimConfig) -> Result<SimResult, SimError> {
    config.validate()?;
    workload.validate()?;
    let mut engine = engine::Engine::new(workload, cluster, config)?;
    engine.run()?;
    Ok(engine.results())
}
