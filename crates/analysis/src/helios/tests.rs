//! Hand-worked tests of the Helios analyses on tiny stores; every expected
//! value is derived in the comment beside it.

use polars::prelude::*;

use super::cluster_summary::ClusterSummary;
use super::diurnal_submissions::DiurnalSubmissions;
use super::duration_vs_philly::DurationVsPhilly;
use super::final_status::FinalStatus;
use super::gpu_time_by_status::GpuTimeByStatus;
use super::job_size::JobSize;
use super::sequence::{cluster_sequence, Sequence};
use super::throughput::throughput;
use super::user_completion::{histogram10, UserCompletion};
use super::user_queue::UserQueue;
use super::user_time::UserTime;
use super::users::helios_lorenz;
use super::vc_utilization::{box_stats, VcUtilization};
use crate::frame::{f64s, i64s};
use crate::output::{Body, Cell, Output, ResultTable};
use crate::testkit::{self, store};
use tracelab_schema::{helios, philly};

/// 2020-04-01 00:00 Asia/Shanghai = 2020-03-31 16:00 UTC, in epoch seconds:
/// 18,353 days * 86,400 - 8 h.
const T0: i64 = 18_353 * 86_400 - 8 * 3600;
const DAY0: i32 = 18_353;

fn vc_gpus(days: &[i32], vcs: &[&str], gpus: &[i64]) -> DataFrame {
    let n = days.len();
    df!("cluster" => vec!["Venus"; n], "date" => days.to_vec(), "vc" => vcs.to_vec(), "gpus" => gpus.to_vec()).unwrap()
}

fn curve<'a>(out: &'a Output, part: &str, label: &str) -> &'a [(f64, f64)] {
    match &out.part(part).unwrap().body {
        Body::Curves { series, .. } => &series.iter().find(|s| s.0 == label).unwrap().1,
        _ => panic!("{part} is not curves"),
    }
}

fn table<'a>(out: &'a Output, part: &str) -> &'a ResultTable {
    match &out.part(part).unwrap().body {
        Body::Table(t) => t,
        _ => panic!("{part} is not a table"),
    }
}

#[test]
fn sequence_sweeps_inclusive_floored_minutes_and_caps() {
    // Capacity 4 GPUs on 2020-04-01 only. Jobs (local times):
    // A 2 GPUs 00:00:30..00:02:59 -> minutes 0,1,2; B 3 GPUs 00:02:00..00:03:10
    // -> minutes 2,3; C 1 GPU from the day before until 00:00:10 -> minute 0;
    // D a CPU job (ignored).
    let jobs = df!(
        "cluster" => ["Venus"; 4], "job_id" => [1i64, 2, 3, 4], "gpus" => [2i64, 3, 1, 0],
        "start_time" => [T0 + 30, T0 + 120, T0 - 3600, T0], "end_time" => [T0 + 179, T0 + 190, T0 + 10, T0 + 500],
        "submit_time" => [T0; 4]
    )
    .unwrap();
    let tiny = store(vec![(&helios::JOBS, jobs), (&helios::VC_GPUS, vc_gpus(&[DAY0], &["a"], &[4]))]);
    let df = cluster_sequence(&tiny.ctx, &["Venus".to_string()]).unwrap().limit(5).collect().unwrap();
    assert_eq!(df.height(), 5);
    // minute 0: A + C = 2 jobs, 3 GPUs, 3/4 = 0.75; single (C) 1/4 = 0.25.
    // minute 1: A = 1 job, 2 GPUs, 0.5. minute 2: A + B = 2 jobs, 5 GPUs
    // capped at 4 -> 1.0; multi (A, B) 5/4 = 1.25 uncapped. minute 3: B, 0.75.
    // minute 4: nothing.
    assert_eq!(i64s(&df, "running_gpujob_num").unwrap(), [2, 1, 2, 1, 0].map(Some));
    assert_eq!(i64s(&df, "running_gpu_num").unwrap(), [3, 2, 4, 3, 0].map(Some));
    assert_eq!(f64s(&df, "gpu_utilization").unwrap(), [0.75, 0.5, 1.0, 0.75, 0.0].map(Some));
    assert_eq!(f64s(&df, "gpu_utilization_multi").unwrap(), [0.5, 0.5, 1.25, 0.75, 0.0].map(Some));
    assert_eq!(f64s(&df, "gpu_utilization_single").unwrap(), [0.25, 0.0, 0.0, 0.0, 0.0].map(Some));
    assert_eq!(i64s(&df, "total_gpu_num").unwrap(), [4; 5].map(Some));
}

