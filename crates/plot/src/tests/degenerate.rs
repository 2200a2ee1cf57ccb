//! Degenerate input draws a sensible, well-formed figure (never a panic or
//! an empty SVG): no series, empty series, one point, all-equal values,
//! NaN and infinities, values <= 0 on log axes, min == max, extremes. Misuse
//! of the model (wrong data for the kind, bad axis settings) is an error.

use super::{check, count, group, parse, texts};
use crate::*;

fn render_ok(chart: &Chart) -> String {
    let svg = render(chart).unwrap_or_else(|e| panic!("{e}"));
    check(&svg, chart.size);
    svg
}

fn says(svg: &str, what: &str) -> bool {
    texts(&parse(svg)).iter().any(|t| t == what)
}

fn all_kinds() -> Vec<Kind> {
    vec![
        Kind::Line,
        Kind::Step,
        Kind::Scatter,
        Kind::Bars { horizontal: false, mode: BarMode::Grouped },
        Kind::Bars { horizontal: true, mode: BarMode::Stacked },
        Kind::Box,
        Kind::Heat,
        Kind::Histogram,
    ]
}

#[test]
fn no_series_draws_the_frame_and_says_no_data() {
    for kind in all_kinds() {
        let c = Chart::new(kind, Axis::log("x label"), Axis::linear("y label"));
        let svg = render_ok(&c);
        assert!(says(&svg, "no data"), "{kind:?}");
        assert!(says(&svg, "x label") && says(&svg, "y label"));
        // Spines but no ticks: two axis lines.
        assert_eq!(count(group(&parse(&svg), "axes").unwrap(), "polyline"), 2, "{kind:?}");
    }
}

#[test]
fn empty_series_say_no_data() {
    let empty = [
        (Kind::Line, Data::Points(vec![])),
        (Kind::Bars { horizontal: false, mode: BarMode::Grouped }, Data::Bars(vec![])),
        (Kind::Box, Data::Boxes(vec![])),
        (Kind::Heat, Data::Heat { rows: vec![], cols: vec![], values: vec![] }),
        (Kind::Histogram, Data::Bins(vec![(0.0, 1.0, f64::NAN)])),
    ];
    for (kind, data) in empty {
        let mut c = Chart::new(kind, Axis::linear("x"), Axis::linear("y"));
        c.series = vec![Series::new("s", data)];
        assert!(says(&render_ok(&c), "no data"), "{kind:?}");
    }
}

#[test]
fn a_single_point_is_drawn_as_a_marker() {
    for kind in [Kind::Line, Kind::Step, Kind::Scatter] {
        let mut c = Chart::new(kind, Axis::linear("x"), Axis::log("y"));
        c.series = vec![Series::points("one", vec![(3.0, 40.0)])];
        let svg = render_ok(&c);
        let doc = parse(&svg);
        let data = group(&doc, "data").unwrap();
        assert_eq!((count(data, "circle"), count(data, "polyline")), (1, 0), "{kind:?}");
        assert!(!says(&svg, "no data"));
    }
}

#[test]
fn all_equal_values_and_min_equal_max_still_give_an_axis() {
    let mut c = Chart::new(Kind::Line, Axis::linear("x"), Axis::linear("y"));
    c.series = vec![Series::points("flat", vec![(1.0, 5.0), (2.0, 5.0), (3.0, 5.0)])];
    let svg = render_ok(&c);
    // 5 widened by 10% each way: ticks around it, 5.0 among them.
    assert!(says(&svg, "5.0"));
    let mut c = c.clone();
    c.x = Axis::linear("x").range(2.0, 2.0);
    c.y = Axis::log("y").range(5.0, 5.0);
    render_ok(&c);
    let mut bars =
        Chart::new(Kind::Bars { horizontal: false, mode: BarMode::Stacked }, Axis::category("c"), Axis::linear("v"));
    bars.series = vec![Series::bars("zero", vec![("a".into(), 0.0), ("b".into(), 0.0)])];
    render_ok(&bars);
}

