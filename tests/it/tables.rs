//! `tracelab tables`: the tables of the store with rows, columns, types and
//! units, checked against the Parquet files and the schema the CLI documents.

use std::collections::BTreeMap;

use crate::common::*;

/// Without NAME: one row per table (not one per column), with its rows,
/// columns and file size checked against the Parquet files themselves.
#[test]
fn every_table_is_one_row_with_its_rows_columns_and_size() {
    let store = sample_store();
    let out = tracelab_ok(&["tables", "--store", s(store), "--format", "csv"]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("table,trace,rows,columns,size"));
    let mut listed: BTreeMap<String, (usize, usize, u64)> = BTreeMap::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        listed.insert(f[0].to_string(), (f[2].parse().unwrap(), f[3].parse().unwrap(), f[4].parse().unwrap()));
    }
    let schema: serde_json::Value = serde_json::from_str(&tracelab_ok(&["schema", "all", "--format", "json"])).unwrap();
    let mut seen = 0;
    for t in schema.as_array().unwrap() {
        let path = match t["table"].as_str().unwrap().split_once('/') {
            Some((trace, _)) => store.join(trace).join(t["file"].as_str().unwrap()),
            None => store.join(t["file"].as_str().unwrap()),
        };
        let df = read_parquet(&path);
        let (sql_name, (rows, columns, _)) = listed
            .iter()
            .find(|(_, (_, cols, size))| *cols == df.width() && *size == std::fs::metadata(&path).unwrap().len())
            .unwrap_or_else(|| panic!("{} not listed: {listed:?}", path.display()));
        assert_eq!((*rows, *columns), (df.height(), df.width()), "{sql_name}");
        seen += 1;
    }
    assert_eq!(seen, listed.len(), "{listed:?}");
    assert!(
        listed.contains_key("pai_instances") && listed.contains_key("philly_attempts") && listed.contains_key("jobs")
    );
}

#[test]
fn one_table_shows_units_and_meaning() {
    let store = sample_store();
    let out = tracelab_ok(&["tables", "philly_jobs", "--store", s(store), "--format", "json"]);
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let queue = rows.as_array().unwrap().iter().find(|r| r["column"] == "queue_s").unwrap();
    assert_eq!(queue["unit"], "s");
    assert_eq!(queue["type"], "float64");
    assert!(queue["meaning"].as_str().unwrap().contains("first_start_time - submit_time"));
    // An unknown name: outputs.rs holds the whole error as a snapshot.
}
