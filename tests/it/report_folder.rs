//! `tracelab report` and the folder it writes: the default folder follows
//! the input; a folder that is not a report, or holds files tracelab did
//! not write, is refused and left as it was; symbolic links (inside the
//! folder or as the folder) are never followed; spec and figure ids are
//! names, never paths; the figure ceiling; a report killed at every step
//! of its publication leaves the old report or the new one, and the next
//! run succeeds without help; two reports into one folder take turns.
//! Every test here failed before report folders were owned (issue 31).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::report::small_spec;
use crate::common::*;

const MARKER: &str = ".tracelab-report";

fn report_into(spec: &Path, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let args = ["report", "--store", s(sample_store()), "--spec", s(spec), "--out", s(out), "-q"];
    tracelab(&[&args[..], extra].concat())
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn a_folder_of_the_users_holding_a_summary_json_is_refused_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = small_spec(tmp.path(), "Small", "");
    let out = tmp.path().join("thesis");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("thesis.tex"), "years of work").unwrap();
    std::fs::write(out.join("summary.json"), "{}").unwrap();
    let (code, _, stderr) = report_into(&spec, &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not empty and not a tracelab report (it has no .tracelab-report marker"), "{stderr}");
    assert_eq!(
        snapshot_tree(&out),
        [("summary.json".into(), b"{}".to_vec()), ("thesis.tex".into(), b"years of work".to_vec())]
    );
}

/// An empty marker (first markers appear whole, so no report is still
/// writing it) is refused before any work, naming the file, untouched.
#[test]
fn an_empty_marker_is_refused_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = small_spec(tmp.path(), "Small", "");
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join(MARKER), "").unwrap();
    let (code, _, stderr) = report_into(&spec, &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    let want = format!(
        "error: {}: not a tracelab report marker (it should start with `tracelab report folder, format 1`); \
         remove it or choose another --out\n",
        out.join(MARKER).display()
    );
    assert_eq!(stderr, want);
    assert_eq!(snapshot_tree(&out), [(MARKER.into(), Vec::new())]);
}

#[test]
fn a_report_folder_someone_added_files_to_is_refused_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = small_spec(tmp.path(), "Small", "");
    let out = tmp.path().join("out");
    assert_eq!(report_into(&spec, &out, &[]).0, 0);
    std::fs::write(out.join("small/notes.txt"), "mine").unwrap();
    let before = snapshot_tree(&out);
    let (code, _, stderr) = report_into(&spec, &out, &["--formats", "svg,png"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("holds files tracelab did not write: small/notes.txt"), "{stderr}");
    assert_eq!(snapshot_tree(&out), before);
}

/// A figure of the report replaced by a link to a file of the user's, and
/// the folder itself a link: refused, and neither target changes (the
/// link inside was written through, the folder link followed).
#[test]
fn symbolic_links_inside_and_as_the_folder_are_never_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = small_spec(tmp.path(), "Small", "");
    let out = tmp.path().join("out");
    assert_eq!(report_into(&spec, &out, &[]).0, 0);
    let precious = tmp.path().join("precious.svg");
    std::fs::write(&precious, "keep").unwrap();
    std::fs::remove_file(out.join("small/a.svg")).unwrap();
    std::os::unix::fs::symlink(&precious, out.join("small/a.svg")).unwrap();
    let (code, _, stderr) = report_into(&spec, &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("small/a.svg (a symbolic link)"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep");
    assert!(std::fs::symlink_metadata(out.join("small/a.svg")).unwrap().file_type().is_symlink());

    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("a.txt"), "mine").unwrap();
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&mine, &link).unwrap();
    let (code, _, stderr) = report_into(&spec, &link, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is a symbolic link"), "{stderr}");
    assert_eq!(names(&mine), ["a.txt"]);
    // A dangling link as --out: nothing is created where it points.
    let dangling = tmp.path().join("dangling");
    std::os::unix::fs::symlink(tmp.path().join("nowhere"), &dangling).unwrap();
    assert_eq!(report_into(&spec, &dangling, &[]).0, 2);
    assert!(!tmp.path().join("nowhere").exists());
}

