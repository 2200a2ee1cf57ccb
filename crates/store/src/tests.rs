//! The store's open-time checks and the publication protocol, on tiny
//! stores written through [`crate::publish`].

use super::*;
use crate::manifest::{Counts, TableReport};
use crate::parquet::{polars_schema, ParquetFile};
use crate::publish::StoreWriter;
use tracelab_schema::{helios, pai, unified};

/// A frame of `table`'s schema with `rows` null rows.
fn nulls(table: &Table, rows: usize) -> DataFrame {
    let cols: Vec<Column> =
        polars_schema(table).iter().map(|(name, dtype)| Column::full_null(name.clone(), rows, dtype)).collect();
    DataFrame::new(rows, cols).unwrap()
}

/// Publishes every table of `trace` with one null row each, noting `note`.
fn publish(root: &Path, trace: Trace, note: &str) {
    let mut w = StoreWriter::open(root, &|_| {}).unwrap();
    w.exclusive(&|_| {}).unwrap();
    let p = w.begin(trace).unwrap();
    let mut files = Vec::new();
    for table in trace.tables() {
        let staged = p.stage(table);
        let mut f = ParquetFile::create(&staged.path, &polars_schema(table)).unwrap();
        f.write(&nulls(table, 1)).unwrap();
        files.push((staged, f.finish().unwrap()));
    }
    let m = Manifest::new(trace, vec![], vec![], 0, vec![note.to_string()]);
    p.commit_trace(m, files).unwrap();
}

fn publish_unified(root: &Path) {
    let mut w = StoreWriter::open(root, &|_| {}).unwrap();
    w.exclusive(&|_| {}).unwrap();
    let p = w.begin_unified().unwrap();
    let staged = p.stage(&unified::JOBS);
    let mut f = ParquetFile::create(&staged.path, &polars_schema(&unified::JOBS)).unwrap();
    f.write(&nulls(&unified::JOBS, 2)).unwrap();
    let written = f.finish().unwrap();
    p.commit_unified(vec![("helios".into(), 2)], (staged, written)).unwrap();
}

fn open_err(root: &Path) -> String {
    Store::open(root).unwrap_err().to_string()
}

#[test]
fn a_missing_store_is_a_usage_error_that_says_how_to_make_one() {
    let err = Store::open("/nonexistent/tl-store").unwrap_err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("tracelab ingest"), "{err}");
}

#[test]
fn a_published_store_opens_with_its_manifests_and_a_stable_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    publish(dir.path(), Trace::Helios, "a");
    publish_unified(dir.path());
    let store = Store::open(dir.path()).unwrap();
    assert!(store.has_trace(Trace::Helios) && !store.has_trace(Trace::Pai));
    assert_eq!(store.manifests().len(), 1);
    let m = store.manifest(Trace::Helios).unwrap();
    let names: Vec<&str> = m.files.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(names, vec!["jobs.parquet", "rejects.parquet", "vc_gpus.parquet"]);
    for f in &m.files {
        let bytes = std::fs::read(dir.path().join("helios").join(&f.file)).unwrap();
        assert_eq!(f.bytes, bytes.len() as u64);
        assert_eq!(f.sha256, manifest::sha256_hex(&bytes));
        assert_eq!(f.tail_sha256, manifest::sha256_hex(&bytes[bytes.len().saturating_sub(64 << 10)..]));
    }
    assert_eq!(store.scan(&helios::JOBS).unwrap().collect().unwrap().height(), 1);
    assert!(store.scan(&pai::JOB).is_err());
    let fp = store.fingerprint().to_string();
    drop(store);
    assert_eq!(Store::open(dir.path()).unwrap().fingerprint(), fp);
    publish(dir.path(), Trace::Helios, "b");
    publish_unified(dir.path());
    assert_ne!(Store::open(dir.path()).unwrap().fingerprint(), fp, "a new manifest, a new fingerprint");
}

