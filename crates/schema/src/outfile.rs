//! The one way a verb writes a file of its own outside the store (`export
//! -o`, `query -o`, `synth --out`'s files, `simulate --out`'s files, `man
//! --out`'s pages...): into a temporary file beside the target, flushed to
//! disk, then renamed over it, so the name shows the old file or the whole
//! new one, never half of one, and a failed or killed run leaves the old
//! file as it was.
//!
//! What may be replaced is decided here once: nothing (a new path only), or
//! a regular file. A symbolic link (dangling or not), a folder, a device, a
//! FIFO or a socket at the target is refused with a usage error and left
//! untouched: renaming over a link would silently drop it, and a device
//! (`/dev/null` as root) would become a regular file. The check is done
//! before any work ([`check`]), when the temporary file is created and again
//! just before the rename. [`distinct`] refuses two outputs of one command
//! that are the same file (same path after resolving `..` and links in the
//! folders, or the same inode through a hard link).
//!
//! It lives in the lowest layer so that every writer (synth is below the
//! store) uses it; it knows nothing of stores, which
//! `tracelab_store` publishes its own way.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, ErrorKind, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, IoContext, Result};

/// What an output may replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// A regular file at the path is replaced (`-o` of `query`, the files of
    /// `synth --out`): what a shell's `>` does, minus following links.
    Regular,
    /// Only a new path is written; an existing file is refused with a hint
    /// at `--force` (`export` without `--force`).
    Never,
}

/// `<pid>-<n>`: unique among the live processes of this machine and the
/// calls of this one. The counter is process-wide on purpose: uniqueness
/// within a process is what it is for, and it carries no other state.
pub fn unique_suffix() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Whether `s` is exactly a name part [`unique_suffix`] makes: digits, a
/// dash, digits (how the store tells its own temporary names from a user's).
pub fn is_unique_suffix(s: &[u8]) -> bool {
    let mut parts = s.split(|b| *b == b'-');
    let digits = |p: Option<&[u8]>| p.is_some_and(|p| !p.is_empty() && p.iter().all(u8::is_ascii_digit));
    digits(parts.next()) && digits(parts.next()) && parts.next().is_none()
}

/// A hidden temporary name beside `path` (`.<name>.<pid>-<n>.tmp`).
pub fn temporary(path: &Path) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".{}.tmp", unique_suffix()));
    path.with_file_name(name)
}

/// What is at a path, as far as writing it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Nothing,
    Regular,
    Link,
    Folder,
    Special(&'static str),
}

fn found(path: &Path) -> Result<Found> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Found::Nothing),
        Err(e) => return Err(Error::io(path, e)),
    };
    let t = meta.file_type();
    Ok(if t.is_symlink() {
        Found::Link
    } else if t.is_dir() {
        Found::Folder
    } else if t.is_file() {
        Found::Regular
    } else {
        Found::Special(special_kind(t))
    })
}

#[cfg(unix)]
fn special_kind(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: std::fs::FileType) -> &'static str {
    "not a regular file"
}

/// Whether `path` may be written under `replace`; the usage error names
/// `option` (`-o`, `--ids`, `--out`) and what is wrong. Also refuses a
/// path whose folder does not exist.
pub fn check(option: &str, path: &Path, replace: Replace) -> Result<()> {
    let refuse = |why: String| Err(Error::Usage(format!("{option} {}: {why}", path.display())));
    match found(path)? {
        Found::Nothing => {}
        Found::Regular if replace == Replace::Regular => {}
        Found::Regular => return refuse("the file exists; pass --force to replace it".into()),
        Found::Link => {
            return refuse(
                "is a symbolic link; tracelab writes only regular files and does not follow links \
                 (name the file itself)"
                    .into(),
            )
        }
        Found::Folder => return refuse("is a folder; expected a file".into()),
        Found::Special(kind) => {
            return refuse(format!(
                "is {kind}, not a regular file; tracelab replaces only regular files (`-o -` writes to stdout)"
            ))
        }
    }
    let parent = folder_of(path);
    if !parent.is_dir() {
        return refuse(format!("the folder {} does not exist", parent.display()));
    }
    Ok(())
}

