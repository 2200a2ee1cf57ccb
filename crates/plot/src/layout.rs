//! Where everything goes: the plot frame inside the figure after room for
//! the title and notes, the axes (tick labels measured with the real font),
//! axis labels, a twin axis or colour bar, and the legend, which goes in a
//! corner or below the plot (then the frame is laid out again, shorter).

use super::axis::{self, Placed, Side, Spec};
use super::geom::Rect;
use super::kinds::{Body, ColorBar, View};
use super::legend::{self, Entry, Placement};
use super::model::{Chart, Legend};
use super::style::{text_height, LABEL_FONT, LABEL_GAP, NOTE_FONT, PAD, TITLE_FONT};

/// What the axes show (after "no data" blanked them).
pub(crate) struct Specs {
    pub x: Spec,
    pub y: Spec,
    pub y2: Option<Spec>,
}

pub(crate) struct Layout {
    pub frame: Rect,
    pub x: Placed,
    pub y: Placed,
    pub y2: Option<Placed>,
    pub legend: Option<Placement>,
    /// Top of the notes line, if any.
    pub notes_top: f64,
}

impl Layout {
    pub fn view(&self) -> View<'_> {
        View { frame: self.frame, x: &self.x.map, y: &self.y.map, y2: self.y2.as_ref().map(|p| &p.map) }
    }
}

/// Everything `layout` needs besides the chart.
pub(crate) struct Inputs<'a> {
    pub body: &'a dyn Body,
    pub specs: &'a Specs,
    pub color_bar: Option<&'a ColorBar>,
    pub has_notes: bool,
    pub entries: &'a [Entry],
}

pub(crate) fn layout(chart: &Chart, inputs: &Inputs) -> Layout {
    let mut l = arrange(chart, inputs, 0.0);
    if !legend::wanted(chart.legend, inputs.entries) {
        return l;
    }
    let size = legend::box_size(inputs.entries);
    match chart.legend {
        Legend::Auto => {
            let marks = inputs.body.marks(&l.view());
            if let Some(r) = legend::free_corner(&l.frame, size, &marks) {
                l.legend = Some(Placement::Inside(r));
                return l;
            }
        }
        Legend::Below | Legend::None => {}
        corner => {
            l.legend = Some(Placement::Inside(legend::corner(&l.frame, size, corner)));
            return l;
        }
    }
    let (w, h) = fig(chart);
    let rows = legend::flow(inputs.entries, w - 2.0 * PAD);
    let height = legend::below_height(rows.len());
    let mut l = arrange(chart, inputs, height + LABEL_GAP);
    l.legend = Some(Placement::Below { top: h - PAD - height, rows });
    l
}

pub(crate) fn fig(chart: &Chart) -> (f64, f64) {
    (f64::from(chart.size.0), f64::from(chart.size.1))
}

/// Height of the title line (0 without a title).
pub(crate) fn title_block(chart: &Chart) -> f64 {
    if chart.title.as_deref().is_some_and(|t| !t.is_empty()) {
        text_height(TITLE_FONT) + 6.0
    } else {
        0.0
    }
}

/// Space an axis label takes across its axis (0 without a label).
fn label_block(label: &str) -> f64 {
    if label.is_empty() {
        0.0
    } else {
        LABEL_GAP + text_height(LABEL_FONT)
    }
}

/// Lays the frame out three times: the tick labels depend on the axis
/// lengths, which depend on the room the labels take; three rounds settle.
fn arrange(chart: &Chart, inputs: &Inputs, reserve_bottom: f64) -> Layout {
    let (w, h) = fig(chart);
    let notes = if inputs.has_notes { text_height(NOTE_FONT) + 6.0 } else { 0.0 };
    let notes_top = PAD + title_block(chart);
    let top = notes_top + notes;
    let y2_label = chart.y2.as_ref().map_or(0.0, |a| label_block(&a.label));
    let mut frame = Rect { x0: PAD + 50.0, y0: top + 6.0, x1: w - PAD - 20.0, y1: h - PAD - 40.0 - reserve_bottom };
    for _ in 0..3 {
        let (x, y, y2) = place_all(inputs.specs, &frame, (w, h));
        let right_side = match (&y2, inputs.color_bar) {
            (Some(p), _) => p.thickness() + y2_label,
            (None, Some(bar)) => bar.width(),
            (None, None) => 0.0,
        };
        let left = (PAD + label_block(&chart.y.label) + y.thickness()).max(PAD + x.before);
        let right = (PAD + right_side).max(PAD + x.after).max(PAD + 6.0);
        let after = y2.as_ref().map_or(y.after, |p| p.after.max(y.after));
        let frame_top = top.max(PAD + after).max(PAD + 4.0);
        let bottom = PAD + reserve_bottom + label_block(&chart.x.label) + x.thickness();
        frame =
            Rect { x0: left, y0: frame_top, x1: (w - right).max(left + 20.0), y1: (h - bottom).max(frame_top + 20.0) };
    }
    let (x, y, y2) = place_all(inputs.specs, &frame, (w, h));
    Layout { frame, x, y, y2, legend: None, notes_top }
}

fn place_all(specs: &Specs, frame: &Rect, fig: (f64, f64)) -> (Placed, Placed, Option<Placed>) {
    let x = axis::place(&specs.x, Side::Bottom, frame.x0, frame.x1, fig);
    let y = axis::place(&specs.y, Side::Left, frame.y1, frame.y0, fig);
    let y2 = specs.y2.as_ref().map(|s| axis::place(s, Side::Right, frame.y1, frame.y0, fig));
    (x, y, y2)
}
