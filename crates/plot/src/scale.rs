//! Value -> pixel mapping: the linear, log and symlog transforms, the axis
//! range taken from data and the axis' own min/max, and evenly spaced bands
//! for categories. Tick positions live in `ticks.rs`, labels in `format.rs`.

use super::model::Scale;

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Transform {
    Linear,
    Log,
    /// Linear within +-c, log10 beyond: t(v) = sign(v) * (|v|/c if |v| <= c,
    /// else 1 + log10(|v|/c)). This is matplotlib's symlog with base 10 and
    /// a linear part one decade wide on each side.
    Symlog(f64),
}

impl Transform {
    /// Category axes carry no numbers; callers treat them separately.
    pub fn of(scale: Scale) -> Transform {
        match scale {
            Scale::Log => Transform::Log,
            Scale::Symlog { linthresh } => Transform::Symlog(linthresh),
            Scale::Linear | Scale::Category => Transform::Linear,
        }
    }

    /// Whether `v` can be drawn on this axis at all.
    pub fn accepts(self, v: f64) -> bool {
        v.is_finite() && (self != Transform::Log || v > 0.0)
    }

    pub fn apply(self, v: f64) -> f64 {
        match self {
            Transform::Linear => v,
            Transform::Log => v.log10(),
            Transform::Symlog(c) => {
                let a = v.abs();
                let t = if a <= c { a / c } else { 1.0 + (a / c).log10() };
                t.copysign(v)
            }
        }
    }
}

/// A numeric axis placed on the page: `lo` maps to pixel `p0`, `hi` to `p1`
/// (for a vertical axis p0 is the bottom, so p1 < p0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct NumScale {
    pub tf: Transform,
    pub lo: f64,
    pub hi: f64,
    pub p0: f64,
    pub p1: f64,
    t0: f64,
    t1: f64,
}

impl NumScale {
    pub fn new(tf: Transform, lo: f64, hi: f64, p0: f64, p1: f64) -> NumScale {
        NumScale { tf, lo, hi, p0, p1, t0: tf.apply(lo), t1: tf.apply(hi) }
    }

    pub fn px(&self, v: f64) -> f64 {
        self.p0 + (self.tf.apply(v) - self.t0) / (self.t1 - self.t0) * (self.p1 - self.p0)
    }

    /// Inside the range, with a relative tolerance for float noise in ticks.
    pub fn contains(&self, v: f64) -> bool {
        let eps = (self.t1 - self.t0).abs() * 1e-9;
        let t = self.tf.apply(v);
        self.tf.accepts(v) && t >= self.t0 - eps && t <= self.t1 + eps
    }
}

/// `n` equal bands between pixels `p0` and `p1`; band 0 starts at `p0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bands {
    pub n: usize,
    pub p0: f64,
    pub p1: f64,
}

impl Bands {
    /// Signed width of one band.
    pub fn step(&self) -> f64 {
        (self.p1 - self.p0) / self.n.max(1) as f64
    }

    pub fn centre(&self, i: usize) -> f64 {
        self.p0 + (i as f64 + 0.5) * self.step()
    }
}

/// 10^k, exactly the double nearest the decimal (`powi` may be off by an ulp).
pub(crate) fn pow10(k: i32) -> f64 {
    format!("1e{k}").parse().unwrap_or(f64::NAN)
}

/// The k with 10^k <= v < 10^(k+1), for v > 0, robust to log10 rounding.
pub(crate) fn decade(v: f64) -> i32 {
    let mut k = v.log10().floor() as i32;
    if pow10(k) > v {
        k -= 1;
    } else if pow10(k + 1) <= v {
        k += 1;
    }
    k
}

/// An axis range request: the data's extent (accepted values only) and the
/// axis' own bounds, plus which free ends get padding on a linear axis.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RangeRequest {
    pub extent: Option<(f64, f64)>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub pad: (bool, bool),
}

/// Linear axes fitted to data get this fraction of the span on each free end.
const PAD: f64 = 0.04;

