//! `index.html`: first what the data is (official or synthetic, scale,
//! seed, rows per table; which figures a synthetic sample is not calibrated
//! for; which traces are missing) and how headlines are compared, then per
//! spec its figures with their captions and the headline numbers grouped
//! per analysis, deviations beyond the tolerance marked; last the input
//! manifests. Plain HTML with inline CSS and no script, so it opens from
//! disk and renders the same everywhere; every string from a trace or a
//! spec is escaped. Nothing depends on the time of the run unless `--stamp`
//! is given.

use serde_json::Value;

use tracelab_present::markup::escape;
use tracelab_present::number::report_text;

use super::calibration::TOLERANCE_RULE;
use super::figure::Rendered;
use super::headline_tables::{by_analysis, judged_table, rows_table};
use super::inputs::{markers, TraceData};
use super::tables::TextTable;
use super::{Data, FigureReport, Formats, SpecReport};

const STYLE: &str = "body{font-family:'DejaVu Sans',Verdana,sans-serif;max-width:1180px;margin:2em auto;padding:0 1em;\
color:#222;line-height:1.45}h1{font-size:1.6em}h2{margin-top:2.2em;border-bottom:2px solid #ccc}\
h3{font-size:1.05em;margin:0 0 .4em}h4{font-size:.95em;margin:1.2em 0 .2em}\
figure{display:inline-block;vertical-align:top;width:560px;margin:0 1.2em 2em 0}\
figure img{display:block;border:1px solid #ddd;width:100%;height:auto}figcaption{font-size:.84em;color:#444}\
figcaption code{font-size:.95em}.def{color:#666}table{border-collapse:collapse;font-size:.85em;margin:.5em 0 1.5em}\
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}td.n{text-align:right}th{background:#f3f3f3}\
details{margin:.5em 0 1.5em}.wide{display:block;width:auto;overflow-x:auto}nav li{margin:.15em 0}\
.banner{background:#fbf7ea;border:1px solid #d9c58a;padding:.2em 1.2em 1em;margin:1em 0}.banner h2{margin-top:.6em}\
.note{color:#7a4b00}.tag{font-size:.8em;border:1px solid #b58a2a;color:#7a4b00;border-radius:3px;padding:0 4px}\
.skip{color:#666;font-style:italic}td.off{color:#9b1c1c;font-weight:bold}";

/// Everything the page shows.
pub struct Page<'a> {
    pub reports: &'a [SpecReport<'a>],
    pub data: &'a Data,
    pub version: &'a str,
    pub stamp: Option<&'a str>,
    pub formats: Formats,
}

/// The whole page.
pub fn index(p: &Page) -> String {
    let mut h = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<title>tracelab report</title>\n");
    h.push_str(&format!("<style>{STYLE}</style>\n</head>\n<body>\n<h1>tracelab report</h1>\n"));
    h.push_str(
        "<p>Figures regenerated from the traces by <code>tracelab report</code>; each caption states the \
                analysis, parameters and definition behind it, links the plotted points as CSV, and gives the \
                command that prints its numbers.</p>\n",
    );
    h.push_str(&banner(p.reports, p.data));
    h.push_str(&nav(p.reports));
    for s in p.reports {
        h.push_str(&spec_section(s, p));
    }
    h.push_str(&inputs_section(&p.data.manifests));
    h.push_str(&format!("<hr>\n<p class=\"def\">tracelab {}", escape(p.version)));
    for s in p.reports {
        h.push_str(&format!("; {} sha256 {}", escape(&s.spec.body.id), &s.spec.sha256[..16]));
    }
    if let Some(stamp) = p.stamp {
        h.push_str(&format!("; generated {}", escape(stamp)));
    }
    h.push_str(".</p>\n</body>\n</html>\n");
    h
}

/// What the report is made from, said before anything else.
fn banner(reports: &[SpecReport], data: &Data) -> String {
    let mut h = String::from("<section id=\"data\" class=\"banner\">\n<h2>What this report is made from</h2>\n");
    let rows = data
        .traces
        .iter()
        .map(|d| vec![d.trace.title().to_string(), d.origin(), d.rows_text(), d.rejected.to_string()])
        .collect();
    let columns = ["trace", "data", "rows per table", "rejected records"].map(String::from).to_vec();
    h.push_str(&table(&TextTable { columns, rows }, ""));
    let synthetic: Vec<&TraceData> = data.traces.iter().filter(|d| d.marker.is_some()).collect();
    if !synthetic.is_empty() {
        h.push_str(&synthetic_note(reports, &synthetic));
    }
    if !data.missing.is_empty() || !data.missing_clusters.is_empty() {
        let traces = data.missing.iter().map(|(t, why)| format!("{} ({why})", t.name()));
        let clusters =
            data.missing_clusters.iter().map(|(c, why)| format!("{} ({why})", crate::inputs::cluster_name(c)));
        let missing: Vec<String> = traces.chain(clusters).collect();
        h.push_str(&format!(
            "<p>Not in this report: {}. Specs of those traces alone are skipped; figures that compare traces are \
             drawn with the traces there are, and their captions say what is left out.</p>\n",
            escape(&missing.join(", "))
        ));
        let lines = crate::missing_lines(data, reports);
        if !lines.is_empty() {
            let items: String = lines.iter().map(|l| format!("<li>{}</li>\n", escape(l))).collect();
            h.push_str(&format!("<ul class=\"missing\">\n{items}</ul>\n"));
        }
    }
    h.push_str(&format!("<p><strong>Headline numbers.</strong> {}</p>\n</section>\n", escape(TOLERANCE_RULE)));
    h
}

