//! Which series and rows a figure draws, given the traces the report has:
//! the [`Env`] a figure is drawn in, the spec's `series` choice and order
//! ([`pick`], [`pivot_labels`]), the legend names (`rename`), and the notes
//! for what is left out. A series the spec names that the data lacks is an
//! error (the spec is wrong) unless it names a trace or Helios cluster the
//! report lacks: then it is left out with a note, and a figure left with
//! nothing is skipped ([`skip_reason`]). Charts and tables both use this,
//! so it sits below them.

use tracelab_schema::error::{Error, Result};
use tracelab_schema::synthetic::Marker;
use tracelab_schema::Trace;

use super::spec::FigureSpec;

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
    let Some(wanted) = fig.series.as_ref().map(toml::Spanned::get_ref) else {
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
    let Some(wanted) = fig.series.as_ref().map(toml::Spanned::get_ref) else { return Ok(Some(labels)) };
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn series_labels_name_their_trace() {
        assert_eq!(trace_of_label("helios/Venus"), Some(Trace::Helios));
        assert_eq!(trace_of_label("Philly"), Some(Trace::Philly));
        assert_eq!(trace_of_label("pai"), Some(Trace::Pai));
        assert_eq!(trace_of_label("V100"), None);
        assert_eq!(trace_of_label("phily"), None);
    }
}
