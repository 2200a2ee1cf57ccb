//! The files every verb writes outside the store (`export -o/--ids`,
//! `query`/`analyze`/`tables`/`schema -o`, `simulate --out`, `synth
//! --out`, `man --out`): written whole through a temporary file; a device,
//! a FIFO, a folder or a symbolic link (dangling or not) as the target is
//! refused with a usage error and left exactly as it was; two outputs of
//! one command naming one file (another spelling, a hard link) are refused.
//! Each case here was written through, replaced or overwritten before
//! (issue 31); `/dev/null` is only ever checked, never written.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use crate::common::*;

/// A file of the user's, a link to it, a dangling link and a FIFO in `dir`.
struct Hostile {
    precious: PathBuf,
    link: PathBuf,
    dangling: PathBuf,
    fifo: PathBuf,
}

fn hostile(dir: &Path, ext: &str) -> Hostile {
    let precious = dir.join(format!("precious.{ext}"));
    std::fs::write(&precious, "keep").unwrap();
    let link = dir.join(format!("link.{ext}"));
    std::os::unix::fs::symlink(&precious, &link).unwrap();
    let dangling = dir.join(format!("dangling.{ext}"));
    std::os::unix::fs::symlink(dir.join(format!("nowhere.{ext}")), &dangling).unwrap();
    let fifo = dir.join(format!("fifo.{ext}"));
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    Hostile { precious, link, dangling, fifo }
}

impl Hostile {
    /// Everything is as it was.
    fn untouched(&self, what: &str) {
        assert_eq!(std::fs::read_to_string(&self.precious).unwrap(), "keep", "{what}: the link was written through");
        for l in [&self.link, &self.dangling] {
            assert!(std::fs::symlink_metadata(l).unwrap().file_type().is_symlink(), "{what}: {} replaced", l.display());
        }
        let dir = self.precious.parent().unwrap();
        assert!(!std::fs::read_dir(dir).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("nowhere")));
        assert!(std::fs::symlink_metadata(&self.fifo).unwrap().file_type().is_fifo(), "{what}: the FIFO replaced");
        assert!(std::fs::symlink_metadata("/dev/null").unwrap().file_type().is_char_device(), "{what}: /dev/null");
        let temporaries: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp") || n.ends_with(".partial"))
            .collect();
        assert!(temporaries.is_empty(), "{what}: left {temporaries:?}");
    }

    fn targets(&self) -> [(&Path, &str); 4] {
        [
            (&self.link, "is a symbolic link"),
            (&self.dangling, "is a symbolic link"),
            (&self.fifo, "is a FIFO, not a regular file"),
            (Path::new("/dev/null"), "is a device, not a regular file"),
        ]
    }
}

fn refused(args: &[&str], want: &str) {
    let (code, _, stderr) = tracelab(args);
    assert_eq!(code, 2, "{args:?}: {stderr}");
    assert!(stderr.contains(want), "{args:?}: `{want}` not in {stderr}");
}

#[test]
fn export_never_replaces_a_device_a_fifo_or_a_link_even_with_force() {
    let tmp = tempfile::tempdir().unwrap();
    let h = hostile(tmp.path(), "swf");
    let base = ["export", "--store", s(sample_store()), "--trace", "philly", "--to", "swf"];
    for (target, why) in h.targets() {
        for force in [&[][..], &["--force"][..]] {
            let args = [&base[..], &["-o", s(target)], force].concat();
            refused(&args, &format!("-o {}: {why}", target.display()));
        }
        let ok = tmp.path().join("ok.swf");
        let ids = [&base[..], &["-o", s(&ok), "--ids", s(target), "--force"]].concat();
        refused(&ids, &format!("--ids {}: {why}", target.display()));
    }
    h.untouched("export");
    assert!(!tmp.path().join("ok.swf").exists(), "-o was written though --ids was refused");
    // A regular file: refused without --force, replaced whole with it.
    let file = tmp.path().join("jobs.swf");
    std::fs::write(&file, "old").unwrap();
    refused(&[&base[..], &["-o", s(&file)]].concat(), "the file exists; pass --force to replace it");
    tracelab_ok(&[&base[..], &["-o", s(&file), "--force"]].concat());
    assert!(std::fs::read_to_string(&file).unwrap().starts_with("; "), "an SWF header");
    h.untouched("export --force");
}

/// `--ids` and `-o` naming one file: the same path spelled otherwise, and a
/// hard link. (Only the identical spelling was caught; `--ids` was then
/// silently overwritten by `-o`.)
#[test]
fn export_refuses_ids_and_output_naming_one_file() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("sub")).unwrap();
    let out = tmp.path().join("x.swf");
    let spelled = tmp.path().join("sub/../x.swf");
    let base = ["export", "--store", s(sample_store()), "--trace", "philly", "--to", "swf", "--force"];
    refused(&[&base[..], &["-o", s(&out), "--ids", s(&spelled)]].concat(), "are the same file");
    assert!(!out.exists());
    std::fs::write(&out, "x").unwrap();
    let hard = tmp.path().join("ids.csv");
    std::fs::hard_link(&out, &hard).unwrap();
    refused(&[&base[..], &["-o", s(&out), "--ids", s(&hard)]].concat(), "are the same file");
    assert_eq!(std::fs::read_to_string(&hard).unwrap(), "x");
}

