//! `tracelab report` over any subset of the traces: each single trace and
//! each pair of `data-samples/` (ingested from a folder holding only them),
//! `--only`, series of absent traces left out while a misspelled one stays
//! an error, and the banner that says what the data is (official or
//! synthetic, scale, seed, rows, which figures are not calibrated).

use std::path::Path;

use crate::common::*;

// ---------------------------------------------------------------- subsets

/// A trace directory holding only `traces` of `data-samples/`.
pub fn samples_of(dir: &Path, traces: &[&str]) -> std::path::PathBuf {
    let d = dir.join("traces");
    for t in traces {
        copy_dir(&root().join("data-samples").join(t), &d.join(t));
    }
    d
}

pub fn json_file(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The trace a series label of a figure CSV names (`PAI`, `Philly`,
/// `Helios Venus`, `Helios (all)`, `AcmeTrace Seren`, `Alibaba spot-GPU`),
/// or None.
fn trace_word(label: &str) -> Option<String> {
    if label.starts_with("Alibaba spot-GPU") {
        return Some("spot".into());
    }
    let w = label.split([' ', '/']).next()?.to_lowercase();
    let w = if w == "acmetrace" { "acme".to_string() } else { w };
    ["pai", "philly", "helios", "swf", "acme"].contains(&w.as_str()).then_some(w)
}

/// Parses RFC 4180 CSV (quoted fields may hold commas, quotes, newlines).
pub fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(!quoted && field.is_empty() && row.is_empty(), "CSV does not end with a complete line");
    rows
}

/// Every figure of the report: its SVG parses, says what it is (`<title>`,
/// `<desc>`), and its CSV is rectangular. Returns the CSVs by path.
pub fn check_figures(out: &Path) -> Vec<(String, Vec<Vec<String>>)> {
    let mut csvs = Vec::new();
    for (rel, bytes) in snapshot_tree(out) {
        let text = String::from_utf8(bytes).unwrap_or_else(|_| panic!("{rel}: not UTF-8"));
        if rel.ends_with(".svg") {
            let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
            for tag in ["title", "desc"] {
                let has = doc.descendants().any(|n| n.has_tag_name(tag) && n.text().is_some_and(|t| !t.is_empty()));
                assert!(has, "{rel} has no <{tag}>");
            }
        } else if rel.ends_with(".csv") {
            let rows = csv_rows(&text);
            assert!(rows.iter().all(|r| r.len() == rows[0].len()), "{rel}: ragged rows");
            csvs.push((rel, rows));
        }
    }
    csvs
}

/// A report over a folder holding only `traces` of the samples: it runs,
/// skips exactly the specs none of whose traces are there, draws the
/// cross-trace figures with the traces there are, and says so.
fn report_over(traces: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = samples_of(tmp.path(), traces);
    let out = tmp.path().join("out");
    let store = tmp.path().join("store");
    let args = ["report", s(&dir), "--store", s(&store), "--out", s(&out)];
    let (code, _, stderr) = tracelab(&args);
    assert_eq!(code, 0, "{traces:?}:\n{stderr}");
    let summary = json_file(&out.join("summary.json"));
    for spec in summary["specs"].as_array().unwrap() {
        let id = spec["id"].as_str().unwrap();
        // The `traces` each built-in spec declares.
        let needs: &[&str] = match id {
            "pai-nsdi22" => &["pai"],
            "philly-atc19" => &["philly"],
            "helios-sc21" => &["helios"],
            "simulation" => &["pai", "helios"],
            "cross-trace" => &["pai", "philly", "helios", "swf", "acme", "spot"],
            "acme-nsdi24" => &["acme"],
            "spot-asplos26" => &["spot"],
            "seed-systems" => &["pai", "philly", "helios"],
            "gpu-sharing" => &["pai"],
            "pollux-osdi21" => &["philly"],
            other => panic!("a built-in spec this test does not know: {other}"),
        };
        let runs = needs.iter().any(|t| traces.contains(t));
        assert_eq!(spec["skipped"].is_null(), runs, "{traces:?}: {id}");
        for f in spec["figures"].as_array().unwrap().iter().filter(|f| !f["skipped"].is_null()) {
            assert!(needs.len() > 1, "{traces:?}: only figures of multi-trace specs may be skipped, not {f}");
        }
    }
    let missing: Vec<&str> =
        summary["missing"].as_array().unwrap().iter().map(|m| m["trace"].as_str().unwrap()).collect();
    let absent: Vec<&str> =
        ["pai", "philly", "helios", "swf", "acme", "spot"].into_iter().filter(|t| !traces.contains(t)).collect();
    assert_eq!(missing, absent);
    // Progress off a terminal: plain lines, the counter counting finished
    // runs from 1 up to N/N in steps of one, whatever order they finish in.
    assert!(!stderr.contains('\r') && !stderr.contains('\u{1b}'), "{traces:?}: control bytes on a pipe");
    let counter = |l: &str| -> Option<(usize, usize)> {
        let (i, n) = l.strip_prefix('[')?.split_once(']')?.0.split_once('/')?;
        Some((i.trim().parse().ok()?, n.parse().ok()?))
    };
    let counters: Vec<(usize, usize)> = stderr.lines().filter_map(counter).collect();
    let n = counters.first().map_or(0, |c| c.1);
    let want: Vec<(usize, usize)> = (1..=n).map(|i| (i, n)).collect();
    assert!(n > 0 && counters == want, "{traces:?}: {counters:?}");
    // One note per missing trace, and nothing else but the ingest's: no
    // note per skipped spec, figure or series.
    let notes: Vec<&str> =
        stderr.lines().filter(|l| l.starts_with("note: ") && !l.starts_with("note: ingested ")).collect();
    let want: Vec<String> = absent.iter().map(|t| format!("note: {t}: not in the store")).collect();
    assert_eq!(notes.len(), want.len(), "{traces:?}:\n{stderr}");
    assert!(notes.iter().zip(&want).all(|(n, w)| n.starts_with(w.as_str())), "{traces:?}:\n{stderr}");
    // No section, heading or index entry for a skipped spec.
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    for spec in summary["specs"].as_array().unwrap().iter().filter(|s| !s["skipped"].is_null()) {
        let id = spec["id"].as_str().unwrap();
        let gone = !html.contains(&format!("<section id=\"{id}\">")) && !html.contains(&format!("href=\"#{id}\""));
        assert!(gone, "{traces:?}: an empty section for {id}");
    }
    for (rel, rows) in check_figures(&out) {
        if rel.starts_with("cross-trace/") && rows[0][0] == "series" {
            let named: Vec<String> = rows[1..].iter().filter_map(|r| trace_word(&r[0])).collect();
            assert!(named.iter().all(|t| traces.contains(&t.as_str())), "{traces:?}: {rel} draws {named:?}");
        }
    }
    // SWF logs count no GPUs: they are drawn by the all-jobs figures only.
    let all_jobs = csv_rows(&std::fs::read_to_string(out.join("cross-trace/runtime-all-jobs.csv")).unwrap());
    let has_swf = all_jobs[1..].iter().any(|r| r[0] == "SWF (all logs)");
    assert_eq!(has_swf, traces.contains(&"swf"), "{traces:?}");
    if traces == ["swf"] {
        assert!(!out.join("cross-trace/runtime.csv").exists(), "the GPU-job runtime figure has nothing to draw");
        return;
    }
    // The runtime CDF has one series per trace there (Helios: its four
    // clusters and all of them).
    let runtime = csv_rows(&std::fs::read_to_string(out.join("cross-trace/runtime.csv")).unwrap());
    let mut series: Vec<&str> = runtime[1..].iter().map(|r| r[0].as_str()).collect();
    series.dedup();
    let mut want: Vec<&str> = Vec::new();
    for t in traces {
        match *t {
            "pai" => want.push("PAI"),
            "philly" => want.push("Philly"),
            "swf" => {}
            "acme" => want.extend(["AcmeTrace Seren", "AcmeTrace Kalos", "AcmeTrace (all)"]),
            "spot" => want.push("Alibaba spot-GPU"),
            _ => want.extend(["Helios Venus", "Helios Earth", "Helios Saturn", "Helios Uranus", "Helios (all)"]),
        }
    }
    want.sort_by_key(|w| {
        [
            "PAI",
            "Philly",
            "Helios Venus",
            "Helios Earth",
            "Helios Saturn",
            "Helios Uranus",
            "Helios (all)",
            "AcmeTrace Seren",
            "AcmeTrace Kalos",
            "AcmeTrace (all)",
            "Alibaba spot-GPU",
        ]
        .iter()
        .position(|x| x == w)
    });
    assert_eq!(series, want, "{traces:?}");
    if absent.is_empty() {
        return;
    }
    assert!(html.contains("Not in this report: "), "{traces:?}: no banner note");
}

#[test]
fn a_report_over_pai_alone() {
    report_over(&["pai"]);
}

#[test]
fn a_report_over_philly_alone() {
    report_over(&["philly"]);
}

#[test]
fn a_report_over_helios_alone() {
    report_over(&["helios"]);
}

#[test]
fn a_report_over_pai_and_philly() {
    report_over(&["pai", "philly"]);
}

#[test]
fn a_report_over_pai_and_helios() {
    report_over(&["pai", "helios"]);
}

#[test]
fn a_report_over_philly_and_helios() {
    report_over(&["philly", "helios"]);
}

/// `--only pai` over the three samples draws the PAI figures byte for byte
/// as a store holding PAI alone does, and says what it left out and why.
#[test]
fn only_sees_the_store_as_if_it_held_those_traces_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = samples_of(tmp.path(), &["pai"]);
    let alone = tmp.path().join("alone");
    tracelab_ok(&["report", s(&dir), "--store", s(&tmp.path().join("store")), "--out", s(&alone), "-q"]);
    let only = tmp.path().join("only");
    let (code, _, stderr) = tracelab(&["report", "--store", s(sample_store()), "--only", "pai", "--out", s(&only)]);
    assert_eq!(code, 0, "{stderr}");
    let philly = stderr.lines().find(|l| l.starts_with("note: philly: left out by --only; specs ")).unwrap_or("");
    assert!(philly.contains("philly-atc19") && philly.contains("pollux-osdi21"), "{stderr}");
    let pai = |out: &Path| snapshot_tree(&out.join("pai-nsdi22"));
    assert_eq!(pai(&alone), pai(&only), "PAI figures differ between --only pai and a PAI-only store");
    let summary = json_file(&only.join("summary.json"));
    assert_eq!(summary["missing"][0], serde_json::json!({ "trace": "philly", "why": "left out by --only" }));
    // Naming only traces the store lacks leaves nothing: a usage error.
    let store = tmp.path().join("store");
    let (code, _, stderr) =
        tracelab(&["report", "--store", s(&store), "--only", "helios", "--out", s(&tmp.path().join("x"))]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--only helios: the store holds none of these (it holds pai)"), "{stderr}");
    let (code, _, stderr) = tracelab(&["report", "--store", s(&store), "--only", "alibaba"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("invalid value 'alibaba'") && stderr.contains("pai, philly, helios"), "{stderr}");
}

/// A cross-trace figure for the quick tests, with the series given.
fn cross_spec(dir: &Path, series: &str) -> std::path::PathBuf {
    let path = dir.join("cross.toml");
    let text = format!(
        "id = \"x\"\ntitle = \"X\"\ntraces = [\"pai\", \"philly\"]\npaper = \"P\"\n\n[[figure]]\nid = \"rt\"\n\
         title = \"Runtime\"\nmirrors = \"m\"\nanalysis = \"cross.runtime\"\npart = \"cdf\"\nkind = \"cdf\"\n\
         series = [{series}]\ncaption = \"c\"\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn skipping_absent_traces_does_not_hide_a_misspelled_series() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    // philly is left out: its series is dropped with a note.
    let spec = cross_spec(tmp.path(), "\"pai\", \"philly\"");
    let args = ["report", "--store", s(sample_store()), "--only", "pai", "--spec", s(&spec), "--out", s(&out)];
    let (code, _, stderr) = tracelab(&args);
    assert_eq!(code, 0, "{stderr}");
    // One line for philly on stderr; the figure's caption says what it lacks.
    assert!(
        stderr.contains("note: philly: left out by --only; figures comparing traces are drawn without it"),
        "{stderr}"
    );
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("Left out: philly; the report lacks philly (left out by --only)."), "the caption's note");
    // "phily" names no trace: the spec is wrong, whatever traces are there.
    // Line 13 holds `series`: 4 header lines, a blank line, `[[figure]]`,
    // then the figure's 7th key.
    let spec = cross_spec(tmp.path(), "\"pai\", \"phily\"");
    let (code, _, stderr) = tracelab(&args);
    assert_eq!(code, 2, "{stderr}");
    let want = format!("spec {}, line 13: figure `rt`: no series `phily` (the part has: pai)", spec.display());
    assert!(stderr.contains(&want), "{stderr}");
}

// ---------------------------------------------------------------- banner

#[test]
fn the_report_says_first_what_its_data_is() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    tracelab_ok(&["report", "--store", s(sample_store()), "--out", s(&out), "-q"]);
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    let at = |what: &str| html.find(what).unwrap_or_else(|| panic!("`{what}` not in index.html"));
    // The banner comes before every figure, and within a spec the figures
    // come before the headline numbers.
    assert!(at("What this report is made from") < at("<figure"));
    assert!(at("<figure id=\"pai-nsdi22-") < at("id=\"pai-nsdi22-headlines\""));
    // data-samples/*/SOURCE.md: the commands (scale, seed) and the counts.
    for want in [
        "synthetic (tracelab synth 0.1.0, scale 0.005, seed 7)",
        "synthetic (tracelab synth 0.1.0, scale 0.001, seed 7)",
        "job 4222, task 5071",
        "jobs 117, attempts 141",
        "jobs 3363, vc_gpus",
        "Real files: pai_machine_spec.csv.",
        "Real files: Earth/cluster_gpu_number.csv, Venus/cluster_gpu_number.csv.",
    ] {
        at(want);
    }
    // tests/calibration: PAI queueing holds from scale 0.05, requests at any
    // scale; Philly queueing is not targeted, runtimes are; Helios monthly
    // views are not, final status is.
    let banner = &html[at("Synthetic data.")..at("<nav>")];
    for (title, listed) in [
        ("Queueing delay by GPU type", true),
        ("CPU: requested vs used per task", false),
        ("Queueing delay, all VCs (per-attempt definition)", true),
        ("Job runtime by GPU count", false),
        ("Monthly mean GPU allocation", true),
        ("Final status of CPU and GPU jobs", false),
    ] {
        assert_eq!(banner.contains(&format!(">{title}</a>")), listed, "{title}");
    }
    assert!(html.contains("when it differs from the published value by at most 10 % of that value"));
    let summary = json_file(&out.join("summary.json"));
    let headline = |spec: usize, analysis: &str, key: &str| {
        summary["specs"][spec]["headlines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["analysis"] == analysis && h["key"] == key)
            .cloned()
            .unwrap()
    };
    // P90 wait of GPU-sharing tasks: ~40,000 s against 497 s (SOURCE.md),
    // not compared at scale 0.005; the median CPU request, 6 vs 6 vCPU, is.
    assert_eq!(headline(0, "pai.wait-by-gpu-request", "sharing_p90")["verdict"], "not-calibrated");
    assert_eq!(headline(0, "pai.request-vs-usage", "cpu_request_p50")["verdict"], "within-tolerance");
    // Venus jobs: 246,708 published x 0.001 = 246.708; the sample has 247.
    let venus = headline(2, "helios.cluster-summary", "Venus.job_num");
    assert_eq!((venus["compared_with"].as_f64(), venus["verdict"].as_str()), (Some(246.708), Some("within-tolerance")));
    // `analyze` compares it the same way: 246,708 x 0.001 = 246.708 (shown
    // to 4 digits, 246.7), 247 - 246.708 = +0.292, within 10 %; the report's
    // table shows the same reference.
    assert!(html.contains("246708 (× 0.001 = 246.7)"), "the report's headline table");
    let shown = tracelab_ok(&["analyze", "helios.cluster-summary", "--store", s(sample_store()), "--format", "table"]);
    let line = shown.lines().find(|l| l.contains("246708")).unwrap_or_else(|| panic!("no Venus jobs row:\n{shown}"));
    let cells: Vec<&str> = line.split(['│', '┆']).map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(cells[1..5], ["247", "246708 (× 0.001 = 246.7)", "+0.292", "≈"], "{line}");
}

#[test]
fn a_trace_without_a_synth_marker_is_an_official_download() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = samples_of(tmp.path(), &["philly"]);
    std::fs::remove_file(dir.join("philly/SYNTHETIC.json")).unwrap();
    let out = tmp.path().join("out");
    tracelab_ok(&["report", s(&dir), "--store", s(&tmp.path().join("store")), "--out", s(&out), "-q"]);
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("official download (no tracelab synth marker)"));
    assert!(!html.contains("Synthetic data.") && !html.contains("not calibrated (synthetic)"));
    assert!(!html.contains(">not calibrated</td>"), "official numbers are compared");
}

#[test]
fn a_malformed_synth_marker_is_a_data_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = samples_of(tmp.path(), &["philly"]);
    let marker = r#"{"generator": "tracelab synth", "tracelab_version": "0.1.0", "trace": "philly", "seed": 7,
        "corrupt": null, "effects": [], "real_files": []}"#;
    std::fs::write(dir.join("philly/SYNTHETIC.json"), marker).unwrap();
    let (code, _, stderr) =
        tracelab(&["report", s(&dir), "--store", s(&tmp.path().join("store")), "--out", s(&tmp.path().join("o"))]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("philly/SYNTHETIC.json: not a tracelab synth marker: `scale` must be a positive number"),
        "{stderr}"
    );
}

#[test]
fn a_report_over_swf_alone() {
    report_over(&["swf"]);
}

#[test]
fn a_report_over_philly_and_swf() {
    report_over(&["philly", "swf"]);
}

#[test]
fn a_report_over_acme_alone() {
    report_over(&["acme"]);
}

#[test]
fn a_report_over_spot_alone() {
    report_over(&["spot"]);
}
