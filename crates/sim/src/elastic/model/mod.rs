//! What a job knows about itself, as Pollux's agent models it (OSDI'21 §3):
//! a throughput model fitted to the iteration times it has observed
//! ([`fit`]), its statistical efficiency from the measured gradient noise,
//! and their product, goodput. A scheduler sees jobs only through this
//! model (the true speeds are [`crate::elastic::app::throughput`]).
//!
//! - Time of one iteration (§3.2, Eq. 6-8): accumulation (compute) time
//!   `T_grad = α_c + β_c · m` for `m` examples per GPU; synchronisation time
//!   `T_sync = α + β · max(K - 2, 0)` for `K` replicas, with (α_n, β_n) when
//!   the replicas span several nodes and (α_r, β_r) within one node, 0 for
//!   one replica; the two overlap as `(T_grad^γ + T_sync^γ)^(1/γ)`, γ in
//!   [1, 10]; each extra accumulation step adds one `T_grad`.
//! - Statistical efficiency (§3.1, Eq. 3) relative to the smallest batch
//!   size `M0`: `E(M) = gain / scale`, `scale = M / M0`,
//!   `gain = (var + sqr) / (var / scale + sqr)`, from the gradient's squared
//!   norm and variance.
//! - Goodput = throughput (examples per second) x efficiency; a job picks
//!   the per-GPU batch and accumulation steps with the most goodput for its
//!   GPUs ([`Goodput::best`]).
//! - Speedup (§4.2) of (nodes, replicas) = best goodput there / best goodput
//!   of a reference allocation.

pub mod fit;

use crate::elastic::app::training::gain;

/// The throughput model's parameters (seconds).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PerfParams {
    pub alpha_c: f64,
    pub beta_c: f64,
    pub alpha_n: f64,
    pub beta_n: f64,
    pub alpha_r: f64,
    pub beta_r: f64,
    pub gamma: f64,
}

impl PerfParams {
    pub fn to_array(self) -> [f64; 7] {
        [self.alpha_c, self.beta_c, self.alpha_n, self.beta_n, self.alpha_r, self.beta_r, self.gamma]
    }

    pub fn from_array(a: [f64; 7]) -> PerfParams {
        PerfParams {
            alpha_c: a[0],
            beta_c: a[1],
            alpha_n: a[2],
            beta_n: a[3],
            alpha_r: a[4],
            beta_r: a[5],
            gamma: a[6],
        }
    }

    /// Compute time of one accumulation step of `atomic_bsz` examples.
    pub fn accum_time(&self, atomic_bsz: f64) -> f64 {
        self.alpha_c + self.beta_c * atomic_bsz
    }

    /// Synchronisation time for `replicas` replicas on `nodes` nodes.
    pub fn network_time(&self, nodes: u32, replicas: u32) -> f64 {
        let (alpha, beta) = if nodes > 1 {
            (self.alpha_n, self.beta_n)
        } else if replicas > 1 {
            (self.alpha_r, self.beta_r)
        } else {
            (NEGLIGIBLE, NEGLIGIBLE)
        };
        alpha + beta * (replicas as f64 - 2.0).max(NEGLIGIBLE)
    }

    /// Time of the step that synchronises: compute and network overlapped.
    pub fn optim_time(&self, accum: f64, network: f64) -> f64 {
        ((accum.powf(self.gamma) + network.powf(self.gamma)).ln() / self.gamma).exp()
    }

    /// Seconds per iteration (all accumulation steps and the synchronising one).
    pub fn iteration_time(&self, nodes: u32, replicas: u32, atomic_bsz: f64, accum_steps: u32) -> f64 {
        let accum = self.accum_time(atomic_bsz);
        accum_steps as f64 * accum + self.optim_time(accum, self.network_time(nodes, replicas))
    }
}

/// The model's stand-in for "nothing" (a term that must stay positive).
pub const NEGLIGIBLE: f64 = 1e-8;

