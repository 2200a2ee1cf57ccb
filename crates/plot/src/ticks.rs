//! Tick positions for numeric axes: 1-2-2.5-5 steps on linear axes, decades
//! (with 2..9 minor ticks) on log axes, 0 and +-c*10^k on symlog axes, and
//! whole units (1m, 1h, 1d) for durations. Positions only: the labels are
//! `format.rs`'s job, deciding how many ticks fit is `axis.rs`'s.

use super::model::TickFormat;
use super::scale::{decade, pow10, Transform};

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Ticks {
    pub major: Vec<f64>,
    /// Unlabelled small ticks (log axes).
    pub minor: Vec<f64>,
}

/// Ticks for [lo, hi] aiming at no more than about `target` labels.
pub(crate) fn generate(tf: Transform, lo: f64, hi: f64, fmt: TickFormat, target: usize) -> Ticks {
    let target = target.max(2);
    match (tf, fmt) {
        (Transform::Log, TickFormat::Duration) => duration_log(lo, hi, target).unwrap_or_else(|| log(lo, hi, target)),
        (Transform::Linear, TickFormat::Duration) => Ticks { major: duration_linear(lo, hi, target), minor: vec![] },
        (Transform::Linear, TickFormat::Integer) => Ticks { major: linear(lo, hi, target, true), minor: vec![] },
        (Transform::Linear, _) => Ticks { major: linear(lo, hi, target, false), minor: vec![] },
        (Transform::Log, _) => log(lo, hi, target),
        (Transform::Symlog(c), _) => Ticks { major: symlog(lo, hi, c, target), minor: vec![] },
    }
}

/// The axis' explicit ticks that can be drawn, sorted, without duplicates.
pub(crate) fn explicit(tf: Transform, lo: f64, hi: f64, given: &[f64]) -> Ticks {
    let eps = (hi - lo).abs() * 1e-9;
    let mut major: Vec<f64> =
        given.iter().copied().filter(|v| tf.accepts(*v) && *v >= lo - eps && *v <= hi + eps).collect();
    major.sort_by(f64::total_cmp);
    major.dedup();
    Ticks { major, minor: vec![] }
}

/// Multiples of a nice step (1, 2, 2.5 or 5 times a power of ten) in
/// [lo, hi]. `whole` keeps the step at 1 or more and integral.
pub(crate) fn linear(lo: f64, hi: f64, target: usize, whole: bool) -> Vec<f64> {
    let raw = (hi - lo) / target as f64;
    if raw.is_nan() || raw <= 0.0 || raw.is_infinite() {
        return vec![lo];
    }
    // The step is m * 10^f with m in tenths of the leading digit, so every
    // tick is an integer times a power of ten: exact decimals, no drift.
    let e = decade(raw);
    let (mut m, mut f) = [10, 20, 25, 50, 100]
        .into_iter()
        .filter(|m| !(whole && *m == 25 && e - 1 < 0))
        .map(|m| (m as i64, e - 1))
        .find(|(m, f)| scaled(*m, *f) >= raw * (1.0 - 1e-12))
        .unwrap_or((100, e - 1));
    if whole && scaled(m, f) < 1.0 {
        (m, f) = (1, 0);
    }
    let step = scaled(m, f);
    let k0 = (lo / step - 1e-9).ceil() as i64;
    let k1 = (hi / step + 1e-9).floor() as i64;
    (k0..=k1).take(1000).map(|k| scaled(k * m, f) + 0.0).collect()
}

/// n * 10^f as the double nearest the decimal.
fn scaled(n: i64, f: i32) -> f64 {
    if f >= 0 {
        n as f64 * pow10(f)
    } else {
        n as f64 / pow10(-f)
    }
}

