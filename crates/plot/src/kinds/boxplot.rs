//! Box plots from precomputed statistics: per category (x) and series, a box
//! from q1 to q3 with the median across it and whiskers to the given ends.
//! Boxes with a NaN/infinite statistic, or one <= 0 on a log axis, are
//! skipped and counted.

use super::{cat_spec, categories, extent, mismatch, num_spec, Body, Skipped, View};
use crate::axis::{Map, Spec};
use crate::canvas::Canvas;
use crate::geom::{clip_segment, Mark, Rect};
use crate::legend::{Entry, Swatch};
use crate::model::{BoxStats, Chart, Data};
use crate::palette;
use crate::scale::Transform;
use crate::PlotError;

pub(crate) struct Boxes {
    cats: Vec<String>,
    series: Vec<BoxSeries>,
    skipped: Skipped,
}

struct BoxSeries {
    index: usize,
    label: String,
    stats: Vec<Option<BoxStats>>,
}

/// One box in px.
struct Glyph {
    series: usize,
    left: f64,
    right: f64,
    lo: f64,
    q1: f64,
    median: f64,
    q3: f64,
    hi: f64,
}

/// Share of a category's band the boxes take, and the widest a box gets
/// (two categories on a wide figure would otherwise give slabs).
const SHARE: f64 = 0.7;
const MAX_WIDTH: f64 = 48.0;

impl Boxes {
    pub fn prepare(chart: &Chart) -> Result<Boxes, PlotError> {
        let mut all = Vec::new();
        for (index, s) in chart.series.iter().enumerate() {
            match &s.data {
                Data::Boxes(b) => all.push(b),
                _ => return Err(mismatch(chart, index)),
            }
        }
        let (cats, lookup) = categories(all.iter().flat_map(|b| b.iter().map(|(c, _)| c.as_str())));
        let tf = Transform::of(chart.y.scale);
        let mut skipped = Skipped::default();
        let mut series = Vec::new();
        for (index, boxes) in all.into_iter().enumerate() {
            let mut stats = vec![None; cats.len()];
            for (cat, b) in boxes {
                let five = [b.whisker_lo, b.q1, b.median, b.q3, b.whisker_hi];
                if five.iter().any(|v| !v.is_finite()) {
                    skipped.non_finite += 1;
                } else if five.iter().any(|v| !tf.accepts(*v)) {
                    skipped.non_positive += 1;
                } else {
                    stats[lookup[cat]] = Some(*b);
                }
            }
            series.push(BoxSeries { index, label: chart.series[index].label.clone(), stats });
        }
        Ok(Boxes { cats, series, skipped })
    }

    fn glyphs(&self, view: &View) -> Vec<Glyph> {
        let (Map::Cat(bands), Map::Num(ys)) = (view.x, view.y) else {
            return Vec::new();
        };
        let n = self.series.len().max(1) as f64;
        let slot = bands.step().abs() * SHARE / n;
        let width = (slot * 0.85).min(MAX_WIDTH);
        let mut out = Vec::new();
        for (k, s) in self.series.iter().enumerate() {
            for (c, b) in s.stats.iter().enumerate() {
                let Some(b) = b else { continue };
                let mid = bands.centre(c) - slot * n / 2.0 + slot * (k as f64 + 0.5);
                out.push(Glyph {
                    series: k,
                    left: mid - width / 2.0,
                    right: mid + width / 2.0,
                    lo: ys.px(b.whisker_lo),
                    q1: ys.px(b.q1),
                    median: ys.px(b.median),
                    q3: ys.px(b.q3),
                    hi: ys.px(b.whisker_hi),
                });
            }
        }
        out
    }
}

impl Glyph {
    fn mid(&self) -> f64 {
        (self.left + self.right) / 2.0
    }

    fn draw(&self, canvas: &Canvas, frame: &Rect, color: palette::Color) {
        let segment = |a: (f64, f64), b: (f64, f64), width: f64| {
            if let Some((p, q)) = clip_segment(a, b, frame) {
                canvas.line(p, q, color, width);
            }
        };
        let (m, quarter) = (self.mid(), (self.right - self.left) / 4.0);
        segment((m, self.lo), (m, self.q1), 1.2);
        segment((m, self.q3), (m, self.hi), 1.2);
        segment((m - quarter, self.lo), (m + quarter, self.lo), 1.2);
        segment((m - quarter, self.hi), (m + quarter, self.hi), 1.2);
        if let Some(body) = Rect::new((self.left, self.q1), (self.right, self.q3)).intersect(frame) {
            canvas.fill(body, palette::with_alpha(color, 0.25));
            canvas.outline(body, color, 1.2);
        }
        segment((self.left, self.median), (self.right, self.median), 2.0);
    }
}

impl Body for Boxes {
    fn x_spec(&self, chart: &Chart) -> Spec {
        cat_spec(&chart.x, self.cats.clone())
    }

    fn y_spec(&self, chart: &Chart) -> Spec {
        let all = self.series.iter().flat_map(|s| s.stats.iter().flatten());
        let e = extent(all.flat_map(|b| [b.whisker_lo, b.whisker_hi]));
        num_spec(&chart.y, e, (true, true))
    }

    fn is_empty(&self) -> bool {
        self.series.iter().all(|s| s.stats.iter().all(Option::is_none))
    }

    fn notes(&self) -> Vec<String> {
        self.skipped.notes("box", "boxes")
    }

    fn draw(&self, canvas: &Canvas, view: &View) {
        let glyphs = self.glyphs(view);
        for (k, s) in self.series.iter().enumerate() {
            canvas.open(&[("class", "series".into()), ("aria-label", s.label.clone())]);
            for g in glyphs.iter().filter(|g| g.series == k) {
                canvas.open(&[("class", "box".into())]);
                g.draw(canvas, &view.frame, palette::series(s.index));
                canvas.close();
            }
            canvas.close();
        }
    }

    fn marks(&self, view: &View) -> Vec<Mark> {
        // Grown by a pixel so a flat box (all five statistics equal) still counts.
        self.glyphs(view).iter().map(|g| Mark::Area(Rect::new((g.left, g.lo), (g.right, g.hi)).inflate(1.0))).collect()
    }

    fn entries(&self, _chart: &Chart) -> Vec<Entry> {
        let labelled = self.series.iter().filter(|s| !s.label.is_empty());
        labelled.map(|s| Entry::new(&s.label, Swatch::Box { color: palette::series(s.index) })).collect()
    }
}