/// Gradient statistics: squared norm and variance.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GradParams {
    pub sqr: f64,
    pub var: f64,
}

/// Batch-size limits of a job's application.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct BatchLimits {
    /// The smallest (initial) total batch size, `M0`.
    pub init: u32,
    /// The largest total batch size.
    pub max: u32,
    /// Per-GPU batch range.
    pub min_local: u32,
    pub max_local: u32,
}

/// A configuration the agent may run: per-GPU batch and accumulation steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    pub goodput: f64,
    pub atomic_bsz: u32,
    pub accum_steps: u32,
}

/// A job's goodput function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Goodput {
    pub perf: PerfParams,
    pub grad: GradParams,
    pub limits: BatchLimits,
}

/// Candidate total batch sizes per (nodes, replicas): geometrically spaced
/// between the smallest allowed and the largest.
const CANDIDATES: usize = 50;

impl Goodput {
    /// Statistical efficiency of total batch `batch`.
    pub fn efficiency(&self, batch: f64) -> f64 {
        let scale = batch / self.limits.init as f64;
        gain(self.grad.sqr, self.grad.var, scale) / scale
    }

    /// Examples per second x efficiency.
    pub fn evaluate(&self, nodes: u32, replicas: u32, atomic_bsz: u32, accum_steps: u32) -> f64 {
        let batch = (replicas * atomic_bsz * (accum_steps + 1)) as f64;
        let time = self.perf.iteration_time(nodes, replicas, atomic_bsz as f64, accum_steps);
        batch / time * self.efficiency(batch)
    }

    /// The most goodput on (nodes, replicas) over 50 total batch sizes
    /// spaced geometrically from max(M0, min_local x replicas) to the
    /// largest, each split into per-GPU batches of at most `max_local` (at
    /// least two steps on one GPU above M0, so the gradient noise can be
    /// measured); a split outside the per-GPU range scores 0. Ties go to
    /// the smaller batch.
    pub fn best(&self, nodes: u32, replicas: u32) -> Choice {
        self.best_of(replicas, &self.throughputs(nodes, replicas))
    }

    /// Examples per second of each candidate split of [`Goodput::best`] on
    /// (nodes, replicas) (0 for a split outside the per-GPU range). They
    /// depend only on the throughput parameters and the limits, so a
    /// caller may keep them while only the gradient statistics change.
    pub fn throughputs(&self, nodes: u32, replicas: u32) -> Vec<f64> {
        let p = &self.perf;
        let net = p.network_time(nodes, replicas).powf(p.gamma);
        let inv_gamma = 1.0 / p.gamma;
        with_candidates(&self.limits, replicas, |list| {
            list.iter()
                .map(|&(atomic, accum)| {
                    if atomic == 0 {
                        return 0.0;
                    }
                    let batch = (replicas * atomic * (accum + 1)) as f64;
                    let acc = p.accum_time(atomic as f64);
                    batch / (accum as f64 * acc + (acc.powf(p.gamma) + net).powf(inv_gamma))
                })
                .collect()
        })
    }

    /// [`Goodput::best`] from the candidates' [`Goodput::throughputs`].
    pub fn best_of(&self, replicas: u32, throughputs: &[f64]) -> Choice {
        let init = self.limits.init as f64;
        with_candidates(&self.limits, replicas, |list| {
            let mut best = Choice { goodput: f64::NEG_INFINITY, atomic_bsz: 0, accum_steps: 0 };
            for (&(atomic, accum), &through) in list.iter().zip(throughputs) {
                let goodput = if atomic == 0 {
                    0.0
                } else {
                    let scale = (replicas * atomic * (accum + 1)) as f64 / init;
                    through * gain(self.grad.sqr, self.grad.var, scale) / scale
                };
                if goodput > best.goodput {
                    best = Choice { goodput, atomic_bsz: atomic, accum_steps: accum };
                }
            }
            best
        })
    }
}

/// Candidate splits per limits, then per replica count.
type CandidateTable = Vec<(BatchLimits, Vec<Vec<(u32, u32)>>)>;

