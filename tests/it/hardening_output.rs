//! What tracelab prints, attacked and enumerated: trace strings holding
//! newlines, quotes, commas, ESC sequences, U+202E and U+FFFE go through
//! every format of `query` and `analyze` (a terminal table shows them
//! escaped and never sends them; CSV, JSON, JSONL and Parquet give them
//! back exactly, checked with Python's csv module, serde_json and Polars);
//! every verb in every format gives output its reader parses; the tidy
//! analyze CSV loads in pandas with the values DuckDB computes; and the
//! completion script and man pages cover the verbs.

use std::path::{Path, PathBuf};

use polars::prelude::*;

use crate::common::*;

/// A cluster name no terminal should receive as it is.
const HOSTILE: &str = "Ve\nnus, \"q\" \u{1b}[31mred\u{1b}[0m \u{1b}]0;owned\u{7} \u{202e}lave\u{fffe}";

/// The samples store with Helios' `Venus` renamed to [`HOSTILE`] in the
/// unified jobs table.
fn hostile_store() -> &'static Path {
    static STORE: std::sync::OnceLock<(tempfile::TempDir, PathBuf)> = std::sync::OnceLock::new();
    &STORE
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let store = dir.path().join("store");
            copy_dir(sample_store(), &store);
            let jobs = store.join("jobs.parquet");
            let renamed = when(col("cluster").eq(lit("Venus"))).then(lit(HOSTILE)).otherwise(col("cluster"));
            let df = read_parquet(&jobs).lazy().with_column(renamed.alias("cluster")).collect().unwrap();
            republish_unified(&store, &df);
            (dir, store)
        })
        .1
}

/// Publishes `df` as the store's unified jobs table through the store's
/// own writer, so its manifest vouches for the changed file (a file edited
/// in place is refused on open).
fn republish_unified(store: &Path, df: &DataFrame) {
    use tracelab_store::parquet::{polars_schema, ParquetFile};
    use tracelab_store::publish::StoreWriter;
    let mut writer = StoreWriter::open(store, &|_| {}).unwrap();
    writer.exclusive(&|_| {}).unwrap();
    let publication = writer.begin_unified().unwrap();
    let staged = publication.stage(&tracelab_schema::unified::JOBS);
    let mut file = ParquetFile::create(&staged.path, &polars_schema(&tracelab_schema::unified::JOBS)).unwrap();
    file.write(df).unwrap();
    let written = file.finish().unwrap();
    let traces = df.column("trace").unwrap().str().unwrap().clone();
    let rows: Vec<(String, u64)> = ["pai", "philly", "helios"]
        .into_iter()
        .map(|t| (t.to_string(), traces.iter().filter(|v| *v == Some(t)).count() as u64))
        .filter(|(_, n)| *n > 0)
        .collect();
    publication.commit_unified(rows, (staged, written)).unwrap();
}

const HOSTILE_SQL: &str =
    "SELECT cluster, count(*) AS jobs FROM jobs WHERE trace = 'helios' GROUP BY cluster ORDER BY cluster";

fn run(args: &[&str], store: &Path) -> String {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--store", s(store)]);
    tracelab_ok(&all)
}

/// What a terminal must not receive: ESC, the bidi override, U+FFFE, BEL.
fn assert_inert(out: &str, what: &str) {
    for c in ['\u{1b}', '\u{202e}', '\u{fffe}', '\u{7}'] {
        assert!(!out.contains(c), "{what}: U+{:04X} reached the output:\n{out}", c as u32);
    }
}

