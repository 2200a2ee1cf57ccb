//! `tracelab ingest` of Alibaba's cluster-trace-v2026-spot-gpu on
//! hand-written files in its format (the trace itself carries no licence
//! and is never committed): rows worked out by hand (submission dated from
//! the owners' simulator's origin, 2024-03-01 00:00 Asia/Shanghai; GPUs =
//! workers x gpu_request), headers in another order, a `.tar.gz`, rejects
//! with file, line and column, and a missing job file.

use std::path::Path;

use polars::prelude::*;

use crate::common::*;

/// 2024-03-01 00:00 +08:00 = 2024-02-29 16:00 UTC, in microseconds.
const ORIGIN_US: i64 = 1_709_222_400_000_000;

/// The README's column order.
const JOBS: &str = "\
job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,submit_time,duration,job_type
job-a,org-1,A10,8,1,1,0,3600,HP
job-b,org-2,A100-SXM4-80GB,96,8,4,120,7200,Spot
job-c,org-1,H800,12,0.5,2,86400.5,60,Spot
job-d,org-3,GPU-series-1,16,1,1,30,1209600,HP
";

/// The file's order (gpu_model first, node_name last), not the README's.
const NODES: &str = "\
gpu_model,gpu_capacity_num,cpu_num,node_name
A10,1,126,node-0001
A100-SXM4-80GB,8,128,node-0002
H800,8,192,node-0003
";

fn ingest(raw: &Path, store: &Path, extra: &[&str]) -> String {
    let mut args = vec!["ingest", s(raw), "--out", s(store)];
    args.extend_from_slice(extra);
    tracelab_ok(&args)
}

fn sorted(df: DataFrame, by: &str) -> DataFrame {
    df.lazy().sort([by], SortMultipleOptions::default()).collect().unwrap()
}

#[test]
fn hand_written_files_give_the_rows_worked_out_by_hand() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = (tmp.path().join("raw"), tmp.path().join("store"));
    std::fs::create_dir_all(raw.join("cluster-trace-v2026-spot-gpu")).unwrap();
    std::fs::write(raw.join("cluster-trace-v2026-spot-gpu/job_info_df.csv"), JOBS.replace('\n', "\r\n")).unwrap();
    std::fs::write(raw.join("cluster-trace-v2026-spot-gpu/node_info_df.csv"), NODES).unwrap();
    ingest(&raw, &store, &["--strict"]);

    let j = sorted(read_parquet(&store.join("spot/jobs.parquet")), "job_name");
    assert_eq!(strs(&j, "job_name"), text(&["job-a", "job-b", "job-c", "job-d"]));
    assert_eq!(strs(&j, "organization"), text(&["org-1", "org-2", "org-1", "org-3"]));
    assert_eq!(strs(&j, "gpu_model"), text(&["A10", "A100-SXM4-80GB", "H800", "GPU-series-1"]));
    assert_eq!(f64s(&j, "cpu_request"), [8.0, 96.0, 12.0, 16.0].map(Some).to_vec());
    assert_eq!(f64s(&j, "gpu_request"), [1.0, 8.0, 0.5, 1.0].map(Some).to_vec());
    assert_eq!(i64s(&j, "workers"), [1, 4, 2, 1].map(Some).to_vec());
    assert_eq!(f64s(&j, "gpus"), [1.0, 32.0, 1.0, 1.0].map(Some).to_vec(), "workers x gpu_request");
    assert_eq!(f64s(&j, "submit_s"), [0.0, 120.0, 86400.5, 30.0].map(Some).to_vec());
    let submit: Vec<_> = [0, 120_000_000, 86_400_500_000, 30_000_000].map(|us| Some(ORIGIN_US + us)).to_vec();
    assert_eq!(i64s(&j, "submit_time"), submit);
    assert_eq!(f64s(&j, "duration_s"), [3600.0, 7200.0, 60.0, 1_209_600.0].map(Some).to_vec());
    assert_eq!(strs(&j, "job_type"), text(&["HP", "Spot", "Spot", "HP"]));

    let n = sorted(read_parquet(&store.join("spot/nodes.parquet")), "node_name");
    assert_eq!(strs(&n, "node_name"), text(&["node-0001", "node-0002", "node-0003"]));
    assert_eq!(strs(&n, "gpu_model"), text(&["A10", "A100-SXM4-80GB", "H800"]));
    assert_eq!(i64s(&n, "gpus"), [1, 8, 8].map(Some).to_vec());
    assert_eq!(i64s(&n, "cpus"), [126, 128, 192].map(Some).to_vec());

    // Unified rows: in the input file's order (derived batch by batch while
    // parsing); no start, end, queue or state. Checked in submission order.
    let u = read_parquet(&store.join("jobs.parquet"));
    let u = u.lazy().filter(col("trace").eq(lit("spot"))).collect().unwrap();
    assert_eq!(strs(&u, "job_id"), text(&["job-a", "job-b", "job-c", "job-d"]), "file order");
    let u = sorted(u, "submit_time");
    assert_eq!(strs(&u, "job_id"), text(&["job-a", "job-d", "job-b", "job-c"]));
    assert_eq!(strs(&u, "cluster"), text(&["spot"; 4]));
    assert_eq!(strs(&u, "user"), vec![None; 4]);
    assert_eq!(strs(&u, "group"), text(&["org-1", "org-3", "org-2", "org-1"]));
    let submit_sorted: Vec<_> = [0, 30_000_000, 120_000_000, 86_400_500_000].map(|us| Some(ORIGIN_US + us)).to_vec();
    assert_eq!(i64s(&u, "submit_time"), submit_sorted);
    for c in ["start_time", "end_time", "queue_s"] {
        assert_eq!(i64s(&u, c), vec![None; 4], "{c}");
    }
    assert_eq!(f64s(&u, "run_s"), [3600.0, 1_209_600.0, 7200.0, 60.0].map(Some).to_vec());
    assert_eq!(f64s(&u, "gpus_requested"), [1.0, 1.0, 32.0, 1.0].map(Some).to_vec());
    assert_eq!(f64s(&u, "cpus_requested"), [8.0, 16.0, 384.0, 24.0].map(Some).to_vec());
    assert_eq!(i64s(&u, "instances"), [1, 1, 4, 2].map(Some).to_vec());
    assert_eq!(strs(&u, "status"), text(&["unknown"; 4]));
    assert_eq!(strs(&u, "status_raw"), text(&["unrecorded"; 4]));
}

