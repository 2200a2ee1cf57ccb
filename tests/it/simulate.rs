//! `tracelab simulate`: a hand-built Helios trace whose schedules are worked
//! out by hand (per-VC partitions, strict vs greedy, window, load factor,
//! busiest window, every row accounted for), the `from-trace` clusters of
//! data-samples/ against the raw files counted with DuckDB, every policy on
//! data-samples/ with its summary recomputed from the per-job Parquet with
//! DuckDB, CSV job lists, `--list`, and bad input.

use std::path::Path;

use polars::prelude::*;
use serde_json::Value;

use crate::common::{python, read_parquet, root, s, tracelab, tracelab_ok};

/// Venus, 2020-09-01 (times are seconds after midnight):
///
/// | job | VC | GPUs | submit | duration | note |
/// |---|---|---|---|---|---|
/// | 1 | vcA | 8 | 0 | 100 | |
/// | 4 | vcB | 8 | 5 | 40 | |
/// | 2 | vcA | 16 | 10 | 50 | needs both vcA nodes |
/// | 5 | vcB | 4 | 15 | 10 | |
/// | 3 | vcA | 8 | 20 | 300 | |
/// | 6 | vcC | 1 | 30 | 100 | vcC has 4 GPUs: no 8-GPU node |
/// | 7 | vcA | 0 | 40 | 10 | CPU job |
/// | 8 | vcA | 24 | 50 | 10 | more than vcA's 16 GPUs |
///
/// cluster_gpu_number: vcA 16, vcB 8, vcC 4 on 09-01 (vcA 24 on 09-02, not
/// used: the window starts on 09-01), so vcA = 2 nodes, vcB = 1, vcC = 0.
const LOG: &str = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
1,u1,vcA,8,8,1,COMPLETED,2020-09-01 00:00:00,2020-09-01 00:00:00,2020-09-01 00:01:40,100,0
4,u2,vcB,8,8,1,COMPLETED,2020-09-01 00:00:05,2020-09-01 00:00:05,2020-09-01 00:00:45,40,0
2,u1,vcA,16,8,2,COMPLETED,2020-09-01 00:00:10,2020-09-01 00:00:10,2020-09-01 00:01:00,50,0
5,u2,vcB,4,8,1,FAILED,2020-09-01 00:00:15,2020-09-01 00:00:15,2020-09-01 00:00:25,10,0
3,u3,vcA,8,8,1,COMPLETED,2020-09-01 00:00:20,2020-09-01 00:00:20,2020-09-01 00:05:20,300,0
6,u3,vcC,1,8,1,COMPLETED,2020-09-01 00:00:30,2020-09-01 00:00:30,2020-09-01 00:02:10,100,0
7,u1,vcA,0,8,1,COMPLETED,2020-09-01 00:00:40,2020-09-01 00:00:40,2020-09-01 00:00:50,10,0
8,u2,vcA,24,8,3,CANCELLED,2020-09-01 00:00:50,2020-09-01 00:00:50,2020-09-01 00:01:00,10,0
";
const GPU_NUMBER: &str = "date,vcA,vcB,vcC,total\n2020-09-01,16,8,4,28\n2020-09-02,24,8,4,36\n";

fn tiny_store(dir: &Path) -> String {
    let venus = dir.join("trace/helios/Venus");
    std::fs::create_dir_all(&venus).unwrap();
    std::fs::write(venus.join("cluster_log.csv"), LOG).unwrap();
    std::fs::write(venus.join("cluster_gpu_number.csv"), GPU_NUMBER).unwrap();
    let store = dir.join("store");
    tracelab_ok(&["ingest", s(&dir.join("trace")), "--out", s(&store), "--quiet"]);
    s(&store).to_string()
}

/// Runs simulate on the tiny store with `--out`; returns (JSON output, out dir).
fn run_tiny(dir: &Path, store: &str, name: &str, extra: &[&str]) -> (Value, std::path::PathBuf) {
    let out = dir.join(name);
    let mut args = vec!["simulate", "--store", store, "--trace", "helios:Venus", "--format", "json", "--out", s(&out)];
    args.extend(extra);
    (serde_json::from_str(&tracelab_ok(&args)).unwrap(), out)
}

/// `job_id -> (jct_s, wait_s)` of one run from jobs.parquet.
fn per_job(out: &Path, run: &str) -> Vec<(String, f64, f64)> {
    let df = read_parquet(&out.join("jobs.parquet"))
        .lazy()
        .filter(col("run").eq(lit(run)))
        .sort(["job_id"], SortMultipleOptions::default())
        .collect()
        .unwrap();
    let ids = df.column("job_id").unwrap().str().unwrap().clone();
    let jct = df.column("jct_s").unwrap().f64().unwrap().clone();
    let wait = df.column("wait_s").unwrap().f64().unwrap().clone();
    (0..df.height()).map(|i| (ids.get(i).unwrap().to_string(), jct.get(i).unwrap(), wait.get(i).unwrap())).collect()
}

