//! What an elastic replay is asked to do: the policy (by name) and the
//! options of Pollux's simulator, with its defaults (OSDI'21 §5.3).

use serde::{Deserialize, Serialize};

use crate::error::SimError;
use crate::names::named_enum;
use crate::time::{Millis, SECOND};

named_enum!(
    /// The elastic policies (Pollux's evaluation, OSDI'21 §5.3).
    ElasticPolicyName, "elastic policy" {
        /// Pollux: GPUs and batch sizes re-optimised each round for the generalised mean of speedups.
        Pollux => "pollux",
        /// Optimus+Oracle: GPUs by largest marginal reduction of remaining time, fixed batch sizes.
        Optimus => "optimus",
        /// Tiresias: two-queue discretised LAS with the GPUs the job asks for.
        Tiresias => "tiresias",
    }
);

/// Options of an elastic replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ElasticConfig {
    pub policy: ElasticPolicyName,
    /// Time between scheduling rounds (Pollux: 60 s).
    pub interval: Millis,
    /// Time a job spends restarting after each re-allocation, holding its
    /// GPUs without progress (Pollux: 30 s).
    pub restart_delay: Millis,
    /// Slowdown (0-1) of a job spanning several nodes while a node it uses
    /// also hosts another such job (the artifact's `--interference`).
    pub interference: f64,
    /// `pollux` keeps such jobs apart (OSDI'21 §4.2); off to measure what
    /// that avoidance is worth (Fig 8c).
    pub avoid_interference: bool,
    /// Exponent p of `pollux`'s generalised mean (-1: the paper's).
    pub fairness_p: f64,
    /// Stop at this time; unfinished jobs are reported as such.
    pub until: Option<Millis>,
}

impl Default for ElasticConfig {
    fn default() -> Self {
        ElasticConfig {
            policy: ElasticPolicyName::Pollux,
            interval: 60 * SECOND,
            restart_delay: 30 * SECOND,
            interference: 0.0,
            avoid_interference: true,
            fairness_p: -1.0,
            until: None,
        }
    }
}

impl ElasticConfig {
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |s: &str| Err(SimError::BadOption(s.to_string()));
        if self.interval < SECOND {
            return bad("the scheduling interval must be at least 1 s");
        }
        if self.restart_delay < 0 {
            return bad("the restart delay must not be negative");
        }
        if !(0.0..1.0).contains(&self.interference) {
            return bad("interference must be at least 0 and below 1");
        }
        if !(self.fairness_p.is_finite() && self.fairness_p <= 1.0) {
            return bad("the fairness exponent p must be a number <= 1");
        }
        Ok(())
    }
}
