//! Synthetic SenseTime Helios trace (SC'21) in the owners' raw layout: one
//! folder per cluster (Earth, Saturn, Uranus, Venus) with `cluster_log.csv`
//! and `cluster_gpu_number.csv`, optionally packed as `data.zip`
//! (`data/<Cluster>/...`).
//!
//! Calibration: every cluster follows its row of the published
//! `helios_cluster_summary.csv` (job counts, CPU/GPU split, final-state
//! rates, median and mean run and queue times, GPU counts, GPU time by
//! state), see [`specs`]; [`jobs`] places the jobs in time and VCs. The VC GPU tables of Venus and Earth are the real
//! ones; Saturn's and Uranus' are synthesized ([`vcs`]).
//!
//! Scale: the job count of every cluster is the published one × s. So that
//! the load per GPU (and the GPU allocation, SC'21 Fig 2a) stays realistic,
//! a share f_v ≈ √s of a cluster's GPUs (whole VCs) receives the jobs of a
//! window of f_t = s / f_v of the period, centred in it ([`vcs::select`]);
//! at scale 1 every VC with GPUs and the whole period. The GPU tables are
//! always written complete.
//!
//! Times are naive (`2020-06-09 18:41:01`), as in the real files; every job
//! is submitted inside the window and ends before 2020-09-29.

pub(crate) mod dist;
mod jobs;
pub(crate) mod specs;
pub(crate) mod summary;
mod time;
mod vcs;

use std::path::{Path, PathBuf};

use super::out::{CsvOut, RowShape};
use super::{Ctx, FileReport};
use crate::rng::Rng;
use tracelab_schema::error::{IoContext, Result};
use tracelab_schema::outfile::{self, Replace};
use tracelab_schema::raw::helios::{ARCHIVE, CLUSTERS, CLUSTER_LOG, GPU_NUMBER_FILE};

/// Users per cluster at scale 1 (scaled by √s, like the active GPUs).
fn users_at_scale_one(cluster: &str) -> f64 {
    match cluster {
        "Venus" => 130.0,
        "Earth" => 300.0,
        "Saturn" => 500.0,
        _ => 260.0,
    }
}

/// Fields ingest validates: numbers, the state, and (start, end) order.
const LOG_SHAPE: RowShape = RowShape { numeric: &[0, 3, 4, 5, 10, 11], status: Some(6), span: Some((8, 9)) };

pub fn generate(ctx: &Ctx, dir: &Path) -> Result<Vec<FileReport>> {
    let mut files = Vec::new();
    for cluster in CLUSTERS {
        files.extend(write_cluster(ctx, dir, cluster)?);
    }
    if ctx.archive {
        files.push(archive(dir)?);
    }
    Ok(files)
}

fn write_cluster(ctx: &Ctx, dir: &Path, cluster: &str) -> Result<Vec<FileReport>> {
    let sum = summary::cluster(cluster);
    let table = vcs::table(cluster, ctx.seed, sum.gpus);
    let gpu_rel = format!("{cluster}/{GPU_NUMBER_FILE}");
    let gpu_path = dir.join(&gpu_rel);
    std::fs::create_dir_all(dir.join(cluster)).at(dir.join(cluster))?;
    outfile::write(&gpu_path, table.text.as_bytes(), Replace::Regular)?;
    let gpu_report = FileReport { file: gpu_rel, bytes: table.text.len() as u64, rows: table.caps.len() as u64 };
    let mut rng = Rng::stream(ctx.seed, &format!("helios:{cluster}"));
    let active = vcs::select(&table, ctx.scale, &mut rng);
    let n = ((sum.jobs * ctx.scale).round() as usize).max(1);
    let mut specs = specs::specs(&sum, n, largest_fit(&table, &active).min(128), &mut rng);
    specs::spread(&mut specs, &mut rng);
    let submits = jobs::submit_times(n, &table, &active, &mut rng);
    jobs::fit_period(&submits, &mut specs);
    let users = jobs::Users::new((users_at_scale_one(cluster) * ctx.scale.sqrt()).round() as usize, &active, &mut rng);
    let rel = format!("{cluster}/{}", CLUSTER_LOG.file);
    let mut out = CsvOut::create(dir, &rel, LOG_SHAPE, ctx.corruption.as_ref())?;
    out.header(&CLUSTER_LOG.header_line())?;
    let mut id = first_job_id(cluster, &mut rng);
    let mut line = String::with_capacity(160);
    for (spec, &submit) in specs.iter().zip(&submits) {
        let (v, k, g) = jobs::pick_vc(&table, &active, submit, spec.gpus, &mut rng);
        let user = users.pick(k, &mut rng);
        let cpus = jobs::cpus(g, &mut rng);
        line.clear();
        jobs::push_row(&mut line, id, user, &table.vcs[v], spec, g, cpus, submit);
        out.row(&line)?;
        id += 1 + rng.poisson(0.3);
    }
    Ok(vec![out.finish()?, gpu_report])
}

