//! Hand-worked tests of the seed.* analyses on tiny stores (the numbers in
//! each test's comment are worked out by hand; the cross-check against
//! pandas and scikit-learn on the samples is tests/it/analyze_seed.rs).

use polars::prelude::*;

use super::duration_prediction::DurationPrediction;
use super::horus_classes::HorusClasses;
use super::horus_interference::HorusInterference;
use super::muxflow_gpu_util::MuxflowGpuUtil;
use super::muxflow_predictability::MuxflowPredictability;
use super::pollux_busiest_window::PolluxBusiestWindow;
use super::pollux_classes::PolluxClasses;
use super::{duration_text, Traces};
use crate::output::{Body, Cell, Headline, Output, ResultTable};
use crate::params::Seconds;
use crate::testkit::{self, run, try_run, TinyStore};
use tracelab_schema::error::{Error, Result};
use tracelab_schema::{helios, pai, philly, unified::JOBS, Table, Trace};

/// Every table of `trace` empty, then `given` on top (a trace counts as
/// present only with all its tables).
fn with_trace(trace: Trace, mut given: Vec<(&'static Table, DataFrame)>) -> Vec<(&'static Table, DataFrame)> {
    for t in trace.tables() {
        if !given.iter().any(|(g, _)| std::ptr::eq(*g, *t)) {
            given.push((t, DataFrame::empty()));
        }
    }
    given
}

fn table<'a>(out: &'a Output, part: &str) -> &'a ResultTable {
    match &out.part(part).unwrap().body {
        Body::Table(t) => t,
        _ => panic!("{part} is not a table"),
    }
}

fn f(c: &Cell) -> f64 {
    c.as_f64().unwrap()
}

fn headline<'a>(out: &'a Output, key: &str) -> &'a Headline {
    out.all_headlines().find(|h| h.key == key).unwrap_or_else(|| panic!("no headline {key}"))
}

/// Philly jobs (hours from 0, GPUs, runtime h): a 0 h 1 GPU 0.5 h (0.5
/// GPU-h, small); b 1 h 2 GPUs 3 h (6, medium); c 10 h 4 GPUs 5 h (20,
/// large); d 12 h 8 GPUs 20 h (160, xlarge); e has no runtime (left out).
/// 8-hour windows: from 0 holds a, b = 6.5; from 1 holds b = 6; from 10
/// holds c, d = 180 (the busiest); from 12 holds d = 160.
fn philly_jobs() -> TinyStore {
    let h = |x: f64| (x * 3600.0) as i64;
    let jobs = df!(
        "trace" => ["philly"; 5],
        "cluster" => ["philly"; 5],
        "job_id" => ["a", "b", "c", "d", "e"],
        "submit_time" => [h(0.0), h(1.0), h(10.0), h(12.0), h(13.0)],
        "gpus_requested" => [1.0, 2.0, 4.0, 8.0, 1.0],
        "run_s" => [Some(1800.0), Some(3.0 * 3600.0), Some(5.0 * 3600.0), Some(20.0 * 3600.0), None],
        "status" => ["completed"; 5],
    )
    .unwrap();
    testkit::store(with_trace(Trace::Philly, vec![(&JOBS, jobs)]))
}

#[test]
fn pollux_busiest_window_by_hand() {
    let out = run(&PolluxBusiestWindow, &philly_jobs(), &[]);
    let w = table(&out, "window");
    assert_eq!(w.rows[0][1], Cell::from("1970-01-01T10:00:00Z"));
    assert_eq!((f(&w.rows[0][4]), f(&w.rows[0][5])), (2.0, 180.0));
    // 180 of 186.5 GPU-hours.
    assert!((f(&w.rows[0][6]) - 100.0 * 180.0 / 186.5).abs() < 1e-12);
    let mix = table(&out, "mix");
    let window_jobs: Vec<f64> = mix.column("window_jobs").unwrap().into_iter().map(f).collect();
    assert_eq!(window_jobs, vec![0.0, 0.0, 1.0, 1.0]);
}

