//! Text as glyph outlines from the embedded DejaVu Sans: layout (advances
//! and kerning in font units), measuring, truncation with an ellipsis, and
//! the SVG path of each glyph. Nothing here writes SVG elements (that is
//! `svg.rs`); this only answers "which glyphs, where, and what shape".
//!
//! Why outlines and not `<text>`: a `<text>` element is drawn with whatever
//! font the viewer has, so the figure would differ from machine to machine.

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, GlyphId, OutlineCurve};
use tracelab_present::text::{is_unsafe, push_escape};

/// DejaVu Sans 2.37, see `assets/fonts/README.md`.
const FONT_DATA: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// Superscripts (the k of 10^k) are this much smaller ...
pub(crate) const SUP_SCALE: f64 = 0.7;
/// ... and their baseline this many em higher.
const SUP_RISE: f64 = 0.42;

pub(crate) fn font() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    // The bytes are compiled in and covered by tests; failing to parse them
    // is a build defect, not an input error.
    FONT.get_or_init(|| FontRef::try_from_slice(FONT_DATA).expect("embedded DejaVu Sans parses"))
}

/// Font units per em (2048 for DejaVu Sans).
pub(crate) fn units_per_em() -> f64 {
    f64::from(font().units_per_em().unwrap_or(2048.0))
}

/// Height of a capital letter in font units: anchoring text by its cap
/// height centres digits and capitals visually on a tick.
pub(crate) fn cap_height() -> f64 {
    let h = font().glyph_id('H');
    // ab_glyph's outline bounds put the font's y_max in `min.y` (its rects
    // are y-down); take the larger of the two to not depend on that.
    font().outline(h).map_or(0.73 * units_per_em(), |o| f64::from(o.bounds.min.y.max(o.bounds.max.y)))
}

/// Distance from the baseline down to the lowest descender, font units (> 0).
pub(crate) fn descent() -> f64 {
    -f64::from(font().descent_unscaled())
}

/// One piece of a label: plain text or a superscript (exponents of 10^k).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Span {
    pub text: String,
    pub sup: bool,
}

impl Span {
    pub fn plain(text: impl Into<String>) -> Span {
        Span { text: text.into(), sup: false }
    }
}

/// A glyph placed on the pen line, in font units (y down, baseline at 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Placed {
    pub glyph: u16,
    pub x: f64,
    pub y: f64,
    /// 1 for plain text, `SUP_SCALE` for superscripts.
    pub scale: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Layout {
    pub glyphs: Vec<Placed>,
    /// Total advance in font units.
    pub advance: f64,
}

/// Lays out spans left to right: advance widths plus pair kerning (the
/// font's `kern` table) inside each span.
pub(crate) fn layout(spans: &[Span]) -> Layout {
    let f = font();
    let mut glyphs = Vec::new();
    let mut pen = 0.0;
    for span in spans {
        let (scale, y) = if span.sup { (SUP_SCALE, -SUP_RISE * units_per_em()) } else { (1.0, 0.0) };
        let mut prev: Option<GlyphId> = None;
        for c in span.text.chars().flat_map(shown) {
            let id = f.glyph_id(c);
            if let Some(p) = prev {
                pen += f64::from(f.kern_unscaled(p, id)) * scale;
            }
            glyphs.push(Placed { glyph: id.0, x: pen, y, scale });
            pen += f64::from(f.h_advance_unscaled(id)) * scale;
            prev = Some(id);
        }
    }
    Layout { glyphs, advance: pen }
}

/// How a character is drawn: labels are single lines, so a tab or line
/// break is a space; other controls, bidi overrides and noncharacters (an
/// ESC, U+202E, U+FFFE from a trace) are drawn as their escape (`\x1b`),
/// as every other output of tracelab shows them ([`tracelab_present::text`]).
fn shown(c: char) -> Vec<char> {
    match c {
        '\t' | '\n' | '\r' => vec![' '],
        c if is_unsafe(c) => {
            let mut escaped = String::new();
            push_escape(&mut escaped, c);
            escaped.chars().collect()
        }
        c => vec![c],
    }
}

/// Width in px of spans set at `size` px.
pub(crate) fn spans_width(spans: &[Span], size: f64) -> f64 {
    layout(spans).advance * size / units_per_em()
}

/// Width in px of plain text set at `size` px.
pub(crate) fn width(text: &str, size: f64) -> f64 {
    spans_width(&[Span::plain(text)], size)
}

