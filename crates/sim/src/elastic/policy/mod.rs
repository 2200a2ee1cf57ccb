//! The elastic scheduling policies behind one trait, [`ElasticPolicy`]:
//! at every round the engine hands a policy a [`Round`] (the cluster's
//! GPUs per node and every active job with its progress, what it has
//! used, its current GPUs and its fitted goodput model) and takes back one
//! [`Allocation`] per job (the node of each GPU, optionally a new total
//! batch size). Plain data in and out, so a policy written elsewhere (a
//! Python one, issue 34) is compared with the built-in ones on equal terms.
//!
//! Built in, as Pollux's evaluation ran them (OSDI'21 §5.3):
//! - [`pollux`]: re-allocates every GPU each round to maximise the
//!   generalised mean of the jobs' speedups;
//! - [`optimus`]: Optimus+Oracle, GPUs by the largest predicted reduction
//!   of remaining time, at the job's fixed batch size;
//! - [`tiresias`]: Tiresias' two-queue discretised LAS with the GPUs the
//!   job asked for, preemptive at rounds.
//!
//! A policy must not hand out more GPUs on a node than it has, nor a GPU
//! of a node that does not exist: the engine checks and fails the run.

pub mod optimus;
pub mod pollux;
pub mod search;
pub mod tiresias;

use crate::elastic::app::Application;
use crate::elastic::job::{BatchRule, ElasticJob};
use crate::elastic::model::Goodput;
use crate::time::Millis;

/// One active job as a policy sees it at a round.
#[derive(Clone, Debug)]
pub struct JobView {
    /// Position in the workload.
    pub index: usize,
    pub application: &'static Application,
    pub submit: Millis,
    /// What the workload asks for: GPUs and total batch size.
    pub replicas: u32,
    pub batch_size: u32,
    /// GPU-seconds held so far (restart delays included).
    pub attained_gpu_s: f64,
    /// Re-allocations after the first.
    pub restarts: u32,
    /// Epochs finished and progress made (in the application's units).
    pub epoch: usize,
    pub progress: f64,
    /// The most GPUs the job has been observed on (0 before it has run).
    pub max_observed_replicas: u32,
    /// The job's fitted goodput model; `None` before it has run.
    pub goodput: Option<Goodput>,
    /// Its GPUs now: the node of each, in placement order (empty: none).
    pub gpus: Vec<u32>,
}

/// What a policy is told at a round.
#[derive(Clone, Copy, Debug)]
pub struct Round<'a> {
    pub now: Millis,
    /// GPUs of each node, by node id.
    pub node_gpus: &'a [u32],
    /// The active jobs (submitted, not finished), in submission order.
    pub jobs: &'a [JobView],
    /// The cost of a re-allocation, seconds.
    pub restart_delay_s: f64,
}

/// One job's allocation for the next round.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allocation {
    /// The node of each GPU, in placement order (empty: none). The same
    /// list as the job holds keeps it running without a restart.
    pub gpus: Vec<u32>,
    /// A total batch size the job uses from now on; `None` keeps its rule.
    pub batch: Option<u32>,
}

/// An elastic scheduling policy.
pub trait ElasticPolicy: Send {
    /// The name results are labelled with.
    fn name(&self) -> &str;

    /// How a job of this run chooses its batch size: by default the fixed
    /// total batch the workload gives it.
    fn batch_rule(&self, job: &ElasticJob) -> BatchRule {
        BatchRule::Fixed(job.batch_size)
    }

    /// Whether the policy can ever run `job` on a cluster of `total_gpus`
    /// GPUs (an error says why not); by default it can.
    fn check(&self, job: &ElasticJob, total_gpus: u32) -> Result<(), String> {
        let _ = (job, total_gpus);
        Ok(())
    }

    /// One allocation per job of `round.jobs`, in the same order.
    fn allocate(&mut self, round: &Round) -> Vec<Allocation>;
}

/// Free GPUs per node after the allocations kept.
pub fn free_gpus(node_gpus: &[u32], kept: impl IntoIterator<Item = u32>) -> Vec<u32> {
    let mut free = node_gpus.to_vec();
    for node in kept {
        free[node as usize] -= 1;
    }
    free
}

/// `count` GPUs taken from the node with the most free GPUs, then the
/// next, ties to the lowest node id (the artifact's baselines place so:
/// `Counter.most_common`). The caller ensures enough GPUs are free.
pub fn most_free_first(free: &mut [u32], count: u32) -> Vec<u32> {
    let mut gpus = Vec::with_capacity(count as usize);
    while (gpus.len() as u32) < count {
        let (node, &have) =
            free.iter().enumerate().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0))).expect("a cluster has nodes");
        if have == 0 {
            break;
        }
        let take = have.min(count - gpus.len() as u32);
        gpus.extend(std::iter::repeat_n(node as u32, take as usize));
        free[node] -= take;
    }
    gpus
}
