//! The SVG writer: a plotters `DrawingBackend` that writes a deterministic
//! SVG document, with text drawn as glyph outlines of the embedded font
//! (defined once in `<defs>`, placed with `<use>`), plus the few operations
//! plotters has no vocabulary for (groups, dashed lines, text at any angle).
//!
//! Why not plotters' own `SVGBackend`: it writes integer coordinates and
//! integer stroke widths (no 1.5 px lines, no sub-pixel positions), and it
//! holds its output buffer borrowed for its whole life, so glyph groups and
//! `<defs>` could not be interleaved with its elements. This backend keeps
//! the same element vocabulary but works in 1/100 px units (`UNITS`) and
//! prints every coordinate with exactly two decimals, so the same chart gives
//! byte-identical output on every machine.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use plotters::backend::DrawingBackend;
use plotters::style::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform};

use super::text::{self, Span};

/// Backend units per px: plotters speaks integers, so charts are laid out
/// in px (f64) and handed to the backend in hundredths of a px.
pub(crate) const UNITS: f64 = 100.0;

/// px -> backend units.
pub(crate) fn units(px: f64) -> i32 {
    (px * UNITS).round() as i32
}

/// How a text run is set: size in px, colour, anchor, and rotation in
/// degrees (clockwise, as in SVG; -90 reads bottom to top).
#[derive(Clone, Copy)]
pub(crate) struct TextSpec {
    pub size: f64,
    pub color: BackendColor,
    pub h: HPos,
    pub v: VPos,
    pub angle: f64,
}

pub(crate) struct SvgBackend<'a> {
    out: &'a mut String,
    /// Canvas size in px.
    size: (u32, u32),
    title: Option<String>,
    desc: Option<String>,
    body: String,
    /// Outlines of the glyphs seen so far (None: no ink, e.g. space); the
    /// inked ones go into `<defs>` at the end, in glyph-index order.
    glyphs: BTreeMap<u16, Option<String>>,
    open_groups: usize,
    finished: bool,
}

