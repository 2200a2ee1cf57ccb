//! The report's result cache, so that a second `tracelab report` over an
//! unchanged store re-renders in seconds instead of re-running every
//! analysis. Entries live in `<store>/.cache/report/`:
//! - `run-<key>.json`: an analysis run's title, definition, parameters and
//!   headline numbers;
//! - `fig-<key>.json`: one figure's rendered SVG or table, its CSV and its
//!   caption notes.
//!
//! A run key hashes the tracelab binary's identity (its size and mtime: any
//! rebuild invalidates), the store's content (every trace's ingest
//! manifest, which lists the inputs' sha256) and the analysis id and
//! parameters; a figure key adds the figure's spec text. Entries are written
//! to a temporary file and renamed, so concurrent runs are safe; a cache
//! that cannot be written is skipped, never an error.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::figure::FigureOut;
use super::summary::HeadlineRow;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEntry {
    pub title: String,
    pub definition: String,
    pub params: Vec<(String, String)>,
    pub headlines: Vec<HeadlineRow>,
}

pub struct Cache {
    dir: Option<PathBuf>,
    /// Hash of the binary and the store content.
    base: String,
}

impl Cache {
    /// A cache under `store_root`, or a disabled one.
    pub fn new(store_root: &Path, store_fingerprint: &str, enabled: bool) -> Cache {
        let dir = enabled.then(|| store_root.join(".cache").join("report"));
        Cache { dir, base: hash(&[&binary_identity(), store_fingerprint]) }
    }

    pub fn run_key(&self, analysis: &str, params: &[(String, String)]) -> String {
        let p: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        hash(&[&self.base, analysis, &p.join("\n")])
    }

    pub fn fig_key(run_key: &str, figure_source: &str) -> String {
        hash(&[run_key, figure_source])
    }

    pub fn get_run(&self, key: &str) -> Option<RunEntry> {
        self.read(&format!("run-{key}.json"))
    }

    pub fn put_run(&self, key: &str, entry: &RunEntry) {
        self.write(&format!("run-{key}.json"), entry);
    }

    pub fn get_fig(&self, key: &str) -> Option<FigureOut> {
        self.read(&format!("fig-{key}.json"))
    }

    pub fn put_fig(&self, key: &str, f: &FigureOut) {
        self.write(&format!("fig-{key}.json"), f);
    }

    fn read<T: for<'de> Deserialize<'de>>(&self, name: &str) -> Option<T> {
        let bytes = std::fs::read(self.dir.as_ref()?.join(name)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    fn write<T: Serialize>(&self, name: &str, value: &T) {
        let Some(dir) = &self.dir else { return };
        let Ok(bytes) = serde_json::to_vec(value) else { return };
        let tmp = dir.join(format!(".{name}.{}", std::process::id()));
        let ok = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&tmp, bytes));
        if ok.and_then(|_| std::fs::rename(&tmp, dir.join(name))).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

fn hash(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// The running binary's size and modification time: changes with every
/// build, so cached results never outlive the code that made them.
fn binary_identity() -> String {
    let meta = std::env::current_exe().and_then(std::fs::metadata);
    match meta {
        Ok(m) => {
            let mtime = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            format!("{} {} {}", env!("CARGO_PKG_VERSION"), m.len(), mtime.map_or(0, |d| d.as_nanos()))
        }
        // Unknown binary: a key nothing else produces, so nothing is reused.
        Err(_) => format!("unknown {}", std::process::id()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figure::Rendered;
    use crate::tables::TextTable;

    #[test]
    fn entries_round_trip_and_keys_separate_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path(), "store-a", true);
        let k = cache.run_key("pai.x", &[("bin".into(), "5m".into())]);
        assert_ne!(k, cache.run_key("pai.x", &[("bin".into(), "1h".into())]));
        assert_ne!(k, Cache::new(dir.path(), "store-b", true).run_key("pai.x", &[("bin".into(), "5m".into())]));
        assert!(cache.get_run(&k).is_none());
        let entry = RunEntry { title: "t".into(), definition: "d".into(), params: vec![], headlines: vec![] };
        cache.put_run(&k, &entry);
        assert_eq!(cache.get_run(&k), Some(entry));
        let fk = Cache::fig_key(&k, "id = \"a\"");
        let table = TextTable { columns: vec!["a".into()], rows: vec![vec!["1".into()]] };
        let t = FigureOut { rendered: Rendered::Table(table), csv: Some("x\n1\n".into()), notes: vec!["n".into()] };
        cache.put_fig(&fk, &t);
        assert_eq!(cache.get_fig(&fk), Some(t));
    }

    #[test]
    fn a_disabled_cache_stores_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path(), "s", false);
        let k = cache.run_key("a", &[]);
        cache.put_fig(&k, &FigureOut { rendered: Rendered::Svg("<svg/>".into()), csv: None, notes: vec![] });
        assert!(cache.get_fig(&k).is_none());
        assert!(!dir.path().join(".cache").exists());
    }
}
