//! Policies given by the caller instead of a built-in one (the Python
//! package's `tracelab.Policy`, issue 34): an ordering policy behind the
//! engine's [`PolicyImpl`] hook, run under the configured discipline and
//! placement like `fifo` or `sjf`, or a full-control policy behind the
//! sharing policies' [`SharingPolicy`] hook, which decides every start,
//! co-location and eviction through a [`Round`](crate::sharing::policy::Round).
//!
//! The engine checks what either asks (only waiting jobs start, capacity,
//! GPU types, memory) and stops the replay cleanly when the policy says it
//! cannot go on ([`PolicyImpl::stopped`], [`SharingPolicy::stopped`]). This
//! module knows nothing of Python: the glue lives in `crates/python`.

use crate::cluster::Cluster;
use crate::config::{Discipline, Policy, SimConfig};
use crate::engine::Engine;
use crate::error::SimError;
use crate::job::Workload;
use crate::metrics::SimResult;
use crate::policy::PolicyImpl;
use crate::sharing::policy::SharingPolicy;

/// A policy given by the caller.
pub enum Custom {
    /// Orders the wait queue: a key per waiting job (non-preemptive; the
    /// policy's `preemptive`, `evicts` and running keys are not used).
    Order(Box<dyn PolicyImpl>),
    /// Decides everything at each scheduling pass, as the GPU-sharing
    /// policies do (the greedy discipline; fractional jobs hold GPUs as
    /// the round places them).
    Full(Box<dyn SharingPolicy>),
}

/// Replays `workload` on `cluster` under `config` with `custom` in place of
/// `config.policy` (which is ignored; the other options apply).
///
/// Errors: those of [`crate::simulate`], and
/// [`SimError::PolicyStopped`] when the policy stopped the replay.
pub fn simulate_custom(
    workload: &Workload,
    cluster: &Cluster,
    config: &SimConfig,
    custom: Custom,
) -> Result<SimResult, SimError> {
    let cfg = as_run(config, &custom)?;
    cfg.validate()?;
    workload.validate()?;
    let mut engine = Engine::with_custom(workload, cluster, &cfg, Some(custom))?;
    engine.run()?;
    Ok(engine.results())
}

/// The configuration the engine runs a custom policy under: a plain
/// ordered queue (`fifo`'s code paths) or a sharing round (`exclusive`'s).
fn as_run(config: &SimConfig, custom: &Custom) -> Result<SimConfig, SimError> {
    Ok(match custom {
        Custom::Order(_) => SimConfig { policy: Policy::Fifo, ..config.clone() },
        Custom::Full(_) => {
            if config.discipline != Discipline::Greedy {
                return Err(SimError::BadOption(
                    "a full-control policy decides every start itself: use the greedy discipline".into(),
                ));
            }
            SimConfig { policy: Policy::Exclusive, ..config.clone() }
        }
    })
}
