//! Wrong answers that used to come back with success, and the ceilings that
//! replace them: stale wake-ups stretching a run (utilisation), completion
//! times past the clock, options beyond what the clock can count.

mod common;

use common::{config, job, run};
use tracelab_sim::time::MAX_CLOCK;
use tracelab_sim::*;

/// One 1-GPU job of 100 s on one GPU: it holds the only GPU from its
/// submission (0 s) to the last event (its end, 100 s), so the utilisation is
/// 100 GPU-s / (1 GPU x 100 s) = 1, under every policy. Under `las` a
/// wake-up for the job's demotion at 3,600 GPU-s (Tiresias' default
/// threshold) stayed in the event queue after the job ended and stretched
/// the run to 3,600 s: 100 / 3,600 = 0.028.
#[test]
fn utilisation_ends_at_the_last_real_event_under_every_policy() {
    for &policy in Policy::ALL {
        let cfg = config(policy, Discipline::Greedy, Placement::Pack);
        let r = run(&cfg, 1, 1, vec![job(0, 0, 100, 1.0)]);
        assert_eq!(r.summary.gpu_utilisation, 1.0, "{policy}");
        assert_eq!(r.summary.makespan_ms, 100_000, "{policy}");
        // One arrival and one completion (plus the pass LAS holds at 3,600 s,
        // which is never reached).
        assert_eq!(r.summary.events, 2, "{policy}");
        assert_eq!(r.series.time.last(), Some(&100_000), "{policy}: the series ends at the last completion");
    }
}

/// Two 1-GPU jobs on one GPU, 100 s (submitted at 0) and 50 s (at 0): under
/// `las` both sit in the first queue (attained service below 3,600 GPU-s),
/// so they run in submission order, 0-100 s and 100-150 s. The GPU is busy
/// the whole 150 s: utilisation 150 / 150 = 1 (it read 150 / 3,600 = 0.042).
#[test]
fn las_utilisation_of_a_full_schedule_is_one() {
    let cfg = config(Policy::Las, Discipline::Greedy, Placement::Pack);
    let r = run(&cfg, 1, 1, vec![job(0, 0, 100, 1.0), job(1, 0, 50, 1.0)]);
    common::assert_times(&r, &[(0, 100), (100, 150)]);
    assert_eq!(r.summary.gpu_utilisation, 1.0);
}

/// With a sharing slowdown of 1e300, two half-GPU jobs sharing one GPU would
/// end 1e305 ms later: past the clock (2^62 ms). This used to wrap the clock
/// (a makespan of i64::MAX ms, utilisation 0, exit 0); now the run fails
/// naming the first job whose completion was computed (job 0, re-timed when
/// job 1 joins its GPU).
#[test]
fn a_completion_past_the_clock_is_an_error_naming_the_job() {
    let cfg = SimConfig { share_slowdown: 1e300, ..config(Policy::Fifo, Discipline::Greedy, Placement::Pack) };
    let w = Workload::from_jobs(vec![job(0, 0, 100, 0.5), job(1, 0, 100, 0.5)]);
    let e = simulate(&w, &Cluster::homogeneous(1, 1).unwrap(), &cfg).unwrap_err().to_string();
    assert!(e.starts_with("job 0: its completion would come 1.000e305 ms after 0 ms"), "{e}");
    assert!(e.contains(&format!("past the clock's limit of {MAX_CLOCK} ms")), "{e}");
    // A slowdown whose completion still fits the clock is a result:
    // 100 s x 1e10 = 1e15 ms after the start.
    let cfg = SimConfig { share_slowdown: 1e10, ..cfg };
    let r = simulate(&w, &Cluster::homogeneous(1, 1).unwrap(), &cfg).unwrap();
    assert_eq!(r.jobs[0].end, Some(1_000_000_000_000_000));
}

/// Options the clock cannot count are refused before the run.
#[test]
fn options_beyond_the_clock_are_refused() {
    let base = SimConfig::default();
    let bad = |c: SimConfig| c.validate().unwrap_err().to_string();
    let las = SimConfig { policy: Policy::Las, las_thresholds_gpu_s: vec![1.0, 2e12], ..base.clone() };
    assert!(bad(las).contains("at most 1e12 GPU-seconds"));
    for ms in [-1, 100_000_000_000_001] {
        let c = SimConfig { preempt_overhead: PreemptOverhead::Fixed(ms), ..base.clone() };
        assert!(bad(c).contains("between 0 and 1e14 ms"), "{ms}");
    }
    let c = SimConfig { until: Some(i64::MAX), ..base.clone() };
    assert!(bad(c).contains("until must lie within 1e14 ms"));
    let ok = SimConfig { until: Some(100_000_000_000_000), las_thresholds_gpu_s: vec![1e12], ..base };
    ok.validate().unwrap();
}

