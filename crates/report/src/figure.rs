//! One spec figure from one analysis output: picks the part, turns it into
//! a `plot::Chart` (the SVG kinds) or a text table (the table kinds).
//!
//! Nothing is computed here beyond presentation: CDF points come from the
//! distribution exactly (the owners' 100*i/(n-1) convention), CCDF points
//! are exact shares above each plotted value, `bin` averages a curve over
//! fixed x bins for display and `x_div` rescales units; each such step is
//! named in the figure's caption by the report.

use std::collections::BTreeMap;

use tracelab_analysis::{Body, Cell, Output, ResultTable};
use tracelab_plot::{self as plot, Axis, BarMode, BoxStats, Chart, Data, Legend, Scale, Series, TickFormat};
use tracelab_schema::error::{Error, Result};
use tracelab_stats::Dist;

use super::format::{cell_text, number};
use super::spec::{AxisSpec, FigureSpec, Kind};

/// What a figure renders to.
#[derive(Debug, Clone, PartialEq)]
pub enum Rendered {
    Svg(String),
    Table(TextTable),
}

/// A table of display strings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextTable {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Points plotted per CDF series: enough for a smooth curve at a paper
/// column's width, few enough to keep the SVG small.
const CDF_PLOT_POINTS: usize = 400;

/// A figure before drawing: the chart model, or a table.
#[derive(Debug, Clone, PartialEq)]
pub enum Built {
    Chart(Box<Chart>),
    Table(TextTable),
}

/// Renders `fig` from `out`. Errors name the figure and what is missing.
pub fn render(fig: &FigureSpec, out: &Output) -> Result<Rendered> {
    match build(fig, out)? {
        Built::Table(t) => Ok(Rendered::Table(t)),
        Built::Chart(c) => plot::render(&c)
            .map(Rendered::Svg)
            .map_err(|e| Error::Usage(format!("figure `{}`: drawing failed: {e}", fig.id))),
    }
}

/// The chart or table `fig` asks for, from the named part of `out`.
pub fn build(fig: &FigureSpec, out: &Output) -> Result<Built> {
    let part = out.part(&fig.part).ok_or_else(|| {
        let names: Vec<&str> = out.parts.iter().map(|p| p.name.as_str()).collect();
        Error::Usage(format!(
            "figure `{}`: {} has no part `{}` (its parts: {})",
            fig.id,
            out.id,
            fig.part,
            names.join(", ")
        ))
    })?;
    let problem =
        |what: &str| Error::Usage(format!("figure `{}` ({:?}): part `{}` {what}", fig.id, fig.kind, part.name));
    let chart = match (fig.kind, &part.body) {
        (Kind::Cdf | Kind::Ccdf, Body::Dists { x_label, series }) => dist_chart(fig, x_label, series),
        (Kind::Lines | Kind::Steps | Kind::Scatter, Body::Curves { x_label, y_label, series }) => {
            curve_chart(fig, x_label, y_label, series)
        }
        (Kind::Bars | Kind::Hbars | Kind::Stacked | Kind::StackedColumns, Body::Table(t)) => {
            bar_chart(fig, &filter_rows(fig, t)?)
        }
        (Kind::Box, Body::Table(t)) => box_chart(fig, &filter_rows(fig, t)?),
        (Kind::Heat, Body::Table(t)) => heat_chart(fig, &filter_rows(fig, t)?),
        (Kind::Table, Body::Table(t)) => return Ok(Built::Table(text_table(fig, &filter_rows(fig, t)?)?)),
        (Kind::Quantiles, Body::Dists { series, .. }) => return Ok(Built::Table(quantile_table(fig, series))),
        (Kind::Headlines, Body::Headlines(h)) => return Ok(Built::Table(super::summary::headline_table(h))),
        (_, body) => return Err(problem(&format!("is a {}, which this kind cannot draw", body_kind(body)))),
    };
    chart.map(|c| Built::Chart(Box::new(c)))
}

fn body_kind(body: &Body) -> &'static str {
    match body {
        Body::Dists { .. } => "dists part",
        Body::Curves { .. } => "curves part",
        Body::Table(_) => "table part",
        Body::Headlines(_) => "headlines part",
    }
}

