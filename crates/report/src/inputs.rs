//! What the report's data is, read from the store's ingest manifests: for
//! each trace, whether it is an official download or a `tracelab synth`
//! sample (the `SYNTHETIC.json` marker ingest copies into the manifest's
//! notes: scale, seed, the files copied verbatim), its rows per table and
//! its rejects; and which traces are missing and why. The report states
//! this first, so a reader knows what the numbers below stand for.

use serde_json::Value;

use tracelab_present::number::report_text;
use tracelab_schema::raw;
use tracelab_schema::synthetic::Marker;
use tracelab_schema::Trace;

/// One trace of the report's store.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceData {
    pub trace: Trace,
    /// Present when `tracelab synth` made the trace's files.
    pub marker: Option<Marker>,
    /// (table, rows) in the manifest's order.
    pub tables: Vec<(String, u64)>,
    pub rejected: u64,
    pub files: usize,
}

impl TraceData {
    /// "synthetic (tracelab synth 0.1.0, scale 0.005, seed 7)" or "official
    /// download".
    pub fn origin(&self) -> String {
        match &self.marker {
            Some(m) => {
                let corrupt =
                    m.corrupt.map_or(String::new(), |c| format!(", {} % of rows corrupted", report_text(100.0 * c)));
                format!(
                    "synthetic (tracelab synth {}, scale {}, seed {}{corrupt})",
                    m.version,
                    report_text(m.scale),
                    m.seed
                )
            }
            None => "official download (no tracelab synth marker)".into(),
        }
    }

    /// The files of a synthetic trace that are real (copied verbatim).
    pub fn real_files(&self) -> &[String] {
        self.marker.as_ref().map_or(&[], |m| m.real_files.as_slice())
    }

    /// "job 4222, task 5071, ..." (the rejects table left out).
    pub fn rows_text(&self) -> String {
        let rows = self.tables.iter().filter(|(t, _)| t != "rejects");
        rows.map(|(t, n)| format!("{t} {n}")).collect::<Vec<_>>().join(", ")
    }
}

/// The traces of the manifests, in the manifests' order.
pub fn trace_data(manifests: &[(String, Value)]) -> Vec<TraceData> {
    manifests
        .iter()
        .filter_map(|(name, m)| {
            let trace = Trace::from_name(name)?;
            let notes = m["notes"].as_array().cloned().unwrap_or_default();
            let marker =
                notes.iter().filter_map(Value::as_str).find_map(Marker::from_note).filter(|k| k.trace == trace);
            let tables = m["tables"].as_array().cloned().unwrap_or_default();
            let tables = tables
                .iter()
                .filter_map(|t| Some((t["table"].as_str()?.to_string(), t["rows"].as_u64().unwrap_or(0))))
                .collect();
            let files = m["inputs"].as_array().map_or(0, Vec::len);
            Some(TraceData { trace, marker, tables, rejected: m["rejects"].as_u64().unwrap_or(0), files })
        })
        .collect()
}

/// The synthetic markers among the traces.
pub fn markers(data: &[TraceData]) -> Vec<Marker> {
    data.iter().filter_map(|d| d.marker.clone()).collect()
}

/// The traces a report lacks, with why: left out by `--only`, or not in
/// the store.
pub fn missing(present: &[Trace], only: Option<&[Trace]>) -> Vec<(Trace, String)> {
    let why = |t: &Trace| match only {
        Some(o) if !o.contains(t) => "left out by --only",
        _ => "not in the store",
    };
    Trace::ALL.iter().filter(|t| !present.contains(t)).map(|t| (*t, why(t).to_string())).collect()
}

/// One line per missing trace, for the run's stderr and the report's
/// banner: why it is missing, the specs skipped for it (they need no trace
/// the report has) with their figures, and that figures comparing traces
/// are drawn without it. One line per trace rather than one per figure, so
/// a one-trace report says what it lacks in a few lines.
pub fn missing_lines(missing: &[(Trace, String)], skipped_specs: &[(&str, &[String], usize)]) -> Vec<String> {
    missing
        .iter()
        .map(|(t, why)| {
            let specs: Vec<(&str, usize)> = skipped_specs
                .iter()
                .filter(|(_, traces, _)| traces.iter().any(|n| n == t.name()))
                .map(|(id, _, figures)| (*id, *figures))
                .collect();
            let figures: usize = specs.iter().map(|s| s.1).sum();
            let skipped = match specs.len() {
                0 => String::new(),
                n => format!(
                    "; {} {} skipped ({figures} figure{})",
                    if n == 1 { "spec" } else { "specs" },
                    specs.iter().map(|s| s.0).collect::<Vec<_>>().join(", "),
                    if figures == 1 { "" } else { "s" }
                ),
            };
            format!("{}: {why}{skipped}; figures comparing traces are drawn without it", t.name())
        })
        .collect()
}

