//! One spec figure from one analysis output: picks the part and the series
//! the spec names, leaves out (with a note) the series of traces this
//! report lacks, builds the chart (`charts`) or table (`tables`), and
//! renders the SVG (with its `<title>` and `<desc>`) and the CSV of the
//! plotted points.
//!
//! A series the spec names that the part does not hold is an error (the
//! spec is wrong) unless it names a trace the report lacks (`helios/Venus`
//! without Helios): then it is left out, and a figure left with nothing is
//! skipped, each with a note for the caption and the run's stderr.

use serde::{Deserialize, Serialize};

use tracelab_analysis::{Body, Output};
use tracelab_plot::About;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::synthetic::Marker;
use tracelab_schema::Trace;

use super::charts::{self, Drawn};
use super::csv::chart_csv;
use super::spec::{FigureSpec, Kind};
use super::tables::{self, filter_rows, TextTable};

/// What a figure renders to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Rendered {
    Svg(String),
    Table(TextTable),
    /// Nothing to draw: why (the traces it needs are absent).
    Skipped(String),
}

/// A rendered figure with its data and the notes for its caption.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FigureOut {
    pub rendered: Rendered,
    /// The plotted points (charts only).
    pub csv: Option<String>,
    /// Presentation steps and left-out series, for the caption.
    pub notes: Vec<String>,
}

/// What a figure may draw and what it says about its data.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// The traces this report has.
    pub present: Vec<Trace>,
    /// What it lacks, by name (traces, and Helios clusters a Helios
    /// download may leave out), each with why ("not in the store").
    pub missing: Vec<(String, String)>,
    /// Where the figure's data comes from (for `<desc>`).
    pub source: String,
    /// The analysis's definition and parameters (for `<desc>`).
    pub definition: String,
    /// The synthetic traces' markers (how headline tables judge).
    pub markers: Vec<Marker>,
}

impl Env {
    /// The missing trace or cluster a series label names, if any: a trace
    /// (`philly`, `helios/Venus`, `Philly`) the report lacks, or a Helios
    /// cluster (`helios/Venus`, `Venus multi-GPU`) its Helios data lacks.
    pub fn absent(&self, label: &str) -> Option<&str> {
        if let Some(t) = trace_of_label(label).filter(|t| !self.present.contains(t)) {
            return self.missing.iter().find(|(m, _)| m == t.name()).map(|(m, _)| m.as_str()).or(Some(t.name()));
        }
        let words: Vec<&str> = label.split(['/', ' ']).take(2).collect();
        self.missing.iter().map(|(m, _)| m.as_str()).find(|m| words.contains(m))
    }

    fn why_missing(&self, name: &str) -> String {
        let why = self.missing.iter().find(|(m, _)| m == name).map_or("not in the store", |(_, w)| w.as_str());
        format!("{name} ({why})")
    }
}

/// Renders `fig` from `out`. Errors name the figure and what is wrong.
pub fn render(fig: &FigureSpec, out: &Output, env: &Env) -> Result<FigureOut> {
    let mut notes = charts::static_notes(fig);
    let built = build(fig, out, env, &mut notes)?;
    let (rendered, csv) = match built {
        Built::Table(t) => (Rendered::Table(t), None),
        Built::Skip(why) => (Rendered::Skipped(why), None),
        Built::Chart(mut c) => {
            c.about = Some(about(fig, &notes, env));
            let svg = tracelab_plot::render(&c)
                .map_err(|e| Error::Usage(format!("figure `{}`: drawing failed: {e}", fig.id)))?;
            (Rendered::Svg(svg), Some(chart_csv(&c)))
        }
    };
    Ok(FigureOut { rendered, csv, notes })
}

/// A figure before drawing: the chart model, a table, or nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum Built {
    Chart(Box<tracelab_plot::Chart>),
    Table(TextTable),
    Skip(String),
}

impl From<Drawn> for Built {
    fn from(d: Drawn) -> Built {
        match d {
            Drawn::Chart(c) => Built::Chart(c),
            Drawn::Skip(why) => Built::Skip(why),
        }
    }
}

