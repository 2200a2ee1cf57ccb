//! Markdown tables (GitHub's pipe tables): numbers right-aligned with
//! [`number::display`]; in text, `|` and `\` are escaped, `<`, `>` and `&`
//! become entities (a trace string cannot inject HTML into the rendered
//! page), line breaks become `<br>` and other control characters are shown
//! escaped, so a cell always stays one cell.

use crate::number;
use crate::table::{rfc3339, Table, Value};
use crate::text::neutralize;

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
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' => out.push_str("<br>"),
            '\r' => {}
            c => out.push_str(&neutralize(c.encode_utf8(&mut [0; 4]))),
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
        assert_eq!(cell("\u{1b}[1m\\"), "\\x1b[1m\\\\");
        let mut t = Table::new(vec![Column::text("k"), Column::float("v").with_unit("%")]);
        t.push(vec!["x|y".into(), 12.3456.into()]);
        assert_eq!(render(&t, 4), "| k | v (%) |\n|---|---:|\n| x\\|y | 12.35 |\n");
    }
}
