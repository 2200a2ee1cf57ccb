//! The walks over the free-capacity index that every placement rule is made
//! of: fullest, emptiest, lowest-numbered or uniformly random node with
//! enough free GPUs; shared GPUs by use or by co-located jobs; whole free
//! nodes for jobs larger than a node. Each takes an `accept` filter (CPU room,
//! nodes reserved by EASY backfilling) and never scans nodes that cannot fit.

use std::cmp::Ordering;
use std::collections::HashSet;

use crate::engine::nodes::{Group, Nodes};
use crate::job::MILLI_PER_GPU;
use crate::rng::Rng;

/// Extra condition a node must meet (CPU room, not reserved).
pub(crate) type Accept<'a> = &'a dyn Fn(u32) -> bool;

fn first_accepted<'a>(mut ids: impl Iterator<Item = &'a u32>, accept: Accept) -> Option<u32> {
    ids.find(|&&n| accept(n)).copied()
}

/// Best fit: the node with the fewest free GPUs that still has `g`, ties by lowest id.
pub(crate) fn fullest(nodes: &Nodes, g: u32, ty: Option<u16>, accept: Accept) -> Option<u32> {
    let per_group = nodes.matching(ty).filter_map(|(_, grp)| {
        grp.nonempty
            .range(g..)
            .find_map(|&lvl| first_accepted(grp.levels[lvl as usize].ordered.iter(), accept).map(|n| (lvl, n)))
    });
    per_group.min().map(|(_, n)| n)
}

/// Max-min balance: the node with the largest free share of its GPUs, ties by lowest id.
pub(crate) fn emptiest(nodes: &Nodes, g: u32, ty: Option<u16>, accept: Accept) -> Option<u32> {
    let per_group = nodes.matching(ty).filter_map(|(_, grp)| {
        let found = grp
            .nonempty
            .range(g..)
            .rev()
            .find_map(|&lvl| first_accepted(grp.levels[lvl as usize].ordered.iter(), accept).map(|n| (lvl, n)));
        found.map(|(lvl, n)| (lvl, grp.gpus, n))
    });
    per_group.min_by(emptier).map(|(_, _, n)| n)
}

/// Orders (free, gpus, id) by free share descending, then id ascending.
fn emptier(a: &(u32, u32, u32), b: &(u32, u32, u32)) -> Ordering {
    let share_a = a.0 as u64 * b.1 as u64;
    let share_b = b.0 as u64 * a.1 as u64;
    share_b.cmp(&share_a).then(a.2.cmp(&b.2))
}

/// First fit: the lowest-numbered node with `g` free GPUs.
pub(crate) fn lowest_id(nodes: &Nodes, g: u32, ty: Option<u16>, accept: Accept) -> Option<u32> {
    let per_level = nodes.matching(ty).flat_map(|(_, grp)| {
        grp.nonempty.range(g..).filter_map(|&lvl| first_accepted(grp.levels[lvl as usize].ordered.iter(), accept))
    });
    per_level.min()
}

/// A uniform choice among the nodes with `g` free GPUs; when the drawn node
/// is not accepted (CPU, reservation), the first fit among accepted ones.
pub(crate) fn uniform(nodes: &Nodes, g: u32, ty: Option<u16>, accept: Accept, rng: &mut Rng) -> Option<u32> {
    let levels =
        || nodes.matching(ty).flat_map(|(_, grp)| grp.nonempty.range(g..).map(move |&l| &grp.levels[l as usize]));
    let total: u64 = levels().map(|l| l.dense.len() as u64).sum();
    if total == 0 {
        return None;
    }
    let mut r = rng.below(total) as usize;
    for level in levels() {
        if r < level.dense.len() {
            let n = level.dense[r];
            return if accept(n) { Some(n) } else { lowest_id(nodes, g, ty, accept) };
        }
        r -= level.dense.len();
    }
    unreachable!("the draw is below the total")
}

/// Best fit among shared GPUs: the most used one that still has `milli` room.
pub(crate) fn most_used_gpu(nodes: &Nodes, milli: u32, ty: Option<u16>, accept: Accept) -> Option<u32> {
    let cap = MILLI_PER_GPU - milli;
    let ok = |gpu: u32| accept(nodes.gpu_node[gpu as usize]);
    let per_type =
        nodes.matching_shared(ty).filter_map(|s| s.by_used.range(..=(cap, u32::MAX)).rev().find(|e| ok(e.1)).copied());
    per_type.max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1))).map(|(_, gpu)| gpu)
}

/// The least used shared GPU with `milli` room.
pub(crate) fn least_used_gpu(nodes: &Nodes, milli: u32, ty: Option<u16>, accept: Accept) -> Option<u32> {
    let cap = MILLI_PER_GPU - milli;
    let ok = |gpu: u32| accept(nodes.gpu_node[gpu as usize]);
    let per_type =
        nodes.matching_shared(ty).filter_map(|s| s.by_used.range(..=(cap, u32::MAX)).find(|e| ok(e.1)).copied());
    per_type.min().map(|(_, gpu)| gpu)
}