/// The drawn range. Invalid bounds (non-finite, <= 0 on a log axis) are
/// ignored; an empty or zero-width range is widened so nothing divides by 0,
/// away from a bound the caller fixed (all-zero data with `min = 0` gives
/// 0..1, not -1..1). Only `min == max`, both given, widens both ways.
pub(crate) fn range(tf: Transform, req: RangeRequest) -> (f64, f64) {
    let min = req.min.filter(|v| tf.accepts(*v));
    let max = req.max.filter(|v| tf.accepts(*v));
    let (dlo, dhi) = req.extent.unwrap_or(match tf {
        Transform::Linear => (0.0, 1.0),
        Transform::Log => (1.0, 10.0),
        Transform::Symlog(c) => (0.0, 10.0 * c),
    });
    let (lo, hi) = match tf {
        Transform::Linear => linear_range(dlo, dhi, min, max, req.pad),
        Transform::Log => log_range(dlo, dhi, min, max),
        Transform::Symlog(c) => (min.unwrap_or(symlog_floor(dlo, c)), max.unwrap_or(symlog_ceil(dhi, c))),
    };
    // Beyond +-1e300 spans overflow to infinity; such values are clipped.
    let (lo, hi) = (lo.max(-LIMIT), hi.min(LIMIT));
    if hi > lo {
        return (lo, hi);
    }
    // Collapsed (all data on one value, or on the wrong side of a fixed
    // bound): grow from the fixed end, or both ways when both or neither are.
    let grown = match (min.is_some(), max.is_some()) {
        (true, false) => (lo, step_up(tf, lo)),
        (false, true) => (step_down(tf, hi), hi),
        _ => widen(tf, lo),
    };
    // Near the float limits a step can overflow; fall back to both ways.
    if grown.1 > grown.0 && (grown.1 - grown.0).is_finite() {
        grown
    } else {
        widen(tf, lo)
    }
}

const LIMIT: f64 = 1e300;

fn linear_range(dlo: f64, dhi: f64, min: Option<f64>, max: Option<f64>, pad: (bool, bool)) -> (f64, f64) {
    let lo = min.unwrap_or(dlo);
    let hi = max.unwrap_or(dhi);
    let span = hi - lo;
    let lo = if min.is_none() && pad.0 { lo - PAD * span } else { lo };
    let hi = if max.is_none() && pad.1 { hi + PAD * span } else { hi };
    (lo, hi)
}

/// Data spanning three decades or more is widened to whole decades (the
/// CDF look, with a labelled tick at each end); narrower data only to the
/// next 1, 2 or 5 times a power of ten, so it is not squeezed into a corner.
fn log_range(dlo: f64, dhi: f64, min: Option<f64>, max: Option<f64>) -> (f64, f64) {
    let wide = dhi / dlo >= 1e3;
    let lo = min.unwrap_or_else(|| if wide { pow10(decade(dlo)) } else { floor125(dlo) });
    let hi = max.unwrap_or_else(|| if wide { ceil_decade(dhi) } else { ceil125(dhi) });
    (lo, hi)
}

/// The largest 1, 2 or 5 times a power of ten <= v.
fn floor125(v: f64) -> f64 {
    let d = pow10(decade(v));
    [5.0, 2.0, 1.0].into_iter().map(|m| m * d).find(|b| *b <= v).unwrap_or(d)
}

/// The smallest 1, 2 or 5 times a power of ten >= v.
fn ceil125(v: f64) -> f64 {
    let d = pow10(decade(v));
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * d).find(|b| *b >= v).unwrap_or(10.0 * d)
}

/// A range around a single value `v`.
fn widen(tf: Transform, v: f64) -> (f64, f64) {
    match tf {
        Transform::Linear if v == 0.0 => (-1.0, 1.0),
        Transform::Linear => (v - 0.1 * v.abs(), v + 0.1 * v.abs()),
        Transform::Log => {
            let k = decade(v);
            (pow10(k - 1), pow10(k + 1).max(v * 10.0))
        }
        Transform::Symlog(c) => (v - c, v + c),
    }
}

/// The end of a range grown up from a fixed `v`: as far as `widen` grows
/// each side on a linear axis, to the next decade on a log axis, and to the
/// next symlog tick (0 or +-c*10^k) above `v` on a symlog axis.
fn step_up(tf: Transform, v: f64) -> f64 {
    match tf {
        Transform::Linear if v == 0.0 => 1.0,
        Transform::Linear => v + 0.1 * v.abs(),
        Transform::Log => pow10(decade(v) + 1),
        Transform::Symlog(c) => symlog_above(v, c),
    }
}

/// The mirror of `step_up`: the start of a range grown down to a fixed `v`.
fn step_down(tf: Transform, v: f64) -> f64 {
    match tf {
        Transform::Linear => -step_up(tf, -v),
        Transform::Log => {
            let d = pow10(decade(v));
            if d < v {
                d
            } else {
                pow10(decade(v) - 1)
            }
        }
        Transform::Symlog(c) => -symlog_above(-v, c) + 0.0,
    }
}

/// The smallest of 0 and +-c*10^k (the symlog ticks) strictly above `v`.
/// Stepping k from a guess keeps the result exactly a tick value, whatever
/// the rounding of `v / c`.
fn symlog_above(v: f64, c: f64) -> f64 {
    let tick = |k: i32| c * pow10(k);
    if v < 0.0 {
        if -v <= c {
            return 0.0;
        }
        // The largest c*10^k below |v|; k = 0 (c itself) is, as |v| > c.
        let mut k = decade(-v / c) + 1;
        while k > 0 && tick(k) >= -v {
            k -= 1;
        }
        -tick(k)
    } else if v < c {
        c
    } else {
        let mut k = decade(v / c).max(0);
        while tick(k) <= v {
            k += 1;
        }
        tick(k)
    }
}

