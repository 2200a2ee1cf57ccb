//! The derived-frame cache on a hand-made store: the cached frames hold
//! exactly the lazy plans' rows, columns and order; the cache is reused
//! while the store's content is the same, rebuilt when it changes, and
//! bypassed (lazy plans) when it cannot be written.

use std::fs::File;

use polars::df;

use super::super::plans;
use super::*;
use crate::testkit;
use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, MACHINE_SPEC, SENSOR, TASK};

/// Jobs a, b (user ua, ub; tags ia -> group g1, ib untagged). Tasks a/t1,
/// a/t2, b/t1, and x/t1 whose job is missing. Instance rows, in file order:
///
/// | row | task | worker | status     | start | end | machine |
/// |-----|------|--------|------------|-------|-----|---------|
/// | 0   | a/t1 | w1     | Terminated | 10    | 20  | m1      |
/// | 1   | a/t1 | w2     | Failed     | 15    | 30  | m1      |
/// | 2   | a/t2 | w2     | Terminated | 12    | 25  | m1      |
/// | 3   | b/t1 | w3     | Terminated | 40    | 50  | m2      |
/// | 4   | b/t1 | (none) | Running    | 45    |     | m2      |
/// | 5   | z/t9 | w4     | Terminated | 60    | 70  | m1      |
///
/// dfiw: w2 is on rows 1 and 2; sorted by status, Failed < Terminated, so
/// row 2 is kept; the single workers first in file order: rows 0, 3, 5, 2.
/// dfws: sensor rows exist for w1, w2, w4 (and w9, no instance): rows 0, 5,
/// 2 in dfw order. dfa: a/t1, a/t2, b/t1 (x/t1 has no job). dfas: a/t1 and
/// a/t2 (b/t1's worker w3 has no sensor row). sensor_times: sensor rows w1,
/// w2, w4 in sensor order.
fn tiny() -> testkit::TinyStore {
    testkit::store(tiny_tables())
}

fn tiny_tables() -> Vec<(&'static Table, DataFrame)> {
    vec![
        (
            &JOB,
            df!("job_name" => ["a", "b"], "inst_id" => ["ia", "ib"], "user" => ["ua", "ub"],
                "status" => ["Terminated", "Running"], "start_time" => [0i64, 30], "end_time" => [100i64, 90])
            .unwrap(),
        ),
        (
            &TASK,
            df!("job_name" => ["a", "a", "b", "x"], "task_name" => ["t1", "t2", "t1", "t1"], "inst_num" => [2i64, 1, 2, 1],
                "status" => ["Terminated"; 4], "start_time" => [5i64, 8, 35, 1], "end_time" => [30i64, 25, 55, 2],
                "plan_cpu_pct" => [600.0, 100.0, 50.0, 1.0], "plan_gpu_pct" => [50.0, 100.0, 0.0, 1.0],
                "plan_mem_gib" => [10.0, 8.0, 2.0, 1.0], "gpu_type" => ["T4", "V100", "T4", "T4"])
            .unwrap(),
        ),
        (
            &INSTANCE,
            df!("job_name" => ["a", "a", "a", "b", "b", "z"], "task_name" => ["t1", "t1", "t2", "t1", "t1", "t9"],
                "inst_name" => ["i0", "i1", "i2", "i3", "i4", "i5"],
                "worker_name" => [Some("w1"), Some("w2"), Some("w2"), Some("w3"), None, Some("w4")],
                "inst_id" => ["ia", "ia", "ia", "ib", "ib", "iz"],
                "status" => ["Terminated", "Failed", "Terminated", "Terminated", "Running", "Terminated"],
                "start_time" => [10i64, 15, 12, 40, 45, 60], "end_time" => [Some(20i64), Some(30), Some(25), Some(50), None, Some(70)],
                "machine" => ["m1", "m1", "m1", "m2", "m2", "m1"], "run_s" => [Some(10.0), Some(15.0), Some(13.0), Some(10.0), None, Some(10.0)])
            .unwrap(),
        ),
        (
            &SENSOR,
            df!("job_name" => ["a", "z", "a", "q"], "task_name" => ["t1", "t9", "t2", "q"], "worker_name" => ["w1", "w4", "w2", "w9"],
                "machine" => ["m1", "m1", "m1", "m9"], "gpu_name" => ["g0", "g1", "g0", "g0"],
                "cpu_usage_pct" => [100.0, 200.0, 300.0, 400.0], "gpu_wrk_util_pct" => [10.0, 20.0, 30.0, 40.0],
                "avg_mem_gib" => [1.0, 2.0, 3.0, 4.0])
            .unwrap(),
        ),
        (
            &GROUP_TAG,
            df!("inst_id" => ["ia", "ib"], "user" => ["ua", "ub"], "group" => [Some("g1"), None], "workload" => [Some("bert"), None])
                .unwrap(),
        ),
        (
            &MACHINE_SPEC,
            df!("machine" => ["m1"], "gpu_type" => ["T4"], "cap_cpu" => [96i64], "cap_mem_gib" => [512i64], "cap_gpu" => [2i64])
                .unwrap(),
        ),
    ]
}

