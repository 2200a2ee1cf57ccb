//! The records the simulation keeps while jobs, tasks and instances are
//! alive, and their final statuses: what `emit` turns into rows.

use super::machines::{Integrals, Load};

/// Lifetime averages of what was co-located with an instance.
#[derive(Clone, Copy, Debug)]
pub struct Averages {
    pub workers: f64,
    pub cpu: f64,
    pub gpu: f64,
    pub read: f64,
}

pub(super) const UNPLACED: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Inst {
    pub machine: u32,
    pub start: i64,
    /// Planned end; the real end once `done`.
    pub end: i64,
    pub done: bool,
    /// Where the observation stopped (end, or the window end if running).
    pub seen_until: i64,
    pub snap: Integrals,
    pub load: Load,
    pub dev: u32,
    pub avg: Option<Averages>,
}

impl Inst {
    pub(super) fn unplaced() -> Inst {
        let load = Load { cpu: 0, mem: 0, gpu: 0, use_cpu: 0.0, use_gpu: 0.0, use_read: 0.0 };
        Inst {
            machine: UNPLACED,
            start: 0,
            end: 0,
            done: false,
            seen_until: 0,
            snap: Integrals::default(),
            load,
            dev: 0,
            avg: None,
        }
    }
    pub fn placed(&self) -> Option<usize> {
        (self.machine != UNPLACED).then_some(self.machine as usize)
    }
    pub fn ended(&self) -> Option<i64> {
        self.done.then_some(self.end)
    }
    pub fn elapsed(&self) -> i64 {
        self.seen_until - self.start
    }
}

pub struct JobState {
    /// Index in the submission order (seeds its random streams).
    pub idx: u32,
    pub group: u32,
    pub name: String,
    pub inst_id: String,
    pub submit: i64,
    pub end: i64,
    pub(super) tasks_left: u32,
    pub(super) failed: bool,
    pub(super) running: bool,
    pub(super) waiting: bool,
    pub(super) started: bool,
    /// Job-level variation: runtime factor, fraction run before failing,
    /// CPU and GPU usage factors.
    pub(super) factor: f64,
    pub(super) fail_at: f64,
    pub(super) use_cpu: f64,
    pub(super) use_gpu: f64,
    /// Job-level memory usage factor (read when the rows are written).
    pub use_mem: f64,
}

impl JobState {
    pub fn unfinished(&self) -> bool {
        self.running || self.waiting
    }
    pub fn status(&self) -> &'static str {
        match (self.running, self.waiting, self.started) {
            (true, _, _) | (false, true, true) => "Running",
            (false, true, false) => "Waiting",
            _ if self.failed => "Failed",
            _ => "Terminated",
        }
    }
}

pub struct TaskState {
    pub(super) job: u32,
    pub which: u8,
    pub submit: i64,
    pub(super) pool: usize,
    pub(super) failed: bool,
    pub insts: Vec<Inst>,
    pub(super) left: u32,
}

impl TaskState {
    pub fn status(&self) -> &'static str {
        if self.insts.first().is_none_or(|i| i.placed().is_none()) {
            "Waiting"
        } else if self.insts.iter().any(|i| !i.done) {
            "Running"
        } else if self.failed {
            "Failed"
        } else {
            "Terminated"
        }
    }
    pub fn instance_status(&self, inst: &Inst) -> &'static str {
        match (inst.placed(), inst.done) {
            (None, _) => "Waiting",
            (Some(_), false) => "Running",
            _ if self.failed => "Failed",
            _ => "Terminated",
        }
    }
}

/// Slots with stable indices and deterministic reuse.
pub(super) struct Slab<T> {
    pub(super) items: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Slab<T> {
    pub(super) fn new() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
    pub(super) fn insert(&mut self, v: T) -> u32 {
        if let Some(i) = self.free.pop() {
            self.items[i as usize] = Some(v);
            i
        } else {
            self.items.push(Some(v));
            (self.items.len() - 1) as u32
        }
    }
    pub(super) fn get(&mut self, i: u32) -> &mut T {
        self.items[i as usize].as_mut().expect("live slot")
    }
    pub(super) fn take(&mut self, i: u32) -> T {
        self.free.push(i);
        self.items[i as usize].take().expect("live slot")
    }
}
