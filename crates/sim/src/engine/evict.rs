//! The pass of policies that evict (`priority`): start what fits, then let
//! the best-ranked waiting job of each demand class take the node (or the
//! whole nodes) where evicting running jobs of a lower priority class frees
//! enough GPUs, evicting as few GPUs as possible, and start it there. As the
//! owners' simulator of the spot-GPU trace (Sjtucitlab/Spot
//! `select_with_preemption`: an HP job goes on a node whose non-HP GPUs
//! suffice and evicts the Spot jobs on them), and unlike the rank-against-
//! capacity pass of `srtf` and `las` ([`super::preempt`]), a job is evicted
//! only when the job it makes room for starts at once on the GPUs it frees.
//!
//! Rules: the node evicting the fewest GPUs wins, then the one with the
//! fewest GPUs to spare (best fit), then the lowest id; on it the jobs that
//! started last go first (the least work to redo). A job larger than any
//! node takes whole nodes holding no job of its class or above, those with
//! the fewest GPUs to evict first. Jobs on shared GPUs are not evicted, and
//! a job asking for a fraction of a GPU does not evict. CPUs are not
//! weighed when choosing. Evicted jobs wait again in their class with their
//! remaining service plus the preemption overhead (`preempt`).

use std::collections::{BTreeMap, BTreeSet};

use super::Engine;
use crate::config::Discipline;
use crate::engine::nodes::SharedSpot;
use crate::job::{Demand, JobId};
use crate::placement::{largest_node, Spot};

/// Per node: the lower-class jobs on it and the GPUs each holds there.
type Holders = BTreeMap<u32, Vec<(JobId, u32)>>;

impl Engine<'_> {
    pub(crate) fn eviction_pass(&mut self) {
        loop {
            self.ordered_pass();
            let mut tried = BTreeSet::new();
            let mut evicted = false;
            while let Some(found) = self.queue.best(|c| !tried.contains(&c)) {
                tried.insert(found.class);
                if self.evict_for(found.entry.2) {
                    evicted = true;
                    break;
                }
                if self.cfg.discipline == Discipline::Strict {
                    break;
                }
            }
            // Evicted jobs may fit elsewhere, and a start may unblock a strict queue.
            if !evicted {
                return;
            }
        }
    }

    /// Running jobs of a class below `priority`, by node, and the nodes a
    /// job of `priority` or above (or a shared GPU) holds.
    fn holders_below(&self, priority: u8) -> (Holders, BTreeSet<u32>) {
        let (mut holders, mut blocked) = (Holders::new(), BTreeSet::new());
        for &r in &self.running {
            let lower = self.w.jobs[r as usize].priority < priority;
            let spots: Vec<(u32, u32)> = match self.st.spot[r as usize].as_ref().expect("running") {
                Spot::Node { node, gpus } => vec![(*node, *gpus)],
                Spot::Nodes(list) => list.iter().map(|&n| (n, self.nodes.gpus_of(n))).collect(),
                Spot::Shared(SharedSpot::Gpu(g)) => vec![(self.nodes.gpu_node[*g as usize], 0)],
                Spot::Shared(SharedSpot::EmptyOn(n)) => vec![(*n, 0)],
            };
            for (node, gpus) in spots {
                if lower && gpus > 0 {
                    holders.entry(node).or_default().push((r, gpus));
                } else {
                    blocked.insert(node);
                }
            }
        }
        (holders, blocked)
    }

    /// Evicts lower-class jobs to start `job`, if that makes room; whether it started.
    fn evict_for(&mut self, job: JobId) -> bool {
        let j = &self.w.jobs[job as usize];
        let (priority, ty) = (j.priority, j.gpu_type);
        let Some(Demand::Whole(g)) = j.demand() else { return false };
        let (holders, blocked) = self.holders_below(priority);
        if holders.is_empty() {
            return false;
        }
        let choice = if g <= largest_node(&self.nodes, ty) {
            self.one_node(&holders, g, ty)
        } else {
            self.whole_nodes(&holders, &blocked, g, ty)
        };
        let Some((nodes, victims)) = choice else { return false };
        for v in victims {
            self.preempt(v);
        }
        let started = self.try_start(job, &|n| nodes.contains(&n));
        debug_assert!(started, "eviction made room for job {job}");
        started
    }

    fn type_ok(&self, node: u32, ty: Option<u16>) -> bool {
        ty.is_none_or(|t| t == self.nodes.type_of(node))
    }

    /// The node where evicting frees `g` GPUs at the least cost, and its victims.
    fn one_node(&self, holders: &Holders, g: u32, ty: Option<u16>) -> Option<(Vec<u32>, Vec<JobId>)> {
        let mut best: Option<((u32, u32, u32), Vec<JobId>)> = None;
        for (&node, jobs) in holders {
            let free = self.nodes.free[node as usize];
            let spare: u32 = jobs.iter().map(|j| j.1).sum();
            if !self.type_ok(node, ty) || free + spare < g || free >= g {
                continue;
            }
            let mut order = jobs.clone();
            order.sort_by_key(|&(v, _)| (std::cmp::Reverse(self.st.last_start[v as usize]), std::cmp::Reverse(v)));
            let (mut room, mut cost, mut victims) = (free, 0, Vec::new());
            for (v, gpus) in order {
                if room >= g {
                    break;
                }
                room += gpus;
                cost += gpus;
                victims.push(v);
            }
            let rank = (cost, free + spare - g, node);
            if best.as_ref().is_none_or(|(r, _)| rank < *r) {
                best = Some((rank, victims));
            }
        }
        best.map(|((_, _, node), victims)| (vec![node], victims))
    }

    /// Whole nodes (free, or held only by lower classes) adding up to `g`
    /// GPUs, the cheapest to evict first, and their victims.
    fn whole_nodes(
        &self,
        holders: &Holders,
        blocked: &BTreeSet<u32>,
        g: u32,
        ty: Option<u16>,
    ) -> Option<(Vec<u32>, Vec<JobId>)> {
        let mut candidates: Vec<(u32, u32)> = (0..self.nodes.free.len() as u32)
            .filter(|&n| self.type_ok(n, ty) && !blocked.contains(&n))
            .filter(|&n| holders.contains_key(&n) || self.nodes.free[n as usize] == self.nodes.gpus_of(n))
            .map(|n| (holders.get(&n).map_or(0, |h| h.iter().map(|j| j.1).sum()), n))
            .collect();
        candidates.sort_unstable();
        let (mut gpus, mut nodes, mut victims) = (0u64, Vec::new(), BTreeSet::new());
        for (_, n) in candidates {
            if gpus >= g as u64 {
                break;
            }
            gpus += self.nodes.gpus_of(n) as u64;
            nodes.push(n);
            victims.extend(holders.get(&n).into_iter().flatten().map(|j| j.0));
        }
        (gpus >= g as u64 && !victims.is_empty()).then(|| (nodes, victims.into_iter().collect()))
    }
}
