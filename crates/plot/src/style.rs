//! Sizes of the figure's furniture in px, chosen for a 560 x 360 figure
//! printed one paper column wide (about half size): 11 px tick labels and
//! 12 px axis labels read like 6-7 pt type in print, lines are 1.5 px.

use super::text;

pub(crate) const TICK_FONT: f64 = 11.0;
pub(crate) const LABEL_FONT: f64 = 12.0;
pub(crate) const TITLE_FONT: f64 = 13.0;
pub(crate) const LEGEND_FONT: f64 = 11.0;
pub(crate) const NOTE_FONT: f64 = 10.0;

/// Outer margin of the figure.
pub(crate) const PAD: f64 = 8.0;
/// Major tick length (outside the plot area); minor ticks are half.
pub(crate) const TICK_LEN: f64 = 4.0;
/// Between a tick and its label.
pub(crate) const TICK_GAP: f64 = 3.0;
/// Between tick labels and the axis label.
pub(crate) const LABEL_GAP: f64 = 6.0;
/// Minimum free space between two neighbouring tick labels.
pub(crate) const LABEL_SPACING: f64 = 8.0;

pub(crate) const LINE_WIDTH: f64 = 1.5;
pub(crate) const AXIS_WIDTH: f64 = 1.0;
pub(crate) const GRID_WIDTH: f64 = 1.0;
pub(crate) const MARKER_RADIUS: f64 = 2.5;

/// Legend labels are cut with an ellipsis past this many characters.
pub(crate) const LEGEND_CHARS: usize = 40;

/// Height of a line of text from cap top to descender bottom.
pub(crate) fn text_height(size: f64) -> f64 {
    size * (text::cap_height() + text::descent()) / text::units_per_em()
}