/// Which traces are synthetic, which files of them are real, and which
/// figures the generator is not calibrated for at their scale.
fn synthetic_note(reports: &[SpecReport], synthetic: &[&TraceData]) -> String {
    let mut h = String::from(
        "<p class=\"note\"><strong>Synthetic data.</strong> The traces marked synthetic were generated by \
         <code>tracelab synth</code>: they show what the pipeline computes, not what the clusters did. The \
         generator is calibrated to the published numbers only for some analyses and only from some scale \
         (<code>tests/calibration/</code>); at the scales here these figures are <em>not calibrated</em>, and \
         their headline numbers are not compared:</p>\n<ul>\n",
    );
    for d in synthetic {
        let figs: Vec<String> = reports
            .iter()
            .flat_map(|r| r.figures.iter().map(move |f| (r, f)))
            .filter(|(_, f)| !f.calibrated && f.analysis.starts_with(&format!("{}.", d.trace.name())))
            .map(|(r, f)| format!("<a href=\"#{}\">{}</a>", escape(&anchor(&r.spec.body.id, &f.id)), escape(&f.title)))
            .collect();
        let real = d.real_files();
        let real = if real.is_empty() { String::new() } else { format!(" Real files: {}.", escape(&real.join(", "))) };
        let scale = d.marker.as_ref().map_or(1.0, |m| m.scale);
        let list = if figs.is_empty() { "none".to_string() } else { figs.join(", ") };
        h.push_str(&format!(
            "<li>{} (scale {}):{real} Not calibrated: {list}.</li>\n",
            escape(d.trace.name()),
            report_text(scale)
        ));
    }
    h.push_str("</ul>\n");
    h
}

fn anchor(spec_id: &str, fig_id: &str) -> String {
    format!("{spec_id}-{fig_id}")
}

fn nav(specs: &[SpecReport]) -> String {
    let mut h = String::from("<nav><ul>\n<li><a href=\"#data\">What this report is made from</a></li>\n");
    // A skipped spec has no section (the banner's missing-trace lines name it).
    for s in specs.iter().filter(|s| s.skipped.is_none()) {
        let id = escape(&s.spec.body.id);
        let note = format!(" ({} figures and tables)", s.figures.len());
        h.push_str(&format!("<li><a href=\"#{id}\">{}</a>{note}</li>\n", escape(&s.spec.body.title)));
    }
    h.push_str("<li><a href=\"#inputs\">Inputs</a></li>\n</ul></nav>\n");
    h
}

fn spec_section(s: &SpecReport, p: &Page) -> String {
    // A skipped spec has no section: the banner says which traces it lacks.
    if s.skipped.is_some() {
        return String::new();
    }
    let b = &s.spec.body;
    let mut h = format!("<section id=\"{}\">\n<h2>{}</h2>\n", escape(&b.id), escape(&b.title));
    h.push_str(&format!("<p>{}", escape(&b.paper)));
    if !b.upstream.is_empty() {
        h.push_str(&format!(" Upstream code: {}.", escape(&b.upstream)));
    }
    h.push_str(&format!(
        " Spec <code>{}</code> (sha256 <code>{}</code>).</p>\n",
        escape(&s.spec.path.display().to_string()),
        &s.spec.sha256[..16]
    ));
    for n in &s.notes {
        h.push_str(&format!("<p class=\"note\">{}</p>\n", escape(n)));
    }
    if !b.intro.is_empty() {
        h.push_str(&format!("<p>{}</p>\n", escape(&b.intro)));
    }
    for f in &s.figures {
        h.push_str(&figure(&b.id, f, p.formats));
    }
    h.push_str(&headlines(s, &markers(&p.data.traces)));
    h.push_str("</section>\n");
    h
}

/// Headlines with a published value, grouped per analysis and judged by
/// the tolerance rule; the rest folded away.
fn headlines(s: &SpecReport, markers: &[tracelab_schema::synthetic::Marker]) -> String {
    let (with, without): (Vec<_>, Vec<_>) = s.headlines.iter().cloned().partition(|r| r.published.is_some());
    let id = escape(&format!("{}-headlines", s.spec.body.id));
    let mut h = format!("<h3 id=\"{id}\">Headline numbers beside the published values</h3>\n");
    for (analysis, rows) in by_analysis(&with) {
        let mirrors = crate::spec::find(&analysis).map(|a| a.mirrors).unwrap_or_default();
        h.push_str(&format!("<h4><code>{}</code> {}</h4>\n", escape(&analysis), escape(mirrors)));
        h.push_str(&table(&judged_table(&rows, markers), ""));
    }
    if !without.is_empty() {
        h.push_str(&format!(
            "<details><summary>{} more headline numbers (no published value)</summary>\n{}</details>\n",
            without.len(),
            table(&rows_table(&without, true), "")
        ));
    }
    h
}

