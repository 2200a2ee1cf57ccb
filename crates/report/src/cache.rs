//! The report's result cache, so that a second `tracelab report` over an
//! unchanged store re-renders in seconds instead of re-running every
//! analysis. Entries live in the store's cache (kind `report`,
//! [`tracelab_store::cache`]), one per key:
//! - a run entry's `run.json`: an analysis run's title, definition,
//!   parameters and headline numbers;
//! - a figure entry's `fig.json`: one figure's rendered SVG or table, its
//!   CSV and its caption notes.
//!
//! The store makes every key from its content fingerprint (its manifests,
//! which list the inputs' and the tables' SHA-256) and the tracelab
//! version; a run key adds the tracelab binary's identity (its size and
//! mtime: any rebuild invalidates) and the analysis id and parameters; a
//! figure key adds the figure's spec text. The store writes entries
//! atomically, so concurrent runs are safe; a cache that cannot be written
//! is skipped, never an error.

use serde::{Deserialize, Serialize};
use tracelab_store::cache::CacheKind;
use tracelab_store::Store;

use super::figure::FigureOut;
use super::headline::HeadlineRow;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEntry {
    pub title: String,
    pub definition: String,
    pub params: Vec<(String, String)>,
    pub headlines: Vec<HeadlineRow>,
}

pub struct Cache {
    /// `None` when disabled.
    store: Option<Store>,
    binary: String,
    /// What else the cached results depend on (the report's notes about
    /// missing traces).
    identity: String,
}

const RUN: &str = "run.json";
const FIG: &str = "fig.json";

impl Cache {
    /// The cache of `store`, or a disabled one; `identity` is what else the
    /// cached results depend on.
    pub fn new(store: &Store, identity: &str, enabled: bool) -> Cache {
        Cache { store: enabled.then(|| store.clone()), binary: binary_identity(), identity: identity.to_string() }
    }

    /// A run's key; a disabled cache still gives keys (figure keys build on
    /// them), from an empty fingerprint.
    pub fn run_key(&self, analysis: &str, params: &[(String, String)]) -> String {
        let p: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        self.key(&["run", &self.binary, &self.identity, analysis, &p.join("\n")])
    }

    pub fn fig_key(&self, run_key: &str, figure_source: &str) -> String {
        self.key(&["fig", run_key, figure_source])
    }

    fn key(&self, parts: &[&str]) -> String {
        let fingerprint = self.store.as_ref().map_or("", Store::fingerprint);
        tracelab_store::cache::key(CacheKind::Report, fingerprint, parts)
    }

    pub fn get_run(&self, key: &str) -> Option<RunEntry> {
        self.read(key, RUN)
    }

    pub fn put_run(&self, key: &str, entry: &RunEntry) {
        self.write(key, RUN, entry);
    }

    pub fn get_fig(&self, key: &str) -> Option<FigureOut> {
        self.read(key, FIG)
    }

    pub fn put_fig(&self, key: &str, f: &FigureOut) {
        self.write(key, FIG, f);
    }

    fn read<T: for<'de> Deserialize<'de>>(&self, key: &str, name: &str) -> Option<T> {
        let bytes = self.store.as_ref()?.cache_entry(CacheKind::Report, key).read(name)?;
        serde_json::from_slice(&bytes).ok()
    }

    fn write<T: Serialize>(&self, key: &str, name: &str, value: &T) {
        let Some(store) = &self.store else { return };
        let Ok(bytes) = serde_json::to_vec(value) else { return };
        let _ = store.cache_entry(CacheKind::Report, key).write(name, &bytes);
    }
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
    use crate::tests::tiny_store;

    #[test]
    fn entries_round_trip_and_keys_separate_inputs() {
        let (_dir, store) = tiny_store("a");
        let cache = Cache::new(&store, "", true);
        let k = cache.run_key("pai.x", &[("bin".into(), "5m".into())]);
        assert_ne!(k, cache.run_key("pai.x", &[("bin".into(), "1h".into())]));
        let (_other_dir, other) = tiny_store("b");
        assert_ne!(k, Cache::new(&other, "", true).run_key("pai.x", &[("bin".into(), "5m".into())]));
        assert!(cache.get_run(&k).is_none());
        let entry = RunEntry { title: "t".into(), definition: "d".into(), params: vec![], headlines: vec![] };
        cache.put_run(&k, &entry);
        assert_eq!(cache.get_run(&k), Some(entry));
        let fk = cache.fig_key(&k, "id = \"a\"");
        let table = TextTable { columns: vec!["a".into()], rows: vec![vec!["1".into()]] };
        let t = FigureOut { rendered: Rendered::Table(table), csv: Some("x\n1\n".into()), notes: vec!["n".into()] };
        cache.put_fig(&fk, &t);
        assert_eq!(cache.get_fig(&fk), Some(t));
    }

    #[test]
    fn a_disabled_cache_stores_nothing() {
        let (dir, store) = tiny_store("s");
        let cache = Cache::new(&store, "", false);
        let k = cache.run_key("a", &[]);
        cache.put_fig(&k, &FigureOut { rendered: Rendered::Svg("<svg/>".into()), csv: None, notes: vec![] });
        assert!(cache.get_fig(&k).is_none());
        assert!(!dir.path().join(".cache").exists());
    }
}
