//! The optimiser behind `pollux`: which GPUs of which nodes each job gets,
//! maximising a sum of per-job utilities (Pollux's fitness, a generalised
//! mean of speedups, is a monotone function of such a sum; see
//! [`super::pollux`]).
//!
//! A job's utility depends on whether it spans several nodes, how many
//! GPUs it gets and whether its allocation changes (a change restarts it).
//! Constraints: no node gives more GPUs than it has; a job gets at most
//! its maximum GPUs and spans at most 16 nodes; with interference
//! avoidance, a node hosts at most one job that spans several nodes
//! (Pollux's interference avoidance, OSDI'21 §4.2).
//!
//! Method (deterministic; the artifact runs a genetic algorithm instead):
//! 1. Counts: an exact dynamic programme over the cluster's GPUs chooses
//!    each job's option (keep its GPUs unchanged, or restart on r GPUs in
//!    one node or across nodes, or none), maximising the summed utility
//!    under the total GPU count (a multiple-choice knapsack).
//! 2. Placement: kept jobs stay; the others, largest first, go on the
//!    fullest node that holds them (one node) or the emptiest nodes (across
//!    nodes); a job that cannot be placed so tries the other shape, then
//!    one GPU fewer.
//! 3. Local search from that placement and from the current allocation:
//!    moves that give a job one more GPU, hand a job's GPUs on one node to
//!    another job (one GPU or all of them), or put a job back on its
//!    current GPUs, taken while any improves the sum; the better of the two
//!    results wins (ties: the current allocation's).
//!
//! The unit tests compare it with exhaustive enumeration on small clusters.

/// Largest number of nodes one job may span (the artifact's repair limit).
pub const MAX_NODES_PER_JOB: usize = 16;

/// What the optimiser knows about one job.
pub trait JobUtility {
    /// The most GPUs the job may get.
    fn max_replicas(&self) -> u32;
    /// Its GPUs per node now (one entry per node).
    fn current(&self) -> &[u32];
    /// Utility of `replicas` GPUs over several nodes (`multi`) or one,
    /// `changed` if that differs from the current allocation.
    fn utility(&mut self, multi: bool, replicas: u32, changed: bool) -> f64;
}

/// The allocation problem of one round.
pub struct Problem<'a, J: JobUtility> {
    pub node_gpus: &'a [u32],
    /// In priority order: earlier jobs win ties.
    pub jobs: Vec<J>,
    /// At most one multi-node job per node.
    pub avoid_interference: bool,
}

/// GPUs per node for each job.
pub type Rows = Vec<Vec<u32>>;

