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
        let current: Rows = self.jobs.iter().map(|j| j.current().to_vec()).collect();
        let mut a = State::new(self, current);
        a.improve(self);
        let rows = self.constructive();
        if std::env::var("DBG").is_ok() {
            eprintln!("constructive {:?} {}", rows, self.total(&rows));
        }
        let mut b = State::new(self, rows);
        b.improve(self);
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
        if std::env::var("DBG").is_ok() {
            eprintln!("chosen {:?}", chosen.iter().enumerate().map(|(j, &c)| options[j][c]).collect::<Vec<_>>());
        }
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
/// maximising the summed value. Ties go to the earlier option.
fn knapsack(options: &[Vec<Opt>], capacity: usize) -> Vec<usize> {
    let n = options.len();
    let mut best = vec![f64::NEG_INFINITY; capacity + 1];
    best[0] = 0.0;
    let mut pick = vec![vec![u16::MAX; capacity + 1]; n];
    for (j, opts) in options.iter().enumerate() {
        let mut next = vec![f64::NEG_INFINITY; capacity + 1];
        for c in 0..=capacity {
            for (k, o) in opts.iter().enumerate() {
                let r = o.replicas as usize;
                if r > c || best[c - r] == f64::NEG_INFINITY {
                    continue;
                }
                let v = best[c - r] + o.value;
                if v > next[c] {
                    next[c] = v;
                    pick[j][c] = k as u16;
                }
            }
        }
        best = next;
    }
    let mut c = (0..=capacity).fold(0, |b, c| if best[c] > best[b] { c } else { b });
    let mut chosen = vec![0; n];
    for j in (0..n).rev() {
        let k = pick[j][c] as usize;
        chosen[j] = k;
        c -= options[j][k].replicas as usize;
    }
    chosen
}

/// An allocation under local search, with what the moves need kept up to
/// date: free GPUs and multi-node jobs per node, and per job its GPUs, its
/// nodes, how many nodes differ from its current allocation and its value.
struct State {
    rows: Rows,
    free: Vec<u32>,
    dist_on: Vec<u32>,
    value: Vec<f64>,
    replicas: Vec<u32>,
    nodes: Vec<u32>,
    differ: Vec<u32>,
    /// The nodes each job uses, ascending.
    on: Vec<Vec<u32>>,
}

/// GPUs added to (or, negative, taken from) one job on one node.
type Change = (usize, usize, i64);

/// Problems up to this many jobs x nodes also try re-placing pairs of jobs.
const PAIR_MOVES_UP_TO: usize = 2048;

impl State {
    fn new<J: JobUtility>(p: &mut Problem<J>, rows: Rows) -> State {
        let m = p.node_gpus.len();
        let n = rows.len();
        let mut s = State {
            rows: vec![vec![0; m]; n],
            free: p.node_gpus.to_vec(),
            dist_on: vec![0; m],
            value: vec![0.0; n],
            replicas: vec![0; n],
            nodes: vec![0; n],
            differ: vec![0; n],
            on: vec![Vec::new(); n],
        };
        for (j, row) in rows.into_iter().enumerate() {
            s.set(p, j, row);
        }
        s
    }

    fn multi(&self, j: usize) -> bool {
        self.nodes[j] > 1
    }

    /// Replaces job `j`'s row, keeping every tally.
    fn set<J: JobUtility>(&mut self, p: &mut Problem<J>, j: usize, row: Vec<u32>) {
        let was_multi = self.multi(j);
        for (k, &g) in self.rows[j].iter().enumerate() {
            self.free[k] += g;
            if was_multi && g > 0 {
                self.dist_on[k] -= 1;
            }
        }
        let (r, n) = shape(&row);
        let cur = p.jobs[j].current();
        self.differ[j] = row.iter().zip(cur).filter(|(a, b)| a != b).count() as u32;
        self.replicas[j] = r;
        self.nodes[j] = n as u32;
        self.on[j] = (0..row.len() as u32).filter(|&k| row[k as usize] > 0).collect();
        for (k, &g) in row.iter().enumerate() {
            self.free[k] -= g;
            if n > 1 && g > 0 {
                self.dist_on[k] += 1;
            }
        }
        self.rows[j] = row;
        self.value[j] = p.jobs[j].utility(n > 1, r, self.differ[j] > 0);
    }