#[test]
fn nan_and_infinite_values_are_skipped_and_counted() {
    let mut c = Chart::new(Kind::Line, Axis::linear("x"), Axis::linear("y"));
    let pts = vec![(0.0, 1.0), (f64::NAN, 2.0), (2.0, f64::INFINITY), (3.0, 4.0)];
    c.series = vec![Series::points("s", pts)];
    let svg = render_ok(&c);
    assert!(says(&svg, "2 points with NaN or infinite values not shown"));
    let doc = parse(&svg);
    let line = group(&doc, "data").unwrap().descendants().find(|n| n.has_tag_name("polyline")).unwrap();
    assert_eq!(line.attribute("points").unwrap().split(' ').count(), 2);
}

#[test]
fn values_at_or_below_zero_on_a_log_axis_are_counted_in_a_note() {
    let mut c = Chart::new(Kind::Step, Axis::log("Runtime (s)"), Axis::linear("CDF"));
    let pts = vec![(0.0, 0.1), (-1.0, 0.2), (-5.0, 0.3), (10.0, 0.5), (100.0, 1.0)];
    c.series = vec![Series::points("s", pts)];
    assert!(says(&render_ok(&c), "3 points ≤ 0 not shown (log axis)"));
    // Bars and boxes say the same in their own words.
    let mut b =
        Chart::new(Kind::Bars { horizontal: false, mode: BarMode::Grouped }, Axis::category("c"), Axis::log("v"));
    b.series = vec![Series::bars("s", vec![("a".into(), 0.0), ("b".into(), 10.0)])];
    assert!(says(&render_ok(&b), "1 bar ≤ 0 not shown (log axis)"));
    let mut x = Chart::new(Kind::Box, Axis::category("c"), Axis::linear("v"));
    let nan = BoxStats { whisker_lo: 0.0, q1: f64::NAN, median: 1.0, q3: 2.0, whisker_hi: 3.0 };
    let ok = BoxStats { whisker_lo: 0.0, q1: 1.0, median: 1.5, q3: 2.0, whisker_hi: 3.0 };
    x.series = vec![Series::boxes("s", vec![("a".into(), nan), ("b".into(), ok)])];
    assert!(says(&render_ok(&x), "1 box with NaN or infinite values not shown"));
}

#[test]
fn a_heat_map_without_a_single_value_says_no_data() {
    let mut c = Chart::new(Kind::Heat, Axis::linear("t"), Axis::category("m"));
    let values = vec![vec![f64::NAN, f64::NAN]];
    c.series = vec![Series::new("", Data::Heat { rows: vec!["m1".into()], cols: vec![0.0, 1.0], values })];
    assert!(says(&render_ok(&c), "no data"));
}

#[test]
fn extreme_and_dense_data_stay_finite_and_small() {
    let mut c = Chart::new(Kind::Line, Axis::linear("x"), Axis::linear("y"));
    c.series = vec![Series::points("huge", vec![(0.0, -f64::MAX), (1.0, f64::MAX), (2.0, 1e-300)])];
    render_ok(&c);
    // 100 000 points on a 500 px wide plot: thinned to points 0.5 px apart.
    let dense: Vec<(f64, f64)> = (0..100_000).map(|i| (i as f64, (i as f64 / 5000.0).sin())).collect();
    c.series = vec![Series::points("dense", dense)];
    let svg = render_ok(&c);
    assert!(svg.len() < 200_000, "{} bytes", svg.len());
}

#[test]
fn a_long_title_and_control_characters_are_handled() {
    let mut c = Chart::new(Kind::Line, Axis::linear("tab\there"), Axis::linear("new\nline"));
    c.title = Some("A title far too long for the figure ".repeat(5));
    c.series = vec![Series::points("a\u{0}b", vec![(0.0, 0.0), (1.0, 1.0)])];
    c.legend = Legend::TopLeft;
    render_ok(&c);
}