/// The series the figure asks for, in its order (all when unspecified).
fn pick<'a, T>(fig: &FigureSpec, series: &'a [(String, T)]) -> Result<Vec<&'a (String, T)>> {
    let Some(wanted) = &fig.series else { return Ok(series.iter().collect()) };
    wanted
        .iter()
        .map(|w| {
            series.iter().find(|(l, _)| l == w).ok_or_else(|| {
                let have: Vec<&str> = series.iter().map(|(l, _)| l.as_str()).collect();
                Error::Usage(format!("figure `{}`: no series `{w}` (the part has: {})", fig.id, have.join(", ")))
            })
        })
        .collect()
}

fn label_of(fig: &FigureSpec, label: &str) -> String {
    fig.rename.get(label).cloned().unwrap_or_else(|| label.to_string())
}

fn base_chart(fig: &FigureSpec, kind: plot::Kind, x: Axis, y: Axis) -> Chart {
    let mut chart = Chart::new(kind, x, y);
    if let Some([w, h]) = fig.size {
        chart.size = (w, h);
    }
    chart.legend = legend(fig.legend.as_deref());
    chart.y2 = fig.y2.as_ref().map(|a| axis(a, "", Scale::Linear));
    chart
}

fn legend(name: Option<&str>) -> Legend {
    match name {
        Some("none") => Legend::None,
        Some("below") => Legend::Below,
        Some("top-left") => Legend::TopLeft,
        Some("top-right") => Legend::TopRight,
        Some("bottom-left") => Legend::BottomLeft,
        Some("bottom-right") => Legend::BottomRight,
        _ => Legend::Auto,
    }
}

/// A plot axis from the spec, with the analysis's label as the default.
fn axis(spec: &AxisSpec, default_label: &str, default_scale: Scale) -> Axis {
    let scale = match spec.scale.as_deref() {
        Some("log") => Scale::Log,
        Some("symlog") => Scale::Symlog { linthresh: spec.linthresh.unwrap_or(1.0) },
        Some(_) => Scale::Linear,
        None => default_scale,
    };
    let mut a = Axis::new(spec.label.clone().unwrap_or_else(|| default_label.to_string()), scale);
    a.min = spec.min;
    a.max = spec.max;
    a.ticks = spec.ticks.clone();
    a.tick_format = match spec.format.as_deref() {
        Some("percent") => TickFormat::Percent,
        Some("integer") => TickFormat::Integer,
        Some("duration") => TickFormat::Duration,
        Some("sci") => TickFormat::Sci,
        _ => TickFormat::Auto,
    };
    a
}

fn dist_chart(fig: &FigureSpec, x_label: &str, series: &[(String, Dist)]) -> Result<Chart> {
    let ccdf = fig.kind == Kind::Ccdf;
    let (y_label, y_scale) =
        if ccdf { ("Share of samples above x (%)", Scale::Log) } else { ("CDF (%)", Scale::Linear) };
    let mut y = axis(&fig.y, y_label, y_scale);
    if !ccdf && y.min.is_none() && y.max.is_none() {
        y = y.range(0.0, 100.0);
    }
    let mut chart = base_chart(fig, plot::Kind::Line, axis(&fig.x, x_label, Scale::Linear), y);
    let div = fig.x_div.unwrap_or(1.0);
    for (label, d) in pick(fig, series)? {
        let pts = if ccdf { ccdf_points(d) } else { d.cdf_curve(CDF_PLOT_POINTS) };
        let pts = pts.into_iter().map(|(x, y)| (x / div, y)).collect();
        chart.series.push(series_for(fig, label, Data::Points(pts)));
    }
    Ok(chart)
}

fn series_for(fig: &FigureSpec, label: &str, data: Data) -> Series {
    let s = Series::new(label_of(fig, label), data);
    if fig.right.iter().any(|r| r == label) {
        s.right()
    } else {
        s
    }
}