/// Decades; every k-th decade when there are too many, with the others as
/// minor ticks. Ranges with fewer than three decade ticks get 1-2-5 ticks.
pub(crate) fn log(lo: f64, hi: f64, target: usize) -> Ticks {
    let k0 = decade(lo) + i32::from(pow10(decade(lo)) < lo * (1.0 - 1e-12));
    let k1 = decade(hi * (1.0 + 1e-12));
    if k1 - k0 + 1 < 3 {
        return Ticks { major: few_decades(lo, hi, target), minor: vec![] };
    }
    let n = (k1 - k0 + 1) as usize;
    let stride = n.div_ceil(target).max(1) as i32;
    let mut keep: Vec<i32> = (k0..=k1).filter(|k| k.rem_euclid(stride) == 0).collect();
    if keep.len() < 2 {
        keep = (k0..=k1).filter(|k| (k - k0) % stride == 0).collect();
    }
    let major: Vec<f64> = keep.iter().map(|k| pow10(*k)).collect();
    let minor = if stride == 1 {
        ((k0 - 1)..=k1)
            .flat_map(|d| (2..=9).map(move |m| m as f64 * pow10(d)))
            .filter(|v| *v >= lo && *v <= hi)
            .collect()
    } else {
        (k0..=k1).filter(|k| !keep.contains(k)).map(pow10).collect()
    };
    Ticks { major, minor }
}

/// 1-2-5, else 1-5, else 1 times powers of ten, whichever first gives at
/// least two ticks that fit; a positive linear sequence as the last resort.
fn few_decades(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    for mantissas in [&[1.0, 2.0, 5.0][..], &[1.0, 5.0], &[1.0]] {
        let ticks: Vec<f64> = (decade(lo)..=decade(hi))
            .flat_map(|d| mantissas.iter().map(move |m| m * pow10(d)))
            .filter(|v| *v >= lo * (1.0 - 1e-12) && *v <= hi * (1.0 + 1e-12))
            .collect();
        if ticks.len() >= 2 && ticks.len() <= target + 1 {
            return ticks;
        }
    }
    linear(lo, hi, target, false).into_iter().filter(|v| *v > 0.0).collect()
}

/// 0 and +-c*10^k; every s-th power when there are too many.
pub(crate) fn symlog(lo: f64, hi: f64, c: f64, target: usize) -> Vec<f64> {
    let powers = |limit: f64| -> Vec<i32> { (0..40).take_while(|k| c * pow10(*k) <= limit * (1.0 + 1e-12)).collect() };
    let (pos, neg) = (powers(hi), powers(-lo));
    let zero = lo <= 0.0 && hi >= 0.0;
    let mut stride = 1;
    let count = |s: i32| {
        let side = |ks: &[i32]| ks.iter().filter(|k| *k % s == 0).count();
        side(&pos) + side(&neg) + usize::from(zero)
    };
    while count(stride) > target + 1 && stride < 40 {
        stride += 1;
    }
    let mut ticks: Vec<f64> = neg.iter().rev().filter(|k| *k % stride == 0).map(|k| -c * pow10(*k)).collect();
    if zero {
        ticks.push(0.0);
    }
    ticks.extend(pos.iter().filter(|k| *k % stride == 0).map(|k| c * pow10(*k)));
    ticks
}

/// Steps a reader counts in: seconds, minutes, hours, days, a week.
const DURATION_STEPS: [f64; 20] = [
    1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0, 10800.0, 21600.0,
    43200.0, 86400.0, 172800.0, 604800.0,
];

fn duration_linear(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let raw = (hi - lo) / target as f64;
    if raw < 1.0 {
        return linear(lo, hi, target, false);
    }
    let Some(step) = DURATION_STEPS.iter().copied().find(|s| *s >= raw) else {
        // Past a week a step: a nice whole number of days.
        return linear(lo / 86400.0, hi / 86400.0, target, true).into_iter().map(|d| d * 86400.0).collect();
    };
    let k0 = (lo / step - 1e-9).ceil() as i64;
    let k1 = (hi / step + 1e-9).floor() as i64;
    (k0..=k1).take(1000).map(|k| k as f64 * step + 0.0).collect()
}