fn part<'a>(out: &'a Value, name: &str) -> &'a Value {
    out["parts"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("no part {name}"))
}

/// The cell of `column` in the row whose first cell is `first`.
fn cell<'a>(out: &'a Value, part_name: &str, first: &str, column: &str) -> &'a Value {
    let p = part(out, part_name);
    let i = p["columns"].as_array().unwrap().iter().position(|c| c == column).unwrap();
    let row = p["rows"].as_array().unwrap().iter().find(|r| r[0] == first).unwrap_or_else(|| panic!("no row {first}"));
    &row[i]
}

fn ids(rows: &[(String, f64, f64)]) -> Vec<&str> {
    rows.iter().map(|r| r.0.as_str()).collect()
}

/// FIFO by hand. vcA (2 x 8 GPUs), strict: job 1 runs 0-100; job 2 (16)
/// waits for both nodes and blocks job 3 behind it; 2 runs 100-150, 3 runs
/// 150-450. vcB (1 x 8): 4 runs 5-45, 5 waits to 45, runs 45-55. Greedy: job 3
/// starts at 20 on the free node (20-320), so job 2 waits until 320 (320-370).
#[test]
fn the_tiny_trace_replays_as_worked_out_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let store = tiny_store(dir.path());
    let (out, o) = run_tiny(dir.path(), &store, "fifo", &["--policy", "fifo", "--discipline", "strict"]);
    let strict = per_job(&o, "fifo");
    assert_eq!(ids(&strict), ["Venus/1", "Venus/2", "Venus/3", "Venus/4", "Venus/5"]);
    let expect = [(100.0, 0.0), (140.0, 90.0), (430.0, 130.0), (40.0, 0.0), (40.0, 30.0)];
    for (row, (jct, wait)) in strict.iter().zip(expect) {
        assert_eq!((row.1, row.2), (jct, wait), "{}", row.0);
    }
    // Summary: mean JCT (100+140+430+40+40)/5 = 150, mean wait 250/5 = 50.
    assert_eq!(cell(&out, "summary", "fifo", "mean_jct_s"), 150.0);
    assert_eq!(cell(&out, "summary", "fifo", "mean_wait_s"), 50.0);
    assert_eq!(cell(&out, "summary", "fifo", "done"), 5);
    // Every row accounted for: 5 replayed, job 7 asks no GPU, 6 and 8 unplaceable.
    let left = |k: &str| cell(&out, "left-out", k, "jobs").as_i64().unwrap();
    assert_eq!(left("replayed"), 5);
    assert_eq!(left("left out: asks for no GPU"), 1);
    assert_eq!(left("left out: unplaceable on the cluster: its VC Venus/vcC has no nodes (fewer than 8 GPUs)"), 1);
    assert_eq!(
        left("left out: unplaceable on the cluster: needs 24 GPUs but the nodes it may use have 16 in total"),
        1
    );
    assert_eq!(left("rows read"), 8);
    // The cluster: two VCs with nodes, from 2020-09-01.
    let c = part(&out, "cluster");
    assert_eq!(c["rows"], serde_json::json!([["Venus/vcA", 2, 8, null, ""], ["Venus/vcB", 1, 8, null, ""]]));
    assert!(out["definition"].as_str().unwrap().contains("Venus 2020-09-01"), "{}", out["definition"]);

    let (_, o) = run_tiny(dir.path(), &store, "greedy", &["--policy", "fifo"]);
    let greedy = per_job(&o, "fifo");
    let expect = [(100.0, 0.0), (360.0, 310.0), (300.0, 0.0), (40.0, 0.0), (40.0, 30.0)];
    for (row, (jct, wait)) in greedy.iter().zip(expect) {
        assert_eq!((row.1, row.2), (jct, wait), "{}", row.0);
    }
}

