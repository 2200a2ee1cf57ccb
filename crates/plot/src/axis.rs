//! One axis on the page: its mapping (numeric scale or category bands), the
//! ticks and labels that fit its length without overlapping (fewer ticks;
//! rotated, thinned or ellipsised category names), how far the labels reach
//! (for the layout), and drawing its grid, spine, ticks and labels.

use std::f64::consts::FRAC_1_SQRT_2;

use plotters::style::text_anchor::{HPos, VPos};

use super::canvas::{spec, Canvas};
use super::format::{self, Label};
use super::geom::Rect;
use super::model::TickFormat;
use super::palette;
use super::scale::{Bands, NumScale, Transform};
use super::style::{text_height, AXIS_WIDTH, GRID_WIDTH, LABEL_SPACING, TICK_FONT, TICK_GAP, TICK_LEN};
use super::svg::TextSpec;
use super::text::{self, Span};
use super::ticks;

/// Least space between two level category names: they sit at band centres,
/// so names are rarely next to each other for their full width.
const CATEGORY_GAP: f64 = 4.0;
/// Least space between two category names set one above the other (beside
/// the plot) or side by side turned (under it), across their lines.
const LINE_GAP: f64 = 2.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Bottom,
    Left,
    Right,
}

/// What an axis shows, before it is placed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Spec {
    Num {
        tf: Transform,
        lo: f64,
        hi: f64,
        given: Option<Vec<f64>>,
        fmt: TickFormat,
    },
    /// Category names in order; `given`: the axis' explicit ticks, read as
    /// positions in `names` (see `Axis::ticks`).
    Cat {
        names: Vec<String>,
        given: Option<Vec<f64>>,
    },
}