    /// Takes improving moves until none is left (bounded number of sweeps).
    fn improve<J: JobUtility>(&mut self, p: &mut Problem<J>) {
        let pairs = self.rows.len() * self.free.len() <= PAIR_MOVES_UP_TO;
        for _ in 0..64 {
            let mut changed = false;
            let scale = self.value.iter().map(|v| v.abs()).sum::<f64>().max(1.0);
            for j in 0..self.rows.len() {
                for _ in 0..256 {
                    match self.best_move_for(p, j, pairs) {
                        Some((gain, rows)) if gain > 1e-12 * scale => {
                            // Release every row first: a new row may use
                            // GPUs the other job of the move gives up.
                            let m = self.free.len();
                            for (i, _) in &rows {
                                self.set(p, *i, vec![0; m]);
                            }
                            for (i, row) in rows {
                                self.set(p, i, row);
                            }
                            changed = true;
                        }
                        _ => break,
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// The gain of small changes (at most two jobs, no node twice for one
    /// job), if they respect every constraint.
    fn gain<J: JobUtility>(&self, p: &mut Problem<J>, changes: &[Change]) -> Option<f64> {
        // Per changed job: (job, replicas, nodes, differing nodes) after.
        let mut after = [(usize::MAX, 0u32, 0u32, 0u32); 2];
        let mut count = 0;
        for &(i, k, d) in changes {
            let slot = match after[..count].iter().position(|a| a.0 == i) {
                Some(s) => s,
                None => {
                    after[count] = (i, self.replicas[i], self.nodes[i], self.differ[i]);
                    count += 1;
                    count - 1
                }
            };
            let old = self.rows[i][k] as i64;
            let new = old + d;
            if new < 0 {
                return None;
            }
            let cur = p.jobs[i].current()[k] as i64;
            let a = &mut after[slot];
            a.1 = (a.1 as i64 + d) as u32;
            a.2 = (a.2 as i64 + i64::from(new > 0) - i64::from(old > 0)) as u32;
            a.3 = (a.3 as i64 + i64::from(new != cur) - i64::from(old != cur)) as u32;
        }
        let after = &after[..count];
        for &(i, r, n, _) in after {
            if r > p.jobs[i].max_replicas() || n as usize > MAX_NODES_PER_JOB {
                return None;
            }
        }
        for &(_, k, _) in changes {
            let added: i64 = changes.iter().filter(|x| x.1 == k).map(|x| x.2).sum();
            if added > self.free[k] as i64 {
                return None;
            }
        }
        if p.avoid_interference && !self.apart(changes, after) {
            return None;
        }
        let mut gain = 0.0;
        for &(i, r, n, d) in after {
            gain += p.jobs[i].utility(n > 1, r, d > 0) - self.value[i];
        }
        Some(gain)
    }

    /// GPUs of job `i` on node `k` after `changes`.
    fn count_after(&self, changes: &[Change], i: usize, k: usize) -> i64 {
        self.rows[i][k] as i64 + changes.iter().filter(|c| c.0 == i && c.1 == k).map(|c| c.2).sum::<i64>()
    }

    /// Whether every multi-node job after the changes has its nodes to
    /// itself (among multi-node jobs).
    fn apart(&self, changes: &[Change], after: &[(usize, u32, u32, u32)]) -> bool {
        for &(i, _, n, _) in after {
            if n < 2 {
                continue;
            }
            let added = changes.iter().filter(|c| c.0 == i).map(|c| c.1);
            for k in self.on[i].iter().map(|&k| k as usize).chain(added) {
                if self.count_after(changes, i, k) <= 0 {
                    continue;
                }
                let mut others = self.dist_on[k] as i64 - i64::from(self.multi(i) && self.rows[i][k] > 0);
                for &(x, _, nx, _) in after.iter().filter(|a| a.0 != i) {
                    others -= i64::from(self.multi(x) && self.rows[x][k] > 0);
                    others += i64::from(nx > 1 && self.count_after(changes, x, k) > 0);
                }
                if others > 0 {
                    return false;
                }
            }
        }
        true
    }

    /// The gain of giving job `j` a whole new row (reset, re-placement).
    fn gain_row<J: JobUtility>(&self, p: &mut Problem<J>, j: usize, row: &[u32]) -> Option<f64> {
        let changes: Vec<Change> = (0..row.len())
            .filter(|&k| row[k] != self.rows[j][k])
            .map(|k| (j, k, row[k] as i64 - self.rows[j][k] as i64))
            .collect();
        if changes.is_empty() {
            return None;
        }
        self.gain(p, &changes)
    }

    /// The best improving move for job `j`: the new rows it gives.
    fn best_move_for<J: JobUtility>(&self, p: &mut Problem<J>, j: usize, pairs: bool) -> Option<(f64, Move)> {
        let mut best: Option<(f64, Move)> = None;
        let mut offer = |gain: Option<f64>, mv: &dyn Fn() -> Move| {
            if let Some(g) = gain {
                if g > 0.0 && best.as_ref().is_none_or(|b| g > b.0) {
                    best = Some((g, mv()));
                }
            }
        };
        let m = self.free.len();
        let with = |rows: &Rows, changes: &[Change]| -> Move {
            let mut out: Move = Vec::new();
            for &(i, k, d) in changes {
                if let Some(e) = out.iter_mut().find(|e| e.0 == i) {
                    e.1[k] = (e.1[k] as i64 + d) as u32;
                } else {
                    let mut row = rows[i].clone();
                    row[k] = (row[k] as i64 + d) as u32;
                    out.push((i, row));
                }
            }
            out
        };
        // Back to the current GPUs.
        let cur = p.jobs[j].current().to_vec();
        if self.differ[j] > 0 {
            let g = self.gain_row(p, j, &cur);
            offer(g, &|| vec![(j, cur.clone())]);
        }
        // One GPU more on a node, one fewer or none on a node it uses: the
        // value depends only on whether a node is new or emptied and on
        // matching the current row, so one node of each kind is tried.
        for k in self.grow_nodes(p, j) {
            let c = [(j, k, 1)];
            offer(self.gain(p, &c), &|| with(&self.rows, &c));
        }
        for k in self.on[j].iter().map(|&k| k as usize) {
            let have = self.rows[j][k] as i64;
            for d in [1, have] {
                let c = [(j, k, -d)];
                offer(self.gain(p, &c), &|| with(&self.rows, &c));
                if have == 1 {
                    break;
                }
            }
        }
        // GPUs of another job on one node: one of them, or all. A cheap
        // upper bound (either restart state, either node count) skips the
        // transfers that cannot gain before their constraints are checked.
        let (rj, nj) = (self.replicas[j], self.nodes[j]);
        let bound = |p: &mut Problem<J>, i: usize, r: u32, n: u32| -> f64 {
            if r > p.jobs[i].max_replicas() {
                return f64::NEG_INFINITY;
            }
            let u =
                |p: &mut Problem<J>, n: u32| p.jobs[i].utility(n > 1, r, true).max(p.jobs[i].utility(n > 1, r, false));
            u(p, n) - self.value[i]
        };
        for i in (0..self.rows.len()).filter(|&i| i != j && self.replicas[i] > 0) {
            for k in self.on[i].iter().map(|&k| k as usize) {
                let have = self.rows[i][k] as i64;
                for d in [1, have] {
                    let (du, left) = (d as u32, self.rows[i][k] - d as u32);
                    let gi = bound(p, i, self.replicas[i] - du, self.nodes[i] - u32::from(left == 0));
                    let gj = bound(p, j, rj + du, nj + u32::from(self.rows[j][k] == 0));
                    if gi + gj <= 0.0 {
                        if have == 1 {
                            break;
                        }
                        continue;
                    }
                    let c = [(i, k, -d), (j, k, d)];
                    offer(self.gain(p, &c), &|| with(&self.rows, &c));
                    if have == 1 {
                        break;
                    }
                }
            }
        }
        // Elsewhere: the best placement on the GPUs free once it leaves.
        let (free, dist) = self.without(&[j]);
        let budget: u32 = free.iter().sum();
        if let Some(row) = p.best_fit(j, &free, &dist, budget) {
            let g = self.gain_row(p, j, &row);
            offer(g, &|| vec![(j, row.clone())]);
        }
        if pairs {
            for i in (0..self.rows.len()).filter(|&i| i != j && self.replicas[i] > 0) {
                let (free, dist) = self.without(&[j, i]);
                for (a, b) in [(j, i), (i, j)] {
                    let (mut f, mut d) = (free.clone(), dist.clone());
                    let budget: u32 = f.iter().sum();
                    let ra = p.best_fit(a, &f, &d, budget).unwrap_or_else(|| vec![0; m]);
                    take(&mut f, &mut d, &ra);
                    let budget: u32 = f.iter().sum();
                    let rb = p.best_fit(b, &f, &d, budget).unwrap_or_else(|| vec![0; m]);
                    let g = p.value(a, &ra) + p.value(b, &rb) - self.value[a] - self.value[b];
                    offer(Some(g), &|| vec![(a, ra.clone()), (b, rb.clone())]);
                }
            }
        }
        best
    }

    /// Nodes worth trying one more GPU of job `j` on: one it uses, one it
    /// would restore towards its current row, one new (the emptiest allowed).
    fn grow_nodes<J: JobUtility>(&self, p: &mut Problem<J>, j: usize) -> Vec<usize> {
        let m = self.free.len();
        let cur = p.jobs[j].current();
        let open = |k: &usize| self.free[*k] > 0;
        let mut out: Vec<usize> = Vec::new();
        out.extend((0..m).filter(open).find(|&k| self.rows[j][k] > 0));
        out.extend((0..m).filter(open).find(|&k| cur[k] > self.rows[j][k]));
        let fresh = (0..m)
            .filter(|k| open(k) && self.rows[j][*k] == 0 && !(p.avoid_interference && self.dist_on[*k] > 0))
            .max_by_key(|&k| (self.free[k], std::cmp::Reverse(k)));
        out.extend(fresh.or_else(|| (0..m).filter(open).find(|&k| self.rows[j][k] == 0)));
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Free GPUs and nodes barred to multi-node jobs once `jobs` leave.
    fn without(&self, jobs: &[usize]) -> (Vec<u32>, Vec<bool>) {
        let mut free = self.free.clone();
        let mut dist = self.dist_on.clone();
        for &j in jobs {
            let multi = self.multi(j);
            for k in 0..free.len() {
                free[k] += self.rows[j][k];
                if multi && self.rows[j][k] > 0 {
                    dist[k] -= 1;
                }
            }
        }
        (free, dist.iter().map(|&d| d > 0).collect())
    }
}

/// A move: new rows for one or two jobs.
type Move = Vec<(usize, Vec<u32>)>;

#[cfg(test)]
mod tests;
