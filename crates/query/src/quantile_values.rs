//! The values a continuous quantile keeps for one group, and the one or
//! two order statistics it needs of them.
//!
//! Values are appended to chunks that never move: a group's first chunk
//! holds 16 values and each next one twice as many, up to 65,536 (512 KB).
//! A `Vec` that doubles copies all it holds at every doubling and asks for
//! fresh memory twice its final size in all, which the kernel zeroes page
//! by page; `trace-overview`'s two medians over 6.1 million jobs spent
//! about a tenth of the query's CPU time on that.
//!
//! The k-th value is then found without gathering the values in one place:
//! one pass counts them by the top 16 bits of their order key (a double's
//! bits arranged so that their unsigned order is [`f64::total_cmp`]'s), a
//! second gathers the values of the bucket that holds rank k, and a
//! selection in that bucket gives the value. Under 65,536 values they are
//! gathered whole and selected at once.

/// The first chunk's capacity, in values.
const FIRST_CHUNK: usize = 16;
/// The largest chunk's capacity, in values (512 KB).
const LARGEST_CHUNK: usize = 1 << 16;
/// Fewer values than this are gathered whole for the selection: the
/// buckets' counts take 512 KB to clear, and a window over a growing frame
/// asks for the quantile once per row.
const GATHER_BELOW: usize = 1 << 16;
/// The order key's top bits that name a bucket.
const BUCKET_BITS: u32 = 16;

/// One group's values, in the order they came, in chunks that never move.
/// A sliding window frame drops the oldest from the front.
#[derive(Debug, Default)]
pub(crate) struct Values {
    chunks: Vec<Vec<f64>>,
    /// The values of the first chunk already dropped from the front.
    dropped: usize,
    /// The values held (not dropped).
    len: usize,
}

