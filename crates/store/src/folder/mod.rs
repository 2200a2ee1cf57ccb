//! Folder outputs a verb owns (a report's `--out`): published whole, never
//! touching what tracelab did not write.
//!
//! [`publish`] builds the new folder beside the target under a hidden name
//! (`.<name>.tracelab-new-<pid>-<n>`), every file written new (never
//! through an existing name or link) and flushed, then swaps it in (see
//! [`swap`]): until then the old folder is intact, afterwards the new one
//! is complete. The old folder's files are then removed, but only those
//! its marker ([`marker`]) lists. A folder is accepted as a target when it
//! does not exist, is empty, or holds a marker and nothing but the files
//! that marker lists; anything else (a folder of the user's, a report
//! folder someone added files to, a symbolic link inside it or as the
//! target itself) is refused before anything is written.
//!
//! The marker is also the folder's lock: [`publish`] holds it exclusively
//! (an OS file lock, as the store's `.lock`, see [`crate::lock`]), so two
//! reports into one folder run one after the other; [`check`] holds it
//! shared. A process killed at any step leaves the old folder or the new
//! one under the name, plus a hidden build folder the next run removes
//! (it holds the lock, so such folders are those of dead processes).

pub mod marker;
mod swap;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use fs4::{FileExt, TryLockError};
use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::outfile::{sync_dir, unique_suffix};

pub use marker::MARKER;

/// The files of a folder output: path relative to the folder -> bytes.
pub type Files = BTreeMap<PathBuf, Vec<u8>>;

/// How a publication reports and, in tests, dies.
pub struct Options<'a> {
    /// Hears why, before waiting for another process using the folder.
    pub wait: &'a dyn Fn(&str),
    /// Hears what was left behind (a stale folder holding foreign files).
    pub note: &'a dyn Fn(&str),
    /// Tests of crash safety: abort the process (no clean-up runs, as when
    /// it is killed) just before its n-th step (1-based): creating a
    /// folder, writing a file, the swap, a removal. The CLI takes it from
    /// `TRACELAB_TEST_CRASH_AT_REPORT_STEP`; nothing else sets it.
    pub crash_before_step: Option<u64>,
}

/// Counts a publication's steps for [`Options::crash_before_step`].
pub struct Steps {
    done: u64,
    crash_at: Option<u64>,
}

impl Steps {
    fn point(&mut self) {
        self.done += 1;
        if self.crash_at == Some(self.done) {
            std::process::abort();
        }
    }
}

/// Publishes `files` as the folder `out` (see the module's doc).
pub fn publish(out: &Path, files: &Files, opts: &Options) -> Result<()> {
    for rel in files.keys() {
        if marker::relative(&marker::slashed(rel)).is_none() || rel.to_str().is_none() {
            return Err(Error::Usage(format!("{}: not a plain file name inside the report folder", rel.display())));
        }
    }
    let target = Target::of(out)?;
    let mut steps = Steps { done: 0, crash_at: opts.crash_before_step };
    let held = target.lock(opts.wait, &mut steps)?;
    target.remove_stale(&mut steps, opts.note)?;
    let foreign = marker::foreign(out, &held.listed)?;
    if !foreign.is_empty() {
        return Err(target.refuse(&format!("holds files tracelab did not write: {}", sample(&foreign))));
    }
    let built = target.sibling("new");
    let new_marker = build(&built, files, &mut steps)?;
    let old = swap::exchange(out, &built, &target.sibling("old"), &mut steps)?;
    sync_dir(&target.parent);
    swap::remove_written(&old, &mut steps, opts.note)?;
    drop((held, new_marker));
    Ok(())
}

