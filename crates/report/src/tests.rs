//! Spec validation, figure building on hand-made outputs, and coverage of
//! the registry by the built-in specs. Expected values are worked out by
//! hand in the comments.

use std::path::Path;

use super::charts::{bin_means, outer_zeros_to_gaps};
use super::figure::{build, Built};
use super::selection::Env;
use super::*;
use tracelab_analysis::{Cell, Headline, Output, ResultTable};
use tracelab_plot::{self as plot, BoxStats, Data, Scale};
use tracelab_schema::Trace;
use tracelab_stats::Dist;

const HEAD: &str = "id = \"t\"\ntitle = \"T\"\ntraces = [\"pai\"]\npaper = \"P\"\n";

fn spec(figures: &str) -> Result<Spec> {
    Spec::parse(Path::new("t.toml"), &format!("{HEAD}{figures}"))
}

fn err(figures: &str) -> String {
    spec(figures).expect_err("spec should be refused").to_string()
}

const FIG: &str = "\n[[figure]]\nid = \"a\"\ntitle = \"A\"\nmirrors = \"m\"\npart = \"p\"\ncaption = \"c\"\n";

#[test]
fn a_valid_spec_parses_with_its_figures() {
    let s = spec(&format!(
        "{FIG}analysis = \"pai.wait-by-gpu-type\"\nkind = \"cdf\"\nparams = {{ wait = \"job-to-task\" }}\n"
    ))
    .unwrap();
    let f = s.body.figures[0].get_ref();
    assert_eq!((f.id.as_str(), f.kind), ("a", Kind::Cdf));
    assert_eq!(params_of(f), vec![("wait".to_string(), "job-to-task".to_string())]);
    assert_eq!(s.sha256.len(), 64);
}

#[test]
fn spec_errors_name_the_file_and_line() {
    // The analysis id sits on line 12: 4 header lines, a blank line, 6
    // figure lines, then `analysis = ...`.
    let e = err(&format!("{FIG}analysis = \"pai.no-such\"\nkind = \"cdf\"\n"));
    assert!(e.starts_with("spec t.toml, line 12: figure `a`: unknown analysis `pai.no-such`"), "{e}");
    let e = err(&format!("{FIG}analysis = \"pai.tasks-per-user\"\nkind = \"cdf\"\nparams = {{ bin = \"5m\" }}\n"));
    assert!(e.contains("line 14") && e.contains("has no parameter `bin` (it takes no parameters)"), "{e}");
    let e =
        err(&format!("{FIG}analysis = \"pai.machine-util\"\nkind = \"cdf\"\nparams = {{ idle = \"sometimes\" }}\n"));
    assert!(e.contains("figure `a`") && e.contains("idle"), "{e}");
    let e = err(&format!("{FIG}analysis = \"pai.tasks-per-user\"\nkind = \"pie\"\n"));
    assert!(e.contains("line 13") && e.contains("unknown variant `pie`"), "{e}");
    let e = err(&format!("{FIG}analysis = \"pai.tasks-per-user\"\nkind = \"cdf\"\ncolour = \"red\"\n"));
    assert!(e.contains("unknown field `colour`"), "{e}");
    let e = err(&format!("{FIG}analysis = \"pai.task-share-by-gpu\"\nkind = \"bars\"\n"));
    assert!(e.contains("bars need `category` and `columns`"), "{e}");
    let e = err(&format!("{FIG}analysis = \"pai.tasks-per-user\"\nkind = \"cdf\"\nx = {{ scale = \"ln\" }}\n"));
    assert_eq!(e, "spec t.toml, line 14: unknown variant `ln`, expected one of `linear`, `log`, `symlog`");
    // A misspelt legend was once read as `auto`; now it is refused at its
    // line with the values it takes.
    let e = err(&format!("{FIG}analysis = \"pai.tasks-per-user\"\nkind = \"cdf\"\nlegend = \"top-rigth\"\n"));
    assert_eq!(
        e,
        "spec t.toml, line 14: unknown variant `top-rigth`, expected one of `auto`, `none`, `below`, `top-left`, \
         `top-right`, `bottom-left`, `bottom-right`"
    );
    let e = err(&format!("{FIG}analysis = \"pai.tasks-per-user\"\nkind = \"cdf\"\ny = {{ format = \"pct\" }}\n"));
    assert!(e.starts_with("spec t.toml, line 14: unknown variant `pct`, expected one of `auto`, `percent`"), "{e}");
    let e = err(&format!("{FIG}analysis = \"pai.tasks-per-user\"\nkind = \"cdf\"\ngaps = \"zeros\"\n"));
    assert_eq!(e, "spec t.toml, line 14: unknown variant `zeros`, expected `outer-zeros`");
    let two = format!("{FIG}analysis = \"pai.tasks-per-user\"\nkind = \"cdf\"\n");
    assert!(err(&format!("{two}{two}")).contains("figure id `a` appears twice"));
}

