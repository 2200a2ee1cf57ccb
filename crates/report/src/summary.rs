//! The report's summaries for diffs and machines: `summary.md` and
//! `summary.json`, each listing the data, every spec's figures and its
//! headline numbers (from `headline_tables`) with their verdicts. Numbers
//! in `summary.json` are rounded to six significant digits so that the file
//! diffs cleanly and stays byte-identical where the last float bits of an
//! engine sum could differ.

use serde_json::{json, Value};

use tracelab_present::markdown::{cell as md_cell, render as md_render};
use tracelab_present::number::{report_json, REPORT_DIGITS};
use tracelab_present::{Column, Table};

use tracelab_schema::synthetic::Marker;

use super::calibration::{judge, TOLERANCE_RULE};
use super::figure::Rendered;
use super::headline::HeadlineRow;
use super::headline_tables::{by_analysis, judged_table};
use super::inputs::markers;
use super::tables::TextTable;
use super::{Data, FigureReport, SpecReport};

/// `summary.json`: what the data is, every spec's figures and headline
/// numbers (with their verdicts), and the inputs (the ingest manifests).
pub fn json(specs: &[SpecReport], data: &Data, version: &str) -> String {
    let markers = markers(&data.traces);
    let specs: Vec<Value> = specs.iter().map(|s| spec_json(s, &markers)).collect();
    let traces: Vec<Value> = data
        .traces
        .iter()
        .map(|d| {
            let rows: serde_json::Map<String, Value> = d.tables.iter().map(|(t, n)| (t.clone(), json!(n))).collect();
            json!({ "trace": d.trace.name(), "origin": d.origin(), "synthetic": d.marker.is_some(),
                    "scale": d.marker.as_ref().map(|m| m.scale), "seed": d.marker.as_ref().map(|m| m.seed),
                    "real_files": d.real_files(), "rows": rows, "rejected": d.rejected })
        })
        .collect();
    let traces_missing = data.missing.iter().map(|(t, why)| json!({ "trace": t.name(), "why": why }));
    let clusters = data.missing_clusters.iter().map(|(c, why)| json!({ "trace": "helios", "cluster": c, "why": why }));
    let missing: Vec<Value> = traces_missing.chain(clusters).collect();
    let inputs: Vec<Value> = data.manifests.iter().map(|(t, m)| json!({ "trace": t, "manifest": m })).collect();
    let v = json!({ "tracelab_version": version, "data": traces, "missing": missing, "tolerance": TOLERANCE_RULE,
                    "specs": specs, "inputs": inputs });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

fn spec_json(s: &SpecReport, markers: &[Marker]) -> Value {
    let figures: Vec<Value> = s.figures.iter().map(figure_json).collect();
    let headlines: Vec<Value> = s
        .headlines
        .iter()
        .map(|h| {
            let j = judge(h, markers);
            json!({ "analysis": h.analysis, "key": h.key, "label": h.label, "value": report_json(h.value),
                    "unit": h.unit, "published": report_json(h.published), "source": h.source,
                    "compared_with": report_json(j.reference.filter(|_| h.published.is_some())),
                    "verdict": j.verdict_name() })
        })
        .collect();
    json!({ "id": s.spec.body.id, "title": s.spec.body.title, "spec": s.spec.path.display().to_string(),
            "sha256": s.spec.sha256, "skipped": s.skipped, "notes": s.notes, "figures": figures,
            "headlines": headlines })
}

fn figure_json(f: &FigureReport) -> Value {
    let params: serde_json::Map<String, Value> =
        f.params.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    let skipped = match &f.rendered {
        Rendered::Skipped(why) => Some(why.as_str()),
        _ => None,
    };
    json!({ "id": f.id, "title": f.title, "mirrors": f.mirrors, "analysis": f.analysis, "params": params,
            "part": f.part, "file": f.file, "csv": f.csv.as_ref().map(|c| &c.0), "notes": f.notes,
            "skipped": skipped, "calibrated": f.calibrated })
}

/// `summary.md`: the same for people reading a diff.
pub fn markdown(specs: &[SpecReport], data: &Data, version: &str) -> String {
    let mut md = format!("# tracelab report\n\ntracelab {version}. Numbers rounded to four significant digits.\n");
    md.push_str("\n## What this report is made from\n\n");
    for d in &data.traces {
        md.push_str(&format!("- {}: {}; rows: {}", d.trace.name(), md_cell(&d.origin()), md_cell(&d.rows_text())));
        if !d.real_files().is_empty() {
            md.push_str(&format!("; real files: {}", md_cell(&d.real_files().join(", "))));
        }
        md.push('\n');
    }
    for (t, why) in &data.missing {
        md.push_str(&format!("- {}: {why}\n", t.name()));
    }
    for (c, why) in &data.missing_clusters {
        md.push_str(&format!("- Helios {c}: {why}\n"));
    }
    md.push_str(&format!("\n{}\n", md_cell(TOLERANCE_RULE)));
    let markers = markers(&data.traces);
    for s in specs {
        md.push_str(&spec_markdown(s, &markers));
    }
    md
}

fn spec_markdown(s: &SpecReport, markers: &[Marker]) -> String {
    let mut md = format!("\n## {}\n\n", md_cell(&s.spec.body.title));
    if let Some(why) = &s.skipped {
        md.push_str(&format!("Skipped: {}\n", md_cell(why)));
        return md;
    }
    md.push_str(&format!("Spec `{}` (sha256 {}).\n\n", s.spec.path.display(), &s.spec.sha256[..16]));
    for n in &s.notes {
        md.push_str(&format!("{}\n\n", md_cell(n)));
    }
    md.push_str("### Figures\n\n");
    for f in &s.figures {
        let what = match (&f.rendered, &f.file) {
            (Rendered::Svg(_), Some(file)) => format!("[{}]({file})", md_cell(&f.title)),
            (Rendered::Skipped(why), _) => format!("{} (not drawn: {})", md_cell(&f.title), md_cell(why)),
            _ => md_cell(&f.title),
        };
        let csv = f.csv.as_ref().map_or(String::new(), |(p, _)| format!(", [csv]({p})"));
        let tag = if f.calibrated { "" } else { " (not calibrated: synthetic)" };
        md.push_str(&format!("- {what}{tag}: {} (`{}`, part `{}`{csv})\n", md_cell(&f.mirrors), f.analysis, f.part));
    }
    let with: Vec<HeadlineRow> = s.headlines.iter().filter(|r| r.published.is_some()).cloned().collect();
    if !with.is_empty() {
        md.push_str("\n### Headline numbers beside the published values\n");
    }
    for (analysis, rows) in by_analysis(&with) {
        md.push_str(&format!("\n`{analysis}`\n\n"));
        md.push_str(&md_table(&judged_table(&rows, markers)));
    }
    md
}

/// A text table as a Markdown table (the cells are already text).
fn md_table(t: &TextTable) -> String {
    let mut table = Table::new(t.columns.iter().map(Column::text).collect());
    table.rows = t.rows.iter().map(|r| r.iter().map(|c| c.as_str().into()).collect()).collect();
    md_render(&table, REPORT_DIGITS)
}
