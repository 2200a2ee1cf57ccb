//! A small, fully specified random number generator and the distributions
//! synth draws from. Written out here (xoshiro256** seeded by SplitMix64,
//! Marsaglia's polar method) rather than taken from a crate so that a seed
//! gives the same trace forever, whatever crate versions Cargo resolves.

/// xoshiro256** (Blackman and Vigna, 2018).
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
    /// The second normal deviate of the last polar-method draw.
    spare: Option<f64>,
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        Rng { s: [splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x)], spare: None }
    }

    /// An independent stream for a named part of the generator, so adding
    /// draws to one part does not shift every other part.
    pub fn stream(seed: u64, name: &str) -> Rng {
        // FNV-1a of the name, mixed with the seed.
        let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
        Rng::new(seed ^ h.rotate_left(17))
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.f64()
    }

    /// Uniform integer in [0, n); n > 0 (Lemire's multiply-shift, with the
    /// small bias irrelevant here).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }

    /// Standard normal deviate (Marsaglia polar method).
    pub fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        loop {
            let u = 2.0 * self.f64() - 1.0;
            let v = 2.0 * self.f64() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                let m = (-2.0 * s.ln() / s).sqrt();
                self.spare = Some(v * m);
                return u * m;
            }
        }
    }

    /// Log-normal with the given median and log-space sigma.
    pub fn lognormal(&mut self, median: f64, sigma: f64) -> f64 {
        median * (sigma * self.normal()).exp()
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.f64()).ln()
    }

    /// Pareto (type I) with scale `xm` and shape `alpha`.
    pub fn pareto(&mut self, xm: f64, alpha: f64) -> f64 {
        xm / (1.0 - self.f64()).powf(1.0 / alpha)
    }

    /// Poisson count (Knuth for small means, rounded normal for large).
    pub fn poisson(&mut self, mean: f64) -> u64 {
        if mean <= 0.0 {
            return 0;
        }
        if mean > 50.0 {
            return (mean + mean.sqrt() * self.normal()).round().max(0.0) as u64;
        }
        let limit = (-mean).exp();
        let mut k = 0;
        let mut p = self.f64();
        while p > limit {
            k += 1;
            p *= self.f64();
        }
        k
    }

    /// Index drawn with probability proportional to `weights`.
    pub fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut x = self.f64() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }

    /// Shuffles `v` in place (Fisher-Yates, drawing from the back).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }

    /// `n` lowercase hex digits, like the traces' hashed identifiers.
    pub fn hex(&mut self, n: usize) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut s = String::with_capacity(n);
        let mut bits = 0u64;
        for i in 0..n {
            if i % 16 == 0 {
                bits = self.next_u64();
            }
            s.push(HEX[(bits & 15) as usize] as char);
            bits >>= 4;
        }
        s
    }
}

/// Picks from a fixed table by cumulative weights in O(log n): for the
/// large categorical draws (users, groups) that `Rng::weighted` would scan.
#[derive(Clone, Debug)]
pub struct Cumulative {
    cum: Vec<f64>,
}

impl Cumulative {
    pub fn new(weights: &[f64]) -> Cumulative {
        let mut acc = 0.0;
        let cum = weights
            .iter()
            .map(|w| {
                acc += w;
                acc
            })
            .collect();
        Cumulative { cum }
    }

    pub fn len(&self) -> usize {
        self.cum.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cum.is_empty()
    }

    pub fn sample(&self, rng: &mut Rng) -> usize {
        let total = *self.cum.last().expect("non-empty weights");
        let x = rng.f64() * total;
        self.cum.partition_point(|&c| c <= x).min(self.cum.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_streams_differ_by_name() {
        let a: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(Rng::stream(7, "jobs").next_u64(), Rng::stream(7, "tasks").next_u64());
    }

    #[test]
    fn moments_of_the_basic_distributions_are_right() {
        let mut r = Rng::new(1);
        let n = 200_000;
        let mean = |f: &mut dyn FnMut() -> f64| (0..n).map(|_| f()).sum::<f64>() / n as f64;
        assert!((mean(&mut || r.f64()) - 0.5).abs() < 0.01);
        let mut r = Rng::new(2);
        assert!(mean(&mut || r.normal()).abs() < 0.01);
        let mut r = Rng::new(3);
        assert!((mean(&mut || r.exponential(4.0)) - 4.0).abs() < 0.05);
        let mut r = Rng::new(4);
        assert!((mean(&mut || r.poisson(3.0) as f64) - 3.0).abs() < 0.03);
        // Median of a log-normal is its median parameter.
        let mut r = Rng::new(5);
        let mut v: Vec<f64> = (0..n).map(|_| r.lognormal(100.0, 2.0)).collect();
        v.sort_by(f64::total_cmp);
        assert!((v[n / 2] / 100.0 - 1.0).abs() < 0.03);
    }

    #[test]
    fn cumulative_sampling_follows_weights() {
        let c = Cumulative::new(&[1.0, 0.0, 3.0]);
        let mut r = Rng::new(9);
        let mut counts = [0; 3];
        for _ in 0..40_000 {
            counts[c.sample(&mut r)] += 1;
        }
        assert_eq!(counts[1], 0);
        assert!((counts[2] as f64 / counts[0] as f64 - 3.0).abs() < 0.15);
    }
}
