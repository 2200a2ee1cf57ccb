//! Sizes of the figure's furniture in px, chosen for a 560 x 360 figure
//! printed one column wide in a two-column paper (3.33 in = 240 pt, so
//! 1 px prints as 0.43 pt): 15 px tick labels print at 6.4 pt, 16 px axis
//! labels at 6.9 pt and 14 px legend text at 6 pt (the usual minimum for
//! figure text), 2 px data lines at 0.86 pt and 1.2 px axes at 0.5 pt.

use super::text;

pub(crate) const TICK_FONT: f64 = 15.0;
pub(crate) const LABEL_FONT: f64 = 16.0;
pub(crate) const TITLE_FONT: f64 = 17.0;
pub(crate) const LEGEND_FONT: f64 = 14.0;
pub(crate) const NOTE_FONT: f64 = 12.0;

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

pub(crate) const LINE_WIDTH: f64 = 2.0;
pub(crate) const AXIS_WIDTH: f64 = 1.2;
pub(crate) const GRID_WIDTH: f64 = 1.0;
pub(crate) const MARKER_RADIUS: f64 = 3.5;

/// Legend labels are cut with an ellipsis past this many characters.
pub(crate) const LEGEND_CHARS: usize = 40;

/// Height of a line of text from cap top to descender bottom.
pub(crate) fn text_height(size: f64) -> f64 {
    size * (text::cap_height() + text::descent()) / text::units_per_em()
}
