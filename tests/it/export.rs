//! `tracelab export`: every format from a hand-built tiny store (raw trace
//! files written here, ingested, and the exported rows written out by hand
//! below), every format from `data-samples/` read back by
//! `tests/crosscheck/export_readback.py` (its own parser, DuckDB on the
//! store), the accounting on stderr, determinism, and bad input.

use std::path::{Path, PathBuf};

use crate::common::{python, root, s, sample_store, tracelab, tracelab_ok};

// ---------------------------------------------------------------- the tiny store

/// Helios Venus: job 11 asks for no GPU (left out); 12 and 14 are
/// submitted together (trace id breaks the tie); 16 asks for 128 GPUs.
const HELIOS_LOG: &str = "\
job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
10,uA,vcX,8,32,1,COMPLETED,2020-09-01 00:00:00,2020-09-01 00:00:10,2020-09-01 01:00:10,3600,10
11,uB,vcX,0,4,1,COMPLETED,2020-09-01 00:05:00,2020-09-01 00:05:00,2020-09-01 00:06:00,60,0
12,uA,vcY,16,64,2,FAILED,2020-09-01 00:10:00,2020-09-01 00:20:00,2020-09-01 00:30:00,600,600
13,uA,vcY,1,8,1,CANCELLED,2020-09-01 02:00:00,2020-09-01 02:00:05,2020-09-01 02:00:35,30,5
14,uC,vcX,2,8,1,TIMEOUT,2020-09-01 00:10:00,2020-09-01 00:10:00,2020-09-01 03:00:00,10200,0
15,uB,vcX,4,16,1,COMPLETED,2020-09-01 04:00:00,2020-09-01 04:00:00,2020-09-01 04:10:00,600,0
16,uC,vcX,128,512,16,COMPLETED,2020-09-01 05:00:00,2020-09-01 05:00:00,2020-09-01 07:00:00,7200,0
";

/// PAI (times are offsets in seconds): jA/ps asks for no GPU, jC/worker is
/// still running; jA/worker has two half-GPU instances (runs 2000 and 2900
/// s, the first starting 60 s after the task).
const PAI: [(&str, &str); 5] = [
    (
        "pai_job_table.csv",
        "jA,iA,u1,Terminated,1000,5000\njB,iB,u2,Failed,2000,9000\njC,iC,u1,Running,3000,\n\
         jD,iD,u1,Terminated,5000,5600\njE,iE,u3,Terminated,9500,9600\njF,iF,u1,Terminated,9800,10000\n",
    ),
    (
        "pai_task_table.csv",
        "jA,worker,2,Terminated,1000,4000,400,10,50,V100\njA,ps,1,Terminated,1000,4000,200,5,,\n\
         jB,tensorflow,1,Failed,2000,9000,600,20,100,T4\njC,worker,1,Running,3000,,100,1,100,P100\n\
         jD,worker,1,Terminated,5000,5600,800,4,25,V100\njE,worker,1,Terminated,9500,9600,100,4,100,T4\n\
         jF,worker,1,Terminated,9800,10000,200,4,100,V100\n",
    ),
    (
        "pai_instance_table.csv",
        "jA,worker,a1,w1,iA,Terminated,1060,3060,m1\njA,worker,a2,w2,iA,Terminated,1100,4000,m1\n\
         jA,ps,a3,w3,iA,Terminated,1000,4000,m1\njB,tensorflow,b1,w4,iB,Failed,2030,8030,m2\n\
         jD,worker,d1,w5,iD,Terminated,5010,5500,m1\njE,worker,e1,w6,iE,Terminated,9500,9600,m2\n\
         jF,worker,f1,w7,iF,Terminated,9805,9995,m1\n",
    ),
    ("pai_group_tag_table.csv", "iA,u1,V100,g1,bert\niB,u2,,,\niD,u1,V100,g1,bert\niE,u3,,g9,\niF,u1,,g2,\n"),
    ("pai_machine_spec.csv", "m1,V100,96,512,8\nm2,T4,96,512,2\n"),
];

