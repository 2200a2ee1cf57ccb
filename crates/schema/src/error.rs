//! Library error types. Inside the library errors are typed (`thiserror`);
//! the CLI adds context with `anyhow` and maps them to exit codes. Every
//! message names the file (and where it applies the record and column) and
//! what was expected, in one line.

use std::io;
use std::path::{Path, PathBuf};

/// Errors that stop a command. Bad *records* are not errors: they become
/// rejects (see `ingest::rejects`) and the command goes on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input that cannot be used at all: missing, empty, truncated, a
    /// corrupt archive or an unknown layout.
    #[error("{file}: {problem}")]
    Input { file: String, problem: String },

    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// The query engine (Polars) failed while building, reading or writing
    /// a table. The source is boxed so this layer-0 crate need not depend on
    /// the engine.
    #[error("{context}: {source}")]
    Polars {
        context: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },

    /// The request itself is wrong (bad option combination, nothing to do).
    #[error("{0}")]
    Usage(String),

    /// `--strict` was given and records were rejected.
    #[error("{0}")]
    Strict(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn input(file: impl Into<String>, problem: impl Into<String>) -> Error {
        Error::Input { file: file.into(), problem: problem.into() }
    }

    pub fn io(path: impl AsRef<Path>, source: io::Error) -> Error {
        Error::Io { path: path.as_ref().to_path_buf(), source }
    }

    pub fn polars(context: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error::Polars { context: context.into(), source: Box::new(source) }
    }

    /// Process exit code: 2 for usage errors, 1 for everything else.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            _ => 1,
        }
    }
}

/// Attaches a path to an `io::Result`.
pub trait IoContext<T> {
    fn at(self, path: impl AsRef<Path>) -> Result<T>;
}

impl<T> IoContext<T> for io::Result<T> {
    fn at(self, path: impl AsRef<Path>) -> Result<T> {
        self.map_err(|e| Error::io(path, e))
    }
}