/// Exact P(X > v) in percent, (n - #samples <= v) / n, at evenly spaced
/// ranks plus ranks spaced evenly in log(tail mass), so a log-log plot shows
/// the tail down to the largest samples; the largest value (P = 0) has no
/// place on a log axis.
pub fn ccdf_points(d: &Dist) -> Vec<(f64, f64)> {
    let n = d.n();
    if n == 0 {
        return Vec::new();
    }
    let cum: Vec<u64> = d
        .counts()
        .iter()
        .scan(0, |acc, c| {
            *acc += c;
            Some(*acc)
        })
        .collect();
    let mut ranks: Vec<u64> = (0..CDF_PLOT_POINTS as u64).map(|j| j * (n - 1) / (CDF_PLOT_POINTS as u64 - 1)).collect();
    let decades = (n as f64).log10();
    let steps = (decades * 40.0).ceil().max(1.0) as u64;
    for j in 0..=steps {
        let tail = (n as f64) / 10f64.powf(j as f64 * decades / steps as f64);
        ranks.push(n.saturating_sub(tail.ceil() as u64));
    }
    // The distinct value holding each 0-based rank k: the first with cum > k.
    let mut idx: Vec<usize> = ranks.into_iter().map(|k| cum.partition_point(|&c| c <= k)).collect();
    idx.sort_unstable();
    idx.dedup();
    idx.into_iter().filter(|&i| cum[i] < n).map(|i| (d.values()[i], 100.0 * (n - cum[i]) as f64 / n as f64)).collect()
}

fn curve_chart(fig: &FigureSpec, x_label: &str, y_label: &str, series: &[(String, Vec<(f64, f64)>)]) -> Result<Chart> {
    let kind = match fig.kind {
        Kind::Steps => plot::Kind::Step,
        Kind::Scatter => plot::Kind::Scatter,
        _ => plot::Kind::Line,
    };
    let x = axis(&fig.x, x_label, Scale::Linear);
    let mut chart = base_chart(fig, kind, x, axis(&fig.y, y_label, Scale::Linear));
    let div = fig.x_div.unwrap_or(1.0);
    for (label, pts) in pick(fig, series)? {
        let pts = match fig.bin {
            Some(w) => bin_means(pts, w),
            None => pts.clone(),
        };
        let pts = pts.into_iter().map(|(x, y)| (x / div, y)).collect();
        chart.series.push(series_for(fig, label, Data::Points(pts)));
    }
    Ok(chart)
}

/// Mean y per x bin [k*w, (k+1)*w), placed at the bin start; NaN y skipped.
pub fn bin_means(pts: &[(f64, f64)], w: f64) -> Vec<(f64, f64)> {
    let mut bins: BTreeMap<i64, (f64, u64)> = BTreeMap::new();
    for &(x, y) in pts.iter().filter(|p| p.0.is_finite() && p.1.is_finite()) {
        let e = bins.entry((x / w).floor() as i64).or_insert((0.0, 0));
        e.0 += y;
        e.1 += 1;
    }
    bins.into_iter().map(|(k, (sum, n))| (k as f64 * w, sum / n as f64)).collect()
}

/// The table's rows that match the figure's `rows` filter.
fn filter_rows(fig: &FigureSpec, t: &ResultTable) -> Result<ResultTable> {
    let mut keep = Vec::new();
    for (col, want) in &fig.rows {
        keep.push((column(fig, t, col)?, want));
    }
    let rows = t.rows.iter().filter(|r| keep.iter().all(|(i, want)| cell_text(&r[*i]) == **want)).cloned().collect();
    Ok(ResultTable { columns: t.columns.clone(), rows })
}

fn column(fig: &FigureSpec, t: &ResultTable, name: &str) -> Result<usize> {
    t.columns.iter().position(|c| c == name).ok_or_else(|| {
        Error::Usage(format!(
            "figure `{}`: the table has no column `{name}` (it has: {})",
            fig.id,
            t.columns.join(", ")
        ))
    })
}

fn cell_f64(c: &Cell) -> f64 {
    match c {
        Cell::Int(i) => *i as f64,
        Cell::Float(f) => *f,
        _ => f64::NAN,
    }
}