/// Whether `out` could be published into now, without writing or locking
/// anything: the same refusals as [`publish`] (a link, not a folder, a
/// folder that is not a report or holds files tracelab did not write), for
/// a command to give before its work rather than after.
pub fn check_target(out: &Path) -> Result<()> {
    let target = Target::of_existing(out)?;
    match std::fs::symlink_metadata(out) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).at(out),
        Ok(m) if m.file_type().is_symlink() => return Err(target.refuse(LINK)),
        Ok(m) if !m.is_dir() => return Err(target.refuse("is not a folder")),
        Ok(_) => {}
    }
    let marker_path = out.join(MARKER);
    match std::fs::symlink_metadata(&marker_path) {
        Ok(m) if m.is_file() => {
            let listed = marker::read(&open_marker(&marker_path)?, &marker_path)?;
            let foreign = marker::foreign(out, &listed)?;
            if foreign.is_empty() {
                Ok(())
            } else {
                Err(target.refuse(&format!("holds files tracelab did not write: {}", sample(&foreign))))
            }
        }
        Ok(_) => Err(target.refuse(&format!("its {MARKER} is not a regular file"))),
        Err(_) if holds_more_than_a_marker(out)? => Err(target.refuse(NOT_A_REPORT)),
        Err(_) => Ok(()),
    }
}

const LINK: &str = "is a symbolic link; tracelab does not follow links (give the folder itself)";

const NOT_A_REPORT: &str = "not empty and not a tracelab report (it has no .tracelab-report marker; a report \
    written before tracelab marked its folders has none: remove that folder first)";

/// The first few of a list, for a message.
fn sample(items: &[String]) -> String {
    let more = items.len().saturating_sub(5);
    let head = items.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    if more > 0 {
        format!("{head} and {more} more")
    } else {
        head
    }
}

/// An output folder: its path, the folder it is in (resolved) and its name.
struct Target {
    path: PathBuf,
    parent: PathBuf,
    name: OsString,
}

/// The marker of the target, locked, with the files it lists.
struct Held {
    _file: File,
    listed: std::collections::BTreeSet<PathBuf>,
}

impl Target {
    /// The target, creating the folders it is in.
    fn of(out: &Path) -> Result<Target> {
        let t = Target::of_existing(out)?;
        std::fs::create_dir_all(&t.parent).at(&t.parent)?;
        let parent = t.parent.canonicalize().at(&t.parent)?;
        Ok(Target { parent, ..t })
    }

    /// The target as given (its folder not resolved).
    fn of_existing(out: &Path) -> Result<Target> {
        let name = out.file_name().filter(|_| !out.ends_with("..")).map(OsString::from);
        let Some(name) = name else {
            return Err(Error::Usage(format!("--out {}: expected a folder's path ending in its name", out.display())));
        };
        let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Ok(Target { path: out.to_path_buf(), parent: parent.to_path_buf(), name })
    }

    fn refuse(&self, why: &str) -> Error {
        Error::Usage(format!("--out {}: {why}; choose another --out", self.path.display()))
    }

    /// A hidden build (`new`) or set-aside (`old`) name beside the target.
    fn sibling(&self, kind: &str) -> PathBuf {
        self.parent.join(format!("{}{kind}-{}", self.prefix().to_string_lossy(), unique_suffix()))
    }

    /// `.<name>.tracelab-`: what the siblings' names start with.
    fn prefix(&self) -> OsString {
        let mut p = OsString::from(".");
        p.push(&self.name);
        p.push(".tracelab-");
        p
    }

    /// Whether `name` is one of this target's siblings: the prefix, then
    /// exactly `new-<pid>-<n>` or `old-<pid>-<n>` (so the siblings of a
    /// folder named `x.tracelab-new-1-1` are not taken for those of `x`).
    fn is_sibling(&self, name: &std::ffi::OsStr) -> bool {
        let (name, prefix) = (name.as_encoded_bytes(), self.prefix());
        let Some(rest) = name.strip_prefix(prefix.as_encoded_bytes()) else { return false };
        let Some(rest) = rest.strip_prefix(b"new-").or_else(|| rest.strip_prefix(b"old-")) else { return false };
        tracelab_schema::outfile::is_unique_suffix(rest)
    }

    /// Takes the folder's lock: creates the folder (and its marker, when it
    /// is empty) if needed, then locks the marker, checking afterwards that
    /// it is still the folder's (another report may have swapped the folder
    /// while this one waited).
    fn lock(&self, wait: &dyn Fn(&str), steps: &mut Steps) -> Result<Held> {
        let marker_path = self.path.join(MARKER);
        loop {
            self.prepare(&marker_path, steps)?;
            let file = open_marker(&marker_path)?;
            take(&file, Lock::Exclusive, &marker_path, wait)?;
            if !same_file(&file, &marker_path) {
                continue;
            }
            let listed = marker::read(&file, &marker_path)?;
            return Ok(Held { _file: file, listed });
        }
    }

