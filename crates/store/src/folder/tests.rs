use super::*;

fn files(pairs: &[(&str, &str)]) -> Files {
    pairs.iter().map(|(p, b)| (PathBuf::from(p), b.as_bytes().to_vec())).collect()
}

fn quiet() -> Options<'static> {
    Options { wait: &|_| {}, note: &|_| {}, crash_before_step: None }
}

/// Every entry under `dir`: (relative path, contents or a kind).
fn tree(dir: &Path) -> Vec<(String, String)> {
    marker::walk(dir)
        .unwrap()
        .into_iter()
        .map(|e| match e {
            marker::Entry::File(p) => (marker::slashed(&p), std::fs::read_to_string(dir.join(&p)).unwrap()),
            marker::Entry::Folder(p) => (marker::slashed(&p), "<folder>".into()),
            marker::Entry::Other(p, what) => (marker::slashed(&p), what.into()),
        })
        .collect()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn a_new_folder_then_a_replacement_holding_only_the_new_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    publish(&out, &files(&[("index.html", "1"), ("a/x.svg", "x1"), ("a/y.svg", "y1")]), &quiet()).unwrap();
    publish(&out, &files(&[("index.html", "2"), ("b/z.svg", "z2")]), &quiet()).unwrap();
    let marker_text = marker::text(&files(&[("index.html", ""), ("b/z.svg", "")]));
    assert_eq!(
        tree(&out),
        [
            (MARKER.to_string(), marker_text),
            ("b".into(), "<folder>".into()),
            ("b/z.svg".into(), "z2".into()),
            ("index.html".into(), "2".into())
        ]
    );
    assert_eq!(names(tmp.path()), ["out"], "no build or old folder is left beside it");
    assert!(check_target(&out).is_ok() && check_target(&tmp.path().join("new")).is_ok());
    assert!(check(&out, &files(&[("index.html", "2"), ("b/z.svg", "z2")])).unwrap().is_empty());
}

#[test]
fn foreign_files_links_and_markerless_folders_are_refused_and_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let mine = tmp.path().join("thesis");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("thesis.tex"), "years of work").unwrap();
    std::fs::write(mine.join("summary.json"), "{}").unwrap();
    let err = publish(&mine, &files(&[("index.html", "x")]), &quiet()).unwrap_err().to_string();
    assert!(err.contains("not empty and not a tracelab report"), "{err}");
    assert_eq!(check_target(&mine).unwrap_err().to_string(), err, "the check before any work says the same");
    assert_eq!(tree(&mine).len(), 2);

    let out = tmp.path().join("out");
    publish(&out, &files(&[("index.html", "1")]), &quiet()).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let err = publish(&out, &files(&[("index.html", "2")]), &quiet()).unwrap_err().to_string();
    assert!(err.contains("holds files tracelab did not write: notes.txt"), "{err}");
    assert_eq!(check_target(&out).unwrap_err().to_string(), err);
    assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "1");
    std::fs::remove_file(out.join("notes.txt")).unwrap();

    #[cfg(unix)]
    {
        let precious = tmp.path().join("precious.txt");
        std::fs::write(&precious, "keep").unwrap();
        // A listed file replaced by a link to a file of the user's.
        std::fs::remove_file(out.join("index.html")).unwrap();
        std::os::unix::fs::symlink(&precious, out.join("index.html")).unwrap();
        let err = publish(&out, &files(&[("index.html", "2")]), &quiet()).unwrap_err().to_string();
        assert!(err.contains("index.html (a symbolic link)"), "{err}");
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep");
        // The folder itself a link.
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&mine, &link).unwrap();
        let err = publish(&link, &files(&[("index.html", "2")]), &quiet()).unwrap_err().to_string();
        assert!(err.contains("is a symbolic link"), "{err}");
        assert_eq!(tree(&mine).len(), 2);
    }
    let err = publish(&tmp.path().join("x"), &files(&[("../escape", "x")]), &quiet()).unwrap_err().to_string();
    assert!(err.contains("not a plain file name"), "{err}");
    assert!(!tmp.path().join("escape").exists() && !tmp.path().join("x").exists());
}

#[test]
fn build_folders_of_dead_processes_are_removed_but_not_their_foreign_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    publish(&out, &files(&[("index.html", "1")]), &quiet()).unwrap();
    // A build killed half way (its marker lists what it was writing), an
    // empty one killed before its marker, one someone put a file into, and
    // a folder of another target whose name starts the same way.
    let half = tmp.path().join(".out.tracelab-new-999999-1");
    std::fs::create_dir_all(half.join("a")).unwrap();
    std::fs::write(half.join(MARKER), marker::text(&files(&[("a/x.svg", ""), ("index.html", "")]))).unwrap();
    std::fs::write(half.join("a/x.svg"), "x").unwrap();
    std::fs::create_dir(tmp.path().join(".out.tracelab-old-999999-2")).unwrap();
    let kept = tmp.path().join(".out.tracelab-new-999999-3");
    std::fs::create_dir(&kept).unwrap();
    std::fs::write(kept.join(MARKER), marker::text(&Files::new())).unwrap();
    std::fs::write(kept.join("mine.txt"), "mine").unwrap();
    let other = tmp.path().join(".out.tracelab-new-1-1.tracelab-new-1-1");
    std::fs::create_dir(&other).unwrap();
    let notes = std::sync::Mutex::new(Vec::new());
    let opts = Options { note: &|n| notes.lock().unwrap().push(n.to_string()), ..quiet() };
    publish(&out, &files(&[("index.html", "2")]), &opts).unwrap();
    assert_eq!(names(tmp.path()), [".out.tracelab-new-1-1.tracelab-new-1-1", ".out.tracelab-new-999999-3", "out"]);
    assert_eq!(tree(&kept), [("mine.txt".to_string(), "mine".to_string())]);
    let notes = notes.into_inner().unwrap();
    assert!(notes.len() == 1 && notes[0].contains("tracelab did not write"), "{notes:?}");
}

