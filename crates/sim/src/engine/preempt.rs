//! The scheduling pass of preemptive policies (`srtf`, `las`), as in Helios'
//! `srtf` and Tiresias' simulator: rank waiting and running jobs together by
//! the policy's key, walk the ranking while counting GPUs against the
//! cluster's capacity, suspend running jobs that fall outside it, then place
//! the waiting jobs that made it in (in rank order; one that cannot be
//! placed, e.g. for fragmentation, keeps waiting, as upstream).
//!
//! Under `greedy` a job larger than the GPUs left is skipped and the walk
//! goes on; under `strict` no waiting job after it is selected.

use super::state::Phase;
use super::Engine;
use crate::config::Discipline;
use crate::job::JobId;
use crate::policy::Key;
use crate::time::Millis;

type Ranked = (Key, Millis, JobId);

impl Engine<'_> {
    pub(crate) fn preemptive_pass(&mut self) {
        let running = self.ranked_running();
        let (to_start, to_stop) = self.select(&running);
        for job in to_stop {
            self.preempt(job);
        }
        for job in to_start {
            if self.st.phase[job as usize] == Phase::Waiting {
                self.try_start(job, &|_| true);
            }
        }
        self.schedule_key_changes();
    }

    /// Running jobs with their current keys, in rank order.
    fn ranked_running(&mut self) -> Vec<Ranked> {
        let jobs: Vec<JobId> = self.running.clone();
        let mut out: Vec<Ranked> = jobs
            .into_iter()
            .map(|j| {
                self.settle(j);
                let key = self.policy.running_key(&self.w.jobs[j as usize], &self.st.progress[j as usize], self.now);
                (key, self.w.jobs[j as usize].submit, j)
            })
            .collect();
        out.sort_unstable();
        out
    }

    /// Walks waiting and running jobs merged in rank order against capacity.
    fn select(&self, running: &[Ranked]) -> (Vec<JobId>, Vec<JobId>) {
        let mut quota = self.nodes.total_milli;
        let min_waiting = self.queue.nonempty_classes().map(|(d, _)| d.milli()).min().unwrap_or(u64::MAX);
        let (mut start, mut stop) = (Vec::new(), Vec::new());
        let mut waiting = self.queue.all().peekable();
        let mut run = running.iter().peekable();
        let mut closed = false;
        loop {
            // Once no waiting job can be selected, only running jobs remain to rank.
            closed |= quota < min_waiting;
            let next_waiting = if closed { None } else { waiting.peek() };
            let take_waiting = match (next_waiting, run.peek()) {
                (Some(w), Some(r)) => *w < *r,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_waiting {
                let &(_, _, job) = waiting.next().expect("peeked");
                let d = self.w.jobs[job as usize].demand().expect("admitted").milli();
                if d <= quota {
                    quota -= d;
                    start.push(job);
                } else if self.cfg.discipline == Discipline::Strict {
                    closed = true;
                }
            } else {
                let &(_, _, job) = run.next().expect("peeked");
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

    /// Holds a pass when a running job's key will change by itself (LAS demotion).
    fn schedule_key_changes(&mut self) {
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
}
