//! Time in the PAI trace: offset seconds, the window the jobs are
//! submitted in, and the diurnal and weekly submission rhythm.
//!
//! The owners shifted all times by a constant such that, read as Unix time
//! in UTC+8 (`Asia/Shanghai`), they keep the real time of day and weekday
//! (README). Offset 0 + 8 h is therefore a Thursday 08:00 local (1970-01-01
//! was a Thursday), and the notebook's hour 600 (1970-01-25 00:00 +08) is a
//! Sunday (`docs/definitions.md#paihourly-submissions`, clusterdata issue #262). The earliest
//! `start_time` of the real trace is 494,319 (issue #262); the trace covers
//! about two months (July-August 2020), so submissions end near day 73.

use super::super::rng::Rng;

/// Earliest submission, offset seconds (clusterdata issue #262).
pub const T_FIRST: i64 = 494_319;
/// End of the observation window at scale <= 1 (day 73): instances still
/// running then are `Running` without an end time.
pub const T_END_1: i64 = 73 * 86_400;
/// UTC+8 in seconds.
const LOCAL: i64 = 8 * 3600;

/// Relative submission rate per local hour of day. Shape of NSDI'22 Fig 3
/// (NSDI'22 Fig 3, `docs/definitions.md#paisubmissions-by-hour`): a night trough, a morning rise to a late-morning
/// peak, a lunch dip, the afternoon maximum and a long evening tail.
const HOURLY: [f64; 24] = [
    0.55, 0.45, 0.36, 0.30, 0.27, 0.27, 0.31, 0.42, 0.66, 0.96, 1.22, 1.30, 1.02, 1.08, 1.30, 1.38, 1.38, 1.28, 1.04,
    0.96, 1.00, 1.00, 0.90, 0.72,
];
/// Relative rate per local weekday, Sunday first: the weekday excess.
const WEEKDAY: [f64; 7] = [0.70, 1.0, 1.04, 1.04, 1.02, 1.0, 0.74];

/// Local (UTC+8) hour of day of an offset time.
pub fn local_hour(t: i64) -> usize {
    ((t + LOCAL).rem_euclid(86_400) / 3600) as usize
}

/// Local weekday, 0 = Sunday.
pub fn local_weekday(t: i64) -> usize {
    ((t + LOCAL).div_euclid(86_400) + 4).rem_euclid(7) as usize
}

/// The end of the window: day 73 at scale <= 1. Above scale 1 the machine
/// table cannot grow, so the window grows instead (load per machine kept).
pub fn t_end(scale: f64) -> i64 {
    T_FIRST + ((T_END_1 - T_FIRST) as f64 * scale.max(1.0)) as i64
}

/// Submissions stop a little before the window ends, so the last jobs are
/// still visibly running at its end, as in the real trace.
fn last_submit(scale: f64) -> i64 {
    t_end(scale) - 3 * 3600
}

fn rate(t: i64) -> f64 {
    HOURLY[local_hour(t)] * WEEKDAY[local_weekday(t)]
}

/// `n` sorted submission times over the window, drawn from the density
/// proportional to [`rate`]. The first is exactly [`T_FIRST`].
pub fn submissions(n: usize, scale: f64, rng: &mut Rng) -> Vec<i64> {
    if n == 0 {
        return Vec::new();
    }
    // Piecewise-constant density on local-hour bins.
    let (t0, t1) = (T_FIRST, last_submit(scale));
    let mut bins: Vec<(i64, i64, f64)> = Vec::new();
    let mut b = t0;
    let mut total = 0.0;
    while b < t1 {
        let hour_end = (b + LOCAL).div_euclid(3600) * 3600 + 3600 - LOCAL;
        let e = hour_end.min(t1);
        let w = rate(b) * (e - b) as f64;
        total += w;
        bins.push((b, e, total));
        b = e;
    }
    // Sorted uniforms from normalized exponential spacings.
    let mut acc: Vec<f64> = Vec::with_capacity(n);
    let mut s = 0.0;
    for _ in 0..n {
        s += rng.exponential(1.0);
        acc.push(s);
    }
    let norm = s + rng.exponential(1.0);
    let mut out = Vec::with_capacity(n);
    let mut bin = 0;
    let mut prev = 0.0;
    for a in acc {
        let x = a / norm * total;
        while bins[bin].2 < x && bin + 1 < bins.len() {
            prev = bins[bin].2;
            bin += 1;
        }
        let (bs, be, c) = bins[bin];
        let frac = ((x - prev) / (c - prev)).clamp(0.0, 1.0);
        out.push((bs + (frac * (be - bs) as f64) as i64).min(be - 1));
    }
    out[0] = T_FIRST;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_the_documented_local_times() {
        // Offset 0 is Thursday 1970-01-01 08:00 at UTC+8.
        assert_eq!((local_weekday(0), local_hour(0)), (4, 8));
        // Notebook hour 600 = 1970-01-25 00:00 +08, a Sunday (issue #262).
        let hour600 = 24 * 86_400 - LOCAL;
        assert_eq!((local_weekday(hour600), local_hour(hour600)), (0, 0));
        // The earliest real start, 494319, is 1970-01-07 01:18:39 +08, a Wednesday.
        assert_eq!((local_weekday(T_FIRST), local_hour(T_FIRST)), (3, 1));
    }

    #[test]
    fn submissions_are_sorted_in_the_window_and_diurnal() {
        let mut rng = Rng::new(3);
        let t = submissions(200_000, 1.0, &mut rng);
        assert_eq!(t[0], T_FIRST);
        assert!(t.windows(2).all(|w| w[0] <= w[1]));
        assert!(*t.last().unwrap() < t_end(1.0));
        let mut by_hour = [0usize; 24];
        let mut weekday = [0usize; 7];
        for &x in &t {
            by_hour[local_hour(x)] += 1;
            weekday[local_weekday(x)] += 1;
        }
        // Afternoon peak well above the early-morning trough.
        assert!(by_hour[15] as f64 > 3.0 * by_hour[4] as f64, "{by_hour:?}");
        // Tuesday above Sunday.
        assert!(weekday[2] as f64 > 1.2 * weekday[0] as f64, "{weekday:?}");
    }
}