/// Ids become folder and file names of the report: each hostile one is
/// refused at its own line (the figure's `id` is line 7: 4 header lines, a
/// blank line, `[[figure]]`, then `id`; the spec's is line 1).
#[test]
fn ids_are_names_refused_at_their_line() {
    let fig = |id: &str| {
        let text = FIG.replace("id = \"a\"", &format!("id = {}", serde_json::to_string(id).unwrap()));
        err(&format!("{text}analysis = \"pai.tasks-per-user\"\nkind = \"cdf\"\n"))
    };
    let long = "x".repeat(MAX_ID_LEN + 1);
    for (id, why) in [
        ("../x", "\"../x\": expected ASCII letters"),
        ("/abs", "\"/abs\": expected ASCII letters"),
        ("", "empty"),
        ("a/b", "expected ASCII letters"),
        ("a\\b", "expected ASCII letters"),
        ("nul\0x", "\"nul\\0x\": expected"),
        (".hidden", "expected ASCII letters"),
        ("-flag", "starting with a letter or digit"),
        ("a b", "expected ASCII letters"),
        (long.as_str(), "65 characters; at most 64"),
    ] {
        let e = fig(id);
        assert!(e.starts_with("spec t.toml, line 7: figure id: "), "{id:?}: {e}");
        assert!(e.contains(why), "{id:?}: {e}");
    }
    let ok = FIG.replace("id = \"a\"", "id = \"Fig_2a-cdf\"");
    assert!(spec(&format!("{ok}analysis = \"pai.tasks-per-user\"\nkind = \"cdf\"\n")).is_ok());
    let e =
        Spec::parse(Path::new("t.toml"), &format!("{}figure = []\n", HEAD.replace("id = \"t\"", "id = \"../../etc\"")))
            .unwrap_err();
    assert!(e.to_string().starts_with("spec t.toml, line 1: spec id: \"../../etc\": expected"), "{e}");
    // Two ids one case-insensitive file system would take for one file.
    let two = |id: &str| format!("{}analysis = \"pai.tasks-per-user\"\nkind = \"cdf\"\n", FIG.replace("\"a\"", id));
    assert!(err(&format!("{}{}", two("\"a\""), two("\"A\""))).contains("figure id `A` appears twice"));
}

/// The ceiling: at most `max` figures, the first one over it named by line.
#[test]
fn a_spec_holds_at_most_its_ceiling_of_figures() {
    let one = format!("{FIG}analysis = \"pai.tasks-per-user\"\nkind = \"cdf\"\n");
    let figures: String = (0..4).map(|i| one.replace("id = \"a\"", &format!("id = \"f{i}\""))).collect();
    let text = format!("{HEAD}{figures}");
    assert_eq!(Spec::parse_within(Path::new("t.toml"), &text, 4).unwrap().body.figures.len(), 4);
    let e = Spec::parse_within(Path::new("t.toml"), &text, 3).unwrap_err().to_string();
    // Figures take 9 lines each (a blank line, then 8): the fourth's
    // `[[figure]]` is line 5 + 3 * 9 + 1 = 33.
    assert!(
        e.starts_with("spec t.toml, line 33: 4 figures; a spec holds at most 3 (raise it with --max-figures)"),
        "{e}"
    );
    assert_eq!(DEFAULT_MAX_FIGURES, 500);
}