/// The smallest power of ten >= v.
fn ceil_decade(v: f64) -> f64 {
    let k = decade(v);
    if pow10(k) == v {
        v
    } else {
        pow10(k + 1)
    }
}

/// Symlog ends sit on 0 or on +-c*10^k, so the outermost tick is at the edge.
fn symlog_ceil(v: f64, c: f64) -> f64 {
    if v <= 0.0 {
        0.0
    } else if v <= c {
        c
    } else {
        c * ceil_decade(v / c)
    }
}

fn symlog_floor(v: f64, c: f64) -> f64 {
    // `+ 0.0` turns -0 into 0 so no "-0" label can appear.
    -symlog_ceil(-v, c) + 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn linear_maps_proportionally() {
        // 0..10 onto 100..300 px: 2.5 is a quarter of the way, 100 + 50 = 150.
        let s = NumScale::new(Transform::Linear, 0.0, 10.0, 100.0, 300.0);
        assert!(close(s.px(2.5), 150.0));
        // A vertical axis runs the other way: 0..1 onto 300 (bottom) .. 100 (top).
        let v = NumScale::new(Transform::Linear, 0.0, 1.0, 300.0, 100.0);
        assert!(close(v.px(0.75), 150.0));
    }

    #[test]
    fn log_maps_decades_evenly() {
        // 1..1e6 onto 0..600 px: one decade is 100 px, so 1000 -> 300 and
        // sqrt(10) = 10^0.5 -> 50.
        let s = NumScale::new(Transform::Log, 1.0, 1e6, 0.0, 600.0);
        assert!(close(s.px(1000.0), 300.0));
        assert!(close(s.px(10f64.sqrt()), 50.0));
    }

    #[test]
    fn symlog_is_linear_inside_and_log_outside_the_threshold() {
        // c = 1: t(0.5) = 0.5, t(1) = 1, t(100) = 1 + 2 = 3, t(-10) = -2.
        let tf = Transform::Symlog(1.0);
        assert_eq!(tf.apply(0.5), 0.5);
        assert_eq!(tf.apply(100.0), 3.0);
        assert_eq!(tf.apply(-10.0), -2.0);
        // -100..1000 is t = -3..4; onto 0..700 px: 0 -> 300, 10 -> 500.
        let s = NumScale::new(tf, -100.0, 1000.0, 0.0, 700.0);
        assert!(close(s.px(0.0), 300.0));
        assert!(close(s.px(10.0), 500.0));
        // c = 5: 50 is one decade past the threshold, t = 2.
        assert!(close(Transform::Symlog(5.0).apply(50.0), 2.0));
    }

    #[test]
    fn decades_are_exact() {
        assert_eq!(decade(1000.0), 3);
        assert_eq!(decade(999.999), 2);
        assert_eq!(decade(1e-6), -6);
        assert_eq!(pow10(-3), 0.001);
    }

    fn req(extent: Option<(f64, f64)>) -> RangeRequest {
        RangeRequest { extent, min: None, max: None, pad: (true, true) }
    }

    #[test]
    fn ranges_from_data() {
        // Linear 0..10 padded by 4% of 10 on both ends.
        let (lo, hi) = range(Transform::Linear, req(Some((0.0, 10.0))));
        assert!(close(lo, -0.4) && close(hi, 10.4));
        // Log widens wide data to whole decades: 3..2e5 -> 1..1e6 ...
        assert_eq!(range(Transform::Log, req(Some((3.0, 2e5)))), (1.0, 1e6));
        // ... and narrower data (under three decades) to 1-2-5 steps: 0.9..76 -> 0.5..100.
        assert_eq!(range(Transform::Log, req(Some((0.9, 76.0)))), (0.5, 100.0));
        assert_eq!(range(Transform::Log, req(Some((2.0, 30.0)))), (2.0, 50.0));
        // Symlog (c = 1) with waits 0..450 -> 0..1000.
        assert_eq!(range(Transform::Symlog(1.0), req(Some((0.0, 450.0)))), (0.0, 1000.0));
        assert_eq!(range(Transform::Symlog(1.0), req(Some((-60.0, 0.5)))), (-100.0, 1.0));
    }

    #[test]
    fn explicit_bounds_win_and_degenerate_ranges_widen() {
        let r = RangeRequest { extent: Some((0.2, 0.7)), min: Some(0.0), max: Some(1.0), pad: (true, true) };
        assert_eq!(range(Transform::Linear, r), (0.0, 1.0));
        // One value 5: 5 -+ 10% = 4.5..5.5.
        assert_eq!(range(Transform::Linear, req(Some((5.0, 5.0)))), (4.5, 5.5));
        // min == max given explicitly behaves the same.
        let same = RangeRequest { extent: None, min: Some(5.0), max: Some(5.0), pad: (true, true) };
        assert_eq!(range(Transform::Linear, same), (4.5, 5.5));
        // Log, one value 100: a decade each way.
        assert_eq!(range(Transform::Log, req(Some((100.0, 100.0)))), (10.0, 1000.0));
        // Log, one value 300: the 1-2-5 steps around it, 200..500.
        assert_eq!(range(Transform::Log, req(Some((300.0, 300.0)))), (200.0, 500.0));
        // A log axis ignores a bound <= 0.
        let bad = RangeRequest { extent: Some((1.0, 100.0)), min: Some(0.0), max: None, pad: (true, true) };
        assert_eq!(range(Transform::Log, bad), (1.0, 100.0));
        // Extremes do not overflow the span.
        let (lo, hi) = range(Transform::Linear, req(Some((-f64::MAX, f64::MAX))));
        assert!((hi - lo).is_finite());
        // No data at all still gives a usable range: 0..1 padded.
        let (lo, hi) = range(Transform::Linear, req(None));
        assert!(close(lo, -0.04) && close(hi, 1.04));
    }

    fn fixed(extent: (f64, f64), min: Option<f64>, max: Option<f64>) -> RangeRequest {
        RangeRequest { extent: Some(extent), min, max, pad: (true, true) }
    }

    #[test]
    fn a_collapsed_range_grows_away_from_a_fixed_bound() {
        // Symlog (c = 1), min 0, all data 0: the free end goes to the next
        // symlog tick above 0, which is c = 1 (not -1..1).
        assert_eq!(range(Transform::Symlog(1.0), fixed((0.0, 0.0), Some(0.0), None)), (0.0, 1.0));
        // ... and with max 0 fixed, down to -c = -1.
        assert_eq!(range(Transform::Symlog(1.0), fixed((0.0, 0.0), None, Some(0.0))), (-1.0, 0.0));
        // c = 0.1, min 1, data 1: ticks are 0, 0.1, 1, 10: the next above 1 is 10.
        assert_eq!(range(Transform::Symlog(0.1), fixed((1.0, 1.0), Some(1.0), None)), (1.0, 10.0));
        // c = 1, max -10 fixed, data -10: the tick below -10 is -100.
        assert_eq!(range(Transform::Symlog(1.0), fixed((-10.0, -10.0), None, Some(-10.0))), (-100.0, -10.0));
        // c = 1, min 10, data at 3: the data's end rounds up to the tick 10 =
        // min, so the range collapsed; it grows to the next tick, 100.
        assert_eq!(range(Transform::Symlog(1.0), fixed((3.0, 3.0), Some(10.0), None)), (10.0, 100.0));
        // Linear, min 0, all zeros: 0..1 (one unit, as `widen` grows each side of 0).
        assert_eq!(range(Transform::Linear, fixed((0.0, 0.0), Some(0.0), None)), (0.0, 1.0));
        assert_eq!(range(Transform::Linear, fixed((0.0, 0.0), None, Some(0.0))), (-1.0, 0.0));
        // Linear, min 5, data 5: 5 + 10% of 5 = 5.5; max 5: 5 - 0.5 = 4.5.
        assert_eq!(range(Transform::Linear, fixed((5.0, 5.0), Some(5.0), None)), (5.0, 5.5));
        assert_eq!(range(Transform::Linear, fixed((5.0, 5.0), None, Some(5.0))), (4.5, 5.0));
        // Data entirely below a fixed min (2..5, min 10): the range starts at 10 and grows to 11.
        assert_eq!(range(Transform::Linear, fixed((2.0, 5.0), Some(10.0), None)), (10.0, 11.0));
        // Log, min 100, data 100 (1-2-5 rounding keeps 100..100): up a decade to 1000;
        // max 100: down to 10; max 300, data 500..800 (above it, 1-2-5 start
        // 500): down to the decade below 300, 100.
        assert_eq!(range(Transform::Log, fixed((100.0, 100.0), Some(100.0), None)), (100.0, 1000.0));
        assert_eq!(range(Transform::Log, fixed((100.0, 100.0), None, Some(100.0))), (10.0, 100.0));
        assert_eq!(range(Transform::Log, fixed((500.0, 800.0), None, Some(300.0))), (100.0, 300.0));
        // Neither end fixed: both ways as before, -c..c around 0.
        assert_eq!(range(Transform::Symlog(1.0), req(Some((0.0, 0.0)))), (-1.0, 1.0));
    }
}