fn names(frame: Frame) -> Vec<&'static str> {
    columns::columns(frame).into_iter().map(|c| c.0).collect()
}

/// Every column of `frame` from the cache.
fn cached(store: &Store, frame: Frame) -> DataFrame {
    select(&Ctx::new(store.clone()), frame, &names(frame)).unwrap().expect("cache available")
}

fn planned(store: &Store, frame: Frame) -> DataFrame {
    collect(plans::plan(store, frame).unwrap(), "plan").unwrap()
}

fn strings(df: &DataFrame, column: &str) -> Vec<Option<String>> {
    super::super::super::frame::strs(df, column).unwrap()
}

fn some(v: &[&str]) -> Vec<Option<String>> {
    v.iter().map(|s| Some(s.to_string())).collect()
}

fn assert_cache_equals_plans(store: &Store) {
    for frame in Frame::ALL {
        let plan = planned(store, frame);
        let got = cached(store, frame);
        assert_eq!(plan.get_column_names(), got.get_column_names(), "{} columns", frame.name());
        assert!(got.equals_missing(&plan), "{}\ncached:\n{got}\nplan:\n{plan}", frame.name());
    }
}

#[test]
fn cached_frames_equal_the_lazy_plans_row_for_row() {
    let t = tiny();
    assert_cache_equals_plans(&t.ctx.store);
}

/// [`tiny`] with every joined table's key on two rows: task a/t1, tag ia,
/// machine m1 and sensor worker w1 twice (the second with other values).
/// The joins then repeat rows as the plans do: w1's instance (a/t1, tag ia,
/// machine m1) is in `dfw` 2 tasks x 2 tags = 4 times and in `dfws` 4 x 2
/// machines x 2 sensor rows = 16 times; the build takes its other path (ids
/// joined back to every row of a key).
#[test]
fn with_repeated_join_keys_the_cache_still_equals_the_plans() {
    let t = tiny();
    let store = &t.ctx.store;
    let append = |table: &'static Table, extra: DataFrame| {
        let path = store.path_of(table);
        let mut df = ParquetReader::new(File::open(&path).unwrap()).finish().unwrap();
        let extra = extra.lazy().select(df.get_column_names().iter().map(|c| col(c.as_str())).collect::<Vec<_>>());
        let extra = extra.collect().unwrap();
        df.vstack_mut(&extra).unwrap();
        ParquetWriter::new(File::create(&path).unwrap()).finish(&mut df).unwrap();
    };
    let row = |table: &'static Table, key: &str, value: &str| {
        let df = ParquetReader::new(File::open(store.path_of(table)).unwrap()).finish().unwrap();
        let first = df.clone().lazy().filter(col(key).eq(lit(value.to_string()))).collect().unwrap();
        first.head(Some(1))
    };
    let mut task = row(&TASK, "task_name", "t1").head(Some(1));
    task.with_column(Column::new("plan_cpu_pct".into(), [7.0])).unwrap();
    append(&TASK, task);
    append(&GROUP_TAG, row(&GROUP_TAG, "inst_id", "ia"));
    let mut spec = row(&MACHINE_SPEC, "machine", "m1");
    spec.with_column(Column::new("cap_cpu".into(), [48i64])).unwrap();
    append(&MACHINE_SPEC, spec);
    let mut sensor = row(&SENSOR, "worker_name", "w1");
    sensor.with_column(Column::new("cpu_usage_pct".into(), [5.0])).unwrap();
    append(&SENSOR, sensor);
    assert_cache_equals_plans(store);
    let dfws = cached(store, Frame::InstancesWithSensor);
    let w1 = strings(&dfws, "worker_name").iter().filter(|w| w.as_deref() == Some("w1")).count();
    assert_eq!(w1, 16);
    let dfw = cached(store, Frame::Instances);
    assert_eq!(strings(&dfw, "worker_name").iter().filter(|w| w.as_deref() == Some("w1")).count(), 4);
}

