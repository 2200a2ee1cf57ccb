//! `tracelab analyze helios.*` on a store ingested from `data-samples/`,
//! cross-checked against `tests/crosscheck/analyses_helios.py`, which
//! recomputes every analysis independently with DuckDB SQL (the sequence as
//! an interval join rather than a sweep). Counts must be equal, other
//! numbers within a relative 1e-9.

use serde_json::Value;

use crate::common::*;

/// The value the selector (see the Python script's docstring) picks in a
/// tracelab JSON output.
fn select(out: &Value, selector: &str) -> Option<f64> {
    let parts: Vec<&str> = selector.splitn(4, ':').collect();
    let part = |name: &str| out["parts"].as_array()?.iter().find(|p| p["name"] == name).cloned();
    match parts[0] {
        "headline" => {
            let key = selector.strip_prefix("headline:")?;
            let all = out["parts"].as_array()?.iter().filter_map(|p| p["headlines"].as_array()).flatten();
            all.into_iter().find(|h| h["key"] == key)?["value"].as_f64()
        }
        "points" => Some(series(&part(parts[1])?, parts[2])?.len() as f64),
        "curve" => {
            let (label, x) =
                parts[2..].join(":").rsplit_once(':').map(|(l, x)| (l.to_string(), x.parse::<f64>().ok()))?;
            let pts = series(&part(parts[1])?, &label)?;
            let x = x?;
            pts.iter().find(|p| (p[0].as_f64().unwrap_or(f64::NAN) - x).abs() < 1e-9)?[1].as_f64()
        }
        "row" => {
            let p = part(parts[1])?;
            let cols: Vec<&str> = p["columns"].as_array()?.iter().filter_map(Value::as_str).collect();
            let ci = cols.iter().position(|c| *c == parts[3])?;
            let rows = p["rows"].as_array()?;
            let row = match parts[2].strip_prefix('#') {
                Some(i) => rows.get(i.parse::<usize>().ok()?)?,
                None => rows.iter().find(|r| row_matches(r, parts[2]))?,
            };
            row[ci].as_f64()
        }
        _ => None,
    }
}

fn series(part: &Value, label: &str) -> Option<Vec<Vec<Value>>> {
    let s = part["series"].as_array()?.iter().find(|s| s["label"] == label)?;
    Some(s["points"].as_array()?.iter().map(|p| p.as_array().cloned().unwrap_or_default()).collect())
}

/// The row's first cells, as text, equal `v1|v2|..`.
fn row_matches(row: &Value, key: &str) -> bool {
    key.split('|').enumerate().all(|(i, k)| match &row[i] {
        Value::String(s) => s == k,
        Value::Number(n) => n.to_string() == k,
        _ => false,
    })
}

#[test]
fn every_helios_analysis_matches_duckdb_on_the_samples() {
    let select = |out: &Value, selector: &str| select(out, selector).map(Value::from);
    let checked = crosscheck("tests/crosscheck/analyses_helios.py", sample_store(), select, |a, b| {
        a.as_f64().is_some() && close_within(a, b, 1e-300)
    });
    assert!(checked > 1000, "only {checked} checks");
}
