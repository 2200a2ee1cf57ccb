//! Number, cell and text formatting for the report's HTML, Markdown and CSV:
//! the one place the report formats numbers and escapes text.
//!
//! Numbers for people have fixed significant digits so the text is stable
//! across machines and runs (the last bits of a float sum may differ between
//! engines; four significant digits do not), and exact integers stay exact.
//! Numbers in CSV files are data: twelve significant digits. Text from a trace or a spec is hostile: it is escaped for the
//! format it goes into, and characters that would garble what a reader sees
//! (controls such as ESC, bidi overrides, U+FFFE) are shown escaped
//! (`\x1b`, `\u202e`) in HTML and Markdown; CSV keeps text exact and quotes it.

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

/// A signed difference at four significant digits (`+1.6`, `-709`).
pub fn signed(x: f64) -> String {
    if x > 0.0 {
        format!("+{}", number(x))
    } else {
        number(x)
    }
}

/// A relative difference in percent with one decimal (`+5.3 %`).
pub fn percent_change(x: f64) -> String {
    format!("{x:+.1} %")
}

/// A number in a CSV data file: twelve significant digits, as tracelab's
/// other data outputs (an engine's float sums may differ in their last bits
/// between runs; twelve digits do not), written as the shortest text of
/// that value (with an exponent when very small or large); no data (NaN)
/// is an empty field.
pub fn data_number(x: f64) -> String {
    if x.is_nan() {
        return String::new();
    }
    if !x.is_finite() || x == x.trunc() {
        return format!("{x}");
    }
    let rounded: f64 = format!("{x:.11e}").parse().unwrap_or(x);
    // Debug writes very small and very large values with an exponent.
    format!("{rounded:?}")
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

/// Whether `c` must not reach a reader as it is: C0 controls (tab and
/// newline too), DEL, C1 controls, bidi embeddings, overrides, isolates and
/// marks, the line and paragraph separators, and U+FFFE/U+FFFF (which XML
/// and HTML forbid).
fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        | '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}')
}

/// Pushes `c` as a visible escape: `\n`, `\t`, `\r` by name, other
/// characters below U+0100 as `\xHH`, the rest as `\uHHHH`.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("\\u{:04x}", c as u32)),
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
            c if is_unsafe(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for Markdown (a table cell, a heading, link text): `\`,
/// `|`, the emphasis and link characters get a backslash, `<`, `>` and `&`
/// become entities (no raw HTML from a trace reaches a rendered page), and
/// unsafe characters are shown escaped, so a cell stays one cell and a line
/// one line.
pub fn md_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' | '|' | '`' | '*' | '[' | ']' => {
                out.push('\\');
                out.push(ch);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c if is_unsafe(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// One CSV field (RFC 4180): quoted when it holds a comma, a quote, a line
/// break or leading/trailing space, quotes doubled; the text itself is kept
/// exact.
pub fn csv_field(s: &str) -> String {
    let edge_space = s.starts_with([' ', '\t']) || s.ends_with([' ', '\t']);
    if edge_space || s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
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
        assert_eq!(
            (signed(1.6), signed(-709.0), percent_change(5.333)),
            ("+1.6".into(), "-709".into(), "+5.3 %".into())
        );
    }

    #[test]
    fn data_numbers_keep_twelve_significant_digits() {
        // 0.1 + 0.2 = 0.30000000000000004: the last bits are noise.
        assert_eq!(data_number(0.1 + 0.2), "0.3");
        assert_eq!(data_number(2.0 / 3.0), "0.666666666667");
        assert_eq!(data_number(1.098901098901099), "1.0989010989");
        assert_eq!(data_number(123456789.125), "123456789.125");
        assert_eq!(data_number(-1.5e-300), "-1.5e-300");
        assert_eq!((data_number(3.0), data_number(f64::NAN)), ("3".to_string(), String::new()));
    }

    #[test]
    fn markup_is_escaped() {
        assert_eq!(escape(r#"a<b&"c"'"#), "a&lt;b&amp;&quot;c&quot;&#39;");
        assert_eq!(md_cell("a|b\nc"), "a\\|b\\nc");
    }

    #[test]
    fn hostile_text_cannot_inject_markup_or_garble_the_page() {
        let nasty = "<script>x</script>\u{1b}[31m\u{202e}vc\u{fffe}";
        assert_eq!(escape(nasty), "&lt;script&gt;x&lt;/script&gt;\\x1b[31m\\u202evc\\ufffe");
        assert_eq!(md_cell(nasty), "&lt;script&gt;x&lt;/script&gt;\\x1b\\[31m\\u202evc\\ufffe");
        assert_eq!(md_cell("[a](javascript:x) *b* `c`"), "\\[a\\](javascript:x) \\*b\\* \\`c\\`");
        assert_eq!(escape("北京 — ok"), "北京 — ok");
    }

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\"\nbye"), "\"say \"\"hi\"\"\nbye\"");
        assert_eq!(csv_field(" pad"), "\" pad\"");
        assert_eq!(csv_field("vc\u{fffe}"), "vc\u{fffe}");
    }
}