/// The Helios clusters a Helios download lacks (it may hold any subset of
/// the four), from the sources of its jobs table (`helios/Earth/cluster_log.csv`
/// or `data.zip!data/Earth/cluster_log.csv`), and the AcmeTrace clusters an
/// AcmeTrace download lacks (`trace_seren.csv`, `trace_kalos.csv`).
pub fn missing_clusters(manifests: &[(String, Value)]) -> Vec<(String, String)> {
    let source = |trace: &str| -> Option<String> {
        let (_, m) = manifests.iter().find(|(t, _)| t == trace)?;
        let tables = m["tables"].as_array().cloned().unwrap_or_default();
        Some(tables.iter().find(|t| t["table"] == "jobs").and_then(|t| t["source"].as_str()).unwrap_or("").to_string())
    };
    let mut out = Vec::new();
    if let Some(s) = source("helios") {
        out.extend(
            raw::helios::CLUSTERS
                .iter()
                .filter(|c| !s.contains(&format!("{c}/{}", raw::helios::CLUSTER_LOG.file)))
                .map(|c| (c.to_string(), "not in the Helios data".to_string())),
        );
    }
    if let Some(s) = source("acme") {
        out.extend(
            raw::acme::CLUSTERS
                .iter()
                .filter(|(_, l)| !s.contains(l.file))
                .map(|(c, _)| (c.to_string(), "not in the AcmeTrace data".to_string())),
        );
    }
    out
}

/// "Helios Venus" or "AcmeTrace Kalos": a missing cluster with its trace.
pub fn cluster_name(cluster: &str) -> String {
    let acme = raw::acme::CLUSTERS.iter().any(|(c, _)| *c == cluster);
    format!("{} {cluster}", if acme { "AcmeTrace" } else { "Helios" })
}

/// "PAI: synthetic (...); Philly: official download" for the traces of a
/// spec that the report has (the data line of a figure's `<desc>`).
pub fn source_line(data: &[TraceData], traces: &[String]) -> String {
    let parts: Vec<String> = data
        .iter()
        .filter(|d| traces.iter().any(|t| t == d.trace.name()))
        .map(|d| format!("{} {}", d.trace.name(), d.origin()))
        .collect();
    if parts.is_empty() {
        "no trace".into()
    } else {
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn manifests_say_what_each_trace_is() {
        let marker = Marker {
            trace: Trace::Pai,
            version: "0.1.0".into(),
            scale: 0.005,
            seed: 7,
            corrupt: None,
            effects: vec![],
            real_files: vec!["pai_machine_spec.csv".into()],
        };
        let pai = json!({ "notes": [marker.note()], "inputs": [{}, {}], "rejects": 2,
            "tables": [{ "table": "job", "rows": 10 }, { "table": "rejects", "rows": 2 }] });
        let philly = json!({ "notes": ["an archive skipped"], "inputs": [{}], "rejects": 0,
            "tables": [{ "table": "jobs", "rows": 117 }] });
        let data = trace_data(&[("pai".into(), pai), ("philly".into(), philly)]);
        assert_eq!(data[0].origin(), "synthetic (tracelab synth 0.1.0, scale 0.005, seed 7)");
        assert_eq!((data[0].rows_text(), data[0].rejected, data[0].files), ("job 10".into(), 2, 2));
        assert_eq!(data[0].real_files(), ["pai_machine_spec.csv"]);
        assert_eq!(data[1].origin(), "official download (no tracelab synth marker)");
        assert_eq!(markers(&data), vec![marker]);
        let line = source_line(&data, &["philly".into()]);
        assert_eq!(line, "philly official download (no tracelab synth marker)");
    }

    #[test]
    fn helios_clusters_missing_from_a_download_are_named() {
        let helios = json!({ "tables": [{ "table": "jobs",
            "source": "helios/Earth/cluster_log.csv, helios/data.zip!data/Venus/cluster_log.csv" }] });
        let m = missing_clusters(&[("helios".into(), helios)]);
        let names: Vec<&str> = m.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(names, ["Saturn", "Uranus"]);
        assert!(missing_clusters(&[]).is_empty());
        let acme = json!({ "tables": [{ "table": "jobs", "source": "acme/trace_seren.csv" }] });
        assert_eq!(
            missing_clusters(&[("acme".into(), acme)]),
            [("Kalos".to_string(), "not in the AcmeTrace data".to_string())]
        );
    }

    #[test]
    fn missing_traces_say_why() {
        let m = missing(&[Trace::Pai], Some(&[Trace::Pai, Trace::Helios]));
        assert_eq!(
            m,
            vec![
                (Trace::Philly, "left out by --only".to_string()),
                (Trace::Helios, "not in the store".to_string()),
                (Trace::Swf, "left out by --only".to_string()),
                (Trace::Acme, "left out by --only".to_string()),
                (Trace::Spot, "left out by --only".to_string())
            ]
        );
    }
}
