//! `tracelab ingest` of Standard Workload Format logs: a hand-written log
//! whose rows are worked out by hand, gzip (several members), several logs
//! in one folder, the bundled sample cross-checked by DuckDB against the
//! file read independently, and `tracelab export --to swf` read back.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use polars::prelude::*;

use crate::common::*;

/// UnixStartTime 1,000,000,000 = 2001-09-09T01:46:40Z. Five jobs; job 4
/// was checkpointed: its summary (status 1) is followed by two partial
/// executions (status 2, then 3).
const HAND: &str = "\
; Version: 2.2
; Computer: Hand-worked
; UnixStartTime: 1000000000
; TimeZoneString: Asia/Tokyo
; Note: five jobs
1   0  10 100  4 -1    -1    4 200 -1  1 1 1 -1 1 -1 -1 -1
2   5   0  50  8 12.5  1024  8  60 -1  0 2 1  3 1 -1 -1 -1
3   7  -1  -1 -1 -1    -1    2  60 -1  5 1 2 -1 1 -1 -1 -1
4  20  30  40 16 -1    -1   -1  -1 -1  1 3 3 -1 2  1  2 15
4  20  30  15 16 -1    -1   -1  -1 -1  2 3 3 -1 2  1  2 15
4  65   5  20 16 -1    -1   -1  -1 -1  3 3 3 -1 2  1  2 15
5  60   0   0  1 -1    -1    1  10 -1 -1 2 1 -1 1 -1 -1 -1
";

const T0: i64 = 1_000_000_000;

fn ingest(dir: &Path, store: &Path) -> String {
    tracelab_ok(&["ingest", s(dir), "--out", s(store)])
}

/// A timestamp column in whole seconds.
fn secs(df: &DataFrame, c: &str) -> Vec<Option<i64>> {
    i64s(df, c).into_iter().map(|v| v.map(|us| us / 1_000_000)).collect()
}

fn swf_rows(store: &Path) -> DataFrame {
    let df = read_parquet(&store.join("jobs.parquet"));
    df.lazy()
        .filter(col("trace").eq(lit("swf")))
        .sort(["cluster", "job_id"], SortMultipleOptions::default())
        .collect()
        .unwrap()
}

#[test]
fn a_hand_written_log_gives_the_rows_worked_out_by_hand() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = (tmp.path().join("raw"), tmp.path().join("store"));
    std::fs::create_dir(&raw).unwrap();
    // With a byte-order mark and CRLF line ends, as an editor may save it.
    std::fs::write(raw.join("hand.swf"), format!("\u{feff}{}", HAND.replace('\n', "\r\n"))).unwrap();
    ingest(&raw, &store);
    let df = swf_rows(&store);
    assert_eq!(df.height(), 5, "one unified row per job: the partial executions stay in swf/jobs");
    assert_eq!(strs(&df, "cluster"), text(&["hand"; 5]));
    assert_eq!(strs(&df, "job_id"), text(&["1", "2", "3", "4", "5"]));
    assert_eq!(strs(&df, "user"), text(&["1", "2", "1", "3", "2"]));
    assert_eq!(strs(&df, "group"), text(&["1", "1", "2", "3", "1"]));
    // submit = T0 + field 2; start = submit + wait; end = start + run.
    assert_eq!(secs(&df, "submit_time"), [0, 5, 7, 20, 60].map(|s| Some(T0 + s)).to_vec());
    assert_eq!(secs(&df, "start_time"), vec![Some(T0 + 10), Some(T0 + 5), None, Some(T0 + 50), Some(T0 + 60)]);
    assert_eq!(secs(&df, "end_time"), vec![Some(T0 + 110), Some(T0 + 55), None, Some(T0 + 90), Some(T0 + 60)]);
    assert_eq!(f64s(&df, "queue_s"), vec![Some(10.0), Some(0.0), None, Some(30.0), Some(0.0)]);
    assert_eq!(f64s(&df, "run_s"), vec![Some(100.0), Some(50.0), None, Some(40.0), Some(0.0)]);
    assert_eq!(f64s(&df, "gpus_requested"), vec![None; 5], "SWF counts processors, not GPUs");
    // Requested processors, else allocated (job 4 requested -1, ran on 16).
    assert_eq!(f64s(&df, "cpus_requested"), vec![Some(4.0), Some(8.0), Some(2.0), Some(16.0), Some(1.0)]);
    assert_eq!(i64s(&df, "instances"), vec![None; 5]);
    assert_eq!(strs(&df, "status"), text(&["completed", "failed", "killed", "completed", "unknown"]));
    assert_eq!(strs(&df, "status_raw"), text(&["1", "0", "5", "1", "-1"]));

    let jobs = read_parquet(&store.join("swf/jobs.parquet"));
    assert_eq!(jobs.height(), 7);
    assert_eq!(i64s(&jobs, "part"), [0, 0, 0, 0, 1, 2, 0].map(Some).to_vec());
    assert_eq!(f64s(&jobs, "avg_cpu_time_s")[1], Some(12.5));
    assert_eq!(f64s(&jobs, "used_memory_kb")[1], Some(1024.0));
    assert_eq!(i64s(&jobs, "think_time_s")[3], Some(15));
    assert_eq!(i64s(&jobs, "preceding_job")[3], Some(2));
    assert_eq!(i64s(&jobs, "executable_id")[..3], [None, Some(3), None]);
    let header = read_parquet(&store.join("swf/header.parquet"));
    assert_eq!(strs(&header, "key"), text(&["Version", "Computer", "UnixStartTime", "TimeZoneString", "Note"]));
    assert_eq!(strs(&header, "value")[3], Some("Asia/Tokyo".into()));
}

