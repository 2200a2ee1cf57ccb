//! EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001) on top of the
//! strict discipline. When the head job cannot start, it gets a reservation:
//! the earliest time at which, if running jobs end when their trace
//! durations say (oracle estimates; sharing slowdown ignored), it would fit,
//! and the nodes it would use then. Later jobs, in policy order, may start now
//! if they fit and either end by that time or stay off the reserved nodes, so
//! they never delay the head.
//!
//! A fractional head is reserved as if it needed one whole GPU, and a job
//! larger than a node reserves every node that is entirely free at its
//! reservation time; both are conservative.

use std::collections::HashMap;

use super::pass::class_fits;
use super::queue::Found;
use super::Engine;
use crate::engine::nodes::SharedSpot;
use crate::job::{Demand, JobId};
use crate::placement::{largest_node, Spot};
use crate::time::Millis;

/// Capacity freed on one node: whole GPUs, or milli on a shared GPU.
enum Freed {
    Gpus(u32),
    Shared(u32, u32),
}

impl Engine<'_> {
    pub(crate) fn backfill(&mut self, head: Found, pulled: &mut Vec<Found>) {
        self.pull(head, pulled);
        if self.queue.best(|c| class_fits(&self.nodes, self.queue.class(c))).is_none() {
            return;
        }
        let (shadow, reserved) = self.cached_reservation(head.entry.2);
        let not_reserved = |n: u32| reserved.binary_search(&n).is_err();
        while let Some(f) = self.queue.best(|c| class_fits(&self.nodes, self.queue.class(c))) {
            let job = f.entry.2;
            let ends_in_time = self.now + self.w.jobs[job as usize].duration <= shadow;
            let started =
                if ends_in_time { self.try_start(job, &|_| true) } else { self.try_start(job, &not_reserved) };
            if !started {
                self.pull(f, pulled);
            }
        }
    }

    /// The head's reservation, recomputed only when the head changed or its
    /// time has passed. It cannot move later otherwise: running jobs end on
    /// schedule and backfilled ones end before it or keep off its nodes (only
    /// a sharing slowdown can delay ends, and then the time passes unmet).
    fn cached_reservation(&mut self, head: JobId) -> (Millis, Vec<u32>) {
        match &self.reservation_cache {
            Some((job, shadow, nodes)) if *job == head && *shadow > self.now => (*shadow, nodes.clone()),
            _ => {
                let (shadow, nodes) = self.reservation(head);
                self.reservation_cache = Some((head, shadow, nodes.clone()));
                (shadow, nodes)
            }
        }
    }

    /// What running `job` frees when it ends: (node, capacity) pairs.
    fn freed_by(&self, job: JobId) -> Vec<(u32, Freed)> {
        match self.st.spot[job as usize].as_ref().expect("running jobs have spots") {
            Spot::Node { node, gpus } => vec![(*node, Freed::Gpus(*gpus))],
            Spot::Nodes(list) => list.iter().map(|&n| (n, Freed::Gpus(self.nodes.gpus_of(n)))).collect(),
            Spot::Shared(SharedSpot::Gpu(g)) => {
                let milli = self.w.jobs[job as usize].demand().map_or(0, |d| d.milli() as u32);
                vec![(self.nodes.gpu_node[*g as usize], Freed::Shared(*g, milli))]
            }
            Spot::Shared(SharedSpot::EmptyOn(_)) => unreachable!("allocation resolves the GPU"),
        }
    }

    /// When `head` could start if running jobs end on time, and the nodes it
    /// would take then (sorted). Walks completions in time order and stops at
    /// the first that makes room. Never: `Millis::MAX` and no reservation.
    fn reservation(&self, head: JobId) -> (Millis, Vec<u32>) {
        let job = &self.w.jobs[head as usize];
        let need = match job.demand().expect("admitted jobs ask for GPUs") {
            Demand::Shared(_) => 1,
            Demand::Whole(g) => g,
        };
        let multi = need > largest_node(&self.nodes, job.gpu_type);
        let fits_type = |n: u32| job.gpu_type.is_none_or(|t| t == self.nodes.type_of(n));
        let mut free: HashMap<u32, u32> = HashMap::new();
        let mut shared_used: HashMap<u32, u32> = HashMap::new();
        let mut whole_gpus = self.nodes.whole_free_gpus(job.gpu_type);
        let mut became_whole: Vec<u32> = Vec::new();
        for &(t, ended) in &self.ends {
            for (node, freed) in self.freed_by(ended) {
                let f = free.entry(node).or_insert(self.nodes.free[node as usize]);
                match freed {
                    Freed::Gpus(g) => *f += g,
                    Freed::Shared(gpu, m) => {
                        let used = shared_used.entry(gpu).or_insert(self.nodes.gpu_used[gpu as usize]);
                        *used -= m;
                        *f += (*used == 0) as u32;
                    }
                }
                if !fits_type(node) {
                    continue;
                }
                if !multi && *f >= need {
                    return (t, vec![node]);
                }
                if multi && *f == self.nodes.gpus_of(node) {
                    whole_gpus += self.nodes.gpus_of(node) as u64;
                    became_whole.push(node);
                }
            }
            if multi && whole_gpus >= need as u64 {
                return (t, self.whole_free_nodes(job.gpu_type, became_whole));
            }
        }
        (Millis::MAX, Vec::new())
    }

    /// Nodes entirely free now plus `more`, sorted.
    fn whole_free_nodes(&self, ty: Option<u16>, mut more: Vec<u32>) -> Vec<u32> {
        for (_, g) in self.nodes.matching(ty) {
            more.extend(g.levels[g.gpus as usize].ordered.iter().copied());
        }
        more.sort_unstable();
        more
    }
}
