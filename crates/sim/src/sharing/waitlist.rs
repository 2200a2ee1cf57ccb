//! What the simple sharing policies share: a wait list in submission order
//! with online services apart (placed first), the jobs that arrived since
//! the last round, and the round that walks it (bounded by `lookahead`
//! failures) and places online services, evicting offline work from a GPU
//! that hosts no online job when no GPU is free.

use std::collections::BTreeSet;
use std::ops::Bound::{Excluded, Unbounded};

use super::model::ShareMode;
use super::policy::{GpuView, Round, SharingPolicy};
use crate::job::{Job, JobId};
use crate::time::Millis;
use crate::usage::{JobClass, Usage};

#[derive(Default)]
pub(crate) struct WaitList {
    pub(crate) online: BTreeSet<(Millis, JobId)>,
    pub(crate) offline: BTreeSet<(Millis, JobId)>,
    /// Offline jobs that arrived since the last round.
    pub(crate) fresh: Vec<(Millis, JobId)>,
}

impl WaitList {
    pub(crate) fn arrive(&mut self, job: &Job, usage: &Usage) {
        let e = (job.submit, job.id);
        match usage.class {
            JobClass::Online => {
                self.online.insert(e);
            }
            JobClass::Offline => {
                self.offline.insert(e);
                self.fresh.push(e);
            }
        }
    }

    /// Places waiting online services in submission order: alone on a free
    /// GPU, else, for a service of at most one GPU, on a GPU whose offline
    /// tenants it evicts.
    pub(crate) fn place_online(&mut self, r: &mut Round, planned: impl Fn(&Round, JobId) -> f64) {
        let waiting: Vec<(Millis, JobId)> = self.online.iter().copied().collect();
        for e in waiting {
            let job = e.1;
            let p = planned(r, job);
            if r.start_alone(job, p).is_ok()
                || (r.single_gpu(job) && make_room(r, job) && r.start_alone(job, p).is_ok())
            {
                self.online.remove(&e);
            }
        }
    }

    /// Walks the offline jobs in order (only those that arrived since the
    /// last round when no capacity was freed), starting each `try_start`
    /// accepts, until `lookahead` jobs failed.
    /// `shape` says what a job asks, for the round's [`Frontier`].
    pub(crate) fn walk(
        &mut self,
        r: &mut Round,
        shape: impl Fn(&Round, JobId) -> Shape,
        mut try_start: impl FnMut(&mut Round, JobId) -> bool,
    ) {
        let fresh = std::mem::take(&mut self.fresh);
        let lookahead = r.config().lookahead as usize;
        let mut failures = 0;
        let mut frontier = Frontier::default();
        let mut attempt = |r: &mut Round, job: JobId| {
            let s = shape(r, job);
            if frontier.blocked(&s) {
                return false;
            }
            let ok = try_start(r, job);
            if !ok {
                frontier.failed(s);
            }
            ok
        };
        if !r.capacity_grew() {
            for e in fresh {
                if self.offline.contains(&e) && attempt(r, e.1) {
                    self.offline.remove(&e);
                }
            }
            return;
        }
        let mut cursor = None;
        while failures < lookahead {
            let next = match cursor {
                None => self.offline.first().copied(),
                Some(c) => self.offline.range((Excluded(c), Unbounded)).next().copied(),
            };
            let Some(e) = next else { break };
            cursor = Some(e);
            if attempt(r, e.1) {
                self.offline.remove(&e);
            } else {
                failures += 1;
            }
        }
    }
}

/// Evicts the offline tenants of the first GPU (by id) with no online job
/// that `job` could use; whether one was found.
fn make_room(r: &mut Round, job: JobId) -> bool {
    let ty = r.job(job).gpu_type;
    let Some(gpu) = r.offline_only().find(|&g| ty.is_none_or(|t| t == r.gpu(g).gpu_type)) else { return false };
    let tenants: Vec<JobId> = r.tenants(gpu).to_vec();
    for t in tenants {
        r.evict(t).expect("a tenant runs");
    }
    true
}

