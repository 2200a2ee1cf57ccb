//! Heat maps: rows (categories, top to bottom) by columns (numeric bins on
//! x) of viridis cells, NaN cells light grey, and a colour bar (see
//! `colorbar.rs`); the colour scale is described by `Chart::y2` (label,
//! min/max, linear or log, tick format). Small maps are one `<rect>` per
//! horizontal run of equal cells; maps of more than `IMAGE_CELLS` cells
//! whose columns sit on a regular grid (evenly spaced, or with some bins
//! missing) are one embedded PNG with a pixel per cell (drawn without
//! smoothing), which keeps a 300-machine week under 100 kB. Every step is
//! linear in rows x columns: a 300 x 2000 map is one pass to check, one to
//! colour and one to compress.

use super::colorbar::{color_range, round3, ColorBar, ColorScale};
use super::{cat_spec, extent, mismatch, num_spec, Body, Skipped, View};
use crate::axis::{Map, Spec};
use crate::canvas::Canvas;
use crate::format;
use crate::geom::{Mark, Rect};
use crate::legend::Entry;
use crate::model::{Chart, Data, TickFormat};
use crate::palette::Color;
use crate::png;
use crate::scale::{NumScale, Transform};
use crate::PlotError;

/// Up to this many cells a map is drawn as rectangles (about 70 bytes each).
const IMAGE_CELLS: usize = 1000;

pub(crate) struct Heat {
    rows: Vec<String>,
    /// Column edges: `cols` plus the end of the last column.
    edges: Vec<f64>,
    values: Vec<Vec<f64>>,
    color: ColorScale,
    skipped: Skipped,
    finite: usize,
}

impl Heat {
    pub fn prepare(chart: &Chart) -> Result<Heat, PlotError> {
        if chart.series.len() > 1 {
            return Err(PlotError::Data {
                series: 1,
                label: chart.series[1].label.clone(),
                problem: format!("a heat map draws one series, got {}", chart.series.len()),
            });
        }
        let color_axis = chart.y2.clone().unwrap_or_default();
        let tf = Transform::of(color_axis.scale);
        let Some(s) = chart.series.first() else {
            return Ok(Heat::empty(tf));
        };
        let Data::Heat { rows, cols, values } = &s.data else {
            return Err(mismatch(chart, 0));
        };
        check_shape(rows, cols, values).map_err(|problem| PlotError::Data {
            series: 0,
            label: s.label.clone(),
            problem,
        })?;
        let mut skipped = Skipped::default();
        let cells = values.iter().flatten().filter(|v| !v.is_nan());
        for v in cells.clone() {
            if !v.is_finite() {
                skipped.non_finite += 1;
            } else if !tf.accepts(*v) {
                skipped.non_positive += 1;
            }
        }
        let good = || cells.clone().copied().filter(|v| tf.accepts(*v));
        let (lo, hi) = color_range(&color_axis, extent(good()));
        let mut edges = cols.clone();
        let last_width = if cols.len() > 1 { cols[cols.len() - 1] - cols[cols.len() - 2] } else { 1.0 };
        edges.extend(cols.last().map(|c| c + last_width));
        Ok(Heat {
            rows: rows.clone(),
            edges,
            values: values.clone(),
            color: ColorScale { tf, lo, hi },
            skipped,
            finite: good().count(),
        })
    }

    fn empty(tf: Transform) -> Heat {
        let color = ColorScale { tf, lo: 0.0, hi: 1.0 };
        Heat { rows: vec![], edges: vec![], values: vec![], color, skipped: Skipped::default(), finite: 0 }
    }

