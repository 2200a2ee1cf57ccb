//! A figure's SVG as PNG or PDF (`tracelab report --formats png,pdf`), with
//! maintained renderers: resvg (over usvg and tiny-skia) for PNG, svg2pdf for
//! PDF. Both start from the very SVG the report writes, so the three
//! formats show the same figure.
//!
//! Built without text support and without system fonts: tracelab's SVGs
//! carry their text as glyph outlines of the embedded DejaVu Sans (no
//! `<text>`), so nothing here depends on the fonts of the machine. Output is
//! deterministic: the same SVG gives the same bytes (svg2pdf writes no
//! date and no document ID). This crate knows nothing of charts, analyses
//! or the store.

use resvg::{tiny_skia, usvg};

/// An SVG that could not be turned into PNG or PDF.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RenderError {
    #[error("the SVG does not parse: {0}")]
    Parse(String),
    #[error("a {width}x{height} px image is too large to draw")]
    Size { width: u32, height: u32 },
    #[error("PNG encoding failed: {0}")]
    Png(String),
    #[error("PDF conversion failed: {0}")]
    Pdf(String),
}

/// Pixels per SVG px in the PNG: 2 makes a 560 px figure 1120 px wide, sharp
/// on a high-density screen and at about 340 dpi in one paper column.
pub const PNG_SCALE: f32 = 2.0;

fn tree(svg: &str) -> Result<usvg::Tree, RenderError> {
    usvg::Tree::from_str(svg, &usvg::Options::default()).map_err(|e| RenderError::Parse(e.to_string()))
}

/// The SVG drawn at `scale` pixels per px, on its own white background.
pub fn png(svg: &str, scale: f32) -> Result<Vec<u8>, RenderError> {
    let tree = tree(svg)?;
    let size = tree.size().to_int_size().scale_by(scale).ok_or(RenderError::Size { width: 0, height: 0 })?;
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or(RenderError::Size { width: size.width(), height: size.height() })?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| RenderError::Png(e.to_string()))
}

/// The SVG as a one-page vector PDF, 1 px = 1 pt (a 560 px figure is a
/// 7.8 in page: scaled to a paper column, lines and text keep their
/// proportions).
pub fn pdf(svg: &str) -> Result<Vec<u8>, RenderError> {
    let tree = tree(svg)?;
    let options = svg2pdf::ConversionOptions { embed_text: false, ..Default::default() };
    svg2pdf::to_pdf(&tree, options, svg2pdf::PageOptions::default()).map_err(|e| RenderError::Pdf(format!("{e:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracelab_plot::{Axis, Chart, Kind, Series};

    fn figure() -> String {
        let mut c = Chart::new(Kind::Line, Axis::linear("Runtime (s)"), Axis::linear("CDF (%)"));
        c.series = vec![
            Series::points("a", vec![(0.0, 0.0), (1.0, 50.0), (2.0, 100.0)]),
            Series::points("b", vec![(0.0, 10.0), (2.0, 90.0)]),
        ];
        tracelab_plot::render(&c).unwrap()
    }

    /// Width, height and colour type from a PNG's IHDR chunk.
    fn ihdr(png: &[u8]) -> (u32, u32, u8) {
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        let be = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
        (be(16), be(20), png[25])
    }

    #[test]
    fn png_is_the_figure_at_twice_its_size_and_the_same_bytes_every_time() {
        let svg = figure();
        let a = png(&svg, PNG_SCALE).unwrap();
        // 560 x 360 px at 2 px per px; colour type 6 (RGBA).
        assert_eq!(ihdr(&a), (1120, 720, 6));
        assert_eq!(a, png(&svg, PNG_SCALE).unwrap());
    }

    #[test]
    fn pdf_is_one_page_of_the_figure_size_without_dates_or_ids() {
        let svg = figure();
        let a = pdf(&svg).unwrap();
        let text = String::from_utf8_lossy(&a);
        assert!(text.starts_with("%PDF-"), "{}", &text[..20]);
        // 560 x 360 px at 72 dpi: a 560 x 360 pt page.
        assert!(text.contains("/MediaBox [0 0 560 360]"), "no 560x360 MediaBox");
        assert!(!text.contains("/CreationDate") && !text.contains("/ID"), "varying metadata");
        assert_eq!(a, pdf(&svg).unwrap());
    }

    #[test]
    fn a_broken_svg_is_an_error() {
        assert!(matches!(png("<svg", 1.0), Err(RenderError::Parse(_))));
        assert!(matches!(pdf("not svg"), Err(RenderError::Parse(_))));
    }
}