#[test]
fn the_smallest_allowed_figure_renders() {
    let mut c = super::samples::cdf_log();
    c.size = (160, 100);
    render_ok(&c);
}

#[test]
fn misuse_of_the_model_is_an_error() {
    let mut c = Chart::new(Kind::Line, Axis::linear("x"), Axis::linear("y"));
    c.series = vec![Series::bars("b", vec![("a".into(), 1.0)])];
    assert!(matches!(render(&c), Err(PlotError::Data { series: 0, .. })));

    let mut c = Chart::new(Kind::Line, Axis::symlog("x", 0.0), Axis::linear("y"));
    assert!(matches!(render(&c), Err(PlotError::Axis { axis: "x", .. })));
    c.x = Axis::linear("x");
    c.y = Axis::linear("y").range(2.0, 1.0);
    let e = render(&c).unwrap_err();
    assert_eq!(e.to_string(), "axis y: min 2 is above max 1");

    c.y = Axis::linear("y");
    c.size = (100, 50);
    assert!(matches!(render(&c), Err(PlotError::Size { width: 100, height: 50 })));

    let mut h = Chart::new(Kind::Heat, Axis::linear("t"), Axis::category("m"));
    let bad = Data::Heat { rows: vec!["a".into()], cols: vec![0.0, 1.0], values: vec![vec![1.0]] };
    h.series = vec![Series::new("h", bad)];
    let e = render(&h).unwrap_err();
    assert_eq!(e.to_string(), r#"series 0 ("h"): row 0 has 1 values for 2 columns"#);
    let ok = Data::Heat { rows: vec!["a".into()], cols: vec![0.0], values: vec![vec![1.0]] };
    h.series = vec![Series::new("h", ok.clone()), Series::new("h2", ok)];
    assert!(matches!(render(&h), Err(PlotError::Data { series: 1, .. })));
}

#[test]
fn a_nan_y_breaks_the_line_without_a_note() {
    // (0, 1) | gap | (2, 3), (3, 4): the first run is a lone point (a
    // marker), the second a two-point line; nothing is "not shown".
    let mut c = Chart::new(Kind::Line, Axis::linear("x"), Axis::linear("y"));
    c.series = vec![Series::points("s", vec![(0.0, 1.0), (1.0, f64::NAN), (2.0, 3.0), (3.0, 4.0)])];
    let svg = render_ok(&c);
    let doc = parse(&svg);
    let data = group(&doc, "data").unwrap();
    let lines: Vec<_> = data.children().filter(|n| n.has_tag_name("g")).flat_map(|g| g.children()).collect();
    let polylines: Vec<_> = lines.iter().filter(|n| n.has_tag_name("polyline")).collect();
    assert_eq!(polylines.len(), 1);
    assert_eq!(polylines[0].attribute("points").unwrap().split(' ').count(), 2);
    assert!(!texts(&doc).iter().any(|t| t.contains("not shown")), "{:?}", texts(&doc));
}

#[test]
fn a_nan_bar_is_no_bar_and_its_category_keeps_its_place() {
    let mut c =
        Chart::new(Kind::Bars { horizontal: false, mode: BarMode::Grouped }, Axis::category("m"), Axis::linear("v"));
    c.series = vec![Series::bars("jobs", vec![("4".into(), f64::NAN), ("5".into(), 2.0), ("6".into(), f64::NAN)])];
    let svg = render_ok(&c);
    let doc = parse(&svg);
    assert_eq!(count(group(&doc, "data").unwrap(), "rect"), 1);
    let t = texts(&doc);
    assert!(["4", "5", "6"].iter().all(|m| t.contains(&m.to_string())), "{t:?}");
    assert!(!t.iter().any(|t| t.contains("not shown")), "{t:?}");
}