#[test]
fn sequence_analysis_emits_one_point_per_grid_minute_with_capacity() {
    // Two days of capacity (3 GPUs each): 2 * 1440 points. One 1-GPU job
    // over local minutes 0..=59 of day 0: mean = 60 * round(1/3, 3) / 2880.
    let jobs = df!("cluster" => ["Venus"], "job_id" => [1i64], "gpus" => [1i64], "start_time" => [T0], "end_time" => [T0 + 59 * 60], "submit_time" => [T0]).unwrap();
    let tiny = store(vec![(&helios::JOBS, jobs), (&helios::VC_GPUS, vc_gpus(&[DAY0, DAY0 + 1], &["a", "a"], &[3, 3]))]);
    let out = testkit::run(&Sequence, &tiny, &[]);
    let pts = curve(&out, "sequence", "Venus");
    assert_eq!(pts.len(), 2880);
    assert_eq!(pts[59], (59.0, 0.333));
    assert_eq!(pts[60], (60.0, 0.0));
    let mean = out.all_headlines().find(|h| h.key == "Venus.mean").unwrap().value;
    assert!((mean - 60.0 * 0.333 / 2880.0).abs() < 1e-12);
}

#[test]
fn throughput_bins_are_half_open_ten_minutes_local() {
    // Submits at local 00:09:59 (bin 0), 00:10:00 and 00:19:59 (bin 1); a CPU
    // job at 00:00:00 counts in job_all only.
    let jobs = df!(
        "cluster" => ["Venus"; 4], "job_id" => [1i64, 2, 3, 4], "gpus" => [2i64, 1, 4, 0],
        "submit_time" => [T0 + 599, T0 + 600, T0 + 1199, T0]
    )
    .unwrap();
    let tiny = store(vec![(&helios::JOBS, jobs)]);
    let df = throughput(&tiny.ctx, &["Venus".to_string()], "submit")
        .unwrap()
        .sort(["bin"], Default::default())
        .collect()
        .unwrap();
    let b0 = i64::from(DAY0) * 144;
    assert_eq!(i64s(&df, "bin").unwrap(), [Some(b0), Some(b0 + 1)]);
    assert_eq!(i64s(&df, "submit_job_all").unwrap(), [Some(2), Some(2)]);
    assert_eq!(i64s(&df, "submit_gpu_job").unwrap(), [Some(1), Some(2)]);
    assert_eq!(i64s(&df, "submit_gpu_num").unwrap(), [Some(2), Some(5)]);
    // Diurnal: hour 0 has 3 GPU jobs over the 181 grid days.
    let out = testkit::run(&DiurnalSubmissions, &tiny, &[]);
    assert_eq!(curve(&out, "by-hour", "Venus")[0], (0.0, 3.0 / 181.0));
    assert_eq!(curve(&out, "by-hour", "Venus")[1], (1.0, 0.0));
}

