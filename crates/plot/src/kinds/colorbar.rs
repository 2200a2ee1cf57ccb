//! The colour side of heat maps: values to one of 255 viridis levels (plus
//! a grey "no data" level; the same levels serve rectangles, the embedded
//! image and the bar), the colour range, and the colour bar right of the
//! plot with the range's min and max as labels.

use plotters::style::text_anchor::{HPos, VPos};

use crate::canvas::{spec, Canvas};
use crate::format::Label;
use crate::geom::Rect;
use crate::model::Axis;
use crate::palette::{self, Color};
use crate::scale::{decade, pow10, Transform};
use crate::style::{text_height, LABEL_FONT, LABEL_GAP, TICK_FONT, TICK_GAP};
use crate::text::{self, Span};

/// Levels 0..=254 run through viridis; this one is "no data".
pub(crate) const NO_DATA_LEVEL: u8 = 255;

#[derive(Debug, Clone, Copy)]
pub(crate) struct ColorScale {
    pub tf: Transform,
    pub lo: f64,
    pub hi: f64,
}

impl ColorScale {
    /// The level of `v`: its place between lo and hi (clamped), in 254ths.
    pub fn level(&self, v: f64) -> u8 {
        if !self.tf.accepts(v) {
            return NO_DATA_LEVEL;
        }
        let (a, b) = (self.tf.apply(self.lo), self.tf.apply(self.hi));
        let t = if b > a { (self.tf.apply(v) - a) / (b - a) } else { 0.5 };
        (t.clamp(0.0, 1.0) * 254.0).round() as u8
    }

    pub fn color(level: u8) -> Color {
        if level == NO_DATA_LEVEL {
            palette::NO_DATA
        } else {
            palette::viridis(f64::from(level) / 254.0)
        }
    }

    /// All 256 levels' colours, for an indexed image.
    pub fn palette() -> Vec<(u8, u8, u8)> {
        (0..=255).map(|l| ColorScale::color(l).rgb).collect()
    }
}

/// The colour range: the colour axis' bounds, else the data's.
pub(crate) fn color_range(axis: &Axis, data: Option<(f64, f64)>) -> (f64, f64) {
    let tf = Transform::of(axis.scale);
    let (dlo, dhi) = data.unwrap_or((0.0, 1.0));
    let lo = axis.min.filter(|v| tf.accepts(*v)).unwrap_or(dlo);
    let hi = axis.max.filter(|v| tf.accepts(*v)).unwrap_or(dhi);
    (lo, hi.max(lo))
}

/// Three significant digits: a colour bar end is read, not computed with.
pub(crate) fn round3(v: f64) -> f64 {
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

/// The colour bar right of a heat map.
pub(crate) struct ColorBar {
    /// Labels of the range's low and high end.
    pub ends: Vec<Label>,
    pub title: String,
}

const BAR_GAP: f64 = 12.0;
const BAR_WIDTH: f64 = 12.0;
const BAR_STEPS: usize = 64;

impl ColorBar {
    fn widest_end(&self) -> f64 {
        self.ends.iter().map(|l| text::spans_width(l, TICK_FONT)).fold(0.0, f64::max)
    }

    /// Space right of the plot frame.
    pub fn width(&self) -> f64 {
        let title = if self.title.is_empty() { 0.0 } else { LABEL_GAP + text_height(LABEL_FONT) };
        BAR_GAP + BAR_WIDTH + TICK_GAP + self.widest_end() + title
    }

    pub fn draw(&self, canvas: &Canvas, frame: &Rect) {
        canvas.open(&[("class", "colorbar".into())]);
        canvas.open(&[("shape-rendering", "crispEdges".into())]);
        let x0 = frame.x1 + BAR_GAP;
        let h = frame.height() / BAR_STEPS as f64;
        for i in 0..BAR_STEPS {
            let level = ((i as f64 + 0.5) / BAR_STEPS as f64 * 254.0).round() as u8;
            let y1 = frame.y1 - i as f64 * h;
            canvas.fill(Rect::new((x0, y1 - h), (x0 + BAR_WIDTH, y1)), ColorScale::color(level));
        }
        canvas.close();
        canvas.outline(Rect::new((x0, frame.y0), (x0 + BAR_WIDTH, frame.y1)), palette::AXIS, 1.0);
        let lx = x0 + BAR_WIDTH + TICK_GAP;
        let ink = |v| spec(TICK_FONT, palette::INK, HPos::Left, v);
        canvas.text(&self.ends[0], (lx, frame.y1), ink(VPos::Bottom));
        canvas.text(&self.ends[1], (lx, frame.y0), ink(VPos::Top));
        if !self.title.is_empty() {
            let mut s = spec(LABEL_FONT, palette::INK, HPos::Center, VPos::Top);
            s.angle = -90.0;
            let title = text::fit(&self.title, LABEL_FONT, frame.height());
            canvas.text(&[Span::plain(title)], (lx + self.widest_end() + LABEL_GAP, frame.centre().1), s);
        }
        canvas.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_run_from_the_low_to_the_high_end() {
        let s = ColorScale { tf: Transform::Linear, lo: 10.0, hi: 20.0 };
        // 15 is halfway: 0.5 * 254 = 127, whose colour is viridis(127 / 254 = 0.5).
        assert_eq!((s.level(10.0), s.level(15.0), s.level(20.0)), (0, 127, 254));
        assert_eq!(ColorScale::color(127).rgb, palette::viridis(0.5).rgb);
        // Outside the range: clamped to the ends.
        assert_eq!(s.level(99.0), 254);
        assert_eq!(s.level(f64::NAN), NO_DATA_LEVEL);
        // Log: 10 is halfway between 1 and 100; 0 cannot be placed.
        let log = ColorScale { tf: Transform::Log, lo: 1.0, hi: 100.0 };
        assert_eq!((log.level(10.0), log.level(0.0)), (127, NO_DATA_LEVEL));
        assert_eq!(ColorScale::color(NO_DATA_LEVEL), palette::NO_DATA);
    }

    #[test]
    fn colour_bar_ends_keep_three_significant_digits() {
        assert_eq!(round3(0.371234), 0.371);
        assert_eq!(round3(123456.0), 123000.0);
        assert_eq!(round3(-0.0), -0.0);
    }
}