fn figure(spec_id: &str, f: &FigureReport, formats: Formats) -> String {
    let id = escape(&anchor(spec_id, &f.id));
    let body = match &f.rendered {
        Rendered::Svg(_) => format!(
            "<img src=\"{}\" width=\"{}\" height=\"{}\" alt=\"{}\">\n",
            escape(f.file.as_deref().unwrap_or_default()),
            f.size.0,
            f.size.1,
            escape(&f.title)
        ),
        Rendered::Table(t) => table(t, ""),
        Rendered::Skipped(why) => format!("<p class=\"skip\">Not drawn: {}.</p>\n", escape(why)),
    };
    let class = if matches!(f.rendered, Rendered::Table(_)) { " class=\"wide\"" } else { "" };
    let tag = if f.calibrated { "" } else { " <span class=\"tag\">not calibrated (synthetic)</span>" };
    format!(
        "<figure id=\"{id}\"{class}>\n<h3>{}{tag}</h3>\n{body}<figcaption>{}</figcaption>\n</figure>\n",
        escape(&f.title),
        caption(f, formats)
    )
}

fn caption(f: &FigureReport, formats: Formats) -> String {
    let mut c = format!("<strong>{}.</strong> {}", escape(&f.mirrors), escape(&f.caption));
    for note in &f.notes {
        c.push_str(&format!(" {}", escape(note)));
    }
    let mut links: Vec<String> = Vec::new();
    if let Some((csv, _)) = &f.csv {
        links.push(format!("<a href=\"{}\">CSV</a> (the plotted points)", escape(csv)));
    }
    for (on, ext) in [(formats.png, "png"), (formats.pdf, "pdf")] {
        if let (true, Some(file)) = (on, f.sibling(ext)) {
            links.push(format!("<a href=\"{}\">{}</a>", escape(&file), ext.to_uppercase()));
        }
    }
    if !links.is_empty() {
        c.push_str(&format!("<br>Data: {}.", links.join(", ")));
    }
    let params: String = f.params.iter().map(|(k, v)| format!(" --param {k}={v}")).collect();
    c.push_str(&format!(
        "<br>Numbers: <code>tracelab analyze {}{} --part {}</code>.<br><span class=\"def\">Definition: {}</span>",
        escape(&f.analysis),
        escape(&params),
        escape(&f.part),
        escape(&f.definition)
    ));
    c
}

/// A table with numbers right-aligned.
pub fn table(t: &TextTable, class: &str) -> String {
    let mut h = if class.is_empty() { "<table>\n<tr>".to_string() } else { format!("<table class=\"{class}\">\n<tr>") };
    for c in &t.columns {
        h.push_str(&format!("<th>{}</th>", escape(c)));
    }
    h.push_str("</tr>\n");
    for r in &t.rows {
        h.push_str("<tr>");
        for cell in r {
            let numeric = !cell.is_empty() && cell.parse::<f64>().is_ok();
            let td = if numeric {
                "<td class=\"n\">"
            } else if cell.starts_with(['▲', '▼']) {
                "<td class=\"off\">"
            } else if cell == "not calibrated" {
                "<td class=\"def\">"
            } else {
                "<td>"
            };
            h.push_str(&format!("{td}{}</td>", escape(cell)));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    h
}

/// Files, sizes, sha256 and the row balance of every ingested trace.
fn inputs_section(inputs: &[(String, Value)]) -> String {
    let mut h = String::from("<section id=\"inputs\">\n<h2>Inputs</h2>\n");
    for (trace, m) in inputs {
        h.push_str(&format!("<h3>{}</h3>\n", escape(trace)));
        let files = m["inputs"].as_array().cloned().unwrap_or_default();
        let rows = files.iter().map(|f| vec![text(&f["file"]), text(&f["bytes"]), text(&f["sha256"])]).collect();
        h.push_str(&table(&TextTable { columns: vec!["file".into(), "bytes".into(), "sha256".into()], rows }, ""));
        let tables = m["tables"].as_array().cloned().unwrap_or_default();
        let cols = ["table", "source", "records_in", "written", "rejected", "rows"];
        let rows = tables.iter().map(|t| cols.iter().map(|c| text(&t[*c])).collect()).collect();
        h.push_str(&table(&TextTable { columns: cols.map(String::from).to_vec(), rows }, ""));
    }
    h.push_str("</section>\n");
    h
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.as_f64().filter(|_| n.is_f64()).map_or_else(|| n.to_string(), report_text),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