impl Values {
    #[inline]
    pub(crate) fn push(&mut self, value: f64) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < last.capacity() => last.push(value),
            _ => self.push_to_new_chunk(value),
        }
        self.len += 1;
    }

    #[cold]
    fn push_to_new_chunk(&mut self, value: f64) {
        let capacity = (FIRST_CHUNK << self.chunks.len().min(12)).min(LARGEST_CHUNK);
        let mut chunk = Vec::with_capacity(capacity);
        chunk.push(value);
        self.chunks.push(chunk);
    }

    pub(crate) fn extend(&mut self, values: impl IntoIterator<Item = f64>) {
        for value in values {
            self.push(value);
        }
    }

    /// Drops the `n` oldest values (a sliding frame's rows that leave
    /// it, which are the first it added); a chunk whose values are all
    /// dropped is freed.
    pub(crate) fn drop_front(&mut self, n: usize) -> Result<(), String> {
        if n > self.len {
            return Err(format!("{n} values to drop from a frame of {}", self.len));
        }
        let mut n = n;
        while n > 0 {
            let left_in_first = self.chunks[0].len() - self.dropped;
            if n < left_in_first {
                self.dropped += n;
                self.len -= n;
                return Ok(());
            }
            self.chunks.remove(0);
            self.dropped = 0;
            self.len -= left_in_first;
            n -= left_in_first;
        }
        Ok(())
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The values held, oldest first, as the chunks' slices.
    fn slices(&self) -> impl Iterator<Item = &[f64]> + '_ {
        self.chunks.iter().enumerate().map(|(i, c)| if i == 0 { &c[self.dropped..] } else { &c[..] })
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        self.slices().flatten().copied()
    }

    /// The bytes held, for the memory pool.
    pub(crate) fn bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<Vec<f64>>()
            + self.chunks.iter().map(|c| c.capacity() * std::mem::size_of::<f64>()).sum::<usize>()
    }

    /// The linearly interpolated quantile at fraction `q` (in [0, 1]): the
    /// value at position q·(n−1) of the values in ascending order, between
    /// the two around it `lo + (hi − lo) · frac`; None when there are none.
    pub(crate) fn quantile(&self, q: f64) -> Option<f64> {
        let n = self.len;
        if n == 0 {
            return None;
        }
        let position = q * (n - 1) as f64;
        let lo = (position.floor() as usize).min(n - 1);
        let frac = position - lo as f64;
        let between = frac != 0.0 && lo + 1 < n;
        let (low, high) = self.order_statistics(lo, between);
        Some(high.map_or(low, |high| low + (high - low) * frac))
    }

    /// The value of rank `k` (0-based, ascending by `f64::total_cmp`), and
    /// that of rank k + 1 if `next` (and there is one).
    fn order_statistics(&self, k: usize, next: bool) -> (f64, Option<f64>) {
        if self.len < GATHER_BELOW {
            let mut all: Vec<f64> = self.slices().collect::<Vec<_>>().concat();
            return select(&mut all, k, next);
        }
        let mut counts = vec![0usize; 1 << BUCKET_BITS];
        for value in self.iter() {
            counts[bucket(value)] += 1;
        }
        let (of_k, before) = bucket_of_rank(&counts, k);
        let (low, high) = match self.only_value_in(of_k) {
            Some(only) => (only, (next && k + 1 < before + counts[of_k]).then_some(only)),
            None => {
                let mut gathered: Vec<f64> = self.iter().filter(|&v| bucket(v) == of_k).collect();
                select(&mut gathered, k - before, next)
            }
        };
        if !next || high.is_some() {
            return (low, high);
        }
        // Rank k was its bucket's last: rank k + 1 is the least value of
        // the next bucket that has any.
        let Some(following) = (of_k + 1..counts.len()).find(|&b| counts[b] > 0) else { return (low, None) };
        let high = self.iter().filter(|&v| bucket(v) == following).min_by(f64::total_cmp);
        (low, high)
    }

    /// The value all the values of bucket `of` have, if they have one: a
    /// quantile often falls in a run of equal values (three quarters of
    /// Helios' jobs waited 0 s), which would otherwise all be gathered and
    /// selected among. The check stops at the first other value.
    fn only_value_in(&self, of: usize) -> Option<f64> {
        let mut values = self.iter().filter(|&v| bucket(v) == of);
        let first = values.next()?;
        values.all(|v| v.to_bits() == first.to_bits()).then_some(first)
    }
}

/// The value of rank `k` of `values` (reordered in place), and that of
/// rank k + 1 if `next` and there is one.
fn select(values: &mut [f64], k: usize, next: bool) -> (f64, Option<f64>) {
    let (_, low, above) = values.select_nth_unstable_by(k, f64::total_cmp);
    let high = if next { above.iter().copied().min_by(f64::total_cmp) } else { None };
    (*low, high)
}

/// The bucket that holds rank `k`, and how many values the buckets before
/// it hold (`k` is below the total count).
fn bucket_of_rank(counts: &[usize], k: usize) -> (usize, usize) {
    let mut before = 0;
    for (b, &count) in counts.iter().enumerate() {
        if k < before + count {
            return (b, before);
        }
        before += count;
    }
    unreachable!("rank {k} of {before} values")
}

/// A double's bits, arranged so that unsigned order is `f64::total_cmp`'s:
/// a positive value's sign bit set, a negative value's bits all flipped
/// (a larger magnitude is then a smaller key). A NaN with its sign bit
/// clear (as Parquet writers and Python write it) comes above +∞, as in
/// PostgreSQL; one with the bit set, below −∞, as `total_cmp` puts it.
#[inline]
fn order_key(value: f64) -> u64 {
    let bits = value.to_bits();
    bits ^ ((((bits as i64) >> 63) as u64) | (1 << 63))
}

