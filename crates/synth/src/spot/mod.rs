//! Synthetic Alibaba cluster-trace-v2026-spot-gpu (ASPLOS'26 GFS) in the
//! owners' layout: `job_info_df.csv` and `node_info_df.csv` with header
//! rows, numbers written as integers as the README's rows. Nothing is
//! packed with `--archive` (the repository holds plain CSVs). The trace has
//! no licence: no real row is copied, only the published aggregates are
//! targets ([`models`], [`jobs`]).
//!
//! Scale: jobs are the published 466,867 x s, submitted in the first √s of
//! the six months; the node list keeps √s of each model's nodes (at least
//! one), so each model's offered load is its target at every scale.

mod jobs;
mod models;

use std::fmt::Write;
use std::path::Path;

use super::out::{CsvOut, RowShape};
use super::{Ctx, FileReport};
use crate::rng::Rng;
use tracelab_schema::civil::{hour_weekday, DAY};
use tracelab_schema::error::Result;
use tracelab_schema::raw::spot::{JOBS, NODES};

use jobs::{SpotJob, PERIOD_S};
use models::MODELS;

/// Jobs and organizations of the real trace (the README's files; 119
/// organizations).
const JOBS_AT_SCALE_ONE: f64 = 466_867.0;
const ORGS_AT_SCALE_ONE: f64 = 119.0;

const JOB_SHAPE: RowShape = RowShape { numeric: &[3, 4, 5, 6, 7], status: Some(8), span: None };
const NODE_SHAPE: RowShape = RowShape { numeric: &[1, 2], status: None, span: None };

pub fn generate(ctx: &Ctx, dir: &Path) -> Result<Vec<FileReport>> {
    let mut rng = Rng::stream(ctx.seed, "spot");
    let f = ctx.scale.sqrt().min(1.0);
    let nodes = models::nodes(f, &mut rng);
    let cap = models::capacity(&nodes);
    let window = ((PERIOD_S as f64 * f) as i64).max(DAY);
    let n = ((JOBS_AT_SCALE_ONE * ctx.scale).round() as usize).max(MODELS.len());
    let orgs = (ORGS_AT_SCALE_ONE * f).round().max(3.0) as usize;
    let all = jobs::jobs(n, window, &cap, orgs, &mut rng);
    Ok(vec![write_jobs(ctx, dir, &all, &mut rng)?, write_nodes(ctx, dir, &nodes, &mut rng)?])
}

fn write_jobs(ctx: &Ctx, dir: &Path, all: &[SpotJob], rng: &mut Rng) -> Result<FileReport> {
    let mut out = CsvOut::create(dir, JOBS.file, JOB_SHAPE, ctx.corruption.as_ref())?;
    out.header(&JOBS.header_line())?;
    let mut name = 1_000 + rng.below(9_000);
    let mut line = String::with_capacity(96);
    for j in all {
        line.clear();
        let model = MODELS[j.model].name;
        let kind = if j.hp { "HP" } else { "Spot" };
        write!(
            line,
            "{name},{},{model},{},{},{},{},{},{kind}",
            j.org + 1,
            j.cpu_per_worker,
            j.per_worker,
            j.workers,
            j.submit,
            j.duration
        )
        .expect("write");
        out.row(&line)?;
        name += 1 + rng.poisson(0.1);
    }
    out.finish()
}

fn write_nodes(ctx: &Ctx, dir: &Path, nodes: &[models::Node], rng: &mut Rng) -> Result<FileReport> {
    let mut out = CsvOut::create(dir, NODES.file, NODE_SHAPE, ctx.corruption.as_ref())?;
    out.header(&NODES.header_line())?;
    let mut name = 0;
    let mut line = String::with_capacity(48);
    for node in nodes {
        line.clear();
        write!(line, "{},{},{},{name}", MODELS[node.model].name, node.gpus, node.cpus).expect("write");
        out.row(&line)?;
        name += 1 + u64::from(rng.chance(0.015));
    }
    out.finish()
}

/// `n` submissions (ascending) in [1, window): a working day in Shanghai
/// (the trace's seconds count from a local midnight).
fn submit_times(n: usize, window: i64, rng: &mut Rng) -> Vec<i64> {
    const HOUR: [f64; 24] = [
        0.6, 0.5, 0.4, 0.35, 0.3, 0.3, 0.35, 0.5, 0.8, 1.1, 1.3, 1.35, 1.2, 1.3, 1.4, 1.45, 1.45, 1.4, 1.3, 1.2, 1.15,
        1.1, 0.95, 0.8,
    ];
    const WEEKDAY: [f64; 7] = [1.1, 1.1, 1.1, 1.1, 1.05, 0.8, 0.75];
    // 2024-03-01 was a Friday; civil's weekday counts from 1970-01-01 (a Thursday).
    const FRIDAY_SHIFT: i64 = DAY;
    let weight = |h: i64| {
        let (hour, wd) = hour_weekday(h * 3600 + FRIDAY_SHIFT);
        HOUR[hour as usize] * WEEKDAY[wd as usize]
    };
    let hours = (window + 3599) / 3600;
    let cum: Vec<f64> = (0..hours)
        .scan(0.0, |s, h| {
            *s += weight(h);
            Some(*s)
        })
        .collect();
    let total = *cum.last().unwrap_or(&1.0);
    let mut out: Vec<i64> = (0..n)
        .map(|k| {
            let u = (k as f64 + rng.f64()) / n.max(1) as f64 * total;
            let h = cum.partition_point(|&c| c <= u).min(cum.len() - 1) as i64;
            (h * 3600 + rng.below(3600) as i64).clamp(1, window - 1)
        })
        .collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Effects;

    fn run(seed: u64, scale: f64) -> Vec<(String, Vec<u8>)> {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx { scale, seed, effects: Effects::default(), corruption: None, archive: false };
        let files = generate(&ctx, dir.path()).unwrap();
        files.iter().map(|f| (f.file.clone(), std::fs::read(dir.path().join(&f.file)).unwrap())).collect()
    }

    #[test]
    fn same_seed_same_bytes_in_the_readme_layout() {
        let (a, b, c) = (run(5, 0.002), run(5, 0.002), run(6, 0.002));
        assert_eq!(a, b);
        assert_ne!(a, c);
        let jobs = String::from_utf8(a[0].1.clone()).unwrap();
        assert_eq!(jobs.lines().next(), Some(JOBS.header_line().as_str()));
        assert_eq!(jobs.lines().count(), 1 + 934);
        let first: Vec<&str> = jobs.lines().nth(1).unwrap().split(',').collect();
        assert_eq!((first[6], first[8]), ("0", "HP"), "the trace starts with an HP job at 0");
        let nodes = String::from_utf8(a[1].1.clone()).unwrap();
        assert_eq!(nodes.lines().next(), Some("gpu_model,gpu_capacity_num,cpu_num,node_name"));
    }

    #[test]
    fn weekday_shift_puts_the_origin_on_a_friday() {
        // 2024-03-01 (day 0 of the trace) was a Friday (4 with Monday = 0).
        assert_eq!(hour_weekday(DAY).1, 4);
    }
}
