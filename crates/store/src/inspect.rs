//! What a store holds and whether it can be trusted: every trace folder
//! with a manifest of this format whose files are all there at the sizes it
//! lists, and a unified table built from exactly the trace manifests now
//! present. Readers ([`crate::Store::open`]) refuse anything else with the
//! reason; ingest ([`crate::publish`]) re-publishes it.

use std::path::Path;

use tracelab_schema::{unified, Trace};

use crate::layout;
use crate::manifest::{self, BuiltFrom, FileDigest, Manifest, Read, StoreManifest};

/// One trace folder.
#[derive(Debug)]
pub(crate) enum TraceState {
    /// No folder, or one holding no table.
    Absent,
    /// A complete publication: its manifest and the SHA-256 of its bytes.
    Valid(Manifest, String),
    /// Tables that no valid manifest vouches for: why.
    Invalid(String),
}

/// The unified `jobs` table.
#[derive(Debug)]
pub(crate) enum UnifiedState {
    Absent,
    Current(StoreManifest, String),
    /// Present but not built from the current trace manifests: why.
    Stale(String),
}

#[derive(Debug)]
pub(crate) struct Inspection {
    pub traces: Vec<(Trace, TraceState)>,
    pub unified: UnifiedState,
}

impl Inspection {
    pub fn manifest(&self, trace: Trace) -> Option<&Manifest> {
        self.traces.iter().find(|(t, _)| *t == trace).and_then(|(_, s)| match s {
            TraceState::Valid(m, _) => Some(m),
            _ => None,
        })
    }

    /// The trace manifests a unified table built now would be built from.
    pub fn built_from(&self) -> Vec<BuiltFrom> {
        self.traces
            .iter()
            .filter_map(|(t, s)| match s {
                TraceState::Valid(_, sha) => Some(BuiltFrom { trace: t.name().into(), manifest_sha256: sha.clone() }),
                _ => None,
            })
            .collect()
    }
}

/// When the tail of each file a manifest lists is compared with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tails {
    /// While the store is inspected: a changed file makes it untrusted.
    Now,
    /// When a reader uses the table ([`crate::StoredTable::check`]); sizes
    /// are still compared now.
    OnUse,
}

pub(crate) fn inspect(root: &Path) -> Inspection {
    inspect_with(root, Tails::Now)
}

pub(crate) fn inspect_with(root: &Path, tails: Tails) -> Inspection {
    let traces: Vec<(Trace, TraceState)> = Trace::ALL.iter().map(|t| (*t, trace_state(root, *t, tails))).collect();
    let mut inspection = Inspection { traces, unified: UnifiedState::Absent };
    inspection.unified = unified_state(root, &inspection.built_from(), tails);
    inspection
}

fn trace_state(root: &Path, trace: Trace, tails: Tails) -> TraceState {
    let folder = layout::folder(root, Some(trace));
    match manifest::read::<Manifest>(&layout::manifest(root, Some(trace))) {
        Read::Missing if holds_a_table(&folder) => {
            TraceState::Invalid("tables without a manifest: the last ingest did not finish".into())
        }
        Read::Missing => TraceState::Absent,
        Read::Invalid(why) => TraceState::Invalid(why),
        Read::Valid(m, sha) => match check_files(&folder, &m.files, tails) {
            Ok(()) => TraceState::Valid(m, sha),
            Err(why) => TraceState::Invalid(why),
        },
    }
}

fn holds_a_table(folder: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(folder) else { return false };
    entries.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        !name.starts_with('.') && name.ends_with(".parquet")
    })
}

/// Every file a manifest lists exists at the size and (with [`Tails::Now`])
/// with the tail (the Parquet footer) it lists. The whole file's SHA-256 is
/// not recomputed: that would read the whole store on every open.
fn check_files(folder: &Path, files: &[FileDigest], tails: Tails) -> Result<(), String> {
    for f in files {
        let path = folder.join(&f.file);
        let size = match std::fs::metadata(&path) {
            Ok(m) => m.len(),
            Err(_) => return Err(format!("{} is listed in its manifest but missing", path.display())),
        };
        if size != f.bytes {
            let p = path.display();
            return Err(format!("{p} has {size} bytes where its manifest says {}: changed after ingest", f.bytes));
        }
        if tails == Tails::Now {
            check_tail(&path, &f.tail_sha256)?;
        }
    }
    Ok(())
}

/// The last [`manifest::TAIL`] bytes of `path` have the SHA-256 `expected`.
pub(crate) fn check_tail(path: &Path, expected: &str) -> Result<(), String> {
    if manifest::tail_sha256(path).ok().as_deref() != Some(expected) {
        return Err(format!("{} differs from the file its manifest lists: changed after ingest", path.display()));
    }
    Ok(())
}

fn unified_state(root: &Path, built_from: &[BuiltFrom], tails: Tails) -> UnifiedState {
    let table = layout::table(root, &unified::JOBS);
    match manifest::read::<StoreManifest>(&layout::manifest(root, None)) {
        Read::Missing if table.exists() => {
            UnifiedState::Stale("jobs.parquet has no manifest: the last ingest did not finish".into())
        }
        Read::Missing => UnifiedState::Absent,
        Read::Invalid(why) => UnifiedState::Stale(why),
        Read::Valid(m, _) if m.built_from != built_from => {
            UnifiedState::Stale("jobs.parquet was built from other trace manifests than the store now holds".into())
        }
        Read::Valid(m, sha) => match check_files(root, &m.files, tails) {
            Ok(()) => UnifiedState::Current(m, sha),
            Err(why) => UnifiedState::Stale(why),
        },
    }
}
