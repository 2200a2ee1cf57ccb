//! Deterministic SVG charts (layer 2). `render` takes a plain chart model
//! (`model.rs`) and returns an SVG document; it knows nothing about
//! analyses, specs or the store, and computes no statistics (CDF points,
//! box quartiles and bins arrive precomputed).
//!
//! Same `Chart` -> byte-identical SVG on any machine: coordinates are
//! printed with two decimals from integer hundredths of a pixel, iteration
//! is over vectors and BTree collections only, there are no ids but glyph
//! ids derived from the glyph index (clipping is geometric, not by
//! clip-path), and text is drawn as outlines of the embedded DejaVu Sans
//! rather than as `<text>` (which each viewer would set in its own font).
//! Each text run keeps its plain string in an `aria-label`.
//!
//! Files: `model` (the public types), `figure` (checks, drawing order),
//! `layout` (frame, margins, legend placement), `axis` (ticks that fit,
//! labels, drawing), `scale` (transforms, ranges), `ticks`, `format`,
//! `kinds/*` (line/step/scatter, bars, boxes, heat and its colour bar),
//! `png` (heat-map images), `legend`, `palette`,
//! `style` (sizes), `geom` (clipping), `text` (font, glyph outlines),
//! `canvas` (px drawing over plotters), `svg` (the plotters backend).

mod axis;
mod canvas;
mod figure;
mod format;
mod geom;
mod kinds;
mod layout;
mod legend;
mod model;
mod palette;
mod png;
mod scale;
mod style;
mod svg;
mod text;
mod ticks;

#[cfg(test)]
mod tests;

pub use model::{
    About, Axis, BarMode, BoxStats, Chart, Data, Kind, Legend, Scale, Series, TickFormat, YAxis, DEFAULT_SIZE,
};

/// A chart that cannot be drawn as asked. Data problems a figure can show
/// (NaN, values <= 0 on a log axis, empty series) are not errors: they are
/// skipped and counted in a note inside the figure.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlotError {
    #[error("chart size {width}x{height} px is outside 160x100 .. 20000x20000")]
    Size { width: u32, height: u32 },
    #[error("axis {axis}: {problem}")]
    Axis { axis: &'static str, problem: String },
    #[error("series {series} ({label:?}): {problem}")]
    Data { series: usize, label: String, problem: String },
    #[error("drawing the SVG failed: {0}")]
    Draw(String),
}

/// The SVG document of `chart`.
pub fn render(chart: &Chart) -> Result<String, PlotError> {
    figure::render(chart)
}
