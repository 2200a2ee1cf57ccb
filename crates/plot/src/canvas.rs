//! The drawing surface the chart code uses: px (f64) in, plotters elements
//! out. Shapes go through a plotters `DrawingArea` as `PathElement`,
//! `Rectangle`, `Circle` and `Text` elements; what plotters cannot express
//! (SVG groups, dashed lines, superscripts, text at 45 degrees, images)
//! goes through `Op`, a custom element drawn by our backend. The first
//! drawing error is kept and reported by `finish`, so chart code need not
//! thread `?` through every line.

use std::cell::RefCell;

use plotters::coord::Shift;
use plotters::drawing::{DrawingArea, IntoDrawingArea};
use plotters::element::{Circle, Drawable, PathElement, PointCollection, Polygon, Rectangle, Text};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontDesc, FontFamily, FontStyle, FontTransform, RGBAColor, ShapeStyle, TextStyle};
use plotters_backend::{BackendColor, BackendCoord, DrawingErrorKind};

use super::geom::{Pt, Rect};
use super::palette::{Color, Shape};
use super::svg::{units, SvgBackend, TextSpec};
use super::text::Span;
use super::PlotError;

pub(crate) struct Canvas<'a> {
    area: DrawingArea<SvgBackend<'a>, Shift>,
    error: RefCell<Option<String>>,
}

