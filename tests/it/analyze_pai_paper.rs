//! The PAI paper-only analyses against an independent DuckDB recomputation
//! (`tests/crosscheck/analyses_pai_paper.py`) on a store ingested from the
//! bundled PAI sample: every key the script prints must match tracelab's
//! JSON output (relative tolerance 1e-9; counts therefore exactly).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::Value;

use crate::common::*;

const IDS: [&str; 9] = [
    "pai.machine-util",
    "pai.gpu-sharing",
    "pai.cpu-contention",
    "pai.heavy-tails",
    "pai.recurrence",
    "pai.supply-demand",
    "pai.allocation-by-gpu-type",
    "pai.workloads",
    "pai.gang-and-constraints",
];

/// One PAI-only store for all tests of this file, and the script's output.
fn fixture() -> &'static (tempfile::TempDir, Value) {
    static F: OnceLock<(tempfile::TempDir, Value)> = OnceLock::new();
    F.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let raw = tmp.path().join("raw");
        copy_dir(&root().join("data-samples/pai"), &raw.join("pai"));
        let store = tmp.path().join("store");
        tracelab_ok(&["ingest", s(&raw), "--out", s(&store)]);
        let out = python("tests/crosscheck/analyses_pai_paper.py", &[s(&store)]);
        (tmp, serde_json::from_str(&out).expect("crosscheck JSON"))
    })
}

/// tracelab's JSON flattened to the script's keys: `part/series/stat` for
/// distributions, the key for headlines, `row/column` for tables (first
/// cell names the row; `metric/method` -> r for correlation tables), and
/// rows / sum / max of the v100-load matrix.
fn flatten(out: &Value) -> BTreeMap<String, Value> {
    let mut m = BTreeMap::new();
    for part in out["parts"].as_array().unwrap() {
        let name = part["name"].as_str().unwrap();
        match part["kind"].as_str().unwrap() {
            "dists" => {
                for s in part["series"].as_array().unwrap() {
                    let label = s["label"].as_str().unwrap();
                    m.insert(format!("{name}/{label}/n"), s["n"].clone());
                    m.insert(format!("{name}/{label}/max"), s["max"].clone());
                    for (q, v) in s["quantiles"].as_object().unwrap() {
                        m.insert(format!("{name}/{label}/{q}"), v.clone());
                    }
                }
            }
            "headlines" => {
                for h in part["headlines"].as_array().unwrap() {
                    m.insert(h["key"].as_str().unwrap().to_string(), h["value"].clone());
                }
            }
            "table" => flatten_table(name, part, &mut m),
            _ => {}
        }
    }
    m
}

fn flatten_table(name: &str, part: &Value, m: &mut BTreeMap<String, Value>) {
    let columns: Vec<&str> = part["columns"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    let rows = part["rows"].as_array().unwrap();
    if name == "v100-load" {
        let values: Vec<f64> = rows.iter().map(|r| r[2].as_f64().unwrap()).collect();
        m.insert("v100-load/rows".into(), Value::from(values.len() as f64));
        m.insert("v100-load/sum".into(), Value::from(values.iter().sum::<f64>()));
        m.insert("v100-load/max".into(), Value::from(values.iter().copied().fold(f64::MIN, f64::max)));
        return;
    }
    for r in rows {
        let key = r[0].as_str().map_or_else(|| r[0].to_string(), str::to_string);
        if columns.contains(&"method") {
            let method = r[1].as_str().unwrap();
            m.insert(format!("{key}/{method}"), r[3].clone());
            m.insert(format!("{key}/n"), r[2].clone());
            continue;
        }
        for (c, v) in columns.iter().zip(r.as_array().unwrap()).skip(1) {
            m.insert(format!("{key}/{c}"), v.clone());
        }
    }
}

fn close(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1e-3),
        _ => a.is_null() && b.is_null(),
    }
}

fn check(id: &str) {
    let (tmp, expected) = fixture();
    let json = tracelab_ok(&["analyze", id, "--format", "json", "--store", s(&tmp.path().join("store"))]);
    let ours = flatten(&serde_json::from_str(&json).unwrap());
    let want = expected[id].as_object().unwrap_or_else(|| panic!("no crosscheck for {id}"));
    assert!(!want.is_empty(), "{id}: no keys");
    let mut bad = Vec::new();
    for (k, v) in want {
        match ours.get(k) {
            Some(got) if close(got, v) => {}
            got => bad.push(format!("{k}: tracelab {got:?} vs duckdb {v}")),
        }
    }
    assert!(bad.is_empty(), "{id}: {} of {} keys differ:\n{}", bad.len(), want.len(), bad.join("\n"));
}

#[test]
fn machine_util_matches_duckdb() {
    check(IDS[0]);
}

#[test]
fn gpu_sharing_matches_duckdb() {
    check(IDS[1]);
}

#[test]
fn cpu_contention_matches_duckdb() {
    check(IDS[2]);
}

#[test]
fn heavy_tails_match_duckdb() {
    check(IDS[3]);
}

#[test]
fn recurrence_matches_duckdb() {
    check(IDS[4]);
}

#[test]
fn supply_demand_matches_duckdb() {
    check(IDS[5]);
}

#[test]
fn allocation_by_gpu_type_matches_duckdb() {
    check(IDS[6]);
}

#[test]
fn workloads_match_duckdb() {
    check(IDS[7]);
}

#[test]
fn gang_and_constraints_match_duckdb() {
    check(IDS[8]);
}