#[test]
fn cluster_summary_follows_the_published_definitions() {
    // Six jobs: CPU (COMPLETED run 10 q 0), CPU (TIMEOUT 20 q 4), GPU 2
    // (COMPLETED 100 q 10), GPU 4 (CANCELLED 50 q 0), GPU 1 (NODE_FAIL 30 q 2),
    // GPU 1 (SUSPENDED 6 q 0).
    let jobs = df!(
        "cluster" => ["Venus"; 6], "job_id" => [1i64, 2, 3, 4, 5, 6], "gpus" => [0i64, 0, 2, 4, 1, 1],
        "state" => ["COMPLETED", "TIMEOUT", "COMPLETED", "CANCELLED", "NODE_FAIL", "SUSPENDED"],
        "run_s" => [10.0, 20.0, 100.0, 50.0, 30.0, 6.0], "queue_s" => [0.0, 4.0, 10.0, 0.0, 2.0, 0.0],
        "submit_time" => [T0; 6]
    )
    .unwrap();
    // Daily totals 15 and 16 -> mean 15.5 -> gpu_num 15.
    let gpus = vc_gpus(&[DAY0, DAY0, DAY0 + 1, DAY0 + 1], &["a", "b", "a", "b"], &[10, 5, 10, 6]);
    let tiny = store(vec![(&helios::JOBS, jobs), (&helios::VC_GPUS, gpus)]);
    let out = testkit::run(&ClusterSummary, &tiny, &[]);
    let t = table(&out, "summary");
    let published_header = PUBLISHED_HEADER.split(',').collect::<Vec<_>>();
    assert_eq!(t.columns, published_header);
    let expected = [
        // gpu_num, job_num, cpu_job_num, gpu_job_num
        Cell::Int(15),
        Cell::Int(6),
        Cell::Int(2),
        Cell::Int(4),
        // avg run cpu (10+20)/2, gpu (100+50+30+6)/4; avg queue cpu (0+4)/2, gpu (10+0+2+0)/4
        Cell::Float(15.0),
        Cell::Float(46.5),
        Cell::Float(2.0),
        Cell::Float(3.0),
        // avg_gpu_num (2+4+1+1)/4; medians: run cpu 15, gpu (30+50)/2, queue cpu 2, gpu (0+2)/2, gpus (1+2)/2
        Cell::Float(2.0),
        Cell::Float(15.0),
        Cell::Float(40.0),
        Cell::Float(2.0),
        Cell::Float(1.0),
        Cell::Float(1.5),
        // all: complete 2/6, cancel 1/6, fail (TIMEOUT, NODE_FAIL) 2/6; SUSPENDED in none
        Cell::Float(0.333),
        Cell::Float(0.167),
        Cell::Float(0.333),
        // cpu: 1/2, 0, 1/2; gpu: 1/4 each
        Cell::Float(0.5),
        Cell::Float(0.0),
        Cell::Float(0.5),
        Cell::Float(0.25),
        Cell::Float(0.25),
        Cell::Float(0.25),
        // GPU time: 2*100, 4*50, 1*30
        Cell::Float(200.0),
        Cell::Float(200.0),
        Cell::Float(30.0),
    ];
    assert_eq!(t.rows.len(), 2, "Venus and total");
    assert_eq!(t.rows[0][0], Cell::from("Venus"));
    assert_eq!(&t.rows[0][1..], &expected);
    assert_eq!(t.rows[1][0], Cell::from("total"));
    assert_eq!(&t.rows[1][1..], &expected);
}

const PUBLISHED_HEADER: &str = "id,gpu_num,job_num,cpu_job_num,gpu_job_num,avg_run_time_cpu,avg_run_time_gpu,avg_que_time_cpu,avg_que_time_gpu,avg_gpu_num,med_run_time_cpu,med_run_time_gpu,med_que_time_cpu,med_que_time_gpu,med_gpu_num,complete_rate,cancel_rate,fail_rate,complete_rate_cpu,cancel_rate_cpu,fail_rate_cpu,complete_rate_gpu,cancel_rate_gpu,fail_rate_gpu,complete_gpu_time,cancel_gpu_time,fail_gpu_time";

#[test]
fn duration_cdf_on_the_pow2_grid_and_gpu_time_by_status_with_philly() {
    // Helios GPU durations 1, 3, 3, 1000 (+ a CPU job): at t=1 25 %, t=2 25 %,
    // t=4 75 %, t=512 75 %, t=1024 100 %.
    let jobs = df!(
        "cluster" => ["Venus"; 5], "job_id" => [1i64, 2, 3, 4, 5], "gpus" => [1i64, 2, 1, 4, 0],
        "state" => ["COMPLETED", "CANCELLED", "FAILED", "COMPLETED", "FAILED"], "run_s" => [1.0, 3.0, 3.0, 1000.0, 7.0],
        "submit_time" => [T0; 5]
    )
    .unwrap();
    // Philly: Pass 2 GPUs * 10 s, Killed 1 * 30, Failed 5 * 10, a 0-GPU job ignored.
    let pj = df!("job_id" => ["a", "b", "c", "d"], "gpus" => [2i64, 1, 5, 0], "status" => ["Pass", "Killed", "Failed", "Pass"], "run_s" => [10.0, 30.0, 10.0, 99.0]).unwrap();
    let tiny = store(vec![(&helios::JOBS, jobs), (&philly::JOBS, pj)]);
    let out = testkit::run(&DurationVsPhilly, &tiny, &[]);
    let h = curve(&out, "cdf", "Helios");
    assert_eq!(h.len(), 22);
    assert_eq!([h[0].1, h[1].1, h[2].1, h[9].1, h[10].1], [25.0, 25.0, 75.0, 75.0, 100.0]);
    // Philly durations 10, 30, 10: at t=8 0 %, 16 2/3, 32 100 %.
    let p = curve(&out, "cdf", "Philly");
    assert_eq!([p[3].1, p[5].1], [0.0, 100.0]);
    assert!((p[4].1 - 200.0 / 3.0).abs() < 1e-12);
    // GPU time: Helios completed 1*1 + 4*1000 = 4001, cancelled 6, failed 3
    // (the CPU job has 0 GPUs): 4010 in all. Philly 20 / 30 / 50 of 100.
    let out = testkit::run(&GpuTimeByStatus, &tiny, &[]);
    let v = |k: &str| out.all_headlines().find(|h| h.key == k).unwrap().value;
    assert!((v("helios.completed") - 100.0 * 4001.0 / 4010.0).abs() < 1e-9);
    assert!((v("helios.failed") - 100.0 * 3.0 / 4010.0).abs() < 1e-9);
    assert_eq!([v("philly.completed"), v("philly.canceled"), v("philly.failed")], [20.0, 30.0, 50.0]);
}