#[test]
fn tables_without_a_valid_manifest_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    publish(root, Trace::Helios, "a");
    std::fs::remove_file(root.join("helios/manifest.json")).unwrap();
    let err = open_err(root);
    assert!(err.contains("helios: tables without a manifest: the last ingest did not finish"), "{err}");
    assert!(err.contains("re-ingest with `tracelab ingest"), "{err}");

    publish(root, Trace::Helios, "a");
    std::fs::write(root.join("helios/vc_gpus.parquet"), b"other bytes").unwrap();
    let err = open_err(root);
    assert!(err.contains("vc_gpus.parquet has 11 bytes where its manifest says"), "{err}");

    // Same size, other bytes (an older tracelab rewrote the file).
    publish(root, Trace::Helios, "a");
    let path = root.join("helios/vc_gpus.parquet");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 10;
    bytes[last] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    assert!(open_err(root).contains("vc_gpus.parquet differs from the file its manifest lists"));

    publish(root, Trace::Helios, "a");
    let path = root.join("helios/manifest.json");
    let old = std::fs::read_to_string(&path).unwrap().replace("\"format_version\": 2", "\"format_version\": 1");
    std::fs::write(&path, old).unwrap();
    assert!(open_err(root).contains("written by an older tracelab (store format 1"));
}

/// With `Tails::OnUse` a file whose tail changed (same size) does not stop
/// the open; using that table does, with the open's message, and the
/// trace's other tables and the unified table stay usable. A file of another
/// size is still refused at the open.
#[test]
fn tails_checked_on_use_refuse_only_the_changed_table() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    publish(root, Trace::Helios, "a");
    publish_unified(root);
    let path = root.join("helios/vc_gpus.parquet");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 10;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    assert!(open_err(root).contains("vc_gpus.parquet differs from the file its manifest lists"));

    let store = Store::open_checking(root, &|_| {}, Tails::OnUse).unwrap();
    let tables = store.tables();
    let table = |name: &str| tables.iter().find(|t| t.table.sql_name() == name).unwrap();
    let err = table("helios_vc_gpus").check().unwrap_err().to_string();
    assert!(err.contains("helios: "), "{err}");
    assert!(err.contains("vc_gpus.parquet differs from the file its manifest lists: changed after ingest"), "{err}");
    assert!(err.contains("re-ingest with `tracelab ingest"), "{err}");
    table("helios_jobs").check().unwrap();
    table("jobs").check().unwrap();
    // Opened the usual way, every table was compared at the open.
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    assert!(Store::open(root).unwrap().tables().iter().all(|t| t.tail_check.is_none()));

    std::fs::write(&path, b"other bytes").unwrap();
    let err = Store::open_checking(root, &|_| {}, Tails::OnUse).unwrap_err().to_string();
    assert!(err.contains("vc_gpus.parquet has 11 bytes where its manifest says"), "{err}");
}

#[test]
fn a_unified_table_older_than_a_trace_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    publish(root, Trace::Helios, "a");
    publish_unified(root);
    Store::open(root).unwrap();
    publish(root, Trace::Helios, "b");
    let err = open_err(root);
    assert!(err.contains("jobs: jobs.parquet was built from other trace manifests"), "{err}");
    std::fs::remove_file(root.join("manifest.json")).unwrap();
    assert!(open_err(root).contains("jobs.parquet has no manifest"));
    publish_unified(root);
    Store::open(root).unwrap();
}

#[test]
fn an_abandoned_publication_leaves_no_file_and_leftovers_of_a_crash_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut w = StoreWriter::open(root, &|_| {}).unwrap();
    w.exclusive(&|_| {}).unwrap();
    {
        let p = w.begin(Trace::Helios).unwrap();
        let staged = p.stage(&helios::JOBS);
        std::fs::write(&staged.path, b"half").unwrap();
        std::fs::write(p.scratch("rejects-jobs"), b"part").unwrap();
    }
    let left: Vec<_> = std::fs::read_dir(root.join("helios")).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    // A killed run's partial file (another run id) goes when the next starts.
    std::fs::write(root.join("helios/.jobs.parquet.999-0.partial"), b"old").unwrap();
    drop(w.begin(Trace::Helios).unwrap());
    assert!(!root.join("helios/.jobs.parquet.999-0.partial").exists());
}

