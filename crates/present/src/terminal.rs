//! The terminal table (comfy-table): numbers right-aligned with
//! [`number::display`], nulls blank, units in the header, and every piece
//! of text [`neutralize`]d so data cannot drive the terminal.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement};

use crate::number;
use crate::table::{rfc3339, Column, Table, Value};
use crate::text::neutralize;

/// How a table is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Significant digits of floats.
    pub digits: usize,
    /// Wrap long cells to this many columns; `None` keeps lines as long as
    /// the data (the same output wherever it is written).
    pub width: Option<u16>,
    /// Add a `N rows` line under the table.
    pub row_count: bool,
}

impl Default for Style {
    fn default() -> Style {
        Style { digits: 6, width: None, row_count: false }
    }
}

/// The table drawn with `style`, ending in a newline.
pub fn render(t: &Table, style: &Style) -> String {
    let mut out = comfy_table::Table::new();
    out.load_preset(UTF8_FULL_CONDENSED);
    match style.width {
        Some(w) => out.set_content_arrangement(ContentArrangement::Dynamic).set_width(w),
        None => out.set_content_arrangement(ContentArrangement::Disabled),
    };
    out.set_header(t.columns.iter().map(header));
    for row in &t.rows {
        out.add_row(row.iter().zip(&t.columns).map(|(v, c)| cell(v, c, style.digits)));
    }
    let mut s = format!("{out}\n");
    if style.row_count {
        let n = t.rows.len();
        s.push_str(&format!("{n} row{}\n", if n == 1 { "" } else { "s" }));
    }
    s
}

/// `name (unit)`.
fn header(c: &Column) -> String {
    match &c.unit {
        Some(u) => format!("{} ({})", neutralize(&c.name), neutralize(u)),
        None => neutralize(&c.name).into_owned(),
    }
}

fn cell(v: &Value, c: &Column, digits: usize) -> Cell {
    let right = |s: String| Cell::new(s).set_alignment(CellAlignment::Right);
    match v {
        Value::Null if c.is_numeric() => right(String::new()),
        Value::Null => Cell::new(""),
        Value::Text(s) => Cell::new(neutralize(s)),
        Value::Int(i) => right(i.to_string()),
        Value::UInt(i) => right(i.to_string()),
        Value::Float(x) => right(number::display(*x, digits)),
        Value::Bool(b) => Cell::new(b),
        Value::Timestamp(t) => Cell::new(rfc3339(t)),
    }
}

/// Free text for the terminal outside a table (titles, definitions).
pub fn line(s: &str) -> String {
    neutralize(s).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Column;

    #[test]
    fn numbers_align_right_and_hostile_text_is_escaped() {
        let mut t = Table::new(vec![Column::text("name\u{1b}[2J"), Column::float("x").with_unit("s")]);
        t.push(vec!["a\nb".into(), 0.123456789.into()]);
        t.push(vec!["\u{202e}cba".into(), Value::Null]);
        let out = render(&t, &Style { digits: 4, width: None, row_count: true });
        let want = "\
┌─────────────┬────────┐
│ name\\x1b[2J ┆ x (s)  │
╞═════════════╪════════╡
│ a\\nb        ┆ 0.1235 │
│ \\u202ecba   ┆        │
└─────────────┴────────┘
2 rows
";
        assert_eq!(out, want);
        assert!(!out.contains('\u{1b}') && !out.contains('\u{202e}'));
    }
}
