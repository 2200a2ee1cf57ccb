//! Heat maps: rows (categories, top to bottom) by columns (numeric bins on
//! x) of viridis cells, NaN cells light grey, and a colour bar right of the
//! plot labelled with the colour range's min and max. The colour scale is
//! described by `Chart::y2` (label, min/max, linear or log, tick format).
//! Horizontal runs of cells with the same colour are written as one
//! rectangle, which keeps large, sparse maps small.

use plotters::style::text_anchor::{HPos, VPos};

use super::{extent, mismatch, num_spec, Body, Skipped, View};
use crate::plot::axis::{Map, Spec};
use crate::plot::canvas::{spec, Canvas};
use crate::plot::format::{self, Label};
use crate::plot::geom::{Mark, Rect};
use crate::plot::legend::Entry;
use crate::plot::model::{Axis, Chart, Data, TickFormat};
use crate::plot::palette::{self, Color};
use crate::plot::scale::{decade, pow10, NumScale, Transform};
use crate::plot::style::{text_height, LABEL_FONT, LABEL_GAP, TICK_FONT, TICK_GAP};
use crate::plot::text::{self, Span};
use crate::plot::PlotError;

pub(crate) struct Heat {
    rows: Vec<String>,
    /// Column edges: `cols` plus the end of the last column.
    edges: Vec<f64>,
    values: Vec<Vec<f64>>,
    color: ColorScale,
    skipped: Skipped,
    finite: usize,
}

#[derive(Debug, Clone, Copy)]
struct ColorScale {
    tf: Transform,
    lo: f64,
    hi: f64,
}

impl ColorScale {
    fn color(&self, v: f64) -> Color {
        if !self.tf.accepts(v) {
            return palette::NO_DATA;
        }
        let (a, b) = (self.tf.apply(self.lo), self.tf.apply(self.hi));
        let t = if b > a { (self.tf.apply(v) - a) / (b - a) } else { 0.5 };
        palette::viridis(t)
    }
}

/// The colour bar right of a heat map.
pub(crate) struct ColorBar {
    /// Labels of the range's low and high end.
    ends: Vec<Label>,
    title: String,
}

const BAR_GAP: f64 = 12.0;
const BAR_WIDTH: f64 = 12.0;
const BAR_STEPS: usize = 64;

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
                let color = if v.is_nan() { palette::NO_DATA } else { self.color.color(*v) };
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

/// The colour range: the colour axis' bounds, else the data's.
fn color_range(axis: &Axis, data: Option<(f64, f64)>) -> (f64, f64) {
    let tf = Transform::of(axis.scale);
    let (dlo, dhi) = data.unwrap_or((0.0, 1.0));
    let lo = axis.min.filter(|v| tf.accepts(*v)).unwrap_or(dlo);
    let hi = axis.max.filter(|v| tf.accepts(*v)).unwrap_or(dhi);
    (lo, hi.max(lo))
}

/// Three significant digits: a colour bar end is read, not computed with.
fn round3(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let k = 2 - decade(v.abs());
    if k >= 0 {
        (v * pow10(k)).round() / pow10(k)
    } else {
        (v / pow10(-k)).round() * pow10(-k)
    }
}

impl ColorBar {
    /// Space right of the plot frame.
    pub fn width(&self) -> f64 {
        let widest = self.ends.iter().map(|l| text::spans_width(l, TICK_FONT)).fold(0.0, f64::max);
        let title = if self.title.is_empty() { 0.0 } else { LABEL_GAP + text_height(LABEL_FONT) };
        BAR_GAP + BAR_WIDTH + TICK_GAP + widest + title
    }

    pub fn draw(&self, canvas: &Canvas, frame: &Rect) {
        canvas.open(&[("class", "colorbar".into())]);
        canvas.open(&[("shape-rendering", "crispEdges".into())]);
        let x0 = frame.x1 + BAR_GAP;
        let h = frame.height() / BAR_STEPS as f64;
        for i in 0..BAR_STEPS {
            let t = (i as f64 + 0.5) / BAR_STEPS as f64;
            let y1 = frame.y1 - i as f64 * h;
            canvas.fill(Rect::new((x0, y1 - h), (x0 + BAR_WIDTH, y1)), palette::viridis(t));
        }
        canvas.close();
        canvas.outline(Rect::new((x0, frame.y0), (x0 + BAR_WIDTH, frame.y1)), palette::AXIS, 1.0);
        let lx = x0 + BAR_WIDTH + TICK_GAP;
        let ink = |v| spec(TICK_FONT, palette::INK, HPos::Left, v);
        canvas.text(&self.ends[0], (lx, frame.y1), ink(VPos::Bottom));
        canvas.text(&self.ends[1], (lx, frame.y0), ink(VPos::Top));
        if !self.title.is_empty() {
            let widest = self.ends.iter().map(|l| text::spans_width(l, TICK_FONT)).fold(0.0, f64::max);
            let mut s = spec(LABEL_FONT, palette::INK, HPos::Center, VPos::Top);
            s.angle = -90.0;
            let title = text::fit(&self.title, LABEL_FONT, frame.height());
            canvas.text(&[Span::plain(title)], (lx + widest + LABEL_GAP, frame.centre().1), s);
        }
        canvas.close();
    }
}

impl Body for Heat {
    fn x_spec(&self, chart: &Chart) -> Spec {
        let e = match (self.edges.first(), self.edges.last()) {
            (Some(a), Some(b)) => Some((*a, *b)),
            _ => None,
        };
        num_spec(&chart.x, e, (false, false))
    }

    fn y_spec(&self, _chart: &Chart) -> Spec {
        Spec::Cat(self.rows.clone())
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
        for (r, color) in self.cells(view) {
            canvas.fill(r, color);
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
    fn colours_run_from_the_low_to_the_high_end() {
        let s = ColorScale { tf: Transform::Linear, lo: 10.0, hi: 20.0 };
        assert_eq!(s.color(10.0).rgb, palette::viridis(0.0).rgb);
        assert_eq!(s.color(15.0).rgb, palette::viridis(0.5).rgb);
        // Outside the range: clamped to the ends.
        assert_eq!(s.color(99.0).rgb, palette::viridis(1.0).rgb);
        // Log: 10 is halfway between 1 and 100.
        let log = ColorScale { tf: Transform::Log, lo: 1.0, hi: 100.0 };
        assert_eq!(log.color(10.0).rgb, palette::viridis(0.5).rgb);
        assert_eq!(log.color(0.0).rgb, palette::NO_DATA.rgb);
    }

    #[test]
    fn shape_errors_name_the_problem() {
        let rows = vec!["a".to_string(), "b".to_string()];
        assert!(check_shape(&rows, &[0.0, 1.0], &[vec![1.0, 2.0]]).unwrap_err().contains("2 row labels"));
        assert!(check_shape(&rows, &[0.0, 1.0], &[vec![1.0, 2.0], vec![1.0]]).unwrap_err().contains("row 1"));
        assert!(check_shape(&rows, &[1.0, 0.0], &[vec![1.0, 2.0], vec![1.0, 2.0]]).is_err());
    }

    #[test]
    fn colour_bar_ends_keep_three_significant_digits() {
        assert_eq!(round3(0.371234), 0.371);
        assert_eq!(round3(123456.0), 123000.0);
        assert_eq!(round3(-0.0), -0.0);
    }
}