/// A cluster's size is checked from its groups' counts before a node is made:
/// 100 M nodes (a 37-byte cluster file grew past 8.7 GB) and 4 x 10^9 nodes
/// (a 64 GB allocation) are refused at once, naming the limit.
#[test]
fn clusters_beyond_the_node_and_gpu_ceilings_are_refused_before_allocation() {
    let g = |count, gpus| NodeGroup { count, gpus, cpu_milli: None, gpu_type: 0 };
    let e = Cluster::from_groups(&[g(100_000_000, 8)]).unwrap_err().to_string();
    assert_eq!(e, "100000000 nodes, more than the limit of 1000000");
    let e = Cluster::homogeneous(4_000_000_000, 1).unwrap_err().to_string();
    assert_eq!(e, "4000000000 nodes, more than the limit of 1000000");
    // GPUs add up over groups: 600,000 nodes of 8 and 400,000 of 16.
    let e = Cluster::from_groups(&[g(600_000, 8), g(400_000, 16)]).unwrap_err().to_string();
    assert_eq!(e, "11200000 GPUs, more than the limit of 10000000");
    // One node of 2^32 - 1 GPUs.
    let e = Cluster::homogeneous(1, u32::MAX).unwrap_err().to_string();
    assert_eq!(e, "4294967295 GPUs, more than the limit of 10000000");
    // The ceilings can be set, within what 32-bit ids allow.
    let small = Limits::new(10, 40).unwrap();
    assert!(Cluster::from_groups_within(&[g(10, 4)], &small).is_ok());
    assert_eq!(
        Cluster::from_groups_within(&[g(11, 1)], &small).unwrap_err().to_string(),
        "11 nodes, more than the limit of 10"
    );
    assert_eq!(
        Cluster::from_groups_within(&[g(5, 9)], &small).unwrap_err().to_string(),
        "45 GPUs, more than the limit of 40"
    );
    assert!(Limits::new(1 << 31, 10).is_err());
    assert!(Limits::new(10, 1 << 32).is_err());
    // A cluster read back from JSON goes through the same checks.
    let e = serde_json::from_str::<Cluster>(r#"{"nodes":[{"gpus":0,"cpu_milli":null,"gpu_type":0}]}"#).unwrap_err();
    assert!(e.to_string().contains("node 0 has no GPU"), "{e}");
}

/// GPU-type ids are 16 bits: 65,535 distinct types are kept apart (a job
/// pinned to the last one runs on the node of that type), and a 65,536th is
/// refused at its line. It used to wrap to the first type.
#[test]
fn the_gpu_type_past_the_ceiling_is_refused_at_its_line() {
    let rows: String = (0..65_535).map(|i| format!("0,10,1,t{i}\n")).collect();
    let list = csv::read_jobs(std::io::Cursor::new(format!("submit_s,duration_s,gpus,gpu_type\n{rows}"))).unwrap();
    assert_eq!(list.workload.n_gpu_types, 65_535);
    assert_eq!(list.workload.jobs[65_534].gpu_type, Some(65_534));
    let text = format!("submit_s,duration_s,gpus,gpu_type\n{rows}0,10,1,t65535\n0,10,1,t0\n");
    let e = csv::read_jobs(std::io::Cursor::new(text)).unwrap_err().to_string();
    assert_eq!(e, "line 65537, column `gpu_type`: 65536 GPU types, more than the limit of 65535");
    // The last type is a type of its own: on a cluster with one node of the
    // first type and one of the last, the job pinned to the last runs on node 1.
    let mut w = list.workload.clone();
    w.jobs = vec![Job { id: 0, ..w.jobs[65_534].clone() }];
    let g = |gpu_type| NodeGroup { count: 1, gpus: 1, cpu_milli: None, gpu_type };
    let cluster = Cluster::from_groups(&[g(0), g(65_534)]).unwrap();
    let r = simulate(&w, &cluster, &SimConfig::default()).unwrap();
    assert_eq!(r.jobs[0].first_node, Some(1));
}
