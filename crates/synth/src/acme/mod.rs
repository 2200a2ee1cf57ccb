//! Synthetic AcmeTrace (NSDI'24) in the owners' layout: `trace_seren.csv`
//! and `trace_kalos.csv` with a header row, stamps in ISO 8601 with the
//! offset each file uses (Seren `+08:00`, Kalos `+00:00`), Kalos' extra pod
//! memory and failure/stop columns. Nothing is packed with `--archive`: the
//! repository ships the plain CSVs.
//!
//! Calibration: each cluster follows its row of the owners' published
//! `cluster_summary.csv` (job counts, CPU/GPU split, mean and median run
//! and queue times, mean GPUs per GPU job, final-state rates, GPU time by
//! state), drawn by the Helios generator ([`crate::helios::specs`]) with
//! AcmeTrace's shape ([`shape`]); [`types`] gives each job its LLM workload
//! type. Sizes: 8-GPU nodes (node_num = ceil(gpus / 8)), 16 (Seren) or 15
//! (Kalos) CPUs per GPU as the README's rows.
//!
//! Kalos' `duration` is end - submit, not end - start: the README's rows
//! say so (18 s for a job submitted 11:00:58, started 11:01:08 and ended
//! 11:01:16; 82 s for 11:28:42, 11:28:54, 11:30:04), and `gpu_time` is that
//! duration x GPUs. The generator writes Kalos rows the same way: the drawn
//! run time is Kalos' duration (so its published mean and median hold) and
//! each job's queueing delay is dealt no longer than it ([`types::assign`]);
//! the job then runs for the difference. Seren's rows are end - start.
//!
//! Scale: job counts are the published ones x s, submitted in a window of
//! √s of the cluster's period, centred in it (so the load per GPU of a
//! cluster of √s of the GPUs stays the published one); every job ends
//! inside the period. Periods: Seren 2023-03-01..08-31, Kalos
//! 2023-05-01..08-31 (the README gives March-August for the trace and May
//! for Kalos' examples).

mod rows;
mod summary;
mod types;

use std::path::Path;

use super::out::{CsvOut, RowShape};
use super::{Ctx, FileReport};
use crate::helios::specs::{specs_shaped, Shape, Spec};
use crate::rng::Rng;
use tracelab_schema::civil::{days_from_civil, DAY};
use tracelab_schema::error::Result;
use tracelab_schema::raw::acme::{CLUSTERS, KALOS, SEREN};

/// Failures end as FAILED mostly; TIMEOUT and NODE_FAIL are rare (README note 1).
const FAILED: [(&str, f64); 3] = [("FAILED", 0.97), ("TIMEOUT", 0.02), ("NODE_FAIL", 0.01)];

/// The shape the summary does not fix: runs up to the published longest
/// GPU job, queues up to 3 days, the published median queues, half of the
/// GPU jobs on one GPU (published median 1), sizes up to 1,024 GPUs (the
/// published largest).
fn shape(cluster: &str) -> Shape {
    let seren = cluster == "Seren";
    Shape {
        run_cap: if seren { 1_209_604.0 } else { 625_740.0 },
        queue_cap: 3.0 * 86_400.0,
        no_wait: if seren { [0.2, 0.3] } else { [0.1, 0.2] },
        one_gpu: if seren { 0.62 } else { 0.56 },
        largest_gpus: 1024,
        failed: &FAILED,
        queue_median: Some(summary::median_queue(cluster)),
    }
}

/// A cluster's period in UTC seconds, [start, end).
pub fn period(cluster: &str) -> (i64, i64) {
    let month = if cluster == "Seren" { 3 } else { 5 };
    let local = |m: u32| days_from_civil(2023, m, 1) * DAY;
    // Midnight in Shanghai (UTC+8) is 16:00 UTC the day before.
    (local(month) - 8 * 3600, local(9) - 8 * 3600)
}

/// Fields ingest validates (numbers, type, state, start/end order).
const SEREN_SHAPE: RowShape = RowShape { numeric: &[2, 3, 4, 10, 11, 12], status: Some(6), span: Some((8, 9)) };
const KALOS_SHAPE: RowShape = RowShape { numeric: &[2, 3, 4, 5, 6, 14, 15, 16], status: Some(8), span: Some((10, 11)) };

