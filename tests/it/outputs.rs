//! Representative outputs whose whole text is the contract, as insta
//! snapshots (tests/it/snapshots/, reviewed in the diff; docs/testing.md):
//! a verb's stdout, stderr and exit code together, with the machine's
//! paths replaced by placeholders. They complement the tests that check
//! values computed independently (tables.rs against the Parquet files,
//! the DuckDB cross-checks); they do not replace them.

use std::path::Path;

use crate::common::*;

/// `tracelab ARGS` as a snapshot shows it: exit code, stdout, stderr; each
/// `(path, placeholder)` replaced (temporary folders, the sample store).
fn whole(args: &[&str], paths: &[(&Path, &str)]) -> String {
    let (code, stdout, stderr) = tracelab(args);
    let mut text = format!("exit {code}\n--- stdout\n{stdout}--- stderr\n{stderr}");
    for (path, placeholder) in paths {
        text = text.replace(s(path), placeholder);
    }
    text
}

fn samples() -> [(&'static Path, &'static str); 1] {
    [(sample_store(), "[SAMPLES]")]
}

/// The file sizes are left out: they follow the Parquet encoding, which
/// `every_table_is_one_row_with_its_rows_columns_and_size` (tables.rs)
/// checks against the files themselves.
#[test]
fn tables_of_the_sample_store() {
    let out = whole(&["tables", "--store", s(sample_store()), "--format", "csv"], &samples());
    let sizeless: Vec<&str> = out.lines().map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head)).collect();
    insta::assert_snapshot!(sizeless.join("\n"));
}

#[test]
fn one_table_of_the_sample_store() {
    insta::assert_snapshot!(whole(&["tables", "helios_jobs", "--store", s(sample_store())], &samples()));
}

#[test]
fn an_unknown_table_is_refused_with_the_nearest_names() {
    insta::assert_snapshot!(whole(&["tables", "philly_job", "--store", s(sample_store())], &samples()));
}

#[test]
fn store_pointing_at_a_folder_without_a_store() {
    let tmp = tempfile::tempdir().unwrap();
    insta::assert_snapshot!(whole(&["tables", "--store", s(tmp.path())], &[(tmp.path(), "[TMP]")]));
}

#[test]
fn a_named_query_as_csv() {
    let args = ["query", "helios-usage-by-vc", "--store", s(sample_store()), "--format", "csv"];
    insta::assert_snapshot!(whole(&args, &samples()));
}

#[test]
fn helios_cluster_summary() {
    let args = ["analyze", "helios.cluster-summary", "--store", s(sample_store()), "--format", "table"];
    insta::assert_snapshot!(whole(&args, &samples()));
}

#[test]
fn a_simulation_summary_in_the_narrow_format() {
    let args = [
        "simulate",
        "--store",
        s(sample_store()),
        "--trace",
        "helios:Venus",
        "--policy",
        "fifo,sjf",
        "--format",
        "table",
    ];
    insta::assert_snapshot!(whole(&args, &samples()));
}

#[test]
fn an_ingest_error_for_a_missing_column() {
    let input = root().join("tests/malformed/acme-missing-column/input");
    let tmp = tempfile::tempdir().unwrap();
    let args = ["ingest", s(&input), "--out", s(tmp.path())];
    insta::assert_snapshot!(whole(&args, &[(tmp.path(), "[TMP]"), (&input, "[INPUT]")]));
}