#[test]
fn pollux_classes_by_hand() {
    let out = run(&PolluxClasses, &philly_jobs(), &[("trace", "philly")]);
    let t = table(&out, "classes");
    // One job per class of four; GPU-hours 0.5, 6, 20, 160 of 186.5.
    assert_eq!(t.column("jobs").unwrap(), vec![&Cell::Int(1); 4]);
    assert!((f(&t.rows[3][5]) - 100.0 * 160.0 / 186.5).abs() < 1e-12);
}

/// Philly gpu_util: m1 reports gpu0 10 and 30 (mean 20) and gpu1 80 then
/// NA (mean 80) in minutes 0 and 1; m2 reports gpu0 50 in minute 5.
/// Per-GPU means 20, 80, 50: 2 of 3 below 60 %. With 5-minute bins the
/// series is bin 0 = mean(10, 30, 80) = 40, bin 1 = 50.
#[test]
fn philly_gpu_util_and_series_by_hand() {
    let util = df!(
        "time" => [0i64, 60, 300],
        "machine" => ["m1", "m1", "m2"],
        "gpu0_util_pct" => [Some(10.0), Some(30.0), Some(50.0)],
        "gpu1_util_pct" => [Some(80.0), None, None],
    )
    .unwrap();
    let store = testkit::store(with_trace(Trace::Philly, vec![(&philly::GPU_UTIL, util)]));
    let out = run(&MuxflowGpuUtil, &store, &[("trace", "philly")]);
    let Body::Dists { series, .. } = &out.part("gpu-util").unwrap().body else { panic!() };
    assert_eq!(series[0].1.values(), &[20.0, 50.0, 80.0]);
    let below = headline(&out, "philly_util_below");
    assert!((below.value - 200.0 / 3.0).abs() < 1e-12);
    // MuxFlow: 99 % of production GPUs below 60 % utilization.
    assert_eq!(below.published, Some(99.0));
    assert!(below.source.starts_with("MuxFlow"), "{}", below.source);
    // At another threshold the share (1 of 3 GPUs below 30 %) has no
    // published counterpart; 60.0 is the same value as the default 60.
    let other = run(&MuxflowGpuUtil, &store, &[("trace", "philly"), ("threshold", "30")]);
    assert!((headline(&other, "philly_util_below").value - 100.0 / 3.0).abs() < 1e-12);
    assert_eq!(headline(&other, "philly_util_below").published, None);
    let same = run(&MuxflowGpuUtil, &store, &[("trace", "philly"), ("threshold", "60.0")]);
    assert_eq!(headline(&same, "philly_util_below").published, Some(99.0));
    let out = run(&MuxflowPredictability, &store, &[("trace", "philly")]);
    let Body::Curves { series, .. } = &out.part("series").unwrap().body else { panic!() };
    assert_eq!(series[0].1, vec![(0.0, 40.0), (5.0 / 60.0, 50.0)]);
}

/// The Philly views read `gpu_util` in two-day windows and add the parts:
/// m1 reports gpu0 10 at time 0 and 40 three days later, m2 gpu0 70 a
/// minute after that. Per-GPU means: m1 (10 + 40) / 2 = 25, m2 70. Series
/// (5-minute bins): 10 at hour 0, mean(40, 70) = 55 at hour 72, the
/// 863 bins between gaps.
#[test]
fn philly_gpu_views_add_up_across_windows() {
    let day = 86_400;
    let util = df!(
        "time" => [0i64, 3 * day, 3 * day + 60],
        "machine" => ["m1", "m1", "m2"],
        "gpu0_util_pct" => [10.0, 40.0, 70.0],
    )
    .unwrap();
    let store = testkit::store(with_trace(Trace::Philly, vec![(&philly::GPU_UTIL, util)]));
    let out = run(&MuxflowGpuUtil, &store, &[("trace", "philly")]);
    let Body::Dists { series, .. } = &out.part("gpu-util").unwrap().body else { panic!() };
    assert_eq!(series[0].1.values(), &[25.0, 70.0]);
    let out = run(&MuxflowPredictability, &store, &[("trace", "philly")]);
    let Body::Curves { series, .. } = &out.part("series").unwrap().body else { panic!() };
    let points = &series[0].1;
    assert_eq!((points.len(), points[0], points[864]), (865, (0.0, 10.0), (72.0, 55.0)));
    assert!(points[1..864].iter().all(|(_, v)| v.is_nan()));
}

