//! `tracelab report` end to end: the committed `reports/` equals a fresh
//! report byte for byte (what CI's `--check` enforces), the cache gives the
//! same bytes, specs are validated before any work with errors naming the
//! line, strings from specs and traces are escaped everywhere, a report
//! over any subset of the traces (each single trace, each pair, `--only`)
//! skips what it lacks with notes, the banner says what the data is, the
//! figure formats are deterministic, and a headless Chromium renders every
//! figure of the committed report (`tests/browser/check_report.py`).
//! Reports over subsets of the traces and the banner are in
//! `report_traces.rs`, the figure formats and hostile strings in
//! `report_files.rs`.

use std::path::Path;

use crate::common::*;

/// A one-figure PAI spec (plus whatever `extra` adds), for the quick tests.
pub fn small_spec(dir: &Path, title: &str, extra: &str) -> std::path::PathBuf {
    let path = dir.join("small.toml");
    let text = format!(
        "id = \"small\"\ntitle = \"{title}\"\ntraces = [\"pai\"]\npaper = \"P\"\n\n[[figure]]\nid = \"a\"\n\
         title = \"Tasks per user\"\nmirrors = \"Fig 2a\"\nanalysis = \"pai.tasks-per-user\"\npart = \"per-user\"\n\
         kind = \"cdf\"\nx = {{ scale = \"log\" }}\ncaption = \"c\"\n{extra}"
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_committed_reports_equal_a_fresh_report_byte_for_byte() {
    let reports = root().join("reports");
    let (code, _, stderr) = tracelab(&["report", "--store", s(sample_store()), "--out", s(&reports), "--check"]);
    assert_eq!(code, 0, "reports/ is stale; regenerate with `cargo run -- report`:\n{stderr}");
    assert!(stderr.contains("matches"), "{stderr}");
}

/// Analyses run side by side (`--jobs`): one at a time, and four at once
/// with no memory limit, both give the committed bytes.
#[test]
fn the_report_is_the_same_whatever_runs_side_by_side() {
    let reports = root().join("reports");
    for limits in [["--jobs", "1", "--memory-budget", "1"], ["--jobs", "4", "--memory-budget", "1000"]] {
        let mut args = vec!["report", "--store", s(sample_store()), "--out", s(&reports), "--check", "-q"];
        args.extend(limits);
        let (code, _, stderr) = tracelab(&args);
        assert_eq!(code, 0, "{limits:?}: {stderr}");
    }
    let (code, _, stderr) = tracelab(&["report", "--jobs", "0"]);
    assert_eq!(code, 2, "{stderr}");
    let (code, _, stderr) = tracelab(&["report", "--memory-budget=0"]);
    assert!(code == 2 && stderr.contains("--memory-budget"), "{stderr}");
}

#[test]
fn check_names_every_difference_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = small_spec(tmp.path(), "Small", "");
    let out = tmp.path().join("out");
    let args = ["report", "--store", s(sample_store()), "--spec", s(&spec), "--out", s(&out), "--quiet"];
    tracelab_ok(&args);
    std::fs::write(out.join("small/a.svg"), "<svg/>").unwrap();
    std::fs::write(out.join("stray.txt"), "x").unwrap();
    std::fs::remove_file(out.join("summary.md")).unwrap();
    let (code, _, stderr) = tracelab(&[&args[..], &["--check"]].concat());
    assert_eq!(code, 1, "{stderr}");
    for want in ["differs: small/a.svg", "extra: stray.txt", "missing: summary.md"] {
        assert!(stderr.contains(want), "`{want}` not in:\n{stderr}");
    }
    assert_eq!(std::fs::read_to_string(out.join("small/a.svg")).unwrap(), "<svg/>", "--check wrote");
}

#[test]
fn a_cached_rerun_gives_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = small_spec(tmp.path(), "Small", "");
    let store = tmp.path().join("store");
    copy_dir(sample_store(), &store);
    // Other tests may have cached results in the shared store.
    let _ = std::fs::remove_dir_all(store.join(".cache"));
    let run = |out: &str, extra: &[&str]| {
        let out = tmp.path().join(out);
        let args = [&["report", "--store", s(&store), "--spec", s(&spec), "--out", s(&out)][..], extra].concat();
        let (code, _, stderr) = tracelab(&args);
        assert_eq!(code, 0, "{stderr}");
        (snapshot_tree(&out), stderr)
    };
    let (fresh, _) = run("a", &["--no-cache"]);
    let (first, stderr1) = run("b", &[]);
    let (second, stderr2) = run("c", &[]);
    assert!(!stderr1.contains("from the cache"), "{stderr1}");
    assert!(stderr2.contains("(1 from the cache)"), "{stderr2}");
    assert_eq!(fresh, first);
    assert_eq!(first, second);
    assert!(fresh.iter().any(|(p, _)| p == "small/a.svg"));
}