/// `text` if it fits in `max_px`, else its longest prefix that fits with a
/// trailing ellipsis (at least the ellipsis itself).
pub(crate) fn fit(text: &str, size: f64, max_px: f64) -> String {
    if width(text, size) <= max_px {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut n = chars.len();
    while n > 0 {
        n -= 1;
        let head: String = chars[..n].iter().collect();
        let candidate = format!("{}…", head.trim_end());
        if width(&candidate, size) <= max_px {
            return candidate;
        }
    }
    "…".to_string()
}

/// At most `max_chars` characters, the last being an ellipsis when cut.
pub(crate) fn clip_chars(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let head: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{}…", head.trim_end())
}

/// The outline of glyph `id` as SVG path data in font units with y pointing
/// down (so it can be placed under a `scale(k)` without a flip); `None` for
/// glyphs without ink (space).
pub(crate) fn glyph_path(id: u16) -> Option<String> {
    let outline = font().outline(GlyphId(id))?;
    let mut d = String::new();
    let mut last: Option<ab_glyph::Point> = None;
    for curve in &outline.curves {
        let (start, end) = curve_ends(curve);
        if last != Some(start) {
            if last.is_some() {
                d.push('Z');
            }
            d.push_str(&format!("M{} {}", num(start.x), num(-start.y)));
        }
        match curve {
            OutlineCurve::Line(_, b) => d.push_str(&format!("L{} {}", num(b.x), num(-b.y))),
            OutlineCurve::Quad(_, c, b) => {
                d.push_str(&format!("Q{} {} {} {}", num(c.x), num(-c.y), num(b.x), num(-b.y)))
            }
            OutlineCurve::Cubic(_, c1, c2, b) => d.push_str(&format!(
                "C{} {} {} {} {} {}",
                num(c1.x),
                num(-c1.y),
                num(c2.x),
                num(-c2.y),
                num(b.x),
                num(-b.y)
            )),
        }
        last = Some(end);
    }
    if !d.is_empty() {
        d.push('Z');
    }
    Some(d)
}

fn curve_ends(curve: &OutlineCurve) -> (ab_glyph::Point, ab_glyph::Point) {
    match *curve {
        OutlineCurve::Line(a, b) => (a, b),
        OutlineCurve::Quad(a, _, b) => (a, b),
        OutlineCurve::Cubic(a, _, _, b) => (a, b),
    }
}

/// TrueType points are integers; the on-curve points implied between two
/// control points are halves. One decimal is therefore exact, and fixed.
fn num(v: f32) -> String {
    let v = f64::from(v);
    if v == v.round() {
        format!("{}", v as i64)
    } else {
        format!("{v:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Numbers read once from the font file's tables with a 40-line Python
    // script (struct-unpacking head, hhea, cmap format 4, hmtx, kern), not
    // through ab_glyph: unitsPerEm 2048; hhea ascent 1901, descent -483;
    // advances H 1540, i 569, A 1401, V 1401, digits 1303; kern (A, V) = -131,
    // (H, i) has no pair; glyf bbox of H: 201 0 1339 1493.

    #[test]
    fn hi_at_12px_is_the_sum_of_its_two_advances() {
        // (1540 + 569) * 12 / 2048 = 2109 * 12 / 2048 = 12.357421875 px
        assert_eq!(units_per_em(), 2048.0);
        assert!((width("Hi", 12.0) - 12.357421875).abs() < 1e-9);
    }

    #[test]
    fn kerning_pulls_a_and_v_together() {
        // (1401 + 1401 - 131) * 10 / 2048 = 2671 * 10 / 2048 = 13.0419921875 px
        assert!((width("AV", 10.0) - 13.0419921875).abs() < 1e-9);
        let l = layout(&[Span::plain("AV")]);
        assert_eq!(l.glyphs[1].x, 1401.0 - 131.0);
    }

    #[test]
    fn descent_matches_hhea_and_cap_height_the_h() {
        assert_eq!(descent(), 483.0);
        // The glyf header of H (glyph 43): one contour, bbox 201 0 1339 1493.
        assert_eq!(cap_height(), 1493.0);
    }

    #[test]
    fn superscripts_are_smaller_and_raised() {
        // "10" then a superscript "3": 2 * 1303 + 0.7 * 1303 = 3518.1 units.
        let l = layout(&[Span::plain("10"), Span { text: "3".into(), sup: true }]);
        assert!((l.advance - 3518.1).abs() < 1e-9);
        assert_eq!(l.glyphs[2].x, 2606.0);
        assert_eq!(l.glyphs[2].scale, 0.7);
        assert!(l.glyphs[2].y < 0.0);
    }

    #[test]
    fn fit_keeps_short_text_and_cuts_long_text_with_an_ellipsis() {
        assert_eq!(fit("GPU", 11.0, 100.0), "GPU");
        // At 10 px a digit is 1303 * 10 / 2048 = 6.362 px and the ellipsis
        // 2048 * 10 / 2048 = 10 px: "123…" is 19.09 + 10 = 29.09 <= 30 px,
        // "1234…" is 25.45 + 10 = 35.45 > 30 px.
        assert_eq!(fit("123456789", 10.0, 30.0), "123…");
        assert_eq!(fit("123456789", 10.0, 1.0), "…");
    }

    #[test]
    fn clip_chars_counts_characters_not_bytes() {
        assert_eq!(clip_chars("ééééé", 5), "ééééé");
        assert_eq!(clip_chars("éééééé", 5), "éééé…");
    }

    #[test]
    fn glyph_paths_are_closed_and_space_has_none() {
        let h = font().glyph_id('H').0;
        let d = glyph_path(h).unwrap();
        assert!(d.starts_with('M') && d.ends_with('Z'));
        // H is one contour of straight lines only.
        assert_eq!(d.matches('M').count(), 1);
        assert!(!d.contains('Q'));
        assert!(glyph_path(font().glyph_id(' ').0).is_none());
    }
}
