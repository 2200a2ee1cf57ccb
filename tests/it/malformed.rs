//! The malformed-input corpus (`tests/malformed/<case>/`): each case is a
//! trace directory and an `expect.json` written by hand (by
//! `tests/malformed/make_corpus.py`) with the exit code, the error text, and
//! exactly which records are rejected (table, file, line, column, reason).
//! Beside those independent expectations, one insta snapshot holds every
//! case's whole outcome (exit code, stderr, the rejects' rows), so any
//! change to a message shows up in review.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::*;

#[derive(serde::Deserialize)]
struct Expect {
    exit: i32,
    strict: bool,
    rejects: Vec<ExpectReject>,
    error_contains: Option<String>,
}

#[derive(serde::Deserialize)]
struct ExpectReject {
    table: String,
    file: String,
    line: i64,
    column: String,
    reason_contains: String,
}

/// (table, file, line, column, reason) of every reject in the store.
fn rejects_of(store: &Path) -> Vec<(String, String, i64, String, String)> {
    let mut out = Vec::new();
    for trace in ["pai", "philly", "helios", "swf", "acme", "spot"] {
        let path = store.join(trace).join("rejects.parquet");
        if !path.exists() || !store.join(trace).join("manifest.json").exists() {
            continue;
        }
        let df = read_parquet(&path);
        let text = |c: &str| df.column(c).unwrap().str().unwrap().clone();
        let (table, file, column, reason) = (text("table"), text("file"), text("column"), text("reason"));
        let line = df.column("line").unwrap().i64().unwrap().clone();
        for i in 0..df.height() {
            out.push((
                table.get(i).unwrap().to_string(),
                file.get(i).unwrap().to_string(),
                line.get(i).unwrap(),
                column.get(i).unwrap().to_string(),
                reason.get(i).unwrap().to_string(),
            ));
        }
    }
    out
}

fn balanced(store: &Path) {
    for trace in ["pai", "philly", "helios", "swf", "acme", "spot"] {
        let Ok(text) = std::fs::read_to_string(store.join(trace).join("manifest.json")) else { continue };
        let m: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut rejected = 0;
        for t in m["tables"].as_array().unwrap() {
            let n = |k: &str| t[k].as_u64().unwrap();
            assert_eq!(n("records_in"), n("written") + n("rejected"), "{trace}: {t}");
            if !matches!(t["table"].as_str(), Some("attempts" | "placements")) {
                rejected += n("rejected");
            }
        }
        assert_eq!(m["rejects"].as_u64().unwrap(), rejected, "{trace}: rejects listed = rejected records");
    }
}

/// A case's whole outcome as the snapshot shows it: the exit code, stderr
/// (the temporary store and the corpus's folder replaced by placeholders)
/// and every reject's row.
fn outcome(
    code: i32,
    stderr: &str,
    store: &Path,
    input: &Path,
    rejects: &[(String, String, i64, String, String)],
) -> String {
    let stderr = stderr.replace(s(store), "[STORE]").replace(s(input), "[INPUT]");
    let mut out = format!("exit {code}\n");
    for line in stderr.lines() {
        out.push_str(&format!("stderr: {line}\n"));
    }
    for (table, file, line, column, reason) in rejects {
        out.push_str(&format!("reject: {table} | {file} | {line} | {column} | {reason}\n"));
    }
    out
}

fn run_case(dir: &Path) -> Result<String, String> {
    let expect: Expect = serde_json::from_str(&std::fs::read_to_string(dir.join("expect.json")).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    let input = dir.join("input");
    let mut args = vec!["ingest", s(&input), "--out", s(&store)];
    if expect.strict {
        args.push("--strict");
    }
    let (code, stdout, stderr) = tracelab(&args);
    let ctx = format!("exit {code}\nstdout:\n{stdout}\nstderr:\n{stderr}");
    if code != expect.exit {
        return Err(format!("expected exit {}, got {ctx}", expect.exit));
    }
    if let Some(want) = &expect.error_contains {
        if !stderr.contains(want.as_str()) {
            return Err(format!("stderr lacks {want:?}; {ctx}"));
        }
        if stderr.trim().lines().count() != 1 {
            return Err(format!("the error is not one line; {ctx}"));
        }
    }
    let got = rejects_of(&store);
    let got_keys: BTreeSet<_> = got.iter().map(|r| (r.0.clone(), r.1.clone(), r.2, r.3.clone())).collect();
    let want_keys: BTreeSet<_> =
        expect.rejects.iter().map(|r| (r.table.clone(), r.file.clone(), r.line, r.column.clone())).collect();
    if got_keys != want_keys {
        return Err(format!("rejects differ\n got: {got:?}\nwant: {want_keys:?}"));
    }
    for want in &expect.rejects {
        let hit = got.iter().find(|r| r.1 == want.file && r.2 == want.line).unwrap();
        if !hit.4.contains(&want.reason_contains) {
            return Err(format!("reason {:?} lacks {:?}", hit.4, want.reason_contains));
        }
    }
    balanced(&store);
    Ok(outcome(code, &stderr, &store, &input, &got))
}

#[test]
fn every_malformed_case_gives_its_documented_rejects_or_error() {
    let root = root().join("tests/malformed");
    let mut cases: Vec<_> =
        std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    assert!(cases.len() >= 15, "the corpus has {} cases", cases.len());
    let (mut failures, mut outcomes) = (Vec::new(), String::new());
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        match run_case(case) {
            Ok(outcome) => outcomes.push_str(&format!("== {name}\n{outcome}\n")),
            Err(e) => failures.push(format!("== {name}\n{e}")),
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
    // The whole outcomes, case by case in name order, reviewed in the diff
    // of tests/it/snapshots/ (docs/testing.md).
    insta::assert_snapshot!("malformed_corpus", outcomes);
}
