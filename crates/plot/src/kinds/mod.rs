//! The chart kinds behind one interface: each turns the chart's series into
//! checked, drawable data (skipping and counting what cannot be drawn),
//! says what its axes show, draws itself into the plot frame, and reports
//! where it drew (for the legend) and what its legend entries are.
//! Files: `xy` (line, step, scatter), `bar`, `histogram`, `boxplot`,
//! `heat` and its `colorbar`.

mod bar;
mod boxplot;
mod colorbar;
mod heat;
mod histogram;
mod xy;

use std::collections::BTreeMap;

use super::axis::{Map, Spec};
use super::canvas::Canvas;
use super::geom::{Mark, Rect};
use super::legend::Entry;
use super::model::{Axis, Chart, Data, Kind};
use super::scale::{range, RangeRequest, Transform};
use super::PlotError;

pub(crate) use colorbar::ColorBar;

/// The plot frame and the placed axes, as the kinds see them.
pub(crate) struct View<'a> {
    pub frame: Rect,
    pub x: &'a Map,
    pub y: &'a Map,
    pub y2: Option<&'a Map>,
}

pub(crate) trait Body {
    fn x_spec(&self, chart: &Chart) -> Spec;
    fn y_spec(&self, chart: &Chart) -> Spec;
    /// The twin right axis, when series use it.
    fn y2_spec(&self, _chart: &Chart) -> Option<Spec> {
        None
    }
    /// The colour bar right of the plot (heat maps).
    fn color_bar(&self, _chart: &Chart) -> Option<ColorBar> {
        None
    }
    /// Nothing drawable: the figure says "no data".
    fn is_empty(&self) -> bool;
    /// What was skipped, e.g. "3 points ≤ 0 not shown".
    fn notes(&self) -> Vec<String>;
    fn draw(&self, canvas: &Canvas, view: &View);
    /// Where data was drawn, so the legend can avoid it.
    fn marks(&self, view: &View) -> Vec<Mark>;
    fn entries(&self, chart: &Chart) -> Vec<Entry>;
}

pub(crate) fn prepare(chart: &Chart) -> Result<Box<dyn Body>, PlotError> {
    Ok(match chart.kind {
        Kind::Line | Kind::Step | Kind::Scatter => Box::new(xy::Xy::prepare(chart)?),
        Kind::Bars { horizontal, mode } => Box::new(bar::Bars::prepare(chart, horizontal, mode)?),
        Kind::Box => Box::new(boxplot::Boxes::prepare(chart)?),
        Kind::Heat => Box::new(heat::Heat::prepare(chart)?),
        Kind::Histogram => Box::new(histogram::Histogram::prepare(chart)?),
    })
}

/// Counts of values that could not be drawn, turned into notes.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Skipped {
    /// NaN or infinite.
    pub non_finite: usize,
    /// <= 0 on a log axis.
    pub non_positive: usize,
}

impl Skipped {
    /// `one` and `many`: the noun in singular and plural ("box", "boxes").
    pub fn notes(&self, one: &str, many: &str) -> Vec<String> {
        let n = |k: usize| if k == 1 { format!("1 {one}") } else { format!("{k} {many}") };
        let mut notes = Vec::new();
        if self.non_positive > 0 {
            notes.push(format!("{} ≤ 0 not shown (log axis)", n(self.non_positive)));
        }
        if self.non_finite > 0 {
            notes.push(format!("{} with NaN or infinite values not shown", n(self.non_finite)));
        }
        notes
    }
}

/// Category names in order of first appearance across series, and a lookup
/// from name to position (a BTreeMap: no hash order can leak into output).
pub(crate) fn categories<'a>(names: impl Iterator<Item = &'a str>) -> (Vec<String>, BTreeMap<String, usize>) {
    let mut order = Vec::new();
    let mut index = BTreeMap::new();
    for n in names {
        if !index.contains_key(n) {
            index.insert(n.to_string(), order.len());
            order.push(n.to_string());
        }
    }
    (order, index)
}

/// A numeric axis spec for `axis` fitted to `extent` (accepted values only).
pub(crate) fn num_spec(axis: &Axis, extent: Option<(f64, f64)>, pad: (bool, bool)) -> Spec {
    let tf = Transform::of(axis.scale);
    let (lo, hi) = range(tf, RangeRequest { extent, min: axis.min, max: axis.max, pad });
    Spec::Num { tf, lo, hi, given: axis.ticks.clone(), fmt: axis.tick_format }
}

/// A category axis spec: `names` in order, labelled at the axis' explicit
/// ticks (category positions) if it has any.
pub(crate) fn cat_spec(axis: &Axis, names: Vec<String>) -> Spec {
    Spec::Cat { names, given: axis.ticks.clone() }
}

/// Min and max of the values, if any.
pub(crate) fn extent(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
    })
}

/// The error for series `index` holding data its chart kind cannot draw.
pub(crate) fn mismatch(chart: &Chart, index: usize) -> PlotError {
    let data = match chart.series[index].data {
        Data::Points(_) => "Points",
        Data::Bars(_) => "Bars",
        Data::Boxes(_) => "Boxes",
        Data::Heat { .. } => "Heat",
        Data::Bins(_) => "Bins",
    };
    PlotError::Data {
        series: index,
        label: chart.series[index].label.clone(),
        problem: format!("a {:?} chart cannot draw {data} data", chart.kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_count_and_pluralise() {
        let s = Skipped { non_finite: 1, non_positive: 3 };
        assert_eq!(
            s.notes("point", "points"),
            ["3 points ≤ 0 not shown (log axis)", "1 point with NaN or infinite values not shown"]
        );
        assert!(Skipped::default().notes("bar", "bars").is_empty());
    }

    #[test]
    fn categories_keep_first_appearance_order() {
        let (order, index) = categories(["b", "a", "b", "c"].into_iter());
        assert_eq!(order, ["b", "a", "c"]);
        assert_eq!(index["c"], 2);
    }
}