#[test]
fn a_terminal_table_shows_hostile_strings_escaped() {
    let store = hostile_store();
    for args in [
        vec!["query", HOSTILE_SQL, "--format", "table"],
        vec!["analyze", "cross.runtime", "--format", "table"],
        vec!["query", HOSTILE_SQL, "--format", "markdown"],
        vec!["analyze", "cross.runtime", "--format", "markdown"],
    ] {
        let out = run(&args, store);
        assert_inert(&out, &args.join(" "));
        // A line break: `\n` in a terminal table, `<br>` in Markdown, where
        // a `[` (a link's start) gets a backslash too.
        let markdown = args.contains(&"markdown");
        let (newline, esc) = if markdown { ("Ve<br>nus", "\\x1b\\[31mred") } else { ("Ve\\nnus", "\\x1b[31mred") };
        assert!(out.contains(newline), "{args:?}: the newline is not shown escaped:\n{out}");
        assert!(out.contains(esc) && out.contains("\\u202elave\\ufffe"), "{args:?}:\n{out}");
        // Every line of a box table is a table line: no row was forged.
        if args.contains(&"table") {
            let body = out.lines().skip_while(|l| !l.starts_with('┌')).take_while(|l| !l.starts_with('└'));
            assert!(body.clone().all(|l| l.starts_with(['│', '╞', '├', '┌'])), "{out}");
        }
    }
}

/// An error quotes what it was given (the query's line, a parameter's
/// value, a path): shown escaped on stderr as well, never sent.
#[test]
fn an_error_quoting_hostile_text_sends_no_control_sequence() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("q.sql");
    // The column does not exist: the error quotes the line and underlines it.
    std::fs::write(&file, format!("SELECT '{HOSTILE}' AS x, nope FROM jobs")).unwrap();
    let missing = format!("{}/{HOSTILE}", dir.path().display());
    let store = sample_store();
    for args in [
        vec!["query", "-f", s(&file), "--store", s(store)],
        vec!["query", "top-users-by-gpu-hours", "--param", &format!("trace={HOSTILE}"), "--store", s(store)],
        vec!["query", "SELECT 1 AS one", "--store", &missing],
    ] {
        let (code, _, err) = tracelab(&args);
        assert_ne!(code, 0, "{args:?}");
        assert_inert(&err, &format!("{args:?}"));
        assert!(err.contains("\\x1b[31mred") && err.contains("\\u202elave"), "{args:?}:\n{err}");
    }
}

/// The cells of the hostile cluster's row, read back by an independent
/// reader of each format.
#[test]
fn csv_json_jsonl_and_parquet_keep_hostile_strings_exact() {
    let store = hostile_store();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("q.csv");
    std::fs::write(&csv, run(&["query", HOSTILE_SQL, "--format", "csv"], store)).unwrap();
    let rows: Vec<Vec<String>> = serde_json::from_str(&python("tests/crosscheck/csv_rows.py", &[s(&csv)])).unwrap();
    assert!(rows.iter().any(|r| r[0] == HOSTILE), "CSV: {rows:?}");
    assert!(rows.iter().all(|r| r.len() == 2), "CSV: a field broke the layout: {rows:?}");

    let json: serde_json::Value =
        serde_json::from_str(&run(&["query", HOSTILE_SQL, "--format", "json"], store)).unwrap();
    assert!(json.as_array().unwrap().iter().any(|r| r["cluster"] == HOSTILE), "{json}");
    let jsonl = run(&["query", HOSTILE_SQL, "--format", "jsonl"], store);
    let objects: Vec<serde_json::Value> = jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(objects.iter().any(|r| r["cluster"] == HOSTILE), "{jsonl}");

    let parquet = dir.path().join("q.parquet");
    run(&["query", HOSTILE_SQL, "-o", s(&parquet)], store);
    let df = read_parquet(&parquet);
    let clusters = df.column("cluster").unwrap().str().unwrap().clone();
    assert!((0..clusters.len()).any(|i| clusters.get(i) == Some(HOSTILE)));

    // analyze: the series label carries the cluster name.
    let tidy = dir.path().join("a.csv");
    std::fs::write(&tidy, run(&["analyze", "cross.runtime", "--format", "csv"], store)).unwrap();
    let rows: Vec<Vec<String>> = serde_json::from_str(&python("tests/crosscheck/csv_rows.py", &[s(&tidy)])).unwrap();
    let width = rows[0].len();
    assert!(rows.iter().all(|r| r.len() == width), "tidy CSV: a field broke the layout");
    assert!(rows.iter().any(|r| r[1] == format!("helios/{HOSTILE}")), "tidy CSV: {:?}", &rows[..3]);
    let json: serde_json::Value =
        serde_json::from_str(&run(&["analyze", "cross.runtime", "--format", "json"], store)).unwrap();
    assert!(json.to_string().contains(&serde_json::to_string(&format!("helios/{HOSTILE}")).unwrap()));
}

