//! Bad input gives clear typed errors: unknown names, impossible clusters and
//! jobs, empty workloads, malformed CSV rows; and the CSV job list round-trips.

mod common;
use common::*;
use std::io::Cursor;
use tracelab_sim::csv::{read_jobs, write_jobs};
use tracelab_sim::*;

#[test]
fn unknown_names_list_the_valid_ones() {
    let e = "lifo".parse::<Policy>().unwrap_err().to_string();
    assert_eq!(
        e,
        "unknown policy `lifo`; valid names: fifo, sjf, srtf, sjf-predicted, qssf, las, fair, priority, \
         exclusive, time-sharing, priority-time-sharing, horus, muxflow"
    );
    let e = "tight".parse::<Placement>().unwrap_err().to_string();
    assert!(e.contains("pack, spread, first-fit, random, least-shared"), "{e}");
    assert!("lazy".parse::<Discipline>().unwrap_err().to_string().contains("strict, greedy, easy"));
    for p in Policy::ALL {
        assert_eq!(p.name().parse::<Policy>().unwrap(), *p);
    }
}

#[test]
fn impossible_clusters_are_rejected() {
    assert!(matches!(Cluster::homogeneous(0, 8), Err(SimError::BadCluster(_))));
    let e = Cluster::homogeneous(2, 0).unwrap_err().to_string();
    assert_eq!(e, "bad cluster: node 0 has no GPU");
}

#[test]
fn a_job_larger_than_the_cluster_is_named() {
    let cluster = Cluster::homogeneous(2, 4).unwrap();
    let w = Workload::from_jobs(vec![job(0, 0, 10, 2.0), job(1, 0, 10, 9.0)]);
    let e = simulate(&w, &cluster, &SimConfig::default()).unwrap_err();
    assert_eq!(e.to_string(), "job 1 can never run: needs 9 GPUs but the nodes it may use have 8 in total");
}

#[test]
fn a_gpu_type_no_node_has_is_named() {
    let cluster = Cluster::homogeneous(1, 4).unwrap();
    let mut j = job(0, 0, 10, 1.0);
    j.gpu_type = Some(3);
    let w = Workload::from_jobs(vec![j]);
    let e = simulate(&w, &cluster, &SimConfig::default()).unwrap_err();
    assert_eq!(e.to_string(), "job 0 can never run: needs GPU type 3, which no node has");
}

/// With `skip`, impossible jobs are reported with their reasons and counted.
#[test]
fn skipped_jobs_are_reported_not_dropped() {
    let cluster = Cluster::homogeneous(1, 4).unwrap();
    let w = Workload::from_jobs(vec![job(0, 0, 10, 2.0), job(1, 0, 10, 5.0), job(2, 0, 10, 0.0), job(3, 1, 10, 6.0)]);
    let cfg = SimConfig { on_unplaceable: OnUnplaceable::Skip, ..SimConfig::default() };
    let r = simulate(&w, &cluster, &cfg).unwrap();
    assert_eq!(r.summary.jobs_done, 1);
    assert_eq!(r.summary.jobs_unplaceable, 3);
    let too_many = Unplaceable::TooManyGpus { need: 5, have: 4 };
    assert_eq!(r.jobs[1].status, JobStatus::Unplaceable(too_many.clone()));
    assert_eq!(r.jobs[2].status, JobStatus::Unplaceable(Unplaceable::NoGpuDemand));
    assert_eq!(
        r.summary.unplaceable_reasons,
        vec![(Unplaceable::NoGpuDemand, 1), (too_many, 1), (Unplaceable::TooManyGpus { need: 6, have: 4 }, 1)]
    );
}

#[test]
fn empty_and_inconsistent_workloads_are_rejected() {
    let cluster = Cluster::homogeneous(1, 4).unwrap();
    let e = simulate(&Workload::default(), &cluster, &SimConfig::default()).unwrap_err();
    assert!(matches!(e, SimError::EmptyWorkload));
    let w = Workload::from_jobs(vec![job(1, 0, 10, 1.0)]);
    let e = simulate(&w, &cluster, &SimConfig::default()).unwrap_err().to_string();
    assert_eq!(e, "job 1: id 1 at position 0 (ids must be positions)");
}

#[test]
fn bad_options_are_rejected() {
    let cluster = Cluster::homogeneous(1, 4).unwrap();
    let w = Workload::from_jobs(vec![job(0, 0, 10, 1.0)]);
    let cfg = SimConfig::new(Policy::Srtf, Discipline::Easy, Placement::Pack);
    assert!(matches!(simulate(&w, &cluster, &cfg), Err(SimError::BadOption(_))));
    let cfg = SimConfig { share_slowdown: 0.5, ..SimConfig::default() };
    assert!(matches!(simulate(&w, &cluster, &cfg), Err(SimError::BadOption(_))));
}