/// The chart or table `fig` asks for, from the named part of `out`.
pub fn build(fig: &FigureSpec, out: &Output, env: &Env, notes: &mut Vec<String>) -> Result<Built> {
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
    if let Body::Table(t) = &part.body {
        if filter_rows(fig, t)?.rows.is_empty() && fig.rows.values().any(|v| env.absent(v).is_some()) {
            return Ok(Built::Skip(skip_reason(fig, env)));
        }
    }
    let drawn = match (fig.kind, &part.body) {
        (Kind::Cdf | Kind::Ccdf, Body::Dists { x_label, series }) => {
            charts::dist_chart(fig, x_label, series, env, notes)
        }
        (Kind::Lines | Kind::Steps | Kind::Scatter, Body::Curves { x_label, y_label, series }) => {
            charts::curve_chart(fig, (x_label, y_label), series, env, notes)
        }
        (Kind::Bars | Kind::Hbars | Kind::Stacked | Kind::StackedColumns, Body::Table(t)) => {
            charts::bar_chart(fig, &filter_rows(fig, t)?, env, notes)
        }
        (Kind::Histogram, Body::Table(t)) => charts::histogram_chart(fig, &filter_rows(fig, t)?),
        (Kind::Box, Body::Table(t)) => charts::box_chart(fig, &filter_rows(fig, t)?),
        (Kind::Heat, Body::Table(t)) => charts::heat_chart(fig, &filter_rows(fig, t)?),
        (Kind::Table, Body::Table(t)) => return Ok(Built::Table(tables::text_table(fig, &filter_rows(fig, t)?)?)),
        (Kind::Quantiles, Body::Dists { series, .. }) => {
            return Ok(match tables::quantile_table(fig, series, env, notes)? {
                Some(t) => Built::Table(t),
                None => Built::Skip(skip_reason(fig, env)),
            })
        }
        (Kind::Headlines, Body::Headlines(h)) => {
            return Ok(Built::Table(super::summary::headline_table(h, &env.markers, &out.id)))
        }
        (_, body) => return Err(problem(&format!("is a {}, which this kind cannot draw", body_kind(body)))),
    };
    drawn.map(Built::from)
}

fn body_kind(body: &Body) -> &'static str {
    match body {
        Body::Dists { .. } => "dists part",
        Body::Curves { .. } => "curves part",
        Body::Table(_) => "table part",
        Body::Headlines(_) => "headlines part",
    }
}

/// The trace a series label names, if any: its part before a `/`, in any
/// case (`pai`, `philly`, `helios/Venus`, `Philly`).
pub fn trace_of_label(label: &str) -> Option<Trace> {
    Trace::from_name(&label.split('/').next().unwrap_or(label).to_ascii_lowercase())
}

/// The series the figure asks for, in its order (all when unspecified).
/// A named series the part lacks is an error unless it names an absent
/// trace: then it is left out with a note. None: every series it names is
/// left out, so the figure is skipped (see [`skip_reason`]).
pub fn pick<'a, T>(
    fig: &FigureSpec,
    series: &'a [(String, T)],
    env: &Env,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<&'a (String, T)>>> {
    let Some(wanted) = fig.series.as_ref().map(|s| s.get_ref()) else {
        return Ok(Some(series.iter().collect()));
    };
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for w in wanted {
        match series.iter().find(|(l, _)| l == w) {
            Some(s) => kept.push(s),
            None if env.absent(w).is_some() => left_out.push(w.clone()),
            None => {
                let have: Vec<&str> = series.iter().map(|(l, _)| l.as_str()).collect();
                return Err(Error::Usage(format!(
                    "figure `{}`: no series `{w}` (the part has: {})",
                    fig.id,
                    have.join(", ")
                )));
            }
        }
    }
    Ok(left_out_or_skip(fig, env, kept, &left_out, notes))
}

/// `kept` with a note naming what was left out, or None (skip the figure)
/// when everything was.
fn left_out_or_skip<X>(
    fig: &FigureSpec,
    env: &Env,
    kept: Vec<X>,
    left_out: &[String],
    notes: &mut Vec<String>,
) -> Option<Vec<X>> {
    if kept.is_empty() && !left_out.is_empty() {
        return None;
    }
    if !left_out.is_empty() {
        let names: Vec<String> = left_out.iter().map(|l| label_of(fig, l)).collect();
        notes.push(format!("Left out: {}; the report lacks {}.", names.join(", "), missing_traces(left_out, env)));
    }
    Some(kept)
}

/// "philly (not in the store), helios (left out by --only)" for these labels.
fn missing_traces(labels: &[String], env: &Env) -> String {
    let mut names: Vec<&str> = Vec::new();
    for n in labels.iter().filter_map(|l| env.absent(l)) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names.into_iter().map(|n| env.why_missing(n)).collect::<Vec<_>>().join(", ")
}

/// Why a figure has nothing to draw: the traces (or clusters) its series
/// or row filter name.
pub fn skip_reason(fig: &FigureSpec, env: &Env) -> String {
    let mut labels = fig.series.as_ref().map(|s| s.get_ref().clone()).unwrap_or_default();
    labels.extend(fig.rows.values().cloned());
    format!("it draws only data this report lacks: {}", missing_traces(&labels, env))
}