impl<J: JobUtility> Problem<'_, J> {
    /// The best allocation found (GPUs per node, per job).
    pub fn solve(&mut self) -> Rows {
        let mut bounds = Bounds::new(self);
        let current: Rows = self.jobs.iter().map(|j| j.current().to_vec()).collect();
        let mut a = State::new(self, current);
        a.improve(self, &mut bounds);
        let rows = self.constructive();
        let mut b = State::new(self, rows);
        b.improve(self, &mut bounds);
        if self.total(&b.rows) > self.total(&a.rows) {
            b.rows
        } else {
            a.rows
        }
    }

    /// Summed utility of an allocation.
    pub fn total(&mut self, rows: &Rows) -> f64 {
        (0..self.jobs.len()).map(|j| self.value(j, &rows[j])).sum()
    }

    fn value(&mut self, j: usize, row: &[u32]) -> f64 {
        let (r, n) = shape(row);
        let changed = row != self.jobs[j].current();
        self.jobs[j].utility(n > 1, r, changed)
    }

    /// Steps 1 and 2: option counts by dynamic programme, then placement.
    fn constructive(&mut self) -> Rows {
        let options: Vec<Vec<Opt>> = (0..self.jobs.len()).map(|j| self.options(j)).collect();
        let chosen = knapsack(&options, self.node_gpus.iter().sum::<u32>() as usize);
        self.place(&options, &chosen)
    }

    /// A job's options with their utilities.
    fn options(&mut self, j: usize) -> Vec<Opt> {
        let max_node = self.node_gpus.iter().copied().max().unwrap_or(0);
        let cur = self.jobs[j].current().to_vec();
        let (cr, cn) = shape(&cur);
        let max_r = self.jobs[j].max_replicas();
        let mut out = vec![Opt { kind: Kind::Keep, replicas: cr, value: self.jobs[j].utility(cn > 1, cr, false) }];
        for r in 1..=max_r {
            if r <= max_node && !(cr == r && cn == 1) {
                out.push(Opt { kind: Kind::Single, replicas: r, value: self.jobs[j].utility(false, r, true) });
            }
            if r >= 2 && self.node_gpus.len() >= 2 {
                out.push(Opt { kind: Kind::Multi, replicas: r, value: self.jobs[j].utility(true, r, true) });
            }
        }
        if cr > 0 {
            out.push(Opt { kind: Kind::Single, replicas: 0, value: self.jobs[j].utility(false, 0, true) });
        }
        out
    }

    /// Kept jobs stay; the others, most GPUs first, are placed.
    fn place(&mut self, options: &[Vec<Opt>], chosen: &[usize]) -> Rows {
        let m = self.node_gpus.len();
        let mut rows: Rows = vec![vec![0; m]; self.jobs.len()];
        let mut free = self.node_gpus.to_vec();
        let mut dist = vec![false; m];
        for (j, &c) in chosen.iter().enumerate() {
            if options[j][c].kind == Kind::Keep {
                rows[j] = self.jobs[j].current().to_vec();
                take(&mut free, &mut dist, &rows[j]);
            }
        }
        let mut order: Vec<usize> = (0..chosen.len()).filter(|&j| options[j][chosen[j]].kind != Kind::Keep).collect();
        order.sort_by_key(|&j| std::cmp::Reverse(options[j][chosen[j]].replicas));
        for j in order {
            let budget = options[j][chosen[j]].replicas;
            if let Some(row) = self.best_fit(j, &free, &dist, budget) {
                take(&mut free, &mut dist, &row);
                rows[j] = row;
            }
        }
        rows
    }
}

impl<J: JobUtility> Problem<'_, J> {
    /// The placement of at most `budget` GPUs for job `j` on the free GPUs,
    /// one node or across nodes, with the most utility (None: no GPU fits).
    fn best_fit(&mut self, j: usize, free: &[u32], dist: &[bool], budget: u32) -> Option<Vec<u32>> {
        let top = budget.min(self.jobs[j].max_replicas());
        let largest = free.iter().copied().max().unwrap_or(0);
        // Across nodes: the emptiest allowed nodes, at most 16.
        let mut open: Vec<u32> = (0..free.len())
            .filter(|&k| free[k] > 0 && !(self.avoid_interference && dist[k]))
            .map(|k| free[k])
            .collect();
        open.sort_unstable_by(|a, b| b.cmp(a));
        let first = open.first().copied().unwrap_or(0);
        let across: u32 = open.iter().take(MAX_NODES_PER_JOB).sum();
        let mut best: Option<(f64, u32, bool)> = None;
        for r in 1..=top {
            // One node needs a node with r free; across nodes needs more
            // than the emptiest allowed node holds (else it takes one node).
            for (multi, ok) in [(false, r <= largest), (true, r > first && r <= across && open.len() > 1)] {
                if !ok {
                    continue;
                }
                let v = self.jobs[j].utility(multi, r, true);
                if best.is_none_or(|b| v > b.0) {
                    best = Some((v, r, multi));
                }
            }
        }
        let (_, r, multi) = best?;
        fit(free, dist, r, multi, self.avoid_interference)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Keep,
    Single,
    Multi,
}

#[derive(Clone, Copy, Debug)]
struct Opt {
    kind: Kind,
    replicas: u32,
    value: f64,
}

/// GPUs and nodes of a row.
fn shape(row: &[u32]) -> (u32, usize) {
    (row.iter().sum(), row.iter().filter(|&&g| g > 0).count())
}

fn take(free: &mut [u32], dist: &mut [bool], row: &[u32]) {
    let multi = shape(row).1 > 1;
    for (k, &g) in row.iter().enumerate() {
        free[k] -= g;
        if g > 0 && multi {
            dist[k] = true;
        }
    }
}