const LIST: &str = "job_id,submit_s,duration_s,gpus,cpus,user,vc,group,gpu_type
a,0,10,1,4,alice,vc1,g1,
b,1.5,20,0.5,,bob,vc1,g2,V100
c,2,30,8,,alice,vc2,g1,
";

#[test]
fn csv_job_list_reads_and_round_trips() {
    let list = read_jobs(Cursor::new(LIST)).unwrap();
    let w = &list.workload;
    assert_eq!(w.jobs.len(), 3);
    assert_eq!((w.jobs[1].submit, w.jobs[1].duration, w.jobs[1].gpu_milli), (1500, 20_000, 500));
    assert_eq!(w.jobs[0].cpu_milli, Some(4000));
    assert_eq!((w.jobs[2].user, w.jobs[2].vc, w.jobs[1].gpu_type), (0, 1, Some(0)));
    assert_eq!((w.n_users, w.n_vcs, w.n_groups, w.n_gpu_types), (2, 2, 2, 1));
    assert_eq!(list.job_ids, vec!["a", "b", "c"]);
    let mut out = Vec::new();
    write_jobs(&list, &mut out).unwrap();
    let again = read_jobs(Cursor::new(out)).unwrap();
    assert_eq!(again, list);
}

#[test]
fn csv_errors_name_line_and_column() {
    let err = |text: &str| read_jobs(Cursor::new(text.to_string())).unwrap_err().to_string();
    assert_eq!(err("submit_s,duration_s\n"), "line 1, column `gpus`: required column missing from the header");
    assert!(err("submit_s,duration_s,gpus,colour\n").starts_with("line 1, column `colour`: unknown column"));
    assert_eq!(
        err("submit_s,duration_s,gpus\n0,10,1\n0,ten,1\n"),
        "line 3, column `duration_s`: expected a number, found `ten`"
    );
    assert_eq!(
        err("submit_s,duration_s,gpus\n0,-5,1\n"),
        "line 2, column `duration_s`: expected a finite number >= 0, found `-5`"
    );
    assert_eq!(err("submit_s,duration_s,gpus\n0,5\n"), "line 2: expected 3 fields, found 2");
    assert_eq!(err("submit_s,duration_s,gpus\n"), "the workload has no jobs");
    assert_eq!(err(""), "line 1: no header row");
    assert_eq!(err("submit_s,gpus,duration_s,gpus\n"), "line 1, column `gpus`: column named twice");
    // Values the engine's millisecond clock and thousandths of a GPU could
    // not hold are refused, not clamped.
    assert_eq!(
        err("submit_s,duration_s,gpus\n0,10,1\n1e300,10,1\n"),
        "line 3, column `submit_s`: expected a number <= 1e11, found `1e300`"
    );
    assert_eq!(
        err("submit_s,duration_s,gpus\n-2e11,10,1\n"),
        "line 2, column `submit_s`: expected a finite number >= -100000000000, found `-2e11`"
    );
    assert_eq!(
        err("submit_s,duration_s,gpus\n0,9e15,1\n"),
        "line 2, column `duration_s`: expected a number <= 1e11, found `9e15`"
    );
    assert_eq!(
        err("submit_s,duration_s,gpus\n0,10,1e9\n"),
        "line 2, column `gpus`: expected a number <= 1e6, found `1e9`"
    );
    assert_eq!(
        err("submit_s,duration_s,gpus,cpus\n0,10,1,5e6\n"),
        "line 2, column `cpus`: expected a number <= 1e6, found `5e6`"
    );
    assert_eq!(
        err("submit_s,duration_s,gpus,user\n0,10,1,\"open\n"),
        "line 2: a quoted field is not closed before the end of the file"
    );
    // A quote left open does not take the rest of the file into one record.
    let open = format!("submit_s,duration_s,gpus,user\n0,10,1,u\n0,10,1,\"open\n{}", "0,10,1,u\n".repeat(200));
    assert_eq!(err(&open), "line 3: a quoted field is not closed within 100 lines or 64 KiB");
}