/// The pivot values to draw as series (`series` filters and orders them,
/// with the same rules as [`pick`]); None when none is left.
pub fn pivot_labels(
    fig: &FigureSpec,
    column: &str,
    labels: Vec<String>,
    env: &Env,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<String>>> {
    let Some(wanted) = fig.series.as_ref().map(|s| s.get_ref()) else { return Ok(Some(labels)) };
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for w in wanted {
        if labels.contains(w) {
            kept.push(w.clone());
        } else if env.absent(w).is_some() {
            left_out.push(w.clone());
        } else {
            let msg = format!("figure `{}`: no `{column}` value `{w}` (the table has: {})", fig.id, labels.join(", "));
            return Err(Error::Usage(msg));
        }
    }
    Ok(left_out_or_skip(fig, env, kept, &left_out, notes))
}

/// The legend text of a series label (the spec's `rename`).
pub fn label_of(fig: &FigureSpec, label: &str) -> String {
    fig.rename.get(label).cloned().unwrap_or_else(|| label.to_string())
}

/// The SVG's `<title>` and `<desc>`: what the figure mirrors and shows, the
/// definition and parameters, the data it was drawn from.
fn about(fig: &FigureSpec, notes: &[String], env: &Env) -> About {
    let mut desc = format!("{}. {}", fig.mirrors, fig.caption);
    for n in notes {
        desc.push(' ');
        desc.push_str(n);
    }
    desc.push_str(&format!(" Definition: {} Data: {}. Plotted points: {}.csv.", env.definition, env.source, fig.id));
    About { title: fig.title.clone(), desc }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracelab_analysis::{Cell, ResultTable};
    use tracelab_plot::Data;

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

    fn all() -> Env {
        Env { present: Trace::ALL.to_vec(), ..Env::default() }
    }

    #[test]
    fn labels_naming_missing_traces_or_clusters_are_absent() {
        let env = Env {
            present: vec![Trace::Pai, Trace::Helios],
            missing: vec![
                ("philly".into(), "not in the store".into()),
                ("Venus".into(), "not in the Helios data".into()),
            ],
            ..Env::default()
        };
        assert_eq!(env.absent("Philly"), Some("philly"));
        assert_eq!(env.absent("helios/Venus"), Some("Venus"));
        assert_eq!(env.absent("Venus multi-GPU"), Some("Venus"));
        assert_eq!(env.absent("helios/Earth"), None);
        assert_eq!(env.absent("Venuss multi-GPU"), None);
        assert_eq!(env.absent("pai"), None);
    }

    fn pivot(extra: &str, env: &Env) -> Result<Option<Vec<tracelab_plot::Series>>> {
        charts::pivot_series(&fig(extra), &long_table(), 1, 0, env, &mut Vec::new())
    }

    #[test]
    fn pivot_makes_one_series_per_value_in_order() {
        let s = pivot("", &all()).unwrap().unwrap();
        let labels: Vec<&str> = s.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["A", "B"]);
        assert_eq!(s[1].data, Data::Bars(vec![("ok".into(), 30.0), ("bad".into(), 70.0)]));
    }

    #[test]
    fn pivot_follows_series_and_rejects_unknown_values() {
        let s = pivot("series = [\"B\"]", &all()).unwrap().unwrap();
        assert_eq!((s.len(), s[0].label.as_str()), (1, "B"));
        assert!(pivot("series = [\"C\"]", &all()).is_err());
    }

    #[test]
    fn a_pivot_value_naming_an_absent_trace_is_left_out_and_a_misspelling_is_not() {
        let pai_only = Env {
            present: vec![Trace::Pai],
            missing: vec![("philly".into(), "left out by --only".into())],
            ..Env::default()
        };
        let mut notes = Vec::new();
        let s = charts::pivot_series(&fig("series = [\"A\", \"Philly\"]"), &long_table(), 1, 0, &pai_only, &mut notes);
        assert_eq!(s.unwrap().unwrap().len(), 1);
        assert_eq!(notes, ["Left out: Philly; the report lacks philly (left out by --only)."]);
        assert!(pivot("series = [\"Phily\"]", &pai_only).is_err());
        assert_eq!(pivot("series = [\"Philly\"]", &pai_only).unwrap(), None);
    }

    #[test]
    fn series_labels_name_their_trace() {
        assert_eq!(trace_of_label("helios/Venus"), Some(Trace::Helios));
        assert_eq!(trace_of_label("Philly"), Some(Trace::Philly));
        assert_eq!(trace_of_label("pai"), Some(Trace::Pai));
        assert_eq!(trace_of_label("V100"), None);
        assert_eq!(trace_of_label("phily"), None);
    }
}