/// Philly: job 1 runs twice (600 s + 300 s) on 4 then 2 GPUs; job 3 never
/// started; job 4 is still running.
const PHILLY_LOG: &str = r#"[
{"status": "Pass", "vc": "v1", "jobid": "application_1506638472019_0001", "user": "a", "submitted_time": "2017-10-01 10:00:00",
 "attempts": [{"start_time": "2017-10-01 10:01:00", "end_time": "2017-10-01 10:11:00", "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]},
              {"start_time": "2017-10-01 10:20:00", "end_time": "2017-10-01 10:25:00", "detail": [{"ip": "m2", "gpus": ["gpu0", "gpu1"]}]}]},
{"status": "Killed", "vc": "v2", "jobid": "application_1506638472019_0002", "user": "b", "submitted_time": "2017-10-01 10:05:00",
 "attempts": [{"start_time": "2017-10-01 10:05:30", "end_time": "2017-10-01 11:05:30", "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "gpu6", "gpu7"]}, {"ip": "m2", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "gpu6", "gpu7"]}]}]},
{"status": "Failed", "vc": "v1", "jobid": "application_1506638472019_0003", "user": "a", "submitted_time": "2017-10-01 10:06:00", "attempts": []},
{"status": "Pass", "vc": "v1", "jobid": "application_1506638472019_0004", "user": "c", "submitted_time": "2017-10-01 10:07:00",
 "attempts": [{"start_time": "2017-10-01 10:08:00", "end_time": "None", "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]}
]
"#;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The three tiny traces ingested into a store (once per test run).
fn tiny_store() -> &'static Path {
    static STORE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    STORE.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export-tiny");
        let _ = std::fs::remove_dir_all(&dir);
        let raw = dir.join("raw");
        write(&raw.join("helios/Venus/cluster_log.csv"), HELIOS_LOG);
        write(&raw.join("helios/Venus/cluster_gpu_number.csv"), "date,vcX,vcY,total\n2020-09-01,16,16,32\n");
        for (name, text) in PAI {
            write(&raw.join("pai").join(name), text);
        }
        write(&raw.join("philly/cluster_job_log"), PHILLY_LOG);
        write(
            &raw.join("philly/cluster_machine_list"),
            "machineId, number of GPUs, single GPU mem\nm1,8, 12GB\nm2,8, 12GB\n",
        );
        let store = dir.join("store");
        tracelab_ok(&["ingest", s(&raw), "--out", s(&store), "--quiet"]);
        store
    })
}

/// Exports into a fresh temporary folder; returns (file text, stderr, folder).
fn export(store: &Path, args: &[&str]) -> (String, String, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut all = vec!["export", "--store", s(store), "-o", s(&out)];
    all.extend_from_slice(args);
    let (code, _, stderr) = tracelab(&all);
    assert_eq!(code, 0, "tracelab {all:?} failed:\n{stderr}");
    (std::fs::read_to_string(&out).unwrap(), stderr, tmp)
}

/// The SWF header lines other than notes, and the records.
fn swf_parts(text: &str) -> (Vec<&str>, Vec<&str>) {
    let header = text.lines().filter(|l| l.starts_with(';') && !l.starts_with("; Note:")).collect();
    let records = text.lines().filter(|l| !l.starts_with(';')).collect();
    (header, records)
}

// ---------------------------------------------------------------- by hand

/// Venus starts at 2020-09-01 00:00:00 Shanghai = 1598889600 (UTC+8). In
/// submission order (ties by id): 10, 12, 14, 13, 15, 16. Users uA=1, uC=2,
/// uB=3; groups and queues Venus/vcX=1, Venus/vcY=2; partition Venus=1.
/// Status COMPLETED 1, FAILED and TIMEOUT 0, CANCELLED 5. The from-trace
/// cluster: vcX and vcY, 16 GPUs each, 2 nodes of 8 each.
#[test]
fn swf_of_the_tiny_helios_trace_by_hand() {
    let (text, _, _tmp) = export(tiny_store(), &["--trace", "helios:Venus", "--to", "swf"]);
    let (header, records) = swf_parts(&text);
    assert_eq!(
        header[5..],
        [
            "; MaxJobs: 6",
            "; MaxRecords: 6",
            "; Preemption: No",
            "; UnixStartTime: 1598889600",
            "; TimeZoneString: Asia/Shanghai",
            "; MaxNodes: 4",
            "; MaxProcs: 32",
            "; MaxQueues: 2",
            "; Queue: 1 Venus/vcX",
            "; Queue: 2 Venus/vcY",
            "; MaxPartitions: 1",
            "; Partition: 1 Venus",
        ]
    );
    assert_eq!(header[0], "; Version: 2.2");
    assert_eq!(
        header[2..4],
        ["; Installation: helios:Venus", "; Information: https://github.com/S-Lab-System-Group/HeliosData"]
    );
    assert_eq!(
        records,
        [
            "1 0 10 3600 8 -1 -1 8 -1 -1 1 1 1 -1 1 1 -1 -1",
            "2 600 600 600 16 -1 -1 16 -1 -1 0 1 2 -1 2 1 -1 -1",
            "3 600 0 10200 2 -1 -1 2 -1 -1 0 2 1 -1 1 1 -1 -1",
            "4 7200 5 30 1 -1 -1 1 -1 -1 5 1 2 -1 2 1 -1 -1",
            "5 14400 0 600 4 -1 -1 4 -1 -1 1 3 1 -1 1 1 -1 -1",
            "6 18000 0 7200 128 -1 -1 128 -1 -1 1 2 1 -1 1 1 -1 -1",
        ]
    );
}

/// PAI tasks from 1000 s: jA/worker (2 x 0.5 GPU = 1 processor, mean run
/// (2000 + 2900) / 2 = 2450 s, wait 1060 - 1000 = 60 s), jB/tensorflow
/// (Failed: 0), jD/worker (0.25 GPU rounds up to 1), jE, jF. Groups: g1,
/// u2 (untagged: the user), g9, g2. PAI has no queue or partition. The
/// machines: 8 + 2 GPUs on 2 nodes.
#[test]
fn swf_of_the_tiny_pai_trace_by_hand() {
    let tmp = tempfile::tempdir().unwrap();
    let ids = tmp.path().join("ids.csv");
    let (text, _, _t) = export(tiny_store(), &["--trace", "pai", "--to", "swf", "--ids", s(&ids)]);
    let (header, records) = swf_parts(&text);
    assert!(header.contains(&"; UnixStartTime: 1000") && header.contains(&"; MaxProcs: 10"), "{header:?}");
    assert!(!header.iter().any(|h| h.starts_with("; MaxQueues")), "{header:?}");
    assert_eq!(
        records,
        [
            "1 0 60 2450 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1",
            "2 1000 30 6000 1 -1 -1 1 -1 -1 0 2 2 -1 -1 -1 -1 -1",
            "3 4000 10 490 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1",
            "4 8500 0 100 1 -1 -1 1 -1 -1 1 3 3 -1 -1 -1 -1 -1",
            "5 8800 5 190 1 -1 -1 1 -1 -1 1 1 4 -1 -1 -1 -1 -1",
        ]
    );
    assert_eq!(
        std::fs::read_to_string(&ids).unwrap(),
        "kind,number,name\njob,1,jA/worker\njob,2,jB/tensorflow\njob,3,jD/worker\njob,4,jE/worker\njob,5,jF/worker\n\
         user,1,u1\nuser,2,u2\nuser,3,u3\ngroup,1,g1\ngroup,2,u2\ngroup,3,g9\ngroup,4,g2\n"
    );
}

/// Predictions: the mean run time of the key's tasks that ended by the
/// submission, else the mean of all ended, else 0. Ends: jA/worker 4000
/// (2450 s), jD 5600 (490 s), jB 9000 (6000 s), jE 9600 (100 s).
/// - jA (1000), jB (2000): nothing ended: 0.
/// - jD (5000, u1, g1, V100): jA ended: 2450 for every key.
/// - jE (9500, u3): jA, jD, jB ended, none of u3: (2450 + 490 + 6000) / 3 = 2980.
/// - jF (9800, u1, g2, V100): jA, jD, jB, jE ended; u1: (2450 + 490) / 2 =
///   1470, also on V100; g2 has none: (2450 + 490 + 6000 + 100) / 4 = 2260.
#[test]
fn pai_sim_of_the_tiny_pai_trace_by_hand() {
    let (text, stderr, _t) = export(tiny_store(), &["--trace", "pai", "--to", "pai-sim"]);
    assert_eq!(
        text,
        "job_id,jobid,user,gpu_type,num_inst,num_gpu,num_cpu,submit_time,duration,wait_time,user_dur,user_gpu_dur,group_dur,group_gpu_dur\n\
         1,jA/worker,u1,V100,2,0.5,4,0,2450,60,0,0,0,0\n\
         2,jB/tensorflow,u2,T4,1,1,6,1000,6000,30,0,0,0,0\n\
         3,jD/worker,u1,V100,1,0.25,8,4000,490,10,2450,2450,2450,2450\n\
         4,jE/worker,u3,T4,1,1,1,8500,100,0,2980,2980,2980,2980\n\
         5,jF/worker,u1,V100,1,1,2,8800,190,5,1470,1470,2260,2260\n"
    );
    let acc = accounting(&stderr);
    assert_eq!(acc.get("written"), Some(&5));
    assert_eq!(acc.get("not finished when the trace ended"), Some(&1));
    assert_eq!(acc.get("asks for no GPU"), Some(&1));
    assert_eq!(acc.get("rows read"), Some(&7));
}

/// Helios rows keep the trace's wall clock, VC and state; Philly's get
/// Helios' state names (Pass COMPLETED, Killed CANCELLED), the Pacific wall
/// clock, the attempts' total run time (600 + 300 s) and no CPUs.
#[test]
fn helios_sim_of_the_tiny_traces_by_hand() {
    let (text, _, _t) = export(tiny_store(), &["--trace", "helios:Venus", "--to", "helios-sim"]);
    assert_eq!(
        text,
        "job_id,user,vc,jobname,gpu_num,cpu_num,state,submit_time,duration\n\
         1,uA,vcX,Venus/10,8,32,COMPLETED,2020-09-01 00:00:00,3600\n\
         2,uA,vcY,Venus/12,16,64,FAILED,2020-09-01 00:10:00,600\n\
         3,uC,vcX,Venus/14,2,8,TIMEOUT,2020-09-01 00:10:00,10200\n\
         4,uA,vcY,Venus/13,1,8,CANCELLED,2020-09-01 02:00:00,30\n\
         5,uB,vcX,Venus/15,4,16,COMPLETED,2020-09-01 04:00:00,600\n\
         6,uC,vcX,Venus/16,128,512,COMPLETED,2020-09-01 05:00:00,7200\n"
    );
    let (text, _, _t) = export(tiny_store(), &["--trace", "philly", "--to", "helios-sim"]);
    assert_eq!(
        text,
        "job_id,user,vc,jobname,gpu_num,cpu_num,state,submit_time,duration\n\
         1,a,v1,application_1506638472019_0001,4,,COMPLETED,2017-10-01 10:00:00,900\n\
         2,b,v2,application_1506638472019_0002,16,,CANCELLED,2017-10-01 10:05:00,3600\n"
    );
}

/// GPU-hours: 10: 8 x 1 h = 8 (1-10: deepspeech2), 12: 16 x 600 s = 2.67
/// (bert, the class's second), 14: 2 x 10200 s = 5.67 (deepspeech2 again),
/// 13: 30 s (< 1: cifar10), 15: 4 x 600 s = 0.67 (ncf), 16: 128 x 2 h = 256
/// (imagenet, replicas capped at 64). Batch = smallest profiled x replicas,
/// at most the largest: 20 x 8, 12 x 16, 20 x 2, 128, 256 x 4, 12800.
#[test]
fn pollux_of_the_tiny_traces_by_hand() {
    let (text, stderr, _t) = export(tiny_store(), &["--trace", "helios:Venus", "--to", "pollux"]);
    assert_eq!(
        text,
        "name,time,application,num_replicas,batch_size,trace_job_id,trace_gpus,trace_duration_s\n\
         deepspeech2-0,0,deepspeech2,8,160,Venus/10,8,3600\n\
         bert-1,600,bert,16,192,Venus/12,16,600\n\
         deepspeech2-2,600,deepspeech2,2,40,Venus/14,2,10200\n\
         cifar10-3,7200,cifar10,1,128,Venus/13,1,30\n\
         ncf-4,14400,ncf,4,1024,Venus/15,4,600\n\
         imagenet-5,18000,imagenet,64,12800,Venus/16,128,7200\n"
    );
    assert!(stderr.contains("num_replicas capped at 64"), "{stderr}");
    // Philly job 1: 4 GPUs x 900 s = exactly 1 GPU-hour (class 1-10).
    let (text, _, _t) = export(tiny_store(), &["--trace", "philly", "--to", "pollux"]);
    assert_eq!(
        text,
        "name,time,application,num_replicas,batch_size,trace_job_id,trace_gpus,trace_duration_s\n\
         deepspeech2-0,0,deepspeech2,4,80,application_1506638472019_0001,4,900\n\
         yolov3-1,300,yolov3,16,128,application_1506638472019_0002,16,3600\n"
    );
}

// ---------------------------------------------------------------- read back

/// The accounting table on stderr as {outcome: jobs}, reasons without the
/// `left out: ` prefix.
fn accounting(stderr: &str) -> std::collections::BTreeMap<String, u64> {
    let section = stderr.split("[accounting]").nth(1).expect("an accounting part");
    let section = section.split("\n\n").next().unwrap();
    section
        .lines()
        .filter(|l| l.contains('┆'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('│').split('┆').map(str::trim).collect();
            let n = cells.get(1)?.parse().ok()?;
            Some((cells[0].trim_start_matches("left out: ").to_string(), n))
        })
        .collect()
}

/// Exports with `args`, reads the file back with the Python checker (which
/// recomputes the selection, every column and the accounting from the
/// store) and compares its accounting with the one tracelab printed.
fn read_back(store: &Path, format: &str, trace: &str, window: &str, sample: Option<&str>) {
    let tmp = tempfile::tempdir().unwrap();
    let (out, ids) = (tmp.path().join("out"), tmp.path().join("ids.csv"));
    let mut args =
        vec!["export", "--store", s(store), "--trace", trace, "--to", format, "-o", s(&out), "--window", window];
    let mut check =
        vec!["--format", format, "--file", s(&out), "--store", s(store), "--trace", trace, "--window", window];
    if format == "swf" {
        args.extend(["--ids", s(&ids)]);
        check.extend(["--ids", s(&ids)]);
    }
    if let Some(n) = sample {
        args.extend(["--sample", n, "--seed", "7"]);
        check.extend(["--sample", n]);
    }
    let (code, _, stderr) = tracelab(&args);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    let summary: serde_json::Value =
        serde_json::from_str(python("tests/crosscheck/export_readback.py", &check).trim()).unwrap();
    let ours = accounting(&stderr);
    assert_eq!(ours["written"], summary["written"].as_u64().unwrap(), "{format} {trace}");
    assert_eq!(ours["rows read"], summary["rows"].as_u64().unwrap(), "{format} {trace}");
    for (reason, n) in summary["left_out"].as_object().unwrap() {
        assert_eq!(ours.get(reason), Some(&n.as_u64().unwrap()), "{format} {trace}: {reason}\n{stderr}");
    }
    let left: u64 = summary["left_out"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(ours["written"] + left, ours["rows read"], "{format} {trace}: rows in = written + left out");
}

#[test]
fn every_format_of_the_tiny_store_reads_back() {
    for format in ["swf", "pai-sim", "helios-sim", "pollux"] {
        for trace in ["pai", "philly", "helios:Venus"] {
            read_back(tiny_store(), format, trace, "all", None);
        }
    }
}

#[test]
fn swf_of_the_samples_reads_back() {
    for trace in ["pai", "philly", "helios"] {
        read_back(sample_store(), "swf", trace, "all", None);
    }
    read_back(sample_store(), "swf", "philly", "busiest:8h", Some("20"));
}

#[test]
fn pai_sim_of_the_samples_reads_back() {
    read_back(sample_store(), "pai-sim", "pai", "all", None);
    read_back(sample_store(), "pai-sim", "helios:Venus", "busiest:1d", Some("30"));
}

#[test]
fn helios_sim_of_the_samples_reads_back() {
    read_back(sample_store(), "helios-sim", "helios:Venus", "all", None);
    read_back(sample_store(), "helios-sim", "philly", "all", None);
}

/// The issue's example: 160 jobs of Philly's busiest 8 hours (the samples
/// hold fewer, so all of the window's are written).
#[test]
fn pollux_of_the_samples_reads_back() {
    read_back(sample_store(), "pollux", "philly", "busiest:8h", Some("160"));
    read_back(sample_store(), "pollux", "pai", "all", None);
}

// ---------------------------------------------------------------- behaviour

#[test]
fn the_same_selection_gives_the_same_bytes_and_stdout_equals_the_file() {
    let args = ["--trace", "philly", "--window", "busiest:1d", "--sample", "15", "--seed", "3", "--to", "swf"];
    let (a, _, _t1) = export(sample_store(), &args);
    let (b, _, _t2) = export(sample_store(), &args);
    assert_eq!(a, b);
    let mut all = vec!["export", "--store", s(sample_store()), "-o", "-"];
    all.extend_from_slice(&args);
    assert_eq!(tracelab_ok(&all), a);
}

/// Runs export expecting a usage error; returns stderr.
fn usage_error<S: AsRef<str>>(args: &[S]) -> String {
    let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
    let (code, stdout, stderr) = tracelab(&args);
    assert_eq!(code, 2, "{args:?} should be a usage error\nstdout: {stdout}\nstderr: {stderr}");
    stderr
}

#[test]
fn bad_requests_are_usage_errors_naming_the_option() {
    let store = s(tiny_store());
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.swf");
    let o = s(&out);
    let base = ["export", "--store", store, "--trace", "philly", "-o", o];
    let with =
        |extra: &[&str]| -> Vec<String> { base.iter().chain(extra).map(std::string::ToString::to_string).collect() };
    let e = usage_error(&with(&["--to", "slurm"]));
    // A typed choice: clap refuses it and lists the formats.
    assert!(e.contains("invalid value 'slurm' for '--to <FORMAT>'"), "{e}");
    assert!(e.contains("[possible values: swf, pai-sim, helios-sim, pollux]"), "{e}");
    let e = usage_error(&with(&["--to", "swf", "--window", "2030-01-01T00:00:00Z.."]));
    assert!(e.contains("--window") && e.contains("no job"), "{e}");
    let e = usage_error(&with(&["--to", "swf", "--sample", "0"]));
    assert!(e.contains("--sample 0"), "{e}");
    let ids = tmp.path().join("ids.csv");
    let e = usage_error(&with(&["--to", "pollux", "--ids", s(&ids)]));
    assert!(e.contains("--ids"), "{e}");
    // The tiny store holds Venus only.
    let e = usage_error(&["export", "--store", store, "--trace", "helios:Earth", "--to", "swf", "-o", o]);
    assert!(e.contains("--trace helios:Earth: no job can be exported: of 0 rows"), "{e}");
    let e = usage_error(&["export", "--store", store, "--trace", "helios:Mars", "--to", "swf", "-o", o]);
    assert!(e.contains("--trace helios:Mars"), "{e}");
    let e = usage_error(&["export", "--store", store, "--trace", "philly", "--to", "swf", "-o", "/nonexistent/dir/x"]);
    assert!(e.contains("-o /nonexistent/dir/x") && e.contains("does not exist"), "{e}");
    assert!(!out.exists(), "no file is written on a usage error");
}

#[test]
fn an_existing_file_is_kept_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("jobs.csv");
    std::fs::write(&out, "mine\n").unwrap();
    let args = ["export", "--store", s(tiny_store()), "--trace", "philly", "--to", "pollux", "-o", s(&out)];
    let e = usage_error(&args);
    assert!(e.contains(&format!("-o {}", out.display())) && e.contains("--force"), "{e}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine\n");
    tracelab_ok(&[&args[..], &["--force"]].concat());
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("name,time,application"));
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no partial file left: {leftovers:?}");
}

/// HeliosArtifact simulates one cluster (one `vc_dict_homo.pkl`): a
/// selection over several Helios clusters is refused.
#[test]
fn helios_sim_refuses_several_helios_clusters() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("cluster_log.csv");
    let e = usage_error(&[
        "export",
        "--store",
        s(sample_store()),
        "--trace",
        "helios",
        "--to",
        "helios-sim",
        "-o",
        s(&out),
    ]);
    assert!(e.contains("--to helios-sim") && e.contains("helios:CLUSTER"), "{e}");
}

#[test]
fn the_help_names_every_format() {
    let help = tracelab_ok(&["export", "--help"]);
    for f in ["swf", "pai-sim", "helios-sim", "pollux"] {
        assert!(help.contains(f), "{f} missing from\n{help}");
    }
    assert!(root().join("docs/export.md").exists(), "the help points to docs/export.md");
}

/// `--recipe pollux` writes the workload Pollux's generator draws: read
/// back by `simulate`, it replays exactly as the recipe replayed directly;
/// every time is a second of the kept hours [0, 8 h) after the shift, and
/// names follow time order as the artifact's generator names them.
#[test]
fn pollux_recipe_export_replays_as_the_recipe() {
    let store = sample_store();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("w.csv");
    let base = ["--store", s(store), "--trace", "philly", "--seed", "3"];
    tracelab_ok(&[&["export"][..], &base, &["--recipe", "pollux", "--to", "pollux", "-o", s(&file)]].concat());
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("name,time,application,num_replicas,batch_size,trace_job_id"));
    let mut last = 0;
    for (i, line) in lines.enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        let t: i64 = f[1].parse().unwrap();
        assert!((last..8 * 3600).contains(&t), "{line}");
        assert_eq!(f[0], format!("{}-{i}", f[2]));
        last = t;
    }
    let summary = |args: &[&str]| -> serde_json::Value {
        let v: serde_json::Value = serde_json::from_str(&tracelab_ok(args)).unwrap();
        v["parts"][0]["rows"][0].clone()
    };
    let direct = summary(
        &[&["simulate"][..], &base, &["--recipe", "pollux", "--policy", "tiresias", "--format", "json"]].concat(),
    );
    let read = summary(&["simulate", "--jobs", s(&file), "--policy", "tiresias", "--format", "json"]);
    assert_eq!(direct, read);
    let (code, _, err) =
        tracelab(&[&["export"][..], &base, &["--recipe", "pollux", "--to", "swf", "-o", "-"]].concat());
    assert_eq!(code, 2, "{err}");
}