/// GPU usage columns: utilization 0-100 %, memory >= 0 GiB, class offline
/// or online; empty cells are unknown (or offline); bad values name the
/// line and column; the list round-trips with them.
#[test]
fn csv_usage_columns_read_check_and_round_trip() {
    let text = "submit_s,duration_s,gpus,gpu_util,gpu_mem_gib,class\n0,10,1,40,3.5,online\n1,10,0.5,,,\n";
    let list = read_jobs(Cursor::new(text)).unwrap();
    let u = &list.workload.usage;
    assert_eq!(u[0], Usage { gpu_util: Some(40.0), gpu_mem_gib: Some(3.5), class: JobClass::Online });
    assert_eq!(u[1], Usage::default());
    let mut out = Vec::new();
    write_jobs(&list, &mut out).unwrap();
    assert_eq!(read_jobs(Cursor::new(out)).unwrap(), list);
    // Without usage, neither the workload nor the written list has any.
    let plain = read_jobs(Cursor::new("submit_s,duration_s,gpus,class\n0,10,1,\n")).unwrap();
    assert!(plain.workload.usage.is_empty());
    let err = |row: &str| {
        let text = format!("submit_s,duration_s,gpus,gpu_util,gpu_mem_gib,class\n0,10,1,,,\n{row}\n");
        read_jobs(Cursor::new(text)).unwrap_err().to_string()
    };
    assert_eq!(err("0,10,1,101,,"), "line 3, column `gpu_util`: expected a number <= 100, found `101`");
    assert_eq!(err("0,10,1,-1,,"), "line 3, column `gpu_util`: expected a finite number >= 0, found `-1`");
    assert_eq!(err("0,10,1,,-2,"), "line 3, column `gpu_mem_gib`: expected a finite number >= 0, found `-2`");
    assert_eq!(err("0,10,1,,,batch"), "line 3, column `class`: expected offline or online, found `batch`");
}

/// What a spreadsheet or pandas writes: a byte-order mark, CRLF line ends,
/// quoted fields holding commas, quotes and a line break, a line of spaces.
#[test]
fn csv_reads_quoted_fields_a_byte_order_mark_and_crlf() {
    let text = "\u{feff}job_id,submit_s,duration_s,gpus,user,vc\r\n\
                \"a,1\",0,10,1,\"say \"\"hi\"\"\",vc1\r\n\
                \r\n\
                b, 1.5 ,20,2,\"two\r\nlines\",\" padded \"\r\n\
                c,3,30,0.5,plain,vc1\r\n";
    let list = read_jobs(Cursor::new(text)).unwrap();
    assert_eq!(list.job_ids, vec!["a,1", "b", "c"]);
    assert_eq!(list.users.names, vec!["say \"hi\"", "two\nlines", "plain"]);
    assert_eq!(list.vcs.names, vec!["vc1", " padded "]);
    let w = &list.workload;
    assert_eq!((w.jobs[1].submit, w.jobs[1].duration, w.jobs[1].gpu_milli), (1500, 20_000, 2000));
    assert_eq!((w.jobs[2].user, w.jobs[2].vc), (2, 0));
    // Written back, every name reads as itself.
    let mut out = Vec::new();
    write_jobs(&list, &mut out).unwrap();
    let again = read_jobs(Cursor::new(out)).unwrap();
    assert_eq!((again.job_ids, again.users, again.vcs), (list.job_ids, list.users, list.vcs));
}

/// A job of a million GPUs for the longest time a job list allows: its
/// attained service (GPU-milliseconds in thousandths, 1e23) is beyond an
/// i64. LAS still runs it to the end (the count stops at i64::MAX instead of
/// overflowing); a longer job is refused before the run.
#[test]
fn attained_service_beyond_an_i64_saturates() {
    let text = "submit_s,duration_s,gpus\n0,1e11,1000000\n1,10,1\n";
    let list = read_jobs(Cursor::new(text)).unwrap();
    let w = &list.workload;
    assert_eq!(w.jobs[0].duration, tracelab_sim::time::MAX_MILLIS);
    let cluster = Cluster::homogeneous(1, 1_000_000).unwrap();
    let r = simulate(w, &cluster, &config(Policy::Las, Discipline::Greedy, Placement::Pack)).unwrap();
    let ends: Vec<Option<i64>> = r.jobs.iter().map(|j| j.end).collect();
    // The small job preempts the big one at 1 s (it has attained nothing),
    // runs its 10 s, and the big one finishes the rest after it.
    assert_eq!(ends, [Some(tracelab_sim::time::MAX_MILLIS + 10_000), Some(11_000)]);
    let mut longer = w.clone();
    longer.jobs[1].duration = tracelab_sim::time::MAX_MILLIS + 1;
    assert!(longer.validate().unwrap_err().to_string().contains("times are limited to"));
}
