//! One spec figure from one analysis output: picks the part the spec names,
//! builds the chart (`charts`), table (`tables`, `headline_tables`) or skip
//! (the series it keeps are chosen by `selection`), and renders the SVG
//! (with its `<title>` and `<desc>`) and the CSV of the plotted points.

use serde::{Deserialize, Serialize};

use tracelab_analysis::{Body, Output};
use tracelab_plot::About;
use tracelab_schema::error::{Error, Result};

use super::charts::{self, Drawn};
use super::csv::chart_csv;
use super::headline_tables::headline_table;
use super::selection::{skip_reason, Env};
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
        (Kind::Headlines, Body::Headlines(h)) => return Ok(Built::Table(headline_table(h, &env.markers, &out.id))),
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
    use tracelab_schema::Trace;

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
}
