//! Local search for [`super::Problem`]: from a feasible allocation, moves
//! that change one or two jobs' rows, taken while any raises the summed
//! utility. Owns the allocation's tallies and the bounds that skip moves
//! which cannot gain; it never changes which move wins.

use super::{shape, take, JobUtility, Problem, Rows, MAX_NODES_PER_JOB};

/// An allocation under local search, with what the moves need kept up to
/// date: free GPUs and multi-node jobs per node, and per job its GPUs, its
/// nodes, how many nodes differ from its current allocation and its value.
pub(super) struct State {
    pub(super) rows: Rows,
    free: Vec<u32>,
    dist_on: Vec<u32>,
    value: Vec<f64>,
    replicas: Vec<u32>,
    nodes: Vec<u32>,
    differ: Vec<u32>,
    /// The nodes each job uses, ascending.
    on: Vec<Vec<u32>>,
    /// Per job, the most it can gain by giving up GPUs of one node (NaN:
    /// not known since its row last changed).
    lose: Vec<f64>,
}

/// Upper bounds of a job's utility on a shape, cached for the round (the
/// utilities do not change within it): a transfer of GPUs between two
/// jobs can gain only if the bounds of both rows after it add up to more
/// than their values now.
pub(super) struct Bounds {
    /// Per job: [one node, several][replicas] utility when changed.
    changed: Vec<[Vec<f64>; 2]>,
    /// Per job: its utility on its current GPUs, unchanged.
    kept: Vec<f64>,
    /// Per job: GPUs and nodes of its current allocation.
    shapes: Vec<(u32, usize)>,
}

impl Bounds {
    pub(super) fn new<J: JobUtility>(p: &Problem<J>) -> Bounds {
        let jobs = p.jobs.len();
        Bounds {
            changed: vec![[Vec::new(), Vec::new()]; jobs],
            kept: vec![f64::NAN; jobs],
            shapes: p.jobs.iter().map(|j| shape(j.current())).collect(),
        }
    }

    /// The most job `i` can be worth on `r` GPUs over `n` nodes: changed,
    /// unless that is its current shape (then the row may be its current
    /// one, unchanged). -inf above its maximum.
    fn at<J: JobUtility>(&mut self, p: &mut Problem<J>, i: usize, r: u32, n: u32) -> f64 {
        let job = &mut p.jobs[i];
        if r > job.max_replicas() {
            return f64::NEG_INFINITY;
        }
        let table = &mut self.changed[i][usize::from(n > 1)];
        if table.len() <= r as usize {
            table.resize(r as usize + 1, f64::NAN);
        }
        if table[r as usize].is_nan() {
            table[r as usize] = job.utility(n > 1, r, true);
        }
        let changed = table[r as usize];
        let (cr, cn) = self.shapes[i];
        if (r, n as usize) != (cr, cn) {
            return changed;
        }
        if self.kept[i].is_nan() {
            self.kept[i] = job.utility(cn > 1, cr, false);
        }
        changed.max(self.kept[i])
    }
}

/// GPUs added to (or, negative, taken from) one job on one node.
type Change = (usize, usize, i64);

/// Problems up to this many jobs x nodes also try re-placing pairs of jobs.
const PAIR_MOVES_UP_TO: usize = 2048;

impl State {
    pub(super) fn new<J: JobUtility>(p: &mut Problem<J>, rows: Rows) -> State {
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
            lose: vec![f64::NAN; n],
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
        self.lose[j] = f64::NAN;
    }

    /// The bound of job `i`'s gain on (`r` GPUs, `n` nodes).
    fn bound<J: JobUtility>(&self, p: &mut Problem<J>, b: &mut Bounds, i: usize, r: u32, n: u32) -> f64 {
        b.at(p, i, r, n) - self.value[i]
    }

    /// Fills in [`State::lose`]: per job with GPUs, the bound of its gain
    /// after giving up one GPU or all its GPUs of one node.
    fn refresh_lose<J: JobUtility>(&mut self, p: &mut Problem<J>, b: &mut Bounds) {
        for i in 0..self.rows.len() {
            if !self.lose[i].is_nan() || self.replicas[i] == 0 {
                continue;
            }
            let mut top = f64::NEG_INFINITY;
            for &k in &self.on[i] {
                let have = self.rows[i][k as usize];
                for d in [1, have] {
                    let emptied = u32::from(d == have);
                    top = top.max(self.bound(p, b, i, self.replicas[i] - d, self.nodes[i] - emptied));
                }
            }
            self.lose[i] = top;
        }
    }

    /// Takes improving moves until none is left (bounded number of sweeps).
    pub(super) fn improve<J: JobUtility>(&mut self, p: &mut Problem<J>, b: &mut Bounds) {
        let pairs = self.rows.len() * self.free.len() <= PAIR_MOVES_UP_TO;
        for _ in 0..64 {
            let mut changed = false;
            let scale = self.value.iter().map(|v| v.abs()).sum::<f64>().max(1.0);
            for j in 0..self.rows.len() {
                for _ in 0..256 {
                    self.refresh_lose(p, b);
                    match self.best_move_for(p, b, j, pairs) {
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
    fn best_move_for<J: JobUtility>(
        &self,
        p: &mut Problem<J>,
        b: &mut Bounds,
        j: usize,
        pairs: bool,
    ) -> Option<(f64, Move)> {
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
        // GPUs of another job on one node: one of them, or all. Bounds
        // (either restart state where the shape allows both) skip the
        // transfers that cannot gain before their constraints are checked:
        // all of them when the most job j could gain from more GPUs and
        // the most any other job could gain from fewer add up to nothing.
        let (rj, nj) = (self.replicas[j], self.nodes[j]);
        let most = p.node_gpus.iter().copied().max().unwrap_or(0);
        let mut receive = f64::NEG_INFINITY;
        let mut gains = vec![[f64::NEG_INFINITY; 2]; most as usize + 1];
        for du in 1..=most {
            for fresh in [0, 1] {
                let g = self.bound(p, b, j, rj + du, nj + fresh);
                gains[du as usize][fresh as usize] = g;
                receive = receive.max(g);
            }
        }
        let lose = (0..self.rows.len())
            .filter(|&i| i != j && self.replicas[i] > 0)
            .map(|i| self.lose[i])
            .fold(f64::NEG_INFINITY, f64::max);
        if receive + lose > 0.0 {
            for i in (0..self.rows.len()).filter(|&i| i != j && self.replicas[i] > 0) {
                if receive + self.lose[i] <= 0.0 {
                    continue;
                }
                for k in self.on[i].iter().map(|&k| k as usize) {
                    let have = self.rows[i][k] as i64;
                    for d in [1, have] {
                        let (du, left) = (d as u32, self.rows[i][k] - d as u32);
                        let gi = self.bound(p, b, i, self.replicas[i] - du, self.nodes[i] - u32::from(left == 0));
                        let gj = gains[du as usize][usize::from(self.rows[j][k] == 0)];
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