/// `x.swf.gz` written as two gzip members, as `cat a.gz b.gz` makes.
fn two_member_gzip(text: &str) -> Vec<u8> {
    let (head, tail) = text.split_at(text.find("\n3 ").unwrap() + 1);
    let mut out = Vec::new();
    for part in [head, tail] {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(part.as_bytes()).unwrap();
        out.extend(gz.finish().unwrap());
    }
    out
}

#[test]
fn gzip_logs_are_read_to_the_last_member_and_each_log_is_a_cluster() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = (tmp.path().join("raw"), tmp.path().join("store"));
    std::fs::create_dir_all(raw.join("more")).unwrap();
    std::fs::write(raw.join("a.swf.gz"), two_member_gzip(HAND)).unwrap();
    // No UnixStartTime: times count from the epoch, with a note.
    std::fs::write(raw.join("more/b.swf"), "1 30 0 5 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\n").unwrap();
    // The extracted twin of b.swf.gz is read; the archive is only hashed.
    std::fs::write(raw.join("more/b.swf.gz"), two_member_gzip(HAND)).unwrap();
    ingest(&raw, &store);
    let df = swf_rows(&store);
    assert_eq!(strs(&df, "cluster"), text(&["a", "a", "a", "a", "a", "b"]));
    assert_eq!(secs(&df, "submit_time")[5], Some(30));
    let manifest = std::fs::read_to_string(store.join("swf/manifest.json")).unwrap();
    assert!(manifest.contains("more/b.swf: no UnixStartTime"), "{manifest}");
    assert!(manifest.contains("more/b.swf.gz skipped"), "{manifest}");

    // The same stem in two folders would be two clusters of one name.
    std::fs::write(raw.join("b.swf"), HAND).unwrap();
    let (code, _, stderr) = tracelab(&["ingest", s(&raw), "--out", s(&store)]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("two SWF logs named b"), "{stderr}");
}

#[test]
fn the_swf_sample_agrees_with_duckdb_reading_the_log_independently() {
    let out = python("tests/crosscheck/check_swf.py", &[s(&root().join("data-samples/swf")), s(sample_store())]);
    // 3,081 jobs x 15 columns, plus the two row counts.
    assert!(out.contains(&format!("{} checks passed", 3081 * 15 + 2)), "{out}");
}

/// `kind,number,name` of an export's `--ids` file, by (kind, number).
fn ids(path: &Path) -> HashMap<(String, i64), String> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let mut f = l.splitn(3, ',');
            let (kind, n, name) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
            ((kind.to_string(), n.parse().unwrap()), name.to_string())
        })
        .collect()
}

