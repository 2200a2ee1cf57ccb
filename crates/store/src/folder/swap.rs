//! Putting a built folder in place of another, and removing what tracelab
//! wrote in a folder that is no longer in use. On Linux the two folders
//! trade names in one step (`renameat2(RENAME_EXCHANGE)`), so the path
//! always names a complete folder; elsewhere, or on a file system that
//! cannot exchange, the old folder is renamed away and the new one renamed
//! in (a crash between the two leaves no folder under the name, which the
//! next run creates afresh).

use std::collections::BTreeSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use tracelab_schema::error::{IoContext, Result};

use super::marker::{self, MARKER};
use super::Steps;

/// Swaps `target` (an existing folder) and `built`: afterwards `target`
/// holds the new folder and `built` the old one; with the fallback, the old
/// one is at `aside`. Returns where the old folder now is.
pub fn exchange(target: &Path, built: &Path, aside: &Path, steps: &mut Steps) -> Result<PathBuf> {
    steps.point();
    match exchange_in_place(target, built) {
        Ok(()) => return Ok(built.to_path_buf()),
        Err(e) if cannot_exchange(&e) => {}
        Err(e) => return Err(e).at(target),
    }
    std::fs::rename(target, aside).at(target)?;
    steps.point();
    std::fs::rename(built, target).at(target)?;
    Ok(aside.to_path_buf())
}

#[cfg(target_os = "linux")]
fn exchange_in_place(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c =
        |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(|_| std::io::Error::from(ErrorKind::InvalidInput));
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both are valid NUL-terminated paths that live across the
    // call; renameat2 reads them and keeps no reference.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange_in_place(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(ErrorKind::Unsupported))
}

/// The errors of a kernel or file system without the exchange.
fn cannot_exchange(e: &std::io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)) {
        return true;
    }
    e.kind() == ErrorKind::Unsupported
}

/// Removes from `dir` the files its marker lists, the marker, the folders
/// that become empty and `dir` itself. Anything else (a file tracelab did
/// not write, a link) stays, and `dir` with it: `note` says so. A folder
/// without a marker is removed only when empty (a build killed before it
/// wrote its marker).
pub fn remove_written(dir: &Path, steps: &mut Steps, note: &dyn Fn(&str)) -> Result<()> {
    let marker_path = dir.join(MARKER);
    let listed = match std::fs::symlink_metadata(&marker_path) {
        Ok(m) if m.is_file() => {
            let file = std::fs::File::open(&marker_path).at(&marker_path)?;
            marker::read(&file, &marker_path).unwrap_or_default()
        }
        _ => BTreeSet::new(),
    };
    for rel in listed.iter().filter(|rel| real_folders(dir, rel)) {
        remove_if_file(&dir.join(rel), steps)?;
    }
    let mut folders: Vec<&Path> = listed.iter().flat_map(|p| p.ancestors().skip(1)).collect();
    folders.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
    folders.dedup();
    for rel in folders.into_iter().filter(|p| !p.as_os_str().is_empty()) {
        let _ = std::fs::remove_dir(dir.join(rel));
    }
    remove_first_temporaries(dir);
    remove_if_file(&marker_path, steps)?;
    steps.point();
    match std::fs::remove_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(_) => {
            note(&format!(
                "left {}: it holds files tracelab did not write (nothing there was removed but tracelab's own)",
                dir.display()
            ));
            Ok(())
        }
    }
}

/// Removes the first markers' temporary files a report killed while
/// creating the folder left in it ([`marker::is_first_temporary`]).
fn remove_first_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        if marker::is_first_temporary(&e.file_name()) && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Whether every folder between `dir` and `dir/rel` is a real folder: a
/// folder replaced by a link would lead the removal out of `dir`.
fn real_folders(dir: &Path, rel: &Path) -> bool {
    rel.ancestors()
        .skip(1)
        .filter(|a| !a.as_os_str().is_empty())
        .all(|a| std::fs::symlink_metadata(dir.join(a)).is_ok_and(|m| m.is_dir()))
}

/// Removes `path` when it is a regular file (never a link or a folder).
fn remove_if_file(path: &Path, steps: &mut Steps) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => {
            steps.point();
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != ErrorKind::NotFound => Err(e).at(path),
                _ => Ok(()),
            }
        }
        _ => Ok(()),
    }
}
