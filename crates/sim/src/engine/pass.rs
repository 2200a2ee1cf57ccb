//! One scheduling pass of a non-preemptive policy under its queue discipline.
//!
//! `greedy` repeatedly takes the best-ordered job among the demand classes
//! that fit now; this is exactly the result of scanning the ordered queue and
//! starting every job that fits (the PAI simulator's allocation), because
//! within a pass resources only shrink, so a class that does not fit stays
//! unfit. `strict` stops at the first job that cannot start (Helios' `else:
//! break`); `easy` then backfills around a reservation for that job.

use super::nodes::Nodes;
use super::queue::{Class, Found};
use super::Engine;
use crate::config::Discipline;
use crate::job::Demand;
use crate::placement::largest_node;

/// Whether some job of `class` could be placed now, ignoring CPUs (a
/// necessary condition, checked in O(groups) without walking nodes).
pub(crate) fn class_fits(nodes: &Nodes, (demand, ty): Class) -> bool {
    match demand {
        Demand::Shared(m) => nodes.max_free(ty) >= 1 || nodes.min_shared_used(ty).is_some_and(|u| u + m <= 1000),
        Demand::Whole(g) if g <= largest_node(nodes, ty) => nodes.max_free(ty) >= g,
        Demand::Whole(g) => nodes.whole_free_gpus(ty) >= g as u64,
    }
}

impl Engine<'_> {
    pub(crate) fn pass(&mut self) {
        if self.cfg.sharing_policy() {
            self.share_pass();
            return;
        }
        let mut rekey = self.policy.before_pass(self.now, self.queue.len());
        rekey.sort_unstable();
        for job in rekey {
            self.rekey(job);
        }
        if self.policy.evicts() {
            self.eviction_pass();
        } else if self.policy.preemptive() {
            self.preemptive_pass();
        } else {
            self.ordered_pass();
        }
    }

    /// The best job that may start now under the discipline, if any.
    fn candidate(&self) -> Option<Found> {
        match self.cfg.discipline {
            Discipline::Greedy => self.queue.best(|c| class_fits(&self.nodes, self.queue.class(c))),
            Discipline::Strict | Discipline::Easy => self.queue.head(),
        }
    }

    pub(crate) fn ordered_pass(&mut self) {
        let mut pulled: Vec<Found> = Vec::new();
        while let Some(found) = self.candidate() {
            let job = found.entry.2;
            if self.try_start(job, &|_| true) {
                continue;
            }
            match self.cfg.discipline {
                // Fits by GPUs but not by CPUs: skipped, like any job that does not fit.
                Discipline::Greedy => self.pull(found, &mut pulled),
                Discipline::Easy => {
                    self.backfill(found, &mut pulled);
                    break;
                }
                Discipline::Strict => break,
            }
        }
        self.put_back(pulled);
    }

    /// Takes a job out of the queue for the rest of this pass.
    pub(crate) fn pull(&mut self, f: Found, pulled: &mut Vec<Found>) {
        self.queue.remove(f.entity, f.class, f.entry);
        pulled.push(f);
    }

    pub(crate) fn put_back(&mut self, pulled: Vec<Found>) {
        for f in pulled {
            self.queue.insert(f.entity, f.class, f.entry);
        }
    }
}