/// The folder a file path is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Refuses two outputs of one command that name the same file: the same
/// inode (a hard link, or the same path spelled twice) or, for paths that
/// do not exist yet, the same name in the same folder after resolving the
/// folders' `..` and links. `-` (stdout) is not a file and is skipped.
pub fn distinct(outputs: &[(&str, &Path)]) -> Result<()> {
    let files: Vec<(&str, &Path, Identity)> =
        outputs.iter().filter(|(_, p)| p.as_os_str() != "-").map(|(o, p)| (*o, *p, identity(p))).collect();
    for (i, (a, pa, ia)) in files.iter().enumerate() {
        if let Some((b, pb, _)) = files[i + 1..].iter().find(|(_, _, ib)| ib == ia) {
            return Err(Error::Usage(format!(
                "{a} {} and {b} {} are the same file; give each output its own file",
                pa.display(),
                pb.display()
            )));
        }
    }
    Ok(())
}

#[derive(Debug, PartialEq, Eq)]
enum Identity {
    #[cfg(unix)]
    Inode(u64, u64),
    Path(PathBuf),
}

fn identity(path: &Path) -> Identity {
    #[cfg(unix)]
    if let Ok(m) = std::fs::symlink_metadata(path) {
        use std::os::unix::fs::MetadataExt;
        return Identity::Inode(m.dev(), m.ino());
    }
    let folder = folder_of(path).canonicalize().unwrap_or_else(|_| folder_of(path).to_path_buf());
    Identity::Path(folder.join(path.file_name().unwrap_or_default()))
}

/// A file being written: a temporary file beside `path`, renamed over it
/// by [`OutputFile::commit`]. Dropped without a commit (an error, a panic),
/// the temporary file is removed and `path` is untouched.
#[derive(Debug)]
pub struct OutputFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
    replace: Replace,
}

impl OutputFile {
    /// Checks `path` (see [`check`]) and creates the temporary file (a new
    /// name: an existing file or link there is never opened).
    pub fn create(path: &Path, replace: Replace) -> Result<OutputFile> {
        check("output", path, replace)?;
        let tmp = temporary(path);
        let file = OpenOptions::new().write(true).create_new(true).open(&tmp).at(&tmp)?;
        Ok(OutputFile { path: path.to_path_buf(), tmp, file: Some(file), replace })
    }