fn figure(extra: &str, kind: &str) -> FigureSpec {
    let s = spec(&format!("{FIG}analysis = \"pai.tasks-per-user\"\nkind = \"{kind}\"\n{extra}")).unwrap();
    s.body.figures[0].get_ref().clone()
}

fn all() -> Env {
    Env { present: Trace::ALL.to_vec(), ..Env::default() }
}

fn build_in(fig: &FigureSpec, out: &Output, env: &Env) -> (Result<Built>, Vec<String>) {
    let mut notes = Vec::new();
    (build(fig, out, env, &mut notes), notes)
}

fn built(fig: &FigureSpec, out: &Output) -> Result<Built> {
    build_in(fig, out, &all()).0
}

fn chart(fig: &FigureSpec, out: &Output) -> plot::Chart {
    match built(fig, out).unwrap() {
        Built::Chart(c) => *c,
        other => panic!("expected a chart, got {other:?}"),
    }
}

fn points(c: &plot::Chart, i: usize) -> Vec<(f64, f64)> {
    match &c.series[i].data {
        Data::Points(p) => p.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn cdfs_follow_the_owners_convention_and_the_spec_axes() {
    let mut out = Output::new("x", "X", "d");
    out.dists(
        "p",
        "Delay (s)",
        vec![("a".into(), Dist::from_samples(vec![4.0, 1.0, 2.0])), ("b".into(), Dist::default())],
    );
    let fig = figure("x = { scale = \"log\" }\nseries = [\"a\"]\nrename = { a = \"A!\" }\nx_div = 2\n", "cdf");
    let c = chart(&fig, &out);
    // Sorted 1, 2, 4 at 100*i/(n-1) = 0, 50, 100 %; x halved by x_div.
    assert_eq!(points(&c, 0), vec![(0.5, 0.0), (1.0, 50.0), (2.0, 100.0)]);
    assert_eq!((c.series.len(), c.series[0].label.as_str()), (1, "A!"));
    assert_eq!((c.x.label.as_str(), c.x.scale), ("Delay (s)", Scale::Log));
    assert_eq!((c.y.min, c.y.max), (Some(0.0), Some(100.0)));
    // Three samples are few: drawn whole, as steps.
    assert!(c.series[0].step);
    let missing = figure("series = [\"c\"]\n", "cdf");
    assert!(built(&missing, &out).unwrap_err().to_string().contains("no series `c` (the part has: a, b)"));
}

#[test]
fn ccdf_points_are_exact_shares_above() {
    // Samples 1, 1, 2, 3: P(X > 1) = 2/4, P(X > 2) = 1/4, P(X > 3) = 0
    // (dropped: no place on a log axis).
    let d = Dist::from_samples(vec![1.0, 1.0, 2.0, 3.0]);
    assert_eq!(ccdf_points(&d), vec![(1.0, 50.0), (2.0, 25.0)]);
    // 10,000 samples 1..=10000: the tail reaches P(X > 9999) = 0.01 %.
    let d = Dist::from_samples((1..=10_000).map(f64::from).collect());
    let pts = ccdf_points(&d);
    assert_eq!(pts.last(), Some(&(9999.0, 0.01)));
    assert!(pts.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 > w[1].1));
}

#[test]
fn curve_bins_average_y_over_fixed_x_bins() {
    // Bins of width 10: [0,10) holds y 1, 3 -> 2; [10,20) holds 5; NaN skipped.
    let pts = [(0.0, 1.0), (9.0, 3.0), (12.0, 5.0), (15.0, f64::NAN)];
    assert_eq!(bin_means(&pts, 10.0), vec![(0.0, 2.0), (10.0, 5.0)]);
    // [20,30) and [30,40) are empty: a gap (NaN at 20) between 10 and 40.
    let b = bin_means(&[(12.0, 5.0), (41.0, 7.0)], 10.0);
    assert_eq!((b.len(), b[0], b[2]), (3, (10.0, 5.0), (40.0, 7.0)));
    assert!(b[1].0 == 20.0 && b[1].1.is_nan());
}

#[test]
fn zeros_outside_a_series_window_become_gaps_and_inner_zeros_stay() {
    // Months 4..9: 0, 0, 152, 0, 95, 0 -> gap, gap, 152, 0, 95, gap.
    let mut v = [0.0, 0.0, 152.0, 0.0, 95.0, 0.0];
    assert!(outer_zeros_to_gaps(v.iter_mut()));
    assert!(v[0].is_nan() && v[1].is_nan() && v[5].is_nan());
    assert_eq!(v[2..5], [152.0, 0.0, 95.0]);
    let mut all_zero = [0.0, 0.0];
    assert!(outer_zeros_to_gaps(all_zero.iter_mut()));
    assert!(all_zero.iter().all(|x| x.is_nan()));
    let mut full = [1.0, 0.0, 2.0];
    assert!(!outer_zeros_to_gaps(full.iter_mut()));
}

#[test]
fn series_of_absent_traces_are_left_out_and_misspelled_ones_are_errors() {
    let mut out = Output::new("x", "X", "d");
    let d = || Dist::from_samples(vec![1.0, 2.0]);
    out.dists("p", "Runtime (s)", vec![("pai".into(), d()), ("helios/Venus".into(), d())]);
    let pai_only = Env {
        present: vec![Trace::Pai],
        missing: vec![("philly".into(), "left out by --only".into()), ("helios".into(), "not in the store".into())],
        ..Env::default()
    };
    let fig = figure("series = [\"pai\", \"philly\", \"helios/Venus\"]\nrename = { philly = \"Philly\" }\n", "cdf");
    let (b, notes) = build_in(&fig, &out, &pai_only);
    let Built::Chart(c) = b.unwrap() else { panic!() };
    // pai and helios/Venus are in the part and drawn; only what the part
    // lacks (philly, whose trace is absent) is left out, with a note.
    assert_eq!(c.series.len(), 2);
    assert!(notes.iter().any(|n| n == "Left out: Philly; the report lacks philly (left out by --only)."), "{notes:?}");
    // Nothing left: the figure is skipped and says why.
    let only_philly = figure("series = [\"philly\"]\n", "cdf");
    let (b, _) = build_in(&only_philly, &out, &pai_only);
    assert!(matches!(b.unwrap(), Built::Skip(why) if why.contains("philly (left out by --only)")));
    // A misspelled trace is not a trace: still an error.
    let typo = figure("series = [\"phily\"]\n", "cdf");
    assert!(build_in(&typo, &out, &pai_only).0.unwrap_err().to_string().contains("no series `phily`"));
    // With every trace present, a missing series is an error too.
    assert!(built(&only_philly, &out).unwrap_err().to_string().contains("no series `philly`"));
}

#[test]
fn a_histogram_reads_its_bin_edges_and_values() {
    let mut t = ResultTable::new(&["bin_lo_pct", "bin_hi_pct", "users"]);
    t.push(vec![Cell::Float(0.0), Cell::Float(9.412), Cell::Int(1)]);
    t.push(vec![Cell::Float(9.412), Cell::Float(18.824), Cell::Int(0)]);
    let mut out = Output::new("x", "X", "d");
    out.table("histogram", t);
    let fig = figure("bins = [\"bin_lo_pct\", \"bin_hi_pct\"]\ncolumns = [\"users\"]\n", "histogram");
    let c = chart(&FigureSpec { part: "histogram".into(), ..fig }, &out);
    assert_eq!(c.kind, plot::Kind::Histogram);
    assert_eq!(c.series[0].data, Data::Bins(vec![(0.0, 9.412, 1.0), (9.412, 18.824, 0.0)]));
}

#[test]
fn quantile_tables_rescale_the_mean_with_the_quantiles() {
    let mut out = Output::new("x", "X", "d");
    out.dists("p", "s", vec![("a".into(), Dist::from_samples(vec![60.0, 120.0, 180.0]))]);
    let fig = figure("x_div = 60\n", "quantiles");
    let Built::Table(t) = built(&FigureSpec { part: "p".into(), ..fig }, &out).unwrap() else { panic!() };
    // Mean 120 s = 2 min; median 2 min; max 3 min.
    assert_eq!(t.rows[0][..5], ["a", "3", "2", "1.2", "2"]);
}

fn shares_table() -> Output {
    let mut t = ResultTable::new(&["group", "label", "share_pct", "n"]);
    t.push(vec![Cell::Str("GPU request".into()), Cell::Str("<25%".into()), Cell::Float(14.5), Cell::Int(3)]);
    t.push(vec![Cell::Str("GPU type".into()), Cell::Str("T4".into()), Cell::Float(20.0), Cell::Int(4)]);
    t.push(vec![Cell::Str("GPU request".into()), Cell::Str("1 GPU".into()), Cell::Null, Cell::Int(5)]);
    let mut out = Output::new("x", "X", "d");
    out.table("shares", t);
    out
}

#[test]
fn bars_take_a_category_and_one_series_per_column_after_the_row_filter() {
    let fig =
        figure("category = \"label\"\ncolumns = [\"share_pct\", \"n\"]\nrows = { group = \"GPU request\" }\n", "hbars");
    let fig = FigureSpec { part: "shares".into(), ..fig };
    let c = chart(&fig, &shares_table());
    assert_eq!(c.kind, plot::Kind::Bars { horizontal: true, mode: plot::BarMode::Grouped });
    assert_eq!(c.y.scale, Scale::Category);
    let bars = |i: usize| match &c.series[i].data {
        Data::Bars(b) => b.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(c.series[0].label, "share_pct");
    let first = bars(0);
    assert_eq!(first[0], ("<25%".to_string(), 14.5));
    assert_eq!(first[1].0, "1 GPU");
    assert!(first[1].1.is_nan(), "a null cell is no bar");
    assert_eq!(bars(1), vec![("<25%".to_string(), 3.0), ("1 GPU".to_string(), 5.0)]);
}

#[test]
fn box_and_heat_read_their_columns() {
    let mut t = ResultTable::new(&["hour", "lo", "q1", "med", "q3", "hi"]);
    t.push([0, 1, 2, 3, 4, 5].map(Cell::Int).to_vec());
    let mut out = Output::new("x", "X", "d");
    out.table("boxes", t);
    let fig = figure("category = \"hour\"\nboxes = [\"lo\", \"q1\", \"med\", \"q3\", \"hi\"]\n", "box");
    let c = chart(&FigureSpec { part: "boxes".into(), ..fig }, &out);
    let want = BoxStats { whisker_lo: 1.0, q1: 2.0, median: 3.0, q3: 4.0, whisker_hi: 5.0 };
    assert_eq!(c.series[0].data, Data::Boxes(vec![("0".into(), want)]));

    // Two machines, bins at 04:00 and 05:00 UTC: columns become hours since
    // the first bin (0, 1); m2 has no 05:00 row (NaN).
    let mut t = ResultTable::new(&["machine", "bin_start", "value"]);
    let ts = |h: u32| Cell::Str(format!("1970-01-07 0{h}:00:00.000000+00:00"));
    t.push(vec![Cell::Str("m1".into()), ts(4), Cell::Float(1.5)]);
    t.push(vec![Cell::Str("m1".into()), ts(5), Cell::Float(2.5)]);
    t.push(vec![Cell::Str("m2".into()), ts(4), Cell::Float(7.0)]);
    let mut out = Output::new("x", "X", "d");
    out.table("load", t);
    let fig = figure("category = \"machine\"\nheat = [\"bin_start\", \"value\"]\n", "heat");
    let c = chart(&FigureSpec { part: "load".into(), ..fig }, &out);
    let Data::Heat { rows, cols, values } = &c.series[0].data else { panic!() };
    assert_eq!((rows.clone(), cols.clone()), (vec!["m1".to_string(), "m2".to_string()], vec![0.0, 1.0]));
    assert_eq!(values[0], vec![1.5, 2.5]);
    assert_eq!(values[1][0], 7.0);
    assert!(values[1][1].is_nan());
}

#[test]
fn tables_and_headlines_become_text() {
    let fig = figure("columns = [\"label\", \"share_pct\"]\n", "table");
    let Built::Table(t) = built(&FigureSpec { part: "shares".into(), ..fig }, &shares_table()).unwrap() else {
        panic!()
    };
    assert_eq!(t.columns, vec!["label", "share_pct"]);
    assert_eq!(t.rows, vec![vec!["<25%", "14.5"], vec!["T4", "20"], vec!["1 GPU", ""]]);

    let mut out = Output::new("x", "X", "d");
    out.headlines("h", vec![Headline::new("k", "V100 P90", 13000.0, "s").published(13709.0, "NSDI'22")]);
    let Built::Table(t) = built(&FigureSpec { part: "h".into(), ..figure("", "headlines") }, &out).unwrap() else {
        panic!()
    };
    // 13000 - 13709 = -709; -709 / 13709 = -5.17 %: within 10 %.
    assert_eq!(t.rows[0][..4], ["V100 P90", "13000", "13709", "≈"]);
}

#[test]
fn a_kind_that_does_not_fit_the_part_is_an_error() {
    let e = built(&FigureSpec { part: "shares".into(), ..figure("", "cdf") }, &shares_table()).unwrap_err();
    assert!(e.to_string().contains("part `shares` is a table part, which this kind cannot draw"), "{e}");
    let e = built(&FigureSpec { part: "nope".into(), ..figure("", "cdf") }, &shares_table()).unwrap_err();
    assert!(e.to_string().contains("has no part `nope` (its parts: shares)"), "{e}");
}

#[test]
fn the_built_in_specs_cover_every_registered_analysis() {
    let specs = Spec::builtin().unwrap();
    let used: Vec<&str> =
        specs.iter().flat_map(|s| &s.body.figures).map(|f| f.get_ref().analysis.get_ref().as_str()).collect();
    let missing: Vec<&str> =
        tracelab_analysis::registry().iter().map(|a| a.id).filter(|id| !used.contains(id)).collect();
    assert!(missing.is_empty(), "analyses in no spec: {}", missing.join(", "));
}

/// A store holding one empty Helios table, its manifest noting `note`
/// (another note, another store content).
pub(crate) fn tiny_store(note: &str) -> (tempfile::TempDir, Store) {
    use tracelab_store::manifest::Manifest;
    use tracelab_store::parquet::{polars_schema, ParquetFile};
    let dir = tempfile::tempdir().unwrap();
    let mut writer = tracelab_store::publish::StoreWriter::open(dir.path(), &|_| {}).unwrap();
    writer.exclusive(&|_| {}).unwrap();
    let publication = writer.begin(Trace::Helios).unwrap();
    let table = &tracelab_schema::helios::VC_GPUS;
    let staged = publication.stage(table);
    let written = ParquetFile::create(&staged.path, &polars_schema(table)).unwrap().finish().unwrap();
    let manifest = Manifest::new(Trace::Helios, vec![], vec![], 0, vec![note.to_string()]);
    publication.commit_trace(manifest, vec![(staged, written)]).unwrap();
    drop(writer);
    let store = Store::open(dir.path()).unwrap();
    (dir, store)
}

/// A caption's placeholders take the figure's parameters (`bin = "1h"` is
/// 3600 s, the default idle is `zero`); an unknown one is refused at the
/// caption's line (line 11: 4 header lines, a blank line, `[[figure]]`,
/// id, title, mirrors, part, caption).
#[test]
fn captions_state_the_figures_parameters() {
    let with = |caption: &str, params: &str| {
        let fig = FIG.replace("caption = \"c\"", &format!("caption = \"{caption}\""));
        spec(&format!("{fig}analysis = \"pai.machine-util\"\nkind = \"cdf\"\n{params}"))
    };
    let s = with("per {bin:s} s bin ({bin}), idle={idle}", "params = { bin = \"1h\" }\n").unwrap();
    assert_eq!(s.body.figures[0].get_ref().caption, "per 3600 s bin (1h), idle=zero");
    let e = with("per {bins} bin", "").unwrap_err().to_string();
    assert_eq!(
        e,
        "spec t.toml, line 11: figure `a`: caption: unknown placeholder `{bins}` (pai.machine-util takes {bin}, {idle}, {misc-gpu-mem})"
    );
}
