//! The seed.* analyses against an independent recomputation with pandas,
//! DuckDB and scikit-learn (`tests/crosscheck/analyses_seed.py`) on the
//! bundled samples: every number the script prints must match tracelab's
//! JSON within 1e-9 relative, except the decision tree's errors ("~"
//! addresses), which may differ by [`TREE_TOLERANCE`]: scikit-learn and
//! smartcore break ties between equally good splits differently.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::Value;

use crate::common::*;

/// Relative difference allowed between tracelab's tree and scikit-learn's
/// on RMSLE and median APE (measured on the samples: see docs/definitions.md
/// seed.duration-prediction).
const TREE_TOLERANCE: f64 = 0.05;

fn expected() -> &'static Value {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let out = python("tests/crosscheck/analyses_seed.py", &[s(sample_store())]);
        serde_json::from_str(&out).expect("crosscheck JSON")
    })
}

/// How many leading cells name a row of a table part.
fn key_cells(id: &str, part: &str) -> usize {
    match (id, part) {
        (_, "forecast-errors") => 3,
        ("seed.pollux-classes", "classes") => 2,
        _ => 1,
    }
}

fn cell_text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// tracelab's JSON under the script's addresses.
fn flatten(id: &str, out: &Value) -> BTreeMap<String, Value> {
    let mut m = BTreeMap::new();
    for part in out["parts"].as_array().unwrap() {
        let name = part["name"].as_str().unwrap();
        match part["kind"].as_str().unwrap() {
            "dists" => {
                for sr in part["series"].as_array().unwrap() {
                    let p = format!("{name}/{}", sr["label"].as_str().unwrap());
                    for stat in ["n", "mean", "max"] {
                        m.insert(format!("{p}/{stat}"), sr[stat].clone());
                    }
                    for q in ["p50", "p90"] {
                        m.insert(format!("{p}/{q}"), sr["quantiles"][q].clone());
                    }
                }
            }
            "headlines" => {
                for h in part["headlines"].as_array().unwrap() {
                    m.insert(h["key"].as_str().unwrap().to_string(), h["value"].clone());
                }
            }
            "table" => {
                let columns: Vec<&str> =
                    part["columns"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
                let k = key_cells(id, name);
                for row in part["rows"].as_array().unwrap() {
                    let cells = row.as_array().unwrap();
                    let key: Vec<String> = cells[..k].iter().map(cell_text).collect();
                    for (c, v) in columns.iter().zip(cells).skip(k) {
                        m.insert(format!("{name}/{}/{c}", key.join("|")), v.clone());
                    }
                }
            }
            _ => {}
        }
    }
    m
}

fn close(a: &Value, b: &Value, rel: f64) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y || (x - y).abs() <= rel * x.abs().max(y.abs()).max(1e-9),
        _ => a.is_null() && b.is_null(),
    }
}

/// Runs `run` (id[?k=v&..]) and compares every number the script gives.
fn check(run: &str) {
    let want = expected()[run].as_object().unwrap_or_else(|| panic!("no crosscheck for {run}"));
    assert!(!want.is_empty(), "{run}: no numbers");
    let (id, params) = run.split_once('?').unwrap_or((run, ""));
    let mut args = vec!["analyze", id, "--format", "json", "--store", s(sample_store())];
    for p in params.split('&').filter(|p| !p.is_empty()) {
        args.extend(["--param", p]);
    }
    let ours = flatten(id, &serde_json::from_str(&tracelab_ok(&args)).unwrap());
    let mut bad = Vec::new();
    for (address, v) in want {
        let (key, rel) = match address.strip_prefix('~') {
            Some(k) => (k, TREE_TOLERANCE),
            None => (address.as_str(), 1e-9),
        };
        match ours.get(key) {
            Some(got) if close(got, v, rel) => {}
            got => bad.push(format!("{address}: tracelab {got:?} vs crosscheck {v}")),
        }
    }
    assert!(bad.is_empty(), "{run}: {} of {} numbers differ:\n{}", bad.len(), want.len(), bad.join("\n"));
}

#[test]
fn muxflow_gpu_util_matches_pandas() {
    check("seed.muxflow-gpu-util");
}

#[test]
fn muxflow_predictability_matches_pandas() {
    check("seed.muxflow-predictability");
}

#[test]
fn horus_interference_matches_duckdb_and_scipy() {
    check("seed.horus-interference");
}

#[test]
fn horus_classes_match_sklearn_kmeans_from_the_same_start() {
    check("seed.horus-classes");
}

#[test]
fn pollux_classes_match_pandas() {
    check("seed.pollux-classes");
}

#[test]
fn pollux_busiest_window_matches_numpy() {
    for trace in ["philly", "pai", "helios"] {
        check(&format!("seed.pollux-busiest-window?trace={trace}"));
    }
}

#[test]
fn duration_prediction_matches_sklearn() {
    for trace in ["pai", "philly", "helios"] {
        check(&format!("seed.duration-prediction?trace={trace}"));
    }
}

/// A store holding Helios only: the views that need PAI or Philly data
/// answer with notes (no error), and the seed-systems report renders.
#[test]
fn helios_only_store_gets_notes_not_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let raw = tmp.path().join("raw");
    copy_dir(&root().join("data-samples/helios"), &raw.join("helios"));
    let store = tmp.path().join("store");
    tracelab_ok(&["ingest", s(&raw), "--out", s(&store), "--quiet"]);
    for id in ["seed.muxflow-gpu-util", "seed.horus-interference", "seed.horus-classes"] {
        let out: Value =
            serde_json::from_str(&tracelab_ok(&["analyze", id, "--format", "json", "--store", s(&store)])).unwrap();
        let notes = out["parts"].as_array().unwrap().iter().find(|p| p["name"] == "notes").unwrap();
        let text = notes["rows"].to_string();
        assert!(text.contains("pai"), "{id}: {text}");
    }
    let out = tracelab_ok(&["analyze", "seed.duration-prediction", "--param", "trace=pai", "--store", s(&store)]);
    assert!(out.contains("not in the store"), "{out}");
    let spec = root().join("notebooks-equivalents/seed-systems.toml");
    let report = tmp.path().join("report");
    tracelab_ok(&["report", s(&raw), "--store", s(&store), "--out", s(&report), "--spec", s(&spec)]);
    assert!(report.join("seed-systems/muxflow-series.svg").is_file());
}

/// A value a parameter's declared kind refuses and a value that clashes
/// with another parameter are both usage errors (exit 2) naming it.
#[test]
fn bad_seed_parameters_are_usage_errors() {
    for (id, param, says) in [
        ("seed.muxflow-predictability", "bin=7m", "must divide 1h"),
        ("seed.horus-classes", "k=0", "expected a whole number from 1 to 20"),
        ("seed.pollux-busiest-window", "large=0", "expected a number > 0"),
    ] {
        let (code, _, err) = tracelab(&["analyze", id, "--param", param, "--store", s(sample_store())]);
        assert_eq!(code, 2, "{id} {param}: {err}");
        assert!(err.contains(id) && err.contains(param) && err.contains(says), "{err}");
    }
}
