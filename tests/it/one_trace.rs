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

/// Two downloads in one folder (Helios and Philly, no PAI), ingested
/// together: a store of several traces without PAI.
fn helios_and_philly(dir: &Path) -> std::path::PathBuf {
    let both = dir.join("both");
    for trace in ["helios", "philly"] {
        tracelab_ok(&["synth", trace, "--scale", "0.001", "--out", s(&both.join(trace)), "--quiet"]);
    }
    tracelab_ok(&["ingest", s(&both)]);
    both
}

/// `report --store FOLDER` reads FOLDER/.tracelab (and `report DIR --store
/// DIR` ingests into it, not into DIR itself): the same report, file for
/// file and byte for byte, as `--store FOLDER/.tracelab`.
#[test]
fn report_store_accepts_the_folder_ingest_was_given() {
    let tmp = tempfile::tempdir().unwrap();
    let helios = one_helios_download(tmp.path());
    let inner = helios.join(".tracelab");
    let report = |store: &Path, dir: Option<&Path>, out: &str| {
        let out = tmp.path().join(out);
        let mut args = vec!["report", "--quiet", "--store", s(store), "--out", s(&out)];
        args.extend(dir.map(s));
        tracelab_ok(&args);
        crate::common::snapshot_tree(&out)
    };
    let by_store = report(&inner, None, "by-store");
    assert!(by_store.iter().any(|(name, _)| name == "index.html"));
    assert_eq!(report(&helios, None, "by-folder"), by_store);
    assert_eq!(report(&helios, Some(&helios), "by-dir"), by_store);
    // No second store was made in the folder of downloads.
    assert!(!helios.join("manifest.json").exists() && !helios.join("helios").exists());
}

/// Without `--trace`, `simulate`, `analyze sim.*` and a named query whose
/// default trace the store lacks answer for the store's only trace: the
/// same bytes as naming it, with `--store` the folder or the store itself.
#[test]
fn simulate_analyze_and_query_use_the_only_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let helios = one_helios_download(tmp.path());
    let inner = helios.join(".tracelab");
    let pairs: [(Vec<&str>, Vec<&str>); 3] = [
        (vec!["simulate", "--policy", "fifo,sjf"], vec!["--trace", "helios"]),
        (vec!["analyze", "sim.summary"], vec!["--param", "trace=helios"]),
        // busiest-windows defaults to philly, which this store lacks.
        (vec!["query", "busiest-windows"], vec!["--param", "trace=helios"]),
    ];
    for (verb, naming) in pairs {
        let implicit = tracelab_ok(&[verb.as_slice(), &["--store", s(&helios), "--format", "csv"]].concat());
        let explicit = tracelab_ok(&[verb.as_slice(), &naming, &["--store", s(&inner), "--format", "csv"]].concat());
        assert_eq!(implicit, explicit, "{verb:?}");
        assert!(implicit.lines().count() > 1, "{verb:?}: no rows:\n{implicit}");
    }
}

/// Of several traces without PAI, `simulate` and `analyze sim.*` list them
/// (exit 2); a store holding PAI replays PAI, as before.
#[test]
fn several_traces_are_listed_unless_pai_is_among_them() {
    let tmp = tempfile::tempdir().unwrap();
    let both = helios_and_philly(tmp.path());
    for verb in [vec!["simulate"], vec!["analyze", "sim.summary"]] {
        let (code, _, err) = tracelab(&[verb.as_slice(), &["--store", s(&both)]].concat());
        assert_eq!(code, 2, "{verb:?}: {err}");
        assert!(err.contains("holds 2 traces (philly, helios); choose one with"), "{verb:?}: {err}");
    }
    let store = s(sample_store());
    let args = ["simulate", "--store", store, "--sample", "30", "--format", "csv"];
    assert_eq!(tracelab_ok(&args), tracelab_ok(&[args.as_slice(), &["--trace", "pai"]].concat()));
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
