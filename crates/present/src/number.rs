//! Number spelling, one rule per audience:
//!
//! - **data** (CSV, JSON, JSONL): 12 significant digits, far below any
//!   tolerance a reader compares with (1e-9) and far above the last-bit
//!   noise of a parallel sum, so output is stable across runs; spelled as
//!   the shortest text that reads back to the rounded value and keeps a
//!   float a float (`21.0`, as pandas writes it: the Helios cluster summary
//!   then matches the published `helios_cluster_summary.csv` cell for cell).
//! - **display** (terminal tables, HTML, Markdown): `digits` significant
//!   digits, whole numbers below 10^15 in full, an exponent outside
//!   [0.001, 10^6). The report's HTML and Markdown use four digits
//!   ([`report_text`]); its `summary.json` six ([`report_json`]).

use serde_json::Value as Json;

/// Significant digits of floats in CSV and JSON.
pub const DATA_DIGITS: usize = 12;

/// `x` rounded to `digits` significant digits (non-finite unchanged).
pub fn round_significant(x: f64, digits: usize) -> f64 {
    if !x.is_finite() || digits == 0 {
        return x;
    }
    format!("{:.*e}", digits - 1, x).parse().unwrap_or(x)
}

/// A float for CSV and JSON, or `None` for NaN and infinities (JSON has no
/// spelling for them). `-0` after rounding a tiny negative reads as noise.
pub fn data(x: f64) -> Option<String> {
    if !x.is_finite() {
        return None;
    }
    let r = round_significant(x, DATA_DIGITS);
    let r = if r == 0.0 { 0.0 } else { r };
    Some(format!("{r:?}"))
}

/// A float for CSV: [`data`], with NaN and infinities as pandas and DuckDB
/// read them.
pub fn data_csv(x: f64) -> String {
    data(x).unwrap_or_else(|| non_finite(x).to_string())
}

fn non_finite(x: f64) -> &'static str {
    if x.is_nan() {
        "NaN"
    } else if x > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// For people: `digits` significant digits, whole numbers below 10^15 in
/// full, an exponent for magnitudes outside [0.001, 10^6).
pub fn display(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return non_finite(x).to_string();
    }
    if x == x.trunc() && x.abs() < 1e15 {
        let s = format!("{x:.0}");
        return if s == "-0" { "0".into() } else { s };
    }
    let digits = digits.max(1);
    let mag = x.abs().log10().floor() as i32;
    if !(-3..6).contains(&mag) {
        return format!("{x:.*e}", digits - 1);
    }
    let decimals = (digits as i32 - 1 - mag).max(0) as usize;
    trim_zeros(format!("{x:.decimals$}"))
}

/// [`display`] with a sign on positive numbers (differences).
pub fn display_signed(x: f64, digits: usize) -> String {
    let s = display(x, digits);
    if x > 0.0 {
        format!("+{s}")
    } else {
        s
    }
}

/// 0.1000 -> 0.1: trailing zeros add nothing.
fn trim_zeros(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Significant digits of the report's HTML and Markdown.
pub const REPORT_DIGITS: usize = 4;

/// The report's rule for HTML and Markdown: [`REPORT_DIGITS`] significant
/// digits, NaN as `n/a`.
pub fn report_text(x: f64) -> String {
    if x.is_nan() {
        "n/a".into()
    } else {
        display(x, REPORT_DIGITS)
    }
}

/// [`report_text`] with a sign on positive numbers (a difference: `+1.6`).
pub fn report_signed(x: f64) -> String {
    if x.is_nan() {
        "n/a".into()
    } else {
        display_signed(x, REPORT_DIGITS)
    }
}

/// A relative difference in percent, signed, with one decimal (`+5.3 %`).
pub fn percent_change(x: f64) -> String {
    format!("{x:+.1} %")
}

/// The report's rule for `summary.json`: six significant digits as a JSON
/// number; null for none, NaN and infinities.
pub fn report_json(x: Option<f64>) -> Json {
    match x {
        Some(v) if v.is_finite() => serde_json::json!(round_significant(v, 6)),
        _ => Json::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_keeps_twelve_digits_and_floats_stay_floats() {
        assert_eq!(data(0.1 + 0.2).as_deref(), Some("0.3"));
        assert_eq!(data(21.0).as_deref(), Some("21.0"));
        assert_eq!(data(6373315670.0).as_deref(), Some("6373315670.0"));
        // 2/3 = 0.666666666666666...: twelve significant digits.
        assert_eq!(data(2.0 / 3.0).as_deref(), Some("0.666666666667"));
        assert_eq!(data(-1e-20).as_deref(), Some("-1e-20"));
        assert_eq!(data(-0.0).as_deref(), Some("0.0"));
        assert_eq!(data(f64::NAN), None);
        assert_eq!(data_csv(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn display_uses_significant_digits() {
        assert_eq!(display(13709.0, 4), "13709");
        assert_eq!(display(0.041666, 4), "0.04167");
        assert_eq!(display(84.4567, 4), "84.46");
        assert_eq!(display(-2.0, 4), "-2");
        assert_eq!(display(0.123456789, 6), "0.123457");
        assert_eq!(display(1234567.8, 6), "1.23457e6");
        assert_eq!(display_signed(1.6, 4), "+1.6");
        assert_eq!(display_signed(-0.5, 4), "-0.5");
    }

    /// The report's current vectors (crates/report/src/format.rs and
    /// summary.rs), so it can adopt these functions unchanged.
    #[test]
    fn the_report_rules_are_reproduced() {
        assert_eq!(report_text(3.0), "3");
        assert_eq!(report_text(-12345.0), "-12345");
        assert_eq!(report_text(0.123456), "0.1235");
        assert_eq!(report_text(51.6204), "51.62");
        assert_eq!(report_text(0.5), "0.5");
        assert_eq!(report_text(13709.4), "13709");
        assert_eq!(report_text(1234567.8), "1.235e6");
        assert_eq!(report_text(0.000123456), "1.235e-4");
        assert_eq!(report_text(f64::NAN), "n/a");
        assert_eq!(report_text(f64::NEG_INFINITY), "-inf");
        assert_eq!((report_signed(1.6), report_signed(-709.0)), ("+1.6".into(), "-709".into()));
        assert_eq!((report_signed(f64::NAN), percent_change(5.333)), ("n/a".into(), "+5.3 %".into()));
        assert_eq!(report_json(Some(2.0 / 3.0)), serde_json::json!(0.666667));
        assert_eq!(report_json(Some(13709.44)), serde_json::json!(13709.4));
        assert_eq!(report_json(Some(f64::NAN)), Json::Null);
    }
}