/// The shared GPU with the fewest co-located jobs that has `milli` room
/// (ties: least used, then lowest id).
pub(crate) fn least_shared_gpu(nodes: &Nodes, milli: u32, ty: Option<u16>, accept: Accept) -> Option<u32> {
    let cap = MILLI_PER_GPU - milli;
    let ok = |gpu: u32| accept(nodes.gpu_node[gpu as usize]);
    let per_type = nodes.matching_shared(ty).filter_map(|s| s.by_count.iter().find(|e| e.1 <= cap && ok(e.2)).copied());
    per_type.min().map(|(_, _, gpu)| gpu)
}

/// A uniform choice among shared GPUs with `milli` room (a scan: used only
/// when no free GPU is left).
pub(crate) fn uniform_gpu(nodes: &Nodes, milli: u32, ty: Option<u16>, accept: Accept, rng: &mut Rng) -> Option<u32> {
    let cap = MILLI_PER_GPU - milli;
    let fits: Vec<u32> = nodes
        .matching_shared(ty)
        .flat_map(|s| s.by_used.range(..=(cap, u32::MAX)).map(|e| e.1))
        .filter(|&gpu| accept(nodes.gpu_node[gpu as usize]))
        .collect();
    (!fits.is_empty()).then(|| fits[rng.below(fits.len() as u64) as usize])
}

/// Whole free nodes for a job larger than any node it may use: larger nodes
/// first, and the last piece on the smallest free node that covers the rest.
/// Lowest ids unless `rng` is given (then a random free node of each size).
///
/// Each group keeps a cursor over its entirely free nodes: a node is taken at
/// most once and skipped at most once, so a job over `k` nodes costs
/// O(k x groups + free nodes walked), not the O(k^3) of re-scanning the taken
/// list for every candidate (12,500 nodes took over a minute).
pub(crate) fn whole_nodes(
    nodes: &Nodes,
    need: u32,
    ty: Option<u16>,
    accept: Accept,
    mut rng: Option<&mut Rng>,
) -> Option<Vec<u32>> {
    #[cfg(test)]
    if crate::engine::reference::on() {
        return crate::engine::reference::whole_nodes(nodes, need, ty, accept, rng);
    }
    let mut cursors: Vec<FreeCursor> = nodes.matching(ty).map(|(_, g)| FreeCursor::new(g)).collect();
    let mut taken: Vec<u32> = Vec::new();
    let mut taken_set: HashSet<u32> = HashSet::new();
    let mut left = need as u64;
    while left > 0 {
        let open: Vec<usize> = (0..cursors.len()).filter(|&i| cursors[i].has_free(accept, &taken_set)).collect();
        let gpus = |i: &&usize| cursors[**i].grp.gpus;
        // `min_by_key` keeps the first smallest, `max_by_key` the last largest:
        // the order of groups decides between equal sizes.
        let covering = open.iter().filter(|&&i| cursors[i].grp.gpus as u64 >= left).min_by_key(gpus);
        let at = *covering.or_else(|| open.iter().max_by_key(gpus))?;
        let node = cursors[at].take(accept, &taken_set, rng.as_deref_mut())?;
        left = left.saturating_sub(cursors[at].grp.gpus as u64);
        taken.push(node);
        taken_set.insert(node);
    }
    Some(taken)
}

/// The entirely free nodes of one group, walked once in id order.
struct FreeCursor<'a> {
    grp: &'a Group,
    /// Free nodes not yet ruled out, lowest id first.
    ordered: std::iter::Peekable<std::collections::btree_set::Iter<'a, u32>>,
}

impl<'a> FreeCursor<'a> {
    fn new(grp: &'a Group) -> FreeCursor<'a> {
        FreeCursor { grp, ordered: grp.levels[grp.gpus as usize].ordered.iter().peekable() }
    }

    /// Whether a free node that is accepted and not taken is left. Nodes
    /// passed over are either not accepted or taken, both for good (nothing
    /// is allocated while a job's nodes are chosen).
    fn has_free(&mut self, accept: Accept, taken: &HashSet<u32>) -> bool {
        while let Some(&&n) = self.ordered.peek() {
            if accept(n) && !taken.contains(&n) {
                return true;
            }
            self.ordered.next();
        }
        false
    }

    /// The lowest accepted free node, or with `rng` the first accepted one
    /// at or after a uniformly drawn position of the level (wrapping).
    fn take(&mut self, accept: Accept, taken: &HashSet<u32>, rng: Option<&mut Rng>) -> Option<u32> {
        let level = &self.grp.levels[self.grp.gpus as usize];
        match rng {
            Some(rng) if !level.dense.is_empty() => {
                let len = level.dense.len();
                let start = rng.below(len as u64) as usize;
                (0..len).map(|i| level.dense[(start + i) % len]).find(|&n| accept(n) && !taken.contains(&n))
            }
            _ => {
                let n = *self.ordered.next()?;
                Some(n)
            }
        }
    }
}
