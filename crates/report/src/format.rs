//! Number and cell formatting for the report's HTML and Markdown: fixed
//! significant digits so the text is stable across machines and runs (the
//! last bits of a float sum may differ between engines; four significant
//! digits do not), and exact integers stay exact.

use tracelab_analysis::Cell;

/// Four significant digits; whole numbers below 10^15 in full; NaN and
/// infinities spelled out.
pub fn number(x: f64) -> String {
    if x.is_nan() {
        return "n/a".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == x.trunc() && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let mag = x.abs().log10().floor() as i32;
    if !(-3..6).contains(&mag) {
        return format!("{x:.3e}");
    }
    let decimals = (3 - mag).max(0) as usize;
    let s = format!("{x:.decimals$}");
    // 0.1000 -> 0.1: trailing zeros add nothing.
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A table cell as display text.
pub fn cell_text(c: &Cell) -> String {
    match c {
        Cell::Str(s) => s.clone(),
        Cell::Int(i) => i.to_string(),
        Cell::Float(f) => number(*f),
        Cell::Null => String::new(),
    }
}

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes a Markdown table cell (pipes and line breaks).
pub fn md_cell(s: &str) -> String {
    s.replace('\\', "\\\\").replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_four_significant_digits() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(-12345.0), "-12345");
        assert_eq!(number(0.123456), "0.1235");
        assert_eq!(number(51.6204), "51.62");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(13709.4), "13709");
        assert_eq!(number(1234567.8), "1.235e6");
        assert_eq!(number(0.000123456), "1.235e-4");
        assert_eq!(number(f64::NAN), "n/a");
        assert_eq!(number(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn markup_is_escaped() {
        assert_eq!(escape(r#"a<b&"c"'"#), "a&lt;b&amp;&quot;c&quot;&#39;");
        assert_eq!(md_cell("a|b\nc"), "a\\|b c");
    }
}