    /// Cells as (rectangle, colour), runs of one colour within a row merged.
    fn cells(&self, view: &View) -> Vec<(Rect, Color)> {
        let (Map::Num(xs), Map::Cat(bands)) = (view.x, view.y) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (r, row) in self.values.iter().enumerate() {
            let (top, bottom) = (bands.p0 + r as f64 * bands.step(), bands.p0 + (r + 1) as f64 * bands.step());
            let mut run: Option<(f64, f64, Color)> = None;
            for (c, v) in row.iter().enumerate() {
                let (Some(a), Some(b)) = (x_px(xs, self.edges[c]), x_px(xs, self.edges[c + 1])) else {
                    continue;
                };
                let color = ColorScale::color(self.color.level(*v));
                match &mut run {
                    Some((_, end, rc)) if *rc == color && *end == a => *end = b,
                    _ => {
                        out.extend(run.take().map(|(s, e, rc)| (Rect::new((s, top), (e, bottom)), rc)));
                        run = Some((a, b, color));
                    }
                }
            }
            out.extend(run.map(|(s, e, rc)| (Rect::new((s, top), (e, bottom)), rc)));
        }
        out.into_iter().filter_map(|(r, c)| r.intersect(&view.frame).map(|r| (r, c))).collect()
    }
}

impl Heat {
    /// The map as a PNG and where it goes, when it is large, its columns sit
    /// on a regular grid (see `grid`) on a linear axis and all of them are
    /// inside the axis range (an image cannot be clipped without ids). A
    /// pixel per grid column and row: a column twice the grid's width (a
    /// missing bin before it) is two pixels of the same colour.
    fn image(&self, view: &View) -> Option<(Rect, Vec<u8>)> {
        let (Map::Num(xs), Map::Cat(bands)) = (view.x, view.y) else {
            return None;
        };
        let (first, last) = (*self.edges.first()?, *self.edges.last()?);
        let large = (self.edges.len() - 1) * self.values.len() > IMAGE_CELLS;
        if !large || xs.tf != Transform::Linear || !xs.contains(first) || !xs.contains(last) {
            return None;
        }
        let spans = grid(&self.edges)?;
        let width: usize = spans.iter().sum();
        let mut pixels = Vec::with_capacity(width * self.values.len());
        for row in &self.values {
            for (v, span) in row.iter().zip(&spans) {
                pixels.extend(std::iter::repeat_n(self.color.level(*v), *span));
            }
        }
        let png = png::indexed(width as u32, self.values.len() as u32, &ColorScale::palette(), &pixels);
        Some((Rect::new((xs.px(first), bands.p0), (xs.px(last), bands.p1)), png))
    }
}

/// An image may be at most this many times wider than the map has columns.
const MAX_SPREAD: usize = 4;

/// How many columns of a regular grid, as wide as the narrowest column and
/// starting at the first edge, each column covers; `None` when an edge is
/// off that grid by more than a thousandth of its width (invisible at any
/// size) or the grid would be more than `MAX_SPREAD` times the columns.
/// Evenly spaced columns give all 1s; time bins with some bins missing (a
/// table of the bins present) give a 2 or 3 where bins are missing.
fn grid(edges: &[f64]) -> Option<Vec<usize>> {
    let first = *edges.first()?;
    let step = edges.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min);
    if !(step > 0.0 && step.is_finite()) {
        return None;
    }
    let limit = MAX_SPREAD * (edges.len() - 1);
    let mut spans = Vec::with_capacity(edges.len() - 1);
    let mut at = 0;
    for e in &edges[1..] {
        let k = ((e - first) / step).round();
        if !(k <= limit as f64 && (first + k * step - e).abs() <= 1e-3 * step) {
            return None;
        }
        // Edges at least `step` apart land on different grid lines.
        let k = k as usize;
        spans.push(k.checked_sub(at).filter(|n| *n > 0)?);
        at = k;
    }
    Some(spans)
}

fn x_px(xs: &NumScale, v: f64) -> Option<f64> {
    xs.tf.accepts(v).then(|| xs.px(v))
}