    /// Makes sure the target is a folder with a marker, refusing anything
    /// else: a link, a file, a folder holding files but no marker.
    fn prepare(&self, marker_path: &Path, steps: &mut Steps) -> Result<()> {
        match std::fs::symlink_metadata(&self.path) {
            Err(e) if e.kind() == ErrorKind::NotFound => {
                steps.point();
                match std::fs::create_dir(&self.path) {
                    Err(e) if e.kind() != ErrorKind::AlreadyExists => return Err(e).at(&self.path),
                    _ => {}
                }
            }
            Err(e) => return Err(e).at(&self.path),
            Ok(m) if m.file_type().is_symlink() => return Err(self.refuse(LINK)),
            Ok(m) if !m.is_dir() => return Err(self.refuse("is not a folder")),
            Ok(_) => {}
        }
        match std::fs::symlink_metadata(marker_path) {
            Ok(m) if m.is_file() => Ok(()),
            Ok(_) => Err(self.refuse(&format!("its {MARKER} is not a regular file"))),
            Err(e) if e.kind() != ErrorKind::NotFound => Err(e).at(marker_path),
            Err(_) if holds_more_than_a_marker(&self.path)? => Err(self.refuse(NOT_A_REPORT)),
            Err(_) => {
                steps.point();
                create_first_marker(marker_path)
            }
        }
    }

    /// Removes build folders of dead processes beside the target (the lock
    /// is held, so no live process is using one).
    fn remove_stale(&self, steps: &mut Steps, note: &dyn Fn(&str)) -> Result<()> {
        let mut stale: Vec<PathBuf> = Vec::new();
        for e in std::fs::read_dir(&self.parent).at(&self.parent)? {
            let e = e.at(&self.parent)?;
            if self.is_sibling(&e.file_name()) && e.file_type().is_ok_and(|t| t.is_dir()) {
                stale.push(e.path());
            }
        }
        stale.sort();
        for dir in stale {
            swap::remove_written(&dir, steps, note)?;
        }
        Ok(())
    }
}

/// Builds the folder `dir` holding `files` and its marker (written first,
/// so a build killed half way lists what it may have written). Returns the
/// new marker, locked: the folder is this process's until it is done.
fn build(dir: &Path, files: &Files, steps: &mut Steps) -> Result<File> {
    steps.point();
    std::fs::create_dir(dir).at(dir)?;
    let marker_path = dir.join(MARKER);
    steps.point();
    write_new(&marker_path, marker::text(files).as_bytes())?;
    let lock = open_marker(&marker_path)?;
    take(&lock, Lock::Exclusive, &marker_path, &|_| {})?;
    let mut folders = std::collections::BTreeSet::new();
    for (rel, bytes) in files {
        if let Some(sub) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
            if folders.insert(sub.to_path_buf()) {
                std::fs::create_dir_all(dir.join(sub)).at(dir.join(sub))?;
            }
        }
        steps.point();
        write_new(&dir.join(rel), bytes)?;
    }
    for sub in &folders {
        sync_dir(&dir.join(sub));
    }
    sync_dir(dir);
    Ok(lock)
}