/// The hand-worked rows (see [`tiny`]).
#[test]
fn the_frames_hold_the_hand_worked_rows() {
    let t = tiny();
    let store = &t.ctx.store;
    let dfiw = cached(store, Frame::Workers);
    assert_eq!(strings(&dfiw, "inst_name"), some(&["i0", "i3", "i5", "i2"]));
    let dfw = cached(store, Frame::Instances);
    assert_eq!(strings(&dfw, "group"), vec![Some("g1".into()), Some("ub".into()), None, Some("g1".into())]);
    assert_eq!(strings(&dfw, "gpu_type"), vec![Some("T4".into()), Some("T4".into()), None, Some("V100".into())]);
    let dfws = cached(store, Frame::InstancesWithSensor);
    assert_eq!(strings(&dfws, "worker_name"), some(&["w1", "w4", "w2"]));
    let caps = super::super::super::frame::i64s(&dfws, "cap_cpu").unwrap();
    assert_eq!(caps, vec![Some(96), Some(96), Some(96)]);
    let dfa = cached(store, Frame::Tasks);
    assert_eq!(strings(&dfa, "job_name"), some(&["a", "a", "b"]));
    // a/t1: instances at 10 and 15 -> wait 10 - 5 = 5 s; runtimes 10, 15.
    let f = |df: &DataFrame, c: &str| super::super::super::frame::f64s(df, c).unwrap();
    assert_eq!(f(&dfa, "wait_s")[0], Some(5.0));
    assert_eq!(f(&dfa, "runtime_i_s")[0], Some(12.5));
    assert_eq!(strings(&dfa, "status_i")[0].as_deref(), Some("Terminated"));
    // dfas: a/t1 sums over w1 only (w2's kept row is a/t2): cpu 100; a/t2: 300.
    let dfas = cached(store, Frame::TaskUsage);
    assert_eq!(f(&dfas, "cpu_usage_pct"), vec![Some(100.0), Some(300.0)]);
    assert_eq!(f(&dfas, "plan_cpu_pct"), vec![Some(600.0), Some(100.0)]);
    let times = cached(store, Frame::SensorTimes);
    assert_eq!(strings(&times, "worker_name"), some(&["w1", "w4", "w2"]));
    assert_eq!(super::super::super::frame::i64s(&times, "start_time").unwrap()[2], Some(12_000_000));
}

#[test]
fn the_key_file_records_the_key_and_the_row_counts() {
    let t = tiny();
    let store = &t.ctx.store;
    assert!(ensure(&t.ctx).unwrap());
    let k = key_file(&entry(store)).expect("current key file");
    let rows: Vec<(&str, u64)> = k.rows.iter().map(|(n, r)| (n.as_str(), *r)).collect();
    let want = [("dfa", 3), ("dfiw", 4), ("dfw", 4), ("dfws", 3), ("dfas", 2), ("sensor_times", 3)];
    assert_eq!(rows, want);
    assert_eq!(k.derived_version, DERIVED_VERSION);
}

