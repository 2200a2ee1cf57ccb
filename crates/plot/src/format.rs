//! Tick labels: numbers to text per `TickFormat`, with one number of
//! decimals shared by all labels of a linear axis (each tick its own on log
//! and symlog axes), a real minus sign, and powers of ten as superscripts.
//! Pure string work; nothing here measures or draws.

use super::model::TickFormat;
use super::scale::{decade, pow10, Transform};
use super::text::Span;

/// A label is plain text, or a base with a superscript exponent.
pub(crate) type Label = Vec<Span>;

/// Labels for the ticks of one axis.
pub(crate) fn labels(ticks: &[f64], fmt: TickFormat, tf: Transform) -> Vec<Label> {
    match fmt {
        TickFormat::Auto => auto(ticks, tf),
        TickFormat::Percent => {
            let pct: Vec<f64> = ticks.iter().map(|v| v * 100.0).collect();
            let d = shared_decimals(&pct);
            pct.iter().map(|v| plain(format!("{}%", fixed(*v, d)))).collect()
        }
        TickFormat::Integer => ticks.iter().map(|v| plain(fixed(v.round(), 0))).collect(),
        TickFormat::Duration => ticks.iter().map(|v| plain(duration(*v))).collect(),
        TickFormat::Sci => ticks.iter().map(|v| sci(*v)).collect(),
    }
}

/// The text a label reads as, superscripts written with ^.
#[cfg(test)]
pub(crate) fn flat(label: &Label) -> String {
    label.iter().map(|s| if s.sup { format!("^{}", s.text) } else { s.text.clone() }).collect()
}

fn plain(s: String) -> Label {
    vec![Span::plain(s)]
}

/// Powers of ten on log-like axes reaching 10^4 or 10^-3, SI suffixes from
/// a million on, plain decimals otherwise.
fn auto(ticks: &[f64], tf: Transform) -> Vec<Label> {
    let biggest = ticks.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let smallest = ticks.iter().filter(|v| **v != 0.0).fold(f64::INFINITY, |m, v| m.min(v.abs()));
    let wide = biggest >= 1e4 || smallest <= 1e-3;
    if tf != Transform::Linear && wide && ticks.iter().all(|v| *v == 0.0 || is_power_of_ten(v.abs())) {
        return ticks.iter().map(|v| sci(*v)).collect();
    }
    if biggest >= 1e15 || (smallest < 1e-6 && tf == Transform::Linear) {
        return ticks.iter().map(|v| sci(*v)).collect();
    }
    if biggest >= 1e6 {
        return si(ticks, biggest);
    }
    if tf != Transform::Linear {
        // Log and symlog ticks differ in magnitude: 0, 0.1, 1, 10 read
        // better than 0.0, 0.1, 1.0, 10.0.
        return ticks.iter().map(|v| plain(fixed(*v, shared_decimals(&[*v])))).collect();
    }
    let d = shared_decimals(ticks);
    ticks.iter().map(|v| plain(fixed(*v, d))).collect()
}

fn si(ticks: &[f64], biggest: f64) -> Vec<Label> {
    let (unit, suffix) =
        [(1e12, "T"), (1e9, "G"), (1e6, "M")].into_iter().find(|(u, _)| biggest >= *u).unwrap_or((1e6, "M"));
    let scaled: Vec<f64> = ticks.iter().map(|v| v / unit).collect();
    let d = shared_decimals(&scaled);
    scaled.iter().map(|v| plain(if *v == 0.0 { "0".into() } else { format!("{}{suffix}", fixed(*v, d)) })).collect()
}

fn is_power_of_ten(v: f64) -> bool {
    v > 0.0 && pow10(decade(v)) == v
}

/// 10^k, or m×10^k off the decades, or 0.
fn sci(v: f64) -> Label {
    if v == 0.0 || !v.is_finite() {
        return plain(fixed(v, 0));
    }
    let k = decade(v.abs());
    let sign = if v < 0.0 { "−" } else { "" };
    let exp = Span { text: minus(k.to_string()), sup: true };
    let m = v.abs() / pow10(k);
    if (m - 1.0).abs() < 1e-9 {
        vec![Span::plain(format!("{sign}10")), exp]
    } else {
        let d = shared_decimals(&[m]).min(2);
        vec![Span::plain(format!("{sign}{}×10", fixed(m, d))), exp]
    }
}

/// Seconds in the largest unit that is at least 1: "45s", "1.5m", "1h", "2d".
pub(crate) fn duration(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return fixed(v, 0);
    }
    let a = v.abs();
    let (unit, suffix) =
        [(86400.0, "d"), (3600.0, "h"), (60.0, "m")].into_iter().find(|(u, _)| a >= *u).unwrap_or((1.0, "s"));
    let q = v / unit;
    // One decimal is enough above a second, two below it (0.25s).
    let d = shared_decimals(&[q]).min(if unit == 1.0 && a < 1.0 { 2 } else { 1 });
    format!("{}{suffix}", fixed(q, d))
}

/// The fewest decimals (up to 6) that print every value without loss.
pub(crate) fn shared_decimals(values: &[f64]) -> usize {
    (0..=6)
        .find(|d| {
            values.iter().all(|v| {
                let printed: f64 = format!("{v:.d$}").parse().unwrap_or(f64::NAN);
                (printed - v).abs() <= 1e-9 * v.abs().max(1.0)
            })
        })
        .unwrap_or(6)
}

