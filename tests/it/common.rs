//! Helpers shared by the integration tests: running the binary, arranging
//! fixture directories, reading Parquet back, calling the Python checkers.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `tracelab` with `args`; returns (exit code, stdout, stderr).
pub fn tracelab(args: &[&str]) -> (i32, String, String) {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_tracelab")).args(args).output().expect("run tracelab");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `tracelab ARGS` (not yet run) with Polars cutting every table into
/// 64-row morsels and asked for its partitioned group-by: the sample store
/// then reaches the threads in many pieces, in a varying order, as a
/// full-scale store does (`tests/it/determinism.rs`).
pub fn tracelab_in_small_pieces(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tracelab"));
    cmd.args(args).env("POLARS_IDEAL_MORSEL_SIZE", "64").env("POLARS_FORCE_PARTITION", "1");
    cmd
}

/// Like [`tracelab`] but fails the test unless the exit code is 0.
pub fn tracelab_ok(args: &[&str]) -> String {
    let (code, stdout, stderr) = tracelab(args);
    assert_eq!(code, 0, "tracelab {args:?} failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    stdout
}

pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Copies `from` to `to`, creating parent folders.
pub fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap_or_else(|e| panic!("copy {} -> {}: {e}", from.display(), to.display()));
}

/// Recursively copies a directory.
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            copy(&entry.path(), &target);
        }
    }
}

/// The real files of `tests/fixtures/real-traces/` arranged as a trace
/// directory under the official names (the README example rows become
/// one-row tables).
pub fn real_trace_dir(into: &Path) {
    let real = root().join("tests/fixtures/real-traces");
    let pai = real.join("pai");
    for entry in std::fs::read_dir(pai.join("readme-example-rows")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().replace(".example.csv", ".csv");
        if name != "pai_machine_spec.csv" {
            copy(&path, &into.join("pai").join(name));
        }
    }
    for entry in std::fs::read_dir(&pai).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            copy(&path, &into.join("pai").join(path.file_name().unwrap()));
        }
    }
    copy_dir(&real.join("philly/readme-example-rows"), &into.join("philly"));
    copy(&real.join("philly/cluster_machine_list"), &into.join("philly/cluster_machine_list"));
    copy(&real.join("helios/readme-example-rows/cluster_log.csv"), &into.join("helios/Venus/cluster_log.csv"));
    for c in ["Venus", "Earth"] {
        let f = format!("helios/{c}/cluster_gpu_number.csv");
        copy(&real.join(&f), &into.join(&f));
    }
}

/// The Python the tests run: `TRACELAB_PYTHON` when set (scripts/test.sh
/// points it at the virtual environment it keeps in target/venv, with
/// tests/requirements.txt installed), else `python3` from PATH.
pub fn python_interpreter() -> String {
    std::env::var("TRACELAB_PYTHON").ok().filter(|p| !p.is_empty()).unwrap_or_else(|| "python3".to_string())
}

/// Runs `<python> <script> <args>`, the script given from the repository
/// root, with [`python_interpreter`].
pub fn python_command(script: &str, args: &[&str]) -> Output {
    let py = python_interpreter();
    Command::new(&py).arg(root().join(script)).args(args).output().unwrap_or_else(|e| {
        panic!(
            "cannot run Python `{py}` for {script}: {e}. Run the tests with scripts/test.sh (it sets up \
             target/venv with tests/requirements.txt), or set TRACELAB_PYTHON to a Python that has them."
        )
    })
}

/// Runs `<python> <script> <args>`; panics with its output unless it exits 0.
pub fn python(script: &str, args: &[&str]) -> String {
    let out = python_command(script, args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{script} {args:?} failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    stdout
}

/// Reads a Parquet file into a DataFrame.
pub fn read_parquet(path: &Path) -> polars::prelude::DataFrame {
    use polars::prelude::*;
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    ParquetReader::new(file).finish().unwrap()
}

/// All files below `dir` with their contents, for byte-identity checks.
pub fn snapshot_tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(dir, dir, &mut out);
    out
}