/// The `-o` of the verbs that print a result: a regular file is replaced
/// (as a shell's `>`), a link, FIFO or device is refused untouched.
#[test]
fn the_o_of_query_analyze_tables_and_schema_never_writes_through_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let h = hostile(tmp.path(), "csv");
    let store = s(sample_store());
    let verbs: [Vec<&str>; 4] = [
        vec!["query", "SELECT 1 AS one", "--store", store, "--format", "csv"],
        vec!["analyze", "pai.wait-by-gpu-type", "--store", store, "--format", "csv"],
        vec!["tables", "--store", store, "--format", "csv"],
        vec!["schema", "philly", "--format", "csv"],
    ];
    for verb in &verbs {
        for (target, why) in h.targets() {
            refused(&[&verb[..], &["-o", s(target)]].concat(), &format!("-o {}: {why}", target.display()));
        }
        let file = tmp.path().join("result.csv");
        std::fs::write(&file, "old").unwrap();
        tracelab_ok(&[&verb[..], &["-o", s(&file)]].concat());
        assert_ne!(std::fs::read_to_string(&file).unwrap(), "old", "{verb:?}");
    }
    // Parquet goes through the same writer.
    let parquet = tmp.path().join("link.parquet");
    std::os::unix::fs::symlink(&h.precious, &parquet).unwrap();
    refused(&["query", "SELECT 1 AS one", "--store", store, "-o", s(&parquet)], "is a symbolic link");
    h.untouched("-o");
}

#[test]
fn simulate_out_refuses_links_and_an_o_naming_one_of_its_files() {
    let tmp = tempfile::tempdir().unwrap();
    let h = hostile(tmp.path(), "csv");
    let base = ["simulate", "--store", s(sample_store()), "--trace", "helios:Venus", "--format", "csv"];
    let sim = tmp.path().join("sim");
    std::fs::create_dir(&sim).unwrap();
    std::os::unix::fs::symlink(&h.precious, sim.join("summary.csv")).unwrap();
    refused(&[&base[..], &["--out", s(&sim)]].concat(), "summary.csv: is a symbolic link");
    std::fs::remove_file(sim.join("summary.csv")).unwrap();
    let linked = tmp.path().join("linked");
    std::os::unix::fs::symlink(&sim, &linked).unwrap();
    refused(&[&base[..], &["--out", s(&linked)]].concat(), "is a symbolic link");
    let same = sim.join("summary.csv");
    refused(&[&base[..], &["--out", s(&sim), "-o", s(&same)]].concat(), "are the same file");
    assert!(std::fs::read_dir(&sim).unwrap().next().is_none(), "nothing was written");
    std::fs::write(sim.join("notes.txt"), "mine").unwrap();
    tracelab_ok(&[&base[..], &["--out", s(&sim)]].concat());
    let mut names: Vec<String> =
        std::fs::read_dir(&sim).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let want = ["jobs.parquet", "left-out.csv", "notes.txt", "result.json", "series.parquet", "summary.csv"];
    assert_eq!(names, want, "its five files, the user's left alone, no temporary");
    h.untouched("simulate");
}

#[test]
fn synth_and_man_refuse_links_among_their_files() {
    let tmp = tempfile::tempdir().unwrap();
    let h = hostile(tmp.path(), "json");
    let out = tmp.path().join("synthetic");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&h.precious, out.join("SYNTHETIC.json")).unwrap();
    let (code, _, stderr) = tracelab(&["synth", "helios", "--scale", "0.0005", "--quiet", "--out", s(&out)]);
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains("SYNTHETIC.json: is a symbolic link"), "{stderr}");
    let linked = tmp.path().join("linked");
    std::os::unix::fs::symlink(tmp.path().join("elsewhere"), &linked).unwrap();
    refused(&["synth", "helios", "--scale", "0.0005", "--quiet", "--out", s(&linked)], "is a symbolic link");
    assert!(!tmp.path().join("elsewhere").exists());

    let man = tmp.path().join("man");
    std::fs::create_dir(&man).unwrap();
    std::os::unix::fs::symlink(&h.precious, man.join("tracelab-report.1")).unwrap();
    refused(&["man", "--out", s(&man)], "tracelab-report.1: is a symbolic link");
    assert_eq!(std::fs::read_dir(&man).unwrap().count(), 1, "no page was written");
    h.untouched("synth, man");
}
