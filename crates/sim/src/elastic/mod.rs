//! Elastic jobs and the schedulers that resize them: Pollux (OSDI'21) and
//! the baselines its evaluation compares, replayed as its trace-driven
//! simulator replays them (OSDI'21 §5.3), from the artifact's measured
//! tables (`crates/sim/data/pollux/`, Apache-2.0, see its NOTICE).
//!
//! - [`app`]: the six applications, their measured speed per placement and
//!   batch size, and their training curves;
//! - [`model`]: what a job knows of itself (Pollux's fitted throughput and
//!   efficiency model: goodput, speedup);
//! - [`job`]: elastic jobs and how they train between rounds;
//! - [`policy`]: the policy trait and `pollux`, `optimus`, `tiresias`;
//! - [`engine`]: the round loop; [`results`], [`summary`]: what it returns;
//! - [`workload`]: Pollux's workload CSV.
//!
//! Rigid replays ([`crate::simulate`]) do not go through this module and
//! are unchanged by it. Semantics: `docs/simulate-elastic.md`.

pub mod app;
pub mod artifact;
pub mod config;
pub mod engine;
pub mod error;
pub mod job;
pub mod model;
pub mod policy;
pub mod results;
pub mod summary;
pub mod workload;

pub use config::{ElasticConfig, ElasticPolicyName};
pub use error::ElasticError;
pub use job::{BatchRule, ElasticJob};
pub use policy::{Allocation, ElasticPolicy, JobView, Round};
pub use results::{ElasticJobResult, ElasticResult, ElasticStatus, ElasticSummary, RoundPoint};

/// The built-in policy called `name`, configured by `config`.
pub fn policy(config: &ElasticConfig) -> Box<dyn ElasticPolicy> {
    match config.policy {
        ElasticPolicyName::Pollux => {
            Box::new(policy::pollux::Pollux::new(config.fairness_p, config.avoid_interference))
        }
        ElasticPolicyName::Optimus => Box::new(policy::optimus::Optimus::new()),
        ElasticPolicyName::Tiresias => Box::new(policy::tiresias::Tiresias::new()),
    }
}

/// Replays `jobs` on nodes of `node_gpus` GPUs under the built-in policy
/// `config.policy`.
pub fn simulate_elastic(
    jobs: &[ElasticJob],
    node_gpus: &[u32],
    config: &ElasticConfig,
) -> Result<ElasticResult, ElasticError> {
    engine::replay(jobs, node_gpus, config, policy(config).as_mut())
}