    /// The path the file will have.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("open until committed")
    }

    /// Flushes the bytes to disk and puts the file in place. A path that
    /// became a link, a folder or a device meanwhile is refused; under
    /// [`Replace::Never`] a file that appeared meanwhile is not replaced.
    pub fn commit(mut self) -> Result<()> {
        let file = self.file.take().expect("committed once");
        file.sync_all().at(&self.tmp)?;
        drop(file);
        check("output", &self.path, self.replace)?;
        match self.replace {
            Replace::Regular => std::fs::rename(&self.tmp, &self.path).at(&self.path)?,
            Replace::Never => self.link_into_place()?,
        }
        sync_dir(folder_of(&self.path));
        Ok(())
    }

    /// Puts the file at a path that must not exist: a hard link fails when
    /// the name is taken (no window in which another file is replaced); on
    /// a file system without hard links, a checked rename.
    fn link_into_place(&self) -> Result<()> {
        match std::fs::hard_link(&self.tmp, &self.path) {
            Ok(()) => std::fs::remove_file(&self.tmp).at(&self.tmp),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => Err(Error::Usage(format!(
                "{}: a file appeared there while tracelab was writing it; it was left as it is",
                self.path.display()
            ))),
            Err(_) => std::fs::rename(&self.tmp, &self.path).at(&self.path),
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

impl Seek for OutputFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file().seek(pos)
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Writes `bytes` as the file `path` (see [`OutputFile`]).
pub fn write(path: &Path, bytes: &[u8], replace: Replace) -> Result<()> {
    let mut out = OutputFile::create(path, replace)?;
    out.write_all(bytes).at(&out.tmp)?;
    out.commit()
}

/// Flushes a folder's entries (the renames done in it) to disk. Not every
/// platform can open a folder; there it is skipped.
pub fn sync_dir(dir: &Path) {
    if let Ok(f) = File::open(dir) {
        let _ = f.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unique_suffix_is_exactly_digits_dash_digits() {
        assert!(is_unique_suffix(unique_suffix().as_bytes()));
        assert!(is_unique_suffix(b"12-0"));
        for not in [&b""[..], b"12", b"12-", b"-3", b"1-2-3", b"1a-2", b"1-2 ", b"12_3"] {
            assert!(!is_unique_suffix(not), "{:?}", String::from_utf8_lossy(not));
        }
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.csv");
        write(&path, b"one", Replace::Regular).unwrap();
        write(&path, b"two", Replace::Regular).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(names(dir.path()), ["a.csv"]);
        assert_ne!(temporary(&path), temporary(&path), "two calls, two temporary names");
    }

    #[test]
    fn an_uncommitted_file_leaves_the_old_one_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.csv");
        std::fs::write(&path, "old").unwrap();
        let mut out = OutputFile::create(&path, Replace::Regular).unwrap();
        out.write_all(b"half of the new").unwrap();
        drop(out);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(names(dir.path()), ["a.csv"]);
    }

    #[test]
    fn never_refuses_an_existing_file_and_one_that_appears_while_writing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.swf");
        std::fs::write(&path, "mine").unwrap();
        let err = write(&path, b"x", Replace::Never).unwrap_err().to_string();
        assert!(err.contains("the file exists; pass --force"), "{err}");
        std::fs::remove_file(&path).unwrap();
        let mut out = OutputFile::create(&path, Replace::Never).unwrap();
        out.write_all(b"new").unwrap();
        std::fs::write(&path, "appeared").unwrap();
        let err = out.commit().unwrap_err().to_string();
        assert!(err.contains("the file exists"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "appeared");
        assert_eq!(names(dir.path()), ["a.swf"]);
    }

    #[cfg(unix)]
    #[test]
    fn links_folders_and_fifos_are_refused_and_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.txt");
        std::fs::write(&target, "precious").unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let dangling = dir.path().join("dangling.csv");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        let fifo = dir.path().join("fifo.csv");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        for (path, want) in [
            (&link, "is a symbolic link"),
            (&dangling, "is a symbolic link"),
            (&fifo.clone(), "is a FIFO"),
            (&dir.path().to_path_buf(), "is a folder"),
        ] {
            let err = write(path, b"x", Replace::Regular).unwrap_err();
            assert_eq!(err.exit_code(), 2);
            assert!(err.to_string().contains(want), "{err}");
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
        assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
        assert!(!dir.path().join("nowhere").exists());
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert!(std::fs::symlink_metadata("/dev/null").unwrap().file_type().is_char_device());
        let err = check("-o", Path::new("/dev/null"), Replace::Regular).unwrap_err().to_string();
        assert!(err.contains("-o /dev/null: is a device"), "{err}");
        let err = check("-o", &dir.path().join("no/such/a.csv"), Replace::Regular).unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn the_same_file_twice_is_refused_by_path_and_by_inode() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let spelled = dir.path().join("sub/../a.csv");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        // Neither exists yet: the same name in the same folder.
        let err = distinct(&[("-o", &a), ("--ids", &spelled)]).unwrap_err().to_string();
        assert!(err.contains("are the same file"), "{err}");
        std::fs::write(&a, "x").unwrap();
        let hard = dir.path().join("b.csv");
        std::fs::hard_link(&a, &hard).unwrap();
        assert!(distinct(&[("-o", &a), ("--ids", &hard)]).is_err());
        assert!(distinct(&[("-o", &a), ("--ids", &dir.path().join("c.csv"))]).is_ok());
        assert!(distinct(&[("-o", Path::new("-")), ("--ids", Path::new("-"))]).is_ok());
    }
}
