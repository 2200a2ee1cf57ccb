//! The busiest window of a trace (Pollux, OSDI'21 Sec 5: its workload is
//! sampled from the busiest 8-hour window of the Microsoft trace): the
//! window `[t, t + len)` starting at a submission time `t` that holds the
//! largest summed weight of the submissions in it. The analyses weigh a job
//! by its GPU demand (GPUs x duration, GPU-hours); the simulator's
//! `--window busiest:<len>` uses the same function.

use std::ops::{Add, Sub};

/// A window and what it holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window<T = f64, W = f64> {
    /// Start (a submission time) and exclusive end, in the input's unit.
    pub start: T,
    pub end: T,
    /// Summed weight of the submissions in `[start, end)`.
    pub weight: W,
    /// Number of submissions in it.
    pub count: usize,
}

/// The window of length `len_s` starting at one of `times_s` with the
/// largest summed `weights` of the times in `[t, t + len_s)`; ties go to
/// the earliest start. Entries whose time or weight is not finite are
/// ignored; `None` when nothing is left or `len_s` is not a positive
/// number. O(n log n): one sort, then [`heaviest`].
pub fn busiest_window(times_s: &[f64], weights: &[f64], len_s: f64) -> Option<Window> {
    assert_eq!(times_s.len(), weights.len(), "busiest_window: unequal lengths");
    if !(len_s.is_finite() && len_s > 0.0) {
        return None;
    }
    let mut points: Vec<(f64, f64)> =
        times_s.iter().zip(weights).filter(|(t, w)| t.is_finite() && w.is_finite()).map(|(t, w)| (*t, *w)).collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    heaviest(&points, len_s)
}

/// The heaviest window over `(time, weight)` points sorted by time: two
/// pointers over prefix sums, O(n). With integer times and weights (the
/// simulator's milliseconds and milli-GPU-milliseconds) the sums are exact,
/// so ties are real ties and go to the earliest start.
pub fn heaviest<T, W>(sorted: &[(T, W)], len: T) -> Option<Window<T, W>>
where
    T: Copy + PartialOrd + Add<Output = T>,
    W: Copy + PartialOrd + Default + Add<Output = W> + Sub<Output = W>,
{
    let mut prefix = Vec::with_capacity(sorted.len() + 1);
    prefix.push(W::default());
    for &(_, w) in sorted {
        let last = *prefix.last().expect("starts with zero");
        prefix.push(last + w);
    }
    let mut best: Option<Window<T, W>> = None;
    let mut j = 0;
    for (i, &(t, _)) in sorted.iter().enumerate() {
        // Equal start times give the same window: the first one stands.
        if i > 0 && sorted[i - 1].0 == t {
            continue;
        }
        j = j.max(i);
        while j < sorted.len() && sorted[j].0 < t + len {
            j += 1;
        }
        let weight = prefix[j] - prefix[i];
        if best.as_ref().is_none_or(|b| weight > b.weight) {
            best = Some(Window { start: t, end: t + len, weight, count: j - i });
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Times 0, 1, 2, 10, 11 (hours) with weights 1, 1, 1, 2, 2, window 3:
    /// from 0 holds 0, 1, 2 = 3; from 10 holds 10, 11 = 4; from 1 holds
    /// 1, 2 = 2. The window at 10 wins with 2 jobs. Given unsorted.
    #[test]
    fn heaviest_window_by_hand() {
        let w = busiest_window(&[10.0, 0.0, 2.0, 11.0, 1.0], &[2.0, 1.0, 1.0, 2.0, 1.0], 3.0).unwrap();
        assert_eq!(w, Window { start: 10.0, end: 13.0, weight: 4.0, count: 2 });
    }

    /// The end is exclusive: with length 2 the window at 0 holds 0 and 1
    /// (weight 2) but not 2; the window at 1 holds 1 and 2 (also 2): the
    /// tie goes to the earlier start.
    #[test]
    fn exclusive_end_and_ties_to_the_earliest() {
        let w = busiest_window(&[0.0, 1.0, 2.0], &[1.0, 1.0, 1.0], 2.0).unwrap();
        assert_eq!((w.start, w.weight, w.count), (0.0, 2.0, 2));
    }

    /// Equal times are one start; non-finite entries are ignored; a window
    /// that is not a positive length or no data give None.
    #[test]
    fn repeated_times_and_bad_input() {
        let w = busiest_window(&[5.0, 5.0, f64::NAN, 6.0], &[1.0, 1.0, 9.0, f64::INFINITY], 1.0).unwrap();
        assert_eq!((w.start, w.weight, w.count), (5.0, 2.0, 2));
        assert_eq!(busiest_window(&[1.0], &[1.0], 0.0), None);
        assert_eq!(busiest_window(&[1.0], &[1.0], f64::NAN), None);
        assert_eq!(busiest_window(&[], &[], 1.0), None);
    }

    /// Integer times and weights, sorted: [0, 10) holds 0 and 5 (3 + 4 =
    /// 7); [5, 15) holds 5 and 12 (4 + 3 = 7, a tie: the earlier stands);
    /// [12, 22) holds 12 and 20 (3 + 9 = 12): the heaviest.
    #[test]
    fn integer_windows_sum_exactly() {
        let w = heaviest::<i64, i128>(&[(0, 3), (5, 4), (12, 3), (20, 9)], 10).unwrap();
        assert_eq!(w, Window { start: 12, end: 22, weight: 12, count: 2 });
        assert_eq!(heaviest::<i64, i128>(&[], 10), None);
    }
}