/// Helios: GPU jobs of 4 and 2 GPUs over minutes [0, 10) and [5, 10) of
/// 2020-06-01 (UTC), the day's GPUs 8 (two VCs): bins of 5 minutes hold 4
/// then 6 GPUs: 50 % and 75 % allocated.
#[test]
fn helios_allocation_series_by_hand() {
    let t0 = 1_590_969_600i64; // 2020-06-01 00:00 UTC = 08:00 in Shanghai
    let jobs = df!(
        "cluster" => ["Venus", "Venus", "Venus"],
        "job_id" => [1i64, 2, 3],
        "gpus" => [4i64, 2, 0],
        "start_time" => [t0, t0 + 300, t0],
        "end_time" => [t0 + 600, t0 + 600, t0 + 600],
    )
    .unwrap();
    let day = (t0 / 86_400) as i32;
    let vcs =
        df!("cluster" => ["Venus", "Venus"], "date" => [day, day], "vc" => ["a", "b"], "gpus" => [5i64, 3]).unwrap();
    let vcs = vcs.lazy().with_column(col("date").cast(DataType::Date)).collect().unwrap();
    let store = testkit::store(with_trace(Trace::Helios, vec![(&helios::JOBS, jobs), (&helios::VC_GPUS, vcs)]));
    let out = run(&MuxflowPredictability, &store, &[("trace", "helios")]);
    let Body::Curves { series, .. } = &out.part("series").unwrap().body else { panic!() };
    assert_eq!(series[0].1, vec![(0.0, 50.0), (5.0 / 60.0, 75.0)]);
}

/// Helios jobs for the duration predictor, by submission: users u, u, v,
/// u, v with durations 10, 30, 7 (training, the first floor(0.6 x 5) = 3)
/// then 20 and 7 (test). User medians: u 20, v 7: the test predictions
/// 20 and 7 are exact (RMSLE 0, median APE 0). VCs: all "x", training
/// median of 10, 30, 7 = 10: errors ln(21/11) and ln(8/11).
#[test]
fn duration_baselines_by_hand() {
    let jobs = df!(
        "trace" => ["helios"; 5],
        "cluster" => ["Venus"; 5],
        "job_id" => ["1", "2", "3", "4", "5"],
        "user" => ["u", "u", "v", "u", "v"],
        "group" => ["x"; 5],
        "submit_time" => [0i64, 10, 20, 30, 40],
        "run_s" => [10.0, 30.0, 7.0, 20.0, 7.0],
        "gpus_requested" => [1.0; 5],
        "status" => ["completed"; 5],
    )
    .unwrap();
    let store = testkit::store(with_trace(Trace::Helios, vec![(&JOBS, jobs)]));
    let out = run(&DurationPrediction, &store, &[("trace", "helios"), ("train", "0.6")]);
    let errors = table(&out, "errors");
    let row = |m: &str| errors.rows.iter().find(|r| r[0] == Cell::from(m)).unwrap().clone();
    assert_eq!((f(&row("user median")[2]), f(&row("user median")[3])), (0.0, 0.0));
    let want = (((21f64 / 11.0).ln().powi(2) + (8f64 / 11.0).ln().powi(2)) / 2.0).sqrt();
    assert!((f(&row("group median")[2]) - want).abs() < 1e-12);
    // median APE of 50 % (20 vs 10) and 42.857 % (7 vs 10): 46.43 %.
    assert!((f(&row("group median")[3]) - (50.0 + 300.0 / 7.0) / 2.0).abs() < 1e-9);
    assert_eq!(f(&table(&out, "split").rows[0][2]), 3.0);
}

