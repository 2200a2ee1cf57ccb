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
        let mut best: Option<(f64, Vec<u32>)> = None;
        for r in 1..=budget.min(self.jobs[j].max_replicas()) {
            for multi in [false, true] {
                let Some(row) = fit(free, dist, r, multi, self.avoid_interference) else { continue };
                let v = self.value(j, &row);
                if best.as_ref().is_none_or(|b| v > b.0) {
                    best = Some((v, row));
                }
            }
        }
        best.map(|b| b.1)
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

/// An allocation under local search.
struct State {
    rows: Rows,
    free: Vec<u32>,
    value: Vec<f64>,
    /// Multi-node jobs on each node.
    dist_on: Vec<u32>,
}

/// A candidate move: new rows for one or two jobs.
type Move = Vec<(usize, Vec<u32>)>;

impl State {
    fn new<J: JobUtility>(p: &mut Problem<J>, rows: Rows) -> State {
        let m = p.node_gpus.len();
        let mut s =
            State { free: p.node_gpus.to_vec(), value: vec![0.0; rows.len()], dist_on: vec![0; m], rows: Vec::new() };
        for (j, row) in rows.iter().enumerate() {
            s.account(row, 1);
            s.value[j] = p.value(j, row);
        }
        s.rows = rows;
        s
    }

    /// Adds (`sign` 1) or removes (-1) a row's GPUs and multi-node marks.
    fn account(&mut self, row: &[u32], sign: i64) {
        let multi = shape(row).1 > 1;
        for (k, &g) in row.iter().enumerate() {
            self.free[k] = (self.free[k] as i64 - sign * g as i64) as u32;
            if multi && g > 0 {
                self.dist_on[k] = (self.dist_on[k] as i64 + sign) as u32;
            }
        }
    }

    /// Takes improving moves until none is left (bounded number of sweeps).
    fn improve<J: JobUtility>(&mut self, p: &mut Problem<J>) {
        for _ in 0..64 {
            let mut changed = false;
            for j in 0..self.rows.len() {
                while let Some((gain, mv)) = self.best_move_for(p, j) {
                    if gain <= 1e-12 * self.value.iter().map(|v| v.abs()).sum::<f64>().max(1.0) {
                        break;
                    }
                    self.apply(p, mv);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    fn apply<J: JobUtility>(&mut self, p: &mut Problem<J>, mv: Move) {
        for (j, row) in mv {
            let old = std::mem::take(&mut self.rows[j]);
            self.account(&old, -1);
            self.account(&row, 1);
            self.value[j] = p.value(j, &row);
            self.rows[j] = row;
        }
    }

    /// The best improving move that makes job `j` better off.
    fn best_move_for<J: JobUtility>(&self, p: &mut Problem<J>, j: usize) -> Option<(f64, Move)> {
        let mut best: Option<(f64, Move)> = None;
        let mut consider = |mv: Move, p: &mut Problem<J>| {
            if !self.valid(p, &mv) {
                return;
            }
            let gain: f64 = mv.iter().map(|(i, row)| p.value(*i, row) - self.value[*i]).sum();
            if gain > 0.0 && best.as_ref().is_none_or(|b| gain > b.0) {
                best = Some((gain, mv));
            }
        };
        let m = self.free.len();
        // Back to the current GPUs.
        let cur = p.jobs[j].current().to_vec();
        if cur != self.rows[j] {
            consider(vec![(j, cur)], p);
        }
        // One more GPU on any node with a free one; one fewer, or none, on
        // a node it uses.
        for k in 0..m {
            if self.free[k] > 0 {
                let mut row = self.rows[j].clone();
                row[k] += 1;
                consider(vec![(j, row)], p);
            }
            let have = self.rows[j][k];
            for drop in [1, have] {
                if have > 0 && (drop == 1 || have > 1) {
                    let mut row = self.rows[j].clone();
                    row[k] -= drop;
                    consider(vec![(j, row)], p);
                }
            }
        }
        // Elsewhere: the best placement on the GPUs free once it leaves.
        let mut free = self.free.clone();
        let mut dist: Vec<bool> = self.dist_on.iter().map(|&d| d > 0).collect();
        let own_multi = shape(&self.rows[j]).1 > 1;
        for k in 0..m {
            free[k] += self.rows[j][k];
            if own_multi && self.rows[j][k] > 0 {
                dist[k] = self.dist_on[k] > 1;
            }
        }
        let budget: u32 = free.iter().sum();
        if let Some(row) = p.best_fit(j, &free, &dist, budget) {
            consider(vec![(j, row)], p);
        }
        // With one other job, both re-placed on the GPUs free once they
        // leave, in either order.
        for i in (0..self.rows.len()).filter(|&i| i != j && shape(&self.rows[i]).0 > 0) {
            let (mut free2, mut dist2) = (free.clone(), dist.clone());
            let multi_i = shape(&self.rows[i]).1 > 1;
            for k in 0..m {
                free2[k] += self.rows[i][k];
                if multi_i && self.rows[i][k] > 0 {
                    dist2[k] = self.dist_on[k] > 1 + u32::from(own_multi && self.rows[j][k] > 0);
                }
            }
            for (a, b) in [(j, i), (i, j)] {
                let (mut f, mut d) = (free2.clone(), dist2.clone());
                let budget: u32 = f.iter().sum();
                let ra = p.best_fit(a, &f, &d, budget).unwrap_or_else(|| vec![0; m]);
                take(&mut f, &mut d, &ra);
                let budget: u32 = f.iter().sum();
                let rb = p.best_fit(b, &f, &d, budget).unwrap_or_else(|| vec![0; m]);
                consider(vec![(a, ra), (b, rb)], p);
            }
        }
        // GPUs of another job on one node: one of them, or all.
        for i in 0..self.rows.len() {
            if i == j {
                continue;
            }
            for k in 0..m {
                let have = self.rows[i][k];
                if have == 0 {
                    continue;
                }
                for give in [1, have] {
                    let (mut ri, mut rj) = (self.rows[i].clone(), self.rows[j].clone());
                    ri[k] -= give;
                    rj[k] += give;
                    consider(vec![(i, ri), (j, rj)], p);
                    if have == 1 {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Whether the rows after `mv` respect every constraint.
    fn valid<J: JobUtility>(&self, p: &mut Problem<J>, mv: &Move) -> bool {
        for (i, row) in mv {
            let (r, n) = shape(row);
            if r > p.jobs[*i].max_replicas() || n > MAX_NODES_PER_JOB {
                return false;
            }
        }
        let m = self.free.len();
        for k in 0..m {
            let delta: i64 = mv.iter().map(|(i, row)| row[k] as i64 - self.rows[*i][k] as i64).sum();
            if delta > self.free[k] as i64 {
                return false;
            }
        }
        if !p.avoid_interference {
            return true;
        }
        for (i, row) in mv {
            if shape(row).1 < 2 {
                continue;
            }
            for k in (0..m).filter(|&k| row[k] > 0) {
                // Multi-node jobs on node k after the move, other than i.
                let mut others = self.dist_on[k] as i64;
                for (x, new) in mv {
                    if self.rows[*x][k] > 0 && shape(&self.rows[*x]).1 > 1 {
                        others -= 1;
                    }
                    if x != i && new[k] > 0 && shape(new).1 > 1 {
                        others += 1;
                    }
                }
                if others > 0 {
                    return false;
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests;
