//! `pollux`: Pollux's scheduler (Qiao et al., OSDI'21 §4.2). Every round it
//! re-allocates every GPU to maximise the fitness of the whole cluster, the
//! generalised (power) mean with exponent p (default -1) of the jobs'
//! speedups:
//!
//! `FITNESS_p = ((1/J) Σ_j (s_j + 0.001)^p)^(1/p)` (p = 0: geometric mean),
//!
//! where `s_j` is job j's speedup on its allocation, from its own fitted
//! goodput model ([`crate::elastic::model`]), relative to the goodput of
//! an equal share of the cluster (its GPUs divided evenly among the active
//! jobs, rounded up, on one node), scaled so that a whole node's worth of
//! speedup counts 1 (times nodes / GPUs), and multiplied by the restart
//! penalty `max(age - restarts x delay, 0) / (age + delay)` if its
//! allocation changes. A job may get at most twice the most GPUs it has
//! been observed on (at least 1, at most 64 and at most what its largest
//! batch allows), so a job discovers its scalability step by step; NCF
//! runs on one GPU at its largest batch size, as in the artifact. Jobs
//! choose their own batch sizes (adaptive, the agent's goodput-optimal
//! batch). With interference avoidance, no node hosts two jobs that each
//! span several nodes.
//!
//! The fitness is maximised by [`super::search`]: for p < 0 maximising it
//! is minimising Σ (s_j + 0.001)^p, for p > 0 maximising Σ (s_j + 0.001)^p,
//! for p = 0 maximising Σ ln max(s_j, 0.001), all sums of per-job terms.
//! Jobs are ranked by attained GPU-service, then submission (the
//! artifact's order), which breaks ties.

use std::collections::HashMap;

use super::search::{JobUtility, Problem};
use super::{Allocation, ElasticPolicy, JobView, Round};
use crate::elastic::job::{BatchRule, ElasticJob};
use crate::elastic::model::Goodput;

/// The most GPUs the artifact lets a job grow to.
pub const MAX_REPLICAS: u32 = 64;
/// The speedup floor inside the fitness.
const EPS: f64 = 1e-3;

#[derive(Clone, Debug)]
pub struct Pollux {
    /// Fairness exponent p of the generalised mean.
    pub p: f64,
    /// At most one multi-node job per node.
    pub avoid_interference: bool,
    /// Best goodputs per job, kept across rounds while its model is unchanged.
    cache: HashMap<usize, Goodputs>,
}

/// A job's best goodput per (one node or several, GPUs), computed on demand.
#[derive(Clone, Debug)]
struct Goodputs {
    model: Option<Goodput>,
    /// [one node, several][replicas]; NaN until computed.
    best: [Vec<f64>; 2],
    /// [one node, several][replicas]: the candidate splits' throughputs
    /// (empty until computed), kept while the throughput model is.
    through: [Vec<Vec<f64>>; 2],
}

impl Goodputs {
    fn new(model: Option<Goodput>) -> Goodputs {
        Goodputs { model, best: [Vec::new(), Vec::new()], through: [Vec::new(), Vec::new()] }
    }

    /// For the job's model now: the best goodputs start again; the
    /// throughputs are kept if only the gradient statistics changed (a new
    /// epoch or batch size), as they depend on the rest only.
    fn renew(self, model: Option<Goodput>) -> Goodputs {
        if self.model == model {
            return self;
        }
        let same = |a: &Goodput, b: &Goodput| a.perf == b.perf && a.limits == b.limits;
        match (self.model, model) {
            (Some(old), Some(new)) if same(&old, &new) => Goodputs { model, best: [Vec::new(), Vec::new()], ..self },
            _ => Goodputs::new(model),
        }
    }

    /// Best goodput on `replicas` GPUs (a job without a model scales
    /// perfectly: its goodput is its GPU count).
    fn get(&mut self, multi: bool, replicas: u32) -> f64 {
        let Some(model) = self.model else { return replicas as f64 };
        let (v, through) = (&mut self.best[multi as usize], &mut self.through[multi as usize]);
        let r = replicas as usize;
        if v.len() <= r {
            v.resize(r + 1, f64::NAN);
        }
        if v[r].is_nan() {
            v[r] = if replicas == 0 {
                0.0
            } else {
                if through.len() <= r {
                    through.resize(r + 1, Vec::new());
                }
                if through[r].is_empty() {
                    through[r] = model.throughputs(if multi { 2 } else { 1 }, replicas);
                }
                model.best_of(replicas, &through[r]).goodput
            };
        }
        v[r]
    }
}

impl Pollux {
    pub fn new(p: f64, avoid_interference: bool) -> Pollux {
        Pollux { p, avoid_interference, cache: HashMap::new() }
    }