/// `v` with `d` decimals and a typographic minus; never "-0".
pub(crate) fn fixed(v: f64, d: usize) -> String {
    let s = format!("{v:.d$}");
    let is_zero = s.trim_start_matches('-').chars().all(|c| c == '0' || c == '.');
    if is_zero {
        s.trim_start_matches('-').to_string()
    } else {
        minus(s)
    }
}

fn minus(s: String) -> String {
    match s.strip_prefix('-') {
        Some(rest) => format!("−{rest}"),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat_all(labels: Vec<Label>) -> Vec<String> {
        labels.iter().map(flat).collect()
    }

    #[test]
    fn duration_uses_the_largest_whole_unit() {
        assert_eq!(duration(3600.0), "1h");
        assert_eq!(duration(90.0), "1.5m");
        assert_eq!(duration(86400.0 * 7.0), "7d");
        assert_eq!(duration(45.0), "45s");
        assert_eq!(duration(0.25), "0.25s");
        assert_eq!(duration(0.0), "0");
        // 100000 s = 1.157 d -> one decimal.
        assert_eq!(duration(1e5), "1.2d");
        assert_eq!(duration(-120.0), "−2m");
    }

    #[test]
    fn percent_multiplies_by_100_with_shared_decimals() {
        let l = flat_all(labels(&[0.0, 0.4, 1.0], TickFormat::Percent, Transform::Linear));
        assert_eq!(l, ["0%", "40%", "100%"]);
        let l = flat_all(labels(&[0.0, 0.025, 0.05], TickFormat::Percent, Transform::Linear));
        assert_eq!(l, ["0.0%", "2.5%", "5.0%"]);
    }

    #[test]
    fn auto_shares_decimals_and_uses_a_real_minus() {
        let l = flat_all(labels(&[-0.5, 0.0, 0.5, 1.0], TickFormat::Auto, Transform::Linear));
        assert_eq!(l, ["−0.5", "0.0", "0.5", "1.0"]);
        let l = flat_all(labels(&[0.0, 500000.0, 1e6, 1.5e6], TickFormat::Auto, Transform::Linear));
        assert_eq!(l, ["0", "0.5M", "1.0M", "1.5M"]);
    }

    #[test]
    fn auto_on_wide_log_axes_writes_powers_of_ten() {
        let l = flat_all(labels(&[1.0, 100.0, 1e4, 1e6], TickFormat::Auto, Transform::Log));
        assert_eq!(l, ["10^0", "10^2", "10^4", "10^6"]);
        // A narrow log axis keeps plain numbers, each with its own decimals.
        let l = flat_all(labels(&[0.1, 1.0, 10.0, 100.0], TickFormat::Auto, Transform::Log));
        assert_eq!(l, ["0.1", "1", "10", "100"]);
        let l = flat_all(labels(&[-1e4, 0.0, 1e4], TickFormat::Auto, Transform::Symlog(1.0)));
        assert_eq!(l, ["−10^4", "0", "10^4"]);
    }

    #[test]
    fn auto_on_symlog_axes_gives_each_tick_its_own_decimals_like_log() {
        // The ticks of a symlog axis 0..1000 with linthresh 0.1: 0 and
        // 0.1 * 10^k for k = 0..4. The largest is 1000 < 10^4 and the
        // smallest non-zero 0.1 > 10^-3, so plain numbers, each with the
        // decimals it needs: 0.1 one, the others none.
        let ticks = [0.0, 0.1, 1.0, 10.0, 100.0, 1000.0];
        let l = flat_all(labels(&ticks, TickFormat::Auto, Transform::Symlog(0.1)));
        assert_eq!(l, ["0", "0.1", "1", "10", "100", "1000"]);
        // The same ticks on a log axis (without 0) read the same.
        let l = flat_all(labels(&ticks[1..], TickFormat::Auto, Transform::Log));
        assert_eq!(l, ["0.1", "1", "10", "100", "1000"]);
        // Negative side, c = 0.5: −5, −0.5, 0, 0.5, 5, 50 (a real minus).
        let l = flat_all(labels(&[-5.0, -0.5, 0.0, 0.5, 5.0, 50.0], TickFormat::Auto, Transform::Symlog(0.5)));
        assert_eq!(l, ["−5", "−0.5", "0", "0.5", "5", "50"]);
        // Wide (reaching 10^4) and all powers of ten: 10^k, as on log axes.
        let l = flat_all(labels(&[0.0, 0.1, 10.0, 1000.0, 1e5], TickFormat::Auto, Transform::Symlog(0.1)));
        assert_eq!(l, ["0", "10^−1", "10^1", "10^3", "10^5"]);
        // A linear axis keeps one shared number of decimals.
        let l = flat_all(labels(&[0.0, 0.5, 1.0], TickFormat::Auto, Transform::Linear));
        assert_eq!(l, ["0.0", "0.5", "1.0"]);
    }

    #[test]
    fn auto_switches_to_powers_of_ten_for_extreme_values() {
        let l = flat_all(labels(&[-1e300, 0.0, 1e300], TickFormat::Auto, Transform::Linear));
        assert_eq!(l, ["−10^300", "0", "10^300"]);
    }

    #[test]
    fn sci_and_integer() {
        assert_eq!(flat(&sci(2e6)), "2×10^6");
        assert_eq!(flat(&sci(1e-3)), "10^−3");
        let l = flat_all(labels(&[0.0, 1.0, 2.0], TickFormat::Integer, Transform::Linear));
        assert_eq!(l, ["0", "1", "2"]);
    }

    #[test]
    fn no_negative_zero() {
        assert_eq!(fixed(-0.0, 1), "0.0");
        assert_eq!(fixed(-0.0001, 2), "0.00");
    }
}