fn bar_chart(fig: &FigureSpec, t: &ResultTable) -> Result<Chart> {
    let cat = column(fig, t, fig.category.as_deref().unwrap_or_default())?;
    let horizontal = matches!(fig.kind, Kind::Hbars | Kind::Stacked);
    let mode =
        if matches!(fig.kind, Kind::Stacked | Kind::StackedColumns) { BarMode::Stacked } else { BarMode::Grouped };
    let cat_label = t.columns[cat].clone();
    let (cat_axis, val_axis) = if horizontal { (&fig.y, &fig.x) } else { (&fig.x, &fig.y) };
    let cats = axis(cat_axis, &cat_label, Scale::Category);
    let vals = axis(val_axis, "", Scale::Linear);
    let (x, y) = if horizontal { (vals, cats) } else { (cats, vals) };
    let mut chart = base_chart(fig, plot::Kind::Bars { horizontal, mode }, x, y);
    if let Some(p) = &fig.pivot {
        chart.series = pivot_series(fig, t, cat, column(fig, t, p)?)?;
        return Ok(chart);
    }
    for name in fig.columns.as_deref().unwrap_or_default() {
        let i = column(fig, t, name)?;
        let bars = t.rows.iter().map(|r| (cell_text(&r[cat]), cell_f64(&r[i]))).collect();
        chart.series.push(series_for(fig, name, Data::Bars(bars)));
    }
    Ok(chart)
}

/// Bars of a long table (e.g. trace, status, share): one series per value
/// of the `pivot` column, plotting the one `columns` entry by category.
fn pivot_series(fig: &FigureSpec, t: &ResultTable, cat: usize, piv: usize) -> Result<Vec<Series>> {
    let value = column(fig, t, fig.columns.as_deref().and_then(<[String]>::first).map_or("", String::as_str))?;
    let mut labels: Vec<String> = Vec::new();
    for r in &t.rows {
        let l = cell_text(&r[piv]);
        if !labels.contains(&l) {
            labels.push(l);
        }
    }
    if let Some(wanted) = &fig.series {
        if let Some(w) = wanted.iter().find(|w| !labels.contains(w)) {
            let msg = format!(
                "figure `{}`: no `{}` value `{w}` (the table has: {})",
                fig.id,
                t.columns[piv],
                labels.join(", ")
            );
            return Err(Error::Usage(msg));
        }
        labels = wanted.clone();
    }
    let series = labels.iter().map(|l| {
        let rows = t.rows.iter().filter(|r| cell_text(&r[piv]) == *l);
        let bars = rows.map(|r| (cell_text(&r[cat]), cell_f64(&r[value]))).collect();
        series_for(fig, l, Data::Bars(bars))
    });
    Ok(series.collect())
}

fn box_chart(fig: &FigureSpec, t: &ResultTable) -> Result<Chart> {
    let cat = column(fig, t, fig.category.as_deref().unwrap_or_default())?;
    let cols = fig.boxes.as_ref().map(|b| b.iter().map(|c| column(fig, t, c)).collect::<Result<Vec<_>>>());
    let cols = cols.transpose()?.unwrap_or_default();
    let boxes = t
        .rows
        .iter()
        .map(|r| {
            let v = |k: usize| cell_f64(&r[cols[k]]);
            let stats = BoxStats { whisker_lo: v(0), q1: v(1), median: v(2), q3: v(3), whisker_hi: v(4) };
            (cell_text(&r[cat]), stats)
        })
        .collect();
    let x = axis(&fig.x, &t.columns[cat], Scale::Category);
    let mut chart = base_chart(fig, plot::Kind::Box, x, axis(&fig.y, "", Scale::Linear));
    chart.series.push(Series::new("", Data::Boxes(boxes)));
    Ok(chart)
}

fn heat_chart(fig: &FigureSpec, t: &ResultTable) -> Result<Chart> {
    let row = column(fig, t, fig.category.as_deref().unwrap_or_default())?;
    let [bin_col, value_col] = fig.heat.as_ref().map(|[b, v]| [b.as_str(), v.as_str()]).unwrap_or_default();
    let (bin, value) = (column(fig, t, bin_col)?, column(fig, t, value_col)?);
    let bins: Vec<f64> = t.rows.iter().map(|r| heat_bin(&r[bin])).collect::<Option<_>>().ok_or_else(|| {
        Error::Usage(format!("figure `{}`: column `{bin_col}` holds neither numbers nor timestamps", fig.id))
    })?;
    let origin = if matches!(t.rows.first().map(|r| &r[bin]), Some(Cell::Str(_))) {
        bins.iter().copied().fold(f64::INFINITY, f64::min)
    } else {
        0.0
    };
    let div = fig.x_div.unwrap_or(1.0);
    let mut cols: Vec<f64> = bins.iter().map(|b| (b - origin) / div).collect();
    cols.sort_by(f64::total_cmp);
    cols.dedup();
    // Rows in order of first appearance; one name lookup per table row.
    let mut rows: Vec<String> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let row_of: Vec<usize> = t
        .rows
        .iter()
        .map(|r| {
            let name = cell_text(&r[row]);
            *index.entry(name.clone()).or_insert_with(|| {
                rows.push(name);
                rows.len() - 1
            })
        })
        .collect();
    let mut values = vec![vec![f64::NAN; cols.len()]; rows.len()];
    for ((r, b), &ri) in t.rows.iter().zip(&bins).zip(&row_of) {
        let ci = cols.partition_point(|c| *c < (b - origin) / div);
        values[ri][ci] = cell_f64(&r[value]);
    }
    let x = axis(&fig.x, bin_col, Scale::Linear);
    let mut chart = base_chart(fig, plot::Kind::Heat, x, axis(&fig.y, &t.columns[row], Scale::Category));
    chart.y2 = Some(fig.y2.as_ref().map_or_else(|| Axis::linear(value_col), |a| axis(a, value_col, Scale::Linear)));
    chart.series.push(Series::new("", Data::Heat { rows, cols, values }));
    Ok(chart)
}

