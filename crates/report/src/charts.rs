//! A spec figure's chart model (`plot::Chart`) from one part of an analysis
//! output: CDF and CCDF curves, lines, bars, histograms, boxes, heat maps.
//!
//! Nothing is computed here beyond presentation, and each step is named in
//! the caption (the notes it adds): CDF points come from the distribution
//! exactly (the owners' 100*i/(n-1) convention; a sample of at most
//! [`CDF_PLOT_POINTS`] values is drawn as steps, every sample a jump), CCDF
//! points are exact shares above each plotted value, `bin` averages a curve
//! over fixed x bins, `x_div` rescales units, and no data is a gap (a
//! missing bin, NaN, or with `gaps = "outer-zeros"` the zeros an analysis
//! writes outside the trace's window), never a 0.

use std::collections::BTreeMap;

use tracelab_analysis::{Cell, ResultTable};
use tracelab_plot::{self as plot, Axis, BarMode, BoxStats, Chart, Data, Legend, Scale, Series, TickFormat};
use tracelab_present::number::report_text;
use tracelab_schema::error::{Error, Result};
use tracelab_stats::Dist;

use super::selection::{label_of, pick, pivot_labels, skip_reason, Env};
use super::spec::{AxisSpec, FigureSpec, FormatSpec, Kind, LegendSpec, ScaleSpec};
use super::tables::{cell_f64, cell_text, column};

/// Points plotted per CDF series: enough for a smooth curve at a paper
/// column's width, few enough to keep the SVG small. A sample with at most
/// this many values is drawn whole, as steps.
pub const CDF_PLOT_POINTS: usize = 400;

/// A chart, or why there is none.
pub enum Drawn {
    Chart(Box<Chart>),
    /// Every series the figure asks for belongs to a trace the report lacks.
    Skip(String),
}

fn base_chart(fig: &FigureSpec, kind: plot::Kind, x: Axis, y: Axis) -> Chart {
    let mut chart = Chart::new(kind, x, y);
    if let Some([w, h]) = fig.size {
        chart.size = (w, h);
    }
    chart.legend = legend(fig.legend);
    chart.y2 = fig.y2.as_ref().map(|a| axis(a, "", Scale::Linear));
    chart
}

fn legend(spec: LegendSpec) -> Legend {
    match spec {
        LegendSpec::Auto => Legend::Auto,
        LegendSpec::None => Legend::None,
        LegendSpec::Below => Legend::Below,
        LegendSpec::TopLeft => Legend::TopLeft,
        LegendSpec::TopRight => Legend::TopRight,
        LegendSpec::BottomLeft => Legend::BottomLeft,
        LegendSpec::BottomRight => Legend::BottomRight,
    }
}

/// A plot axis from the spec, with the analysis's label as the default.
fn axis(spec: &AxisSpec, default_label: &str, default_scale: Scale) -> Axis {
    let scale = match spec.scale {
        Some(ScaleSpec::Log) => Scale::Log,
        Some(ScaleSpec::Symlog) => Scale::Symlog { linthresh: spec.linthresh.unwrap_or(1.0) },
        Some(ScaleSpec::Linear) => Scale::Linear,
        None => default_scale,
    };
    let mut a = Axis::new(spec.label.clone().unwrap_or_else(|| default_label.to_string()), scale);
    a.min = spec.min;
    a.max = spec.max;
    a.ticks = spec.ticks.clone();
    a.tick_format = match spec.format {
        FormatSpec::Auto => TickFormat::Auto,
        FormatSpec::Percent => TickFormat::Percent,
        FormatSpec::Integer => TickFormat::Integer,
        FormatSpec::Duration => TickFormat::Duration,
        FormatSpec::Sci => TickFormat::Sci,
    };
    a
}

fn series_for(fig: &FigureSpec, label: &str, data: Data) -> Series {
    let s = Series::new(label_of(fig, label), data);
    if fig.right.iter().any(|r| r == label) {
        s.right()
    } else {
        s
    }
}

