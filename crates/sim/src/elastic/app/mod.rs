//! The six training applications of Pollux's evaluation (OSDI'21 Table 1:
//! BERT, CIFAR-10 ResNet-18, DeepSpeech2, ImageNet ResNet-50, NCF,
//! YOLOv3), each built from its measured tables ([`tables`]): how fast a
//! configuration runs ([`throughput`]) and how much an iteration at a given
//! batch size advances training ([`training`]).
//!
//! Owns the applications' facts; the jobs' progress is
//! [`crate::elastic::job`], the schedulers' view of it
//! [`crate::elastic::model`].

pub mod tables;
pub mod throughput;
pub mod training;

use std::sync::OnceLock;

use throughput::{Throughput, Unmeasured};
use training::Training;

/// One application.
#[derive(Debug)]
pub struct Application {
    pub name: &'static str,
    /// The smallest measured total batch size: progress is counted in its
    /// iterations, and a job starts there.
    pub init_batch_size: u32,
    /// The largest measured total batch size.
    pub max_batch_size: u32,
    /// The smallest and largest per-GPU (atomic) batch sizes measured; a
    /// larger local batch is split into gradient-accumulation steps.
    pub min_local_bsz: u32,
    pub max_local_bsz: u32,
    pub throughput: Throughput,
    pub training: Training,
}

/// The artifact limits YOLOv3 to 8 examples per GPU (GPU memory); the other
/// applications may use every measured per-GPU batch size.
const LOCAL_BSZ_CAP: &[(&str, u32)] = &[("yolov3", 8)];

impl Application {
    fn build(s: &tables::Sources) -> Application {
        let placements = tables::placements(s);
        let training = Training::new(tables::validation(s));
        let (init_batch_size, max_batch_size) = training.batch_range();
        let locals = placements.iter().map(|r| r.step.local_bsz as u32);
        let min_local_bsz = locals.clone().min().expect("placements.csv has rows");
        let measured_max = locals.max().expect("placements.csv has rows");
        let cap = LOCAL_BSZ_CAP.iter().find(|(n, _)| *n == s.name).map(|(_, c)| *c);
        Application {
            name: s.name,
            init_batch_size,
            max_batch_size,
            min_local_bsz,
            max_local_bsz: cap.unwrap_or(measured_max),
            throughput: Throughput::new(&placements, &tables::scalability(s)),
            training,
        }
    }

    /// (step time, sync time) in seconds on `placement` (GPUs per node) at
    /// `local_bsz` examples per GPU.
    pub fn step_time(&self, placement: &[u32], local_bsz: f64) -> Result<(f64, f64), Unmeasured> {
        self.throughput.step(placement, local_bsz)
    }

    /// The most replicas a job can use: each needs at least the smallest
    /// measured per-GPU batch within the largest total batch.
    pub fn max_replicas(&self) -> u32 {
        self.max_batch_size / self.min_local_bsz
    }
}

/// Every application, by name.
pub fn all() -> &'static [Application] {
    static APPS: OnceLock<Vec<Application>> = OnceLock::new();
    APPS.get_or_init(|| tables::SOURCES.iter().map(Application::build).collect())
}

/// The application called `name`.
pub fn get(name: &str) -> Option<&'static Application> {
    all().iter().find(|a| a.name == name)
}

/// The names, for error messages.
pub fn names() -> String {
    all().iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
}

/// Per-GPU batch and accumulation steps for a fixed total batch on
/// `replicas` GPUs, as a job with a fixed batch size runs it: the local
/// batch split into the fewest steps of at most `max_local_bsz` (at least
/// two on one GPU above the smallest batch size, so the gradient noise can
/// be measured, OSDI'21 §4.1), then capped so the total stays within the
/// largest measured batch.
pub fn split_batch(app: &Application, batch: u32, replicas: u32) -> (u32, u32) {
    let eps = 1e-8;
    let local = (batch as f64 / replicas as f64 - eps).ceil();
    let mut accum = ((local / app.max_local_bsz as f64 - eps).ceil() as i64 - 1).max(0) as u32;
    if replicas == 1 && batch > app.init_batch_size {
        accum = accum.max(1);
    }
    let atomic = (local / (accum + 1) as f64 - eps).ceil() as u32;
    let count = replicas * (accum + 1);
    (atomic.min(app.max_batch_size / count), accum)
}

/// GPUs filled node by node, `per_node` at a time: `[4, 4, 2]` for 10.
pub fn packed(replicas: u32, per_node: u32) -> Vec<u32> {
    let mut p = Vec::new();
    let mut left = replicas;
    while left > 0 {
        let g = left.min(per_node);
        p.push(g);
        left -= g;
    }
    p
}

/// Pollux's TunedJobs (OSDI'21 §5.2): the (GPUs, total batch size, JCT in
/// seconds) configurations whose speedup over one GPU is between `lo` and
/// `hi` of ideal and whose run alone takes under 12 hours, each at the
/// measured batch size that finishes fastest on that many GPUs packed on
/// 4-GPU nodes; the one-GPU configuration if none qualifies.
pub fn tuned_configurations(app: &Application, lo: f64, hi: f64) -> Vec<(u32, u32, f64)> {
    let mut out = Vec::new();
    let mut base: Option<(u32, f64)> = None;
    for replicas in [1u32, 2, 4, 6, 8, 12, 16, 24, 32, 48] {
        if replicas * app.min_local_bsz > app.max_batch_size {
            break;
        }
        let Some((batch, jct)) = fastest_batch(app, replicas) else { continue };
        match base {
            None if replicas == 1 => base = Some((batch, jct)),
            Some((_, base_jct)) => {
                let efficiency = base_jct / jct / replicas as f64;
                if jct < 12.0 * 3600.0 && lo < efficiency && efficiency < hi {
                    out.push((replicas, batch, jct));
                }
            }
            None => {}
        }
    }
    if out.is_empty() {
        if let Some((batch, jct)) = base {
            out.push((1, batch, jct));
        }
    }
    out
}

/// The measured total batch size with the shortest run alone on `replicas`
/// packed GPUs, and that run's time (iterations to the last epoch x step time).
fn fastest_batch(app: &Application, replicas: u32) -> Option<(u32, f64)> {
    let placement = packed(replicas, 4);
    let last = app.training.epochs() - 1;
    let mut best: Option<(u32, f64)> = None;
    for batch in app.training.batches() {
        let eps = 1e-8;
        let local = (batch as f64 / replicas as f64 - eps).ceil();
        if local < app.min_local_bsz as f64 {
            continue;
        }
        let accum = ((local / app.max_local_bsz as f64 - eps).ceil() - 1.0).max(0.0);
        let atomic = (local / (accum + 1.0) - eps).ceil();
        let Ok((step, sync)) = app.step_time(&placement, atomic) else { continue };
        let jct = app.training.iterations(batch as f64, last) * (step + accum * (step - sync));
        if best.is_none_or(|(_, j)| jct < j) {
            best = Some((batch, jct));
        }
    }
    best
}