/// A PAI store of `n` single-instance GPU tasks with sensor rows.
fn pai_tasks(rows: &[(&str, &str, i64, i64, f64, f64)]) -> TinyStore {
    let n = rows.len();
    let names: Vec<String> = (0..n).map(|i| format!("j{i}")).collect();
    let workers: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
    let col = |k: usize| -> Vec<f64> { rows.iter().map(|r| if k == 0 { r.4 } else { r.5 }).collect() };
    let job = df!("job_name" => &names, "inst_id" => &names, "user" => vec!["u"; n], "status" => vec!["Terminated"; n])
        .unwrap();
    let task = df!("job_name" => &names, "task_name" => vec!["t"; n], "inst_num" => vec![1i64; n],
        "status" => vec!["Terminated"; n], "plan_gpu_pct" => vec![100.0; n])
    .unwrap();
    let inst = df!("job_name" => &names, "task_name" => vec!["t"; n], "inst_name" => &workers,
        "worker_name" => &workers, "inst_id" => &names, "status" => vec!["Terminated"; n],
        "start_time" => rows.iter().map(|r| r.2).collect::<Vec<_>>(), "end_time" => rows.iter().map(|r| r.3).collect::<Vec<_>>(),
        "machine" => rows.iter().map(|r| r.0).collect::<Vec<_>>(),
        "run_s" => rows.iter().map(|r| (r.3 - r.2) as f64).collect::<Vec<_>>()).unwrap();
    let sensor = df!("job_name" => &names, "task_name" => vec!["t"; n], "worker_name" => &workers, "inst_id" => &names,
        "machine" => rows.iter().map(|r| r.0).collect::<Vec<_>>(), "gpu_name" => rows.iter().map(|r| r.1).collect::<Vec<_>>(),
        "gpu_wrk_util_pct" => col(0), "avg_gpu_wrk_mem_gib" => col(1), "cpu_usage_pct" => col(1)).unwrap();
    let tag = df!("inst_id" => &names, "user" => vec!["u"; n], "group" => vec!["g"; n]).unwrap();
    testkit::store(with_trace(
        Trace::Pai,
        vec![
            (&pai::JOB, job),
            (&pai::TASK, task),
            (&pai::INSTANCE, inst),
            (&pai::SENSOR, sensor),
            (&pai::GROUP_TAG, tag),
        ],
    ))
}

/// Five instances of group g (runtimes 10, 20, 30, 40, 100; median 30) on
/// GPU m/0: [0,10), [0,20), [100,130), [100,140), [200,300). The first
/// two overlap each other (1 co-located each), so do the next two; the
/// last is alone. Slowdowns: 1/3, 2/3 (shared); 1, 4/3 (shared); 10/3
/// (alone).
#[test]
fn horus_interference_by_hand() {
    let store = pai_tasks(&[
        ("m", "0", 0, 10, 1.0, 1.0),
        ("m", "0", 0, 20, 1.0, 1.0),
        ("m", "0", 100, 130, 1.0, 1.0),
        ("m", "0", 100, 140, 1.0, 1.0),
        ("m", "0", 200, 300, 1.0, 1.0),
    ]);
    let out = run(&HorusInterference, &store, &[]);
    let t = table(&out, "by-colocation");
    assert_eq!((f(&t.rows[0][1]), f(&t.rows[1][1])), (1.0, 4.0));
    assert!((f(&t.rows[0][2]) - 10.0 / 3.0).abs() < 1e-12);
    assert!((f(&t.rows[1][2]) - (1.0 / 3.0 + 2.0 / 3.0 + 1.0 + 4.0 / 3.0) / 4.0).abs() < 1e-12);
    let shared = out.all_headlines().find(|h| h.key == "shared").unwrap().value;
    assert_eq!(shared, 80.0);
}

/// Four tasks, features (util, mem = cpu): (0, 0), (10, 0), (90, 8),
/// (100, 8) scale to (0, 0), (0.1, 0), (0.9, 1), (1, 1): k = 2 splits
/// them into the low pair and the high pair whatever the start, each with
/// half the GPU time (runtimes 10 + 10 vs 10 + 10 s).
#[test]
fn horus_classes_by_hand() {
    let store = pai_tasks(&[
        ("m", "0", 0, 10, 0.0, 0.0),
        ("m", "1", 0, 10, 10.0, 0.0),
        ("m", "2", 0, 10, 90.0, 8.0),
        ("m", "3", 0, 10, 100.0, 8.0),
    ]);
    let out = run(&HorusClasses, &store, &[("k", "2")]);
    let t = table(&out, "classes");
    assert_eq!(t.column("tasks").unwrap(), vec![&Cell::Int(2), &Cell::Int(2)]);
    assert_eq!((f(&t.rows[0][6]), f(&t.rows[1][6])), (5.0, 95.0));
    assert_eq!(f(&t.rows[0][5]), 50.0);
}