/// CDF or CCDF curves of a `dists` part.
pub fn dist_chart(
    fig: &FigureSpec,
    x_label: &str,
    series: &[(String, Dist)],
    env: &Env,
    notes: &mut Vec<String>,
) -> Result<Drawn> {
    let Some(picked) = pick(fig, series, env, notes)? else { return Ok(Drawn::Skip(skip_reason(fig, env))) };
    let ccdf = fig.kind == Kind::Ccdf;
    let (y_label, y_scale) =
        if ccdf { ("Share of samples above x (%)", Scale::Log) } else { ("CDF (%)", Scale::Linear) };
    let mut y = axis(&fig.y, y_label, y_scale);
    if !ccdf && y.min.is_none() && y.max.is_none() {
        y = y.range(0.0, 100.0);
    }
    let mut chart = base_chart(fig, plot::Kind::Line, axis(&fig.x, x_label, Scale::Linear), y);
    let div = fig.x_div.unwrap_or(1.0);
    let mut stepped = false;
    for (label, d) in picked {
        let pts = if ccdf { ccdf_points(d) } else { d.cdf_curve(CDF_PLOT_POINTS) };
        let pts = pts.into_iter().map(|(x, y)| (x / div, y)).collect();
        let mut s = series_for(fig, label, Data::Points(pts));
        // A small sample is drawn whole and as steps: joining its few
        // points by straight lines would invent values between samples.
        if !ccdf && d.n() > 1 && d.n() <= CDF_PLOT_POINTS as u64 {
            s = s.steps();
            stepped = true;
        }
        chart.series.push(s);
    }
    if stepped {
        notes.push(format!(
            "Series of at most {CDF_PLOT_POINTS} samples are drawn as steps (each sample a jump), larger ones as \
             lines through {CDF_PLOT_POINTS} evenly spaced ranks."
        ));
    }
    Ok(Drawn::Chart(Box::new(chart)))
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

/// Lines, steps or markers of a `curves` part.
pub fn curve_chart(
    fig: &FigureSpec,
    (x_label, y_label): (&str, &str),
    series: &[(String, Vec<(f64, f64)>)],
    env: &Env,
    notes: &mut Vec<String>,
) -> Result<Drawn> {
    let Some(picked) = pick(fig, series, env, notes)? else { return Ok(Drawn::Skip(skip_reason(fig, env))) };
    let kind = match fig.kind {
        Kind::Steps => plot::Kind::Step,
        Kind::Scatter => plot::Kind::Scatter,
        _ => plot::Kind::Line,
    };
    let x = axis(&fig.x, x_label, Scale::Linear);
    let mut chart = base_chart(fig, kind, x, axis(&fig.y, y_label, Scale::Linear));
    let div = fig.x_div.unwrap_or(1.0);
    let (mut binned_gaps, mut outer) = (false, false);
    for (label, pts) in picked {
        let mut pts = match fig.bin {
            Some(w) => {
                let b = bin_means(pts, w);
                binned_gaps |= b.iter().any(|p| p.1.is_nan());
                b
            }
            None => pts.clone(),
        };
        if fig.gaps.is_some() {
            outer |= outer_zeros_to_gaps(pts.iter_mut().map(|p| &mut p.1));
        }
        let pts = pts.into_iter().map(|(x, y)| (x / div, y)).collect();
        chart.series.push(series_for(fig, label, Data::Points(pts)));
    }
    if binned_gaps {
        notes.push("Bins without data are gaps in the line.".into());
    }
    if outer {
        notes.push(OUTER_ZEROS_NOTE.into());
    }
    Ok(Drawn::Chart(Box::new(chart)))
}

const OUTER_ZEROS_NOTE: &str = "Zeros before a series' first and after its last value are no data (the analysis \
     reports 0 outside the trace's window) and are drawn as gaps.";

/// Mean y per x bin [k*w, (k+1)*w), placed at the bin start; NaN y skipped.
/// Where bins between the first and the last have no points, a NaN point
/// (a gap) stands between their neighbours, so the line breaks instead of
/// joining across the missing bins.
pub fn bin_means(pts: &[(f64, f64)], w: f64) -> Vec<(f64, f64)> {
    let mut bins: BTreeMap<i64, (f64, u64)> = BTreeMap::new();
    for &(x, y) in pts.iter().filter(|p| p.0.is_finite() && p.1.is_finite()) {
        let e = bins.entry((x / w).floor() as i64).or_insert((0.0, 0));
        e.0 += y;
        e.1 += 1;
    }
    let mut out = Vec::with_capacity(bins.len());
    let mut last: Option<i64> = None;
    for (k, (sum, n)) in bins {
        if last.is_some_and(|l| k > l + 1) {
            out.push(((last.unwrap_or(k) + 1) as f64 * w, f64::NAN));
        }
        out.push((k as f64 * w, sum / n as f64));
        last = Some(k);
    }
    out
}

/// Sets the zeros before the first and after the last non-zero value to NaN
/// (no data); true when it changed any. An all-zero series is all no data.
pub fn outer_zeros_to_gaps<'a>(values: impl Iterator<Item = &'a mut f64>) -> bool {
    let mut v: Vec<&mut f64> = values.collect();
    let first = v.iter().position(|y| **y != 0.0 && !y.is_nan()).unwrap_or(v.len());
    let last = v.iter().rposition(|y| **y != 0.0 && !y.is_nan()).map_or(0, |i| i + 1);
    let mut changed = false;
    for (i, y) in v.iter_mut().enumerate() {
        if (i < first || i >= last.max(first)) && **y == 0.0 {
            **y = f64::NAN;
            changed = true;
        }
    }
    changed
}

