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
    let (order, full) = match custom {
        Custom::Order(p) => (Some(p), None),
        Custom::Full(p) => (None, Some(p)),
    };
    let mut engine = Engine::with_policies(workload, cluster, &cfg, order, full)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::Job;
    use crate::policy::{Key, Progress};
    use crate::time::Millis;
    use crate::Cluster;

    fn job(id: u32, submit: i64, duration: i64, gpus: u32) -> Job {
        Job::new(id, submit, duration, gpus * 1000)
    }

    /// Longest first, given from outside the crate's policies.
    struct Longest;

    impl PolicyImpl for Longest {
        fn key(&mut self, job: &Job, _p: &Progress, _now: Millis) -> Key {
            Key(-job.duration, 0)
        }
    }

    /// Fails at its third key.
    struct Fails(u32);

    impl PolicyImpl for Fails {
        fn key(&mut self, _job: &Job, _p: &Progress, _now: Millis) -> Key {
            self.0 += 1;
            Key::default()
        }

        fn stopped(&self) -> Option<String> {
            (self.0 >= 3).then(|| "no key".to_string())
        }
    }

    #[test]
    fn an_ordering_policy_from_outside_orders_the_queue() {
        // One GPU; j0 runs 0-10; j1 (5 s) and j2 (20 s) wait. Longest
        // first: j2 at 10-30, then j1 at 30.
        let w = Workload::from_jobs(vec![job(0, 0, 10_000, 1), job(1, 1_000, 5_000, 1), job(2, 2_000, 20_000, 1)]);
        let c = Cluster::homogeneous(1, 1).unwrap();
        let r = simulate_custom(&w, &c, &SimConfig::default(), Custom::Order(Box::new(Longest))).unwrap();
        let starts: Vec<Option<Millis>> = r.jobs.iter().map(|j| j.first_start).collect();
        assert_eq!(starts, vec![Some(0), Some(30_000), Some(10_000)]);
    }

    #[test]
    fn a_policy_that_stops_ends_the_replay_with_its_reason() {
        let w = Workload::from_jobs((0..5).map(|i| job(i, i as i64 * 1_000, 60_000, 1)).collect());
        let c = Cluster::homogeneous(1, 1).unwrap();
        let e = simulate_custom(&w, &c, &SimConfig::default(), Custom::Order(Box::new(Fails(0)))).unwrap_err();
        assert!(matches!(e, SimError::PolicyStopped(ref why) if why == "no key"), "{e}");
    }
}
