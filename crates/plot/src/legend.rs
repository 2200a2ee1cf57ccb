//! The legend: its entries (swatch + label cut at 40 characters), its size,
//! where it goes (a fixed corner, the first corner free of data, or a row
//! flow below the plot), and drawing it. Labels are escaped by the SVG
//! writer like every other string.

use plotters::style::text_anchor::{HPos, VPos};

use super::canvas::{spec, Canvas};
use super::geom::{Mark, Rect};
use super::model::Legend;
use super::palette::{self, Color, Shape};
use super::style::{LEGEND_CHARS, LEGEND_FONT, LINE_WIDTH, MARKER_RADIUS};
use super::text::{self, Span};

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Swatch {
    Line { color: Color, dash: Option<&'static str>, shape: Shape },
    Marker { color: Color, shape: Shape },
    Patch { color: Color },
    Box { color: Color },
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub label: String,
    pub swatch: Swatch,
}

impl Entry {
    pub fn new(label: &str, swatch: Swatch) -> Entry {
        Entry { label: text::clip_chars(label, LEGEND_CHARS), swatch }
    }
}

/// Long enough to show a whole dash-dot period.
const SWATCH_W: f64 = 28.0;
const SWATCH_GAP: f64 = 5.0;
const ROW_H: f64 = 19.0;
const INNER: f64 = 5.0;
/// Between the legend box and the plot frame.
const INSET: f64 = 6.0;
/// Between entries side by side (legend below the plot).
const ITEM_GAP: f64 = 14.0;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Placement {
    Inside(Rect),
    /// Rows of entry indices, flowed left to right, starting at `top`.
    Below {
        top: f64,
        rows: Vec<Vec<usize>>,
    },
}

/// Whether the chart shows a legend at all: Auto needs two labelled series
/// (one series is named by the axis label), a fixed place needs one.
pub(crate) fn wanted(legend: Legend, entries: &[Entry]) -> bool {
    match legend {
        Legend::None => false,
        Legend::Auto => entries.len() >= 2,
        _ => !entries.is_empty(),
    }
}

/// Size of the boxed legend.
pub(crate) fn box_size(entries: &[Entry]) -> (f64, f64) {
    let widest = entries.iter().map(|e| text::width(&e.label, LEGEND_FONT)).fold(0.0, f64::max);
    (2.0 * INNER + SWATCH_W + SWATCH_GAP + widest, 2.0 * INNER + ROW_H * entries.len() as f64 - 3.0)
}

/// The box in a corner of the plot frame.
pub(crate) fn corner(frame: &Rect, size: (f64, f64), legend: Legend) -> Rect {
    let (w, h) = size;
    let left = frame.x0 + INSET;
    let right = frame.x1 - INSET - w;
    let top = frame.y0 + INSET;
    let bottom = frame.y1 - INSET - h;
    let (x, y) = match legend {
        Legend::TopLeft => (left, top),
        Legend::BottomLeft => (left, bottom),
        Legend::BottomRight => (right, bottom),
        _ => (right, top),
    };
    Rect { x0: x, y0: y, x1: x + w, y1: y + h }
}

/// The first corner (top right, top left, bottom right, bottom left) whose
/// box, grown by 2 px, touches no drawn data and fits in the frame.
pub(crate) fn free_corner(frame: &Rect, size: (f64, f64), marks: &[Mark]) -> Option<Rect> {
    if size.0 + 2.0 * INSET > frame.width() || size.1 + 2.0 * INSET > frame.height() {
        return None;
    }
    [Legend::TopRight, Legend::TopLeft, Legend::BottomRight, Legend::BottomLeft]
        .into_iter()
        .map(|c| corner(frame, size, c))
        .find(|r| !marks.iter().any(|m| m.hits(&r.inflate(2.0))))
}

fn item_width(e: &Entry) -> f64 {
    SWATCH_W + SWATCH_GAP + text::width(&e.label, LEGEND_FONT)
}

/// Entries flowed into rows no wider than `width`.
pub(crate) fn flow(entries: &[Entry], width: f64) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = 0.0;
    for (i, e) in entries.iter().enumerate() {
        let w = item_width(e);
        match rows.last_mut() {
            Some(row) if used + ITEM_GAP + w <= width => {
                row.push(i);
                used += ITEM_GAP + w;
            }
            _ => {
                rows.push(vec![i]);
                used = w;
            }
        }
    }
    rows
}

