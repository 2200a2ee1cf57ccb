//! Line, Step and Scatter charts: numeric x and y, optionally a twin right
//! axis. Points that cannot be drawn (NaN, infinite, <= 0 on a log axis) are
//! dropped and counted; lines are thinned to points at least half a pixel
//! apart (invisible otherwise) and clipped to the plot frame.

use super::{extent, mismatch, num_spec, Body, Skipped, View};
use crate::axis::{Map, Spec};
use crate::canvas::Canvas;
use crate::geom::{clip_polyline, Mark, Pt};
use crate::legend::{Entry, Swatch};
use crate::model::{Chart, Data, Kind, YAxis};
use crate::palette;
use crate::scale::Transform;
use crate::style::{LINE_WIDTH, MARKER_RADIUS};
use crate::PlotError;

pub(crate) struct Xy {
    kind: Kind,
    series: Vec<Line>,
    skipped: Skipped,
    /// Series on both axes: legend entries of the right ones say so.
    both_sides: bool,
}

struct Line {
    /// Position in `Chart::series` (fixes colour and dash).
    index: usize,
    label: String,
    right: bool,
    points: Vec<Pt>,
}

impl Xy {
    pub fn prepare(chart: &Chart) -> Result<Xy, PlotError> {
        let x_tf = Transform::of(chart.x.scale);
        let mut skipped = Skipped::default();
        let mut series = Vec::new();
        for (index, s) in chart.series.iter().enumerate() {
            let Data::Points(points) = &s.data else {
                return Err(mismatch(chart, index));
            };
            // Without a twin axis a "right" series is drawn on the left one.
            let right = s.axis == YAxis::Right && chart.y2.is_some();
            let y_axis = if right { chart.y2.as_ref().unwrap_or(&chart.y) } else { &chart.y };
            let y_tf = Transform::of(y_axis.scale);
            let mut kept = Vec::with_capacity(points.len());
            for &(x, y) in points {
                if !x.is_finite() || !y.is_finite() {
                    skipped.non_finite += 1;
                } else if !x_tf.accepts(x) || !y_tf.accepts(y) {
                    skipped.non_positive += 1;
                } else {
                    kept.push((x, y));
                }
            }
            series.push(Line { index, label: s.label.clone(), right, points: kept });
        }
        let both_sides = series.iter().any(|s| s.right) && series.iter().any(|s| !s.right);
        Ok(Xy { kind: chart.kind, series, skipped, both_sides })
    }

    /// The series' points in px, Step expanded into post steps, thinned.
    fn path(&self, line: &Line, view: &View) -> Vec<Pt> {
        let y_map = if line.right { view.y2.unwrap_or(view.y) } else { view.y };
        let (Map::Num(xs), Map::Num(ys)) = (view.x, y_map) else {
            return Vec::new();
        };
        let px: Vec<Pt> = line.points.iter().map(|&(x, y)| (xs.px(x), ys.px(y))).collect();
        let px = if self.kind == Kind::Step { steps(&px) } else { px };
        if self.kind == Kind::Scatter {
            px
        } else {
            thin(&px, 0.5)
        }
    }

    fn y_extent(&self, right: bool) -> Option<(f64, f64)> {
        extent(self.series.iter().filter(|s| s.right == right).flat_map(|s| s.points.iter().map(|p| p.1)))
    }
}

/// Post steps: each y holds until the next x, then jumps.
fn steps(points: &[Pt]) -> Vec<Pt> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, p) in points.iter().enumerate() {
        if i > 0 {
            out.push((p.0, points[i - 1].1));
        }
        out.push(*p);
    }
    out
}

/// Drops points closer than `min` px to the last kept one; keeps the last.
fn thin(points: &[Pt], min: f64) -> Vec<Pt> {
    let mut out: Vec<Pt> = Vec::with_capacity(points.len());
    for (i, p) in points.iter().enumerate() {
        let far = out.last().is_none_or(|q: &Pt| (p.0 - q.0).hypot(p.1 - q.1) >= min);
        if far || i + 1 == points.len() {
            out.push(*p);
        }
    }
    out
}

impl Body for Xy {
    fn x_spec(&self, chart: &Chart) -> Spec {
        let e = extent(self.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
        num_spec(&chart.x, e, (true, true))
    }

    fn y_spec(&self, chart: &Chart) -> Spec {
        num_spec(&chart.y, self.y_extent(false), (true, true))
    }

    fn y2_spec(&self, chart: &Chart) -> Option<Spec> {
        let y2 = chart.y2.as_ref()?;
        self.series.iter().any(|s| s.right).then(|| num_spec(y2, self.y_extent(true), (true, true)))
    }

    fn is_empty(&self) -> bool {
        self.series.iter().all(|s| s.points.is_empty())
    }

    fn notes(&self) -> Vec<String> {
        self.skipped.notes("point", "points")
    }

    fn draw(&self, canvas: &Canvas, view: &View) {
        for line in &self.series {
            let color = palette::series(line.index);
            canvas.open(&[("class", "series".into()), ("aria-label", line.label.clone())]);
            let px = self.path(line, view);
            if self.kind == Kind::Scatter || px.len() == 1 {
                let hollow = line.index >= 8;
                for p in px.iter().filter(|p| view.frame.contains(**p)) {
                    canvas.dot(*p, MARKER_RADIUS, color, !hollow);
                }
            } else {
                for run in clip_polyline(&px, &view.frame) {
                    canvas.polyline(&run, color, LINE_WIDTH, palette::dash(line.index));
                }
            }
            canvas.close();
        }
    }

    fn marks(&self, view: &View) -> Vec<Mark> {
        let mut marks = Vec::new();
        for line in &self.series {
            let px = self.path(line, view);
            if self.kind == Kind::Scatter || px.len() == 1 {
                marks.extend(px.iter().map(|p| Mark::Dot(*p, MARKER_RADIUS)));
            } else {
                marks.extend(px.windows(2).map(|w| Mark::Seg(w[0], w[1])));
            }
        }
        marks
    }

    fn entries(&self, _chart: &Chart) -> Vec<Entry> {
        let mut entries = Vec::new();
        for line in self.series.iter().filter(|s| !s.label.is_empty()) {
            let color = palette::series(line.index);
            let swatch = if self.kind == Kind::Scatter {
                Swatch::Marker { color, hollow: line.index >= 8 }
            } else {
                Swatch::Line { color, dash: palette::dash(line.index) }
            };
            let label =
                if self.both_sides && line.right { format!("{} (right)", line.label) } else { line.label.clone() };
            entries.push(Entry::new(&label, swatch));
        }
        entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_hold_until_the_next_x() {
        let s = steps(&[(0.0, 0.0), (1.0, 0.5), (3.0, 1.0)]);
        assert_eq!(s, vec![(0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (3.0, 0.5), (3.0, 1.0)]);
    }

    #[test]
    fn thinning_drops_points_under_half_a_pixel_but_keeps_the_last() {
        // 0.3 px from the first: dropped; 0.6 px: kept; the last is kept
        // though 0.1 px from the one before.
        let t = thin(&[(0.0, 0.0), (0.3, 0.0), (0.6, 0.0), (0.7, 0.0)], 0.5);
        assert_eq!(t, vec![(0.0, 0.0), (0.6, 0.0), (0.7, 0.0)]);
    }
}
