//! The store's lock (`<store>/.lock`, an OS file lock): an ingest holds it
//! exclusively while it publishes, readers (query, analyze, report, tables)
//! hold it shared for as long as they use the store. So a reader never sees
//! a publication half done, and two ingests never write one store at once.
//!
//! A process that finds the lock taken waits for it, after telling the
//! caller why (the CLI prints it): failing instead would make a `tracelab
//! report` started beside a long ingest, or tests sharing a store, fail at
//! random; cargo waits on its package-cache lock for the same reason. The
//! lock is released when the process ends, however it ends, so a killed
//! ingest never leaves a store locked.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use fs4::{FileExt, TryLockError};
use tracelab_schema::error::{Error, IoContext, Result};

use crate::layout;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Readers: any number at once, none while an ingest writes.
    Shared,
    /// An ingest: alone.
    Exclusive,
}

/// A held lock; released on drop.
#[derive(Debug)]
pub struct StoreLock {
    /// `None` for a read-only store whose lock file does not exist and
    /// cannot be created: nothing can write there, so readers need no lock.
    file: Option<File>,
    path: PathBuf,
    mode: Mode,
}

impl StoreLock {
    /// Takes the lock of the store at `root` in `mode`, calling `wait` with a
    /// message first if another process holds it.
    pub fn acquire(root: &Path, mode: Mode, wait: &dyn Fn(&str)) -> Result<StoreLock> {
        let path = layout::lock(root);
        let file = open(&path, mode)?;
        let lock = StoreLock { file, path, mode };
        if mode == Mode::Exclusive {
            lock.refuse_if_this_process_reads()?;
        }
        lock.take(mode, wait)?;
        held().push((lock.key(), mode));
        Ok(lock)
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Turns a shared lock into an exclusive one. The change is not atomic
    /// (another process may write the store in between), so the caller
    /// must look at the store again afterwards.
    pub fn upgrade(&mut self, wait: &dyn Fn(&str)) -> Result<()> {
        if self.mode == Mode::Exclusive {
            return Ok(());
        }
        if self.file.is_none() {
            self.file = open(&self.path, Mode::Exclusive)?;
        }
        self.forget();
        let taken = self.refuse_if_this_process_reads().and_then(|()| self.take(Mode::Exclusive, wait));
        held().push((self.key(), if taken.is_ok() { Mode::Exclusive } else { Mode::Shared }));
        taken?;
        self.mode = Mode::Exclusive;
        Ok(())
    }

    /// File locks belong to open files, not processes: a process that reads
    /// a store and then writes it would wait for itself forever. This is
    /// a bug in the caller; it is reported instead.
    fn refuse_if_this_process_reads(&self) -> Result<()> {
        if held().iter().any(|(k, _)| *k == self.key()) {
            return Err(Error::Usage(format!(
                "{}: this process still holds the store open; close it before writing the store",
                self.path.parent().unwrap_or(Path::new(".")).display()
            )));
        }
        Ok(())
    }

    fn key(&self) -> PathBuf {
        self.path.canonicalize().unwrap_or_else(|_| self.path.clone())
    }

    /// Removes this lock from the process's list of held locks.
    fn forget(&self) {
        let key = self.key();
        let mut held = held();
        if let Some(i) = held.iter().position(|(k, m)| *k == key && *m == self.mode) {
            held.swap_remove(i);
        }
    }

    fn take(&self, mode: Mode, wait: &dyn Fn(&str)) -> Result<()> {
        let Some(file) = &self.file else { return Ok(()) };
        let tried = match mode {
            Mode::Shared => FileExt::try_lock_shared(file),
            Mode::Exclusive => FileExt::try_lock(file),
        };
        match tried {
            Ok(()) => return Ok(()),
            Err(TryLockError::Error(e)) => return Err(Error::io(&self.path, e)),
            Err(TryLockError::WouldBlock) => wait(&self.waiting_message(mode)),
        }
        match mode {
            Mode::Shared => FileExt::lock_shared(file),
            Mode::Exclusive => FileExt::lock(file),
        }
        .at(&self.path)
    }

    fn waiting_message(&self, mode: Mode) -> String {
        let store = self.path.parent().unwrap_or(Path::new(".")).display();
        match mode {
            Mode::Shared => {
                format!("waiting for the tracelab ingest writing {store} to finish (it holds {store}/.lock)")
            }
            Mode::Exclusive => {
                format!("waiting for the other tracelab processes using {store} to finish (they hold {store}/.lock)")
            }
        }
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        self.forget();
    }
}

/// The locks this process holds: (lock file, mode). Process-wide on
/// purpose: whether a lock would wait for this very process is a fact about
/// the process (every open file of it), not about one caller's value.
fn held() -> std::sync::MutexGuard<'static, Vec<(PathBuf, Mode)>> {
    static HELD: Mutex<Vec<(PathBuf, Mode)>> = Mutex::new(Vec::new());
    HELD.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Opens (creating) the lock file. A reader of a store it cannot write
/// opens the file read-only, or goes without when it cannot be created.
fn open(path: &Path, mode: Mode) -> Result<Option<File>> {
    match OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path) {
        Ok(f) => Ok(Some(f)),
        Err(e)
            if mode == Mode::Shared
                && matches!(e.kind(), ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem) =>
        {
            match File::open(path) {
                Ok(f) => Ok(Some(f)),
                Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
                Err(e) => Err(Error::io(path, e)),
            }
        }
        Err(e) => Err(Error::io(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// The lock file held as another process would hold it (unknown to this
    /// process's list of locks).
    fn held_elsewhere(root: &Path, mode: Mode) -> File {
        let f =
            OpenOptions::new().read(true).write(true).create(true).truncate(false).open(layout::lock(root)).unwrap();
        match mode {
            Mode::Shared => FileExt::lock_shared(&f).unwrap(),
            Mode::Exclusive => FileExt::lock(&f).unwrap(),
        }
        f
    }

    #[test]
    fn readers_share_and_a_writer_waits_for_them_with_a_message() {
        let dir = tempfile::tempdir().unwrap();
        let other = held_elsewhere(dir.path(), Mode::Shared);
        let mine =
            StoreLock::acquire(dir.path(), Mode::Shared, &|_| panic!("readers do not wait for readers")).unwrap();
        drop(mine);
        let (tx, rx) = mpsc::channel();
        let root = dir.path().to_path_buf();
        let writer = std::thread::spawn(move || {
            let told = Mutex::new(Vec::new());
            let lock = StoreLock::acquire(&root, Mode::Exclusive, &|m| told.lock().unwrap().push(m.to_string()));
            tx.send(()).unwrap();
            (lock.map(|l| l.mode()), told.into_inner().unwrap())
        });
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err(), "the writer got in beside a reader");
        drop(other);
        rx.recv_timeout(Duration::from_secs(10)).expect("the writer gets the lock once the reader is gone");
        let (mode, told) = writer.join().unwrap();
        assert_eq!(mode.unwrap(), Mode::Exclusive);
        assert_eq!(told.len(), 1);
        assert!(told[0].contains("waiting for the other tracelab processes") && told[0].contains(".lock"), "{told:?}");
    }

    #[test]
    fn a_reader_waits_for_a_writer_and_an_upgrade_for_other_readers() {
        let dir = tempfile::tempdir().unwrap();
        let writer = held_elsewhere(dir.path(), Mode::Exclusive);
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(writer);
        });
        let told = Mutex::new(String::new());
        let mut mine = StoreLock::acquire(dir.path(), Mode::Shared, &|m| *told.lock().unwrap() = m.into()).unwrap();
        assert!(told.lock().unwrap().contains("waiting for the tracelab ingest writing"), "{told:?}");
        release.join().unwrap();
        let reader = held_elsewhere(dir.path(), Mode::Shared);
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(reader);
        });
        let waited = std::cell::Cell::new(false);
        mine.upgrade(&|_| waited.set(true)).unwrap();
        assert!(waited.get() && mine.mode() == Mode::Exclusive);
        release.join().unwrap();
    }

    #[test]
    fn writing_a_store_this_process_reads_is_refused_instead_of_waiting_forever() {
        let dir = tempfile::tempdir().unwrap();
        let reading = StoreLock::acquire(dir.path(), Mode::Shared, &|_| {}).unwrap();
        let err = StoreLock::acquire(dir.path(), Mode::Exclusive, &|_| {}).unwrap_err();
        assert!(err.to_string().contains("this process still holds the store open"), "{err}");
        drop(reading);
        StoreLock::acquire(dir.path(), Mode::Exclusive, &|_| {}).unwrap();
    }
}