#[test]
fn job_size_points_and_status_by_size() {
    // GPU jobs 1 (run 10), 2 (10), 8 (5), 128 (1): GPU time 10, 20, 40, 128 = 198.
    let jobs = df!(
        "cluster" => ["Venus"; 4], "job_id" => [1i64, 2, 3, 4], "gpus" => [1i64, 2, 8, 128],
        "state" => ["COMPLETED", "CANCELLED", "TIMEOUT", "COMPLETED"], "run_s" => [10.0, 10.0, 5.0, 1.0], "submit_time" => [T0; 4]
    )
    .unwrap();
    let tiny = store(vec![(&helios::JOBS, jobs)]);
    let out = testkit::run(&JobSize, &tiny, &[]);
    let j = curve(&out, "jobs", "Venus");
    // points 1,2,4,8,...,64,80: 25, 50, 50, 75 ... 75, 100 (80 = <= 2048)
    assert_eq!([j[0].1, j[1].1, j[2].1, j[3].1, j[11].1, j[12].1], [25.0, 50.0, 50.0, 75.0, 75.0, 100.0]);
    let g = curve(&out, "gpu-time", "Venus");
    assert_eq!([g[0].1, g[1].1, g[3].1, g[12].1], [1000.0 / 198.0, 3000.0 / 198.0, 7000.0 / 198.0, 100.0]);
    // By size: 1 GPU completed 100 %; 2 cancelled 100 %; 8 failed (TIMEOUT)
    // 100 %; 4 has no job; >= 64 completed.
    let out = testkit::run(&FinalStatus, &tiny, &[]);
    let t = table(&out, "by-size");
    assert_eq!(t.rows[0][2..], [Cell::Float(100.0), Cell::Float(0.0), Cell::Float(0.0)]);
    assert_eq!(t.rows[1][2..], [Cell::Float(0.0), Cell::Float(100.0), Cell::Float(0.0)]);
    assert_eq!(t.rows[3][2..], [Cell::Float(0.0), Cell::Float(0.0), Cell::Float(100.0)]);
    assert_eq!(t.rows[2][1], Cell::Int(0));
    assert_eq!(t.rows[6][2], Cell::Float(100.0));
}