impl<'a> SvgBackend<'a> {
    /// Writes the finished document into `out` on `present`.
    pub fn new(out: &'a mut String, size: (u32, u32), title: Option<&str>, desc: Option<&str>) -> SvgBackend<'a> {
        SvgBackend {
            out,
            size,
            title: title.map(str::to_string),
            desc: desc.map(str::to_string),
            body: String::new(),
            glyphs: BTreeMap::new(),
            open_groups: 0,
            finished: false,
        }
    }

    /// Opens `<g>` with the given attributes (values are escaped).
    pub fn open_group(&mut self, attrs: &[(&str, String)]) {
        self.body.push_str("<g");
        push_attrs(&mut self.body, attrs);
        self.body.push_str(">\n");
        self.open_groups += 1;
    }

    pub fn close_group(&mut self) {
        if self.open_groups > 0 {
            self.open_groups -= 1;
            self.body.push_str("</g>\n");
        }
    }

    /// A polyline with a dash pattern (plotters styles cannot carry one).
    pub fn dashed_path(&mut self, points: &[BackendCoord], color: BackendColor, width: u32, dash: &str) {
        if points.len() < 2 || color.alpha == 0.0 {
            return;
        }
        let mut attrs = stroke_attrs(color, width);
        attrs.push(("stroke-dasharray", dash.to_string()));
        self.polyline(points, attrs);
    }

    /// An image (a data URI) stretched over the box a-b. Pixelated: heat-map
    /// cells must stay sharp squares, not blur into each other.
    pub fn image(&mut self, a: BackendCoord, b: BackendCoord, href: &str) {
        let attrs = [
            ("x", coord(a.0.min(b.0))),
            ("y", coord(a.1.min(b.1))),
            ("width", coord((b.0 - a.0).abs())),
            ("height", coord((b.1 - a.1).abs())),
            ("preserveAspectRatio", "none".to_string()),
            ("image-rendering", "optimizeSpeed".to_string()),
            ("style", "image-rendering:pixelated".to_string()),
            ("href", href.to_string()),
        ];
        self.element("image", &attrs);
    }

    /// Sets `spans` as glyph outlines. `pos` is the anchor point; the
    /// anchor's vertical part refers to the cap height (Top: capitals hang
    /// from `pos`, Center: they are centred on it) or to the descender
    /// (Bottom: nothing goes below `pos`).
    pub fn text(&mut self, spans: &[Span], pos: BackendCoord, spec: &TextSpec) {
        let plain: String = spans.iter().map(|s| if s.sup { format!("^{}", s.text) } else { s.text.clone() }).collect();
        if plain.trim().is_empty() || spec.color.alpha == 0.0 {
            return;
        }
        let layout = text::layout(spans);
        let k = spec.size / text::units_per_em();
        let dx = match spec.h {
            HPos::Left => 0.0,
            HPos::Center => -layout.advance / 2.0,
            HPos::Right => -layout.advance,
        };
        let dy = match spec.v {
            VPos::Top => text::cap_height(),
            VPos::Center => text::cap_height() / 2.0,
            VPos::Bottom => -text::descent(),
        };
        let (cos, sin) = cos_sin(spec.angle);
        let (px, py) = (f64::from(pos.0) / UNITS, f64::from(pos.1) / UNITS);
        let ox = px + (dx * cos - dy * sin) * k;
        let oy = py + (dx * sin + dy * cos) * k;
        let mut transform = format!("translate({} {})", dec2(ox), dec2(oy));
        if spec.angle != 0.0 {
            let _ = write!(transform, " rotate({})", trim_num(spec.angle));
        }
        let _ = write!(transform, " scale({k:.8})");
        let mut attrs = vec![("aria-label", plain), ("fill", hex(spec.color))];
        if spec.color.alpha < 1.0 {
            attrs.push(("fill-opacity", format!("{:.2}", spec.color.alpha)));
        }
        attrs.push(("transform", transform));
        self.open_group(&attrs);
        for g in &layout.glyphs {
            self.place_glyph(g);
        }
        self.close_group();
    }

    fn place_glyph(&mut self, g: &text::Placed) {
        let outline = self.glyphs.entry(g.glyph).or_insert_with(|| text::glyph_path(g.glyph));
        if outline.is_none() {
            return;
        }
        let _ = write!(self.body, "<use href=\"#g{}\"", g.glyph);
        if g.scale != 1.0 {
            let _ =
                write!(self.body, " transform=\"translate({} {}) scale({})\"", trim_num(g.x), trim_num(g.y), g.scale);
        } else if g.x != 0.0 {
            let _ = write!(self.body, " x=\"{}\"", trim_num(g.x));
        }
        self.body.push_str("/>");
    }

    fn polyline(&mut self, points: &[BackendCoord], mut attrs: Vec<(&str, String)>) {
        let mut list = String::new();
        for (i, p) in points.iter().enumerate() {
            if i > 0 {
                list.push(' ');
            }
            let _ = write!(list, "{},{}", coord(p.0), coord(p.1));
        }
        attrs.insert(0, ("points", list));
        attrs.push(("fill", "none".into()));
        attrs.push(("stroke-linejoin", "round".into()));
        self.element("polyline", &attrs);
    }

    fn element(&mut self, name: &str, attrs: &[(&str, String)]) {
        let _ = write!(self.body, "<{name}");
        push_attrs(&mut self.body, attrs);
        self.body.push_str("/>\n");
    }

    fn finish(&mut self) {
        if self.finished {
            return;
        }
        while self.open_groups > 0 {
            self.close_group();
        }
        let (w, h) = self.size;
        let _ = writeln!(
            self.out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\">"
        );
        if let Some(t) = &self.title {
            let _ = writeln!(self.out, "<title>{}</title>", escape(t));
        }
        if let Some(d) = &self.desc {
            let _ = writeln!(self.out, "<desc>{}</desc>", escape(d));
        }
        self.out.push_str("<defs>\n");
        for (id, outline) in &self.glyphs {
            if let Some(d) = outline {
                let _ = writeln!(self.out, "<path id=\"g{id}\" d=\"{d}\"/>");
            }
        }
        self.out.push_str("</defs>\n");
        self.out.push_str(&self.body);
        self.out.push_str("</svg>\n");
        self.finished = true;
    }
}

impl DrawingBackend for SvgBackend<'_> {
    type ErrorType = std::fmt::Error;

