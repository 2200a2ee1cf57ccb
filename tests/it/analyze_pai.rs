//! `tracelab analyze pai.*` (the notebook cells) against DuckDB: the script
//! `tests/crosscheck/analyses_pai.py` recomputes each analysis from the
//! owners' definitions over the same Parquet store and names the numbers it
//! expects by their place in the JSON output.

use serde_json::Value;

use crate::common::{close_within, crosscheck, s, sample_store, tracelab, tracelab_ok};

/// Finds the number an address names in an analysis' JSON output (see the
/// script's docstring for the address forms).
fn resolve(out: &Value, address: &str) -> Option<f64> {
    let (kind, rest) = address.split_once(':')?;
    let part_of = |name: &str| out["parts"].as_array()?.iter().find(|p| p["name"] == name).cloned();
    let headline =
        |key: &str| -> Option<f64> {
            out["parts"].as_array()?.iter().filter(|p| p["kind"] == "headlines").find_map(|p| {
                p["headlines"].as_array()?.iter().find(|h| h["key"] == key).and_then(|h| h["value"].as_f64())
            })
        };
    match kind {
        "headline" => headline(rest),
        "dist" => {
            let mut it = rest.splitn(3, '/');
            let (part, series, stat) = (it.next()?, it.next()?, it.next()?);
            let p = part_of(part)?;
            let sr = p["series"].as_array()?.iter().find(|x| x["label"] == series)?.clone();
            match stat {
                "n" | "mean" => sr[stat].as_f64(),
                q => sr["quantiles"][q].as_f64(),
            }
        }
        "table" => {
            let mut it = rest.splitn(3, '/');
            let (part, filter, column) = (it.next()?, it.next()?, it.next()?);
            let (fcol, fval) = filter.split_once('=')?;
            let p = part_of(part)?;
            let cols: Vec<&str> = p["columns"].as_array()?.iter().filter_map(Value::as_str).collect();
            let (fi, ci) = (cols.iter().position(|c| *c == fcol)?, cols.iter().position(|c| *c == column)?);
            let row = p["rows"].as_array()?.iter().find(|r| match &r[fi] {
                Value::String(v) => v == fval,
                v => v.as_f64().is_some_and(|x| x.to_string() == fval),
            })?;
            row[ci].as_f64()
        }
        "curve" => {
            let mut it = rest.splitn(3, '/');
            let (part, series, x) = (it.next()?, it.next()?, it.next()?.parse::<f64>().ok()?);
            let p = part_of(part)?;
            let sr = p["series"].as_array()?.iter().find(|c| c["label"] == series)?.clone();
            let point = sr["points"].as_array()?.iter().find(|pt| pt[0].as_f64() == Some(x))?.clone();
            point[1].as_f64()
        }
        _ => None,
    }
}

#[test]
fn pai_notebook_analyses_agree_with_duckdb_on_the_samples() {
    let resolve = |out: &Value, address: &str| resolve(out, address).map(Value::from);
    let checked =
        crosscheck("tests/crosscheck/analyses_pai.py", sample_store(), resolve, |a, b| close_within(a, b, 1.0));
    assert!(checked > 80, "only {checked} numbers checked");
}

#[test]
fn every_registered_analysis_is_listed_and_unknown_ones_are_usage_errors() {
    let list = tracelab_ok(&["analyze", "--list"]);
    for id in ["pai.wait-by-gpu-type", "pai.usage-minus-request", "pai.submissions-by-hour"] {
        assert!(list.contains(id), "{id} missing from --list");
    }
    let (code, _, err) = tracelab(&["analyze", "pai.wait-by-gpu", "--store", "/nonexistent"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean pai.wait-by-gpu-request, pai.wait-by-gpu-type?"), "{err}");
}

#[test]
fn a_bad_parameter_names_what_the_analysis_takes() {
    let store = sample_store();
    let (code, _, err) = tracelab(&["analyze", "pai.wait-by-gpu-type", "--store", s(store), "--param", "bin=5m"]);
    assert_eq!(code, 2);
    assert!(err.contains("takes: wait=task-to-instance (task-to-instance|job-to-task)"), "{err}");
    let (code, _, err) = tracelab(&["analyze", "pai.wait-by-gpu-type", "--store", s(store), "--param", "wait=both"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected one of task-to-instance, job-to-task"), "{err}");
}

/// The x values of every curve of one part of `tracelab analyze ID`.
fn curve_hours(id: &str, part: &str) -> Vec<f64> {
    let out: Value =
        serde_json::from_str(&tracelab_ok(&["analyze", id, "--store", s(sample_store()), "--format", "json"]))
            .expect("json");
    let part = out["parts"].as_array().unwrap().iter().find(|p| p["name"] == part).unwrap().clone();
    let series = part["series"].as_array().unwrap();
    series.iter().flat_map(|s| s["points"].as_array().unwrap().iter().map(|p| p[0].as_f64().unwrap())).collect()
}

/// The notebook plots A3 over hours 0..=168 (`hour < 24*7+1`) and A5 over
/// 0..=167 (`hour < 24*7`); the samples have both tasks and instances
/// starting in hour 168.
#[test]
fn the_week_series_cover_the_notebooks_hours() {
    let tasks = curve_hours("pai.hourly-submissions", "tasks");
    assert_eq!(tasks.iter().copied().fold(f64::MIN, f64::max), 168.0);
    let requests = curve_hours("pai.hourly-requests", "requests");
    assert_eq!(requests.iter().copied().fold(f64::MIN, f64::max), 167.0);
    assert!(requests.iter().all(|h| (0.0..=167.0).contains(h)));
}
