//! The waiting queue, indexed so that a scheduling pass never scans it.
//!
//! Jobs wait in one ordered set per demand class (whole GPUs or a fraction,
//! plus GPU type) and the class heads sit in an ordered set of their own, so
//! "the best job among the classes that fit now" is a walk over class heads
//! that stops at the first class that fits: O(classes skipped + log n).
//!
//! Above classes sit entities: one for every policy except `fair`, where
//! each VC (or user) is an entity ordered by its current allocation, so a
//! change of share re-orders one entity instead of re-keying its jobs.
//!
//! Order inside a class: the policy key, then submission time, then job id
//! (the documented tie-break).

use std::collections::{BTreeSet, HashMap};
use std::ops::Bound::{Excluded, Unbounded};

use crate::job::{Demand, JobId};
use crate::policy::Key;
use crate::time::Millis;

/// A queued job's place in the order.
pub(crate) type Entry = (Key, Millis, JobId);

/// A demand class: what the job needs and on which GPU type.
pub(crate) type Class = (Demand, Option<u16>);

#[derive(Default)]
struct Entity {
    sets: Vec<BTreeSet<Entry>>,
    heads: BTreeSet<(Entry, u32)>,
    len: usize,
}

impl Entity {
    fn set_mut(&mut self, class: u32) -> &mut BTreeSet<Entry> {
        let c = class as usize;
        if self.sets.len() <= c {
            self.sets.resize_with(c + 1, BTreeSet::new);
        }
        &mut self.sets[c]
    }

    fn insert(&mut self, class: u32, entry: Entry) {
        let old = self.set_mut(class).first().copied();
        self.sets[class as usize].insert(entry);
        if old.is_none_or(|h| entry < h) {
            if let Some(h) = old {
                self.heads.remove(&(h, class));
            }
            self.heads.insert((entry, class));
        }
        self.len += 1;
    }

    fn remove(&mut self, class: u32, entry: Entry) {
        let set = self.set_mut(class);
        let was_head = set.first() == Some(&entry);
        assert!(set.remove(&entry), "removing a job that is not queued");
        let new_head = set.first().copied();
        if was_head {
            self.heads.remove(&(entry, class));
            if let Some(h) = new_head {
                self.heads.insert((h, class));
            }
        }
        self.len -= 1;
    }
}

/// A queued job found by a lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) entity: u32,
    pub(crate) class: u32,
    pub(crate) entry: Entry,
}

#[derive(Default)]
pub(crate) struct WaitQueue {
    classes: Vec<Class>,
    class_ids: HashMap<Class, u32>,
    /// Waiting jobs per class over all entities.
    class_len: Vec<usize>,
    entities: Vec<Entity>,
    value: Vec<u64>,
    order: BTreeSet<(u64, u32)>,
    len: usize,
}

impl WaitQueue {
    pub(crate) fn new(entities: u32) -> WaitQueue {
        WaitQueue {
            entities: (0..entities.max(1)).map(|_| Entity::default()).collect(),
            value: vec![0; entities.max(1) as usize],
            ..WaitQueue::default()
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The id of a class, created on first use.
    pub(crate) fn class_id(&mut self, class: Class) -> u32 {
        if let Some(&id) = self.class_ids.get(&class) {
            return id;
        }
        let id = self.classes.len() as u32;
        self.classes.push(class);
        self.class_len.push(0);
        self.class_ids.insert(class, id);
        id
    }

    pub(crate) fn class(&self, id: u32) -> Class {
        self.classes[id as usize]
    }

    pub(crate) fn insert(&mut self, entity: u32, class: u32, entry: Entry) {
        let e = &mut self.entities[entity as usize];
        if e.len == 0 {
            self.order.insert((self.value[entity as usize], entity));
        }
        e.insert(class, entry);
        self.class_len[class as usize] += 1;
        self.len += 1;
    }

    pub(crate) fn remove(&mut self, entity: u32, class: u32, entry: Entry) {
        let e = &mut self.entities[entity as usize];
        e.remove(class, entry);
        if e.len == 0 {
            self.order.remove(&(self.value[entity as usize], entity));
        }
        self.class_len[class as usize] -= 1;
        self.len -= 1;
    }

    /// Re-orders `entity` by a new value (fair share: its allocation).
    pub(crate) fn set_value(&mut self, entity: u32, value: u64) {
        let old = std::mem::replace(&mut self.value[entity as usize], value);
        if self.entities[entity as usize].len > 0 && old != value {
            self.order.remove(&(old, entity));
            self.order.insert((value, entity));
        }
    }

    /// The first job in policy order (entities by value, then class heads).
    pub(crate) fn head(&self) -> Option<Found> {
        let &(_, entity) = self.order.first()?;
        let &(entry, class) = self.entities[entity as usize].heads.first()?;
        Some(Found { entity, class, entry })
    }

    /// The first job in policy order among the classes for which `fits` holds.
    pub(crate) fn best(&self, mut fits: impl FnMut(u32) -> bool) -> Option<Found> {
        self.order.iter().find_map(|&(_, entity)| {
            let heads = &self.entities[entity as usize].heads;
            heads.iter().find(|(_, c)| fits(*c)).map(|&(entry, class)| Found { entity, class, entry })
        })
    }

    /// The first waiting job after `after` (from the start when `None`) in
    /// (key, submission, id) order, among the classes that need at most
    /// `limit` milli-GPUs, with its demand. One ordered lookup per class:
    /// the preemptive pass's walk over the queue without visiting every job.
    pub(crate) fn next_after(&self, after: Option<&Entry>, limit: u64) -> Option<(Entry, u64)> {
        let mut best: Option<(Entry, u64)> = None;
        for (c, class) in self.classes.iter().enumerate() {
            let d = class.0.milli();
            if self.class_len[c] == 0 || d > limit {
                continue;
            }
            for e in &self.entities {
                let Some(set) = e.sets.get(c) else { continue };
                let next = match after {
                    Some(a) => set.range((Excluded(*a), Unbounded)).next(),
                    None => set.first(),
                };
                if let Some(&n) = next.filter(|n| best.is_none_or(|(b, _)| **n < b)) {
                    best = Some((n, d));
                }
            }
        }
        best
    }

    /// Every waiting job, in no particular order.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        self.entities.iter().flat_map(|e| e.sets.iter().flat_map(|s| s.iter().copied()))
    }
}
