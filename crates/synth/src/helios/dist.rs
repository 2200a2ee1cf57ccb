//! The distributions Helios jobs are drawn from, fitted to the published
//! per-cluster medians and means (`helios_cluster_summary.csv`), and the
//! stratified sampling that makes a sample of any size follow them: job k
//! of n takes the quantile at a random point of the k-th 1/n slice, so
//! medians, means and shares hold even for small samples of heavy tails.

use statrs::function::erf::{erfc, erfc_inv};

use crate::rng::Rng;

pub fn phi(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

pub fn phi_inv(p: f64) -> f64 {
    -std::f64::consts::SQRT_2 * erfc_inv(2.0 * p.clamp(1e-300, 1.0 - 1e-16))
}

/// A log-normal cut at `cap` (the longest job a cluster runs).
#[derive(Clone, Copy, Debug)]
pub struct TruncLogNormal {
    mu: f64,
    sigma: f64,
    ln_cap: f64,
}

impl TruncLogNormal {
    fn new(mu: f64, sigma: f64, cap: f64) -> Self {
        TruncLogNormal { mu, sigma, ln_cap: cap.ln() }
    }

    fn mass(&self) -> f64 {
        phi((self.ln_cap - self.mu) / self.sigma)
    }

    pub fn quantile(&self, u: f64) -> f64 {
        (self.mu + self.sigma * phi_inv(u * self.mass())).exp()
    }

    pub fn median(&self) -> f64 {
        self.quantile(0.5)
    }

    pub fn mean(&self) -> f64 {
        let s2 = self.sigma * self.sigma;
        (self.mu + s2 / 2.0).exp() * phi((self.ln_cap - self.mu - s2) / self.sigma) / self.mass()
    }

    /// E[X | quantile level > u0]: the value given to the top slice of a
    /// stratified sample, whose random draw would dominate a small sample's mean.
    pub fn mean_above(&self, u0: f64) -> f64 {
        let s = self.sigma;
        let z_cap = (self.ln_cap - self.mu) / s;
        let z0 = phi_inv(u0 * self.mass());
        let mass = phi(z_cap) - phi(z0);
        if mass <= 0.0 {
            return self.quantile(u0);
        }
        (self.mu + s * s / 2.0).exp() * (phi(z_cap - s) - phi(z0 - s)) / mass
    }

    /// The distribution with this `median` and `sigma` (μ by bisection).
    fn with_median(median: f64, sigma: f64, cap: f64) -> Self {
        let (mut lo, mut hi) = (median.ln() - 1.0, median.ln() + 10.0 * sigma + 10.0);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if TruncLogNormal::new(mid, sigma, cap).median() < median {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        TruncLogNormal::new(0.5 * (lo + hi), sigma, cap)
    }

    /// The distribution with this median and (as near as the cap allows) mean.
    pub fn fit(median: f64, mean: f64, cap: f64) -> Self {
        let (mut lo, mut hi) = (0.01f64, 12.0f64);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if TruncLogNormal::with_median(median, mid, cap).mean() < mean {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        TruncLogNormal::with_median(median, 0.5 * (lo + hi), cap)
    }

    /// The distribution whose quantile `q` is `x`, with this `sigma`.
    fn with_quantile(q: f64, x: f64, sigma: f64, cap: f64) -> Self {
        let (mut lo, mut hi) = (x.ln() - 10.0 * sigma - 10.0, x.ln() + 10.0 * sigma + 10.0);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if TruncLogNormal::new(mid, sigma, cap).quantile(q) < x {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        TruncLogNormal::new(0.5 * (lo + hi), sigma, cap)
    }

    /// The distribution with quantile `q` at `x` and (as near as the cap
    /// allows) this mean.
    pub fn fit_quantile(q: f64, x: f64, mean: f64, cap: f64) -> Self {
        let (mut lo, mut hi) = (0.01f64, 12.0f64);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if TruncLogNormal::with_quantile(q, x, mid, cap).mean() < mean {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        TruncLogNormal::with_quantile(q, x, 0.5 * (lo + hi), cap)
    }

    /// The distribution with this `sigma` and mean (μ by bisection).
    pub fn with_mean(mean: f64, sigma: f64, cap: f64) -> Self {
        let (mut lo, mut hi) = (-20.0f64, cap.ln());
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if TruncLogNormal::new(mid, sigma, cap).mean() < mean {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        TruncLogNormal::new(0.5 * (lo + hi), sigma, cap)
    }
}

/// `n` values, one from each 1/n quantile slice, ascending.
pub fn stratified(n: usize, rng: &mut Rng, quantile: impl Fn(f64) -> f64) -> Vec<f64> {
    (0..n).map(|k| quantile((k as f64 + rng.f64()) / n as f64)).collect()
}

/// Like [`stratified`], but the top slice takes its conditional mean, so
/// the sample mean of a heavy tail does not hinge on one draw.
pub fn stratified_tail(n: usize, rng: &mut Rng, d: &impl Distribution) -> Vec<f64> {
    let mut v = stratified(n, rng, |u| d.quantile(u));
    if n > 1 {
        v[n - 1] = d.mean_above(1.0 - 1.0 / n as f64);
    }
    v
}

/// What stratified sampling needs of a distribution.
pub trait Distribution {
    fn quantile(&self, u: f64) -> f64;
    fn mean_above(&self, u0: f64) -> f64;
}

impl Distribution for TruncLogNormal {
    fn quantile(&self, u: f64) -> f64 {
        TruncLogNormal::quantile(self, u)
    }
    fn mean_above(&self, u0: f64) -> f64 {
        TruncLogNormal::mean_above(self, u0)
    }
}

impl Distribution for Queue {
    fn quantile(&self, u: f64) -> f64 {
        Queue::quantile(self, u)
    }
    fn mean_above(&self, u0: f64) -> f64 {
        if u0 < self.zero {
            return self.tail.mean() * (1.0 - self.zero) / (1.0 - u0);
        }
        self.tail.mean_above((u0 - self.zero) / (1.0 - self.zero))
    }
}

/// Queueing delay: 0 for a share `zero` of the jobs (the published medians
/// are 0 s), a truncated log-normal tail for the rest, fitted to the mean.
#[derive(Clone, Copy, Debug)]
pub struct Queue {
    zero: f64,
    tail: TruncLogNormal,
}

impl Queue {
    pub fn fit(mean: f64, zero: f64, cap: f64) -> Queue {
        Queue { zero, tail: TruncLogNormal::with_mean((mean / (1.0 - zero)).max(0.5), 2.0, cap) }
    }

    /// Zeros for a share `zero` (below one half), a tail fitted so that
    /// the whole has this `median` and `mean` (AcmeTrace publishes both).
    pub fn fit_median(mean: f64, zero: f64, median: f64, cap: f64) -> Queue {
        let q = (0.5 - zero) / (1.0 - zero);
        Queue { zero, tail: TruncLogNormal::fit_quantile(q, median, (mean / (1.0 - zero)).max(median), cap) }
    }

    pub fn quantile(&self, u: f64) -> f64 {
        if u < self.zero {
            0.0
        } else {
            self.tail.quantile((u - self.zero) / (1.0 - self.zero))
        }
    }
}

/// Exact counts per category for `n` draws with these shares (largest remainder).
pub fn apportion(n: usize, shares: &[f64]) -> Vec<usize> {
    let total: f64 = shares.iter().sum();
    let exact: Vec<f64> = shares.iter().map(|s| s / total * n as f64).collect();
    let mut counts: Vec<usize> = exact.iter().map(|x| x.floor() as usize).collect();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())).then(a.cmp(&b)));
    let short = n - counts.iter().sum::<usize>();
    for &i in order.iter().take(short) {
        counts[i] += 1;
    }
    counts
}

/// GPUs per GPU job: 1 GPU for a share `p1` (the published medians are 1),
/// powers of two up to `max` for the rest with weights r^k, r fitted so the
/// mean is `mean`.
pub fn gpu_shares(mean: f64, p1: f64, max: u32) -> Vec<(u32, f64)> {
    let sizes: Vec<u32> = (1..=10).map(|k| 1u32 << k).filter(|&g| g <= max.max(2)).collect();
    let shares = |r: f64| -> Vec<(u32, f64)> {
        let w: Vec<f64> = (1..=sizes.len()).map(|k| r.powi(k as i32)).collect();
        let sum: f64 = w.iter().sum();
        std::iter::once((1, p1)).chain(sizes.iter().zip(&w).map(|(&g, x)| (g, (1.0 - p1) * x / sum))).collect()
    };
    let mean_of = |r: f64| shares(r).iter().map(|(g, p)| *g as f64 * p).sum::<f64>();
    let (mut lo, mut hi) = (-8.0f64, 8.0f64);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if mean_of(mid.exp()) < mean {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    shares((0.5 * (lo + hi)).exp())
}

/// Pairs GPU counts with durations with a rank correlation that grows with
/// `c` (0: independent, 1: the largest jobs run longest), through a
/// Gaussian copula. The noise is drawn once, so the pairing moves
/// monotonically with `c` while `c` is fitted.
pub struct Pairing {
    /// Normal score of each job's GPU-count rank.
    score: Vec<f64>,
    noise: Vec<f64>,
}

impl Pairing {
    pub fn new(gpus: &[u32], rng: &mut Rng) -> Pairing {
        let n = gpus.len();
        let mut by_gpu: Vec<usize> = (0..n).collect();
        by_gpu.sort_unstable_by_key(|&i| (gpus[i], i));
        let mut score = vec![0.0; n];
        for (rank, &i) in by_gpu.iter().enumerate() {
            score[i] = phi_inv((rank as f64 + 0.5) / n as f64);
        }
        Pairing { score, noise: (0..n).map(|_| rng.normal()).collect() }
    }

    /// `durs` (ascending) dealt to the jobs: `out[i]` is job i's.
    pub fn at(&self, durs: &[f64], c: f64) -> Vec<f64> {
        let s = (1.0 - c * c).sqrt();
        // Sort by the latent value through an order-preserving integer key
        // (ties by index): several times faster than comparing floats.
        let mut by_z: Vec<(u64, u32)> = self
            .score
            .iter()
            .zip(&self.noise)
            .enumerate()
            .map(|(i, (g, e))| (ordered(c * g + s * e), i as u32))
            .collect();
        by_z.sort_unstable();
        let mut out = vec![0.0; by_z.len()];
        for (rank, &(_, i)) in by_z.iter().enumerate() {
            out[i as usize] = durs[rank];
        }
        out
    }
}

/// An integer with the order of the float (IEEE 754 total order).
fn ordered(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_has_the_asked_median_and_mean() {
        // Venus GPU jobs: median 204 s, mean 13,040.598 s.
        let d = TruncLogNormal::fit(204.0, 13_040.598, 7.0 * 86_400.0);
        assert!((d.median() / 204.0 - 1.0).abs() < 1e-6);
        assert!((d.mean() / 13_040.598 - 1.0).abs() < 1e-4);
        let mut rng = Rng::new(1);
        let v = stratified(50_000, &mut rng, |u| d.quantile(u));
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert!((mean / 13_040.598 - 1.0).abs() < 0.02, "{mean}");
        assert!((v[25_000] / 204.0 - 1.0).abs() < 0.01);
    }

    #[test]
    fn the_top_slice_mean_keeps_small_samples_on_the_mean() {
        // Earth CPU jobs: median 1 s, mean 162.73 s; 1,000 jobs.
        let d = TruncLogNormal::fit(1.0, 162.73, 7.0 * 86_400.0);
        let whole = d.mean_above(0.0);
        assert!((whole / d.mean() - 1.0).abs() < 1e-6);
        for seed in 0..20 {
            let v = stratified_tail(1000, &mut Rng::new(seed), &d);
            let mean = v.iter().sum::<f64>() / 1000.0;
            assert!((mean / 162.73 - 1.0).abs() < 0.1, "seed {seed}: {mean}");
        }
    }

    #[test]
    fn queue_is_mostly_zero_with_the_asked_mean() {
        let q = Queue::fit(1253.288, 0.7, 3.0 * 86_400.0);
        let mut rng = Rng::new(2);
        let v = stratified(40_000, &mut rng, |u| q.quantile(u));
        assert_eq!(v[20_000], 0.0);
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert!((mean / 1253.288 - 1.0).abs() < 0.02, "{mean}");
    }

    #[test]
    fn gpu_shares_hit_the_mean() {
        for (mean, p1) in [(6.736, 0.55), (2.101, 0.65), (4.01, 0.6)] {
            let s = gpu_shares(mean, p1, 128);
            let m: f64 = s.iter().map(|(g, p)| *g as f64 * p).sum();
            assert!((m - mean).abs() < 1e-6);
            assert!((s.iter().map(|x| x.1).sum::<f64>() - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn a_quantile_fit_has_the_asked_quantile_and_mean() {
        // Kalos GPU jobs: median queue 17 s, mean 214.179 s, 30 % start at once.
        let q = Queue::fit_median(214.179, 0.3, 17.0, 3.0 * 86_400.0);
        let v = stratified(40_000, &mut Rng::new(4), |u| q.quantile(u));
        assert!((v[20_000] / 17.0 - 1.0).abs() < 0.02, "{}", v[20_000]);
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert!((mean / 214.179 - 1.0).abs() < 0.03, "{mean}");
    }

    #[test]
    fn apportion_is_exact() {
        assert_eq!(apportion(10, &[0.526, 0.272, 0.202]), vec![5, 3, 2]);
        assert_eq!(apportion(7, &[1.0, 1.0, 1.0]).iter().sum::<usize>(), 7);
    }

    #[test]
    fn pairing_raises_gpu_time_with_c() {
        let mut rng = Rng::new(3);
        let gpus: Vec<u32> = (0..5000).map(|i| if i % 5 == 0 { 8 } else { 1 }).collect();
        let durs: Vec<f64> = (0..5000).map(|i| i as f64).collect();
        let p = Pairing::new(&gpus, &mut rng);
        let gt = |c: f64| p.at(&durs, c).iter().zip(&gpus).map(|(d, g)| d * *g as f64).sum::<f64>();
        assert!(gt(0.0) < gt(0.5) && gt(0.5) < gt(1.0));
        assert!(ordered(-2.0) < ordered(-1.0) && ordered(-1.0) < ordered(0.0) && ordered(0.0) < ordered(3.5));
        let mut all = p.at(&durs, 0.7);
        all.sort_by(f64::total_cmp);
        assert_eq!(all, durs);
    }
}