pub fn generate(ctx: &Ctx, dir: &Path) -> Result<Vec<FileReport>> {
    CLUSTERS.iter().map(|(cluster, _)| write_cluster(ctx, dir, cluster)).collect()
}

fn write_cluster(ctx: &Ctx, dir: &Path, cluster: &str) -> Result<FileReport> {
    let sum = summary::cluster(cluster);
    let mut rng = Rng::stream(ctx.seed, &format!("acme:{cluster}"));
    let n = ((sum.jobs * ctx.scale).round() as usize).max(1);
    let mut specs = specs_shaped(&sum, &shape(cluster), n, &mut rng);
    let kinds = types::assign(cluster, &mut specs, cluster == "Kalos", &mut rng);
    let window = window(cluster, ctx.scale);
    let submits = rows::submit_times(n, window, &mut rng);
    let order = fit_period(&submits, &specs, period(cluster).1);
    let kalos = cluster == "Kalos";
    let (layout, shape) = if kalos { (&KALOS, KALOS_SHAPE) } else { (&SEREN, SEREN_SHAPE) };
    let mut out = CsvOut::create(dir, layout.file, shape, ctx.corruption.as_ref())?;
    out.header(&layout.header_line())?;
    let users = rows::users(((if kalos { 120.0 } else { 400.0 }) * ctx.scale.sqrt()).ceil() as usize, &mut rng);
    let mut ids = rows::JobIds::new(kalos, &mut rng);
    let mut line = String::with_capacity(256);
    for (k, &i) in order.iter().enumerate() {
        line.clear();
        let user = users.pick(&mut rng);
        let job = rows::Job { id: ids.next(&mut rng), user, spec: &specs[i], kind: kinds[i], submit: submits[k] };
        if kalos {
            rows::push_kalos(&mut line, &job, &mut rng);
        } else {
            rows::push_seren(&mut line, &job, &mut rng);
        }
        out.row(&line)?;
    }
    out.finish()
}

/// The submission window: √s of the period, centred in it.
fn window(cluster: &str, scale: f64) -> (i64, i64) {
    let (t0, t1) = period(cluster);
    let len = (((t1 - t0) as f64) * scale.sqrt().min(1.0)).max(DAY as f64) as i64;
    let start = t0 + (t1 - t0 - len) / 2;
    (start, start + len)
}

/// The spec index for each submission slot (slots ascending), moving jobs
/// that would end after the period to earlier slots.
fn fit_period(submits: &[i64], specs: &[Spec], end: i64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..specs.len()).collect();
    let ends = |t: i64, s: &Spec| t + s.queue + s.run < end;
    for k in (0..order.len()).rev() {
        if ends(submits[k], &specs[order[k]]) {
            continue;
        }
        if let Some(j) = (0..k).rev().find(|&j| ends(submits[k], &specs[order[j]])) {
            order.swap(k, j);
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Effects;

    fn run(seed: u64) -> Vec<(String, Vec<u8>)> {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx { scale: 0.002, seed, effects: Effects::default(), corruption: None, archive: false };
        let files = generate(&ctx, dir.path()).unwrap();
        files.iter().map(|f| (f.file.clone(), std::fs::read(dir.path().join(&f.file)).unwrap())).collect()
    }

    #[test]
    fn same_seed_same_bytes_and_the_readme_headers() {
        let (a, b, c) = (run(5), run(5), run(6));
        assert_eq!(a, b);
        assert_ne!(a, c);
        let text = String::from_utf8(a[0].1.clone()).unwrap();
        assert_eq!(text.lines().next(), Some(SEREN.header_line().as_str()));
        assert_eq!(text.lines().count(), 1 + 2063);
        let kalos = String::from_utf8(a[1].1.clone()).unwrap();
        assert!(kalos.lines().nth(1).unwrap().contains("+00:00,"), "{kalos:.300}");
        assert!(text.lines().nth(1).unwrap().contains("+08:00,"));
    }

    #[test]
    fn periods_are_shanghai_months() {
        // 2023-03-01 00:00 +08:00 = 2023-02-28 16:00 UTC = 1677600000.
        assert_eq!(period("Seren"), (1_677_600_000, 1_693_497_600));
        let (w0, w1) = window("Kalos", 0.01);
        let (p0, p1) = period("Kalos");
        assert!(p0 < w0 && w1 < p1 && ((w1 - w0) as f64 / (p1 - p0) as f64 - 0.1).abs() < 1e-3);
    }
}
