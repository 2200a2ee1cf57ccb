//! One axis on the page: its mapping (numeric scale or category bands), the
//! ticks and labels that fit its length without overlapping (fewer ticks;
//! rotated, thinned or ellipsised category names), how far the labels reach
//! (for the layout), and drawing its grid, spine, ticks and labels.

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Bottom,
    Left,
    Right,
}

/// What an axis shows, before it is placed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Spec {
    Num { tf: Transform, lo: f64, hi: f64, given: Option<Vec<f64>>, fmt: TickFormat },
    Cat(Vec<String>),
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
        Spec::Cat(names) if side == Side::Bottom => place_cat_bottom(names, Bands { n: names.len(), p0, p1 }, fig),
        Spec::Cat(names) => place_cat_side(names, Bands { n: names.len(), p0: p1, p1: p0 }, side, fig),
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

/// Category names under the plot: level if they fit their band (numbers,
/// such as hours, also level at every 2nd to 4th: they are ordered, so the
/// missing ones are implied), else turned 45 degrees (90 in narrow bands,
/// with only every k-th shown), and cut with an ellipsis so they take at
/// most about a third of the figure.
fn place_cat_bottom(names: &[String], bands: Bands, fig: (f64, f64)) -> Placed {
    let band = bands.step().abs();
    let h = text_height(TICK_FONT);
    let widest = names.iter().map(|n| text::width(n, TICK_FONT)).fold(0.0, f64::max);
    let level = |stride: usize| widest + CATEGORY_GAP <= band * stride as f64;
    let numeric = names.iter().all(|n| n.trim().parse::<f64>().is_ok());
    let (angle, stride, labels): (f64, usize, Vec<String>) = if level(1) {
        (0.0, 1, names.to_vec())
    } else if let Some(k) = (2..=4).find(|k| numeric && level(*k)) {
        (0.0, k, names.to_vec())
    } else {
        let room = (fig.1 * 0.3).clamp(40.0, 150.0);
        let cut: Vec<String> = names.iter().map(|n| text::fit(n, TICK_FONT, room)).collect();
        if band >= 1.5 * h {
            (-45.0, 1, cut)
        } else {
            (-90.0, ((h + 2.0) / band.max(0.01)).ceil().max(1.0) as usize, cut)
        }
    };
    let ticks: Vec<Tick> = labels
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % stride == 0)
        .map(|(i, name)| Tick { at: bands.centre(i), label: vec![Span::plain(name)] })
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

/// Category names beside the plot (horizontal bars, heat-map rows): cut to
/// at most a third of the figure's width, every k-th when bands are thin.
fn place_cat_side(names: &[String], bands: Bands, side: Side, fig: (f64, f64)) -> Placed {
    let band = bands.step().abs();
    let h = text_height(TICK_FONT);
    let room = (fig.0 * 0.3).max(40.0);
    let stride = ((h + 2.0) / band.max(0.01)).ceil().max(1.0) as usize;
    let ticks: Vec<Tick> = names
        .iter()
        .enumerate()
        .filter(|(i, _)| i % stride == 0)
        .map(|(i, n)| Tick { at: bands.centre(i), label: vec![Span::plain(text::fit(n, TICK_FONT, room))] })
        .collect();
    let depth = ticks.iter().map(|t| label_width(&t.label)).fold(0.0, f64::max);
    Placed { side, map: Map::Cat(bands), ticks, minor: vec![], angle: 0.0, depth, before: 0.0, after: 0.0 }
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
    use crate::plot::format::flat;

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
        let spec = Spec::Cat(names);
        let p = place(&spec, Side::Bottom, 60.0, 540.0, (560.0, 360.0));
        // 480 px / 12 = 40 px bands: far narrower than the names, wider than
        // 1.5 lines, so 45 degrees; room 0.3 * 360 = 108 px < the ~200 px names.
        assert_eq!(p.angle, -45.0);
        assert_eq!(p.ticks.len(), 12);
        assert!(labels(&p).iter().all(|l| l.ends_with('…')));
        assert!(p.ticks.iter().all(|t| label_width(&t.label) <= 108.0));
    }

    #[test]
    fn hours_stay_level_and_thin_out_instead_of_turning() {
        let hours: Vec<String> = (0..24).map(|h| h.to_string()).collect();
        // "23" is 2 * 1303 * 11 / 2048 = 14.0 px wide; with the 4 px gap it
        // needs 18 px: 24 bands in 480 px (20 px) hold every hour ...
        let p = place(&Spec::Cat(hours.clone()), Side::Bottom, 0.0, 480.0, (560.0, 360.0));
        assert_eq!((p.angle, p.ticks.len()), (0.0, 24));
        // ... 24 in 240 px (10 px) every second hour: 0, 2, ..., 22.
        let p = place(&Spec::Cat(hours), Side::Bottom, 0.0, 240.0, (560.0, 360.0));
        assert_eq!((p.angle, p.ticks.len()), (0.0, 12));
        assert_eq!(labels(&p)[1], "2");
    }

    #[test]
    fn thin_category_bands_show_every_kth_name() {
        let names: Vec<String> = (0..300).map(|i| format!("m{i}")).collect();
        // 300 rows in 300 px: 1 px bands; labels 10.6 px tall + 2 -> every 13th.
        let p = place(&Spec::Cat(names), Side::Left, 310.0, 10.0, (560.0, 360.0));
        assert_eq!(p.ticks.len(), 300_usize.div_ceil(13));
        assert_eq!(labels(&p)[1], "m13");
    }
}