#[test]
fn two_publications_into_one_folder_take_turns() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    publish(&out, &files(&[("index.html", "0")]), &quiet()).unwrap();
    // Another holder of the folder's lock (as another process would hold it).
    let other = open_marker(&out.join(MARKER)).unwrap();
    take(&other, Lock::Exclusive, &out, &|_| {}).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let target = out.clone();
    let writer = std::thread::spawn(move || {
        let told = std::sync::Mutex::new(String::new());
        let opts = Options { wait: &|m| *told.lock().unwrap() = m.to_string(), ..quiet() };
        let r = publish(&target, &files(&[("index.html", "1")]), &opts).map_err(|e| e.to_string());
        tx.send(()).unwrap();
        (r, told.into_inner().unwrap())
    });
    assert!(rx.recv_timeout(std::time::Duration::from_millis(300)).is_err(), "it did not wait");
    assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "0");
    drop(other);
    let (r, told) = writer.join().unwrap();
    r.unwrap();
    assert!(told.contains("waiting for the other tracelab report"), "{told}");
    assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "1");
}

#[test]
fn check_reports_links_without_following_them() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let want = files(&[("index.html", "1"), ("a.svg", "a")]);
    publish(&out, &want, &quiet()).unwrap();
    std::fs::remove_file(out.join("a.svg")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/hostname", out.join("a.svg")).unwrap();
    std::fs::write(out.join("stray.txt"), "x").unwrap();
    let diffs = check(&out, &want).unwrap();
    assert!(diffs.contains(&"extra: stray.txt".to_string()), "{diffs:?}");
    #[cfg(unix)]
    assert!(diffs.contains(&"differs: a.svg (not a regular file)".to_string()), "{diffs:?}");
}

/// Reports started at once into a folder that does not exist yet all
/// succeed (none sees a half-written first marker and calls the folder
/// foreign), and the folder holds one of them whole.
#[test]
fn reports_racing_into_a_new_folder_all_succeed() {
    let tmp = tempfile::tempdir().unwrap();
    for round in 0..20 {
        let out = tmp.path().join(format!("out-{round}"));
        let start = std::sync::Barrier::new(4);
        let results: Vec<_> = std::thread::scope(|s| {
            let racers: Vec<_> = (0..4)
                .map(|i| {
                    let (out, start) = (&out, &start);
                    s.spawn(move || {
                        start.wait();
                        publish(out, &files(&[("index.html", &i.to_string())]), &quiet()).map_err(|e| e.to_string())
                    })
                })
                .collect();
            racers.into_iter().map(|r| r.join().unwrap()).collect()
        });
        assert!(results.iter().all(Result::is_ok), "round {round}: {results:?}");
        let index = std::fs::read_to_string(out.join("index.html")).unwrap();
        let want = marker::text(&files(&[("index.html", "")]));
        assert_eq!(tree(&out), [(MARKER.to_string(), want), ("index.html".to_string(), index)]);
    }
    let left: Vec<String> = names(tmp.path()).into_iter().filter(|n| !n.starts_with("out-")).collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A report killed while creating a folder's first marker leaves its
/// temporary file: the folder is still tracelab's (checked and published
/// into), and the next report removes the file with the old folder.
#[test]
fn a_first_markers_leftover_temporary_is_not_foreign_and_is_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let leftover = || marker::first_temporary(Path::new("")).to_string_lossy().into_owned();
    // Killed before the link: a folder holding only the temporary file.
    let fresh = tmp.path().join("fresh");
    std::fs::create_dir(&fresh).unwrap();
    std::fs::write(fresh.join(leftover()), marker::text(&Files::new())).unwrap();
    // Killed after the link: a marker and the temporary file.
    let linked = tmp.path().join("linked");
    publish(&linked, &files(&[("index.html", "0")]), &quiet()).unwrap();
    std::fs::write(linked.join(leftover()), marker::text(&Files::new())).unwrap();
    for out in [&fresh, &linked] {
        check_target(out).unwrap();
        publish(out, &files(&[("index.html", "1")]), &quiet()).unwrap();
        assert_eq!(names(out), [MARKER, "index.html"], "{}", out.display());
    }
    assert_eq!(names(tmp.path()), ["fresh", "linked"], "nothing left beside the folders");
    // A name that only looks like one is the user's.
    std::fs::write(linked.join(".tracelab-report.first-notes"), "mine").unwrap();
    let err = check_target(&linked).unwrap_err().to_string();
    assert!(err.contains("holds files tracelab did not write: .tracelab-report.first-notes"), "{err}");
}

/// An empty marker is not one a report is still writing (first markers
/// appear whole): it is refused, naming the file, by the check and by
/// the publication, and nothing is touched.
#[test]
fn an_empty_marker_is_refused_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join(MARKER), "").unwrap();
    let want = format!(
        "{}: not a tracelab report marker (it should start with `tracelab report folder, format 1`); \
         remove it or choose another --out",
        out.join(MARKER).display()
    );
    assert_eq!(check_target(&out).unwrap_err().to_string(), want);
    assert_eq!(publish(&out, &files(&[("index.html", "1")]), &quiet()).unwrap_err().to_string(), want);
    assert_eq!(names(&out), [MARKER]);
    assert_eq!(std::fs::read(out.join(MARKER)).unwrap(), b"");
}