/// The largest GPU count drawn: one that fits an active VC on every day of
/// the window, and at most half of the active GPUs (a small sample with a
/// few VCs would otherwise be one job's for days).
fn largest_fit(table: &vcs::GpuTable, active: &vcs::Active) -> u32 {
    let (t0, t1) = active.window;
    let days: Vec<i64> = (t0..t1).step_by(time::DAY as usize).chain(std::iter::once(t1 - 1)).collect();
    let fit =
        days.iter().map(|&t| active.vcs.iter().map(|&v| table.cap(v, t)).max().unwrap_or(0)).filter(|&c| c > 0).min();
    let half =
        days.iter().map(|&t| active.vcs.iter().map(|&v| table.cap(v, t)).sum::<u32>() / 2).filter(|&c| c > 0).min();
    fit.unwrap_or(8).min(half.unwrap_or(8)).max(1)
}

/// Job ids are per-cluster Slurm ids: start somewhere in the millions.
fn first_job_id(cluster: &str, rng: &mut Rng) -> u64 {
    let base = match cluster {
        "Venus" => 1_200_000,
        "Earth" => 3_000_000,
        "Saturn" => 5_000_000,
        _ => 8_000_000,
    };
    base + rng.below(100_000)
}

/// `data.zip` with `data/<Cluster>/<file>` for every file written.
fn archive(dir: &Path) -> Result<FileReport> {
    let mut rels = Vec::new();
    for cluster in CLUSTERS {
        for file in [CLUSTER_LOG.file, GPU_NUMBER_FILE] {
            rels.push(format!("{cluster}/{file}"));
        }
    }
    let paths: Vec<PathBuf> = rels.iter().map(|r| dir.join(r)).collect();
    let names: Vec<String> = rels.iter().map(|r| format!("data/{r}")).collect();
    let members: Vec<(&Path, &str)> =
        paths.iter().map(PathBuf::as_path).zip(names.iter().map(String::as_str)).collect();
    let path = dir.join(ARCHIVE);
    crate::archive::zip(&path, &members)?;
    let bytes = std::fs::metadata(&path).at(&path)?.len();
    Ok(FileReport { file: ARCHIVE.to_string(), bytes, rows: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::{HELIOS_EARTH_GPUS, HELIOS_VENUS_GPUS};
    use crate::Effects;

    fn run(seed: u64) -> Vec<(String, Vec<u8>)> {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx { scale: 0.0005, seed, effects: Effects::default(), corruption: None, archive: true };
        let files = generate(&ctx, dir.path()).unwrap();
        files.iter().map(|f| (f.file.clone(), std::fs::read(dir.path().join(&f.file)).unwrap())).collect()
    }

    #[test]
    fn same_seed_same_bytes_and_real_gpu_tables_are_verbatim() {
        let (a, b, c) = (run(5), run(5), run(6));
        assert_eq!(a, b);
        assert_ne!(a[0].1, c[0].1);
        let file = |name: &str| a.iter().find(|f| f.0 == name).unwrap().1.clone();
        assert_eq!(file("Venus/cluster_gpu_number.csv"), HELIOS_VENUS_GPUS.as_bytes());
        assert_eq!(file("Earth/cluster_gpu_number.csv"), HELIOS_EARTH_GPUS.as_bytes());
        assert_eq!(a.last().unwrap().0, ARCHIVE);
    }
}
