//! Independent numeric work split over the reference machine's two cores.

/// `f` of every item, in order, the second half computed on another
/// thread (for independent, comparably sized pieces: power-law fits per
/// x_min candidate, correlations per metric).
pub fn map_on_two_threads<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let (first, second) = items.split_at(items.len().div_ceil(2));
    std::thread::scope(|s| {
        let other = s.spawn(|| second.iter().map(&f).collect::<Vec<_>>());
        let mut out: Vec<R> = first.iter().map(&f).collect();
        out.extend(other.join().expect("worker thread panicked"));
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Order is kept for odd, even, one and no items.
    #[test]
    fn results_come_back_in_item_order() {
        for n in [0usize, 1, 2, 5] {
            let items: Vec<usize> = (0..n).collect();
            assert_eq!(map_on_two_threads(&items, |i| i * 10), (0..n).map(|i| i * 10).collect::<Vec<_>>());
        }
    }
}
