//! An ordered list of distinct keys, each with a weight, that finds "the
//! first key after `a` at which the running sum of weights passes a budget"
//! without visiting every key: the preemptive pass walks running jobs in rank
//! order against the cluster's capacity this way.
//!
//! The keys live in sorted blocks of at most [`MAX_BLOCK`] entries, each
//! block with the sum of its weights, so an insertion or removal costs
//! O(log n + block size) and a walk skips whole blocks that fit the budget:
//! O(log n + n / block + block size).
//!
//! Must not: know what the keys mean (the engine owns the order).

/// Entries per block before it splits in two.
const MAX_BLOCK: usize = 256;

struct Block<K> {
    keys: Vec<K>,
    weights: Vec<u64>,
    sum: u64,
}

/// Keys in ascending order, with weights.
pub(crate) struct SumList<K> {
    blocks: Vec<Block<K>>,
    len: usize,
}

/// The outcome of [`SumList::first_over`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Walk<K> {
    /// `key` is the first entry whose weight takes the sum past the budget;
    /// `used` is the sum of the entries walked before it.
    Over { key: K, used: u64 },
    /// Every entry of the range fits; `used` is their sum.
    Within { used: u64 },
}

impl<K> Default for SumList<K> {
    fn default() -> Self {
        SumList { blocks: Vec::new(), len: 0 }
    }
}

impl<K: Ord + Copy> SumList<K> {
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The block that holds `key` or would: the first whose last key is not below it.
    fn block_for(&self, key: &K) -> usize {
        let b = self.blocks.partition_point(|blk| blk.keys.last().expect("blocks are never empty") < key);
        b.min(self.blocks.len().saturating_sub(1))
    }

    /// Adds `key` (not yet present) with `weight`.
    pub(crate) fn insert(&mut self, key: K, weight: u64) {
        if self.blocks.is_empty() {
            self.blocks.push(Block { keys: vec![key], weights: vec![weight], sum: weight });
            self.len = 1;
            return;
        }
        let b = self.block_for(&key);
        let blk = &mut self.blocks[b];
        let i = blk.keys.partition_point(|k| *k < key);
        debug_assert!(blk.keys.get(i) != Some(&key), "a key is inserted once");
        blk.keys.insert(i, key);
        blk.weights.insert(i, weight);
        blk.sum += weight;
        if blk.keys.len() > MAX_BLOCK {
            let half = blk.keys.len() / 2;
            let keys = blk.keys.split_off(half);
            let weights = blk.weights.split_off(half);
            let moved: u64 = weights.iter().sum();
            blk.sum -= moved;
            self.blocks.insert(b + 1, Block { keys, weights, sum: moved });
        }
        self.len += 1;
    }

    /// Removes `key`, which must be present; returns its weight.
    pub(crate) fn remove(&mut self, key: &K) -> u64 {
        let b = self.block_for(key);
        let blk = &mut self.blocks[b];
        let i = blk.keys.binary_search(key).unwrap_or_else(|_| panic!("removing a key that is not in the list"));
        blk.keys.remove(i);
        let w = blk.weights.remove(i);
        blk.sum -= w;
        if blk.keys.is_empty() {
            self.blocks.remove(b);
        }
        self.len -= 1;
        w
    }

    /// Replaces the whole content by `sorted` (ascending, distinct keys).
    pub(crate) fn rebuild(&mut self, sorted: Vec<(K, u64)>) {
        debug_assert!(sorted.windows(2).all(|w| w[0].0 < w[1].0), "rebuild takes sorted distinct keys");
        self.len = sorted.len();
        self.blocks = sorted
            .chunks(MAX_BLOCK / 2)
            .map(|c| Block {
                keys: c.iter().map(|e| e.0).collect(),
                weights: c.iter().map(|e| e.1).collect(),
                sum: c.iter().map(|e| e.1).sum(),
            })
            .collect();
    }

    /// Where the first key strictly after `after` is: (block, index).
    fn start(&self, after: Option<&K>) -> (usize, usize) {
        let Some(a) = after else { return (0, 0) };
        let b = self.blocks.partition_point(|blk| blk.keys.last().expect("blocks are never empty") <= a);
        let i = self.blocks.get(b).map_or(0, |blk| blk.keys.partition_point(|k| k <= a));
        (b, i)
    }

    /// Walks the keys strictly between `after` and `before` (either end open
    /// when `None`) in order, summing weights, and stops at the first key
    /// whose weight takes the sum past `budget`.
    pub(crate) fn first_over(&self, after: Option<&K>, before: Option<&K>, budget: u64) -> Walk<K> {
        let (mut b, mut i) = self.start(after);
        let mut used = 0u64;
        while let Some(blk) = self.blocks.get(b) {
            let last = blk.keys.last().expect("blocks are never empty");
            if i == 0 && before.is_none_or(|x| last < x) && used + blk.sum <= budget {
                used += blk.sum;
            } else {
                for (k, &w) in blk.keys[i..].iter().zip(&blk.weights[i..]) {
                    if before.is_some_and(|x| k >= x) {
                        return Walk::Within { used };
                    }
                    if used + w > budget {
                        return Walk::Over { key: *k, used };
                    }
                    used += w;
                }
            }
            b += 1;
            i = 0;
        }
        Walk::Within { used }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The same walk over a plain sorted vector.
    fn plain(v: &[(u32, u64)], after: Option<u32>, before: Option<u32>, budget: u64) -> Walk<u32> {
        let mut used = 0;
        for &(k, w) in v {
            if after.is_some_and(|a| k <= a) {
                continue;
            }
            if before.is_some_and(|b| k >= b) {
                break;
            }
            if used + w > budget {
                return Walk::Over { key: k, used };
            }
            used += w;
        }
        Walk::Within { used }
    }

    #[test]
    fn walks_agree_with_a_plain_sorted_vector_through_inserts_and_removals() {
        let mut rng = Rng::new(7);
        let mut list = SumList::default();
        let mut v: Vec<(u32, u64)> = Vec::new();
        for step in 0..20_000 {
            let k = rng.below(3_000) as u32;
            match v.binary_search_by_key(&k, |e| e.0) {
                Ok(at) if rng.below(3) > 0 => {
                    assert_eq!(list.remove(&k), v.remove(at).1);
                }
                Ok(_) => {}
                Err(at) => {
                    let w = 1 + rng.below(8_000);
                    list.insert(k, w);
                    v.insert(at, (k, w));
                }
            }
            if step % 5_000 == 4_999 {
                // A rebuild from the plain vector must give the same walks.
                list.rebuild(v.clone());
            }
            assert_eq!(list.len(), v.len());
            let after = (rng.below(4) > 0).then(|| rng.below(3_100) as u32);
            let before = (rng.below(4) > 0).then(|| rng.below(3_100) as u32);
            let budget = rng.below(2_000_000);
            assert_eq!(list.first_over(after.as_ref(), before.as_ref(), budget), plain(&v, after, before, budget));
        }
    }

    #[test]
    fn an_empty_list_walks_nothing() {
        let list: SumList<u32> = SumList::default();
        assert_eq!(list.first_over(None, None, 0), Walk::Within { used: 0 });
        assert_eq!(list.first_over(Some(&3), Some(&9), 10), Walk::Within { used: 0 });
    }
}