impl<'a> Canvas<'a> {
    pub fn new(out: &'a mut String, size: (u32, u32), title: Option<&str>, desc: Option<&str>) -> Canvas<'a> {
        Canvas { area: SvgBackend::new(out, size, title, desc).into_drawing_area(), error: RefCell::new(None) }
    }

    /// Writes the document; reports the first drawing error, if any.
    pub fn finish(self) -> Result<(), PlotError> {
        if let Err(e) = self.area.present() {
            self.keep(e.to_string());
        }
        match self.error.into_inner() {
            Some(e) => Err(PlotError::Draw(e)),
            None => Ok(()),
        }
    }

    fn keep(&self, e: String) {
        self.error.borrow_mut().get_or_insert(e);
    }

    fn draw<E>(&self, element: &E)
    where
        E: Drawable<SvgBackend<'a>>,
        for<'b> &'b E: PointCollection<'b, BackendCoord>,
    {
        if let Err(e) = self.area.draw(element) {
            self.keep(e.to_string());
        }
    }

    /// Opens an SVG group (`class` names what it holds: tests count them).
    pub fn open(&self, attrs: &[(&'static str, String)]) {
        self.draw(&Op::Open(attrs.to_vec()));
    }

    pub fn close(&self) {
        self.draw(&Op::Close);
    }

    /// A line through `points`, optionally dashed ("6 3").
    pub fn polyline(&self, points: &[Pt], color: Color, width: f64, dash: Option<&str>) {
        let mut coords: Vec<BackendCoord> = points.iter().map(|p| (units(p.0), units(p.1))).collect();
        coords.dedup();
        if coords.len() < 2 {
            return;
        }
        match dash {
            None => self.draw(&PathElement::new(coords, stroke(color, width))),
            Some(d) => self.draw(&Op::Dashed {
                points: coords,
                color: color.backend(),
                width: units(width) as u32,
                dash: d.to_string(),
            }),
        }
    }

    pub fn line(&self, a: Pt, b: Pt, color: Color, width: f64) {
        self.polyline(&[a, b], color, width, None);
    }

    pub fn fill(&self, r: Rect, color: Color) {
        let style = ShapeStyle { color: rgba(color), filled: true, stroke_width: 0 };
        self.draw(&Rectangle::new([(units(r.x0), units(r.y0)), (units(r.x1), units(r.y1))], style));
    }

    pub fn outline(&self, r: Rect, color: Color, width: f64) {
        self.draw(&Rectangle::new([(units(r.x0), units(r.y0)), (units(r.x1), units(r.y1))], stroke(color, width)));
    }

    pub fn dot(&self, c: Pt, radius: f64, color: Color, filled: bool) {
        let style = ShapeStyle { color: rgba(color), filled, stroke_width: units(1.0) as u32 };
        self.draw(&Circle::new((units(c.0), units(c.1)), units(radius).max(0) as u32, style));
    }

    /// A series marker of "radius" `r` centred on `c`: filled shapes, or two
    /// strokes for the cross and the plus. Shapes are sized to look equally
    /// heavy (a square of side 2r looks bigger than a circle of radius r).
    pub fn marker(&self, shape: Shape, c: Pt, r: f64, color: Color) {
        let (x, y) = c;
        let poly = |pts: &[Pt]| {
            let coords: Vec<BackendCoord> = pts.iter().map(|p| (units(p.0), units(p.1))).collect();
            let style = ShapeStyle { color: rgba(color), filled: true, stroke_width: 0 };
            self.draw(&Polygon::new(coords, style));
        };
        let (s, t) = (r * 0.85, r * 1.2);
        match shape {
            Shape::Circle => self.dot(c, r, color, true),
            Shape::Square => poly(&[(x - s, y - s), (x + s, y - s), (x + s, y + s), (x - s, y + s)]),
            Shape::TriangleUp => poly(&[(x, y - t), (x + t, y + 0.65 * t), (x - t, y + 0.65 * t)]),
            Shape::TriangleDown => poly(&[(x, y + t), (x + t, y - 0.65 * t), (x - t, y - 0.65 * t)]),
            Shape::Diamond => poly(&[(x, y - t), (x + r, y), (x, y + t), (x - r, y)]),
            Shape::Cross => {
                self.line((x - s, y - s), (x + s, y + s), color, 1.6);
                self.line((x - s, y + s), (x + s, y - s), color, 1.6);
            }
            Shape::Plus => {
                self.line((x - t, y), (x + t, y), color, 1.6);
                self.line((x, y - t), (x, y + t), color, 1.6);
            }
        }
    }

    /// A PNG stretched over `r`, drawn without smoothing (heat-map cells).
    pub fn image(&self, r: Rect, png: &[u8]) {
        let corners = [(units(r.x0), units(r.y0)), (units(r.x1), units(r.y1))];
        self.draw(&Op::Image { corners, href: format!("data:image/png;base64,{}", super::png::base64(png)) });
    }

    /// Text anchored at `at`. Plain horizontal and quarter-turn text goes
    /// through plotters' `Text` element (and so our backend's `draw_text`);
    /// superscripts and other angles through `Op::Text`.
    pub fn text(&self, spans: &[Span], at: Pt, spec: TextSpec) {
        let pos = (units(at.0), units(at.1));
        let quarter = match spec.angle {
            0.0 => Some(FontTransform::None),
            -90.0 => Some(FontTransform::Rotate270),
            _ => None,
        };
        match (spans, quarter) {
            ([span], Some(transform)) if !span.sup => {
                let font = FontDesc::new(FontFamily::SansSerif, spec.size * super::svg::UNITS, FontStyle::Normal)
                    .transform(transform);
                let style = TextStyle { font, color: spec.color, pos: Pos::new(spec.h, spec.v) };
                self.draw(&Text::new(span.text.clone(), pos, style));
            }
            _ => self.draw(&Op::Text { spans: spans.to_vec(), at: [pos], spec }),
        }
    }
}

/// A text spec with the given size, colour and anchor, unrotated.
pub(crate) fn spec(size: f64, color: Color, h: HPos, v: VPos) -> TextSpec {
    TextSpec { size, color: color.backend(), h, v, angle: 0.0 }
}

fn rgba(c: Color) -> RGBAColor {
    RGBAColor(c.rgb.0, c.rgb.1, c.rgb.2, c.alpha)
}

fn stroke(color: Color, width: f64) -> ShapeStyle {
    ShapeStyle { color: rgba(color), filled: false, stroke_width: units(width).max(0) as u32 }
}

/// What plotters' element set has no word for; drawn by `SvgBackend`.
enum Op {
    Open(Vec<(&'static str, String)>),
    Close,
    Dashed { points: Vec<BackendCoord>, color: BackendColor, width: u32, dash: String },
    Text { spans: Vec<Span>, at: [BackendCoord; 1], spec: TextSpec },
    Image { corners: [BackendCoord; 2], href: String },
}

impl<'b> PointCollection<'b, BackendCoord> for &'b Op {
    type Point = &'b BackendCoord;
    type IntoIter = &'b [BackendCoord];

    fn point_iter(self) -> &'b [BackendCoord] {
        match self {
            Op::Dashed { points, .. } => points,
            Op::Text { at, .. } => at,
            Op::Image { corners, .. } => corners,
            Op::Open(_) | Op::Close => &[],
        }
    }
}

impl<'a> Drawable<SvgBackend<'a>> for Op {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut pos: I,
        backend: &mut SvgBackend<'a>,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<std::fmt::Error>> {
        match self {
            Op::Open(attrs) => backend.open_group(attrs),
            Op::Close => backend.close_group(),
            Op::Dashed { color, width, dash, .. } => {
                let points: Vec<BackendCoord> = pos.collect();
                backend.dashed_path(&points, *color, *width, dash);
            }
            Op::Text { spans, spec, .. } => {
                if let Some(at) = pos.next() {
                    backend.text(spans, at, spec);
                }
            }
            Op::Image { href, .. } => {
                if let (Some(a), Some(b)) = (pos.next(), pos.next()) {
                    backend.image(a, b, href);
                }
            }
        }
        Ok(())
    }
}