#[test]
fn spec_errors_stop_before_any_work_and_name_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = small_spec(tmp.path(), "Small", "params = { bin = \"5m\" }\n");
    let out = tmp.path().join("out");
    let (code, _, stderr) = tracelab(&["report", "--store", s(sample_store()), "--spec", s(&spec), "--out", s(&out)]);
    assert_eq!(code, 2, "{stderr}");
    // Line 15: 4 header lines, a blank line, 9 figure lines, then params.
    assert!(stderr.contains("small.toml, line 15: figure `a`: pai.tasks-per-user has no parameter `bin`"), "{stderr}");
    assert!(!out.exists(), "nothing may be written");
}

#[test]
fn spec_and_trace_strings_are_escaped_and_absent_traces_skip_their_spec() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = small_spec(tmp.path(), "<b>PAI & \\\"friends\\\"</b>", "");
    let helios = tmp.path().join("helios.toml");
    std::fs::write(&helios, "id = \"h\"\ntitle = \"H\"\ntraces = [\"helios\"]\npaper = \"P\"\nfigure = []\n").unwrap();
    // A store with only the PAI sample.
    let dir = tmp.path().join("traces");
    copy_dir(&root().join("data-samples/pai"), &dir.join("pai"));
    let store = tmp.path().join("store");
    let out = tmp.path().join("out");
    let (code, _, stderr) = tracelab(&[
        "report",
        s(&dir),
        "--store",
        s(&store),
        "--spec",
        s(&spec),
        "--spec",
        s(&helios),
        "--out",
        s(&out),
    ]);
    assert_eq!(code, 0, "{stderr}");
    // One line for the missing trace, naming the spec it takes away (h
    // declares no figures).
    let why = "helios: not in the store; spec h skipped (0 figures); figures comparing traces are drawn without it";
    assert!(stderr.contains(&format!("note: {why}\n")), "{stderr}");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("&lt;b&gt;PAI &amp; &quot;friends&quot;&lt;/b&gt;"), "title not escaped");
    assert!(!html.contains("<b>PAI"));
    assert!(html.contains(&format!("<li>{why}</li>")), "the banner's line");
    assert!(!html.contains("<section id=\"h\">") && !html.contains("href=\"#h\""), "no section for a skipped spec");
}

#[test]
fn a_folder_that_is_not_a_report_is_never_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = small_spec(tmp.path(), "Small", "");
    std::fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
    let (code, _, stderr) =
        tracelab(&["report", "--store", s(sample_store()), "--spec", s(&spec), "--out", s(tmp.path())]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not empty and not a tracelab report"), "{stderr}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("notes.txt")).unwrap(), "mine");
}

/// The committed report as a reader sees it. The full-page screenshot is
/// kept at target/tmp/report-screenshot.png for people to look at.
#[test]
fn a_headless_browser_renders_every_figure_of_the_committed_report() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("reports");
    copy_dir(&root().join("reports"), &copy);
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshot.png");
    let out = python_command("tests/browser/check_report.py", &[s(&copy), s(&shot)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "browser check failed:\n{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains(" 0 broken, 0 errors"), "{text}");
    assert!(text.contains("(the whole page,"), "{text}");
}
