//! One figure from start to end: check the chart, let its kind prepare the
//! data, lay out, then draw in a fixed order (background, title and notes,
//! grid, data, axes, colour bar, legend, "no data"). Later layers cover
//! earlier ones, so axes sit on top of data that touches the frame.

use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{Placed, Side, Spec};
use super::canvas::{spec, Canvas};
use super::geom::Rect;
use super::kinds;
use super::layout::{self, Inputs, Layout, Specs};
use super::legend;
use super::model::{Axis, Chart, Scale};
use super::palette;
use super::style::{LABEL_FONT, LABEL_GAP, NOTE_FONT, PAD, TITLE_FONT};
use super::text::{self, Span};
use super::PlotError;

/// Figures smaller than this cannot hold axes and labels; larger than
/// `MAX_SIDE` would overflow the backend's integer hundredths of a pixel.
const MIN_SIZE: (u32, u32) = (160, 100);
const MAX_SIDE: u32 = 20_000;

pub(crate) fn render(chart: &Chart) -> Result<String, PlotError> {
    validate(chart)?;
    let body = kinds::prepare(chart)?;
    let empty = body.is_empty();
    let notes = body.notes();
    let specs = if empty {
        // No ticks on axes that would only show a made-up range.
        Specs { x: Spec::cat(vec![]), y: Spec::cat(vec![]), y2: None }
    } else {
        Specs { x: body.x_spec(chart), y: body.y_spec(chart), y2: body.y2_spec(chart) }
    };
    let color_bar = if empty { None } else { body.color_bar(chart) };
    let entries = if empty { vec![] } else { body.entries(chart) };
    let inputs = Inputs {
        body: body.as_ref(),
        specs: &specs,
        color_bar: color_bar.as_ref(),
        has_notes: !notes.is_empty(),
        entries: &entries,
    };
    let l = layout::layout(chart, &inputs);
    let mut out = String::new();
    let about = chart.about.as_ref();
    let title = about.map(|a| a.title.as_str()).or(chart.title.as_deref()).filter(|t| !t.is_empty());
    let desc = about.map(|a| a.desc.as_str()).filter(|d| !d.is_empty());
    let canvas = Canvas::new(&mut out, chart.size, title, desc);
    let (w, h) = layout::fig(chart);
    canvas.fill(Rect { x0: 0.0, y0: 0.0, x1: w, y1: h }, palette::WHITE);
    draw_header(&canvas, chart, &notes, &l);
    l.x.draw_grid(&canvas, &l.frame);
    l.y.draw_grid(&canvas, &l.frame);
    canvas.open(&[("class", "data".into())]);
    if !empty {
        body.draw(&canvas, &l.view());
    }
    canvas.close();
    draw_axes(&canvas, chart, &l);
    if let Some(bar) = &color_bar {
        bar.draw(&canvas, &l.frame);
    }
    if let Some(p) = &l.legend {
        legend::draw(&canvas, &entries, p, w);
    }
    if empty {
        let s = spec(LABEL_FONT, palette::MUTED, HPos::Center, VPos::Center);
        canvas.text(&[Span::plain("no data")], l.frame.centre(), s);
    }
    canvas.finish()?;
    Ok(out)
}

fn validate(chart: &Chart) -> Result<(), PlotError> {
    let (w, h) = chart.size;
    if w < MIN_SIZE.0 || h < MIN_SIZE.1 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(PlotError::Size { width: w, height: h });
    }
    let axes = [("x", Some(&chart.x)), ("y", Some(&chart.y)), ("y2", chart.y2.as_ref())];
    for (name, axis) in axes {
        if let Some(axis) = axis {
            check_axis(name, axis)?;
        }
    }
    Ok(())
}

fn check_axis(name: &'static str, axis: &Axis) -> Result<(), PlotError> {
    if let Scale::Symlog { linthresh } = axis.scale {
        if !(linthresh.is_finite() && linthresh > 0.0) {
            let problem = format!("symlog linthresh must be a positive number, got {linthresh}");
            return Err(PlotError::Axis { axis: name, problem });
        }
    }
    if let (Some(lo), Some(hi)) = (axis.min, axis.max) {
        if lo > hi {
            return Err(PlotError::Axis { axis: name, problem: format!("min {lo} is above max {hi}") });
        }
    }
    Ok(())
}

fn draw_header(canvas: &Canvas, chart: &Chart, notes: &[String], l: &Layout) {
    let (w, _) = layout::fig(chart);
    if let Some(title) = chart.title.as_deref().filter(|t| !t.is_empty()) {
        let t = text::fit(title, TITLE_FONT, w - 2.0 * PAD);
        canvas.text(&[Span::plain(t)], (w / 2.0, PAD), spec(TITLE_FONT, palette::INK, HPos::Center, VPos::Top));
    }
    if !notes.is_empty() {
        let t = text::fit(&notes.join("; "), NOTE_FONT, w - 2.0 * PAD);
        canvas.open(&[("class", "note".into())]);
        canvas.text(&[Span::plain(t)], (w - PAD, l.notes_top), spec(NOTE_FONT, palette::MUTED, HPos::Right, VPos::Top));
        canvas.close();
    }
}

fn draw_axes(canvas: &Canvas, chart: &Chart, l: &Layout) {
    canvas.open(&[("class", "axes".into())]);
    l.x.draw(canvas, &l.frame);
    l.y.draw(canvas, &l.frame);
    axis_label(canvas, &chart.x.label, &l.x, &l.frame);
    axis_label(canvas, &chart.y.label, &l.y, &l.frame);
    if let (Some(p), Some(axis)) = (&l.y2, &chart.y2) {
        p.draw(canvas, &l.frame);
        axis_label(canvas, &axis.label, p, &l.frame);
    }
    canvas.close();
}

/// The axis title, centred along the axis beyond its tick labels and cut
/// with an ellipsis to the axis' length. Vertical titles read bottom to top.
fn axis_label(canvas: &Canvas, label: &str, axis: &Placed, frame: &Rect) {
    if label.is_empty() {
        return;
    }
    let off = axis.thickness() + LABEL_GAP;
    let (c, along) = (frame.centre(), if axis.side == Side::Bottom { frame.width() } else { frame.height() });
    let t = vec![Span::plain(text::fit(label, LABEL_FONT, along))];
    let mut s = spec(LABEL_FONT, palette::INK, HPos::Center, VPos::Top);
    let at = match axis.side {
        Side::Bottom => (c.0, frame.y1 + off),
        Side::Left => {
            s.angle = -90.0;
            s.v = VPos::Bottom;
            (frame.x0 - off, c.1)
        }
        Side::Right => {
            s.angle = -90.0;
            (frame.x1 + off, c.1)
        }
    };
    canvas.text(&t, at, s);
}