/// A heat-map column position: a number, or a timestamp as hours since the
/// epoch (the caller shifts it to the first bin).
fn heat_bin(c: &Cell) -> Option<f64> {
    match c {
        Cell::Int(i) => Some(*i as f64),
        Cell::Float(f) => Some(*f),
        Cell::Str(s) => {
            chrono::DateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f%:z").ok().map(|t| t.timestamp() as f64 / 3600.0)
        }
        Cell::Null => None,
    }
}

fn text_table(fig: &FigureSpec, t: &ResultTable) -> Result<TextTable> {
    let names: Vec<String> = fig.columns.clone().unwrap_or_else(|| t.columns.clone());
    let idx: Vec<usize> = names.iter().map(|n| column(fig, t, n)).collect::<Result<_>>()?;
    let rows = t.rows.iter().map(|r| idx.iter().map(|&i| cell_text(&r[i])).collect()).collect();
    Ok(TextTable { columns: names, rows })
}

fn quantile_table(fig: &FigureSpec, series: &[(String, Dist)]) -> TextTable {
    let columns = ["series", "n", "mean", "p10", "p50", "p90", "p99", "max"].map(String::from).to_vec();
    let rows = pick(fig, series)
        .unwrap_or_default()
        .into_iter()
        .map(|(label, d)| {
            let q = |p: f64| number(d.quantile(p) / fig.x_div.unwrap_or(1.0));
            let n = d.n().to_string();
            vec![label_of(fig, label), n, number(d.mean()), q(0.1), q(0.5), q(0.9), q(0.99), q(1.0)]
        })
        .collect();
    TextTable { columns, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(extra: &str) -> FigureSpec {
        let text = format!(
            "id = \"f\"\ntitle = \"t\"\nmirrors = \"m\"\nanalysis = \"helios.gpu-time-by-status\"\npart = \"p\"\n\
             kind = \"bars\"\ncaption = \"c\"\ncategory = \"status\"\ncolumns = [\"share\"]\npivot = \"trace\"\n{extra}"
        );
        toml::from_str(&text).expect("figure spec")
    }

    fn long_table() -> ResultTable {
        let row = |t: &str, s: &str, v: f64| vec![Cell::Str(t.into()), Cell::Str(s.into()), Cell::Float(v)];
        ResultTable {
            columns: vec!["trace".into(), "status".into(), "share".into()],
            rows: vec![row("A", "ok", 60.0), row("A", "bad", 40.0), row("B", "ok", 30.0), row("B", "bad", 70.0)],
        }
    }

    #[test]
    fn pivot_makes_one_series_per_value_in_order() {
        let s = pivot_series(&fig(""), &long_table(), 1, 0).unwrap();
        let labels: Vec<&str> = s.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["A", "B"]);
        assert_eq!(s[1].data, Data::Bars(vec![("ok".into(), 30.0), ("bad".into(), 70.0)]));
    }

    #[test]
    fn pivot_follows_series_and_rejects_unknown_values() {
        let s = pivot_series(&fig("series = [\"B\"]"), &long_table(), 1, 0).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].label, "B");
        assert!(pivot_series(&fig("series = [\"C\"]"), &long_table(), 1, 0).is_err());
    }
}
