//! `tracelab ingest` of AcmeTrace: the owners' README rows (real, CC BY
//! 4.0) and hand-written files whose rows are worked out by hand (both
//! clusters' UTC offsets and others, every state and workload type, a
//! header in another order, gzip and `.tar.gz`), the unified rows, rejects
//! with file, line and column, and a Git LFS pointer named as such.

use std::io::Write;
use std::path::Path;

use chrono::{FixedOffset, NaiveDate, TimeZone};
use polars::prelude::*;

use crate::common::*;

/// Microseconds since the epoch of a wall-clock time at `offset_h` hours
/// east of UTC.
fn at(offset_h: i32, y: i32, mo: u32, d: u32, h: u32, mi: u32, se: u32) -> i64 {
    let tz = FixedOffset::east_opt(offset_h * 3600).unwrap();
    let naive = NaiveDate::from_ymd_opt(y, mo, d).unwrap().and_hms_opt(h, mi, se).unwrap();
    tz.from_local_datetime(&naive).unwrap().timestamp_micros()
}

fn readme_rows(name: &str) -> String {
    std::fs::read_to_string(root().join("tests/fixtures/real-traces/acme/readme-example-rows").join(name)).unwrap()
}

/// Seren in the README's column order: the two README rows, then one job
/// per remaining state and type. 6000002 writes its stamps with `Z`,
/// 6000003 was cancelled before it started (no start, end, duration,
/// queue or GPU time), 6000004 has a fractional second and the README's
/// word `Evaluation`.
fn seren() -> String {
    readme_rows("trace_seren.csv")
        + "\
6000001,u1,4,32,512,Pretrain,TIMEOUT,2023-03-02 08:00:00+08:00,2023-03-02 09:00:00+08:00,2023-03-02 10:00:00+08:00,3600,3600,115200.0
6000002,u2,1,1,16,SFT,NODE_FAIL,2023-03-03T00:00:00Z,2023-03-03T00:00:05Z,2023-03-03T00:01:05Z,60,5,60.0
6000003,u3,0,0,4,Eval,CANCELLED,2023-03-04 12:00:00+08:00,,,,,
6000004,u3,1,2,32,Evaluation,COMPLETED,2023-03-04 12:00:00.5+08:00,2023-03-04 12:00:10.5+08:00,2023-03-04 12:10:10.5+08:00,600,10,1200.0
6000005,u4,2,16,256,MLLM,COMPLETED,2023-03-05 00:00:00+08:00,2023-03-05 00:00:00+08:00,2023-03-05 02:00:00+08:00,7200,0,115200.0
6000006,u4,1,8,64,Debug,CANCELLED,2023-03-05 01:00:00+08:00,2023-03-05 01:00:30+08:00,2023-03-05 01:01:00+08:00,30,30,240.0
"
}

/// Kalos with its columns in another order than the README (`state` and
/// `type` swapped, the times last): the README rows plus a job stamped at
/// -07:00 and one at +0530 without the colon.
fn kalos() -> String {
    let order = [
        "job_id",
        "user",
        "node_num",
        "gpu_num",
        "cpu_num",
        "mem_per_pod_GB",
        "shared_mem_per_pod",
        "state",
        "type",
        "duration",
        "queue",
        "gpu_time",
        "submit_time",
        "start_time",
        "end_time",
        "fail_time",
        "stop_time",
    ];
    let readme = readme_rows("trace_kalos.csv");
    let mut lines = readme.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let reorder = |line: &str| -> String {
        let fields: Vec<&str> = line.split(',').collect();
        order.iter().map(|c| fields[header.iter().position(|h| h == c).unwrap()]).collect::<Vec<_>>().join(",")
    };
    let mut out = order.join(",") + "\n";
    for l in lines {
        out += &reorder(l);
        out.push('\n');
    }
    out += "\
kalos0001,uab12,2,16,240,500,50.5,COMPLETED,Pretrain,3700,100,59200.0,2023-06-01 00:00:00-07:00,2023-06-01 00:01:40-07:00,2023-06-01 01:01:40-07:00,,
kalos0002,uab12,1,8,120,,,COMPLETED,SFT,70,10,560.0,2023-06-01 12:30:00+0530,2023-06-01 12:30:10+0530,2023-06-01 12:31:10+0530,,
";
    out
}