#[test]
fn caches_are_keyed_by_content_and_cleared_by_a_publication() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    publish(root, Trace::Helios, "a");
    let store = Store::open(root).unwrap();
    let entry = store.cache(CacheKind::Report, &["x"]);
    entry.write("run.json", b"1").unwrap();
    assert_eq!(store.cache(CacheKind::Report, &["x"]).read("run.json").unwrap(), b"1");
    assert_ne!(store.cache(CacheKind::Report, &["y"]).key(), entry.key());
    drop(store);
    publish(root, Trace::Helios, "b");
    assert!(!root.join(".cache").exists(), "a publication removes the caches");
}

/// `Store::only` (report --only): the other traces' tables, manifests and
/// unified rows are hidden, and the view has its own fingerprint.
#[test]
fn a_view_on_some_traces_hides_the_others() {
    let dir = tempfile::tempdir().unwrap();
    publish(dir.path(), Trace::Helios, "a");
    publish(dir.path(), Trace::Pai, "a");
    publish_unified(dir.path());
    let all = Store::open(dir.path()).unwrap();
    let helios = all.only(&[Trace::Helios]);
    let names = |s: &Store| s.tables().iter().map(|t| t.table.qualified_name()).collect::<Vec<_>>();
    assert!(names(&all).iter().any(|n| n.starts_with("pai/")));
    assert!(names(&helios).iter().all(|n| !n.starts_with("pai/")), "{:?}", names(&helios));
    assert!(names(&helios).iter().any(|n| n.starts_with("helios/")));
    assert!(helios.has_trace(Trace::Helios) && !helios.has_trace(Trace::Pai));
    assert_eq!((all.manifests().len(), helios.manifests().len()), (2, 1));
    assert_ne!(all.fingerprint(), helios.fingerprint());
    let err = helios.scan(&pai::JOB).err().expect("pai is hidden").to_string();
    assert!(err.contains("pai/job is outside this view of the store (only helios)"), "{err}");
}

/// Rows come from the manifests: a trace table's count as ingest recorded
/// it, the unified table's rows of the traces a view shows.
#[test]
fn rows_are_read_from_the_manifests() {
    let dir = tempfile::tempdir().unwrap();
    publish(dir.path(), Trace::Helios, "a");
    let mut w = StoreWriter::open(dir.path(), &|_| {}).unwrap();
    w.exclusive(&|_| {}).unwrap();
    let p = w.begin(Trace::Pai).unwrap();
    let mut files = Vec::new();
    for table in Trace::Pai.tables() {
        let staged = p.stage(table);
        let mut f = ParquetFile::create(&staged.path, &polars_schema(table)).unwrap();
        f.write(&nulls(table, 1)).unwrap();
        files.push((staged, f.finish().unwrap()));
    }
    let counts = Counts { records_in: 7, written: 7, rejected: 0, rows: 7 };
    let tables = vec![TableReport { table: "instance".into(), source: "x".into(), counts }];
    p.commit_trace(Manifest::new(Trace::Pai, vec![], tables, 0, vec![]), files).unwrap();
    drop(w);
    publish_unified(dir.path());
    let all = Store::open(dir.path()).unwrap();
    assert_eq!(all.rows(&pai::INSTANCE), Some(7));
    assert_eq!(all.rows(&pai::JOB), None, "no count recorded");
    // The unified table was built with 2 Helios rows.
    assert_eq!(all.rows(&unified::JOBS), Some(2));
    assert_eq!(all.only(&[Trace::Pai]).rows(&unified::JOBS), Some(0));
    assert_eq!(all.only(&[Trace::Helios]).rows(&pai::INSTANCE), None);
}
