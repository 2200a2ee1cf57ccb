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

/// Capacity freed at one time on one node: whole GPUs, or milli on a shared GPU.
enum Freed {
    Gpus(u32),
    Shared(u32, u32),
}

impl Engine<'_> {
    pub(crate) fn backfill(&mut self, head: Found, pulled: &mut Vec<Found>) {
        let (shadow, reserved) = self.reservation(head.entry.2);
        self.pull(head, pulled);
        let not_reserved = |n: u32| reserved.binary_search(&n).is_err();
        while let Some(f) = self.queue.best(|c| class_fits(&self.nodes, self.queue.class(c))) {
            let job = f.entry.2;
            let ends_in_time = self.now + self.w.jobs[job as usize].duration <= shadow;
            let started = if ends_in_time { self.try_start(job, &|_| true) } else { self.try_start(job, &not_reserved) };
            if !started {
                self.pull(f, pulled);
            }
        }
    }

    /// Releases of running jobs, by time.
    fn releases(&self) -> Vec<(Millis, u32, Freed)> {
        let mut out: Vec<(Millis, u32, Freed)> = Vec::new();
        for &job in &self.running {
            let end = self.st.end_at[job as usize];
            match self.st.spot[job as usize].as_ref().expect("running jobs have spots") {
                Spot::Node { node, gpus } => out.push((end, *node, Freed::Gpus(*gpus))),
                Spot::Nodes(list) => out.extend(list.iter().map(|&n| (end, n, Freed::Gpus(self.nodes.gpus_of(n))))),
                Spot::Shared(SharedSpot::Gpu(g)) => {
                    let milli = self.w.jobs[job as usize].demand().map_or(0, |d| d.milli() as u32);
                    out.push((end, self.nodes.gpu_node[*g as usize], Freed::Shared(*g, milli)));
                }
                Spot::Shared(SharedSpot::EmptyOn(_)) => unreachable!("allocation resolves the GPU"),
            }
        }
        out.sort_by_key(|r| (r.0, r.1));
        out
    }

    /// When `head` could start if running jobs end on time, and the nodes it
    /// would take then (sorted). Never: `Millis::MAX` and no reservation.
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
        for (t, node, freed) in self.releases() {
            let f = free.entry(node).or_insert(self.nodes.free[node as usize]);
            match freed {
                Freed::Gpus(g) => *f += g,
                Freed::Shared(gpu, m) => {
                    let used = shared_used.entry(gpu).or_insert(self.nodes.gpu_used[gpu as usize]);
                    *used -= m;
                    if *used == 0 {
                        *f += 1;
                    }
                }
            }
            if !fits_type(node) {
                continue;
            }
            if !multi && *f >= need {
                return (t, vec![node]);
            }
            if multi {
                if let Some(nodes) = self.whole_free_at(&free, need, &fits_type) {
                    return (t, nodes);
                }
            }
        }
        (Millis::MAX, Vec::new())
    }

    /// Nodes entirely free given the projected `free` counts, if their GPUs reach `need`.
    fn whole_free_at(&self, free: &HashMap<u32, u32>, need: u32, fits_type: &dyn Fn(u32) -> bool) -> Option<Vec<u32>> {
        let full = |n: u32| free.get(&n).copied().unwrap_or(self.nodes.free[n as usize]) == self.nodes.gpus_of(n);
        let mut nodes: Vec<u32> = (0..self.nodes.len() as u32).filter(|&n| fits_type(n) && full(n)).collect();
        let total: u64 = nodes.iter().map(|&n| self.nodes.gpus_of(n) as u64).sum();
        nodes.sort_unstable();
        (total >= need as u64).then_some(nodes)
    }
}
