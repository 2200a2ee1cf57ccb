//! `tracelab analyze philly.* / cross.*` on a store ingested from
//! `data-samples/`, every number compared with an independent DuckDB
//! computation of the same definition (`tests/crosscheck/analyses_philly.py`).

use serde_json::Value;

use crate::common::*;

/// Where `key` ("part|a|b", see the Python script's docstring) sits in one
/// analysis's JSON output.
fn lookup(out: &Value, key: &str) -> Option<Value> {
    let bits: Vec<&str> = key.split('|').collect();
    let part = out["parts"].as_array()?.iter().find(|p| p["name"] == bits[0])?;
    match part["kind"].as_str()? {
        "dists" => {
            let s = part["series"].as_array()?.iter().find(|s| s["label"] == bits[1])?;
            let v = if ["n", "mean", "min", "max"].contains(&bits[2]) { &s[bits[2]] } else { &s["quantiles"][bits[2]] };
            Some(v.clone())
        }
        "headlines" => Some(part["headlines"].as_array()?.iter().find(|h| h["key"] == bits[1])?["value"].clone()),
        "curves" => {
            let s = part["series"].as_array()?.iter().find(|s| s["label"] == bits[1])?;
            let x: f64 = bits[2].trim_start_matches('@').parse().ok()?;
            Some(s["points"].as_array()?.iter().find(|p| p[0].as_f64() == Some(x))?[1].clone())
        }
        "table" => table_cell(part, &bits[1..]),
        _ => None,
    }
}

/// A table cell by (row id, column); row id = the first cells joined by
/// ","; the pseudo-key "rows" is the row count.
fn table_cell(part: &Value, bits: &[&str]) -> Option<Value> {
    let rows = part["rows"].as_array()?;
    if bits == ["rows"] {
        return Some(Value::from(rows.len()));
    }
    let id: Vec<&str> = bits[0].split(',').collect();
    let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    let row = rows.iter().find(|r| id.iter().enumerate().all(|(i, want)| text(&r[i]) == *want))?;
    let col = part["columns"].as_array()?.iter().position(|c| c == bits[1])?;
    Some(row[col].clone())
}

fn close(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
        _ => a.is_null() && b.is_null(),
    }
}

#[test]
fn philly_and_cross_analyses_agree_with_duckdb_on_the_samples() {
    let store = sample_store();
    let expected: Value = serde_json::from_str(&python("tests/crosscheck/analyses_philly.py", &[s(store)])).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (id, keys) in expected.as_object().unwrap() {
        let out: Value =
            serde_json::from_str(&tracelab_ok(&["analyze", id, "--store", s(store), "--format", "json"])).unwrap();
        for (key, want) in keys.as_object().unwrap() {
            checked += 1;
            match lookup(&out, key) {
                Some(got) if close(&got, want) => {}
                got => failures.push(format!("{id} {key}: tracelab {got:?}, duckdb {want}")),
            }
        }
    }
    assert!(failures.is_empty(), "{} of {checked} values differ:\n{}", failures.len(), failures.join("\n"));
    assert!(checked > 500, "only {checked} values checked");
}