/// Philly exported to SWF and ingested again: every job comes back with
/// its submission, queueing delay, runtime (the sum of its attempts' run
/// times, as export defines a Philly job), GPUs as processors, status and
/// the user and group the `--ids` file names.
#[test]
fn export_to_swf_then_ingest_gives_back_the_same_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = (tmp.path().join("raw"), tmp.path().join("store"));
    std::fs::create_dir(&raw).unwrap();
    let (file, id_file) = (raw.join("philly-export.swf"), tmp.path().join("ids.csv"));
    let args = ["export", "--store", s(sample_store()), "--trace", "philly", "--to", "swf"];
    tracelab_ok(&[&args[..], &["-o", s(&file), "--ids", s(&id_file)]].concat());
    ingest(&raw, &store);
    let back = swf_rows(&store);
    let names = ids(&id_file);
    let original = read_parquet(&sample_store().join("jobs.parquet"));
    let original = original.lazy().filter(col("trace").eq(lit("philly"))).collect().unwrap();
    let at: HashMap<String, usize> =
        strs(&original, "job_id").into_iter().enumerate().map(|(i, id)| (id.unwrap(), i)).collect();
    let attempts = read_parquet(&sample_store().join("philly/attempts.parquet"));
    let mut ran: HashMap<String, f64> = HashMap::new();
    for (id, run) in strs(&attempts, "job_id").into_iter().zip(f64s(&attempts, "run_s")) {
        *ran.entry(id.unwrap()).or_default() += run.unwrap_or(0.0);
    }
    let (o_submit, o_queue, o_gpus) =
        (secs(&original, "submit_time"), f64s(&original, "queue_s"), f64s(&original, "gpus_requested"));
    let (o_user, o_group, o_status) = (strs(&original, "user"), strs(&original, "group"), strs(&original, "status"));
    let (submit, queue, run) = (secs(&back, "submit_time"), f64s(&back, "queue_s"), f64s(&back, "run_s"));
    let (procs, user, group, status) =
        (f64s(&back, "cpus_requested"), strs(&back, "user"), strs(&back, "group"), strs(&back, "status"));
    assert!(back.height() > 100, "{} jobs", back.height());
    for (r, job) in strs(&back, "job_id").into_iter().enumerate() {
        let number: i64 = job.unwrap().parse().unwrap();
        let id = &names[&("job".to_string(), number)];
        let i = at[id];
        let name =
            |kind: &str, v: &Option<String>| names[&(kind.to_string(), v.as_ref().unwrap().parse().unwrap())].clone();
        assert_eq!(submit[r], o_submit[i], "{id}: submit (Philly times are whole seconds)");
        assert_eq!(queue[r], o_queue[i].map(f64::round), "{id}: queue");
        assert_eq!(run[r], Some(ran[id].round()), "{id}: run");
        assert_eq!(procs[r], o_gpus[i].map(f64::ceil), "{id}: GPUs as processors");
        assert_eq!(Some(name("user", &user[r])), o_user[i], "{id}: user");
        assert_eq!(Some(name("group", &group[r])), o_group[i], "{id}: group");
        assert_eq!(status[r], o_status[i], "{id}: status");
    }
}

/// A log saved with classic Mac line ends (a lone `\r`): the hand log's
/// five comment lines and seven records, read as such. Read by `\n` alone
/// it was one line starting with `;`: one header comment and no job.
#[test]
fn a_log_with_cr_line_ends_gives_the_same_rows_as_with_newlines() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = (tmp.path().join("raw"), tmp.path().join("store"));
    std::fs::create_dir(&raw).unwrap();
    std::fs::write(raw.join("hand.swf"), HAND.replace('\n', "\r")).unwrap();
    ingest(&raw, &store);
    let df = swf_rows(&store);
    assert_eq!(strs(&df, "job_id"), text(&["1", "2", "3", "4", "5"]));
    assert_eq!(secs(&df, "end_time"), vec![Some(T0 + 110), Some(T0 + 55), None, Some(T0 + 90), Some(T0 + 60)]);
    assert_eq!(read_parquet(&store.join("swf/jobs.parquet")).height(), 7);
    let header = read_parquet(&store.join("swf/header.parquet"));
    assert_eq!(strs(&header, "key"), text(&["Version", "Computer", "UnixStartTime", "TimeZoneString", "Note"]));
    // Line numbers count the `\r` lines: the fifth comment is line 5.
    assert_eq!(i64s(&header, "line")[4], Some(5));
}

/// Times are printed in RFC 3339, whose last second is
/// 9999-12-31T23:59:59Z = 253402300799 s after the epoch. With
/// UnixStartTime 253402300000, job 1 ends at 700 + 90 + 9 s later, that
/// very second; job 2 would end a second later and is rejected naming its
/// run time. (Before, such a job was stored and printed as a bare number
/// of microseconds.)
#[test]
fn an_end_time_past_the_year_9999_is_rejected_and_the_last_one_prints_as_rfc_3339() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = (tmp.path().join("raw"), tmp.path().join("store"));
    std::fs::create_dir(&raw).unwrap();
    let log = "; UnixStartTime: 253402300000\n\
               1 700 90 9 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n\
               2 700 90 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n";
    std::fs::write(raw.join("far.swf"), log).unwrap();
    let (code, _, stderr) = tracelab(&["ingest", s(&raw), "--out", s(&store)]);
    assert_eq!(code, 0, "{stderr}");
    let rejects = read_parquet(&store.join("swf/rejects.parquet"));
    assert_eq!(rejects.height(), 1);
    assert_eq!(strs(&rejects, "column"), text(&["Run Time"]));
    assert_eq!(i64s(&rejects, "line"), vec![Some(3)]);
    let out = tracelab_ok(&["query", "SELECT max(end_time) AS last FROM swf_jobs", "--store", s(&store)]);
    assert_eq!(out, "last\n9999-12-31T23:59:59Z\n");
}