/// Durations a reader knows on a log axis: 1s, 10s, 1m, 10m, 1h, 10h, 1d,
/// 10d, 100d (roughly a decade apart).
fn duration_log(lo: f64, hi: f64, target: usize) -> Option<Ticks> {
    const LADDER: [f64; 9] = [1.0, 10.0, 60.0, 600.0, 3600.0, 36000.0, 86400.0, 864000.0, 8640000.0];
    let inside: Vec<f64> =
        LADDER.into_iter().filter(|v| *v >= lo * (1.0 - 1e-12) && *v <= hi * (1.0 + 1e-12)).collect();
    if inside.len() < 2 {
        return None;
    }
    let stride = inside.len().div_ceil(target).max(1);
    let major = inside.iter().copied().step_by(stride).collect();
    Some(Ticks { major, minor: vec![] })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_steps_are_nice() {
        // 0..1 in about 5: raw step 0.2 -> 0, 0.2, ..., 1.
        assert_eq!(linear(0.0, 1.0, 5, false), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        // -0.04..1.04 in 4: raw 0.27 -> step 0.5 -> 0, 0.5, 1.
        assert_eq!(linear(-0.04, 1.04, 4, false), vec![0.0, 0.5, 1.0]);
        // 0..100 in 4: raw 25 -> step 25.
        assert_eq!(linear(0.0, 100.0, 4, false), vec![0.0, 25.0, 50.0, 75.0, 100.0]);
        // 13..87 in 3: raw 24.67 -> step 25 -> 25, 50, 75.
        assert_eq!(linear(13.0, 87.0, 3, false), vec![25.0, 50.0, 75.0]);
        // Whole-number axes never step by less than 1 nor by 2.5.
        assert_eq!(linear(0.0, 3.0, 10, true), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(linear(0.0, 10.0, 4, true), vec![0.0, 5.0, 10.0]);
    }

    #[test]
    fn log_ticks_are_decades() {
        // 1..1e6 with room for 7 labels: every decade, 10^0..10^6.
        let t = log(1.0, 1e6, 7);
        assert_eq!(t.major, vec![1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]);
        // Minor ticks 2..9 in each of the six decades: 6 * 8 = 48.
        assert_eq!(t.minor.len(), 48);
        // Room for 4 only: 7 decades / 4 -> stride 2: 10^0, 10^2, 10^4, 10^6.
        let t = log(1.0, 1e6, 4);
        assert_eq!(t.major, vec![1.0, 100.0, 1e4, 1e6]);
        assert_eq!(t.minor, vec![10.0, 1e3, 1e5]);
        // CCDF y down to 1e-6.
        assert_eq!(log(1e-6, 1.0, 10).major, vec![1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1.0]);
        // Inside one decade: 1-2-5.
        assert_eq!(log(1.0, 10.0, 5).major, vec![1.0, 2.0, 5.0, 10.0]);
        // 0.5..50 with room for 5: 1-2-5 gives 7 (0.5 1 2 5 10 20 50), 1-5 gives 5.
        assert_eq!(log(0.5, 50.0, 5).major, vec![0.5, 1.0, 5.0, 10.0, 50.0]);
    }

    #[test]
    fn symlog_ticks_are_zero_and_signed_powers() {
        assert_eq!(symlog(-100.0, 1000.0, 1.0, 10), vec![-100.0, -10.0, -1.0, 0.0, 1.0, 10.0, 100.0, 1000.0]);
        // 0..1e6 with c = 1 and target 3 (at most 4 labels): 0 and the
        // powers 0..6 are 8; every second power still 5; every third: 0,
        // 1, 1e3, 1e6.
        assert_eq!(symlog(0.0, 1e6, 1.0, 3), vec![0.0, 1.0, 1e3, 1e6]);
        // c = 5: 0, 5, 50, 500.
        assert_eq!(symlog(0.0, 500.0, 5.0, 10), vec![0.0, 5.0, 50.0, 500.0]);
    }

    #[test]
    fn durations_tick_on_whole_units() {
        // 0..4h in about 4: raw 3600 s -> step 1h.
        assert_eq!(duration_linear(0.0, 14400.0, 4), vec![0.0, 3600.0, 7200.0, 10800.0, 14400.0]);
        // 0..100 s in about 5: raw 20 -> 30 s.
        assert_eq!(duration_linear(0.0, 100.0, 5), vec![0.0, 30.0, 60.0, 90.0]);
        // Log 1 s .. 1e6 s: 1s 10s 1m 10m 1h 10h 1d 10d.
        let t = duration_log(1.0, 1e6, 10).unwrap();
        assert_eq!(t.major, vec![1.0, 10.0, 60.0, 600.0, 3600.0, 36000.0, 86400.0, 864000.0]);
    }

    #[test]
    fn explicit_ticks_outside_the_range_or_invalid_are_dropped() {
        let t = explicit(Transform::Log, 1.0, 100.0, &[50.0, 0.0, 10.0, 1000.0, 10.0, f64::NAN]);
        assert_eq!(t.major, vec![10.0, 50.0]);
    }
}
