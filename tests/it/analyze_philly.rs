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

#[test]
fn philly_and_cross_analyses_agree_with_duckdb_on_the_samples() {
    let checked =
        crosscheck("tests/crosscheck/analyses_philly.py", sample_store(), lookup, |a, b| close_within(a, b, 1.0));
    assert!(checked > 500, "only {checked} values checked");
}

/// `clock=wall` gives the numbers of the notebook's naive datetime
/// arithmetic, recomputed from the raw job log by
/// `tests/crosscheck/philly_notebook.py`; the samples have jobs spanning the
/// 2017-11-05 fall-back, where the default UTC clock differs.
#[test]
fn the_wall_clock_reproduces_the_notebook_on_the_raw_job_log() {
    let checked =
        crosscheck("tests/crosscheck/philly_notebook.py", sample_store(), lookup, |a, b| close_within(a, b, 1.0));
    assert!(checked > 100, "only {checked} values checked");
    let run = |clock: &str| {
        let args = ["analyze", "philly.runtime-by-size", "--store", s(sample_store()), "--param", clock];
        let out: Value = serde_json::from_str(&tracelab_ok(&[&args[..], &["--format", "json"]].concat())).unwrap();
        out["parts"][0]["series"].clone()
    };
    assert_ne!(run("clock=utc"), run("clock=wall"));
}