/// Bars of a `table` part: `category` x `columns`, or one series per value
/// of the `pivot` column.
pub fn bar_chart(fig: &FigureSpec, t: &ResultTable, env: &Env, notes: &mut Vec<String>) -> Result<Drawn> {
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
        match pivot_series(fig, t, cat, column(fig, t, p)?, env, notes)? {
            Some(series) => chart.series = series,
            None => return Ok(Drawn::Skip(skip_reason(fig, env))),
        }
    } else {
        for name in fig.columns.as_deref().unwrap_or_default() {
            let i = column(fig, t, name)?;
            let bars = t.rows.iter().map(|r| (cell_text(&r[cat]), cell_f64(&r[i]))).collect();
            chart.series.push(series_for(fig, name, Data::Bars(bars)));
        }
    }
    if fig.gaps.is_some() {
        let mut changed = false;
        for s in &mut chart.series {
            if let Data::Bars(b) = &mut s.data {
                changed |= outer_zeros_to_gaps(b.iter_mut().map(|(_, v)| v));
            }
        }
        if changed {
            notes.push(OUTER_ZEROS_NOTE.replace("drawn as gaps", "drawn without a bar"));
        }
    }
    Ok(Drawn::Chart(Box::new(chart)))
}

/// Bars of a long table (e.g. trace, status, share): one series per value
/// of the `pivot` column, plotting the one `columns` entry by category.
/// None when every value the spec asks for belongs to an absent trace.
pub fn pivot_series(
    fig: &FigureSpec,
    t: &ResultTable,
    cat: usize,
    piv: usize,
    env: &Env,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<Series>>> {
    let value = column(fig, t, fig.columns.as_deref().and_then(<[String]>::first).map_or("", String::as_str))?;
    let mut labels: Vec<String> = Vec::new();
    for r in &t.rows {
        let l = cell_text(&r[piv]);
        if !labels.contains(&l) {
            labels.push(l);
        }
    }
    let Some(labels) = pivot_labels(fig, &t.columns[piv], labels, env, notes)? else { return Ok(None) };
    let series = labels.iter().map(|l| {
        let rows = t.rows.iter().filter(|r| cell_text(&r[piv]) == *l);
        let bars = rows.map(|r| (cell_text(&r[cat]), cell_f64(&r[value]))).collect();
        series_for(fig, l, Data::Bars(bars))
    });
    Ok(Some(series.collect()))
}

/// A histogram of a `table` part: each row a bin from `bins[0]` to
/// `bins[1]`, one series per `columns` entry, on a numeric x axis whose
/// ticks are round whatever the bin edges are.
pub fn histogram_chart(fig: &FigureSpec, t: &ResultTable) -> Result<Drawn> {
    let [lo_col, hi_col] = fig.bins.as_ref().map(|[a, b]| [a.as_str(), b.as_str()]).unwrap_or_default();
    let (lo, hi) = (column(fig, t, lo_col)?, column(fig, t, hi_col)?);
    let x = axis(&fig.x, lo_col, Scale::Linear);
    let mut chart = base_chart(fig, plot::Kind::Histogram, x, axis(&fig.y, "", Scale::Linear));
    let div = fig.x_div.unwrap_or(1.0);
    for name in fig.columns.as_deref().unwrap_or_default() {
        let v = column(fig, t, name)?;
        let bins = t.rows.iter().map(|r| (cell_f64(&r[lo]) / div, cell_f64(&r[hi]) / div, cell_f64(&r[v]))).collect();
        chart.series.push(series_for(fig, name, Data::Bins(bins)));
    }
    Ok(Drawn::Chart(Box::new(chart)))
}

/// Box plots of a `table` part (`category`, `boxes`).
pub fn box_chart(fig: &FigureSpec, t: &ResultTable) -> Result<Drawn> {
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
    Ok(Drawn::Chart(Box::new(chart)))
}

/// A heat map of a `table` part (`category` rows x `heat` columns).
pub fn heat_chart(fig: &FigureSpec, t: &ResultTable) -> Result<Drawn> {
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
    Ok(Drawn::Chart(Box::new(chart)))
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

/// "Drawn as the mean over x bins of width 60." and the like: what the
/// spec's presentation fields do to the numbers.
pub fn static_notes(f: &FigureSpec) -> Vec<String> {
    let mut n = Vec::new();
    match f.kind {
        Kind::Cdf => n.push("CDF as the owners draw it: the i-th of n sorted samples at 100·i/(n-1) %.".to_string()),
        Kind::Ccdf => {
            n.push("CCDF: the exact share of samples above x; the largest sample is off the log axis.".into())
        }
        _ => {}
    }
    if let Some(w) = f.bin {
        n.push(format!("Drawn as the mean over x bins of width {}.", report_text(w)));
    }
    if let Some(d) = f.x_div {
        n.push(format!("x divided by {} for display.", report_text(d)));
    }
    n
}
