//! Per-job replay state as parallel vectors (a million jobs stay compact and
//! cache-friendly) and the event heap.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::job::JobId;
use crate::placement::Spot;
use crate::policy::{Key, Progress};
use crate::time::Millis;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    NotArrived,
    Waiting,
    Running,
    Done,
    Unplaceable,
}

pub(crate) struct JobState {
    pub(crate) phase: Vec<Phase>,
    pub(crate) progress: Vec<Progress>,
    pub(crate) first_start: Vec<Option<Millis>>,
    pub(crate) last_start: Vec<Millis>,
    pub(crate) end: Vec<Option<Millis>>,
    /// Total time spent waiting before the current wait began.
    pub(crate) waited: Vec<Millis>,
    pub(crate) last_update: Vec<Millis>,
    /// The job's current slowdown (1 = as if alone): wall time per unit of
    /// its work while it shares a GPU.
    pub(crate) slow: Vec<f64>,
    /// Bumped whenever scheduled events of the job go stale.
    pub(crate) version: Vec<u32>,
    pub(crate) end_at: Vec<Millis>,
    pub(crate) spot: Vec<Option<Spot>>,
    pub(crate) first_node: Vec<Option<u32>>,
    pub(crate) node_count: Vec<u32>,
    pub(crate) key: Vec<Key>,
    pub(crate) class: Vec<u32>,
    pub(crate) entity: Vec<u32>,
}

impl JobState {
    pub(crate) fn new(n: usize) -> JobState {
        JobState {
            phase: vec![Phase::NotArrived; n],
            progress: vec![Progress::default(); n],
            first_start: vec![None; n],
            last_start: vec![0; n],
            end: vec![None; n],
            waited: vec![0; n],
            last_update: vec![0; n],
            slow: vec![1.0; n],
            version: vec![0; n],
            end_at: vec![0; n],
            spot: vec![None; n],
            first_node: vec![None; n],
            node_count: vec![0; n],
            key: vec![Key::default(); n],
            class: vec![0; n],
            entity: vec![0; n],
        }
    }
}

/// What an event does. The order is the processing order at equal times:
/// completions free resources before the pass that may reuse them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    End = 0,
    Rekey = 1,
    Pass = 2,
}

/// Time-ordered events; at equal times by kind, then job id.
#[derive(Default)]
pub(crate) struct Events {
    heap: BinaryHeap<Reverse<(Millis, Kind, JobId, u32)>>,
}

impl Events {
    pub(crate) fn push(&mut self, t: Millis, kind: Kind, job: JobId, version: u32) {
        self.heap.push(Reverse((t, kind, job, version)));
    }

    pub(crate) fn peek_time(&self) -> Option<Millis> {
        self.heap.peek().map(|r| r.0 .0)
    }

    /// Pops the next event at time `t` of a kind up to `max`.
    pub(crate) fn pop_at(&mut self, t: Millis, max: Kind) -> Option<(Kind, JobId, u32)> {
        let &Reverse((et, kind, job, v)) = self.heap.peek()?;
        (et == t && kind <= max).then(|| {
            self.heap.pop();
            (kind, job, v)
        })
    }
}