/// The bundled `data-samples/` ingested once per test run into
/// `target/tmp/samples-store`, shared by the tests that only read a store
/// (`query`, `tables`). A re-run is a no-op when the samples did not change.
pub fn sample_store() -> &'static Path {
    static STORE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    STORE.get_or_init(|| {
        let store = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("samples-store");
        tracelab_ok(&["ingest", s(&root().join("data-samples")), "--out", s(&store), "--quiet"]);
        store
    })
}

/// Runs a DuckDB cross-check script over `store` and compares every number
/// it names with tracelab's. The script prints `{"<analysis id>[?k=v&..]":
/// {"<address>": value, ..}, ..}`; each run becomes `tracelab analyze ID
/// --param k=v .. --format json`, and `resolve` finds an address (in the
/// script's own grammar, see its docstring) in that output. Values compare
/// with `close`. Panics listing every difference; returns how many numbers
/// were compared.
pub fn crosscheck(
    script: &str,
    store: &Path,
    resolve: impl Fn(&serde_json::Value, &str) -> Option<serde_json::Value>,
    close: impl Fn(&serde_json::Value, &serde_json::Value) -> bool,
) -> usize {
    let expected: serde_json::Value = serde_json::from_str(&python(script, &[s(store)])).expect("script JSON");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (run, numbers) in expected.as_object().expect("runs") {
        let (id, params) = run.split_once('?').unwrap_or((run, ""));
        let mut args = vec!["analyze", id, "--format", "json", "--store", s(store)];
        for p in params.split('&').filter(|p| !p.is_empty()) {
            args.extend(["--param", p]);
        }
        let out: serde_json::Value = serde_json::from_str(&tracelab_ok(&args)).expect("analyze JSON");
        for (address, want) in numbers.as_object().expect("numbers") {
            checked += 1;
            match resolve(&out, address) {
                Some(got) if close(&got, want) => {}
                got => failures.push(format!("{run} {address}: tracelab {got:?}, DuckDB {want}")),
            }
        }
    }
    assert!(failures.is_empty(), "{script}: {} of {checked} numbers differ:\n{}", failures.len(), failures.join("\n"));
    checked
}

/// Equal within a relative 1e-9 of the larger magnitude, or of `floor`
/// when both are smaller; two nulls are equal.
pub fn close_within(a: &serde_json::Value, b: &serde_json::Value, floor: f64) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(floor),
        _ => a.is_null() && b.is_null(),
    }
}

/// `tracelab ARGS` started with extra environment variables, its output
/// piped.
pub fn spawn(args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tracelab"));
    cmd.args(args).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("run tracelab")
}

/// (exit code, stdout, stderr) of a spawned run; -1 when killed by a signal.
pub fn finish(child: std::process::Child) -> (i32, String, String) {
    let out = child.wait_with_output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// [`tracelab`] with extra environment variables.
pub fn run_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    finish(spawn(args, env))
}

/// A string column as owned values (tests compare them with `text`).
pub fn strs(df: &polars::prelude::DataFrame, c: &str) -> Vec<Option<String>> {
    let ca = df.column(c).unwrap().str().unwrap().clone();
    (0..ca.len()).map(|i| ca.get(i).map(str::to_string)).collect()
}

/// A numeric column cast to f64.
pub fn f64s(df: &polars::prelude::DataFrame, c: &str) -> Vec<Option<f64>> {
    use polars::prelude::*;
    let col = df.column(c).unwrap().as_materialized_series().cast(&DataType::Float64).unwrap();
    let ca = col.f64().unwrap();
    (0..ca.len()).map(|i| ca.get(i)).collect()
}

/// A numeric column cast to i64.
pub fn i64s(df: &polars::prelude::DataFrame, c: &str) -> Vec<Option<i64>> {
    use polars::prelude::*;
    let col = df.column(c).unwrap().as_materialized_series().cast(&DataType::Int64).unwrap();
    let ca = col.i64().unwrap();
    (0..ca.len()).map(|i| ca.get(i)).collect()
}

/// Expected string values, none null.
pub fn text(v: &[&str]) -> Vec<Option<String>> {
    v.iter().map(|s| Some(s.to_string())).collect()
}
