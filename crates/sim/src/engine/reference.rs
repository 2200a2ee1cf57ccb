//! Test-only reference implementations: the engine's earlier algorithms for
//! multi-node placement and for the preemptive pass, written plainly (full
//! scans, a full re-ranking at every pass), so that the differential tests
//! can replay random workloads both ways and demand identical results.
//!
//! Must not: be used outside tests. A thread-local switch selects them, so
//! tests running side by side do not affect each other.

use std::cell::Cell;

use super::state::Phase;
use super::Engine;
use crate::config::Discipline;
use crate::engine::nodes::{Group, Nodes};
use crate::job::JobId;
use crate::policy::Key;
use crate::rng::Rng;
use crate::time::Millis;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread runs the reference algorithms.
pub(crate) fn on() -> bool {
    ON.with(Cell::get)
}

/// Runs `f` with the reference algorithms switched on for this thread.
pub(crate) fn with<T>(f: impl FnOnce() -> T) -> T {
    ON.with(|c| c.set(true));
    let out = f();
    ON.with(|c| c.set(false));
    out
}

/// The earlier `search::whole_nodes`: every step re-filters every group's
/// free nodes against the list of nodes already taken.
pub(crate) fn whole_nodes(
    nodes: &Nodes,
    need: u32,
    ty: Option<u16>,
    accept: &dyn Fn(u32) -> bool,
    mut rng: Option<&mut Rng>,
) -> Option<Vec<u32>> {
    let mut taken: Vec<u32> = Vec::new();
    let mut left = need as u64;
    while left > 0 {
        let ok = |n: u32| accept(n) && !taken.contains(&n);
        let groups: Vec<&Group> = nodes.matching(ty).map(|(_, g)| g).filter(|g| has_free_node(g, &ok)).collect();
        let covering = groups.iter().filter(|g| g.gpus as u64 >= left).min_by_key(|g| g.gpus);
        let grp = covering.or_else(|| groups.iter().max_by_key(|g| g.gpus))?;
        let node = pick_free_node(grp, &ok, rng.as_deref_mut())?;
        left = left.saturating_sub(grp.gpus as u64);
        taken.push(node);
    }
    Some(taken)
}

fn has_free_node(g: &Group, ok: &dyn Fn(u32) -> bool) -> bool {
    g.levels[g.gpus as usize].ordered.iter().any(|&n| ok(n))
}

fn pick_free_node(g: &Group, ok: &dyn Fn(u32) -> bool, rng: Option<&mut Rng>) -> Option<u32> {
    let level = &g.levels[g.gpus as usize];
    match rng {
        Some(rng) if !level.dense.is_empty() => {
            let start = rng.below(level.dense.len() as u64) as usize;
            let len = level.dense.len();
            (0..len).map(|i| level.dense[(start + i) % len]).find(|&n| ok(n))
        }
        _ => level.ordered.iter().find(|&&n| ok(n)).copied(),
    }
}

type Ranked = (Key, Millis, JobId);

impl Engine<'_> {
    /// The earlier preemptive pass: settle and re-key every running job,
    /// sort them, and walk them merged with every waiting job.
    pub(crate) fn reference_preemptive_pass(&mut self) {
        let running = self.reference_ranked_running();
        let (to_start, to_stop) = self.reference_select(&running);
        for job in to_stop {
            self.preempt(job);
        }
        for job in to_start {
            if self.st.phase[job as usize] == Phase::Waiting {
                self.try_start(job, &|_| true);
            }
        }
        let next = self
            .running
            .iter()
            .filter_map(|&j| {
                self.policy.running_change(&self.w.jobs[j as usize], &self.st.progress[j as usize], self.now)
            })
            .min();
        if let Some(at) = next {
            self.request_pass(at.max(self.now + 1));
        }
    }

    fn reference_ranked_running(&mut self) -> Vec<Ranked> {
        let jobs: Vec<JobId> = self.running.clone();
        let mut out: Vec<Ranked> = Vec::new();
        for j in jobs {
            self.settle(j);
            let key = self.policy.running_key(&self.w.jobs[j as usize], &self.st.progress[j as usize], self.now);
            out.push((key, self.w.jobs[j as usize].submit, j));
        }
        out.sort_unstable();
        out
    }

    fn reference_select(&self, running: &[Ranked]) -> (Vec<JobId>, Vec<JobId>) {
        let mut waiting: Vec<Ranked> = self.queue.entries().collect();
        waiting.sort_unstable();
        let mut quota = self.nodes.total_milli;
        let min_waiting = waiting.iter().map(|w| self.demand_milli(w.2)).min().unwrap_or(u64::MAX);
        let (mut start, mut stop) = (Vec::new(), Vec::new());
        let (mut wi, mut ri) = (0, 0);
        let mut closed = false;
        loop {
            closed |= quota < min_waiting;
            let next_waiting = if closed { None } else { waiting.get(wi) };
            let take_waiting = match (next_waiting, running.get(ri)) {
                (Some(w), Some(r)) => w < r,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_waiting {
                let job = waiting[wi].2;
                wi += 1;
                let d = self.demand_milli(job);
                if d <= quota {
                    quota -= d;
                    start.push(job);
                } else if self.cfg.discipline == Discipline::Strict {
                    closed = true;
                }
            } else {
                let job = running[ri].2;
                ri += 1;
                let d = self.held(job);
                if d <= quota {
                    quota -= d;
                } else {
                    stop.push(job);
                }
            }
        }
        (start, stop)
    }

    fn demand_milli(&self, job: JobId) -> u64 {
        self.w.jobs[job as usize].demand().expect("admitted").milli()
    }
}