#[inline]
fn bucket(value: f64) -> usize {
    (order_key(value) >> (64 - BUCKET_BITS)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan_tests::draws;

    /// The reference: every value sorted (the standard library's stable
    /// sort under `total_cmp`), ranks read off by index, the same formula.
    fn sorted_quantile(values: &[f64], q: f64) -> Option<f64> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        if n == 0 {
            return None;
        }
        let position = q * (n - 1) as f64;
        let lo = position.floor() as usize;
        let frac = position - lo as f64;
        if frac == 0.0 || lo + 1 == n {
            return Some(sorted[lo]);
        }
        Some(sorted[lo] + (sorted[lo + 1] - sorted[lo]) * frac)
    }

    fn same(a: Option<f64>, b: Option<f64>) -> bool {
        a.map(f64::to_bits) == b.map(f64::to_bits)
    }

    /// Worked by hand: 4 values, q = 0.9: position 0.9 · 3 = 2.7 between the
    /// sorted 3rd (30) and 4th (100): 30 + 70 · 0.7 = 79 (to an ulp).
    #[test]
    fn quantiles_worked_by_hand() {
        let of = |values: &[f64], q: f64| {
            let mut v = Values::default();
            v.extend(values.iter().copied());
            v.quantile(q)
        };
        assert!((of(&[100.0, 10.0, 30.0, 20.0], 0.9).unwrap() - 79.0).abs() < 1e-12);
        assert_eq!(of(&[100.0, 10.0, 30.0, 20.0], 0.5), Some(25.0));
        assert_eq!(of(&[3.0], 0.3), Some(3.0));
        assert_eq!(of(&[1.0, 2.0], 0.0), Some(1.0));
        assert_eq!(of(&[1.0, 2.0], 1.0), Some(2.0));
        assert_eq!(of(&[], 0.5), None);
        assert!(of(&[f64::NAN, 1.0], 1.0).unwrap().is_nan(), "NaN sorts above every number");
        // 10,000 values 0, 1, ..., 9,999 pushed in reverse: the median is
        // 4,999.5, the 90th percentile at position 8,999.1 is 8,999.1.
        let many: Vec<f64> = (0..10_000).rev().map(f64::from).collect();
        assert_eq!(of(&many, 0.5), Some(4_999.5));
        assert!((of(&many, 0.9).unwrap() - 8_999.1).abs() < 1e-9);
    }

    /// The chunks grow 16, 32, ... up to 65,536 values and keep every value
    /// in its order.
    #[test]
    fn chunks_grow_to_their_largest_and_keep_the_order() {
        let mut v = Values::default();
        v.extend((0..300_000).map(f64::from));
        let capacities: Vec<usize> = v.chunks.iter().map(Vec::capacity).collect();
        assert_eq!(capacities[..4], [16, 32, 64, 128]);
        assert_eq!(capacities[12..], [65_536, 65_536, 65_536, 65_536]);
        assert_eq!(capacities[..12].iter().sum::<usize>(), 16 * 4_095);
        assert_eq!(v.len(), 300_000);
        assert!(v.iter().eq((0..300_000).map(f64::from)));
    }

    /// Random groups against the sorted reference, bit for bit: sizes on
    /// both sides of the gathering threshold, values drawn from few
    /// distinct ones (ranks inside long runs of equal values), from a
    /// narrow range (one bucket), and from every kind of double (±0, ±∞,
    /// NaNs of both signs, subnormals), at fractions that fall on and
    /// between ranks, the ends included; each size with each kind once
    /// (36 rounds). The bucket boundaries are crossed when rank k is its
    /// bucket's last value.
    #[test]
    fn the_same_quantiles_as_sorting_every_value() {
        let special = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN, 5e-324, -5e-324, 1.0, -1.0];
        let mut draw = draws(0x9e37_79b9_7f4a_7c15);
        let mut crossed = 0;
        for round in 0..36 {
            let sizes = [0, 1, 2, 3, GATHER_BELOW - 1, GATHER_BELOW, GATHER_BELOW + 1, 80_000, 150_000];
            let n = sizes[round % 9] + draw(3);
            let values: Vec<f64> = (0..n)
                .map(|_| match round % 4 {
                    0 => (draw(5) as f64) * 0.5,
                    1 => 1e6 + draw(1_000) as f64 * 1e-6,
                    2 => special[draw(special.len())] * (1.0 + draw(3) as f64),
                    _ => f64::from_bits(draw(usize::MAX) as u64),
                })
                .collect();
            let mut v = Values::default();
            v.extend(values.iter().copied());
            for q in [0.0, 0.25, 0.5, 0.9, 0.99, 1.0, draw(1_000) as f64 / 999.0] {
                assert!(same(v.quantile(q), sorted_quantile(&values, q)), "n {n} round {round} q {q}");
            }
            if n >= GATHER_BELOW {
                let mut sorted = values.clone();
                sorted.sort_by(f64::total_cmp);
                for k in 0..n - 1 {
                    if bucket(sorted[k]) != bucket(sorted[k + 1]) && crossed < 200 {
                        crossed += 1;
                        assert_eq!(v.order_statistics(k, true).1.map(f64::to_bits), Some(sorted[k + 1].to_bits()));
                    }
                }
            }
        }
        assert!(crossed >= 100, "{crossed} ranks at a bucket's end");
    }

    /// Dropping from the front, worked by hand: 100 values 0..99 in chunks
    /// of 16, 32 and 64; dropping 20 frees the first chunk and starts the
    /// second at its 5th value, leaving 20..99 (median 59.5). Then random
    /// pushes and drops against a queue of the values held.
    #[test]
    fn dropping_the_oldest_values() {
        let mut v = Values::default();
        v.extend((0..100).map(f64::from));
        v.drop_front(20).unwrap();
        assert_eq!((v.chunks.len(), v.dropped, v.len()), (2, 4, 80));
        assert!(v.iter().eq((20..100).map(f64::from)));
        assert_eq!(v.quantile(0.5), Some(59.5));
        assert!(v.drop_front(81).is_err());
        v.drop_front(80).unwrap();
        assert_eq!((v.chunks.len(), v.quantile(0.5)), (0, None));

        let mut draw = draws(7);
        let mut held = std::collections::VecDeque::new();
        let mut v = Values::default();
        for step in 0..400 {
            let pushes = draw(400);
            for _ in 0..pushes {
                let x = (draw(50) as f64) - 10.0;
                held.push_back(x);
                v.push(x);
            }
            let drops = draw(held.len() + 1);
            held.drain(..drops);
            v.drop_front(drops).unwrap();
            let all: Vec<f64> = held.iter().copied().collect();
            assert!(v.iter().eq(all.iter().copied()), "step {step}");
            let q = draw(101) as f64 / 100.0;
            assert!(same(v.quantile(q), sorted_quantile(&all, q)), "step {step} q {q}");
        }
        // Past the gathering threshold, where the ranks are counted.
        let many: Vec<f64> = (0..GATHER_BELOW + 5_000).map(|_| (draw(1_000) as f64) * 0.25).collect();
        let mut v = Values::default();
        v.extend(many.iter().copied());
        v.drop_front(1_234).unwrap();
        for q in [0.0, 0.1, 0.5, 0.97, 1.0] {
            assert!(same(v.quantile(q), sorted_quantile(&many[1_234..], q)), "q {q}");
        }
    }

    /// The key orders as `f64::total_cmp` does, on neighbours worked by
    /// hand: -NaN < -∞ < -1 < -0 < 0 < smallest subnormal < 1 < ∞ < NaN.
    #[test]
    fn the_order_key_is_total_cmps_order() {
        let ascending = [-f64::NAN, f64::NEG_INFINITY, -1.0, -0.0, 0.0, 5e-324, 1.0, f64::INFINITY, f64::NAN];
        for pair in ascending.windows(2) {
            assert!(order_key(pair[0]) < order_key(pair[1]), "{pair:?}");
            assert_eq!(pair[0].total_cmp(&pair[1]), std::cmp::Ordering::Less);
        }
    }
}