    /// The per-job term whose sum the fitness is monotone in (larger is better).
    pub fn term(&self, speedup: f64) -> f64 {
        term(self.p, speedup)
    }

    /// The generalised mean of speedups (the fitness itself).
    pub fn fitness(&self, speedups: &[f64]) -> f64 {
        let n = speedups.len() as f64;
        if self.p == 0.0 {
            (speedups.iter().map(|s| s.max(EPS).ln()).sum::<f64>() / n).exp()
        } else {
            (speedups.iter().map(|s| (s + EPS).powf(self.p)).sum::<f64>() / n).powf(1.0 / self.p)
        }
    }

    fn max_replicas(j: &JobView) -> u32 {
        if j.application.name == "ncf" {
            return 1;
        }
        (2 * j.max_observed_replicas).clamp(1, MAX_REPLICAS).min(j.application.max_replicas())
    }
}

/// One job inside the search.
struct Term {
    p: f64,
    goodputs: Goodputs,
    /// Goodput of the reference (equal-share) allocation.
    base: f64,
    /// Nodes / GPUs: a node's worth of speedup counts 1.
    scale: f64,
    restart: f64,
    max_replicas: u32,
    current: Vec<u32>,
}

impl JobUtility for Term {
    fn max_replicas(&self) -> u32 {
        self.max_replicas
    }

    fn current(&self) -> &[u32] {
        &self.current
    }

    fn utility(&mut self, multi: bool, replicas: u32, changed: bool) -> f64 {
        let s = self.goodputs.get(multi, replicas) / self.base;
        let s = s * self.scale * if changed { self.restart } else { 1.0 };
        term(self.p, s)
    }
}

fn term(p: f64, speedup: f64) -> f64 {
    if p == 0.0 {
        speedup.max(EPS).ln()
    } else if p == -1.0 {
        -1.0 / (speedup + EPS)
    } else if p < 0.0 {
        -(speedup + EPS).powf(p)
    } else {
        (speedup + EPS).powf(p)
    }
}

/// GPUs per node from the node of each GPU.
fn row(gpus: &[u32], nodes: usize) -> Vec<u32> {
    let mut r = vec![0; nodes];
    for &g in gpus {
        r[g as usize] += 1;
    }
    r
}

impl ElasticPolicy for Pollux {
    fn name(&self) -> &str {
        "pollux"
    }

    fn batch_rule(&self, job: &ElasticJob) -> BatchRule {
        if job.application.name == "ncf" {
            BatchRule::Fixed(job.application.max_batch_size)
        } else {
            BatchRule::Adaptive
        }
    }

    fn allocate(&mut self, round: &Round) -> Vec<Allocation> {
        let (m, n) = (round.node_gpus.len(), round.jobs.len());
        if n == 0 {
            return Vec::new();
        }
        let total: u32 = round.node_gpus.iter().sum();
        let fair_replicas = total.div_ceil(n as u32);
        let fair_nodes = (m as u32).div_ceil(total).max(1);
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&round.jobs[a], &round.jobs[b]);
            x.attained_gpu_s.total_cmp(&y.attained_gpu_s).then(x.submit.cmp(&y.submit))
        });
        let delay = round.restart_delay_s;
        let terms = order
            .iter()
            .map(|&i| {
                let j = &round.jobs[i];
                let age = (round.now - j.submit) as f64 / 1000.0;
                let mut goodputs = match self.cache.remove(&j.index) {
                    Some(g) => g.renew(j.goodput),
                    None => Goodputs::new(j.goodput),
                };
                let base = goodputs.get(fair_nodes > 1, fair_replicas);
                Term {
                    p: self.p,
                    goodputs,
                    base,
                    scale: m as f64 / total as f64,
                    restart: (age - j.restarts as f64 * delay).max(0.0) / (age + delay),
                    max_replicas: Self::max_replicas(j),
                    current: row(&j.gpus, m),
                }
            })
            .collect();
        let mut problem =
            Problem { node_gpus: round.node_gpus, jobs: terms, avoid_interference: self.avoid_interference };
        let rows = problem.solve();
        let mut out = vec![Allocation::default(); n];
        let terms = std::mem::take(&mut problem.jobs);
        for (k, (&i, t)) in order.iter().zip(terms).enumerate() {
            let j = &round.jobs[i];
            out[i].gpus = if rows[k] == t.current {
                j.gpus.clone()
            } else {
                rows[k].iter().enumerate().flat_map(|(node, &g)| std::iter::repeat_n(node as u32, g as usize)).collect()
            };
            self.cache.insert(j.index, t.goodputs);
        }
        out
    }
}
