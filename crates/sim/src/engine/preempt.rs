//! The scheduling pass of preemptive policies (`srtf`, `las`), as in Helios'
//! `srtf` and Tiresias' simulator: rank waiting and running jobs together by
//! the policy's key, walk the ranking while counting GPUs against the
//! cluster's capacity, suspend running jobs that fall outside it, then place
//! the waiting jobs that made it in (in rank order; one that cannot be
//! placed, e.g. for fragmentation, keeps waiting, as upstream).
//!
//! Under `greedy` a job larger than the GPUs left is skipped and the walk
//! goes on; under `strict` no waiting job after it is selected.
//!
//! The walk does not visit every job: running jobs are kept in rank order
//! with their held GPUs summed by block ([`super::ranking`]), so a stretch of
//! running jobs that all fit is crossed in one step, and the next waiting job
//! that could fit is looked up per demand class. A pass costs
//! O((started + suspended + classes) x (classes + log n + block)) instead of
//! O((running + waiting) x log n).

use super::ranking::Ranked;
use super::state::Phase;
use super::sumlist::Walk;
use super::Engine;
use crate::config::Discipline;
use crate::job::JobId;
use crate::policy::Key;

impl Engine<'_> {
    pub(crate) fn preemptive_pass(&mut self) {
        #[cfg(test)]
        if super::reference::on() {
            return self.reference_preemptive_pass();
        }
        self.refresh_ranks();
        let (to_start, to_stop) = self.select();
        for job in to_stop {
            self.preempt(job);
        }
        for job in to_start {
            if self.st.phase[job as usize] == Phase::Waiting {
                self.try_start(job, &|_| true);
            }
        }
        // A running job's key that changes by itself (LAS demotion) holds a pass.
        if let Some(at) = self.next_key_change() {
            self.request_pass(at.max(self.now + 1));
        }
    }

    /// Walks waiting and running jobs merged in rank order against capacity:
    /// (waiting jobs selected to start, running jobs to suspend), each in
    /// rank order.
    fn select(&self) -> (Vec<JobId>, Vec<JobId>) {
        let shift = self.rank_shift();
        // A waiting entry's place among running bases, and back.
        let as_running = |(k, s, j): (Key, i64, JobId)| -> Ranked { (Key(k.0 + shift, k.1), s, j) };
        let as_waiting = |(k, s, j): Ranked| (Key(k.0 - shift, k.1), s, j);
        let strict = self.cfg.discipline == Discipline::Strict;
        let mut quota = self.nodes.total_milli;
        let mut at: Option<Ranked> = None;
        let (mut start, mut stop) = (Vec::new(), Vec::new());
        let mut closed = false;
        loop {
            // Strict looks at the next waiting job whatever its size; greedy
            // only at those that fit what is left (the quota never grows).
            let limit = if strict { u64::MAX } else { quota };
            let next = if closed { None } else { self.queue.next_after(at.map(as_waiting).as_ref(), limit) };
            let upto = next.map(|(e, _)| as_running(e));
            quota -= self.suspend_between(at, upto, quota, &mut stop);
            let Some((entry, d)) = next else { break };
            if d <= quota {
                quota -= d;
                start.push(entry.2);
            } else if strict {
                closed = true;
            }
            at = upto;
        }
        (start, stop)
    }

    /// Running jobs ranked strictly between `after` and `before` keep their
    /// GPUs while the quota holds them; those it cannot hold are added to
    /// `stop`. Returns the milli-GPUs kept.
    fn suspend_between(
        &self,
        mut after: Option<Ranked>,
        before: Option<Ranked>,
        quota: u64,
        stop: &mut Vec<JobId>,
    ) -> u64 {
        let mut kept = 0;
        loop {
            match self.ranking.list.first_over(after.as_ref(), before.as_ref(), quota - kept) {
                Walk::Over { key, used } => {
                    kept += used;
                    stop.push(key.2);
                    after = Some(key);
                }
                Walk::Within { used } => return kept + used,
            }
        }
    }
}
