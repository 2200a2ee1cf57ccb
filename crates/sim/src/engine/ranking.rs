//! Running jobs in rank order for the preemptive pass, kept up to date as
//! jobs start, stop and change key, instead of re-keying and sorting every
//! running job at every pass (which made `srtf` and `las` quadratic: 40 k
//! jobs on 1,000 nodes took 66 s).
//!
//! Each running job sits in a [`SumList`] under a *base* key that does not
//! change while it runs, weighted by the milli-GPUs it holds:
//! - `Drift::Fixed` (`las`): the base is the key itself; the policy says when
//!   it will change (`running_change`), those times are kept in order, and at
//!   the pass at that time the job is settled and re-keyed;
//! - `Drift::Service` (`srtf`): keys fall by one per millisecond run, the
//!   same for all, so the base is the key plus the time it was taken, and a
//!   waiting job's key `k` ranks against running jobs as `k + now`. This
//!   needs every running job to progress at full rate, so with a sharing
//!   slowdown above 1 the engine ranks as for `Drift::Unknown`;
//! - `Drift::Unknown` (and `srtf` with a sharing slowdown): every running job
//!   is settled and re-keyed at every pass and the list rebuilt, as before.
//!
//! With a sharing slowdown above 1 every running job is also settled at every
//! pass, as the engine always did, so that the rounding of slowed progress
//! (and hence every completion time) stays exactly what it was.

use std::collections::BTreeSet;

use super::sumlist::SumList;
use super::Engine;
use crate::config::SimConfig;
use crate::job::JobId;
use crate::policy::{Drift, Key, PolicyImpl};
use crate::time::Millis;

/// A running job's place in the rank order: base key, submission, id.
pub(crate) type Ranked = (Key, Millis, JobId);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Not a preemptive policy: nothing is ranked.
    Off,
    /// Keys fixed between the policy's announced changes.
    Fixed,
    /// Keys fall with service; bases are keys plus the time taken.
    Service,
    /// Every running job re-keyed at every pass.
    Full,
}

pub(crate) struct Ranking {
    pub(crate) mode: Mode,
    /// Settle every running job at every pass (sharing slowdown above 1).
    settle_all: bool,
    pub(crate) list: SumList<Ranked>,
    /// Each running job's base key (incremental modes).
    base: Vec<Key>,
    /// Each running job's next key change, if any.
    change_at: Vec<Option<Millis>>,
    /// Key changes of running jobs, in time order.
    changes: BTreeSet<(Millis, JobId)>,
}

impl Ranking {
    pub(crate) fn new(policy: &dyn PolicyImpl, cfg: &SimConfig, n_jobs: usize) -> Ranking {
        let slowed = cfg.share_slowdown > 1.0;
        let mode = match (policy.preemptive(), policy.drift(), slowed) {
            (false, _, _) => Mode::Off,
            (true, Drift::Fixed, _) => Mode::Fixed,
            (true, Drift::Service, false) => Mode::Service,
            _ => Mode::Full,
        };
        let incremental = matches!(mode, Mode::Fixed | Mode::Service);
        let per_job = if incremental { n_jobs } else { 0 };
        Ranking {
            mode,
            settle_all: slowed || mode == Mode::Full,
            list: SumList::default(),
            base: vec![Key::default(); per_job],
            change_at: vec![None; per_job],
            changes: BTreeSet::new(),
        }
    }

    fn incremental(&self) -> bool {
        matches!(self.mode, Mode::Fixed | Mode::Service)
    }
}

impl Engine<'_> {
    /// What a waiting key adds to rank against running bases.
    pub(crate) fn rank_shift(&self) -> i64 {
        if self.ranking.mode == Mode::Service {
            self.now
        } else {
            0
        }
    }

    /// The key of running `job` now (its progress settled).
    fn key_now(&self, job: JobId) -> Key {
        let i = job as usize;
        self.policy.running_key(&self.w.jobs[i], &self.st.progress[i], self.now)
    }

    /// Puts a job that just started into the rank order.
    pub(crate) fn rank_insert(&mut self, job: JobId) {
        if !self.ranking.incremental() {
            return;
        }
        let k = self.key_now(job);
        let base = Key(k.0 + self.rank_shift(), k.1);
        self.ranking.base[job as usize] = base;
        let held = self.held(job);
        self.ranking.list.insert((base, self.w.jobs[job as usize].submit, job), held);
        let i = job as usize;
        if let Some(at) = self.policy.running_change(&self.w.jobs[i], &self.st.progress[i], self.now) {
            self.ranking.change_at[i] = Some(at);
            self.ranking.changes.insert((at, job));
        }
    }

    /// Takes a job that stops running out of the rank order.
    pub(crate) fn rank_remove(&mut self, job: JobId) {
        if !self.ranking.incremental() {
            return;
        }
        let i = job as usize;
        self.ranking.list.remove(&(self.ranking.base[i], self.w.jobs[i].submit, job));
        if let Some(at) = self.ranking.change_at[i].take() {
            self.ranking.changes.remove(&(at, job));
        }
    }

    /// Brings the rank order up to `now`, before a preemptive pass.
    pub(crate) fn refresh_ranks(&mut self) {
        if self.ranking.settle_all {
            for k in 0..self.running.len() {
                self.settle(self.running[k]);
            }
        }
        if self.ranking.mode == Mode::Full {
            let mut all: Vec<(Ranked, u64)> = self
                .running
                .iter()
                .map(|&j| ((self.key_now(j), self.w.jobs[j as usize].submit, j), self.held(j)))
                .collect();
            all.sort_unstable();
            self.ranking.list.rebuild(all);
            return;
        }
        while let Some(&(at, job)) = self.ranking.changes.first() {
            if at > self.now {
                break;
            }
            self.settle(job);
            self.rank_remove(job);
            self.rank_insert(job);
        }
    }

    /// When the next running job's key changes by itself.
    pub(crate) fn next_key_change(&self) -> Option<Millis> {
        if self.ranking.incremental() {
            return self.ranking.changes.first().map(|&(at, _)| at);
        }
        let change =
            |&j: &JobId| self.policy.running_change(&self.w.jobs[j as usize], &self.st.progress[j as usize], self.now);
        self.running.iter().filter_map(change).min()
    }
}
