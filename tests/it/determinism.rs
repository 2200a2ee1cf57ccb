//! The same input gives the same bytes, also when Polars cuts the tables
//! into many pieces that its threads take in a varying order, as at full
//! scale. The sample store is one piece per table by default, so these
//! runs set Polars' morsel size to 64 rows; `POLARS_FORCE_PARTITION` asks
//! for the partitioned group-by that adds a group's floats in a varying
//! order, which the binary must refuse (`src/main.rs`,
//! `aggregate_groups_in_row_order`). Every analysis, with every allowed
//! value of its listed parameters, and every named query are run twice and
//! compared at full precision (analysis JSON, query Parquet).

use std::process::{Child, Stdio};

use crate::common::*;

/// `tracelab A` and `tracelab B` at once (the two cores), with the store
/// cut into 64-row morsels; their stdouts.
fn both_in_small_pieces(a: &[&str], b: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let spawn = |args: &[&str]| {
        tracelab_in_small_pieces(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("run tracelab")
    };
    let stdout = |child: Child, args: &[&str]| {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "tracelab {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let (first, second) = (spawn(a), spawn(b));
    (stdout(first, a), stdout(second, b))
}

/// (name, [[param=value, ...], ...]) from `<verb> --list --format json`: the
/// defaults, then each allowed value of each `a|b|c` parameter.
fn cases(verb: &str) -> Vec<(String, Vec<Vec<String>>)> {
    let list = tracelab_ok(&[verb, "--list", "--format", "json"]);
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    let mut all = Vec::new();
    for entry in list.as_array().unwrap() {
        let mut runs = vec![Vec::new()];
        // `resource (cpu|gpu|mem, default cpu); top (int, default 20)`
        for p in entry["params"].as_str().unwrap().split("; ").filter(|p| !p.is_empty()) {
            let Some((name, rest)) = p.split_once(" (") else { continue };
            let kind = rest.split_once(", default").map_or("", |(k, _)| k);
            if kind.contains('|') {
                runs.extend(kind.split('|').map(|v| vec![format!("{name}={v}")]));
            }
        }
        all.push((entry["name"].as_str().unwrap().to_string(), runs));
    }
    all
}

fn with_params<'a>(mut args: Vec<&'a str>, params: &'a [String]) -> Vec<&'a str> {
    for p in params {
        args.extend(["--param", p.as_str()]);
    }
    args
}

#[test]
fn every_analysis_prints_the_same_json_twice_from_a_store_in_small_pieces() {
    let store = s(sample_store());
    let (mut runs, mut differ) = (0, Vec::new());
    for (id, params) in cases("analyze") {
        for p in &params {
            let args = with_params(vec!["analyze", id.as_str(), "--store", store, "--format", "json"], p);
            let (first, second) = both_in_small_pieces(&args, &args);
            if first != second {
                differ.push(format!("{id} {p:?}"));
            }
            runs += 1;
        }
    }
    assert!(runs > 100, "only {runs} analysis runs: is `analyze --list --format json` still parsed right?");
    assert!(differ.is_empty(), "differ between two runs: {differ:#?}");
}

#[test]
fn every_named_query_writes_the_same_parquet_twice_from_a_store_in_small_pieces() {
    let dir = tempfile::tempdir().unwrap();
    let store = s(sample_store());
    let (one, two) = (dir.path().join("1.parquet"), dir.path().join("2.parquet"));
    let (mut runs, mut differ) = (0, Vec::new());
    for (name, params) in cases("query") {
        for p in &params {
            let args = |out| with_params(vec!["query", name.as_str(), "--store", store, "-o", s(out)], p);
            both_in_small_pieces(&args(&one), &args(&two));
            if std::fs::read(&one).unwrap() != std::fs::read(&two).unwrap() {
                differ.push(format!("{name} {p:?}"));
            }
            runs += 1;
        }
    }
    assert!(runs > 20, "only {runs} query runs: is `query --list --format json` still parsed right?");
    assert!(differ.is_empty(), "differ between two runs: {differ:#?}");
}
