//! Line, Step and Scatter charts: numeric x and y, optionally a twin right
//! axis. A NaN y is a gap: the line breaks there (a month or bin without
//! data is not a 0). Other points that cannot be drawn (infinite, NaN x,
//! <= 0 on a log axis) are dropped and counted; lines are thinned to points
//! at least half a pixel apart (invisible otherwise) and clipped to the
//! plot frame. Each series has its own dash pattern and marker shape
//! besides its colour, so the figure survives grey printing: lines carry a
//! few markers spaced along their length, scatter plots one per point.

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

/// Markers along each line: enough to tell the series apart wherever one
/// looks, few enough not to hide the curve.
const MARKS_PER_LINE: usize = 5;

pub(crate) struct Xy {
    kind: Kind,
    series: Vec<Line>,
    skipped: Skipped,
    /// Series on both axes: legend entries of the right ones say so.
    both_sides: bool,
}

struct Line {
    /// Position in `Chart::series` (fixes colour, dash and marker).
    index: usize,
    label: String,
    right: bool,
    step: bool,
    /// The drawable points, in runs split where the data has a gap.
    runs: Vec<Vec<(f64, f64)>>,
}

impl Line {
    fn points(&self) -> impl Iterator<Item = &(f64, f64)> {
        self.runs.iter().flatten()
    }
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
            let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
            for &(x, y) in points {
                if x.is_finite() && y.is_nan() {
                    runs.push(Vec::new());
                } else if !x.is_finite() || !y.is_finite() {
                    skipped.non_finite += 1;
                } else if !x_tf.accepts(x) || !y_tf.accepts(y) {
                    skipped.non_positive += 1;
                } else {
                    runs.last_mut().expect("a run").push((x, y));
                }
            }
            runs.retain(|r| !r.is_empty());
            series.push(Line { index, label: s.label.clone(), right, step: s.step, runs });
        }
        let both_sides = series.iter().any(|s| s.right) && series.iter().any(|s| !s.right);
        Ok(Xy { kind: chart.kind, series, skipped, both_sides })
    }

    /// The series' runs in px, steps expanded, thinned.
    fn path(&self, line: &Line, view: &View) -> Vec<Vec<Pt>> {
        let y_map = if line.right { view.y2.unwrap_or(view.y) } else { view.y };
        let (Map::Num(xs), Map::Num(ys)) = (view.x, y_map) else {
            return Vec::new();
        };
        let step = line.step || self.kind == Kind::Step;
        let to_px = |run: &Vec<(f64, f64)>| {
            let px: Vec<Pt> = run.iter().map(|&(x, y)| (xs.px(x), ys.px(y))).collect();
            let px = if step { steps(&px) } else { px };
            if self.kind == Kind::Scatter {
                px
            } else {
                thin(&px, 0.5)
            }
        };
        line.runs.iter().map(to_px).collect()
    }

    /// The pieces of the series drawn as lines (clipped) and the points
    /// drawn as markers.
    fn shapes(&self, line: &Line, view: &View) -> (Vec<Vec<Pt>>, Vec<Pt>) {
        let runs = self.path(line, view);
        if self.kind == Kind::Scatter {
            let dots = runs.into_iter().flatten().filter(|p| view.frame.contains(*p)).collect();
            return (Vec::new(), dots);
        }
        let mut pieces = Vec::new();
        let mut dots = Vec::new();
        for run in runs {
            match run.as_slice() {
                [p] => dots.extend(Some(*p).filter(|p| view.frame.contains(*p))),
                _ => pieces.extend(clip_polyline(&run, &view.frame)),
            }
        }
        dots.extend(along(&pieces, MARKS_PER_LINE, phase(line.index)));
        (pieces, dots)
    }

    fn y_extent(&self, right: bool) -> Option<(f64, f64)> {
        extent(self.series.iter().filter(|s| s.right == right).flat_map(|s| s.points().map(|p| p.1)))
    }
}