/// Pollux's Table 1 mix (72 % small, 20 % medium, 6 % large, 2 % extra
/// large jobs in its Philly sample) sits beside the Philly window's class
/// shares, and beside no other trace's.
#[test]
fn pollux_mix_is_published_beside_the_philly_window_only() {
    let store = philly_jobs();
    let out = run(&PolluxBusiestWindow, &store, &[]);
    let published: Vec<Option<f64>> =
        ["small", "medium", "large", "xlarge"].map(|c| headline(&out, &format!("window_{c}")).published).to_vec();
    assert_eq!(published, [Some(72.0), Some(20.0), Some(6.0), Some(2.0)]);
    // The window holds c (large) and d (xlarge): 50 % each.
    assert_eq!(headline(&out, "window_large").value, 50.0);
    // Pollux's mix is of an 8-hour window with classes at 1/10/100
    // GPU-hours: another length or boundary has no published counterpart.
    for other in [("length", "4h"), ("small", "2"), ("large", "50")] {
        let out = run(&PolluxBusiestWindow, &store, &[other]);
        assert!(out.all_headlines().all(|h| h.published.is_none()), "{other:?}");
    }
    let same = run(&PolluxBusiestWindow, &store, &[("length", "480m")]);
    assert_eq!(headline(&same, "window_small").published, Some(72.0));
    let out = run(&PolluxBusiestWindow, &store, &[("trace", "helios")]);
    assert!(out.all_headlines().all(|h| h.published.is_none()));
    assert_eq!(table(&out, "notes").rows, vec![vec![Cell::from("helios"), Cell::from("not in the store")]]);
}

fn usage_error(r: Result<Output>) -> String {
    match r {
        Err(Error::Usage(m)) => m,
        Err(e) => panic!("not a usage error: {e}"),
        Ok(_) => panic!("accepted"),
    }
}

/// What one parameter cannot take is refused by its declared kind; what
/// depends on two (a bin dividing the hour, horizons in whole bins, class
/// bounds increasing) by the run, before any work. Both are usage errors
/// (exit 2) naming the analysis and the value.
#[test]
fn bad_parameters_are_usage_errors() {
    let store = philly_jobs();
    let series = |params: &[(&str, &str)]| usage_error(try_run(&MuxflowPredictability, &store, params));
    assert_eq!(series(&[("bin", "7m")]), "seed.muxflow-predictability: --param bin=7m: must divide 1h");
    assert_eq!(
        series(&[("short", "420s")]),
        "seed.muxflow-predictability: --param short=7m: must be a multiple of bin, at most 1d"
    );
    assert_eq!(
        series(&[("long", "2d")]),
        "seed.muxflow-predictability: --param long=2d: must be a multiple of bin, at most 1d"
    );
    assert_eq!(
        series(&[("alpha", "0")]),
        "seed.muxflow-predictability: --param alpha=0: expected a number > 0 and <= 1"
    );
    assert_eq!(
        usage_error(try_run(&HorusClasses, &store, &[("k", "21")])),
        "seed.horus-classes: --param k=21: expected a whole number from 1 to 20"
    );
    assert_eq!(
        usage_error(try_run(&DurationPrediction, &store, &[("train", "1")])),
        "seed.duration-prediction: --param train=1: expected a number strictly between 0 and 1"
    );
    assert_eq!(
        usage_error(try_run(&PolluxClasses, &store, &[("small", "10"), ("medium", "5")])),
        "seed.pollux-classes: class bounds must increase: small < medium < large (given 10, 5, 100)"
    );
    assert_eq!(
        usage_error(try_run(&PolluxBusiestWindow, &store, &[("trace", "all")])),
        "seed.pollux-busiest-window: --param trace=all: expected one of pai, philly, helios"
    );
}

#[test]
fn durations_are_written_in_their_largest_whole_unit() {
    let text = |s: i64| duration_text(Seconds(s));
    assert_eq!([text(300), text(3600), text(86_400), text(5400), text(90)], ["5m", "1h", "1d", "90m", "90s"]);
}

#[test]
fn a_trace_choice_selects_in_the_fixed_order() {
    assert_eq!(Traces::All.selected(), [Trace::Pai, Trace::Philly, Trace::Helios]);
    assert_eq!(Traces::Philly.selected(), [Trace::Philly]);
}
