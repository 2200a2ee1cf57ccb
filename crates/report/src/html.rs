//! `index.html`: every figure with its caption, grouped by spec, the
//! headline numbers beside the published ones, and the input manifests.
//! Plain HTML with inline CSS and no script, so it opens from disk and
//! renders the same everywhere; every string from a trace or a spec is
//! escaped. Nothing depends on the time of the run unless `--stamp` is given.

use serde_json::Value;

use super::figure::{Rendered, TextTable};
use super::format::{escape, number};
use super::summary::rows_table;
use super::{FigureReport, SpecReport};

const STYLE: &str = "body{font-family:'DejaVu Sans',Verdana,sans-serif;max-width:1180px;margin:2em auto;padding:0 1em;\
color:#222;line-height:1.45}h1{font-size:1.6em}h2{margin-top:2.2em;border-bottom:2px solid #ccc}\
h3{font-size:1.05em;margin:0 0 .4em}figure{display:inline-block;vertical-align:top;width:560px;margin:0 1.2em 2em 0}\
figure img{display:block;border:1px solid #ddd}figcaption{font-size:.84em;color:#444}\
figcaption code{font-size:.95em}.def{color:#666}table{border-collapse:collapse;font-size:.85em;margin:.5em 0 1.5em}\
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}td.n{text-align:right}th{background:#f3f3f3}\
details{margin:.5em 0 1.5em}.wide{display:block;width:auto;overflow-x:auto}nav li{margin:.15em 0}";

/// The whole page.
pub fn index(specs: &[SpecReport], inputs: &[(String, Value)], version: &str, stamp: Option<&str>) -> String {
    let mut h = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<title>tracelab report</title>\n");
    h.push_str(&format!("<style>{STYLE}</style>\n</head>\n<body>\n<h1>tracelab report</h1>\n"));
    h.push_str(
        "<p>Figures regenerated from the traces by <code>tracelab report</code>; each caption states the \
                analysis, parameters and definition behind it, and the command that prints its numbers.</p>\n",
    );
    h.push_str(&nav(specs));
    for s in specs {
        h.push_str(&spec_section(s));
    }
    h.push_str(&inputs_section(inputs));
    h.push_str(&format!("<hr>\n<p class=\"def\">tracelab {}", escape(version)));
    for s in specs {
        h.push_str(&format!("; {} sha256 {}", escape(&s.spec.body.id), &s.spec.sha256[..16]));
    }
    if let Some(stamp) = stamp {
        h.push_str(&format!("; generated {}", escape(stamp)));
    }
    h.push_str(".</p>\n</body>\n</html>\n");
    h
}

fn nav(specs: &[SpecReport]) -> String {
    let mut h = String::from("<nav><ul>\n");
    for s in specs {
        let id = escape(&s.spec.body.id);
        let note = match &s.skipped {
            Some(_) => " (skipped: trace not in the store)".to_string(),
            None => format!(" ({} figures and tables)", s.figures.len()),
        };
        h.push_str(&format!("<li><a href=\"#{id}\">{}</a>{note}</li>\n", escape(&s.spec.body.title)));
    }
    h.push_str("<li><a href=\"#inputs\">Inputs</a></li>\n</ul></nav>\n");
    h
}

fn spec_section(s: &SpecReport) -> String {
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
    if let Some(why) = &s.skipped {
        h.push_str(&format!("<p><strong>Skipped:</strong> {}</p>\n</section>\n", escape(why)));
        return h;
    }
    if !b.intro.is_empty() {
        h.push_str(&format!("<p>{}</p>\n", escape(&b.intro)));
    }
    h.push_str(&headlines(s));
    for f in &s.figures {
        h.push_str(&figure(&b.id, f));
    }
    h.push_str("</section>\n");
    h
}

/// Headlines with a published value first (the comparison table), the rest
/// folded away.
fn headlines(s: &SpecReport) -> String {
    let (with, without): (Vec<_>, Vec<_>) = s.headlines.iter().cloned().partition(|r| r.published.is_some());
    let mut h = String::from("<h3>Headline numbers beside the published values</h3>\n");
    h.push_str(&table(&rows_table(&with, true), ""));
    if !without.is_empty() {
        h.push_str(&format!(
            "<details><summary>{} more headline numbers (no published value)</summary>\n{}</details>\n",
            without.len(),
            table(&rows_table(&without, true), "")
        ));
    }
    h
}

fn figure(spec_id: &str, f: &FigureReport) -> String {
    let anchor = escape(&format!("{spec_id}-{}", f.id));
    let body = match &f.rendered {
        Rendered::Svg(_) => format!(
            "<img src=\"{}\" width=\"{}\" height=\"{}\" alt=\"{}\">\n",
            escape(f.file.as_deref().unwrap_or_default()),
            f.size.0,
            f.size.1,
            escape(&f.title)
        ),
        Rendered::Table(t) => table(t, ""),
    };
    let class = if matches!(f.rendered, Rendered::Table(_)) { " class=\"wide\"" } else { "" };
    format!(
        "<figure id=\"{anchor}\"{class}>\n<h3>{}</h3>\n{body}<figcaption>{}</figcaption>\n</figure>\n",
        escape(&f.title),
        caption(f)
    )
}

fn caption(f: &FigureReport) -> String {
    let mut c = format!("<strong>{}.</strong> {}", escape(&f.mirrors), escape(&f.caption));
    for note in &f.notes {
        c.push_str(&format!(" {}", escape(note)));
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
            let td = if numeric { "<td class=\"n\">" } else { "<td>" };
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
        Value::Number(n) => n.as_f64().filter(|_| n.is_f64()).map_or_else(|| n.to_string(), number),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