    fn get_size(&self) -> (u32, u32) {
        (self.size.0 * UNITS as u32, self.size.1 * UNITS as u32)
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<std::fmt::Error>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<std::fmt::Error>> {
        self.finish();
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<std::fmt::Error>> {
        let one = UNITS as i32;
        self.draw_rect(point, (point.0 + one, point.1 + one), &color, true)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<std::fmt::Error>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let mut attrs = vec![("x1", coord(from.0)), ("y1", coord(from.1)), ("x2", coord(to.0)), ("y2", coord(to.1))];
        attrs.extend(stroke_attrs(style.color(), style.stroke_width()));
        self.element("line", &attrs);
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<std::fmt::Error>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let mut attrs = vec![
            ("x", coord(upper_left.0)),
            ("y", coord(upper_left.1)),
            ("width", coord(bottom_right.0 - upper_left.0)),
            ("height", coord(bottom_right.1 - upper_left.1)),
        ];
        if fill {
            attrs.extend(fill_attrs(style.color()));
        } else {
            attrs.push(("fill", "none".into()));
            attrs.extend(stroke_attrs(style.color(), style.stroke_width()));
        }
        self.element("rect", &attrs);
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<std::fmt::Error>> {
        let points: Vec<BackendCoord> = path.into_iter().collect();
        if points.len() >= 2 && style.color().alpha > 0.0 {
            self.polyline(&points, stroke_attrs(style.color(), style.stroke_width()));
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<std::fmt::Error>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let mut attrs = vec![("cx", coord(center.0)), ("cy", coord(center.1)), ("r", coord(radius as i32))];
        if fill {
            attrs.extend(fill_attrs(style.color()));
        } else {
            attrs.push(("fill", "none".into()));
            attrs.extend(stroke_attrs(style.color(), style.stroke_width()));
        }
        self.element("circle", &attrs);
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<std::fmt::Error>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let points: Vec<String> = vert.into_iter().map(|p| format!("{},{}", coord(p.0), coord(p.1))).collect();
        let mut attrs = vec![("points", points.join(" "))];
        attrs.extend(fill_attrs(style.color()));
        self.element("polygon", &attrs);
        Ok(())
    }

    /// Plotters' text path (the `Text` element): the style's size is in
    /// backend units, its transform a quarter turn.
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<std::fmt::Error>> {
        let angle = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => -90.0,
        };
        let anchor = style.anchor();
        let spec =
            TextSpec { size: style.size() / UNITS, color: style.color(), h: anchor.h_pos, v: anchor.v_pos, angle };
        self.text(&[Span::plain(text)], pos, &spec);
        Ok(())
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<std::fmt::Error>> {
        let size = style.size() / UNITS;
        let w = text::width(text, size);
        let h = size * (text::cap_height() + text::descent()) / text::units_per_em();
        Ok((units(w).max(0) as u32, units(h).max(0) as u32))
    }
}

impl Drop for SvgBackend<'_> {
    fn drop(&mut self) {
        self.finish();
    }
}

/// cos and sin of an angle in degrees, from constants for the angles the
/// charts use (so their output does not depend on the platform's `sin`).
fn cos_sin(deg: f64) -> (f64, f64) {
    use std::f64::consts::FRAC_1_SQRT_2 as H;
    match deg.rem_euclid(360.0) {
        0.0 => (1.0, 0.0),
        90.0 => (0.0, 1.0),
        180.0 => (-1.0, 0.0),
        270.0 => (0.0, -1.0),
        315.0 => (H, -H),
        _ => {
            let r = deg.to_radians();
            (r.cos(), r.sin())
        }
    }
}

fn stroke_attrs(color: BackendColor, width: u32) -> Vec<(&'static str, String)> {
    let mut attrs = vec![("stroke", hex(color)), ("stroke-width", coord(width as i32))];
    if color.alpha < 1.0 {
        attrs.push(("stroke-opacity", format!("{:.2}", color.alpha)));
    }
    attrs
}

fn fill_attrs(color: BackendColor) -> Vec<(&'static str, String)> {
    let mut attrs = vec![("fill", hex(color))];
    if color.alpha < 1.0 {
        attrs.push(("fill-opacity", format!("{:.2}", color.alpha)));
    }
    attrs
}

fn push_attrs(buf: &mut String, attrs: &[(&str, String)]) {
    for (k, v) in attrs {
        let _ = write!(buf, " {k}=\"{}\"", escape(v));
    }
}

pub(crate) fn hex(color: BackendColor) -> String {
    let (r, g, b) = color.rgb;
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// Backend units as px with exactly two decimals; integer arithmetic, so
/// there is no float formatting to differ between machines.
pub(crate) fn coord(u: i32) -> String {
    let sign = if u < 0 { "-" } else { "" };
    let a = u.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

/// px with exactly two decimals.
fn dec2(px: f64) -> String {
    coord(units(px))
}

/// Font-unit positions: integers, or one decimal for the halves and tenths
/// that superscript scaling produces.
fn trim_num(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// Escapes text for attribute values and element content: made one line
/// first (a tab or line break is a space, as a drawn label shows it), then
/// escaped by the presentation layer's rule for HTML and XML
/// ([`tracelab_present::markup::escape`]: the five markup characters as
/// entities, characters XML 1.0 forbids and other controls and bidi
/// overrides as visible escapes such as `\x1b`).
pub(crate) fn escape(s: &str) -> String {
    tracelab_present::markup::escape(&s.replace(['\t', '\n', '\r'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_have_two_decimals() {
        assert_eq!(coord(12345), "123.45");
        assert_eq!(coord(-5), "-0.05");
        assert_eq!(coord(0), "0.00");
        assert_eq!(units(1.5), 150);
    }

    #[test]
    fn escape_covers_the_five_xml_specials() {
        assert_eq!(escape(r#"a<b&"c"'>"#), "a&lt;b&amp;&quot;c&quot;&apos;&gt;");
    }

    #[test]
    fn characters_xml_forbids_or_that_garble_text_are_shown_escaped() {
        assert_eq!(escape("vc\u{fffe}\u{1b}[31m\u{202e}x\u{0}"), "vc\\ufffe\\x1b[31m\\u202ex\\x00");
        assert_eq!(escape("a\nb\tc\r\n"), "a b c  ");
        assert_eq!(escape("北京 — ok"), "北京 — ok");
    }

    #[test]
    fn quarter_turns_are_exact() {
        assert_eq!(cos_sin(-90.0), (0.0, -1.0));
        assert_eq!(cos_sin(180.0), (-1.0, 0.0));
        assert_eq!(cos_sin(-45.0), (std::f64::consts::FRAC_1_SQRT_2, -std::f64::consts::FRAC_1_SQRT_2));
    }
}