fn gzip(text: &str) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    gz.finish().unwrap()
}

fn acme_rows(store: &Path) -> DataFrame {
    let df = read_parquet(&store.join("acme/jobs.parquet"));
    df.lazy().sort(["cluster", "job_id"], SortMultipleOptions::default()).collect().unwrap()
}

fn unified(store: &Path) -> DataFrame {
    let df = read_parquet(&store.join("jobs.parquet"));
    df.lazy()
        .filter(col("trace").eq(lit("acme")))
        .sort(["cluster", "job_id"], SortMultipleOptions::default())
        .collect()
        .unwrap()
}

#[test]
fn hand_written_files_give_the_rows_worked_out_by_hand() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = (tmp.path().join("raw"), tmp.path().join("store"));
    std::fs::create_dir_all(raw.join("data/job_trace")).unwrap();
    // Seren with CRLF line ends and a byte-order mark; Kalos gzipped.
    std::fs::write(raw.join("data/job_trace/trace_seren.csv"), format!("\u{feff}{}", seren().replace('\n', "\r\n")))
        .unwrap();
    std::fs::write(raw.join("data/job_trace/trace_kalos.csv.gz"), gzip(&kalos())).unwrap();
    tracelab_ok(&["ingest", s(&raw), "--out", s(&store), "--strict"]);

    let df = acme_rows(&store);
    // Sorted by cluster (Kalos < Seren), then job_id as text.
    let ids = ["dlc1t2ypl09b8qtp", "dlctk696s0jbvitv", "kalos0001", "kalos0002"];
    let seren_ids = ["5778432", "5778469", "6000001", "6000002", "6000003", "6000004", "6000005", "6000006"];
    assert_eq!(strs(&df, "job_id"), text(&[&ids[..], &seren_ids[..]].concat()));
    assert_eq!(strs(&df, "cluster"), text(&[["Kalos"; 4].as_slice(), ["Seren"; 8].as_slice()].concat()));
    assert_eq!(
        strs(&df, "job_type"),
        text(&[
            "Other",
            "Other",
            "Pretrain",
            "SFT",
            "Other",
            "Other",
            "Pretrain",
            "SFT",
            "Eval",
            "Evaluation",
            "MLLM",
            "Debug"
        ])
    );
    assert_eq!(
        strs(&df, "state"),
        text(&[
            "CANCELLED",
            "FAILED",
            "COMPLETED",
            "COMPLETED",
            "FAILED",
            "COMPLETED",
            "TIMEOUT",
            "NODE_FAIL",
            "CANCELLED",
            "COMPLETED",
            "COMPLETED",
            "CANCELLED"
        ])
    );
    assert_eq!(i64s(&df, "nodes"), [8, 8, 2, 1, 1, 1, 4, 1, 0, 1, 2, 1].map(Some).to_vec());
    assert_eq!(i64s(&df, "gpus"), [64, 64, 16, 8, 8, 8, 32, 1, 0, 2, 16, 8].map(Some).to_vec());
    assert_eq!(i64s(&df, "cpus"), [960, 960, 240, 120, 128, 128, 512, 16, 4, 32, 256, 64].map(Some).to_vec());
    // Pod memory is Kalos' alone; kalos0002 left it empty.
    let kalos_mem = [Some(1000.0), Some(1000.0), Some(500.0), None];
    assert_eq!(f64s(&df, "mem_per_pod_gb"), [&kalos_mem[..], &[None; 8][..]].concat());
    let kalos_shm = [Some(100.0), Some(100.0), Some(50.5), None];
    assert_eq!(f64s(&df, "shared_mem_per_pod"), [&kalos_shm[..], &[None; 8][..]].concat());

    // Each stamp's own offset: README Kalos rows at +00:00, kalos0001 at
    // -07:00 (07:00 UTC), kalos0002 at +05:30 (07:00 UTC); Seren at +08:00,
    // 6000002 at Z, 6000004 half a second past the minute.
    let submit = i64s(&df, "submit_time");
    assert_eq!(submit[0], Some(at(0, 2023, 5, 17, 11, 28, 42)));
    assert_eq!(submit[1], Some(at(0, 2023, 5, 17, 11, 0, 58)));
    assert_eq!(submit[2], Some(at(0, 2023, 6, 1, 7, 0, 0)));
    assert_eq!(submit[3], Some(at(0, 2023, 6, 1, 7, 0, 0)));
    assert_eq!(submit[4], Some(at(0, 2023, 2, 28, 16, 18, 22)), "README 2023-03-01 00:18:22+08:00");
    assert_eq!(submit[7], Some(at(0, 2023, 3, 3, 0, 0, 0)));
    assert_eq!(submit[9], Some(at(8, 2023, 3, 4, 12, 0, 0) + 500_000));
    // Kalos' failure and stop times (README): the failed job's fail_time is
    // its end, the cancelled one's stop_time is its end; Seren has neither.
    let (fail, stop, end) = (i64s(&df, "fail_time"), i64s(&df, "stop_time"), i64s(&df, "end_time"));
    assert_eq!(fail[..4], [None, end[1], None, None]);
    assert_eq!(stop[..4], [end[0], None, None, None]);
    assert_eq!(fail[4..], [None; 8]);
    assert_eq!(stop[4..], [None; 8]);
    // The cancelled-before-start Seren job: nothing but its submission.
    assert_eq!(
        (i64s(&df, "start_time")[8], end[8], f64s(&df, "run_s")[8], f64s(&df, "queue_s")[8]),
        (None, None, None, None)
    );
    assert_eq!(f64s(&df, "gpu_time_s")[8], None);
    // Raw duration, queue and GPU time as published (Kalos' duration is
    // end - submit: 18 s for 10 s queued and 8 s run).
    assert_eq!(
        f64s(&df, "run_s"),
        [82.0, 18.0, 3700.0, 70.0, 117.0, 2693.0, 3600.0, 60.0]
            .map(Some)
            .into_iter()
            .chain([None])
            .chain([600.0, 7200.0, 30.0].map(Some))
            .collect::<Vec<_>>()
    );
    assert_eq!(f64s(&df, "queue_s")[..6], [12.0, 10.0, 100.0, 10.0, 32.0, 13.0].map(Some));
    assert_eq!(f64s(&df, "gpu_time_s")[..2], [Some(5248.0), Some(1152.0)]);

    // Unified rows: queue and run from the stamps (the Kalos README job
    // queued 10 s and ran 8 s, not 18), Slurm states as Helios, no group.
    let u = unified(&store);
    assert_eq!(u.height(), 12);
    assert_eq!(
        f64s(&u, "run_s"),
        [70.0, 8.0, 3600.0, 60.0, 117.0, 2693.0, 3600.0, 60.0]
            .map(Some)
            .into_iter()
            .chain([None])
            .chain([600.0, 7200.0, 30.0].map(Some))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        f64s(&u, "queue_s"),
        [12.0, 10.0, 100.0, 10.0, 32.0, 13.0, 3600.0, 5.0]
            .map(Some)
            .into_iter()
            .chain([None])
            .chain([10.0, 0.0, 30.0].map(Some))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        strs(&u, "status"),
        text(&[
            "killed",
            "failed",
            "completed",
            "completed",
            "failed",
            "completed",
            "failed",
            "failed",
            "killed",
            "completed",
            "completed",
            "killed"
        ])
    );
    assert_eq!(strs(&u, "status_raw"), strs(&df, "state"));
    assert_eq!(strs(&u, "user"), strs(&df, "user"));
    assert_eq!(strs(&u, "group"), vec![None; 12]);
    assert_eq!(
        f64s(&u, "gpus_requested"),
        i64s(&df, "gpus").into_iter().map(|g| g.map(|g| g as f64)).collect::<Vec<_>>()
    );
    assert_eq!(
        f64s(&u, "cpus_requested"),
        i64s(&df, "cpus").into_iter().map(|g| g.map(|g| g as f64)).collect::<Vec<_>>()
    );
    assert_eq!(i64s(&u, "instances"), i64s(&df, "nodes"));
    assert_eq!(i64s(&u, "submit_time"), i64s(&df, "submit_time"));

    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(store.join("acme/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["rejects"], 0);
}

#[test]
fn archives_give_the_same_table_and_a_plain_file_wins_over_its_archive() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::write(plain.join("trace_seren.csv"), seren()).unwrap();
    std::fs::write(plain.join("trace_kalos.csv"), kalos()).unwrap();
    let packed = tmp.path().join("packed");
    std::fs::create_dir_all(&packed).unwrap();
    for stem in ["trace_seren", "trace_kalos"] {
        let member = format!("{stem}.csv");
        tracelab_synth::archive::tar_gz(&packed.join(format!("{stem}.tar.gz")), &[(&plain.join(&member), &member)])
            .unwrap();
    }
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    tracelab_ok(&["ingest", s(&plain), "--out", s(&a), "--strict"]);
    tracelab_ok(&["ingest", s(&packed), "--out", s(&b), "--strict"]);
    for table in ["acme/jobs.parquet", "jobs.parquet"] {
        assert!(read_parquet(&a.join(table)).equals_missing(&read_parquet(&b.join(table))), "{table}");
    }
    // Both a plain file and its archive: the plain one is read, the
    // archive skipped with a note (not read twice).
    copy(&packed.join("trace_seren.tar.gz"), &plain.join("trace_seren.tar.gz"));
    let c = tmp.path().join("c");
    tracelab_ok(&["ingest", s(&plain), "--out", s(&c), "--strict"]);
    assert_eq!(read_parquet(&c.join("acme/jobs.parquet")).height(), 12);
    let manifest = std::fs::read_to_string(c.join("acme/manifest.json")).unwrap();
    assert!(manifest.contains("trace_seren.tar.gz skipped"), "{manifest}");
    // Two plain copies of one cluster in different folders: refused.
    copy(&plain.join("trace_seren.csv"), &plain.join("again/trace_seren.csv"));
    let (code, _, stderr) = tracelab(&["ingest", s(&plain), "--out", s(&c)]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("second copy of trace_seren.csv"), "{stderr}");
}