/// A frame file replaced behind the cache's back is what the next read
/// sees while the store's content is the same (nothing is rebuilt); the
/// same tables published again (a new manifest) are new content: the
/// frames are rebuilt in another entry.
#[test]
fn the_cache_is_reused_while_the_content_is_the_same_and_rebuilt_when_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    testkit::publish(dir.path(), &tiny_tables(), "first");
    let store = Store::open(dir.path()).unwrap();
    let before = cached(&store, Frame::Tasks);
    // Swap dfa's rows 0 and 1 in the file.
    let path = path_of(&store, Frame::Tasks);
    let mut swapped = collect(scan_file(&path).unwrap(), "dfa file").unwrap();
    let idx = IdxCa::new("i".into(), [1 as IdxSize, 0, 2]);
    swapped = swapped.take(&idx).unwrap();
    ParquetWriter::new(File::create(&path).unwrap()).finish(&mut swapped).unwrap();
    let reused = cached(&store, Frame::Tasks);
    assert_eq!(strings(&reused, "task_name"), some(&["t2", "t1", "t1"]));
    let old_key = entry(&store).key().to_string();
    drop(store);
    testkit::publish(dir.path(), &tiny_tables(), "second");
    let store = Store::open(dir.path()).unwrap();
    assert_ne!(entry(&store).key(), old_key);
    let rebuilt = cached(&store, Frame::Tasks);
    assert!(rebuilt.equals_missing(&before));
    assert!(key_file(&entry(&store)).is_some());
}

/// A store where the cache cannot be written (the entry's folder name is
/// taken by a file) uses the lazy plans, and leaves no temporary file.
#[test]
fn an_unwritable_cache_falls_back_to_the_plans() {
    let t = tiny();
    let store = &t.ctx.store;
    let blocked = path_of(store, Frame::Tasks).parent().unwrap().to_path_buf();
    std::fs::create_dir_all(blocked.parent().unwrap()).unwrap();
    std::fs::write(&blocked, "not a folder").unwrap();
    assert!(!ensure(&t.ctx).unwrap());
    assert!(select(&t.ctx, Frame::Tasks, &["job_name"]).unwrap().is_none());
    fn temporaries(dir: &Path) -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .flat_map(|e| {
                let p = e.unwrap().path();
                if p.is_dir() {
                    temporaries(&p)
                } else {
                    vec![p]
                }
            })
            .filter(|p| p.to_string_lossy().ends_with(".tmp"))
            .collect()
    }
    assert!(temporaries(store.root()).is_empty());
}

/// Two builds of the same store write the same bytes.
#[test]
fn builds_are_byte_identical() {
    let (a, b) = (tiny(), tiny());
    assert!(ensure(&a.ctx).unwrap() && ensure(&b.ctx).unwrap());
    for frame in Frame::ALL {
        let read = |s: &Store| std::fs::read(path_of(s, frame)).unwrap();
        assert_eq!(read(&a.ctx.store), read(&b.ctx.store), "{}", frame.name());
    }
}

#[test]
fn an_unknown_column_is_an_error_that_names_it() {
    let t = tiny();
    let err = select(&t.ctx, Frame::Tasks, &["nope"]).unwrap_err().to_string();
    assert!(err.contains("dfa has no column `nope`"), "{err}");
}

/// A build that fails for a reason other than the cache's place (here the
/// instance table's file is not Parquet any more) is the caller's error,
/// not a silent fall back to the plans; the hooks of the context see the
/// build start and end.
#[test]
fn a_failed_build_is_an_error_and_the_hooks_see_it() {
    let t = tiny();
    let path = t.ctx.store.path_of(&tracelab_schema::pai::INSTANCE);
    std::fs::write(&path, "not parquet").unwrap();
    let steps = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = steps.clone();
    let hooks = crate::Hooks {
        progress: Some(std::sync::Arc::new(move |s: Option<&str>| seen.lock().unwrap().push(s.map(str::to_string)))),
        around_build: None,
    };
    let ctx = Ctx::with_hooks(t.ctx.store.clone(), hooks);
    assert!(ensure(&ctx).is_err());
    let steps = steps.lock().unwrap();
    assert_eq!(steps.last(), Some(&None), "{steps:?}");
    assert!(steps.len() >= 2, "{steps:?}");
}
