//! The report's numbers: headline rows (ours beside the published value and
//! the difference), `summary.md` and `summary.json`. Numbers in the summary
//! files are rounded to six significant digits so that the files diff
//! cleanly and stay byte-identical where the last float bits of an engine
//! sum could differ.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use tracelab_analysis::Headline;

use super::figure::{Rendered, TextTable};
use super::format::{md_cell, number};
use super::{FigureReport, SpecReport};

/// One headline number of one analysis run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeadlineRow {
    pub analysis: String,
    pub key: String,
    pub label: String,
    /// None when the analysis had no value (NaN).
    pub value: Option<f64>,
    pub unit: String,
    pub published: Option<f64>,
    pub source: String,
}

impl HeadlineRow {
    pub fn new(analysis: &str, h: &Headline) -> HeadlineRow {
        HeadlineRow {
            analysis: analysis.into(),
            key: h.key.clone(),
            label: h.label.clone(),
            value: Some(h.value).filter(|v| v.is_finite()),
            unit: h.unit.clone(),
            published: h.published.filter(|v| v.is_finite()),
            source: h.source.clone(),
        }
    }

    /// ours - published, and the relative difference, as text.
    pub fn difference(&self) -> String {
        match (self.value, self.published) {
            (Some(v), Some(p)) if p != 0.0 => format!("{} ({:+.1} %)", signed(v - p), 100.0 * (v - p) / p.abs()),
            (Some(v), Some(p)) => signed(v - p),
            _ => String::new(),
        }
    }
}

fn signed(x: f64) -> String {
    if x > 0.0 {
        format!("+{}", number(x))
    } else {
        number(x)
    }
}

fn opt(x: Option<f64>) -> String {
    x.map(number).unwrap_or_default()
}

/// A headlines part as a table: ours, published, difference.
pub fn headline_table(headlines: &[Headline]) -> TextTable {
    rows_table(&headlines.iter().map(|h| HeadlineRow::new("", h)).collect::<Vec<_>>(), false)
}

/// Headline rows as a table, with the analysis id when `with_analysis`.
pub fn rows_table(rows: &[HeadlineRow], with_analysis: bool) -> TextTable {
    let mut columns: Vec<String> =
        ["headline", "ours", "published", "ours - published", "unit", "published in"].map(String::from).to_vec();
    if with_analysis {
        columns.insert(0, "analysis".into());
    }
    let rows = rows
        .iter()
        .map(|r| {
            let mut row =
                vec![r.label.clone(), opt(r.value), opt(r.published), r.difference(), r.unit.clone(), r.source.clone()];
            if with_analysis {
                row.insert(0, r.analysis.clone());
            }
            row
        })
        .collect();
    TextTable { columns, rows }
}

/// Six significant digits, as a JSON number (null for None).
fn rounded(x: Option<f64>) -> Value {
    match x {
        Some(v) if v.is_finite() => format!("{v:.5e}").parse::<f64>().map_or(Value::Null, |r| json!(r)),
        _ => Value::Null,
    }
}

/// `summary.json`: every spec's figures and headline numbers, and the
/// inputs (the ingest manifests).
pub fn json(specs: &[SpecReport], inputs: &[(String, Value)], version: &str) -> String {
    let specs: Vec<Value> = specs.iter().map(spec_json).collect();
    let inputs: Vec<Value> = inputs.iter().map(|(t, m)| json!({ "trace": t, "manifest": m })).collect();
    let v = json!({ "tracelab_version": version, "specs": specs, "inputs": inputs });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

fn spec_json(s: &SpecReport) -> Value {
    let figures: Vec<Value> = s.figures.iter().map(figure_json).collect();
    let headlines: Vec<Value> = s
        .headlines
        .iter()
        .map(|h| {
            json!({ "analysis": h.analysis, "key": h.key, "label": h.label, "value": rounded(h.value),
                    "unit": h.unit, "published": rounded(h.published), "source": h.source })
        })
        .collect();
    json!({ "id": s.spec.body.id, "title": s.spec.body.title, "spec": s.spec.path.display().to_string(),
            "sha256": s.spec.sha256, "skipped": s.skipped, "figures": figures, "headlines": headlines })
}

fn figure_json(f: &FigureReport) -> Value {
    let params: serde_json::Map<String, Value> =
        f.params.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    json!({ "id": f.id, "title": f.title, "mirrors": f.mirrors, "analysis": f.analysis, "params": params,
            "part": f.part, "file": f.file })
}

/// `summary.md`: the same numbers for people reading a diff.
pub fn markdown(specs: &[SpecReport], version: &str) -> String {
    let mut md = format!("# tracelab report\n\ntracelab {version}. Numbers rounded to four significant digits.\n");
    for s in specs {
        md.push_str(&format!("\n## {}\n\n", s.spec.body.title));
        if let Some(why) = &s.skipped {
            md.push_str(&format!("Skipped: {why}\n"));
            continue;
        }
        md.push_str(&format!("Spec `{}` (sha256 {}).\n\n", s.spec.path.display(), &s.spec.sha256[..16]));
        md.push_str(&md_table(&rows_table(&s.headlines, true)));
        md.push_str("\n### Figures\n\n");
        for f in &s.figures {
            let what = match &f.rendered {
                Rendered::Svg(_) => format!("[{}]({})", md_cell(&f.title), f.file.clone().unwrap_or_default()),
                Rendered::Table(_) => md_cell(&f.title),
            };
            md.push_str(&format!("- {what}: {} (`{}`, part `{}`)\n", md_cell(&f.mirrors), f.analysis, f.part));
        }
    }
    md
}

pub fn md_table(t: &TextTable) -> String {
    let mut md = format!("| {} |\n", t.columns.iter().map(|c| md_cell(c)).collect::<Vec<_>>().join(" | "));
    md.push_str(&format!("|{}\n", " --- |".repeat(t.columns.len())));
    for r in &t.rows {
        md.push_str(&format!("| {} |\n", r.iter().map(|c| md_cell(c)).collect::<Vec<_>>().join(" | ")));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_signed_and_relative() {
        let h = Headline::new("k", "share", 31.6, "%").published(30.0, "ATC'19");
        let r = HeadlineRow::new("philly.x", &h);
        // 31.6 - 30 = 1.6; 1.6 / 30 = 5.33 %.
        assert_eq!(r.difference(), "+1.6 (+5.3 %)");
        let none = HeadlineRow::new("a", &Headline::new("k", "l", f64::NAN, ""));
        assert_eq!((none.value, none.difference()), (None, String::new()));
    }

    #[test]
    fn json_numbers_have_six_significant_digits() {
        assert_eq!(rounded(Some(2.0 / 3.0)), json!(0.666667));
        assert_eq!(rounded(Some(13709.44)), json!(13709.4));
        assert_eq!(rounded(Some(f64::NAN)), Value::Null);
    }
}