/// A waiting job of at most one GPU beside the first candidate GPU (in the
/// policy's key order) that takes it and that `accept` approves, trying at
/// most `probes` candidates; whether it started.
pub(crate) fn start_on_candidate(
    r: &mut Round,
    job: JobId,
    planned: f64,
    probes: usize,
    accept: impl Fn(&Round, u32) -> bool,
) -> bool {
    if !r.single_gpu(job) {
        return false;
    }
    let found = r.candidates().take(probes).find(|&g| r.refusal(job, g).is_none() && accept(r, g));
    found.is_some_and(|g| r.start_beside(job, g, planned).is_ok())
}

/// Candidates a round probes for one job (memory and GPU type can refuse
/// the first few).
pub(crate) const PROBES: usize = 8;

/// What a job asks of a round, for [`Frontier`]: its GPU type pin, GPUs
/// (milli), planned utilization and GPU memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Shape {
    pub(crate) ty: Option<u16>,
    pub(crate) milli: u32,
    pub(crate) util: f64,
    pub(crate) mem: f64,
}

impl Shape {
    /// The shape of `job` planned at `util` %, with its memory as the
    /// engine checks it.
    pub(crate) fn of(r: &Round, job: JobId, util: f64) -> Shape {
        let j = r.job(job);
        Shape { ty: j.gpu_type, milli: j.gpu_milli, util, mem: r.mem_gib(job) }
    }

    /// Whether this shape asks at least as much as `other` in every respect.
    fn covers(&self, other: &Shape) -> bool {
        self.ty == other.ty && self.milli >= other.milli && self.util >= other.util && self.mem >= other.mem
    }
}

/// The jobs that failed to start in this round: within a round capacity
/// only shrinks and every placement test is monotone in what a job asks
/// (free GPUs, tenants' memory, planned utilization under a threshold), so
/// a job that asks at least as much as one that failed fails too and is
/// not tried (a round stays cheap when nothing fits).
#[derive(Default)]
pub(crate) struct Frontier(Vec<Shape>);

impl Frontier {
    pub(crate) fn blocked(&self, s: &Shape) -> bool {
        self.0.iter().any(|f| s.covers(f))
    }

    pub(crate) fn failed(&mut self, s: Shape) {
        self.0.retain(|f| !f.covers(&s));
        self.0.push(s);
    }
}

/// A sharing policy made of a wait list alone: online services first, then
/// offline jobs in submission order, each alone on a free GPU, else (when
/// the policy co-locates) beside the first candidate GPU in the policy's
/// key order that takes it. `exclusive`, `time-sharing` and
/// `priority-time-sharing` are this with their own mode and key.
pub(crate) struct Simple {
    wait: WaitList,
    mode: ShareMode,
    key: fn(&GpuView) -> Option<i64>,
    colocate: bool,
}

impl Simple {
    pub(crate) fn new(mode: ShareMode, key: fn(&GpuView) -> Option<i64>, colocate: bool) -> Simple {
        Simple { wait: WaitList::default(), mode, key, colocate }
    }
}

impl SharingPolicy for Simple {
    fn mode(&self) -> ShareMode {
        self.mode
    }

    fn gpu_key(&self) -> fn(&GpuView) -> Option<i64> {
        self.key
    }

    fn arrive(&mut self, job: &Job, usage: &Usage, _now: Millis) {
        self.wait.arrive(job, usage);
    }

    fn finish(&mut self, _job: &Job, _usage: &Usage, _now: Millis) {}

    fn round(&mut self, r: &mut Round) {
        // These policies plan with the utilization the engine runs a job at.
        let stated = |r: &Round, j| r.util_now(j) * 100.0;
        self.wait.place_online(r, stated);
        let colocate = self.colocate;
        self.wait.walk(
            r,
            |r, j| Shape::of(r, j, 0.0),
            |r, j| {
                let p = stated(r, j);
                r.start_alone(j, p).is_ok() || (colocate && start_on_candidate(r, j, p, PROBES, |_, _| true))
            },
        );
    }
}