/// `--load 2` halves the submission times: 1 at 0, 4 at 2.5, 2 at 5, 5 at 7.5,
/// 3 at 10. Greedy: 3 runs 10-310, so 2 runs 310-360 (JCT 355, wait 305); 5
/// waits for 4 (2.5-42.5) and runs 42.5-52.5 (JCT 45). `--window 10s..`
/// keeps 2, 5 and 3 (1 and 4 outside) from 10 s: 2 at 0 runs 0-50, 5 at 5
/// runs 5-15, 3 at 10 waits for 2: 50-350 (JCT 340).
#[test]
fn load_factors_and_windows_move_arrivals_as_worked_out_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let store = tiny_store(dir.path());
    let (_, o) = run_tiny(dir.path(), &store, "loads", &["--load", "1,2"]);
    let x2 = per_job(&o, "fifo x2");
    let expect = [(100.0, 0.0), (355.0, 305.0), (300.0, 0.0), (40.0, 0.0), (45.0, 35.0)];
    for (row, (jct, wait)) in x2.iter().zip(expect) {
        assert_eq!((row.1, row.2), (jct, wait), "{}", row.0);
    }
    assert_eq!(per_job(&o, "fifo x1")[1].1, 360.0);

    let (out, o) = run_tiny(dir.path(), &store, "window", &["--window", "10s.."]);
    let w = per_job(&o, "fifo");
    assert_eq!(ids(&w), ["Venus/2", "Venus/3", "Venus/5"]);
    assert_eq!(w.iter().map(|r| (r.1, r.2)).collect::<Vec<_>>(), [(50.0, 0.0), (340.0, 40.0), (10.0, 0.0)]);
    assert_eq!(cell(&out, "left-out", "left out: submitted outside the window", "jobs"), 2);
    // The result records how it was made.
    assert_eq!(
        (&out["params"]["trace"], &out["params"]["window"]),
        (&Value::from("helios:Venus"), &Value::from("10s.."))
    );
    assert_eq!(cell(&out, "left-out", "rows read", "jobs"), 8);
}

/// GPU-seconds submitted in each 10-s window starting at a submission: at 0
/// jobs 1 and 4 (800 + 320), at 5 jobs 4 and 2 (320 + 800), at 10 jobs 2 and
/// 5 (800 + 40), at 15 jobs 5 and 3 (40 + 2400), at 20 job 3 (2400), at 30
/// job 6 (100), at 50 job 8 (240): the busiest is [15 s, 25 s), jobs 5 and 3.
#[test]
fn the_busiest_window_is_the_one_found_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let store = tiny_store(dir.path());
    let (out, o) = run_tiny(dir.path(), &store, "busiest", &["--window", "busiest:10s"]);
    let w = per_job(&o, "fifo");
    assert_eq!(ids(&w), ["Venus/3", "Venus/5"]);
    assert_eq!(w.iter().map(|r| (r.1, r.2)).collect::<Vec<_>>(), [(300.0, 0.0), (10.0, 0.0)]);
    let def = out["definition"].as_str().unwrap();
    // Helios times are Asia/Shanghai wall-clock times; the store keeps UTC.
    assert!(def.contains("Window [2020-08-31T16:00:15Z, 2020-08-31T16:00:25Z)"), "{def}");
}