/// Ids are names: a spec id or figure id holding a path is refused at its
/// line before any work, and nothing is written outside the report (an
/// empty id once wrote `rt.svg` at the root, `../` escaped `--out`).
#[test]
fn hostile_ids_are_refused_at_their_spec_line_and_nothing_escapes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("a/out");
    for (id, line, what) in [
        ("../escaped", 7, "figure id"),
        ("", 7, "figure id"),
        ("/abs", 7, "figure id"),
        ("x/../../y", 7, "figure id"),
        ("nul\\u0000", 7, "figure id"),
        ("tab\\t", 7, "figure id"),
    ] {
        let spec = small_spec(tmp.path(), "Small", "");
        let text = std::fs::read_to_string(&spec).unwrap().replace("id = \"a\"", &format!("id = \"{id}\""));
        std::fs::write(&spec, text).unwrap();
        let (code, _, stderr) = report_into(&spec, &out, &[]);
        assert_eq!(code, 2, "{id:?}: {stderr}");
        assert!(stderr.contains(&format!("small.toml, line {line}: {what}: ")), "{id:?}: {stderr}");
    }
    let spec = small_spec(tmp.path(), "Small", "");
    let text = std::fs::read_to_string(&spec).unwrap().replacen("id = \"small\"", "id = \"../../x\"", 1);
    std::fs::write(&spec, text).unwrap();
    let (code, _, stderr) = report_into(&spec, &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("small.toml, line 1: spec id: \"../../x\": expected ASCII letters"), "{stderr}");
    let long = small_spec(tmp.path(), "Small", "");
    let text = std::fs::read_to_string(&long).unwrap().replace("id = \"a\"", &format!("id = \"{}\"", "a".repeat(65)));
    std::fs::write(&long, text).unwrap();
    let (code, _, stderr) = report_into(&long, &out, &[]);
    assert!(code == 2 && stderr.contains("65 characters; at most 64"), "{stderr}");
    assert_eq!(names(tmp.path()), ["small.toml"], "nothing was written");
    // Two specs of one id would share a folder of the report.
    let (a, b) = (tmp.path().join("a.toml"), tmp.path().join("b.toml"));
    std::fs::copy(small_spec(tmp.path(), "A", ""), &a).unwrap();
    std::fs::copy(small_spec(tmp.path(), "B", ""), &b).unwrap();
    let args = ["report", "--store", s(sample_store()), "--spec", s(&a), "--spec", s(&b), "--out", s(&out)];
    let (code, _, stderr) = tracelab(&args);
    assert!(code == 2 && stderr.contains("b.toml, line 1: spec id `small` is also the id of"), "{stderr}");
}

/// A spec of N figures: the one-figure spec's figure N times under ids
/// f0, f1, ...
fn spec_of(dir: &Path, n: usize) -> PathBuf {
    let one = std::fs::read_to_string(small_spec(dir, "Many", "")).unwrap();
    let (head, figure) = one.split_at(one.find("[[figure]]").unwrap());
    let figures: String = (0..n).map(|i| figure.replace("id = \"a\"", &format!("id = \"f{i}\""))).collect();
    let path = dir.join(format!("many-{n}.toml"));
    std::fs::write(&path, format!("{head}{figures}")).unwrap();
    path
}