fn check_shape(rows: &[String], cols: &[f64], values: &[Vec<f64>]) -> Result<(), String> {
    if values.len() != rows.len() {
        return Err(format!("{} row labels but {} rows of values", rows.len(), values.len()));
    }
    if let Some((r, row)) = values.iter().enumerate().find(|(_, row)| row.len() != cols.len()) {
        return Err(format!("row {r} has {} values for {} columns", row.len(), cols.len()));
    }
    if cols.iter().any(|c| !c.is_finite()) || cols.windows(2).any(|w| w[1] <= w[0]) {
        return Err("column starts must be finite and increasing".to_string());
    }
    Ok(())
}

impl Body for Heat {
    fn x_spec(&self, chart: &Chart) -> Spec {
        let e = match (self.edges.first(), self.edges.last()) {
            (Some(a), Some(b)) => Some((*a, *b)),
            _ => None,
        };
        num_spec(&chart.x, e, (false, false))
    }

    fn y_spec(&self, chart: &Chart) -> Spec {
        cat_spec(&chart.y, self.rows.clone())
    }

    fn color_bar(&self, chart: &Chart) -> Option<ColorBar> {
        let axis = chart.y2.clone().unwrap_or_default();
        let fmt = if axis.tick_format == TickFormat::Auto && self.color.tf == Transform::Log {
            TickFormat::Sci
        } else {
            axis.tick_format
        };
        let ends = format::labels(&[round3(self.color.lo), round3(self.color.hi)], fmt, Transform::Linear);
        Some(ColorBar { ends, title: axis.label })
    }

    fn is_empty(&self) -> bool {
        self.finite == 0
    }

    fn notes(&self) -> Vec<String> {
        self.skipped.notes("cell", "cells")
    }

    fn draw(&self, canvas: &Canvas, view: &View) {
        canvas.open(&[("class", "heat".into()), ("shape-rendering", "crispEdges".into())]);
        match self.image(view) {
            Some((r, png)) => canvas.image(r, &png),
            None => {
                for (r, color) in self.cells(view) {
                    canvas.fill(r, color);
                }
            }
        }
        canvas.close();
    }

    fn marks(&self, _view: &View) -> Vec<Mark> {
        Vec::new()
    }

    fn entries(&self, _chart: &Chart) -> Vec<Entry> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_on_a_regular_grid_become_image_columns() {
        // Hourly bins 0..4, edges 0 1 2 3 4 5: one grid column each.
        assert_eq!(grid(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]), Some(vec![1, 1, 1, 1, 1]));
        // Bins 2 and 3 missing: the column at 1 reaches to 4 (three grid
        // columns of width 1), the others one each.
        assert_eq!(grid(&[0.0, 1.0, 4.0, 5.0, 6.0]), Some(vec![1, 3, 1, 1]));
        // Quarter hours at an offset (edges 100.25 + 0.25 k): all exact.
        assert_eq!(grid(&[100.25, 100.5, 101.0, 101.25]), Some(vec![1, 2, 1]));
        // 1.5 is half a grid column off: no image.
        assert_eq!(grid(&[0.0, 1.0, 2.5, 3.5]), None);
        // One 1-wide column among 10-wide ones: 1 + 10 + 10 = 21 grid
        // columns for 3 columns, over 4 * 3 = 12.
        assert_eq!(grid(&[0.0, 1.0, 11.0, 21.0]), None);
    }

    #[test]
    fn shape_errors_name_the_problem() {
        let rows = vec!["a".to_string(), "b".to_string()];
        assert!(check_shape(&rows, &[0.0, 1.0], &[vec![1.0, 2.0]]).unwrap_err().contains("2 row labels"));
        assert!(check_shape(&rows, &[0.0, 1.0], &[vec![1.0, 2.0], vec![1.0]]).unwrap_err().contains("row 1"));
        assert!(check_shape(&rows, &[1.0, 0.0], &[vec![1.0, 2.0], vec![1.0, 2.0]]).is_err());
    }
}
