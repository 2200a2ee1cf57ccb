//! Colours and line styles: the series palette (colour-blind safe), the
//! dash pattern and marker shape of each series, the greys of the frame, and the
//! viridis colour map for heat maps. Only constants and pure lookups.

use plotters_backend::BackendColor;

/// A colour with opacity. (plotters' `BackendColor` cannot be compared or
/// debug-printed; this converts to it at the drawing boundary.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Color {
    pub rgb: (u8, u8, u8),
    pub alpha: f64,
}

impl Color {
    pub fn backend(self) -> BackendColor {
        BackendColor { alpha: self.alpha, rgb: self.rgb }
    }
}

/// Okabe & Ito's eight colours for colour-blind readers (yellow swapped for
/// Tol's darker wine, which a thin line on white still shows), then four of
/// Paul Tol's "muted" scheme for series 9-12.
const SERIES: [(u8, u8, u8); 12] = [
    (0x00, 0x72, 0xB2), // blue
    (0xE6, 0x9F, 0x00), // orange
    (0x00, 0x9E, 0x73), // bluish green
    (0xD5, 0x5E, 0x00), // vermillion
    (0xCC, 0x79, 0xA7), // reddish purple
    (0x56, 0xB4, 0xE9), // sky blue
    (0x00, 0x00, 0x00), // black
    (0x88, 0x22, 0x55), // wine (Tol)
    (0x44, 0xAA, 0x99), // teal (Tol)
    (0x99, 0x99, 0x33), // olive (Tol)
    (0xAA, 0x44, 0x99), // purple (Tol)
    (0x33, 0x22, 0x88), // indigo (Tol)
];

/// The colour of series `i` (the palette repeats past twelve).
pub(crate) fn series(i: usize) -> Color {
    rgb(SERIES[i % SERIES.len()])
}

/// A marker shape; with the dash pattern it tells series apart without
/// colour (a figure printed in grey, a colour-blind reader).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Cross,
    Plus,
}

const SHAPES: [Shape; 7] =
    [Shape::Circle, Shape::Square, Shape::TriangleUp, Shape::Diamond, Shape::TriangleDown, Shape::Cross, Shape::Plus];

/// Solid, dashed, dotted, dash-dot, long dash (px at the 2 px line width).
const DASHES: [Option<&str>; 5] = [None, Some("6 3"), Some("1.5 3"), Some("8 3 1.5 3"), Some("14 4")];

/// The dash pattern of line series `i`: five patterns in turn.
pub(crate) fn dash(i: usize) -> Option<&'static str> {
    DASHES[i % DASHES.len()]
}

/// The marker of series `i`: seven shapes in turn. Five dashes and seven
/// shapes are coprime, so the first 35 series all differ in dash or shape.
pub(crate) fn shape(i: usize) -> Shape {
    SHAPES[i % SHAPES.len()]
}

pub(crate) const INK: Color = Color { alpha: 1.0, rgb: (0x22, 0x22, 0x22) };
pub(crate) const AXIS: Color = Color { alpha: 1.0, rgb: (0x55, 0x55, 0x55) };
pub(crate) const GRID: Color = Color { alpha: 1.0, rgb: (0xE6, 0xE6, 0xE6) };
pub(crate) const MUTED: Color = Color { alpha: 1.0, rgb: (0x77, 0x77, 0x77) };
pub(crate) const NO_DATA: Color = Color { alpha: 1.0, rgb: (0xEE, 0xEE, 0xEE) };
pub(crate) const WHITE: Color = Color { alpha: 1.0, rgb: (0xFF, 0xFF, 0xFF) };
pub(crate) const LEGEND_EDGE: Color = Color { alpha: 1.0, rgb: (0xCC, 0xCC, 0xCC) };

pub(crate) fn with_alpha(c: Color, alpha: f64) -> Color {
    Color { alpha, rgb: c.rgb }
}

fn rgb((r, g, b): (u8, u8, u8)) -> Color {
    Color { alpha: 1.0, rgb: (r, g, b) }
}

/// matplotlib's viridis sampled at t = 0, 1/8, ..., 1 (perceptually even and
/// readable in grey and by colour-blind readers).
const VIRIDIS: [(u8, u8, u8); 9] = [
    (0x44, 0x01, 0x54),
    (0x47, 0x2D, 0x7B),
    (0x3B, 0x52, 0x8B),
    (0x2C, 0x72, 0x8E),
    (0x21, 0x91, 0x8C),
    (0x28, 0xAE, 0x80),
    (0x5E, 0xC9, 0x62),
    (0xAD, 0xDC, 0x30),
    (0xFD, 0xE7, 0x25),
];

/// Viridis at `t` in [0, 1] (clamped), linear between the nine samples.
pub(crate) fn viridis(t: f64) -> Color {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let pos = t * (VIRIDIS.len() - 1) as f64;
    let i = (pos.floor() as usize).min(VIRIDIS.len() - 2);
    let f = pos - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f).round() as u8;
    rgb((mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_ends_and_midpoint() {
        assert_eq!(viridis(0.0).rgb, (0x44, 0x01, 0x54));
        assert_eq!(viridis(1.0).rgb, (0xFD, 0xE7, 0x25));
        // t = 0.5 is exactly the fifth sample.
        assert_eq!(viridis(0.5).rgb, (0x21, 0x91, 0x8C));
        // t = 1/16 is halfway between the first two samples:
        // (0x44 + 0x47) / 2 = (68 + 71) / 2 = 69.5 -> 70; (1 + 45) / 2 = 23; (84 + 123) / 2 = 103.5 -> 104.
        assert_eq!(viridis(1.0 / 16.0).rgb, (70, 23, 104));
    }

    #[test]
    fn series_differ_in_dash_or_shape_not_only_colour() {
        let colours: std::collections::BTreeSet<_> = (0..12).map(|i| series(i).rgb).collect();
        assert_eq!(colours.len(), 12);
        // (i mod 5, i mod 7) repeats only after 35 series.
        let styles: std::collections::BTreeSet<_> = (0..35).map(|i| (dash(i), shape(i) as u8)).collect();
        assert_eq!(styles.len(), 35);
        assert_eq!((dash(35), shape(35)), (dash(0), shape(0)));
        assert_eq!((dash(0), dash(1)), (None, Some("6 3")));
    }
}
