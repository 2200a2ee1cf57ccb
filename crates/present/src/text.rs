//! Text from traces and users is hostile when it reaches a terminal: an ESC
//! sequence recolours, moves the cursor or retitles the window, a newline
//! or tab forges rows and columns, a bidi override (U+202E) makes text read
//! backwards. Every display writer passes text through [`neutralize`],
//! which shows such characters escaped (`\x1b`, `\n`, `\u202e`) instead of
//! sending them. Data writers (CSV, JSON) keep the text exact and quote it.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as it is: C0 controls (tab and
/// newline too), DEL, C1 controls, the bidi embedding, override, isolate
/// and mark characters, the line and paragraph separators, and the
/// noncharacters U+FFFE and U+FFFF.
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        | '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}')
}

/// `s` with every [`is_unsafe`] character written as its escape
/// ([`push_escape`]).
pub fn neutralize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` with every line [`neutralize`]d and the newlines between them kept:
/// for a message of several lines, such as an error that quotes a query
/// and underlines a place in it.
pub fn neutralize_lines(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.split('\n').map(neutralize).collect::<Vec<_>>().join("\n"))
}

/// Pushes `c` written as an escape, the one spelling every writer shows an
/// [`is_unsafe`] character with: `\t`, `\n`, `\r` by name, others below
/// U+0100 as `\xHH`, the rest as `\uHHHH`.
pub fn push_escape(out: &mut String, c: char) {
    match c {
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("\\u{:04x}", c as u32)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_overrides_are_shown_escaped() {
        assert_eq!(neutralize("\u{1b}[31mred\u{1b}[0m"), "\\x1b[31mred\\x1b[0m");
        assert_eq!(neutralize("a\nb\tc\r"), "a\\nb\\tc\\r");
        assert_eq!(neutralize("\u{202e}txt.exe"), "\\u202etxt.exe");
        assert_eq!(neutralize("x\u{9b}y\u{7f}\u{fffe}"), "x\\x9by\\x7f\\ufffe");
        assert_eq!(neutralize("\u{1b}]0;title\u{7}"), "\\x1b]0;title\\x07");
    }

    #[test]
    fn a_message_keeps_its_lines() {
        assert_eq!(neutralize_lines("error: x\u{1b}[2J\n1 | \ty\r\n  | ^"), "error: x\\x1b[2J\n1 | \\ty\\r\n  | ^");
        assert!(matches!(neutralize_lines("two\nlines"), Cow::Borrowed(_)));
    }

    #[test]
    fn ordinary_text_is_untouched() {
        assert!(matches!(neutralize("Saturn, 北京 — ok"), Cow::Borrowed(_)));
    }
}