#[test]
fn bad_records_are_rejected_with_file_line_and_column_and_the_rest_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = (tmp.path().join("raw"), tmp.path().join("store"));
    std::fs::create_dir_all(&raw).unwrap();
    let bad = readme_rows("trace_seren.csv")
        + "\
7000001,u1,1,8,64,Other,COMPLETED,2023-03-02 08:00:00,2023-03-02 08:00:01+08:00,2023-03-02 08:00:02+08:00,1,1,8.0
7000002,u1,1,8,64,Finetune,COMPLETED,2023-03-02 08:00:00+08:00,2023-03-02 08:00:01+08:00,2023-03-02 08:00:02+08:00,1,1,8.0
7000003,u1,1,8,64,Other,PREEMPTED,2023-03-02 08:00:00+08:00,2023-03-02 08:00:01+08:00,2023-03-02 08:00:02+08:00,1,1,8.0
7000004,u1,1,-8,64,Other,COMPLETED,2023-03-02 08:00:00+08:00,2023-03-02 08:00:01+08:00,2023-03-02 08:00:02+08:00,1,1,8.0
7000005,u1,1,8,64,Other,COMPLETED,2023-03-02 08:00:00+08:00,2023-03-02 08:00:09+08:00,2023-03-02 08:00:02+08:00,1,1,8.0
7000006,u1,1,8,64,Other,COMPLETED,2023-03-02 08:00:00+08:00,2023-03-02 08:00:01+08:00,2023-03-02 08:00:02+08:00,-1,1,8.0
7000007,u1,1,8,64,Other,COMPLETED,2023-03-02 08:00:00+08:00
7000008,u1,1,8,64,Other,COMPLETED,,2023-03-02 08:00:01+08:00,2023-03-02 08:00:02+08:00,1,1,8.0
";
    std::fs::write(raw.join("trace_seren.csv"), bad).unwrap();
    tracelab_ok(&["ingest", s(&raw), "--out", s(&store)]);
    assert_eq!(read_parquet(&store.join("acme/jobs.parquet")).height(), 2, "the README rows are kept");
    let r = read_parquet(&store.join("acme/rejects.parquet"));
    assert_eq!(strs(&r, "file"), text(&["trace_seren.csv"; 8]));
    assert_eq!(i64s(&r, "line"), (4..=11).map(Some).collect::<Vec<_>>());
    assert_eq!(
        strs(&r, "column"),
        text(&["submit_time", "type", "state", "gpu_num", "end_time", "duration", "*", "submit_time"])
    );
    let reasons = strs(&r, "reason").into_iter().map(Option::unwrap).collect::<Vec<_>>();
    assert!(reasons[0].contains("UTC offset"), "{reasons:?}");
    assert!(reasons[1].contains("Pretrain") && reasons[2].contains("NODE_FAIL"), "{reasons:?}");
    assert!(reasons[3].contains("non-negative") && reasons[4].contains("end before start"), "{reasons:?}");
    assert!(reasons[5].contains("non-negative") && reasons[7].contains("submission"), "{reasons:?}");
    assert_eq!(strs(&r, "raw_value")[0].as_deref(), Some("2023-03-02 08:00:00"));
    // --strict: the same rejects listed (file:line: column), exit 1.
    let (code, stdout, stderr) = tracelab(&["ingest", s(&raw), "--out", s(&tmp.path().join("strict")), "--strict"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("--strict: 8 record(s) rejected"), "{stderr}");
    assert!(stdout.contains("trace_seren.csv:4: column submit_time"), "{stdout}");
}

