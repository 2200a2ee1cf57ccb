//! The terminal table (comfy-table): numbers right-aligned with
//! [`number::display`], nulls blank, units in the header, and every piece
//! of text [`neutralize`]d so data cannot drive the terminal. A table wider
//! than the screen is shown expanded instead, one block of `column: value`
//! lines per row (psql's `\x`), so a wide one-row summary never wraps in
//! the middle of a number. Whether to expand is the caller's decision (it
//! knows the terminal); this module only measures the table against it.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement};
use unicode_width::UnicodeWidthStr;

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
    /// Show the table expanded ([`expanded`]) when, drawn with lines as
    /// long as the data, it is wider than this many columns; `None` never
    /// expands (files and pipes keep one layout).
    pub expand_wider_than: Option<usize>,
}

impl Default for Style {
    fn default() -> Style {
        Style { digits: 6, width: None, row_count: false, expand_wider_than: None }
    }
}

/// The table drawn with `style`, ending in a newline: as a grid, or
/// expanded when the style says so and the grid is too wide.
pub fn render(t: &Table, style: &Style) -> String {
    let mut s = match style.expand_wider_than {
        // A grid that fits needs no wrapping, so the unwrapped one is the
        // one to print; only a grid that does not fit is drawn again.
        Some(limit) => {
            let natural = grid(t, &Style { width: None, ..*style });
            if t.columns.is_empty() || display_width(&natural) <= limit {
                natural
            } else {
                expanded(t, style.digits)
            }
        }
        None => grid(t, style),
    };
    if style.row_count {
        let n = t.rows.len();
        s.push_str(&format!("{n} row{}\n", if n == 1 { "" } else { "s" }));
    }
    s
}

/// The aligned grid, ending in a newline.
fn grid(t: &Table, style: &Style) -> String {
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
    format!("{out}\n")
}

/// The widest line of `s`, in terminal columns.
fn display_width(s: &str) -> usize {
    s.lines().map(UnicodeWidthStr::width).max().unwrap_or(0)
}

/// The expanded view: per row a `── row N ──` line, then one line per
/// column, its header (name and unit) padded so the values start in one
/// column. A null shows as nothing after the colon.
pub fn expanded(t: &Table, digits: usize) -> String {
    let keys: Vec<String> = t.columns.iter().map(header).collect();
    let pad = keys.iter().map(|k| k.width()).max().unwrap_or(0);
    let mut s = String::new();
    for (i, row) in t.rows.iter().enumerate() {
        s.push_str(&format!("── row {} ──\n", i + 1));
        for (key, v) in keys.iter().zip(row) {
            let gap = " ".repeat(pad - key.width() + 1);
            let line = format!("{key}:{gap}{}", text(v, digits));
            s.push_str(line.trim_end());
            s.push('\n');
        }
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
    let shown = Cell::new(text(v, digits));
    match v {
        Value::Int(_) | Value::UInt(_) | Value::Float(_) => shown.set_alignment(CellAlignment::Right),
        Value::Null if c.is_numeric() => shown.set_alignment(CellAlignment::Right),
        _ => shown,
    }
}

/// A cell as the terminal shows it: numbers by [`number::display`], nulls
/// empty, text [`neutralize`]d.
fn text(v: &Value, digits: usize) -> String {
    match v {
        Value::Null => String::new(),
        Value::Text(s) => neutralize(s).into_owned(),
        Value::Int(i) => i.to_string(),
        Value::UInt(i) => i.to_string(),
        Value::Float(x) => number::display(*x, digits),
        Value::Bool(b) => b.to_string(),
        Value::Timestamp(t) => rfc3339(t),
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
        let out = render(&t, &Style { digits: 4, row_count: true, ..Style::default() });
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
    /// Three columns, one with a unit, a null and a hostile text cell.
    fn runs() -> Table {
        let mut t =
            Table::new(vec![Column::text("policy"), Column::int("jobs"), Column::float("mean_jct").with_unit("s")]);
        t.push(vec!["fifo".into(), 12i64.into(), 3600.5.into()]);
        t.push(vec!["s\u{1b}]0;x\u{7}jf".into(), Value::Null, 41.25.into()]);
        t
    }

    #[test]
    fn a_table_that_fits_stays_a_grid() {
        let want = "\
┌─────────────────┬──────┬──────────────┐
│ policy          ┆ jobs ┆ mean_jct (s) │
╞═════════════════╪══════╪══════════════╡
│ fifo            ┆   12 ┆       3600.5 │
│ s\\x1b]0;x\\x07jf ┆      ┆        41.25 │
└─────────────────┴──────┴──────────────┘
";
        // Each column is its widest cell plus a space on each side and a
        // rule: 1 + (15+3) + (4+3) + (12+3) = 41 columns, the escaped
        // policy cell (s, \x1b, ]0;x, \x07, jf) being 15 wide.
        let at_the_limit = Style { digits: 6, expand_wider_than: Some(41), ..Style::default() };
        assert_eq!(render(&runs(), &at_the_limit), want);
    }

    #[test]
    fn a_table_wider_than_the_limit_is_shown_one_block_per_row() {
        let one_short = Style { digits: 6, expand_wider_than: Some(40), row_count: true, ..Style::default() };
        // Keys padded to the widest, "mean_jct (s)" (12), plus one space
        // after the colon; the null jobs cell leaves nothing after it.
        let want = "\
── row 1 ──
policy:       fifo
jobs:         12
mean_jct (s): 3600.5
── row 2 ──
policy:       s\\x1b]0;x\\x07jf
jobs:
mean_jct (s): 41.25
2 rows
";
        let out = render(&runs(), &one_short);
        assert_eq!(out, want);
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'));
    }

    #[test]
    fn without_a_limit_a_wide_table_keeps_its_grid() {
        let grid = render(&runs(), &Style::default());
        assert!(grid.starts_with("┌"), "{grid}");
        assert_eq!(grid, render(&runs(), &Style { expand_wider_than: Some(1000), ..Style::default() }));
    }
}
