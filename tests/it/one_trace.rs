//! The one-trace path, run as a newcomer would: one synthetic Helios
//! download, ingested, then the verbs pointed at the folder they were given
//! (not at its `.tracelab` store), without `--trace`.

use std::path::Path;

use crate::common::{read_parquet, s, sample_store, strs, tracelab, tracelab_ok};

/// `synth helios --out DIR`, then `ingest DIR` (the store is DIR/.tracelab).
fn one_helios_download(dir: &Path) -> std::path::PathBuf {
    let helios = dir.join("helios");
    tracelab_ok(&["synth", "helios", "--scale", "0.001", "--out", s(&helios), "--quiet"]);
    tracelab_ok(&["ingest", s(&helios)]);
    assert!(helios.join(".tracelab").is_dir());
    helios
}

/// `--store` takes the folder `ingest` was given: the same answers as the
/// store itself, for `tables` and `analyze`.
#[test]
fn store_accepts_the_folder_ingest_was_given() {
    let tmp = tempfile::tempdir().unwrap();
    let helios = one_helios_download(tmp.path());
    let inner = helios.join(".tracelab");
    for args in [vec!["tables", "--format", "csv"], vec!["analyze", "helios.final-status", "--format", "csv"]] {
        let by_folder = tracelab_ok(&[args.as_slice(), &["--store", s(&helios)]].concat());
        let by_store = tracelab_ok(&[args.as_slice(), &["--store", s(&inner)]].concat());
        assert_eq!(by_folder, by_store, "{args:?}");
        assert!(!by_folder.is_empty());
    }
}

/// Without `--trace`, `export` takes the store's only trace: the same bytes
/// as `--trace helios`; on a store of several traces it lists them.
#[test]
fn a_verb_without_trace_uses_the_only_trace_or_lists_them() {
    let tmp = tempfile::tempdir().unwrap();
    let helios = one_helios_download(tmp.path());
    let (implicit, explicit) = (tmp.path().join("a.swf"), tmp.path().join("b.swf"));
    tracelab_ok(&["export", "--store", s(&helios), "--to", "swf", "-o", s(&implicit)]);
    tracelab_ok(&["export", "--store", s(&helios), "--trace", "helios", "--to", "swf", "-o", s(&explicit)]);
    assert_eq!(std::fs::read(&implicit).unwrap(), std::fs::read(&explicit).unwrap());
    // The bundled samples hold every trace.
    let (code, _, err) =
        tracelab(&["export", "--store", s(sample_store()), "--to", "swf", "-o", s(&tmp.path().join("c.swf"))]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("traces (pai, philly, helios") && err.contains("choose one with --trace"), "{err}");
}

/// `synth --format parquet -o FILE` writes the list of files there (it was
/// refused both ways); the list names the files the folder holds, with
/// their sizes as the file system reports them.
#[test]
fn synth_writes_its_listing_to_o() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, listing) = (tmp.path().join("h"), tmp.path().join("files.parquet"));
    tracelab_ok(&["synth", "helios", "--scale", "0.001", "--out", s(&out), "--format", "parquet", "-o", s(&listing)]);
    let df = read_parquet(&listing);
    let files = strs(&df, "file");
    assert!(!files.is_empty());
    let bytes = crate::common::i64s(&df, "bytes");
    for (f, b) in files.iter().zip(bytes) {
        let f = f.as_deref().unwrap();
        let on_disk = std::fs::metadata(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e}")).len();
        assert_eq!(b, Some(on_disk as i64), "{f}");
    }
}
