//! Bar charts: categories (in order of first appearance) against values,
//! series side by side (grouped) or on top of each other (stacked: positive
//! values up from 0, negative ones down), vertical or horizontal. A value
//! repeated for one category within a series is summed; a NaN is no data
//! (no bar, the category keeps its place).

use super::{cat_spec, categories, extent, mismatch, num_spec, Body, Skipped, View};
use crate::axis::{Map, Spec};
use crate::canvas::Canvas;
use crate::geom::{Mark, Rect};
use crate::legend::{Entry, Swatch};
use crate::model::{Axis, BarMode, Chart, Data};
use crate::palette;
use crate::scale::{NumScale, Transform};
use crate::PlotError;

pub(crate) struct Bars {
    horizontal: bool,
    mode: BarMode,
    cats: Vec<String>,
    series: Vec<BarSeries>,
    skipped: Skipped,
}

struct BarSeries {
    index: usize,
    label: String,
    /// One value per category; None where the series has none.
    values: Vec<Option<f64>>,
}

/// Share of a category's band the bars take.
const GROUP_SHARE: f64 = 0.8;
const STACK_SHARE: f64 = 0.65;

impl Bars {
    pub fn prepare(chart: &Chart, horizontal: bool, mode: BarMode) -> Result<Bars, PlotError> {
        let mut all = Vec::new();
        for (index, s) in chart.series.iter().enumerate() {
            match &s.data {
                Data::Bars(bars) => all.push(bars),
                _ => return Err(mismatch(chart, index)),
            }
        }
        let (cats, lookup) = categories(all.iter().flat_map(|b| b.iter().map(|(c, _)| c.as_str())));
        let tf = Transform::of(value_axis(chart, horizontal).scale);
        let mut skipped = Skipped::default();
        let mut series = Vec::new();
        for (index, bars) in all.into_iter().enumerate() {
            let mut values = vec![None; cats.len()];
            for (cat, v) in bars {
                if v.is_nan() {
                    // No data: the category keeps its place, without a bar.
                    continue;
                } else if !v.is_finite() {
                    skipped.non_finite += 1;
                } else if !tf.accepts(*v) {
                    skipped.non_positive += 1;
                } else {
                    let slot: &mut Option<f64> = &mut values[lookup[cat]];
                    *slot = Some(slot.unwrap_or(0.0) + v);
                }
            }
            series.push(BarSeries { index, label: chart.series[index].label.clone(), values });
        }
        Ok(Bars { horizontal, mode, cats, series, skipped })
    }

    /// The extent of what is drawn: single values, or stack totals.
    fn value_extent(&self) -> Option<(f64, f64)> {
        match self.mode {
            BarMode::Grouped => extent(self.series.iter().flat_map(|s| s.values.iter().flatten().copied())),
            BarMode::Stacked => extent((0..self.cats.len()).flat_map(|c| {
                let column = || self.series.iter().filter_map(move |s| s.values[c]);
                let up: f64 = column().filter(|v| *v > 0.0).sum();
                let down: f64 = column().filter(|v| *v < 0.0).sum();
                [up, down]
            })),
        }
    }

    /// Every bar as (position in `series`, rectangle in px), clipped to the frame.
    fn rects(&self, view: &View) -> Vec<(usize, Rect)> {
        let (cat_map, val_map) = if self.horizontal { (view.y, view.x) } else { (view.x, view.y) };
        let (Map::Cat(bands), Map::Num(scale)) = (cat_map, val_map) else {
            return Vec::new();
        };
        let base = baseline(scale);
        let band = bands.step().abs();
        let n = self.series.len().max(1) as f64;
        let mut out = Vec::new();
        let mut up = vec![0.0; self.cats.len()];
        let mut down = vec![0.0; self.cats.len()];
        for (k, s) in self.series.iter().enumerate() {
            for (c, v) in s.values.iter().enumerate() {
                let Some(v) = *v else { continue };
                let centre = bands.centre(c);
                let (from, to, lo, hi) = match self.mode {
                    BarMode::Grouped => {
                        let w = band * GROUP_SHARE / n;
                        let start = centre - band * GROUP_SHARE / 2.0 + k as f64 * w;
                        (base, v, start, start + w)
                    }
                    BarMode::Stacked => {
                        let acc = if v >= 0.0 { &mut up[c] } else { &mut down[c] };
                        let from = *acc;
                        *acc += v;
                        let half = band * STACK_SHARE / 2.0;
                        (if from == 0.0 { base } else { from }, *acc, centre - half, centre + half)
                    }
                };
                let (a, b) = (scale.px(from), scale.px(to));
                let r = if self.horizontal { Rect::new((a, lo), (b, hi)) } else { Rect::new((lo, a), (hi, b)) };
                if let Some(r) = r.intersect(&view.frame.inflate(0.01)) {
                    out.push((k, r));
                }
            }
        }
        out
    }
}