/// Height the flowed legend takes below the plot.
pub(crate) fn below_height(rows: usize) -> f64 {
    ROW_H * rows as f64
}

pub(crate) fn draw(canvas: &Canvas, entries: &[Entry], placement: &Placement, fig_width: f64) {
    canvas.open(&[("class", "legend".to_string())]);
    match placement {
        Placement::Inside(r) => {
            canvas.fill(*r, palette::with_alpha(palette::WHITE, 0.9));
            canvas.outline(*r, palette::LEGEND_EDGE, 1.0);
            for (i, e) in entries.iter().enumerate() {
                let y = r.y0 + INNER + ROW_H * i as f64 + (ROW_H - 3.0) / 2.0;
                draw_entry(canvas, e, r.x0 + INNER, y);
            }
        }
        Placement::Below { top, rows } => {
            for (k, row) in rows.iter().enumerate() {
                let total: f64 = row.iter().map(|i| item_width(&entries[*i])).sum::<f64>()
                    + ITEM_GAP * (row.len().saturating_sub(1)) as f64;
                let mut x = (fig_width - total) / 2.0;
                let y = top + ROW_H * k as f64 + ROW_H / 2.0;
                for i in row {
                    draw_entry(canvas, &entries[*i], x, y);
                    x += item_width(&entries[*i]) + ITEM_GAP;
                }
            }
        }
    }
    canvas.close();
}

/// One entry with its swatch starting at `x`, centred on the line `y`.
fn draw_entry(canvas: &Canvas, e: &Entry, x: f64, y: f64) {
    let mid = x + SWATCH_W / 2.0;
    match e.swatch {
        Swatch::Line { color, dash, shape } => {
            canvas.polyline(&[(x, y), (x + SWATCH_W, y)], color, LINE_WIDTH, dash);
            canvas.marker(shape, (mid, y), MARKER_RADIUS, color);
        }
        Swatch::Marker { color, shape } => canvas.marker(shape, (mid, y), MARKER_RADIUS, color),
        Swatch::Patch { color } => canvas.fill(Rect::new((mid - 7.0, y - 5.0), (mid + 7.0, y + 5.0)), color),
        Swatch::Box { color } => {
            let r = Rect::new((mid - 7.0, y - 5.0), (mid + 7.0, y + 5.0));
            canvas.fill(r, palette::with_alpha(color, 0.25));
            canvas.outline(r, color, 1.2);
        }
    }
    let at = (x + SWATCH_W + SWATCH_GAP, y);
    canvas.text(&[Span::plain(e.label.clone())], at, spec(LEGEND_FONT, palette::INK, HPos::Left, VPos::Center));
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: Rect = Rect { x0: 0.0, y0: 0.0, x1: 400.0, y1: 300.0 };

    #[test]
    fn auto_skips_corners_with_data() {
        // A 100 x 40 box sits at x 294..394 (right) or 6..106 (left), y 6..46
        // (top) or 254..294 (bottom). A line across the top 20 px down blocks
        // both top corners; a dot near the bottom right blocks that one.
        let marks = [Mark::Seg((0.0, 20.0), (400.0, 20.0)), Mark::Dot((350.0, 270.0), 2.0)];
        let r = free_corner(&FRAME, (100.0, 40.0), &marks).unwrap();
        assert_eq!((r.x0, r.y0), (6.0, 254.0));
        // Data everywhere: no corner.
        let full = [Mark::Area(FRAME)];
        assert_eq!(free_corner(&FRAME, (100.0, 40.0), &full), None);
    }

    #[test]
    fn long_labels_are_cut_at_forty_characters() {
        let e = Entry::new(&"x".repeat(60), Swatch::Patch { color: palette::INK });
        assert_eq!(e.label.chars().count(), 40);
        assert!(e.label.ends_with('…'));
    }

    #[test]
    fn entries_flow_into_rows() {
        let e = |s: &str| Entry::new(s, Swatch::Patch { color: palette::INK });
        let entries = [e("aaaa"), e("bbbb"), e("cccc")];
        let one = item_width(&entries[0]);
        // Room for two items and a gap but not three ("bbbb" is 4 * (1300 -
        // 1255) font units = 1.23 px wider than "aaaa" at 14 px; 2 px spare).
        let rows = flow(&entries, 2.0 * one + ITEM_GAP + 2.0);
        assert_eq!(rows, vec![vec![0, 1], vec![2]]);
    }
}