/// Every verb in every format: exit 0 and output its reader accepts.
#[test]
fn every_verb_writes_every_format() {
    let store = sample_store();
    let dir = tempfile::tempdir().unwrap();
    let verbs: [&[&str]; 8] = [
        &["query", "SELECT trace, count(*) AS jobs FROM jobs GROUP BY trace ORDER BY trace"],
        &["query", "--list"],
        &["analyze", "pai.wait-by-gpu-type"],
        &["analyze", "--list"],
        &["tables"],
        &["tables", "philly_jobs"],
        &["schema", "philly"],
        &["synth", "helios", "--scale", "0.0005", "--quiet"],
    ];
    for (i, verb) in verbs.iter().enumerate() {
        let store_args: Vec<&str> = match verb[0] {
            "query" | "analyze" | "tables" => vec!["--store", s(store)],
            "synth" => vec!["--out", s(dir.path())],
            _ => vec![],
        };
        for format in ["table", "csv", "json", "jsonl", "parquet", "markdown"] {
            if verb[0] == "synth" && format == "parquet" {
                continue; // synth lists its files on stdout; it has no -o
            }
            let file = dir.path().join(format!("{i}.{}", if format == "markdown" { "md" } else { format }));
            let mut args: Vec<&str> = verb.to_vec();
            args.extend(&store_args);
            args.extend(["--format", format]);
            if format == "parquet" {
                args.extend(["-o", s(&file)]);
            }
            let out = tracelab_ok(&args);
            let what = format!("{} --format {format}", verb.join(" "));
            check_format(format, &out, &file, &what);
        }
    }
}

fn check_format(format: &str, out: &str, file: &Path, what: &str) {
    if out.is_empty() && format != "parquet" {
        // synth --quiet prints nothing: nothing to parse.
        assert!(what.starts_with("synth"), "{what}: no output");
        return;
    }
    match format {
        "table" => assert!(out.contains('┆') || out.contains('│') || out.contains("  "), "{what}:\n{out}"),
        "csv" => {
            std::fs::write(file, out).unwrap();
            let rows: Vec<Vec<String>> =
                serde_json::from_str(&python("tests/crosscheck/csv_rows.py", &[s(file)])).unwrap();
            assert!(rows.len() >= 2 && rows.iter().all(|r| r.len() == rows[0].len()), "{what}:\n{out}");
        }
        "json" => assert!(serde_json::from_str::<serde_json::Value>(out).is_ok(), "{what}:\n{out}"),
        "jsonl" => {
            assert!(out.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).unwrap().is_object()), "{what}")
        }
        "parquet" => assert!(read_parquet(file).height() > 0, "{what}"),
        "markdown" => assert!(out.contains("|---") || out.contains("| ---") || out.starts_with('#'), "{what}:\n{out}"),
        _ => unreachable!(),
    }
}

/// Piped (as tests run), every verb's default is CSV.
#[test]
fn piped_output_defaults_to_csv() {
    let store = sample_store();
    let out = tracelab_ok(&["analyze", "pai.wait-by-gpu-type", "--store", s(store)]);
    assert!(out.starts_with("part,series,"), "{out}");
    let out = tracelab_ok(&["analyze", "--list"]);
    assert!(out.starts_with("name,scope,mirrors,params,summary\n"), "{out}");
    let out = tracelab_ok(&["tables", "--store", s(store)]);
    assert!(out.starts_with("table,trace,rows,columns,size\n"), "{out}");
    let out = tracelab_ok(&["schema", "jobs"]);
    assert!(out.starts_with("trace,table,file,column,type,unit,nulls,meaning\n"), "{out}");
}

