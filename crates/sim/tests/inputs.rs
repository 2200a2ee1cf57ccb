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
    assert_eq!(e, "unknown policy `lifo`; valid names: fifo, sjf, srtf, sjf-predicted, qssf, las, fair");
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
    assert_eq!(err("submit_s,duration_s,gpus\n0,5\n"), "line 2, column ``: expected 3 fields, found 2");
    assert_eq!(err("submit_s,duration_s,gpus\n"), "the workload has no jobs");
    assert_eq!(err(""), "line 1, column ``: no header row");
}

/// Admission keeps one verdict per distinct (GPUs, CPUs, GPU type) demand
/// (`check_job` scans every node): each job must still get its own verdict.
/// Nodes: 2 of 4 GPUs type 0 with 8 cores, 1 of 8 GPUs type 1 without a CPU
/// count. Jobs cycle through kinds that fit, need too many GPUs of their type,
/// a type no node has, or too many CPUs.
#[test]
fn admission_verdicts_are_per_job_whatever_the_demand_kind() {
    let cluster = Cluster::from_nodes(vec![
        Node { gpus: 4, cpu_milli: Some(8000), gpu_type: 0 },
        Node { gpus: 4, cpu_milli: Some(8000), gpu_type: 0 },
        Node { gpus: 8, cpu_milli: None, gpu_type: 1 },
    ])
    .unwrap();
    let kinds: [(f64, Option<u32>, Option<u16>); 6] = [
        (2.0, None, Some(0)),
        (9.0, None, Some(0)),
        (1.0, None, Some(2)),
        (4.0, Some(9000), Some(0)),
        (4.0, Some(9000), None),
        (16.0, None, None),
    ];
    let jobs: Vec<Job> = (0..60)
        .map(|i| {
            let (g, cpu, ty) = kinds[i % kinds.len()];
            Job { cpu_milli: cpu, gpu_type: ty, ..job(i as u32, i as i64, 10, g) }
        })
        .collect();
    let w = Workload { n_gpu_types: 3, ..Workload::from_jobs(jobs) };
    let cfg = SimConfig { on_unplaceable: OnUnplaceable::Skip, ..SimConfig::default() };
    let r = simulate(&w, &cluster, &cfg).unwrap();
    for (j, res) in w.jobs.iter().zip(&r.jobs) {
        let expected = match cluster.check_job(j) {
            Ok(()) => JobStatus::Done,
            Err(reason) => JobStatus::Unplaceable(reason),
        };
        assert_eq!(res.status, expected, "job {}", j.id);
    }
    // By hand: kind 0 runs; 1 needs 9 of type 0's 8 GPUs; 2 a type no node
    // has; 3 nine cores on type-0 nodes of eight; 4 runs on the type-1 node
    // (no CPU count); 5 takes all three nodes (8 + 4 + 4 = 16 GPUs). Kinds 0,
    // 4 and 5 are 30 of the 60 jobs.
    let done = r.jobs.iter().filter(|j| j.status == JobStatus::Done).count();
    assert_eq!(done, 30);
}