#[test]
fn lorenz_and_histogram_follow_the_notebooks() {
    // Descending 6, 3, 1, 0 of 10: y 60, 90, 100, 100 at x = linspace(0, 100, 4).
    let l = helios_lorenz(&[1.0, 3.0, 0.0, 6.0]);
    let want = [(0.0, 60.0), (100.0 / 3.0, 90.0), (200.0 / 3.0, 100.0), (100.0, 100.0)];
    for (a, b) in l.iter().zip(want) {
        assert!((a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-12, "{a:?} vs {b:?}");
    }
    // Edges 0, 10, .., 100: 0 -> bin 0, 25 -> bin 2, 50 -> bin 5, 100 twice -> the last (closed) bin.
    let h = histogram10(&[0.0, 50.0, 100.0, 100.0, 25.0]);
    let counts: Vec<u64> = h.iter().map(|b| b.2).collect();
    assert_eq!(counts, [1, 0, 1, 0, 0, 1, 0, 0, 0, 2]);
    assert_eq!((h[9].0, h[9].1), (90.0, 100.0));
}

#[test]
fn user_analyses_aggregate_per_user() {
    // Venus users: u1 GPU 2*100 = 200 GPU-s, queue 5; u2 GPU 1*50 = 50, queue 15,
    // plus a CPU job 4 CPUs * 10 = 40 CPU-s; u3 CPU only 1 * 60 = 60 CPU-s.
    let jobs = df!(
        "cluster" => ["Venus"; 4], "job_id" => [1i64, 2, 3, 4], "user" => ["u1", "u2", "u2", "u3"],
        "gpus" => [2i64, 1, 0, 0], "cpus" => [8i64, 4, 4, 1], "state" => ["COMPLETED", "FAILED", "COMPLETED", "COMPLETED"],
        "run_s" => [100.0, 50.0, 10.0, 60.0], "queue_s" => [5.0, 15.0, 1.0, 1.0], "submit_time" => [T0; 4]
    )
    .unwrap();
    let tiny = store(vec![(&helios::JOBS, jobs)]);
    let out = testkit::run(&UserTime, &tiny, &[]);
    // GPU time 200, 50, 0 of 250: 80, 100, 100 at x 0, 50, 100.
    assert_eq!(curve(&out, "gpu-time", "Venus"), [(0.0, 80.0), (50.0, 100.0), (100.0, 100.0)]);
    // CPU-only time: u3 60, u2 40, u1 0 of 100.
    assert_eq!(curve(&out, "cpu-time", "Venus"), [(0.0, 60.0), (50.0, 100.0), (100.0, 100.0)]);
    let out = testkit::run(&UserQueue, &tiny, &[]);
    assert_eq!(curve(&out, "gpu-queue", "Venus"), [(0.0, 75.0), (50.0, 100.0), (100.0, 100.0)]);
    // Completion: u1 100 %, u2 0 %, u3 (CPU only) 0 %: 2 users in bin 0, 1 in bin 9.
    let out = testkit::run(&UserCompletion, &tiny, &[]);
    let t = table(&out, "histogram");
    assert_eq!((t.rows[0][2].clone(), t.rows[9][2].clone()), (Cell::Int(2), Cell::Int(1)));
    let out = testkit::run(&UserCompletion, &tiny, &[("include-cpu-only-users", "false")]);
    let t = table(&out, "histogram");
    assert_eq!((t.rows[0][2].clone(), t.rows[9][2].clone()), (Cell::Int(1), Cell::Int(1)));
}

#[test]
fn vc_utilization_ranks_ties_in_file_order_and_boxes_the_minutes() {
    // Earth on 2020-05-01 (day 18,383): vcb 8, vca 8, vcz 0, vcc 4 -> top 2 =
    // vcb, vca (file order, not alphabetical). May has 31 days; excluding day
    // 10 leaves 30 * 1440 minutes.
    let may1 = DAY0 + 30;
    let gpus = df!(
        "cluster" => ["Earth"; 4], "date" => [may1; 4], "vc" => ["vcb", "vca", "vcz", "vcc"], "gpus" => [8i64, 8, 0, 4]
    )
    .unwrap();
    // vcb: one 4-GPU job running minutes 0..=1439 of May 1 (local):
    // allocation 50 % for 1440 minutes, 0 the rest (only May 1 has capacity,
    // so the other days have no minutes at all): n = 1440, all 50 %.
    let t0 = T0 + 30 * 86_400;
    let jobs = df!(
        "cluster" => ["Earth"], "job_id" => [1i64], "vc" => ["vcb"], "gpus" => [4i64],
        "start_time" => [t0], "end_time" => [t0 + 1439 * 60], "submit_time" => [t0], "run_s" => [86_340.0], "queue_s" => [0.0]
    )
    .unwrap();
    let tiny = store(vec![(&helios::JOBS, jobs), (&helios::VC_GPUS, gpus)]);
    let out = testkit::run(&VcUtilization, &tiny, &[("top", "2")]);
    let t = table(&out, "box");
    assert_eq!(t.column("vc").unwrap(), [&Cell::from("vcb"), &Cell::from("vca")]);
    assert_eq!(t.rows[0][2], Cell::Int(1440));
    assert_eq!(t.rows[0][4], Cell::Float(50.0));
    assert_eq!(t.rows[0][8], Cell::Float(50.0));
    assert_eq!(t.rows[0][9], Cell::Float(4.0));
    // vca: capacity but no job -> 0 % for every minute.
    assert_eq!(t.rows[1][8], Cell::Float(0.0));
}

#[test]
fn box_stats_use_linear_quartiles_and_1_5_iqr_whiskers() {
    // 0, 50, 50, 100, 100, 1000: Q1 (h=1.25) 50, median 75, Q3 (h=3.75) 100;
    // IQR 50 -> limits -25 and 175: whiskers 0 and 100; mean 1300/6.
    let d = tracelab_stats::Dist::from_samples(vec![0.0, 50.0, 50.0, 100.0, 100.0, 1000.0]);
    let b = box_stats(&d);
    assert_eq!(b[..5], [50.0, 75.0, 100.0, 0.0, 100.0]);
    assert!((b[5] - 1300.0 / 6.0).abs() < 1e-12);
}
