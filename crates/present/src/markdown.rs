//! Markdown tables (GitHub's pipe tables): numbers right-aligned with
//! [`number::display`]. Text ([`cell`], also for headings, list items and
//! link text, as the report's `summary.md` uses it): `|` and `\` get a
//! backslash, and so do the emphasis, code and link characters `*`, `` ` ``,
//! `[`, `]` (a trace string cannot forge a link or restyle the page); `<`,
//! `>` and `&` become entities (nor inject HTML); line breaks become `<br>`
//! and other control characters are shown escaped, so a cell always stays
//! one cell and a line one line.

use crate::markup;
use crate::number;
use crate::table::{rfc3339, Table, Value};

/// The table with `digits` significant digits for floats.
pub fn render(t: &Table, digits: usize) -> String {
    let header: Vec<String> = t
        .columns
        .iter()
        .map(|c| match &c.unit {
            Some(u) => cell(&format!("{} ({u})", c.name)),
            None => cell(&c.name),
        })
        .collect();
    let rule: Vec<&str> = t.columns.iter().map(|c| if c.is_numeric() { "---:" } else { "---" }).collect();
    let mut out = format!("| {} |\n|{}|\n", header.join(" | "), rule.join("|"));
    for row in &t.rows {
        let cells: Vec<String> = row.iter().map(|v| value(v, digits)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

fn value(v: &Value, digits: usize) -> String {
    match v {
        Value::Null => String::new(),
        Value::Text(s) => cell(s),
        Value::Int(i) => i.to_string(),
        Value::UInt(i) => i.to_string(),
        Value::Float(x) => number::display(*x, digits),
        Value::Bool(b) => b.to_string(),
        Value::Timestamp(t) => rfc3339(t),
    }
}

/// One cell's text, escaped.
pub fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '|' | '`' | '*' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("<br>"),
            '\r' => {}
            // Quotes are not markup in Markdown text: kept as they are.
            '"' | '\'' => out.push(c),
            // `<`, `>`, `&` and unsafe characters as in HTML.
            c => markup::push(&mut out, c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Column;

    #[test]
    fn cells_cannot_break_the_table_or_inject_html() {
        assert_eq!(cell("a|b\r\nc"), "a\\|b<br>c");
        assert_eq!(cell("<script>&</script>"), "&lt;script&gt;&amp;&lt;/script&gt;");
        assert_eq!(cell("\u{1b}[1m\\"), "\\x1b\\[1m\\\\");
        assert_eq!(cell("[a](javascript:x) *b* `c`"), "\\[a\\](javascript:x) \\*b\\* \\`c\\`");
        assert_eq!(cell("\u{202e}vc\u{fffe}"), "\\u202evc\\ufffe");
        let mut t = Table::new(vec![Column::text("k"), Column::float("v").with_unit("%")]);
        t.push(vec!["x|y".into(), 12.3456.into()]);
        assert_eq!(render(&t, 4), "| k | v (%) |\n|---|---:|\n| x\\|y | 12.35 |\n");
    }
}
