//! Histograms: bars over numeric intervals [lo, hi) on a numeric x axis, so
//! bins whose edges are not round numbers (seaborn's 10 bins from the
//! minimum to the maximum: 0, 9.412, 18.82, ...) are drawn where they are
//! while the ticks stay round. Series overlap (drawn in order, translucent
//! from the second on). NaN is no data (no bar).

use super::{extent, mismatch, num_spec, Body, Skipped, View};
use crate::axis::{Map, Spec};
use crate::canvas::Canvas;
use crate::geom::{Mark, Rect};
use crate::legend::{Entry, Swatch};
use crate::model::{Chart, Data};
use crate::palette;
use crate::scale::Transform;
use crate::PlotError;

pub(crate) struct Histogram {
    series: Vec<Bins>,
    skipped: Skipped,
}

struct Bins {
    index: usize,
    label: String,
    /// (lo, hi, value), checked: finite, lo < hi.
    bins: Vec<(f64, f64, f64)>,
}

impl Histogram {
    pub fn prepare(chart: &Chart) -> Result<Histogram, PlotError> {
        let (x_tf, y_tf) = (Transform::of(chart.x.scale), Transform::of(chart.y.scale));
        let mut skipped = Skipped::default();
        let mut series = Vec::new();
        for (index, s) in chart.series.iter().enumerate() {
            let Data::Bins(bins) = &s.data else { return Err(mismatch(chart, index)) };
            let mut kept = Vec::new();
            for &(lo, hi, v) in bins {
                if v.is_nan() {
                    continue;
                } else if !(lo.is_finite() && hi.is_finite() && v.is_finite()) || lo >= hi {
                    skipped.non_finite += 1;
                } else if !(x_tf.accepts(lo) && y_tf.accepts(v)) {
                    skipped.non_positive += 1;
                } else {
                    kept.push((lo, hi, v));
                }
            }
            series.push(Bins { index, label: s.label.clone(), bins: kept });
        }
        Ok(Histogram { series, skipped })
    }

    fn rects(&self, view: &View) -> Vec<(usize, Rect)> {
        let (Map::Num(xs), Map::Num(ys)) = (view.x, view.y) else { return Vec::new() };
        let base = if ys.tf == Transform::Log { ys.lo } else { 0.0_f64.clamp(ys.lo.min(ys.hi), ys.lo.max(ys.hi)) };
        let mut out = Vec::new();
        for (k, s) in self.series.iter().enumerate() {
            for &(lo, hi, v) in &s.bins {
                let r = Rect::new((xs.px(lo), ys.px(base)), (xs.px(hi), ys.px(v)));
                out.extend(r.intersect(&view.frame.inflate(0.01)).map(|r| (k, r)));
            }
        }
        out
    }
}

impl Body for Histogram {
    fn x_spec(&self, chart: &Chart) -> Spec {
        let e = extent(self.series.iter().flat_map(|s| s.bins.iter().flat_map(|b| [b.0, b.1])));
        num_spec(&chart.x, e, (false, false))
    }

    fn y_spec(&self, chart: &Chart) -> Spec {
        let e = extent(self.series.iter().flat_map(|s| s.bins.iter().map(|b| b.2)));
        if Transform::of(chart.y.scale) == Transform::Linear {
            let (lo, hi) = e.unwrap_or((0.0, 1.0));
            num_spec(&chart.y, Some((lo.min(0.0), hi.max(0.0))), (lo < 0.0, hi > 0.0))
        } else {
            num_spec(&chart.y, e, (true, true))
        }
    }

    fn is_empty(&self) -> bool {
        self.series.iter().all(|s| s.bins.is_empty())
    }

    fn notes(&self) -> Vec<String> {
        self.skipped.notes("bin", "bins")
    }

    fn draw(&self, canvas: &Canvas, view: &View) {
        let rects = self.rects(view);
        for (k, s) in self.series.iter().enumerate() {
            let color = palette::series(s.index);
            let fill = if k == 0 { color } else { palette::with_alpha(color, 0.6) };
            canvas.open(&[("class", "series".into()), ("aria-label", s.label.clone())]);
            for (_, r) in rects.iter().filter(|(j, _)| *j == k) {
                canvas.fill(*r, fill);
                canvas.outline(*r, palette::WHITE, 0.8);
            }
            canvas.close();
        }
    }

    fn marks(&self, view: &View) -> Vec<Mark> {
        self.rects(view).into_iter().map(|(_, r)| Mark::Area(r)).collect()
    }

    fn entries(&self, _chart: &Chart) -> Vec<Entry> {
        let labelled = self.series.iter().filter(|s| !s.label.is_empty());
        labelled.map(|s| Entry::new(&s.label, Swatch::Patch { color: palette::series(s.index) })).collect()
    }
}