/// The ceiling is 500 figures a spec by default, and --max-figures moves
/// it; the first figure over it is named by line, before any work.
#[test]
fn a_spec_over_the_figure_ceiling_is_refused_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    // The header takes 5 lines (a blank one last) and each figure 9:
    // figure k (from 0) starts at line 6 + 9 k, figure 501 at 4506.
    let (code, _, stderr) = report_into(&spec_of(tmp.path(), 501), &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr
            .contains("many-501.toml, line 4506: 501 figures; a spec holds at most 500 (raise it with --max-figures)"),
        "{stderr}"
    );
    let three = spec_of(tmp.path(), 3);
    let (code, _, stderr) = report_into(&three, &out, &["--max-figures", "2"]);
    assert!(code == 2 && stderr.contains("line 24: 3 figures; a spec holds at most 2"), "{stderr}");
    assert!(!out.exists());
    let (code, _, stderr) = report_into(&three, &out, &["--max-figures", "3"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(names(&out.join("small")).len(), 6, "three SVGs and three CSVs");
}

/// (code, stderr) of a report killed before its n-th publication step.
fn killed_at(spec: &Path, out: &Path, n: u64) -> (i32, String) {
    let args = ["report", "--store", s(sample_store()), "--spec", s(spec), "--out", s(out), "-q"];
    let (code, _, stderr) = run_env(&args, &[("TRACELAB_TEST_CRASH_AT_REPORT_STEP", &n.to_string())]);
    (code, stderr)
}

/// Killed before each step of its publication in turn (creating a folder,
/// writing each file, the swap, each removal), a report leaves under the
/// name exactly the old report or exactly the new one; the next run
/// succeeds with no manual clean-up and leaves nothing beside the folder.
/// Before, a kill left a mix of new and old files, one of them cut short.
#[test]
fn a_report_killed_at_every_step_leaves_the_old_report_or_the_new_one() {
    let tmp = tempfile::tempdir().unwrap();
    let old_spec = tmp.path().join("old.toml");
    std::fs::copy(small_spec(tmp.path(), "Old", ""), &old_spec).unwrap();
    let new_spec = small_spec(tmp.path(), "New", "");
    let reports = tmp.path().join("reports");
    std::fs::create_dir(&reports).unwrap();
    let out = reports.join("out");
    let (old, new) = {
        let probe = tmp.path().join("probe");
        assert_eq!(report_into(&new_spec, &probe, &[]).0, 0);
        let new = snapshot_tree(&probe);
        assert_eq!(report_into(&old_spec, &probe, &[]).0, 0);
        (snapshot_tree(&probe), new)
    };
    assert_ne!(old, new);
    assert!(old.iter().any(|(p, _)| p == MARKER));
    let mut n = 1;
    loop {
        assert_eq!(report_into(&old_spec, &out, &[]).0, 0, "step {n}: the run after a kill failed");
        assert_eq!(names(&reports), ["out"], "step {n}: something was left beside the folder");
        assert_eq!(snapshot_tree(&out), old);
        let (code, stderr) = killed_at(&new_spec, &out, n);
        let now = snapshot_tree(&out);
        if code == 0 {
            assert_eq!(now, new);
            break;
        }
        assert_eq!(code, -1, "step {n}: {stderr}");
        assert!(
            now == old || now == new,
            "step {n}: a mix of the two reports: {:?}",
            now.iter().map(|(p, _)| p).collect::<Vec<_>>()
        );
        n += 1;
    }
    // mkdir, the marker, five files, the swap, five removals, the old
    // marker and its folder: at least a dozen points were tried.
    assert!(n > 12, "only {n} steps");

    // The same into a folder that does not exist yet: afterwards there is
    // no folder, an empty report folder, or the whole report.
    let fresh = reports.join("fresh");
    let mut n = 1;
    loop {
        let _ = std::fs::remove_dir_all(&fresh);
        let (code, stderr) = killed_at(&new_spec, &fresh, n);
        let state = if fresh.exists() { snapshot_tree(&fresh) } else { Vec::new() };
        let empty = state.len() == 1 && state[0].0 == MARKER;
        assert!(state.is_empty() || empty || state == new, "fresh, step {n}: {stderr}");
        assert_eq!(report_into(&new_spec, &fresh, &[]).0, 0, "fresh, step {n}: the next run failed");
        assert_eq!(snapshot_tree(&fresh), new);
        assert_eq!(names(&reports), ["fresh", "out"], "fresh, step {n}");
        if code == 0 {
            break;
        }
        n += 1;
    }
}

/// Two reports into one folder at once (new or existing): both succeed,
/// one after the other, and the folder holds one of them whole. While another process holds the
/// folder, a report waits (saying so) and changes nothing.
#[test]
fn two_reports_into_one_folder_take_turns() {
    let tmp = tempfile::tempdir().unwrap();
    let (a_spec, b_spec) = (tmp.path().join("a.toml"), tmp.path().join("b.toml"));
    std::fs::copy(small_spec(tmp.path(), "A", ""), &a_spec).unwrap();
    std::fs::copy(small_spec(tmp.path(), "B", ""), &b_spec).unwrap();
    let (a, b) = {
        let probe = tmp.path().join("probe");
        report_into(&a_spec, &probe, &[]);
        let a = snapshot_tree(&probe);
        report_into(&b_spec, &probe, &[]);
        (a, snapshot_tree(&probe))
    };
    let out = tmp.path().join("out");
    for round in 0..4 {
        // Every other round into a folder that does not exist yet: both
        // create it, one first marker wins and both use it.
        if round % 2 == 0 {
            let _ = std::fs::remove_dir_all(&out);
        }
        let args = |spec: &Path| {
            vec!["report", "--store", s(sample_store()), "--spec", s(spec), "--out", s(&out), "-q"]
                .into_iter()
                .map(String::from)
                .collect::<Vec<_>>()
        };
        let (x, y) = (args(&a_spec), args(&b_spec));
        let x: Vec<&str> = x.iter().map(String::as_str).collect();
        let y: Vec<&str> = y.iter().map(String::as_str).collect();
        let (first, second) = (spawn(&x, &[]), spawn(&y, &[]));
        let (r1, r2) = (finish(first), finish(second));
        assert_eq!((r1.0, r2.0), (0, 0), "round {round}: {} / {}", r1.2, r2.2);
        let now = snapshot_tree(&out);
        assert!(now == a || now == b, "round {round}: a mix of the two reports");
        assert_eq!(names(tmp.path()), ["a.toml", "b.toml", "out", "probe", "small.toml"]);
    }
    let lock = std::fs::File::open(out.join(MARKER)).unwrap();
    fs4::FileExt::lock(&lock).unwrap();
    let before = snapshot_tree(&out);
    let x = ["report", "--store", s(sample_store()), "--spec", s(&a_spec), "--out", s(&out)];
    let mut child = spawn(&x, &[]);
    std::thread::sleep(Duration::from_secs(4));
    assert!(child.try_wait().unwrap().is_none(), "it did not wait for the folder's lock");
    assert_eq!(snapshot_tree(&out), before);
    drop(lock);
    let (code, _, stderr) = finish(child);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("waiting for the other tracelab report writing"), "{stderr}");
    assert_eq!(snapshot_tree(&out), a);
}

