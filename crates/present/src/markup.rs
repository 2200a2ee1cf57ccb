//! Text in HTML and XML (the report's pages, the figures' SVG): element
//! content and attribute values. The five markup characters become
//! entities, so a trace string cannot open an element or end an attribute;
//! characters that XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF) would make
//! an SVG unreadable and other controls and bidi overrides would garble
//! what a reader sees, so every [`is_unsafe`] character is shown as its
//! escape (`\x1b`, `\u202e`), as in every other display writer. One
//! function serves both languages: `&apos;` is predefined in XML and in
//! HTML5 (the report's pages are HTML5).

use crate::text::{is_unsafe, push_escape};

/// `s` escaped for HTML or XML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        push(&mut out, c);
    }
    out
}

/// Pushes `c` as [`escape`] writes it.
pub fn push(out: &mut String, c: char) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        '\'' => out.push_str("&apos;"),
        c if is_unsafe(c) => push_escape(out, c),
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_five_markup_characters_become_entities() {
        assert_eq!(escape(r#"a<b&"c"'>"#), "a&lt;b&amp;&quot;c&quot;&apos;&gt;");
        assert_eq!(escape("<script>x</script>"), "&lt;script&gt;x&lt;/script&gt;");
    }

    #[test]
    fn characters_xml_forbids_or_that_garble_text_are_shown_escaped() {
        assert_eq!(escape("vc\u{fffe}\u{1b}[31m\u{202e}x\u{0}"), "vc\\ufffe\\x1b[31m\\u202ex\\x00");
        assert_eq!(escape("a\nb\tc\r"), "a\\nb\\tc\\r");
        assert_eq!(escape("北京 — ok"), "北京 — ok");
    }
}
