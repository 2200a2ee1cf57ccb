//! A figure's data as CSV, written next to its SVG: exactly the points the
//! chart model holds (after the presentation steps the caption names: CDF
//! points, bin means, unit rescaling, gaps), one observation per row, with
//! the axis labels (which carry the units) in the header. Written by the
//! presentation layer's CSV writer ([`tracelab_present::csv`]), so quoting
//! and numbers follow tracelab's one data rule: text kept exact and quoted
//! per RFC 4180, floats with twelve significant digits; no data (a gap) is
//! an empty field.

use tracelab_plot::{Chart, Data, YAxis};
use tracelab_present::{csv, Column, Table, Value};

/// The chart's plotted data as CSV text.
pub fn chart_csv(chart: &Chart) -> String {
    let mut table = Table::new(header(chart).into_iter().map(Column::text).collect());
    for s in &chart.series {
        let axis = match (&s.axis, &chart.y2) {
            (YAxis::Right, Some(y2)) => y2.label.as_str(),
            _ => chart.y.label.as_str(),
        };
        let with_axis = |mut r: Vec<Value>| {
            if has_right(chart) {
                r.push(axis.into());
            }
            r
        };
        let label = || Value::from(&s.label);
        match &s.data {
            Data::Points(pts) => table.rows.extend(pts.iter().map(|&(x, y)| with_axis(vec![label(), num(x), num(y)]))),
            Data::Bars(bars) => table.rows.extend(bars.iter().map(|(c, v)| vec![label(), c.into(), num(*v)])),
            Data::Bins(bins) => {
                table.rows.extend(bins.iter().map(|&(lo, hi, v)| vec![label(), num(lo), num(hi), num(v)]))
            }
            Data::Boxes(boxes) => {
                for (c, b) in boxes {
                    let stats = [
                        ("whisker_lo", b.whisker_lo),
                        ("q1", b.q1),
                        ("median", b.median),
                        ("q3", b.q3),
                        ("whisker_hi", b.whisker_hi),
                    ];
                    table.rows.extend(stats.iter().map(|(name, v)| vec![c.into(), (*name).into(), num(*v)]));
                }
            }
            Data::Heat { rows: names, cols, values } => {
                for (name, vals) in names.iter().zip(values) {
                    table.rows.extend(cols.iter().zip(vals).map(|(c, v)| vec![name.into(), num(*c), num(*v)]));
                }
            }
        }
    }
    csv::render(&table)
}

/// A plotted number; NaN is a gap in the chart, so no data (an empty field).
fn num(x: f64) -> Value {
    if x.is_nan() {
        Value::Null
    } else {
        Value::Float(x)
    }
}

fn has_right(chart: &Chart) -> bool {
    chart.y2.is_some() && chart.series.iter().any(|s| s.axis == YAxis::Right)
}

/// Column names: what each axis shows, with its unit as labelled.
fn header(chart: &Chart) -> Vec<String> {
    let label = |l: &str, fallback: &str| if l.is_empty() { fallback.to_string() } else { l.to_string() };
    let (x, y) = (label(&chart.x.label, "x"), label(&chart.y.label, "value"));
    match chart.series.first().map(|s| &s.data) {
        Some(Data::Bars(_)) => {
            // Horizontal bars put the categories on y and the values on x.
            let horizontal = matches!(chart.kind, tracelab_plot::Kind::Bars { horizontal: true, .. });
            let (cat, val) = if horizontal { (y, x) } else { (x, y) };
            vec!["series".into(), cat, val]
        }
        Some(Data::Bins(_)) => vec!["series".into(), format!("{x}: bin from"), format!("{x}: bin to"), y],
        Some(Data::Boxes(_)) => vec![x, "statistic".into(), y],
        Some(Data::Heat { .. }) => {
            let colour = chart.y2.as_ref().map_or("value".to_string(), |a| label(&a.label, "value"));
            vec![y, x, colour]
        }
        _ if has_right(chart) => vec!["series".into(), x, "value".into(), "axis".into()],
        _ => vec!["series".into(), x, y],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracelab_plot::{Axis, BarMode, BoxStats, Kind, Series};

    #[test]
    fn points_are_tidy_with_units_in_the_header_and_gaps_empty() {
        let mut c = Chart::new(Kind::Line, Axis::linear("Runtime (s)"), Axis::linear("CDF (%)"));
        c.series =
            vec![Series::points("PAI", vec![(0.5, 0.0), (2.0, 100.0)]), Series::points("a,b", vec![(1.0, f64::NAN)])];
        assert_eq!(chart_csv(&c), "series,Runtime (s),CDF (%)\nPAI,0.5,0.0\nPAI,2.0,100.0\n\"a,b\",1.0,\n");
    }

    #[test]
    fn twin_axis_rows_name_their_axis() {
        let mut c = Chart::new(Kind::Line, Axis::linear("Hour"), Axis::linear("Util (%)"));
        c.y2 = Some(Axis::linear("Jobs"));
        c.series = vec![Series::points("u", vec![(0.0, 50.0)]), Series::points("j", vec![(0.0, 7.0)]).right()];
        assert_eq!(chart_csv(&c), "series,Hour,value,axis\nu,0.0,50.0,Util (%)\nj,0.0,7.0,Jobs\n");
    }

    #[test]
    fn bars_bins_and_boxes_have_their_own_columns() {
        let kind = Kind::Bars { horizontal: true, mode: BarMode::Stacked };
        let mut c = Chart::new(kind, Axis::linear("Share (%)"), Axis::category("Trace"));
        c.series = vec![Series::bars("failed", vec![("pai".into(), 12.5)])];
        assert_eq!(chart_csv(&c), "series,Trace,Share (%)\nfailed,pai,12.5\n");

        let mut h = Chart::new(Kind::Histogram, Axis::linear("Rate (%)"), Axis::linear("Users"));
        h.series = vec![Series::new("", Data::Bins(vec![(0.0, 9.412, 3.0)]))];
        assert_eq!(chart_csv(&h), "series,Rate (%): bin from,Rate (%): bin to,Users\n\"\",0.0,9.412,3.0\n");

        let mut b = Chart::new(Kind::Box, Axis::category("Hour"), Axis::linear("Tasks"));
        let stats = BoxStats { whisker_lo: 1.0, q1: 2.0, median: 3.0, q3: 4.0, whisker_hi: 5.0 };
        b.series = vec![Series::boxes("", vec![("0".into(), stats)])];
        let text = chart_csv(&b);
        assert!(text.starts_with("Hour,statistic,Tasks\n0,whisker_lo,1.0\n0,q1,2.0\n"), "{text}");
        assert_eq!(text.lines().count(), 6);
    }
}