/// Whether `dir` holds anything besides a marker (or a first marker's
/// temporary file). A folder whose marker was missing a moment ago may hold
/// one now: another report creating the folder links it between our two
/// looks, and that folder is a report, not a foreign one (two reports
/// started at once into a new folder).
fn holds_more_than_a_marker(dir: &Path) -> Result<bool> {
    for entry in std::fs::read_dir(dir).at(dir)? {
        let name = entry.at(dir)?.file_name();
        if name != MARKER && !marker::is_first_temporary(&name) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Creates a new folder's first marker (listing nothing) so that it
/// appears whole: written and flushed under a temporary name, then
/// hard-linked to its name, which fails if another report's marker got
/// there first; theirs is as good, so it is used instead.
fn create_first_marker(marker_path: &Path) -> Result<()> {
    let dir = marker_path.parent().unwrap_or(Path::new("."));
    let tmp = marker::first_temporary(dir);
    let linked = write_new(&tmp, marker::text(&Files::new()).as_bytes())
        .and_then(|()| std::fs::hard_link(&tmp, marker_path).at(marker_path));
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => {
            sync_dir(dir);
            Ok(())
        }
        // Another report's marker won the race (AlreadyExists), or that
        // report swapped the folder away meanwhile (our temporary file went
        // with it): what counts is that a marker is there now.
        Err(_) if std::fs::symlink_metadata(marker_path).is_ok_and(|m| m.is_file()) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Writes a file that must not exist yet (never through a link), flushed.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = OpenOptions::new().write(true).create_new(true).open(path).at(path)?;
    f.write_all(bytes).at(path)?;
    f.sync_all().at(path)
}

/// Opens a marker to lock and read, refusing to follow a link.
fn open_marker(path: &Path) -> Result<File> {
    let mut opts = OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW);
    }
    opts.open(path).at(path)
}

/// Whether the open `file` is still the one at `path`.
fn same_file(file: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::symlink_metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (file, path);
        true
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lock {
    Shared,
    Exclusive,
}

/// Takes an OS lock on `file`, telling `wait` first when it is held.
fn take(file: &File, mode: Lock, path: &Path, wait: &dyn Fn(&str)) -> Result<()> {
    let tried = match mode {
        Lock::Shared => FileExt::try_lock_shared(file),
        Lock::Exclusive => FileExt::try_lock(file),
    };
    match tried {
        Ok(()) => return Ok(()),
        Err(TryLockError::Error(e)) => return Err(Error::io(path, e)),
        Err(TryLockError::WouldBlock) => {
            let folder = path.parent().unwrap_or(Path::new(".")).display();
            wait(&format!("waiting for the other tracelab report writing {folder} to finish (it holds {MARKER})"));
        }
    }
    match mode {
        Lock::Shared => FileExt::lock_shared(file),
        Lock::Exclusive => FileExt::lock(file),
    }
    .at(path)
}

/// How the folder `out` differs from `files` (and the marker listing
/// them): missing, changed and extra entries. Nothing is written; links
/// are reported, never followed. Holds the folder's lock shared, so a
/// report being published is not compared half way.
pub fn check(out: &Path, files: &Files) -> Result<Vec<String>> {
    let marker_path = out.join(MARKER);
    let _lock = match std::fs::symlink_metadata(&marker_path) {
        Ok(m) if m.is_file() => {
            let f = open_marker(&marker_path)?;
            take(&f, Lock::Shared, &marker_path, &|_| {})?;
            Some(f)
        }
        _ => None,
    };
    let mut want = files.clone();
    want.insert(PathBuf::from(MARKER), marker::text(files).into_bytes());
    let mut diffs = Vec::new();
    for (rel, bytes) in &want {
        let path = out.join(rel);
        match std::fs::symlink_metadata(&path) {
            Err(_) => diffs.push(format!("missing: {}", marker::slashed(rel))),
            Ok(m) if !m.is_file() => diffs.push(format!("differs: {} (not a regular file)", marker::slashed(rel))),
            Ok(_) if std::fs::read(&path).at(&path)? != *bytes => {
                diffs.push(format!("differs: {}", marker::slashed(rel)))
            }
            Ok(_) => {}
        }
    }
    if out.is_dir() && !std::fs::symlink_metadata(out).at(out)?.file_type().is_symlink() {
        for e in marker::walk(out)? {
            match e {
                marker::Entry::File(p) if !want.contains_key(&p) => {
                    diffs.push(format!("extra: {}", marker::slashed(&p)))
                }
                marker::Entry::Other(p, what) if !want.contains_key(&p) => {
                    diffs.push(format!("extra: {} ({what})", marker::slashed(&p)))
                }
                _ => {}
            }
        }
    }
    Ok(diffs)
}

#[cfg(test)]
mod tests;
