//! Synthetic Microsoft Philly trace (ATC'19) in the owners' raw layout: the
//! JSON job log, the three per-minute utilization CSVs and the real machine
//! list, optionally packed as `trace-data.tar.gz` (`trace-data/<file>`).
//!
//! Steps: [`plan`] fixes the windows and the machines that receive work at
//! this scale (f = √scale of the machines, windows shrunk by f around the
//! 2017-11-05 DST change); [`jobs`] draws the jobs (real runtimes, statuses
//! hitting the published count and GPU-time shares); [`sched`] places every
//! attempt on free GPUs of the machine list; [`joblog`] and [`util`] write
//! the files, the utilization following the placements. Only the job log is
//! held in memory (about 120 k jobs at scale 1); the utilization rows
//! (tens of millions) are streamed, GPU and CPU/memory files on two threads.
//!
//! Every instant is UTC inside; the job log is written in naive
//! America/Los_Angeles time and the utilization stamps with PDT/PST, so
//! ingest's conversions line both up to the same UTC minute ([`clock`]).

mod clock;
mod joblog;
mod jobs;
mod plan;
mod sched;
mod util;

use std::path::Path;

use super::{Ctx, FileReport};
use crate::inventory::PHILLY_MACHINE_LIST;
use tracelab_schema::error::{IoContext, Result};
use tracelab_schema::outfile::{self, Replace};
use tracelab_schema::raw::philly::{ARCHIVE, CPU_UTIL, GPU_UTIL, JOB_LOG, MACHINE_LIST, MEM_UTIL};

pub fn generate(ctx: &Ctx, dir: &Path) -> Result<Vec<FileReport>> {
    let plan = plan::Plan::new(ctx.scale);
    let fleet = plan::fleet(&plan, ctx.seed);
    let mut jobs = jobs::draw(&plan, &fleet, ctx.seed);
    let occ = sched::schedule(&mut jobs.jobs, &fleet, &plan, ctx.seed);
    let mut files = vec![joblog::write(dir, &jobs, &fleet, ctx.corruption.as_ref())?];
    drop(jobs);
    files.extend(util::write(dir, ctx, &plan, &fleet, &occ)?);
    files.push(machine_list(dir)?);
    if ctx.archive {
        files.push(archive(dir)?);
    }
    Ok(files)
}

/// The real machine list, verbatim (never corrupted: it is inventory).
fn machine_list(dir: &Path) -> Result<FileReport> {
    let path = dir.join(MACHINE_LIST.file);
    outfile::write(&path, PHILLY_MACHINE_LIST.as_bytes(), Replace::Regular)?;
    let rows = PHILLY_MACHINE_LIST.lines().count().saturating_sub(1) as u64;
    Ok(FileReport { file: MACHINE_LIST.file.to_string(), bytes: PHILLY_MACHINE_LIST.len() as u64, rows })
}

/// `trace-data.tar.gz` with the five files under `trace-data/`.
fn archive(dir: &Path) -> Result<FileReport> {
    let names = [JOB_LOG, GPU_UTIL.file, CPU_UTIL.file, MEM_UTIL.file, MACHINE_LIST.file];
    let paths: Vec<std::path::PathBuf> = names.iter().map(|n| dir.join(n)).collect();
    let inner: Vec<String> = names.iter().map(|n| format!("trace-data/{n}")).collect();
    let members: Vec<(&Path, &str)> =
        paths.iter().map(std::path::PathBuf::as_path).zip(inner.iter().map(String::as_str)).collect();
    let path = dir.join(ARCHIVE);
    crate::archive::tar_gz(&path, &members)?;
    let bytes = std::fs::metadata(&path).at(&path)?.len();
    Ok(FileReport { file: ARCHIVE.to_string(), bytes, rows: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Effects;

    fn run(seed: u64) -> Vec<(String, Vec<u8>)> {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx { scale: 0.0005, seed, effects: Effects::default(), corruption: None, archive: true };
        let files = generate(&ctx, dir.path()).unwrap();
        files.iter().map(|f| (f.file.clone(), std::fs::read(dir.path().join(&f.file)).unwrap())).collect()
    }

    #[test]
    fn same_seed_same_bytes_and_the_machine_list_is_verbatim() {
        let (a, b, c) = (run(11), run(11), run(12));
        assert_eq!(a, b);
        assert_ne!(a[0].1, c[0].1);
        let list = a.iter().find(|f| f.0 == MACHINE_LIST.file).unwrap();
        assert_eq!(list.1, PHILLY_MACHINE_LIST.as_bytes());
        assert_eq!(a.last().unwrap().0, ARCHIVE);
    }
}