#[test]
fn a_git_lfs_pointer_and_a_missing_column_are_named_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = (tmp.path().join("raw"), tmp.path().join("store"));
    std::fs::create_dir_all(&raw).unwrap();
    // What a clone without Git LFS leaves in data/job_trace/.
    let pointer = "version https://git-lfs.github.com/spec/v1\n\
                   oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 28901349\n";
    std::fs::write(raw.join("trace_seren.csv"), pointer).unwrap();
    let (code, _, stderr) = tracelab(&["ingest", s(&raw), "--out", s(&store)]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("trace_seren.csv") && stderr.contains("Git LFS pointer"), "{stderr}");
    // A header without `queue`.
    let text = readme_rows("trace_seren.csv").replace(",queue,", ",wait,");
    std::fs::write(raw.join("trace_seren.csv"), text).unwrap();
    let (code, _, stderr) = tracelab(&["ingest", s(&raw), "--out", s(&store)]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("trace_seren.csv") && stderr.contains("`queue`"), "{stderr}");
    assert!(!store.join("acme/jobs.parquet").exists(), "nothing written for a refused trace");
}

/// The bundled sample (`synth acme`) read back by DuckDB from the raw
/// files: every column of every row of `acme/jobs` and of its unified rows.
#[test]
fn the_acme_and_spot_samples_agree_with_duckdb_reading_the_raw_files() {
    let out = python(
        "tests/crosscheck/check_llm.py",
        &[s(&root().join("data-samples/acme")), s(&root().join("data-samples/spot")), s(sample_store())],
    );
    assert!(out.contains("checks passed"), "{out}");
}
