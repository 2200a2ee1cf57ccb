//! `--to pollux`: the workload CSV of the Pollux (OSDI'21) simulator in
//! petuum/adaptdl's `osdi21-artifact` branch (`simulator/simulator.py` reads
//! `name`, `time`, `application`, `num_replicas` and `batch_size` with
//! pandas). This is a MAPPING, not a replay: that simulator trains each
//! job's application to its convergence target from profiled throughput and
//! efficiency, so a trace job keeps only its arrival time, its size class
//! and its GPUs; its recorded duration is not replayed.
//!
//! - `application` by the job's GPU-hours (GPUs x duration), the classes of
//!   Pollux's own generator (`simulator/workload.py`, OSDI'21 §5.3): below 1
//!   cifar10 or ncf, 1 to 10 deepspeech2 or bert, 10 to 100 yolov3, 100 or
//!   more imagenet. Where the generator draws between two applications at
//!   random, tracelab alternates them in submission order (first, second,
//!   first, ...) within the class, so both get half;
//! - `num_replicas`: the job's whole GPUs (a fractional demand rounded up),
//!   at most 64, the simulator's default cluster of 16 nodes x 4 GPUs;
//! - `batch_size`: the application's smallest profiled batch size per
//!   replica, at most its largest profiled batch size (the sizes of the
//!   artifact's `traces/<application>/validation-*.csv`), so the simulator
//!   can interpolate it;
//! - `time`: whole seconds after the window start; `name`:
//!   `<application>-<index>` in submission order, as the generator names them;
//! - `trace_job_id`, `trace_gpus`, `trace_duration_s`: where the row came from
//!   (the simulator ignores them).

use super::jobs::{ExportJob, Selected};
use super::text::{csv_line, gpus, secs, whole_gpus};
use super::Written;

/// A Pollux application with its smallest and largest profiled batch sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Application {
    pub name: &'static str,
    pub min_batch: u32,
    pub max_batch: u32,
}

const fn app(name: &'static str, min_batch: u32, max_batch: u32) -> Application {
    Application { name, min_batch, max_batch }
}

pub const CIFAR10: Application = app("cifar10", 128, 4096);
pub const NCF: Application = app("ncf", 256, 32768);
pub const DEEPSPEECH2: Application = app("deepspeech2", 20, 640);
pub const BERT: Application = app("bert", 12, 384);
pub const YOLOV3: Application = app("yolov3", 8, 512);
pub const IMAGENET: Application = app("imagenet", 200, 12800);

/// GPUs of the simulator's default cluster (`--min-nodes 16 --num-gpus 4`).
pub const MAX_REPLICAS: u32 = 64;

/// The GPU-hour classes: upper bound (exclusive) and its applications.
const CLASSES: [(Option<u64>, [Application; 2]); 4] = [
    (Some(1), [CIFAR10, NCF]),
    (Some(10), [DEEPSPEECH2, BERT]),
    (Some(100), [YOLOV3, YOLOV3]),
    (None, [IMAGENET, IMAGENET]),
];

const HEAD: [&str; 8] =
    ["name", "time", "application", "num_replicas", "batch_size", "trace_job_id", "trace_gpus", "trace_duration_s"];

/// The class of a job: GPU-hours compared exactly, in milli-GPU-milliseconds.
pub fn class(gpu_milli: u32, duration_ms: i64) -> usize {
    let demand = gpu_milli as u128 * duration_ms.max(0) as u128;
    let hours = |h: u64| h as u128 * 1000 * 3_600_000;
    CLASSES.iter().position(|(upper, _)| upper.is_none_or(|u| demand < hours(u))).unwrap_or(CLASSES.len() - 1)
}

/// The CSV and its mapping notes (jobs per application, capped replicas).
pub fn write(sel: &Selected) -> Written {
    let mut text = csv_line(&HEAD);
    let mut seen = [0usize; 4];
    let mut per_app: Vec<(&'static str, u64)> = Vec::new();
    let mut capped = 0;
    for (i, j) in sel.jobs.iter().enumerate() {
        let c = class(j.gpu_milli, j.duration);
        let a = CLASSES[c].1[seen[c] % 2];
        seen[c] += 1;
        let replicas = whole_gpus(j.gpu_milli);
        capped += u64::from(replicas > MAX_REPLICAS);
        text.push_str(&csv_line(&row(i, j, a, replicas.min(MAX_REPLICAS))));
        match per_app.iter_mut().find(|(n, _)| *n == a.name) {
            Some((_, k)) => *k += 1,
            None => per_app.push((a.name, 1)),
        }
    }
    let mut notes: Vec<(String, u64)> =
        per_app.into_iter().map(|(n, k)| (format!("application {n} (by GPU-hours class)"), k)).collect();
    if capped > 0 {
        notes.push((format!("more than {MAX_REPLICAS} GPUs: num_replicas capped at {MAX_REPLICAS}"), capped));
    }
    Written { text, ids: None, notes }
}

fn row(i: usize, j: &ExportJob, a: Application, replicas: u32) -> Vec<String> {
    let batch = (a.min_batch * replicas).min(a.max_batch);
    vec![
        format!("{}-{i}", a.name),
        secs(j.submit).to_string(),
        a.name.to_string(),
        replicas.to_string(),
        batch.to_string(),
        j.trace_id.clone(),
        gpus(j.gpu_milli),
        secs(j.duration).to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_gpu_hours_by_hand() {
        let h = 3_600_000;
        assert_eq!(class(1000, h - 1), 0); // just under 1 GPU-hour
        assert_eq!(class(1000, h), 1); // exactly 1 GPU-hour
        assert_eq!(class(500, 2 * h), 1); // half a GPU for 2 h = 1 GPU-hour
        assert_eq!(class(8000, 10 * h / 8 - 1), 1); // 8 GPUs, just under 10 GPU-hours
        assert_eq!(class(8000, 12 * h), 2); // 96 GPU-hours
        assert_eq!(class(64_000, 2 * h), 3); // 128 GPU-hours
    }

    #[test]
    fn batch_sizes_stay_in_the_profiled_range() {
        // Each application at the replica cap keeps at least its smallest
        // profiled local batch (artifact placements.csv: bert 4, cifar10 32,
        // deepspeech2 10, imagenet 20, ncf 32, yolov3 4 per replica).
        for (a, min_local) in [(BERT, 4), (CIFAR10, 32), (DEEPSPEECH2, 10), (IMAGENET, 20), (NCF, 32), (YOLOV3, 4)] {
            let batch = (a.min_batch * MAX_REPLICAS).min(a.max_batch);
            assert!(batch >= a.min_batch && batch <= a.max_batch, "{}", a.name);
            assert!(batch / MAX_REPLICAS >= min_local, "{}: {batch} / {MAX_REPLICAS}", a.name);
        }
    }
}