/// Where series `i` starts its markers, as a fraction of the spacing, so
/// the markers of overlapping curves do not sit on each other.
fn phase(i: usize) -> f64 {
    0.5 + 0.37 * i as f64 - (0.5 + 0.37 * i as f64).floor()
}

/// `n` points evenly spaced along the pieces (by length), the k-th at
/// (k + phase) / n of the total.
fn along(pieces: &[Vec<Pt>], n: usize, phase: f64) -> Vec<Pt> {
    let seg_len = |w: &[Pt]| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1);
    let total: f64 = pieces.iter().flat_map(|p| p.windows(2)).map(seg_len).sum();
    if total <= 0.0 {
        return Vec::new();
    }
    let mut targets = (0..n).map(|k| (k as f64 + phase) * total / n as f64).peekable();
    let mut out = Vec::new();
    let mut walked = 0.0;
    for w in pieces.iter().flat_map(|p| p.windows(2)) {
        let len = seg_len(w);
        while let Some(&t) = targets.peek().filter(|t| **t <= walked + len) {
            let f = if len > 0.0 { (t - walked) / len } else { 0.0 };
            out.push((w[0].0 + f * (w[1].0 - w[0].0), w[0].1 + f * (w[1].1 - w[0].1)));
            targets.next();
        }
        walked += len;
    }
    out
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
        let e = extent(self.series.iter().flat_map(|s| s.points().map(|p| p.0)));
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
        self.series.iter().all(|s| s.runs.is_empty())
    }

    fn notes(&self) -> Vec<String> {
        self.skipped.notes("point", "points")
    }

    fn draw(&self, canvas: &Canvas, view: &View) {
        for line in &self.series {
            let color = palette::series(line.index);
            canvas.open(&[("class", "series".into()), ("aria-label", line.label.clone())]);
            let (pieces, dots) = self.shapes(line, view);
            for piece in &pieces {
                canvas.polyline(piece, color, LINE_WIDTH, palette::dash(line.index));
            }
            canvas.open(&[("class", "markers".into())]);
            for p in dots {
                canvas.marker(palette::shape(line.index), p, MARKER_RADIUS, color);
            }
            canvas.close();
            canvas.close();
        }
    }

    fn marks(&self, view: &View) -> Vec<Mark> {
        let mut marks = Vec::new();
        for line in &self.series {
            let (pieces, dots) = self.shapes(line, view);
            marks.extend(pieces.iter().flat_map(|p| p.windows(2)).map(|w| Mark::Seg(w[0], w[1])));
            marks.extend(dots.into_iter().map(|p| Mark::Dot(p, MARKER_RADIUS)));
        }
        marks
    }

    fn entries(&self, _chart: &Chart) -> Vec<Entry> {
        let mut entries = Vec::new();
        for line in self.series.iter().filter(|s| !s.label.is_empty()) {
            let (color, shape) = (palette::series(line.index), palette::shape(line.index));
            let swatch = if self.kind == Kind::Scatter {
                Swatch::Marker { color, shape }
            } else {
                Swatch::Line { color, dash: palette::dash(line.index), shape }
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

    #[test]
    fn markers_are_spaced_evenly_along_the_length() {
        // Two pieces of length 10 and 30 (a gap between): 4 markers at
        // (k + 0.5) * 40 / 4 = 5, 15, 25, 35 along; 5 is on the first piece,
        // 15, 25, 35 are 5, 15, 25 into the second.
        let pieces = vec![vec![(0.0, 0.0), (10.0, 0.0)], vec![(0.0, 5.0), (30.0, 5.0)]];
        assert_eq!(along(&pieces, 4, 0.5), vec![(5.0, 0.0), (5.0, 5.0), (15.0, 5.0), (25.0, 5.0)]);
        assert!(along(&[vec![(1.0, 1.0)]], 4, 0.5).is_empty());
        assert!((0..10).all(|i| (0.0..1.0).contains(&phase(i))));
    }
}