/// Where bars start: 0 on a linear axis (clamped into the range), the
/// bottom of the range on a log axis.
fn baseline(scale: &NumScale) -> f64 {
    match scale.tf {
        Transform::Log => scale.lo,
        _ => 0.0_f64.clamp(scale.lo.min(scale.hi), scale.lo.max(scale.hi)),
    }
}

fn value_axis(chart: &Chart, horizontal: bool) -> &Axis {
    if horizontal {
        &chart.x
    } else {
        &chart.y
    }
}

impl Body for Bars {
    fn x_spec(&self, chart: &Chart) -> Spec {
        if self.horizontal {
            self.value_spec(chart)
        } else {
            cat_spec(&chart.x, self.cats.clone())
        }
    }

    fn y_spec(&self, chart: &Chart) -> Spec {
        if self.horizontal {
            cat_spec(&chart.y, self.cats.clone())
        } else {
            self.value_spec(chart)
        }
    }

    fn is_empty(&self) -> bool {
        self.series.iter().all(|s| s.values.iter().all(Option::is_none))
    }

    fn notes(&self) -> Vec<String> {
        self.skipped.notes("bar", "bars")
    }

    fn draw(&self, canvas: &Canvas, view: &View) {
        let rects = self.rects(view);
        for (k, s) in self.series.iter().enumerate() {
            canvas.open(&[("class", "series".into()), ("aria-label", s.label.clone())]);
            for (_, r) in rects.iter().filter(|(j, _)| *j == k) {
                canvas.fill(*r, palette::series(s.index));
            }
            canvas.close();
        }
        self.draw_zero_line(canvas, view);
    }

    fn marks(&self, view: &View) -> Vec<Mark> {
        self.rects(view).into_iter().map(|(_, r)| Mark::Area(r)).collect()
    }

    fn entries(&self, _chart: &Chart) -> Vec<Entry> {
        let labelled = self.series.iter().filter(|s| !s.label.is_empty());
        labelled.map(|s| Entry::new(&s.label, Swatch::Patch { color: palette::series(s.index) })).collect()
    }
}

impl Bars {
    fn value_spec(&self, chart: &Chart) -> Spec {
        let axis = value_axis(chart, self.horizontal);
        let e = self.value_extent();
        if Transform::of(axis.scale) == Transform::Linear {
            // Bars grow from 0, so 0 is in range and gets no padding.
            let (lo, hi) = e.unwrap_or((0.0, 1.0));
            num_spec(axis, Some((lo.min(0.0), hi.max(0.0))), (lo < 0.0, hi > 0.0))
        } else {
            num_spec(axis, e, (true, true))
        }
    }

    /// A dark line at 0 when bars go both ways.
    fn draw_zero_line(&self, canvas: &Canvas, view: &View) {
        let val_map = if self.horizontal { view.x } else { view.y };
        let Map::Num(scale) = val_map else { return };
        if scale.tf == Transform::Log || !(scale.lo < 0.0 && scale.hi > 0.0) {
            return;
        }
        let p = scale.px(0.0);
        let f = view.frame;
        let (a, b) = if self.horizontal { ((p, f.y0), (p, f.y1)) } else { ((f.x0, p), (f.x1, p)) };
        canvas.line(a, b, palette::AXIS, 1.0);
    }
}
