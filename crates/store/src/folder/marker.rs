//! The marker file that makes a folder a tracelab report folder
//! (`.tracelab-report`) and lists the files tracelab wrote there, and the
//! walk that finds what else a folder holds. The list is what a later
//! report may remove: anything not on it was not written by tracelab and
//! is never touched. Walks look at entries themselves (`lstat`): a
//! symbolic link is an entry of its own, never followed.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use tracelab_schema::error::{Error, IoContext, Result};

use super::Files;

/// The marker's name inside a report folder.
pub const MARKER: &str = ".tracelab-report";

/// What the temporary name of a new folder's first marker starts with
/// (then `<pid>-<n>`): it is written there whole, then linked to [`MARKER`],
/// so no report ever sees a marker half written.
const FIRST_PREFIX: &str = ".tracelab-report.first-";

/// A temporary name for the first marker of the folder `dir`.
pub fn first_temporary(dir: &Path) -> PathBuf {
    dir.join(format!("{FIRST_PREFIX}{}", tracelab_schema::outfile::unique_suffix()))
}

/// Whether `name` is a first marker's temporary name: [`FIRST_PREFIX`] then
/// exactly `<pid>-<n>`. One left by a report killed while creating the
/// folder is tracelab's own: not foreign, removed with the folder.
pub fn is_first_temporary(name: &OsStr) -> bool {
    let Some(rest) = name.as_encoded_bytes().strip_prefix(FIRST_PREFIX.as_bytes()) else { return false };
    tracelab_schema::outfile::is_unique_suffix(rest)
}

/// The marker's first line (its format).
const HEADER: &str = "tracelab report folder, format 1";

/// A marker longer than this is not one tracelab wrote (a report of
/// 10,000 figures lists well under 2 MB).
const MAX_MARKER_BYTES: u64 = 16 << 20;

/// The marker's text for a folder holding `files`: a header, a sentence
/// for whoever opens it, a blank line, then the files one per line
/// (`/`-separated, sorted), so the same files give the same bytes.
pub fn text(files: &Files) -> String {
    let mut text = format!(
        "{HEADER}\nWritten by `tracelab report`. The next report into this folder replaces it whole and \
         removes only the files listed here; a folder holding anything else is refused.\n\n"
    );
    for rel in files.keys() {
        text.push_str(&slashed(rel));
        text.push('\n');
    }
    text
}

/// The files a marker lists; an error when the text is not a marker.
pub fn parse(path: &Path, text: &str) -> Result<BTreeSet<PathBuf>> {
    let bad = || {
        Error::Usage(format!(
            "{}: not a tracelab report marker (it should start with `{HEADER}`); remove it or choose another --out",
            path.display()
        ))
    };
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(bad());
    }
    let listed = lines.skip_while(|l| !l.is_empty()).skip(1);
    listed.map(|l| relative(l).map(|_| PathBuf::from(l)).ok_or_else(bad)).collect()
}

/// Reads a marker from an open file, bounded.
pub fn read(file: &std::fs::File, path: &Path) -> Result<BTreeSet<PathBuf>> {
    let mut text = String::new();
    file.take(MAX_MARKER_BYTES + 1).read_to_string(&mut text).at(path)?;
    if text.len() as u64 > MAX_MARKER_BYTES {
        return Err(Error::Usage(format!("{}: larger than any tracelab report marker", path.display())));
    }
    parse(path, &text)
}

/// `a/b.svg` from a relative path.
pub fn slashed(rel: &Path) -> String {
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// Whether `rel` is a plain relative path: named parts only (no root, no
/// `..`, no `.`), none holding a control character, and not the marker.
pub fn relative(rel: &str) -> Option<&str> {
    let path = Path::new(rel);
    let plain = !rel.is_empty()
        && path.components().all(|c| matches!(c, Component::Normal(_)))
        && !rel.chars().any(char::is_control)
        && !rel.ends_with('/')
        && rel != MARKER;
    plain.then_some(rel)
}

/// An entry of a folder, as the walk saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    File(PathBuf),
    Folder(PathBuf),
    /// A symbolic link, device, FIFO or socket: (path, what it is).
    Other(PathBuf, &'static str),
}

/// Every entry below `dir` (relative, sorted), links not followed.
pub fn walk(dir: &Path) -> Result<Vec<Entry>> {
    let mut found = Vec::new();
    let mut dirs = vec![PathBuf::new()];
    while let Some(rel) = dirs.pop() {
        let here = dir.join(&rel);
        for e in std::fs::read_dir(&here).at(&here)? {
            let e = e.at(&here)?;
            let path = rel.join(e.file_name());
            let t = e.file_type().at(here.join(e.file_name()))?;
            if t.is_dir() {
                dirs.push(path.clone());
                found.push(Entry::Folder(path));
            } else if t.is_file() {
                found.push(Entry::File(path));
            } else {
                found.push(Entry::Other(path, if t.is_symlink() { "a symbolic link" } else { "not a regular file" }));
            }
        }
    }
    found.sort_by(|a, b| key(a).cmp(key(b)));
    Ok(found)
}

fn key(e: &Entry) -> &Path {
    match e {
        Entry::File(p) | Entry::Folder(p) | Entry::Other(p, _) => p,
    }
}

/// What `dir` holds besides the marker and the files it lists: files not
/// listed, links and devices, folders that hold no listed file.
pub fn foreign(dir: &Path, listed: &BTreeSet<PathBuf>) -> Result<Vec<String>> {
    let parents: BTreeSet<&Path> = listed.iter().flat_map(|p| p.ancestors().skip(1)).collect();
    let mut out = Vec::new();
    for e in walk(dir)? {
        match e {
            Entry::File(p) if p == Path::new(MARKER) || listed.contains(&p) || is_first_temporary(p.as_os_str()) => {}
            Entry::Folder(p) if parents.contains(p.as_path()) => {}
            Entry::File(p) => out.push(slashed(&p)),
            Entry::Folder(p) => out.push(format!("{}/", slashed(&p))),
            Entry::Other(p, what) => out.push(format!("{} ({what})", slashed(&p))),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_lists_its_files_and_reads_back() {
        let mut files = Files::new();
        files.insert("index.html".into(), vec![]);
        files.insert(PathBuf::from("pai").join("a.svg"), vec![]);
        let t = text(&files);
        assert!(t.starts_with("tracelab report folder, format 1\n"), "{t}");
        assert!(t.ends_with("\n\nindex.html\npai/a.svg\n"), "{t}");
        let listed = parse(Path::new("m"), &t).unwrap();
        assert_eq!(listed.into_iter().collect::<Vec<_>>(), [PathBuf::from("index.html"), PathBuf::from("pai/a.svg")]);
        assert_eq!(parse(Path::new("m"), &text(&Files::new())).unwrap().len(), 0);
    }

    #[test]
    fn a_marker_cannot_list_paths_outside_its_folder() {
        for bad in ["../x", "/etc/passwd", "a/../../b", "./a", "", "a\rb", MARKER] {
            let t = format!("{HEADER}\nsentence\n\n{bad}\n");
            assert!(parse(Path::new("m"), &t).is_err(), "{bad:?} accepted");
        }
        assert!(parse(Path::new("m"), "summary.json\n").is_err(), "no header");
    }
}