thread_local! {
    /// Candidate splits per (limits, replicas): they depend on nothing else,
    /// and a replay has a handful of applications, so a short list of
    /// limits indexed by replicas finds them without hashing.
    static CANDIDATES_SEEN: std::cell::RefCell<CandidateTable> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Calls `f` with the candidate splits of (`limits`, `replicas`).
fn with_candidates<T>(limits: &BatchLimits, replicas: u32, f: impl FnOnce(&[(u32, u32)]) -> T) -> T {
    CANDIDATES_SEEN.with(|cell| {
        let mut table = cell.borrow_mut();
        let at = match table.iter().position(|(l, _)| l == limits) {
            Some(at) => at,
            None => {
                table.push((*limits, Vec::new()));
                table.len() - 1
            }
        };
        let per_replicas = &mut table[at].1;
        let r = replicas as usize;
        if per_replicas.len() <= r {
            per_replicas.resize(r + 1, Vec::new());
        }
        if per_replicas[r].is_empty() {
            per_replicas[r] = candidates(limits, replicas);
        }
        f(&per_replicas[r])
    })
}

/// The (per-GPU batch, accumulation steps) of each candidate total batch:
/// 50 sizes spaced geometrically from max(M0, min_local x replicas) to the
/// largest, each split into per-GPU batches of at most `max_local` (at
/// least two steps on one GPU above M0, so the gradient noise can be
/// measured); a split outside the per-GPU range is marked with a per-GPU
/// batch of 0 (it scores 0).
fn candidates(l: &BatchLimits, replicas: u32) -> Vec<(u32, u32)> {
    let eps = 1e-8;
    let lo = (l.init as f64).max(l.min_local as f64 * replicas as f64);
    geomspace(lo, l.max as f64, CANDIDATES)
        .map(|batch| {
            let local = batch / replicas as f64;
            let mut accum = ((local / l.max_local as f64 - eps).ceil() - 1.0).max(0.0) as u32;
            if replicas == 1 && local > l.init as f64 + eps {
                accum = accum.max(1);
            }
            let atomic = (local / (accum + 1) as f64 - eps).ceil() as u32;
            let valid = atomic >= l.min_local && atomic <= l.max_local;
            (if valid { atomic } else { 0 }, accum)
        })
        .collect()
}

/// `n` points from `a` to `b` equally spaced in log scale, the ends exact
/// (numpy's `geomspace`).
pub fn geomspace(a: f64, b: f64, n: usize) -> impl Iterator<Item = f64> {
    let (la, lb) = (a.log10(), b.log10());
    (0..n).map(move |i| match i {
        0 => a,
        i if i == n - 1 => b,
        i => 10f64.powf(la + (lb - la) * i as f64 / (n - 1) as f64),
    })
}

/// Speedups of one job relative to a reference allocation's goodput.
#[derive(Clone, Debug)]
pub struct Speedup {
    goodput: Option<Goodput>,
    /// Best goodput of the reference allocation (or its replica count, for
    /// a job without a model yet).
    base: f64,
}

impl Speedup {
    /// Relative to the best goodput on (`ref_nodes`, `ref_replicas`); a job
    /// that has not run yet (no model) is assumed to scale perfectly:
    /// speedup = replicas / `ref_replicas`.
    pub fn new(goodput: Option<Goodput>, ref_nodes: u32, ref_replicas: u32) -> Speedup {
        let base = match &goodput {
            Some(g) => g.best(ref_nodes, ref_replicas).goodput,
            None => ref_replicas as f64,
        };
        Speedup { goodput, base }
    }

    /// Speedup of `replicas` GPUs on `nodes` nodes (0 without GPUs).
    pub fn of(&self, nodes: u32, replicas: u32) -> f64 {
        if replicas == 0 {
            return 0.0;
        }
        match &self.goodput {
            Some(g) => g.best(nodes, replicas).goodput / self.base,
            None => replicas as f64 / self.base,
        }
    }
}