/// Without --out a report goes with its data: the trace folder's own
/// `tracelab-report/` (named on stderr), never the repository's
/// `reports/`; beside a store given alone, `<store>-report`. The folder
/// is then left out of the trace folder's next ingest.
#[test]
fn without_out_the_report_follows_its_input() {
    let tmp = tempfile::tempdir().unwrap();
    let traces = tmp.path().join("my-traces");
    copy_dir(&root().join("data-samples/pai"), &traces.join("pai"));
    let spec = small_spec(tmp.path(), "Mine", "");
    let committed = snapshot_tree(&root().join("reports"));
    let store = tmp.path().join("store");
    let (code, _, stderr) = tracelab(&["report", s(&traces), "--store", s(&store), "--spec", s(&spec)]);
    assert_eq!(code, 0, "{stderr}");
    let want = traces.join("tracelab-report");
    assert!(stderr.contains(&format!("note: the report goes to {}", want.display())), "{stderr}");
    assert!(want.join("index.html").is_file() && want.join("small/a.svg").is_file());
    assert_eq!(snapshot_tree(&root().join("reports")), committed, "the repository's reports/ changed");
    let out = tracelab_ok(&["ingest", s(&traces), "--out", s(&store)]);
    assert!(out.contains("tracelab-report/ (a tracelab report folder)"), "{out}");
    assert!(out.contains("unchanged since the last ingest"), "{out}");

    let (code, _, stderr) = tracelab(&["report", "--store", s(&store), "--spec", s(&spec), "-q"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains(&format!("the report goes to {}-report", store.display())), "{stderr}");
    assert!(tmp.path().join("store-report/index.html").is_file());
}