impl Spec {
    /// Categories labelled as room allows.
    pub fn cat(names: Vec<String>) -> Spec {
        Spec::Cat { names, given: None }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Map {
    Num(NumScale),
    Cat(Bands),
}

impl Map {
    pub fn num(&self) -> Option<&NumScale> {
        match self {
            Map::Num(s) => Some(s),
            Map::Cat(_) => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tick {
    /// Pixel position along the axis.
    pub at: f64,
    pub label: Label,
}

/// An axis placed between pixels `p0` and `p1`. For a vertical axis p0 is
/// the bottom (numbers grow upwards; categories run top to bottom).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Placed {
    pub side: Side,
    pub map: Map,
    pub ticks: Vec<Tick>,
    pub minor: Vec<f64>,
    /// Rotation of the tick labels (bottom category axes): 0, -45 or -90.
    pub angle: f64,
    /// How far the tick labels reach away from the axis, past tick and gap.
    pub depth: f64,
    /// How far labels stick out before p0 and after p1 along the axis.
    pub before: f64,
    pub after: f64,
}

pub(crate) fn place(spec: &Spec, side: Side, p0: f64, p1: f64, fig: (f64, f64)) -> Placed {
    match spec {
        Spec::Num { tf, lo, hi, given, fmt } => {
            place_num(NumScale::new(*tf, *lo, *hi, p0, p1), given.as_deref(), *fmt, side)
        }
        Spec::Cat { names, given } => {
            let shown = candidates(names.len(), given.as_deref());
            if side == Side::Bottom {
                place_cat_bottom(names, &shown, Bands { n: names.len(), p0, p1 }, fig)
            } else {
                place_cat_side(names, &shown, Bands { n: names.len(), p0: p1, p1: p0 }, side, fig)
            }
        }
    }
}

fn place_num(scale: NumScale, given: Option<&[f64]>, fmt: TickFormat, side: Side) -> Placed {
    let len = (scale.p1 - scale.p0).abs();
    let per_label = if side == Side::Bottom { 70.0 } else { 38.0 };
    let mut target = ((len / per_label).floor() as usize).clamp(2, 10);
    loop {
        let t = match given {
            Some(g) => ticks::explicit(scale.tf, scale.lo, scale.hi, g),
            None => ticks::generate(scale.tf, scale.lo, scale.hi, fmt, target),
        };
        let mut labelled: Vec<Tick> = t
            .major
            .iter()
            .zip(format::labels(&t.major, fmt, scale.tf))
            .filter(|(v, _)| scale.contains(**v))
            .map(|(v, label)| Tick { at: scale.px(*v), label })
            .collect();
        if given.is_some() {
            labelled = thin(labelled, side);
        }
        if given.is_some() || target == 2 || fits(&labelled, side) {
            let minor = t.minor.iter().filter(|v| scale.contains(**v)).map(|v| scale.px(*v)).collect();
            return finish_num(scale, labelled, minor, side);
        }
        target -= 1;
    }
}

/// Every k-th of the given ticks, for the smallest k whose labels fit.
fn thin(ticks: Vec<Tick>, side: Side) -> Vec<Tick> {
    (1..=ticks.len().max(1))
        .map(|k| ticks.iter().step_by(k).cloned().collect::<Vec<_>>())
        .find(|t| fits(t, side))
        .unwrap_or(ticks)
}

fn label_width(label: &Label) -> f64 {
    text::spans_width(label, TICK_FONT)
}

/// Neighbouring labels keep `LABEL_SPACING` apart (side by side on the
/// bottom axis, stacked on a vertical one).
fn fits(ticks: &[Tick], side: Side) -> bool {
    ticks.windows(2).all(|w| {
        let gap = (w[1].at - w[0].at).abs();
        match side {
            Side::Bottom => gap >= (label_width(&w[0].label) + label_width(&w[1].label)) / 2.0 + LABEL_SPACING,
            Side::Left | Side::Right => gap >= text_height(TICK_FONT) + LABEL_SPACING / 2.0,
        }
    })
}

fn finish_num(scale: NumScale, ticks: Vec<Tick>, minor: Vec<f64>, side: Side) -> Placed {
    let (mut before, mut after, depth);
    if side == Side::Bottom {
        depth = text_height(TICK_FONT);
        before = 0.0;
        after = 0.0;
        for t in &ticks {
            let half = label_width(&t.label) / 2.0;
            before = f64::max(before, half - (t.at - scale.p0));
            after = f64::max(after, t.at + half - scale.p1);
        }
    } else {
        depth = ticks.iter().map(|t| label_width(&t.label)).fold(0.0, f64::max);
        let half = text_height(TICK_FONT) / 2.0;
        before = ticks.iter().map(|t| half - (scale.p0 - t.at)).fold(0.0, f64::max);
        after = ticks.iter().map(|t| half - (t.at - scale.p1)).fold(0.0, f64::max);
    }
    Placed { side, map: Map::Num(scale), ticks, minor, angle: 0.0, depth, before, after }
}

/// The categories that may get a label: those the explicit ticks name
/// (whole numbers 0..n as positions; anything else is dropped), else all.
fn candidates(n: usize, given: Option<&[f64]>) -> Vec<usize> {
    let Some(given) = given else {
        return (0..n).collect();
    };
    let mut picked: Vec<usize> = given
        .iter()
        .filter(|v| v.is_finite() && v.fract() == 0.0 && **v >= 0.0 && **v < n as f64)
        .map(|v| *v as usize)
        .collect();
    picked.sort_unstable();
    picked.dedup();
    picked
}

/// Every k-th of `candidates` (category positions, increasing) for the
/// smallest k at which each label keeps clear of the next (`clear(i, j)`
/// for positions i < j): the first always, the last too when it is clear of
/// the label before it. Returns k and the positions to label. Trying k =
/// 1, 2, ... stops at the first pair that collides, so this is about
/// n log n checks, not n^2.
fn every_kth(candidates: &[usize], clear: impl Fn(usize, usize) -> bool) -> (usize, Vec<usize>) {
    for k in 1..=candidates.len() {
        let mut picked: Vec<usize> = candidates.iter().copied().step_by(k).collect();
        if picked.windows(2).all(|w| clear(w[0], w[1])) {
            if let (Some(&prev), Some(&last)) = (picked.last(), candidates.last()) {
                if last != prev && clear(prev, last) {
                    picked.push(last);
                }
            }
            return (k, picked);
        }
    }
    (1, Vec::new())
}

/// Category names under the plot: level if they fit their band (numbers,
/// such as hours, also level at every 2nd to 4th: they are ordered, so the
/// missing ones are implied), else turned 45 degrees when every name fits
/// so, else 90 degrees with every k-th shown, and cut with an ellipsis so
/// they take at most about a third of the figure.
fn place_cat_bottom(names: &[String], shown: &[usize], bands: Bands, fig: (f64, f64)) -> Placed {
    let band = bands.step().abs();
    let h = text_height(TICK_FONT);
    let apart = |i: usize, j: usize| (j - i) as f64 * band;
    let widths: Vec<f64> = names.iter().map(|n| text::width(n, TICK_FONT)).collect();
    let numeric = names.iter().all(|n| n.trim().parse::<f64>().is_ok());
    let (k, level) = every_kth(shown, |i, j| apart(i, j) >= (widths[i] + widths[j]) / 2.0 + CATEGORY_GAP);
    let (angle, shown, room): (f64, Vec<usize>, Option<f64>) = if k == 1 || (numeric && k <= 4) {
        (0.0, level, None)
    } else {
        let room = (fig.1 * 0.3).clamp(40.0, 150.0);
        // Turned labels are parallel: they collide when their baselines,
        // `apart * sin(angle)` from each other, are less than a line apart.
        let (k, turned) = every_kth(shown, |i, j| apart(i, j) * FRAC_1_SQRT_2 >= h + LINE_GAP);
        if k == 1 {
            (-45.0, turned, Some(room))
        } else {
            (-90.0, every_kth(shown, |i, j| apart(i, j) >= h + LINE_GAP).1, Some(room))
        }
    };
    let ticks: Vec<Tick> = shown
        .into_iter()
        .map(|i| {
            let name = room.map_or_else(|| names[i].clone(), |r| text::fit(&names[i], TICK_FONT, r));
            Tick { at: bands.centre(i), label: vec![Span::plain(name)] }
        })
        .collect();
    let (sin, cos) = (angle.to_radians().sin().abs(), angle.to_radians().cos().abs());
    let mut depth: f64 = h;
    let (mut before, mut after): (f64, f64) = (0.0, 0.0);
    for t in &ticks {
        let w = label_width(&t.label);
        depth = depth.max(w * sin + h * cos);
        let reach_left = if angle == 0.0 { w / 2.0 } else { w * cos + h * sin / 2.0 };
        let reach_right = if angle == 0.0 { w / 2.0 } else { h * sin / 2.0 };
        before = before.max(reach_left - (t.at - bands.p0));
        after = after.max(t.at + reach_right - bands.p1);
    }
    Placed { side: Side::Bottom, map: Map::Cat(bands), ticks, minor: vec![], angle, depth, before, after }
}

/// Category names beside the plot (horizontal bars, heat-map rows): every
/// k-th when bands are thinner than a line, cut to at most a third of the
/// figure's width. `bands` run from the top (p0) down.
fn place_cat_side(names: &[String], shown: &[usize], bands: Bands, side: Side, fig: (f64, f64)) -> Placed {
    let band = bands.step().abs();
    let h = text_height(TICK_FONT);
    let room = (fig.0 * 0.3).max(40.0);
    let (_, shown) = every_kth(shown, |i, j| (j - i) as f64 * band >= h + LINE_GAP);
    let ticks: Vec<Tick> = shown
        .into_iter()
        .map(|i| Tick { at: bands.centre(i), label: vec![Span::plain(text::fit(&names[i], TICK_FONT, room))] })
        .collect();
    let depth = ticks.iter().map(|t| label_width(&t.label)).fold(0.0, f64::max);
    // As for numeric axes: `before` is below the bottom end, `after` above the top.
    let half = h / 2.0;
    let before = ticks.iter().map(|t| half - (bands.p1 - t.at)).fold(0.0, f64::max);
    let after = ticks.iter().map(|t| half - (t.at - bands.p0)).fold(0.0, f64::max);
    Placed { side, map: Map::Cat(bands), ticks, minor: vec![], angle: 0.0, depth, before, after }
}

impl Placed {
    /// Light lines across the plot at the major ticks of a numeric axis.
    pub fn draw_grid(&self, canvas: &Canvas, frame: &Rect) {
        if self.map.num().is_none() {
            return;
        }
        for t in &self.ticks {
            match self.side {
                Side::Bottom => canvas.line((t.at, frame.y0), (t.at, frame.y1), palette::GRID, GRID_WIDTH),
                Side::Left => canvas.line((frame.x0, t.at), (frame.x1, t.at), palette::GRID, GRID_WIDTH),
                // The twin axis would draw a second, unrelated grid.
                Side::Right => {}
            }
        }
    }

    /// Spine, tick marks and tick labels.
    pub fn draw(&self, canvas: &Canvas, frame: &Rect) {
        let (a, b) = match self.side {
            Side::Bottom => ((frame.x0, frame.y1), (frame.x1, frame.y1)),
            Side::Left => ((frame.x0, frame.y0), (frame.x0, frame.y1)),
            Side::Right => ((frame.x1, frame.y0), (frame.x1, frame.y1)),
        };
        canvas.line(a, b, palette::AXIS, AXIS_WIDTH);
        for t in &self.ticks {
            self.tick_mark(canvas, frame, t.at, TICK_LEN);
        }
        for m in &self.minor {
            self.tick_mark(canvas, frame, *m, TICK_LEN / 2.0);
        }
        for t in &self.ticks {
            let (at, spec) = self.label_anchor(frame, t.at);
            canvas.text(&t.label, at, spec);
        }
    }

    fn tick_mark(&self, canvas: &Canvas, frame: &Rect, at: f64, len: f64) {
        let (a, b) = match self.side {
            Side::Bottom => ((at, frame.y1), (at, frame.y1 + len)),
            Side::Left => ((frame.x0 - len, at), (frame.x0, at)),
            Side::Right => ((frame.x1, at), (frame.x1 + len, at)),
        };
        canvas.line(a, b, palette::AXIS, AXIS_WIDTH);
    }

    fn label_anchor(&self, frame: &Rect, at: f64) -> ((f64, f64), TextSpec) {
        let off = TICK_LEN + TICK_GAP;
        match self.side {
            Side::Bottom if self.angle == 0.0 => {
                ((at, frame.y1 + off), spec(TICK_FONT, palette::INK, HPos::Center, VPos::Top))
            }
            Side::Bottom => {
                // Turned labels end at their tick, centred on its line.
                let mut s = spec(TICK_FONT, palette::INK, HPos::Right, VPos::Center);
                s.angle = self.angle;
                ((at, frame.y1 + off + 1.0), s)
            }
            Side::Left => ((frame.x0 - off, at), spec(TICK_FONT, palette::INK, HPos::Right, VPos::Center)),
            Side::Right => ((frame.x1 + off, at), spec(TICK_FONT, palette::INK, HPos::Left, VPos::Center)),
        }
    }

    /// Space the axis needs beside the plot: ticks, gap and labels.
    pub fn thickness(&self) -> f64 {
        TICK_LEN + TICK_GAP + self.depth
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::flat;

    fn labels(p: &Placed) -> Vec<String> {
        p.ticks.iter().map(|t| flat(&t.label)).collect()
    }

    #[test]
    fn a_log_axis_over_six_decades_labels_every_decade_when_there_is_room() {
        let spec = Spec::Num { tf: Transform::Log, lo: 1.0, hi: 1e6, given: None, fmt: TickFormat::Auto };
        // 490 px / 70 = 7 labels wanted; "10^6" is ~20 px wide, decades 70 px apart.
        let p = place(&spec, Side::Bottom, 50.0, 540.0, (560.0, 360.0));
        assert_eq!(labels(&p), ["10^0", "10^1", "10^2", "10^3", "10^4", "10^5", "10^6"]);
        assert_eq!(p.ticks[3].at, 50.0 + 245.0);
        assert_eq!(p.minor.len(), 48);
    }

    #[test]
    fn a_short_axis_gets_fewer_ticks() {
        let spec = Spec::Num { tf: Transform::Linear, lo: 0.0, hi: 1.0, given: None, fmt: TickFormat::Percent };
        // 100 px: at most 2 wanted -> 0%, 50%, 100% (step 0.5).
        let p = place(&spec, Side::Bottom, 0.0, 100.0, (560.0, 360.0));
        assert_eq!(labels(&p), ["0%", "50%", "100%"]);
    }

    #[test]
    fn long_category_names_turn_and_get_an_ellipsis() {
        let names: Vec<String> = (0..12).map(|i| format!("virtual-cluster-with-a-long-name-{i}")).collect();
        let spec = Spec::cat(names);
        let p = place(&spec, Side::Bottom, 60.0, 540.0, (560.0, 360.0));
        // 480 px / 12 = 40 px bands: far narrower than the names; turned 45
        // degrees their baselines are 40 * 0.7071 = 28.3 px apart, more than
        // a line (12.61 px, below), so 45 degrees; room 0.3 * 360 = 108 px <
        // the ~200 px names.
        assert_eq!(p.angle, -45.0);
        assert_eq!(p.ticks.len(), 12);
        assert!(labels(&p).iter().all(|l| l.ends_with('…')));
        assert!(p.ticks.iter().all(|t| label_width(&t.label) <= 108.0));
    }

    #[test]
    fn hours_stay_level_and_thin_out_instead_of_turning() {
        let hours: Vec<String> = (0..24).map(|h| h.to_string()).collect();
        // "23" is 2 * 1303 * 15 / 2048 = 19.09 px wide; with the 4 px gap it
        // needs 23.09 px: 24 bands in 576 px (24 px) hold every hour ...
        let p = place(&Spec::cat(hours.clone()), Side::Bottom, 0.0, 576.0, (560.0, 360.0));
        assert_eq!((p.angle, p.ticks.len()), (0.0, 24));
        // ... 24 in 288 px (12 px) every second hour: 0, 2, ..., 22.
        let p = place(&Spec::cat(hours), Side::Bottom, 0.0, 288.0, (560.0, 360.0));
        assert_eq!((p.angle, p.ticks.len()), (0.0, 12));
        assert_eq!(labels(&p)[1], "2");
    }

    #[test]
    fn thin_category_bands_show_every_kth_name() {
        let names: Vec<String> = (0..300).map(|i| format!("m{i}")).collect();
        // 300 rows in 300 px: 1 px bands; labels 14.47 px tall + 2 -> every
        // 17th: 0, 17, ..., 289 (18 names); 299 is 10 px below 289: left out.
        let p = place(&Spec::cat(names), Side::Left, 310.0, 10.0, (560.0, 360.0));
        assert_eq!(p.ticks.len(), 18);
        assert_eq!((labels(&p)[1].as_str(), labels(&p)[17].as_str()), ("m17", "m289"));
    }

    // The numbers below use the tick font's line height, h = 15 px *
    // (cap height 1493 + descent 483) / 2048 = 14.47265625 px, so names
    // stacked (or turned side by side) need h + LINE_GAP = 16.47265625 px.

    #[test]
    fn heat_map_rows_thin_to_every_kth_name() {
        // 120 machines in 300 px: 2.5 px bands. Every 6th is 15 px apart,
        // short of 16.473; every 7th 17.5 px: k = 7, so rows 0, 7, ..., 119
        // (= 17 * 7: 18 names, the last row among them).
        let names: Vec<String> = (0..120).map(|i| format!("rack07-slot-{i:03}")).collect();
        assert_eq!(names[0].chars().count(), 15);
        let p = place(&Spec::cat(names), Side::Left, 310.0, 10.0, (560.0, 360.0));
        let l = labels(&p);
        assert_eq!(l.len(), 18);
        assert_eq!(
            (l[0].as_str(), l[1].as_str(), l[17].as_str()),
            ("rack07-slot-000", "rack07-slot-007", "rack07-slot-119")
        );
        // Rows run top down from 10 px: row 7's centre is 10 + 7.5 * 2.5 = 28.75.
        assert_eq!(p.ticks[1].at, 28.75);
        // The first name, centred 1.25 px below the top, reaches h/2 - 1.25
        // = 5.98633 px above it: the layout makes room for that.
        assert!((p.after - (14.47265625 / 2.0 - 1.25)).abs() < 1e-9);
    }

    #[test]
    fn the_last_category_is_labelled_when_it_fits() {
        let names: Vec<String> = (0..11).map(|i| format!("r{i}")).collect();
        // 11 rows in 110 px: 10 px bands. Explicit ticks pick rows 0..4 and
        // 10 (2.5, 11 and -1 name no row). Neighbours 10 px apart collide,
        // every 2nd of the six (0, 2, 4) is 20 px apart, and the last, row
        // 10, is 60 px below row 4: it is kept.
        let spec =
            Spec::Cat { names: names.clone(), given: Some(vec![0.0, 1.0, 2.0, 3.0, 4.0, 10.0, 2.5, 11.0, -1.0]) };
        let p = place(&spec, Side::Left, 120.0, 10.0, (560.0, 360.0));
        assert_eq!(labels(&p), ["r0", "r2", "r4", "r10"]);
        // Rows 0..5: every 2nd is 0, 2, 4, and row 5, 10 px below 4, is not.
        let spec = Spec::Cat { names, given: Some(vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]) };
        let p = place(&spec, Side::Left, 120.0, 10.0, (560.0, 360.0));
        assert_eq!(labels(&p), ["r0", "r2", "r4"]);
    }

    #[test]
    fn explicit_ticks_pick_categories_and_stay_level_when_they_fit() {
        let hours: Vec<String> = (0..24).map(|h| h.to_string()).collect();
        // 24 hours in 240 px (10 px bands). Ticks 0, 6, 12, 18, 23: "23" is
        // 2 * 1303 * 11 / 2048 = 14.0 px wide, so 18 and 23, 50 px apart,
        // need (14 + 14) / 2 + 4 = 18 px; the others are 60 px apart.
        let spec = Spec::Cat { names: hours, given: Some(vec![0.0, 6.0, 12.0, 18.0, 23.0]) };
        let p = place(&spec, Side::Bottom, 0.0, 240.0, (560.0, 360.0));
        assert_eq!(p.angle, 0.0);
        assert_eq!(labels(&p), ["0", "6", "12", "18", "23"]);
        // Hour 6 is centred at (6 + 0.5) * 10 = 65 px.
        assert_eq!(p.ticks[1].at, 65.0);
    }

    #[test]
    fn many_box_categories_turn_upright_and_thin() {
        let names: Vec<String> = (0..60).map(|i| format!("cluster-{i:02}")).collect();
        // 60 in 480 px: 8 px bands, far narrower than the names. Turned 45
        // degrees, neighbours' baselines are 8 * 0.7071 = 5.66 px apart
        // (< 16.47), so the names stand upright; 16 px < 16.47 but 24 px is
        // not: every 3rd, 0, 3, ..., 57 (20 names); 59 is 16 px past 57.
        let p = place(&Spec::cat(names), Side::Bottom, 40.0, 520.0, (560.0, 360.0));
        assert_eq!(p.angle, -90.0);
        let l = labels(&p);
        assert_eq!((l.len(), l[1].as_str(), l[19].as_str()), (20, "cluster-03", "cluster-57"));
    }

    #[test]
    fn names_turn_45_degrees_only_when_all_of_them_fit() {
        let names: Vec<String> = (0..20).map(|i| format!("virtual-cluster-{i}")).collect();
        // 20 in 470 px: 23.5 px bands; turned baselines 23.5 * 0.70711 =
        // 16.617 px apart >= 16.473: all 20 at 45 degrees.
        let p = place(&Spec::cat(names.clone()), Side::Bottom, 0.0, 470.0, (560.0, 360.0));
        assert_eq!((p.angle, p.ticks.len()), (-45.0, 20));
        // 20 in 460 px: 23 px bands, 23 * 0.70711 = 16.263 px < 16.473, so
        // upright, where 23 px >= 16.473 still holds all 20.
        let p = place(&Spec::cat(names), Side::Bottom, 0.0, 460.0, (560.0, 360.0));
        assert_eq!((p.angle, p.ticks.len()), (-90.0, 20));
    }
}