#[test]
fn usage_errors_of_the_output_convention_exit_2() {
    let store = sample_store();
    let (code, _, err) = tracelab(&["query", "SELECT 1 AS x", "--store", s(store), "-o", "out.xlsx"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("-o out.xlsx: unknown extension"), "{err}");
    let (code, _, err) = tracelab(&[
        "analyze",
        "pai.wait-by-gpu-type",
        "--store",
        s(store),
        "-p",
        "wait=job-to-task",
        "-p",
        "wait=task-to-instance",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--param wait is given twice"), "{err}");
    let (code, _, err) =
        tracelab(&["query", "top-users-by-gpu-hours", "--store", s(store), "--param", "top=3", "--param", "top=4"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--param top is given twice"), "{err}");
    let (code, _, err) = tracelab(&["query", "top-users-by-gpu-hours", "--store", s(store), "--param", "top=-1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--param top=-1: expected a whole number, 0 or more"), "{err}");
    let (code, _, err) =
        tracelab(&["analyze", "pai.wait-by-gpu-type", "--store", s(store), "--part", "nope", "--format", "json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("has no part `nope`"), "{err}");
}

/// `--part` works in every format: only that part, without the part column.
#[test]
fn a_part_alone_in_every_format() {
    let store = sample_store();
    let args = ["analyze", "pai.wait-by-gpu-type", "--store", s(store), "--part", "quantiles"];
    let csv = tracelab_ok(&[&args[..], &["--format", "csv"]].concat());
    assert!(csv.starts_with("series,tasks,p50_s,p90_s,p99_s\n"), "{csv}");
    let json: serde_json::Value =
        serde_json::from_str(&tracelab_ok(&[&args[..], &["--format", "json"]].concat())).unwrap();
    assert_eq!(json["name"], "quantiles");
    let table = tracelab_ok(&[&args[..], &["--format", "table"]].concat());
    assert!(table.contains("[quantiles]") && !table.contains("[by-type]"), "{table}");
}

/// The tidy CSV loads in pandas with the columns and values DuckDB gives
/// over the same store (tests/crosscheck/check_tidy.py).
#[test]
fn the_tidy_analyze_csv_loads_in_pandas_with_duckdbs_values() {
    let store = sample_store();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("summary.csv");
    std::fs::write(&csv, tracelab_ok(&["analyze", "helios.cluster-summary", "--store", s(store), "--format", "csv"]))
        .unwrap();
    let out = python("tests/crosscheck/check_tidy.py", &[s(store), s(&csv)]);
    assert!(out.contains("tidy table agrees"), "{out}");
}

#[test]
fn completions_and_man_pages_cover_every_verb() {
    let verbs = ["analyze", "ingest", "schema", "synth", "tables", "query", "report", "completions", "man"];
    let bash = tracelab_ok(&["completions", "bash"]);
    for v in verbs {
        assert!(bash.contains(v), "bash completion lacks {v}");
    }
    for shell in ["zsh", "fish"] {
        assert!(tracelab_ok(&["completions", shell]).contains("query"), "{shell}");
    }
    let dir = tempfile::tempdir().unwrap();
    tracelab_ok(&["man", "--out", s(dir.path())]);
    let query = std::fs::read_to_string(dir.path().join("tracelab-query.1")).unwrap();
    for option in ["\\-\\-format", "\\-\\-param", "\\-\\-list", "\\-\\-store", "\\-\\-sql"] {
        assert!(query.contains(option), "tracelab-query.1 lacks {option}");
    }
    for v in verbs {
        assert!(dir.path().join(format!("tracelab-{v}.1")).is_file(), "no man page for {v}");
    }
    assert!(tracelab_ok(&["man"]).starts_with(".ie"), "tracelab.1 on stdout");
}