#[test]
fn a_seeded_sample_is_reproducible_and_accounted_for() {
    let dir = tempfile::tempdir().unwrap();
    let store = tiny_store(dir.path());
    let (a, oa) = run_tiny(dir.path(), &store, "s1", &["--sample", "3", "--seed", "7"]);
    let (_, ob) = run_tiny(dir.path(), &store, "s2", &["--sample", "3", "--seed", "7"]);
    assert_eq!(ids(&per_job(&oa, "fifo")), ids(&per_job(&ob, "fifo")));
    // 7 candidates (job 7 asks no GPU): 3 drawn, 4 not; of the 3, the
    // unplaceable ones are counted as such.
    let left = |k: &str| cell(&a, "left-out", k, "jobs").as_i64().unwrap_or(0);
    assert_eq!(left("left out: not drawn by the sample"), 4);
    assert_eq!(left("rows read"), 8);
    let replayed = left("replayed");
    let unplaceable: i64 = part(&a, "left-out")["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r[0].as_str().unwrap().contains("unplaceable"))
        .map(|r| r[1].as_i64().unwrap())
        .sum();
    assert_eq!(replayed + unplaceable, 3);
}

/// The `from-trace` clusters of data-samples/ against the raw files, counted
/// with DuckDB: PAI GPU machines by type, Philly machines by GPUs, Helios
/// Venus VCs (GPUs // 8 on the last day at or before the first submission),
/// spot nodes by GPU model, Seren's 286 nodes of 8 GPUs.
#[test]
fn from_trace_clusters_match_the_raw_machine_files() {
    let samples = root().join("data-samples");
    let expected: Value = serde_json::from_str(&python("tests/crosscheck/sim_clusters.py", &[s(&samples)])).unwrap();
    for trace in ["pai", "philly", "helios:Venus", "spot", "acme:Seren"] {
        let out: Value = serde_json::from_str(&tracelab_ok(&[
            "simulate",
            "--store",
            s(crate::common::sample_store()),
            "--trace",
            trace,
            "--format",
            "json",
        ]))
        .unwrap();
        let rows: Vec<Value> = part(&out, "cluster")["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| serde_json::json!([r[0], r[1], r[2], r[4]]))
            .collect();
        assert_eq!(Value::Array(rows), expected[trace], "{trace}");
    }
}

/// Every policy on data-samples/ (PAI on 2 x 8 GPUs, where they differ):
/// rows read = replayed + left out, JCT >= duration, and every summary
/// number recomputed from jobs.parquet and series.parquet with DuckDB.
#[test]
fn every_policy_on_the_samples_matches_duckdb_over_the_per_job_table() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("sim");
    let policies = "fifo,sjf,srtf,sjf-predicted,qssf,las,fair";
    let out: Value = serde_json::from_str(&tracelab_ok(&[
        "simulate",
        "--store",
        s(crate::common::sample_store()),
        "--trace",
        "pai",
        "--cluster",
        "2x8",
        "--policy",
        policies,
        "--format",
        "json",
        "--out",
        s(&out_dir),
    ]))
    .unwrap();
    let left = part(&out, "left-out")["rows"].as_array().unwrap().clone();
    let n = |r: &Value| r[1].as_i64().unwrap();
    let read = n(left.last().unwrap());
    assert_eq!(left[..left.len() - 1].iter().map(n).sum::<i64>(), read, "replayed + left out = rows read");
    let duck: Value = serde_json::from_str(&python("tests/crosscheck/simulate.py", &[s(&out_dir), "16"])).unwrap();
    let summary = part(&out, "summary");
    let columns: Vec<&str> = summary["columns"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    let mut checked = 0;
    for row in summary["rows"].as_array().unwrap() {
        let run = row[0].as_str().unwrap();
        let d = &duck[run];
        assert_eq!(d["bad_jct"], 0, "{run}: done jobs with JCT < duration");
        assert_eq!(d["bad_wait"], 0, "{run}: wait != start - submit without preemption");
        assert_eq!(d["jobs"].as_i64().unwrap(), n(&left[0]), "{run}: every replayed job has a row");
        for (c, v) in columns.iter().zip(row.as_array().unwrap()) {
            let Some(want) = d.get(*c) else { continue };
            let (x, y) = (v.as_f64().unwrap(), want.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-6 * x.abs().max(y.abs()).max(1.0), "{run} {c}: tracelab {x}, DuckDB {y}");
            checked += 1;
        }
    }
    assert_eq!(checked, 7 * 15, "every run's 15 recomputed numbers");
    assert!(out_dir.join("summary.csv").is_file() && out_dir.join("result.json").is_file());
}

#[test]
fn a_csv_job_list_replays_on_a_given_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    // Two 4-GPU jobs on one 4-GPU node: the second waits for the first.
    std::fs::write(&csv, "job_id,submit_s,duration_s,gpus\na,0,10,4\nb,0,5,4\nc,1,1,0\n").unwrap();
    let out: Value = serde_json::from_str(&tracelab_ok(&[
        "simulate",
        "--jobs",
        s(&csv),
        "--cluster",
        "1x4",
        "--policy",
        "fifo,sjf",
        "--format",
        "json",
    ]))
    .unwrap();
    // FIFO: a 0-10, b 10-15: mean JCT (10 + 15) / 2; SJF: b 0-5, a 5-15: (5 + 15) / 2.
    assert_eq!(cell(&out, "summary", "fifo", "mean_jct_s"), 12.5);
    assert_eq!(cell(&out, "summary", "sjf", "mean_jct_s"), 10.0);
    assert_eq!(cell(&out, "left-out", "left out: asks for no GPU", "jobs"), 1);
}

/// Times past the engine's clock are errors naming the trace's job (they
/// used to wrap into a makespan of 9.2e15 s and a utilisation of 0 with exit
/// 0); a cluster past its ceiling is refused before it is built; and a
/// wake-up left after the last job no longer stretches a LAS run (one 1-GPU
/// job of 100 s on one GPU: utilisation 100 / 100 = 1, it read 100 / 3,600).
#[test]
fn simulate_refuses_times_and_clusters_beyond_its_ceilings() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    std::fs::write(&csv, "job_id,submit_s,duration_s,gpus\na,0,100,0.5\nb,10,100,0.5\n").unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["simulate", "--jobs", s(&csv), "--format", "json"];
        args.extend(extra);
        tracelab(&args)
    };
    let cases: [(&[&str], &str); 5] = [
        (
            &["--cluster", "1x1", "--share-slowdown", "1e300"],
            "fifo: job a (replayed job 0): its completion would come 9.000e304 ms after 10000 ms, past the clock's limit",
        ),
        (&["--cluster", "1x1", "--load", "1e-300"], "fifo: job b (replayed job 1): submitted at 9223372036854775807 ms"),
        (&["--cluster", "100000000x8"], "--cluster 100000000x8: 100000000 nodes, more than the limit of 1000000 (raise it with --max-nodes)"),
        (&["--cluster", "2x8", "--max-gpus", "15"], "--cluster 2x8: 16 GPUs, more than the limit of 15 (raise it with --max-gpus)"),
        (&["--cluster", "1x1", "--max-nodes", "0"], "--max-nodes 0 --max-gpus 10000000: bad cluster: ceilings of 0 nodes"),
    ];
    for (extra, message) in cases {
        let (code, _, stderr) = run(extra);
        assert_eq!(code, 2, "{extra:?}: {stderr}");
        assert!(stderr.contains(message), "{extra:?}: expected `{message}` in:\n{stderr}");
    }
    std::fs::write(&csv, "job_id,submit_s,duration_s,gpus\na,0,100,1\n").unwrap();
    let out: Value = serde_json::from_str(&tracelab_ok(&[
        "simulate",
        "--jobs",
        s(&csv),
        "--cluster",
        "1x1",
        "--policy",
        "fifo,las",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(cell(&out, "summary", "fifo", "gpu_util"), 1.0);
    assert_eq!(cell(&out, "summary", "las", "gpu_util"), 1.0);
}

#[test]
fn list_names_every_policy_discipline_and_placement() {
    let out = tracelab_ok(&["simulate", "--list", "--format", "csv"]);
    for name in [
        "fifo",
        "sjf",
        "srtf",
        "sjf-predicted",
        "qssf",
        "las",
        "fair",
        "strict",
        "greedy",
        "easy",
        "pack",
        "spread",
        "first-fit",
        "random",
        "least-shared",
        "exclusive",
        "time-sharing",
        "priority-time-sharing",
        "horus",
        "muxflow",
        "--online N",
        "Tiresias",
        "Pollux",
    ] {
        assert!(out.contains(name), "--list lacks {name}:\n{out}");
    }
}

#[test]
fn bad_input_is_a_usage_error_naming_the_option() {
    let store = s(crate::common::sample_store()).to_string();
    let cases: [(&[&str], &str); 5] = [
        (&["--trace", "philly", "--cluster", "1x8"], "--cluster: job application_"),
        (&["--cluster", "8"], "--cluster 8: expected from-trace, NODESxGPUS"),
        (&["--window", "1000d.."], "--window: no job of the trace is submitted in the window"),
        (&["--window", "busiest"], "--window busiest: expected FROM..TO"),
        (&["--load", "0"], "--load 0: expected a positive number"),
    ];
    for (extra, message) in cases {
        let mut args = vec!["simulate", "--store", &store];
        args.extend(extra);
        let (code, _, stderr) = tracelab(&args);
        assert_eq!(code, 2, "{extra:?}: {stderr}");
        assert!(stderr.contains(message), "{extra:?}: expected `{message}` in:\n{stderr}");
    }
    let (code, _, stderr) = tracelab(&["simulate", "--store", &store, "--policy", "srtf", "--discipline", "easy"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("easy backfilling needs a non-preemptive policy"), "{stderr}");
}

/// An unknown name of an enumerated option is clap's usage error (exit 2,
/// before the store is opened) listing every name the engine knows, in
/// the engine's order (tracelab_sim's declarations; --list shows them too).
#[test]
fn an_unknown_choice_lists_the_possible_values() {
    let cases: [(&[&str], &str); 6] = [
        (
            &["--policy", "fifo,lottery"],
            "invalid value 'lottery' for '--policy <LIST>'\n  [possible values: fifo, sjf, srtf, sjf-predicted, \
             qssf, las, fair, priority, exclusive, time-sharing, priority-time-sharing, horus, muxflow, pollux, \
             optimus, tiresias]",
        ),
        (
            &["--placement", "pack,tight"],
            "invalid value 'tight' for '--placement <LIST>'\n  [possible values: pack, spread, first-fit, random, \
             least-shared]",
        ),
        (
            &["--discipline", "fcfs"],
            "invalid value 'fcfs' for '--discipline <DISCIPLINE>'\n  [possible values: strict, greedy, easy]",
        ),
        (
            &["--predictor", "vc"],
            "invalid value 'vc' for '--predictor <PREDICTOR>'\n  [possible values: user, group, user-gpu-type]",
        ),
        (&["--fair-by", "group"], "invalid value 'group' for '--fair-by <FAIR_BY>'\n  [possible values: vc, user]"),
        (&["--recipe", "gavel"], "invalid value 'gavel' for '--recipe <NAME>'\n  [possible values: pollux]"),
    ];
    for (extra, message) in cases {
        // A store that does not exist: the usage error comes first.
        let (code, _, stderr) = tracelab(&[&["simulate", "--store", "/nonexistent/store"], extra].concat());
        assert_eq!(code, 2, "{extra:?}: {stderr}");
        assert!(stderr.contains(message), "{extra:?}: expected `{message}` in:\n{stderr}");
    }
}

/// Each trace's workload rebuilt with DuckDB from the store's canonical
/// tables (tests/crosscheck/sim_workload.py, from docs/simulate.md's
/// definitions of one job per trace): the same jobs with the same submission,
/// duration and GPUs, and the same count per left-out reason.
#[test]
fn every_trace_loads_the_jobs_duckdb_rebuilds_from_the_store() {
    let store = s(crate::common::sample_store()).to_string();
    for trace in ["pai", "philly", "helios:Venus", "acme", "spot"] {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("sim");
        let out: Value = serde_json::from_str(&tracelab_ok(&[
            "simulate",
            "--store",
            &store,
            "--trace",
            trace,
            "--cluster",
            "1000x64",
            "--unplaceable",
            "skip",
            "--format",
            "json",
            "--out",
            s(&out_dir),
        ]))
        .unwrap();
        let duck: Value =
            serde_json::from_str(&python("tests/crosscheck/sim_workload.py", &[&store, trace, s(&out_dir)])).unwrap();
        for key in ["missing", "extra", "bad_submit", "bad_duration", "bad_gpus"] {
            assert_eq!(duck[key], 0, "{trace}: {key}");
        }
        let reasons = duck["reasons"].as_object().unwrap();
        assert!(reasons["replayed"].as_i64().unwrap() > 100, "{trace}: {reasons:?}");
        for (reason, n) in reasons {
            let label = if reason == "replayed" { reason.clone() } else { format!("left out: {reason}") };
            assert_eq!(cell(&out, "left-out", &label, "jobs"), n, "{trace}: {label}");
        }
        let rows = part(&out, "left-out")["rows"].as_array().unwrap().len();
        assert_eq!(rows, reasons.len() + 1, "{trace}: no other reason (the cluster holds every job)");
    }
}

/// The sharing policies through the CLI on a CSV job list, worked out by
/// hand (docs/sharing.md's model, contention c = 0.45): three 1-GPU jobs
/// of 100 s at 50 % on one GPU. exclusive: 0-100, 100-200, 200-300 s, mean
/// JCT 200 s. horus (every prediction the default 50 % before anything
/// finished): A alone, B beside it (50 + 50 <= 100 %), C waits; A and B run
/// at 1 x (1 + 0.45 x 0.5) = 1.225: both end at 122.5 s; C 122.5-222.5 s:
/// mean JCT 467.5 / 3. One GPU saved for 122.5 of 222.5 s.
#[test]
fn sharing_policies_replay_a_csv_as_worked_out_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    std::fs::write(&csv, "job_id,submit_s,duration_s,gpus,gpu_util\na,0,100,1,50\nb,0,100,1,50\nc,0,100,1,50\n")
        .unwrap();
    let args = ["simulate", "--jobs", s(&csv), "--cluster", "1x1", "--policy", "exclusive,horus", "--format", "json"];
    let out: Value = serde_json::from_str(&tracelab_ok(&args)).unwrap();
    let near = |v: &Value, want: f64| (v.as_f64().unwrap() - want).abs() < 2e-3;
    assert!(near(cell(&out, "sharing", "exclusive", "offline_mean_jct_s"), 200.0));
    assert!(near(cell(&out, "sharing", "horus", "offline_mean_jct_s"), 467.5 / 3.0));
    assert!(near(cell(&out, "sharing", "horus", "gpus_saved"), 122.5 / 222.5));
    assert!(near(cell(&out, "sharing", "exclusive", "gpus_saved"), 0.0));
}

/// One offline job (100 s at 100 %) beside one online service (26 %, flat
/// profile for a CSV, until the offline job would end: 100 s) under
/// muxflow's defaults: the SM share min(1 - (16/26) 0.26, 0.2 / c_s) =
/// 0.84 with c_s = 0.2 / 0.84; the service runs at 1 + c_s x 0.84 = 1.2,
/// the bound; the offline job at (1 / 0.84) x (1 + c_s x 0.16) = 1.235828
/// until the service ends at 100 s (80.917 s of work done), then alone:
/// it ends at 119.083 s. Time sharing slows both by 2: the service beyond
/// the bound all its life, the job ends at 150 s.
#[test]
fn muxflow_keeps_an_online_service_within_its_bound_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    std::fs::write(&csv, "submit_s,duration_s,gpus,gpu_util\n0,100,1,100\n").unwrap();
    let args = [
        "simulate",
        "--jobs",
        s(&csv),
        "--cluster",
        "1x1",
        "--online",
        "1",
        "--policy",
        "muxflow,time-sharing",
        "--format",
        "json",
    ];
    let out: Value = serde_json::from_str(&tracelab_ok(&args)).unwrap();
    let f = |run: &str, c: &str| cell(&out, "sharing", run, c).as_f64().unwrap();
    let slow = (1.0 / 0.84) * (1.0 + 0.2 / 0.84 * 0.16);
    assert!((f("muxflow", "offline_mean_jct_s") - (100.0 + (100.0 - 100.0 / slow))).abs() < 2e-3);
    assert!((f("muxflow", "online_max_slowdown") - 1.2).abs() < 1e-9);
    assert_eq!(f("muxflow", "online_violations"), 0.0);
    assert_eq!(f("time-sharing", "offline_mean_jct_s"), 150.0);
    assert_eq!((f("time-sharing", "online_violations"), f("time-sharing", "online_violation_share")), (1.0, 1.0));
    assert_eq!(cell(&out, "left-out", "added: online services", "jobs"), 1);
}

/// Usage out of range in a CSV job list: an error naming the file, the line
/// and the column (exit 1, a data error).
#[test]
fn bad_usage_in_a_csv_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    for (row, column) in [("0,10,1,120,,", "gpu_util"), ("0,10,1,,-1,", "gpu_mem_gib"), ("0,10,1,,,batch", "class")] {
        let csv = dir.path().join("jobs.csv");
        std::fs::write(&csv, format!("submit_s,duration_s,gpus,gpu_util,gpu_mem_gib,class\n{row}\n")).unwrap();
        let (code, _, err) = tracelab(&["simulate", "--jobs", s(&csv), "--cluster", "1x1", "--policy", "horus"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("jobs.csv") && err.contains("line 2") && err.contains(column), "{err}");
    }
}

/// The usage the sharing policies read, recomputed from the store with
/// DuckDB (tests/crosscheck/sim_usage.py, from docs/sharing.md): PAI's
/// per-task sensor means per GPU, Philly's per-job GPU-minute means.
#[test]
fn measured_usage_matches_duckdb_over_the_store() {
    let store = crate::common::sample_store();
    for (trace, cluster) in [("pai", "2x8"), ("philly", "4x8")] {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("sim");
        tracelab_ok(&[
            "simulate",
            "--store",
            s(store),
            "--trace",
            trace,
            "--cluster",
            cluster,
            "--policy",
            "exclusive",
            "--unplaceable",
            "skip",
            "--out",
            s(&out_dir),
            "--format",
            "csv",
        ]);
        let got: Value =
            serde_json::from_str(&python("tests/crosscheck/sim_usage.py", &[s(store), trace, s(&out_dir)])).unwrap();
        assert!(got["with_usage"].as_i64().unwrap() > 0, "{trace}: {got}");
        assert_eq!(got["with_usage"], got["expected"], "{trace}: {got}");
        assert_eq!(got["differ"], 0, "{trace}: {got}");
    }
}

/// The spot sample replayed under FIFO and `priority` (HP evicts Spot): the
/// `sim.by-class` view agrees with DuckDB over the per-job table joined to
/// spot/jobs, HP jobs are never evicted, Spot jobs are (only under
/// `priority`), and HP jobs wait less than under FIFO.
#[test]
fn priority_on_the_spot_sample_evicts_spot_jobs_only_and_by_class_matches_duckdb() {
    let store = s(crate::common::sample_store()).to_string();
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("sim");
    let args = ["--store", &store, "--trace", "spot", "--policy", "fifo,priority", "--format", "json"];
    let sim: Value =
        serde_json::from_str(&tracelab_ok(&[&["simulate"][..], &args[..], &["--out", s(&out_dir)]].concat())).unwrap();
    assert_eq!(cell(&sim, "summary", "fifo", "preemptions"), 0);
    let view: Value = serde_json::from_str(&tracelab_ok(&[
        "analyze",
        "sim.by-class",
        "--store",
        &store,
        "--param",
        "trace=spot",
        "--param",
        "policies=fifo,priority",
        "--format",
        "json",
    ]))
    .unwrap();
    let duck: Value =
        serde_json::from_str(&python("tests/crosscheck/sim_by_class.py", &[s(&out_dir), &store])).unwrap();
    let table = part(&view, "by-class");
    let columns: Vec<&str> = table["columns"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "two classes x two runs");
    let mut got = std::collections::BTreeMap::new();
    for row in rows {
        let key = format!("{}|{}", row[0].as_str().unwrap(), row[1].as_str().unwrap());
        let want = &duck[&key];
        for (c, v) in columns.iter().zip(row.as_array().unwrap()).skip(2) {
            let (x, y) = (v.as_f64().unwrap(), want[*c].as_f64().unwrap());
            assert!((x - y).abs() <= 1e-6 * x.abs().max(y.abs()).max(1.0), "{key} {c}: tracelab {x}, DuckDB {y}");
        }
        got.insert(key, row.clone());
    }
    let at = |k: &str, c: &str| got[k][columns.iter().position(|x| *x == c).unwrap()].as_f64().unwrap();
    assert_eq!(at("HP (priority 1)|priority", "evictions"), 0.0);
    assert_eq!(at("HP (priority 1)|fifo", "evictions") + at("Spot (priority 0)|fifo", "evictions"), 0.0);
    assert!(at("Spot (priority 0)|priority", "evictions") > 0.0);
    assert_eq!(
        at("Spot (priority 0)|priority", "evictions"),
        cell(&sim, "summary", "priority", "preemptions").as_f64().unwrap()
    );
    assert!(
        at("HP (priority 1)|priority", "mean_wait_s") < at("HP (priority 1)|fifo", "mean_wait_s") / 2.0,
        "HP jobs wait less when they may evict Spot jobs"
    );
}

/// Elastic replays (docs/simulate-elastic.md) from the command line: one of
/// the artifact's shipped workloads against the average JCT its own
/// simulator published (petuum/adaptdl osdi21-artifact,
/// simulator/results-jobload/tiresias-1.0/workload-1/summary.json:
/// 2,473.65 s), with `--out`'s per-job table.
#[test]
fn elastic_replay_of_an_artifact_workload() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let args = ["simulate", "--jobs", "artifact:1", "--policy", "tiresias", "--format", "json", "--out", s(&out)];
    let v: Value = serde_json::from_str(&tracelab_ok(&args)).unwrap();
    let summary = &v["parts"][0];
    assert_eq!(summary["name"], "summary");
    let col = |name: &str| summary["columns"].as_array().unwrap().iter().position(|c| c == name).unwrap();
    let row = &summary["rows"][0];
    assert_eq!((row[col("jobs")].as_i64(), row[col("done")].as_i64()), (Some(160), Some(160)));
    let jct = row[col("mean_jct_s")].as_f64().unwrap();
    assert!((jct / 2473.65 - 1.0).abs() < 0.10, "tiresias on workload 1: {jct} s");
    let jobs = std::fs::read_to_string(out.join("jobs.csv")).unwrap();
    assert_eq!(jobs.lines().count(), 161);
    assert!(out.join("summary.csv").is_file() && out.join("result.json").is_file());
}