/// `r` GPUs on one node (the fullest that holds them) or across the
/// emptiest nodes, if possible.
fn fit(free: &[u32], dist: &[bool], r: u32, multi: bool, avoid: bool) -> Option<Vec<u32>> {
    let m = free.len();
    let mut row = vec![0; m];
    if !multi {
        let k = (0..m).filter(|&k| free[k] >= r).min_by_key(|&k| (free[k], k))?;
        row[k] = r;
        return Some(row);
    }
    let mut nodes: Vec<usize> = (0..m).filter(|&k| free[k] > 0 && !(avoid && dist[k])).collect();
    nodes.sort_by_key(|&k| (std::cmp::Reverse(free[k]), k));
    let mut left = r;
    for &k in nodes.iter().take(MAX_NODES_PER_JOB) {
        let g = free[k].min(left);
        row[k] = g;
        left -= g;
        if left == 0 {
            break;
        }
    }
    (left == 0 && shape(&row).1 > 1).then_some(row)
}

/// Exact multiple-choice knapsack over total GPUs: the option of each job
/// maximising the summed value. Ties go to the earlier option, then to the
/// fewer GPUs.
///
/// Only options that can be part of that answer enter the table: per GPU
/// count the first with the most value, and of those only the ones worth
/// more than every option with fewer GPUs (an option is never chosen if
/// fewer GPUs give at least as much: the answer with the fewer would be
/// worth as much at a smaller total, and the smallest total wins ties).
/// Totals beyond what the jobs so far can use are not visited. Both leave
/// every choice as the full table makes it.
fn knapsack(options: &[Vec<Opt>], capacity: usize) -> Vec<usize> {
    let n = options.len();
    let width = capacity + 1;
    let mut best = vec![f64::NEG_INFINITY; width];
    best[0] = 0.0;
    let mut next = vec![f64::NEG_INFINITY; width];
    let mut pick = vec![u16::MAX; n * width];
    let mut reach = 0;
    for (j, opts) in options.iter().enumerate() {
        let useful = undominated(opts);
        reach = (reach + useful.iter().map(|&k| opts[k].replicas as usize).max().unwrap_or(0)).min(capacity);
        let row = &mut pick[j * width..(j + 1) * width];
        next[..=reach].fill(f64::NEG_INFINITY);
        // Option by option in their order, each total independently: the
        // first option reaching a total's maximum keeps it, as when the
        // options are tried total by total (an unreachable total, -inf,
        // never beats one).
        for &k in &useful {
            let (r, value) = (opts[k].replicas as usize, opts[k].value);
            if r > reach {
                continue;
            }
            let (from, to) = (&best[..=reach - r], &mut next[r..=reach]);
            for (c, (&b, n)) in from.iter().zip(to.iter_mut()).enumerate() {
                let v = b + value;
                if v > *n {
                    *n = v;
                    row[c + r] = k as u16;
                }
            }
        }
        std::mem::swap(&mut best, &mut next);
    }
    let mut c = (0..=capacity).fold(0, |b, c| if best[c] > best[b] { c } else { b });
    let mut chosen = vec![0; n];
    for j in (0..n).rev() {
        let k = pick[j * width + c] as usize;
        chosen[j] = k;
        c -= options[j][k].replicas as usize;
    }
    chosen
}

/// Indices of the options that can be chosen (see [`knapsack`]), in their
/// original order.
fn undominated(opts: &[Opt]) -> Vec<usize> {
    let mut by_count: Vec<usize> = (0..opts.len()).collect();
    // Fewer GPUs first; per count the most value, then the earlier option.
    by_count.sort_by(|&a, &b| {
        let (x, y) = (&opts[a], &opts[b]);
        x.replicas.cmp(&y.replicas).then(y.value.total_cmp(&x.value)).then(a.cmp(&b))
    });
    let mut out = Vec::new();
    let mut top = f64::NEG_INFINITY;
    let mut last = None;
    for k in by_count {
        let o = &opts[k];
        if last == Some(o.replicas) {
            continue;
        }
        last = Some(o.replicas);
        if o.value > top {
            top = o.value;
            out.push(k);
        }
    }
    out.sort_unstable();
    out
}

mod local;

use local::{Bounds, State};

#[cfg(test)]
mod tests;
