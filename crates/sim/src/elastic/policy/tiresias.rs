//! `tiresias`: Tiresias' discretised two-dimensional LAS (Gu et al.,
//! NSDI'19) as Pollux's evaluation ran it (OSDI'21 §5.3, "Tiresias+TunedJobs"):
//! every job gets exactly the GPUs the workload asks for, at its fixed
//! batch size, or none.
//!
//! Two queues: a job enters the first; once its executed time (seconds it
//! has held GPUs, counted at rounds) times its GPUs reaches 16 GPU-hours it
//! moves to the end of the second. At each round jobs are taken first
//! queue then second, each in queue order, and every job whose GPUs still
//! fit in the cluster's total runs (jobs that do not fit are skipped, not
//! waited for); a job that stops running loses its GPUs. A job keeps the
//! GPUs it has; one starting gets GPUs from the nodes with the most free
//! GPUs first ([`super::most_free_first`]), so it may span nodes. No
//! starvation guard (the artifact's is off).

use std::collections::HashMap;

use super::{free_gpus, most_free_first, Allocation, ElasticPolicy, Round};
use crate::elastic::job::ElasticJob;

/// GPU-seconds of service after which a job is demoted: 16 GPU-hours.
pub const THRESHOLD_GPU_S: f64 = 16.0 * 3600.0;

#[derive(Clone, Copy, Debug, Default)]
struct State {
    running: bool,
    /// Round time it was last looked at, seconds.
    last_check: f64,
    /// Seconds held so far (for the queue).
    executed: f64,
    demoted: bool,
}

#[derive(Debug, Default)]
pub struct Tiresias {
    /// Workload index -> state; the queues in order.
    state: HashMap<usize, State>,
    queue0: Vec<usize>,
    queue1: Vec<usize>,
}

impl Tiresias {
    pub fn new() -> Tiresias {
        Tiresias::default()
    }

    /// Drops finished jobs, admits new ones, counts executed time and demotes.
    fn update_queues(&mut self, round: &Round, now: f64) {
        let active: HashMap<usize, usize> = round.jobs.iter().enumerate().map(|(i, j)| (j.index, i)).collect();
        self.queue0.retain(|k| active.contains_key(k));
        self.queue1.retain(|k| active.contains_key(k));
        self.state.retain(|k, _| active.contains_key(k));
        for j in round.jobs {
            if let std::collections::hash_map::Entry::Vacant(e) = self.state.entry(j.index) {
                e.insert(State::default());
                self.queue0.push(j.index);
            }
        }
        for j in round.jobs {
            let s = self.state.get_mut(&j.index).expect("admitted above");
            if s.running {
                s.executed += now - s.last_check;
                if !s.demoted && s.executed * j.replicas as f64 >= THRESHOLD_GPU_S {
                    s.demoted = true;
                    self.queue0.retain(|k| *k != j.index);
                    self.queue1.push(j.index);
                }
            }
            s.last_check = now;
        }
    }
}

impl ElasticPolicy for Tiresias {
    fn name(&self) -> &str {
        "tiresias"
    }

    fn check(&self, job: &ElasticJob, total_gpus: u32) -> Result<(), String> {
        if job.replicas > total_gpus {
            return Err(format!("asks for {} GPUs, the cluster has {total_gpus}", job.replicas));
        }
        Ok(())
    }

    fn allocate(&mut self, round: &Round) -> Vec<Allocation> {
        let now = round.now as f64 / 1000.0;
        self.update_queues(round, now);
        let pos: HashMap<usize, usize> = round.jobs.iter().enumerate().map(|(i, j)| (j.index, i)).collect();
        let mut left: u32 = round.node_gpus.iter().sum();
        let order: Vec<usize> = self.queue0.iter().chain(&self.queue1).copied().collect();
        let mut out: Vec<Allocation> = vec![Allocation::default(); round.jobs.len()];
        for &k in &order {
            let (i, s) = (pos[&k], self.state.get_mut(&k).expect("queued jobs have a state"));
            let want = round.jobs[i].replicas;
            s.running = want <= left;
            if s.running {
                left -= want;
                out[i].gpus = round.jobs[i].gpus.clone();
            }
        }
        let mut free = free_gpus(round.node_gpus, out.iter().flat_map(|a| a.gpus.iter().copied()));
        for &k in &order {
            let i = pos[&k];
            if self.state[&k].running && out[i].gpus.is_empty() {
                out[i].gpus = most_free_first(&mut free, round.jobs[i].replicas);
            }
        }
        out
    }
}