#[test]
fn elastic_workload_csv_is_read_by_its_header_and_bad_rows_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("w.csv");
    std::fs::write(&good, "name,time,application,num_replicas,batch_size\nn,0,ncf,1,256\nc,30,cifar10,2,256\n")
        .unwrap();
    let v: Value = serde_json::from_str(&tracelab_ok(&[
        "simulate",
        "--jobs",
        s(&good),
        "--policy",
        "optimus",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(v["parts"][0]["rows"][0][7], 2, "both jobs done");
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "name,time,application,num_replicas,batch_size\nn,0,ncf,1,256\nc,30,cifar10,2,99999\n")
        .unwrap();
    let (code, _, err) = tracelab(&["simulate", "--jobs", s(&bad), "--policy", "pollux"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.csv: line 3, column `batch_size`"), "{err}");
    let (code, _, err) = tracelab(&["simulate", "--jobs", "artifact:1", "--policy", "pollux,fifo"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--policy fifo") && err.contains("rigid"), "{err}");
    let (code, _, err) = tracelab(&["simulate", "--jobs", "artifact:9", "--policy", "pollux"]);
    assert_eq!(code, 2, "{err}");
}

/// Pollux's generator over the bundled Philly sample: every row read is
/// replayed or left out for a reason, and the class mix counts the jobs
/// replayed.
#[test]
fn pollux_recipe_accounts_for_every_row() {
    let store = crate::common::sample_store();
    let args = ["simulate", "--store", s(store), "--trace", "philly", "--recipe", "pollux", "--policy", "tiresias"];
    let v: Value = serde_json::from_str(&tracelab_ok(&[&args[..], &["--format", "json"]].concat())).unwrap();
    let part = |name: &str| v["parts"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap().clone();
    let rows = part("left-out")["rows"].as_array().unwrap().clone();
    let count = |label: &str| rows.iter().find(|r| r[0] == label).unwrap()[1].as_i64().unwrap();
    let left: i64 =
        rows.iter().filter(|r| r[0].as_str().unwrap().starts_with("left out")).map(|r| r[1].as_i64().unwrap()).sum();
    assert_eq!(count("rows read"), count("replayed") + left);
    assert!(rows.iter().any(|r| r[0].as_str().unwrap().contains("outside the generator's hours")));
    let mix: i64 = part("mix")["rows"].as_array().unwrap().iter().map(|r| r[1].as_i64().unwrap()).sum();
    assert_eq!(mix, count("replayed"));
    assert_eq!(part("summary")["rows"][0][6].as_i64(), Some(count("replayed")));
}