#[test]
fn archives_give_the_same_tables_and_the_node_file_is_optional() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::write(plain.join("job_info_df.csv"), JOBS).unwrap();
    std::fs::write(plain.join("node_info_df.csv"), NODES).unwrap();
    let packed = tmp.path().join("packed");
    std::fs::create_dir_all(&packed).unwrap();
    let member = plain.join("job_info_df.csv");
    tracelab_synth::archive::tar_gz(&packed.join("job_info_df.tar.gz"), &[(&member, "job_info_df.csv")]).unwrap();
    copy(&plain.join("node_info_df.csv"), &packed.join("node_info_df.csv"));
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    ingest(&plain, &a, &["--strict"]);
    ingest(&packed, &b, &["--strict"]);
    for table in ["spot/jobs.parquet", "spot/nodes.parquet", "jobs.parquet"] {
        assert!(read_parquet(&a.join(table)).equals_missing(&read_parquet(&b.join(table))), "{table}");
    }
    // Jobs alone: an empty node table, the jobs as before.
    std::fs::remove_file(plain.join("node_info_df.csv")).unwrap();
    let c = tmp.path().join("c");
    ingest(&plain, &c, &["--strict"]);
    assert_eq!(read_parquet(&c.join("spot/nodes.parquet")).height(), 0);
    assert_eq!(read_parquet(&c.join("spot/jobs.parquet")).height(), 4);
    // Nodes alone: the job file is named as missing.
    let d = tmp.path().join("d");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("node_info_df.csv"), NODES).unwrap();
    let (code, _, stderr) = tracelab(&["ingest", s(&d), "--out", s(&tmp.path().join("e"))]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("job_info_df.csv") && stderr.contains("missing"), "{stderr}");
}

#[test]
fn bad_records_are_rejected_with_file_line_and_column_and_the_rest_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = (tmp.path().join("raw"), tmp.path().join("store"));
    std::fs::create_dir_all(&raw).unwrap();
    let jobs = JOBS.to_string()
        + "\
bad-1,org-1,A10,8,1,-1,0,60,HP
bad-2,org-1,A10,8,one,1,0,60,HP
bad-3,org-1,A10,8,1,1,0,60,BE
bad-4,org-1,A10,8,1,1,0,,HP
bad-5,org-1,A10,8,1,1,-5,60,Spot
bad-6,org-1,A10,8,1,1,0,60
,org-1,A10,8,1,1,0,60,HP
";
    std::fs::write(raw.join("job_info_df.csv"), jobs).unwrap();
    std::fs::write(raw.join("node_info_df.csv"), format!("{NODES}H800,-8,192,node-0004\n")).unwrap();
    ingest(&raw, &store, &[]);
    assert_eq!(read_parquet(&store.join("spot/jobs.parquet")).height(), 4);
    assert_eq!(read_parquet(&store.join("spot/nodes.parquet")).height(), 3);
    let r = read_parquet(&store.join("spot/rejects.parquet"));
    let r = r.lazy().sort(["table", "line"], SortMultipleOptions::default()).collect().unwrap();
    assert_eq!(strs(&r, "table"), text(&["jobs", "jobs", "jobs", "jobs", "jobs", "jobs", "jobs", "nodes"]));
    let files = [["job_info_df.csv"; 7].as_slice(), ["node_info_df.csv"].as_slice()].concat();
    assert_eq!(strs(&r, "file"), text(&files));
    assert_eq!(i64s(&r, "line"), [6, 7, 8, 9, 10, 11, 12, 5].map(Some).to_vec());
    assert_eq!(
        strs(&r, "column"),
        text(&[
            "worker_num",
            "gpu_request",
            "job_type",
            "duration",
            "submit_time",
            "*",
            "job_name",
            "gpu_capacity_num"
        ])
    );
    let reasons: Vec<String> = strs(&r, "reason").into_iter().map(Option::unwrap).collect();
    assert!(reasons[2].contains("HP") && reasons[2].contains("Spot"), "{reasons:?}");
    assert!(reasons[4].contains("non-negative") && reasons[7].contains("non-negative"), "{reasons:?}");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(store.join("spot/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["rejects"], 8);
    for t in m["tables"].as_array().unwrap() {
        let (i, w, r) = (t["records_in"].as_u64(), t["written"].as_u64(), t["rejected"].as_u64());
        assert_eq!(i, w.zip(r).map(|(w, r)| w + r), "nothing dropped silently: {t}");
    }
}
