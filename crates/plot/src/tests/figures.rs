//! Each kind renders a well-formed SVG with the expected number of series
//! paths, bars, boxes and heat cells; labels from data are escaped; text is
//! glyph outlines placed along its (rotated) baseline; the legend stays off
//! the data; output is byte-identical from run to run.

use super::{check, count, group, groups, parse, samples, texts, texts_in};
use crate::text;
use crate::*;

fn render_ok(chart: &Chart) -> String {
    let svg = render(chart).unwrap_or_else(|e| panic!("{e}"));
    check(&svg, chart.size);
    svg
}

/// `points="x,y x,y ..."` as numbers.
fn points(attr: &str) -> Vec<(f64, f64)> {
    attr.split(' ')
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

#[test]
fn a_line_chart_draws_one_path_per_series() {
    let svg = render_ok(&samples::cdf_log());
    let doc = parse(&svg);
    let series = groups(&doc, "series");
    // Three CDFs, each inside the axis range, so each is one unbroken path.
    assert_eq!(series.len(), 3);
    assert!(series.iter().all(|g| count(*g, "polyline") == 1));
    assert_eq!(series[1].attribute("aria-label"), Some("Philly"));
}

#[test]
fn a_step_chart_holds_each_value_until_the_next_x() {
    let mut c = Chart::new(Kind::Step, Axis::linear("x").range(0.0, 10.0), Axis::linear("y").range(0.0, 1.0));
    c.series = vec![Series::points("s", vec![(1.0, 0.2), (4.0, 0.5), (8.0, 0.9)])];
    let svg = render_ok(&c);
    let doc = parse(&svg);
    let line = group(&doc, "data").unwrap().descendants().find(|n| n.has_tag_name("polyline")).unwrap();
    let p = points(line.attribute("points").unwrap());
    // (1, .2) (4, .2) (4, .5) (8, .5) (8, .9): five corners, level then up.
    assert_eq!(p.len(), 5);
    assert_eq!(p[0].1, p[1].1);
    assert_eq!(p[1].0, p[2].0);
    assert_eq!(p[2].1, p[3].1);
    assert_eq!(p[3].0, p[4].0);
    assert!(p[4].1 < p[2].1 && p[2].1 < p[0].1, "y grows upwards on the page");
    // x 1 -> 4 is 3 units, 4 -> 8 is 4 units: the second step is 4/3 as long.
    let ratio = (p[3].0 - p[1].0) / (p[1].0 - p[0].0);
    assert!((ratio - 4.0 / 3.0).abs() < 0.01);
}

#[test]
fn a_scatter_chart_draws_a_marker_per_point() {
    let svg = render_ok(&samples::scatter());
    let doc = parse(&svg);
    // Two series of 150 points, all inside the data-fitted range: circles
    // for the first, squares (4-corner polygons) for the second.
    let series = groups(&doc, "series");
    assert_eq!((count(series[0], "circle"), count(series[0], "polygon")), (150, 0));
    assert_eq!((count(series[1], "circle"), count(series[1], "polygon")), (0, 150));
}

#[test]
fn bar_charts_draw_a_rectangle_per_value() {
    let data_rects = |c: &Chart| {
        let svg = render_ok(c);
        let doc = parse(&svg);
        count(group(&doc, "data").unwrap(), "rect")
    };
    // 3 series x 4 GPU types = 12 values, one of them 0 (Philly has no T4),
    // which has no height and is not drawn: 11.
    assert_eq!(data_rects(&samples::bars_grouped()), 11);
    // 3 statuses x 3 traces, stacked.
    assert_eq!(data_rects(&samples::bars_stacked()), 9);
    // 5 virtual clusters, one series.
    assert_eq!(data_rects(&samples::bars_horizontal()), 5);
}

#[test]
fn stacked_bars_sit_on_top_of_each_other() {
    let mut c = Chart::new(
        Kind::Bars { horizontal: false, mode: BarMode::Stacked },
        Axis::category("c"),
        Axis::linear("v").range(0.0, 10.0),
    );
    c.series = vec![Series::bars("a", vec![("x".into(), 2.0)]), Series::bars("b", vec![("x".into(), 3.0)])];
    let svg = render_ok(&c);
    let doc = parse(&svg);
    let rects: Vec<(f64, f64)> = group(&doc, "data")
        .unwrap()
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .map(|n| (n.attribute("y").unwrap().parse().unwrap(), n.attribute("height").unwrap().parse().unwrap()))
        .collect();
    let ((ya, ha), (yb, hb)) = (rects[0], rects[1]);
    // b starts where a ends, and is 3/2 as tall (values 3 and 2).
    assert!((yb + hb - ya).abs() < 0.011);
    assert!((hb / ha - 1.5).abs() < 0.01);
}

#[test]
fn a_box_plot_draws_a_box_per_category_and_series() {
    let svg = render_ok(&samples::boxes_by_hour());
    let doc = parse(&svg);
    let boxes = groups(&doc, "box");
    // 2 series x 24 hours.
    assert_eq!(boxes.len(), 48);
    // Each: a filled and an outlined body; two whiskers, two caps, a median.
    assert!(boxes.iter().all(|b| count(*b, "rect") == 2 && count(*b, "polyline") == 5));
}

#[test]
fn a_heat_map_draws_a_cell_per_value_and_merges_equal_runs() {
    let heat = |values: Vec<Vec<f64>>| {
        let mut c = Chart::new(Kind::Heat, Axis::linear("t"), Axis::category("m"));
        let rows = vec!["m1".to_string(), "m2".into(), "m3".into()];
        c.series = vec![Series::new("", Data::Heat { rows, cols: vec![0.0, 1.0, 2.0, 3.0], values })];
        render_ok(&c)
    };
    let svg = heat(vec![vec![1.0, 2.0, 3.0, 4.0], vec![5.0, 6.0, 7.0, 8.0], vec![9.0, 10.0, 11.0, 12.0]]);
    let doc = parse(&svg);
    assert_eq!(count(group(&doc, "heat").unwrap(), "rect"), 12);
    // The bar: 64 colour steps and its outline, labelled with min and max.
    let bar = group(&doc, "colorbar").unwrap();
    assert_eq!(count(bar, "rect"), 65);
    assert_eq!(texts_in(bar), ["1", "12"]);
    // Row 1 is one colour then no data: 2 runs; rows 2 and 3 one colour each.
    let nan = f64::NAN;
    let svg = heat(vec![vec![5.0, 5.0, 5.0, nan], vec![1.0; 4], vec![9.0; 4]]);
    assert_eq!(count(group(&parse(&svg), "heat").unwrap(), "rect"), 4);
}

#[test]
fn a_large_heat_map_is_one_embedded_image() {
    let c = samples::heat_large();
    let svg = render_ok(&c);
    let doc = parse(&svg);
    let heat = group(&doc, "heat").unwrap();
    assert_eq!((count(heat, "image"), count(heat, "rect")), (1, 0));
    let href = heat.descendants().find(|n| n.has_tag_name("image")).unwrap().attribute("href").unwrap();
    // base64 of the PNG signature 89 50 4E 47 0D 0A 1A 0A.
    assert!(href.starts_with("data:image/png;base64,iVBORw0KGgo"));
    // 300 x 168 cells in well under the 3.5 MB that rectangles took.
    assert!(svg.len() < 150_000, "{} bytes", svg.len());
}

/// A `rows` x `cols` map of noise with hourly columns; `gap` leaves out
/// the bin at hour 10 (as a table of the bins present does).
fn big_heat(rows: usize, cols: usize, gap: bool) -> Chart {
    let mut rng = samples::Lcg::new(3);
    let names: Vec<String> = (0..rows).map(|i| format!("machine-{i:04}")).collect();
    let cols: Vec<f64> = (0..cols).map(|i| if gap && i >= 10 { i as f64 + 1.0 } else { i as f64 }).collect();
    let values = names.iter().map(|_| cols.iter().map(|_| rng.next()).collect()).collect();
    let mut c = Chart::new(Kind::Heat, Axis::linear("t"), Axis::category("m"));
    c.series = vec![Series::new("", Data::Heat { rows: names, cols, values })];
    c
}

/// Width and height from the IHDR of the heat map's embedded PNG.
fn image_size(svg: &str) -> (u32, u32) {
    let doc = parse(svg);
    let img = group(&doc, "heat").unwrap().descendants().find(|n| n.has_tag_name("image")).unwrap();
    let b64 = img.attribute("href").unwrap().strip_prefix("data:image/png;base64,").unwrap();
    // Width and height are bytes 16..24 (after the 8-byte signature and
    // IHDR's length and type); base64 characters 20..32 hold bytes 15..24
    // (3 bytes per 4 characters).
    let value =
        |c: u8| "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".find(c as char).unwrap() as u32;
    let bytes: Vec<u8> = b64.as_bytes()[20..32]
        .chunks(4)
        .flat_map(|q| {
            let n = q.iter().fold(0, |n, c| (n << 6) | value(*c));
            [(n >> 16) as u8, (n >> 8) as u8, n as u8]
        })
        .collect();
    let be = |b: &[u8]| u32::from_be_bytes(b.try_into().unwrap());
    (be(&bytes[1..5]), be(&bytes[5..9]))
}

#[test]
fn a_heat_map_with_missing_bins_is_still_one_image() {
    // 300 machines x 2000 hourly bins without hour 10: the columns start at
    // 0..9 and 11..2000, the last ends at 2001, so the image has 2001 pixel
    // columns (hour 9's cell is two wide) and 300 rows.
    let svg = render_ok(&big_heat(300, 2000, true));
    let doc = parse(&svg);
    let heat = group(&doc, "heat").unwrap();
    assert_eq!((count(heat, "image"), count(heat, "rect")), (1, 0));
    assert_eq!(image_size(&svg), (2001, 300));
    // 600,000 random levels deflate to about a byte each, base64 4/3 of
    // that: well under 1 MB, where a rect per cell was over 40 MB.
    assert!(svg.len() < 1_000_000, "{} bytes", svg.len());
    // 104 x 1600 without gaps: one pixel per cell.
    assert_eq!(image_size(&render_ok(&big_heat(104, 1600, false))), (1600, 104));
}

#[test]
fn hundreds_of_heat_map_rows_get_every_kth_name() {
    // The plot is at most 360 px tall and names need 12.61 px each (see
    // axis.rs), so at most 360 / 12.61 = 28 of the 300 are named, the
    // first among them.
    let svg = render_ok(&big_heat(300, 200, false));
    let doc = parse(&svg);
    let names: Vec<String> = texts(&doc).into_iter().filter(|t| t.starts_with("machine-")).collect();
    assert!(names.len() >= 2 && names.len() <= 28, "{names:?}");
    assert_eq!(names[0], "machine-0000");
}

#[test]
fn a_twin_axis_chart_labels_both_axes_and_the_right_series() {
    let svg = render_ok(&samples::twin_axis());
    let t = texts(&parse(&svg));
    assert!(t.contains(&"Jobs submitted per hour".to_string()));
    assert!(t.contains(&"submissions (right)".to_string()));
    assert!(t.contains(&"utilization".to_string()));
}

/// How a series looks without colour: its dash pattern and the shape of
/// its first marker (its corners relative to the first corner, rounded).
fn grey_style(series: roxmltree::Node) -> (String, String) {
    let markers = series.descendants().find(|n| n.attribute("class") == Some("markers")).expect("markers");
    let line = series.children().find(|n| n.has_tag_name("polyline")).expect("a line");
    let dash = line.attribute("stroke-dasharray").unwrap_or("solid").to_string();
    let shape = |pts: Vec<(f64, f64)>| {
        let rel: Vec<String> = pts.iter().map(|p| format!("{:.0},{:.0}", p.0 - pts[0].0, p.1 - pts[0].1)).collect();
        rel.join(" ")
    };
    let marker = markers.descendants().find_map(|n| match n.tag_name().name() {
        "circle" => Some("circle".to_string()),
        "polygon" | "polyline" => Some(format!("{} {}", n.tag_name().name(), shape(points(n.attribute("points")?)))),
        _ => None,
    });
    (dash, marker.unwrap_or_default())
}

#[test]
fn line_series_differ_in_dash_or_marker_not_only_in_colour() {
    let svg = render_ok(&samples::many_series());
    let doc = parse(&svg);
    let styles: Vec<(String, String)> = groups(&doc, "series").into_iter().map(grey_style).collect();
    assert_eq!(styles.len(), 12);
    for (i, a) in styles.iter().enumerate() {
        assert!(!a.1.is_empty(), "series {i} has no marker");
        for (j, b) in styles.iter().enumerate().skip(i + 1) {
            assert_ne!(a, b, "series {i} and {j} look the same in grey");
        }
    }
    // The legend shows each series' dash and marker too: 12 swatch lines
    // (four solid), 12 markers.
    let legend = group(&doc, "legend").unwrap();
    let dashed = legend.descendants().filter(|n| n.attribute("stroke-dasharray").is_some()).count();
    assert_eq!(dashed, 12 - 3, "series 0, 5 and 10 are solid");
}

#[test]
fn strings_from_the_data_are_escaped() {
    let nasty = r#"a<b&"c"'"#;
    let mut c = Chart::new(
        Kind::Bars { horizontal: false, mode: BarMode::Grouped },
        Axis::category(nasty),
        Axis::linear(nasty),
    );
    c.title = Some(nasty.into());
    c.series = vec![Series::bars(nasty, vec![(nasty.into(), 1.0)]), Series::bars("other", vec![(nasty.into(), 2.0)])];
    let svg = render_ok(&c);
    assert!(!svg.contains(nasty), "the raw string must not appear");
    assert!(svg.contains("a&lt;b&amp;&quot;c&quot;&apos;"));
    // Parsed back, the strings are intact: title, category, axis labels, legend.
    let doc = parse(&svg);
    let n = texts(&doc).iter().filter(|t| *t == nasty).count() + usize::from(svg.contains("<title>a&lt;b"));
    assert!(n >= 6, "found {n}");
}

#[test]
fn controls_noncharacters_and_bidi_overrides_are_drawn_and_named_escaped() {
    // A VC name with ESC, U+FFFE and U+202E: the file stays XML, the label
    // reads `vc\x1b\ufffe\u202ex` in the glyphs and in its aria-label.
    let name = "vc\u{1b}\u{fffe}\u{202e}x";
    let mut c =
        Chart::new(Kind::Bars { horizontal: false, mode: BarMode::Grouped }, Axis::category("vc"), Axis::linear("n"));
    c.series = vec![Series::bars("s", vec![(name.into(), 1.0)])];
    let svg = render_ok(&c);
    assert!(!svg.contains('\u{1b}') && !svg.contains('\u{fffe}') && !svg.contains('\u{202e}'));
    let doc = parse(&svg);
    let shown = "vc\\x1b\\ufffe\\u202ex";
    let label = doc.descendants().find(|n| n.attribute("aria-label") == Some(shown)).expect("escaped label");
    // One glyph per character of the escaped text.
    assert_eq!(label.children().filter(|n| n.has_tag_name("use")).count(), shown.chars().count());
}

#[test]
fn every_sample_renders_to_the_same_bytes_twice() {
    for (name, chart) in samples::all() {
        let a = render(&chart).unwrap();
        let b = render(&chart.clone()).unwrap();
        assert!(a == b, "{name} differs between two renders");
    }
}

/// The page position of each glyph of the text run labelled `label`:
/// `translate(X Y) [rotate(A)] scale(K)` applied to each `<use x=u>`.
fn glyph_origins(svg: &str, label: &str) -> (f64, Vec<(f64, f64)>) {
    let doc = parse(svg);
    let g = doc.descendants().find(|n| n.attribute("aria-label") == Some(label)).expect("label not found");
    let t = g.attribute("transform").unwrap();
    let nums: Vec<f64> = t
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    let (x, y, angle, k) = match nums.len() {
        3 => (nums[0], nums[1], 0.0, nums[2]),
        _ => (nums[0], nums[1], nums[2], nums[3]),
    };
    let (sin, cos) = angle.to_radians().sin_cos();
    let origins = g
        .children()
        .filter(|n| n.has_tag_name("use"))
        .map(|u| {
            let ux: f64 = u.attribute("x").map_or(0.0, |v| v.parse().unwrap());
            (x + ux * k * cos, y + ux * k * sin)
        })
        .collect();
    (angle, origins)
}

#[test]
fn a_rotated_label_is_set_along_its_rotated_baseline() {
    let svg = render_ok(&samples::cdf_log());
    // The y-axis label reads bottom to top: same x for every glyph, y falling.
    let (angle, o) = glyph_origins(&svg, "Fraction of jobs");
    assert_eq!(angle, -90.0);
    assert_eq!(o.len(), "Fractionofjobs".len(), "one glyph per inked character (spaces have none)");
    assert!(o.iter().all(|p| (p.0 - o[0].0).abs() < 1e-6));
    assert!(o.windows(2).all(|w| w[1].1 < w[0].1));
    // From the first to the last glyph origin: the run's width minus the
    // last glyph's advance ("s", 1067 units at the 16 px label size = 8.34 px).
    let span = o[0].1 - o[o.len() - 1].1;
    let expected = text::width("Fraction of jobs", 16.0) - 1067.0 * 16.0 / 2048.0;
    assert!((span - expected).abs() < 0.02, "{span} vs {expected}");
    // The x-axis label is level: same y, x rising.
    let (angle, o) = glyph_origins(&svg, "Job duration");
    assert_eq!(angle, 0.0);
    assert!(o.iter().all(|p| (p.1 - o[0].1).abs() < 1e-6));
    assert!(o.windows(2).all(|w| w[1].0 > w[0].0));
}

#[test]
fn long_category_names_are_turned_45_degrees() {
    let svg = render_ok(&samples::long_categories());
    let doc = parse(&svg);
    let turned = doc.descendants().filter(|n| n.attribute("transform").is_some_and(|t| t.contains("rotate(-45)")));
    assert_eq!(turned.count(), 12);
}

/// Position of the legend box, or None when the legend has no box (below).
fn legend_box(svg: &str) -> Option<(f64, f64)> {
    let doc = parse(svg);
    let legend = group(&doc, "legend")?;
    let r = legend.descendants().find(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("#FFFFFF"))?;
    Some((r.attribute("x")?.parse().ok()?, r.attribute("y")?.parse().ok()?))
}

#[test]
fn the_legend_goes_where_there_is_no_data() {
    let x = Axis::linear("x").range(0.0, 10.0);
    let y = Axis::linear("y").range(0.0, 1.0);
    let mut c = Chart::new(Kind::Line, x, y);
    // Two lines across the top of the plot: both top corners are taken,
    // the bottom right is the first free one.
    let level = |v: f64| (0..=10).map(|i| (i as f64, v)).collect::<Vec<_>>();
    c.series = vec![Series::points("one", level(0.98)), Series::points("two", level(0.9))];
    let (x0, y0) = legend_box(&render_ok(&c)).expect("a boxed legend");
    assert!(x0 > 280.0 && y0 > 180.0, "legend at ({x0}, {y0})");
    // A fixed corner is obeyed even over data.
    c.legend = Legend::TopLeft;
    let (x0, y0) = legend_box(&render_ok(&c)).unwrap();
    assert!(x0 < 280.0 && y0 < 180.0);
    // Lines along the top and the bottom leave no corner: below the plot,
    // without a box, and with its labels under the x-axis label.
    c.legend = Legend::Auto;
    c.series.push(Series::points("three", level(0.02)));
    let svg = render_ok(&c);
    assert_eq!(legend_box(&svg), None);
    let doc = parse(&svg);
    let legend = group(&doc, "legend").unwrap();
    assert_eq!(count(legend, "polyline"), 3);
}

#[test]
fn legend_labels_are_cut_at_forty_characters() {
    let mut c = samples::cdf_log();
    c.series[0].label = "x".repeat(60);
    let svg = render_ok(&c);
    let doc = parse(&svg);
    let t = texts_in(group(&doc, "legend").unwrap());
    let cut = t.iter().find(|l| l.starts_with("xxx")).unwrap();
    assert_eq!(cut.chars().count(), 40);
    assert!(cut.ends_with('…'));
}

#[test]
fn a_title_is_drawn_and_named() {
    let mut c = samples::bars_grouped();
    c.title = Some("Jobs per GPU type".into());
    let svg = render_ok(&c);
    assert!(svg.contains("<title>Jobs per GPU type</title>"));
    assert!(texts(&parse(&svg)).contains(&"Jobs per GPU type".to_string()));
}

#[test]
fn a_histogram_draws_its_bins_where_they_are_with_round_ticks() {
    // Ten bins of width 9.412 from 0 to 94.12 (seaborn's 10 bins from the
    // minimum to the maximum); one of them has no data.
    let w = 94.12 / 10.0;
    let bins: Vec<(f64, f64, f64)> =
        (0..10).map(|i| (i as f64 * w, (i + 1) as f64 * w, if i == 3 { f64::NAN } else { i as f64 })).collect();
    let mut c = Chart::new(Kind::Histogram, Axis::linear("Completion rate (%)"), Axis::linear("Users"));
    c.series = vec![Series::new("", Data::Bins(bins))];
    let svg = render_ok(&c);
    let doc = parse(&svg);
    // Bins 1..9 but 3 have a height (bin 0 holds 0 users): 8 filled
    // rectangles (each also outlined in white).
    let filled = group(&doc, "data").unwrap().descendants().filter(|n| n.has_tag_name("rect"));
    assert_eq!(filled.filter(|n| n.attribute("fill") != Some("none")).count(), 8);
    let t = texts_in(group(&doc, "axes").unwrap());
    assert!(t.contains(&"20".to_string()) && t.contains(&"40".to_string()), "{t:?}");
    assert!(!t.iter().any(|l| l.contains("9.41") || l.contains("18.8")), "{t:?}");
}

#[test]
fn about_becomes_title_and_desc_escaped() {
    let mut c = samples::cdf_log();
    c.about = Some(About { title: "Fig <1>".into(), desc: "Definition: a & b; source \u{fffe}".into() });
    let svg = render_ok(&c);
    let doc = parse(&svg);
    let text_of =
        |tag: &str| doc.descendants().find(|n| n.has_tag_name(tag)).and_then(|n| n.text()).map(str::to_string);
    assert_eq!(text_of("title").as_deref(), Some("Fig <1>"));
    assert_eq!(text_of("desc").as_deref(), Some("Definition: a & b; source \\ufffe"));
}

#[test]
fn a_series_marked_as_steps_is_drawn_as_steps_in_a_line_chart() {
    let mut c = Chart::new(Kind::Line, Axis::linear("x"), Axis::linear("y"));
    c.series = vec![Series::points("s", vec![(1.0, 0.0), (2.0, 50.0), (3.0, 100.0)]).steps()];
    let svg = render_ok(&c);
    let doc = parse(&svg);
    let line = group(&doc, "data").unwrap().descendants().find(|n| n.has_tag_name("polyline")).unwrap();
    // (1, 0) (2, 0) (2, 50) (3, 50) (3, 100).
    assert_eq!(points(line.attribute("points").unwrap()).len(), 5);
}
