//! Synthetic Alibaba PAI cluster-trace-gpu-v2020: the seven headerless
//! CSVs with their `.header` files (and, with `--archive`, each table as the
//! `<stem>.tar.gz` it is downloaded as), calibrated to the NSDI'22 numbers.
//!
//! How it is made:
//! - [`workload`] decides users, recurring groups and the job list up front
//!   (structures, requests, usage ratios, runtimes, tags; exact counts);
//! - [`sim`] replays the jobs on the real machine table ([`machines`]):
//!   planted plus capacity queueing, gang placement within capacity, exact
//!   co-location integrals for `pai_machine_metric`, planted contention and
//!   co-location slowdowns (switchable, `Effects`);
//! - [`emit`] and [`rows`] write the rows in the owners' byte format.
//!
//! Scale: at `--scale s <= 1` a stratified `s` share of the real machines
//! (per GPU type, at least one each) receives work and each type's job
//! count is scaled by its realized machine share, over the full two-month
//! window, so load per machine and every per-task statistic stay those of
//! scale 1. Above 1 all machines work and the window lengthens by `s`.
//! `pai_machine_spec.csv` is always the complete real table, verbatim.
//! What a small pool cannot hold is adapted without changing the load: a
//! gang wider than `GANG_CAPACITY_SHARE` of its type's machines is narrowed
//! and runs longer (same work); no group holds more than
//! `GROUP_MAX_JOB_SHARE` of its type's jobs (the rest recurs as further
//! groups); each type's runtimes are normalized to its allocation target.
//! The calibration holds from `--scale 0.05` up; at 0.02 the narrowed gangs
//! leave ~70 % instead of ~85 % of the instances in gangs.
//!
//! Must not: read anything but the embedded inventory, use randomness
//! other than `synth::rng` streams, or iterate hash maps (byte-identical
//! output per seed).

mod clock;
mod emit;
mod group;
mod load;
mod machines;
mod params;
mod planted;
mod rows;
mod sim;
mod state;
mod workload;

use std::path::Path;

use super::archive::tar_gz;
use super::inventory::PAI_MACHINE_SPEC;
use super::{Ctx, FileReport};
use tracelab_schema::error::{IoContext, Result};
use tracelab_schema::outfile::{self, Replace};
use tracelab_schema::raw::pai as raw;
use tracelab_schema::raw::RawCsv;

pub fn generate(ctx: &Ctx, dir: &Path) -> Result<Vec<FileReport>> {
    let cluster = machines::cluster(machines::parse_spec(PAI_MACHINE_SPEC), ctx.scale, ctx.seed);
    let workload = workload::build(&cluster, ctx.scale, ctx.seed);
    let tables = emit::Tables::create(ctx, dir)?;
    let sim = sim::Sim::new(&workload, cluster, ctx.effects, ctx.seed, clock::t_end(ctx.scale), tables);
    let mut reports = sim.run()?.finish()?;
    reports.insert(5, write_plain(dir, raw::MACHINE_SPEC.file, PAI_MACHINE_SPEC)?);
    for table in raw::TABLES {
        let name = raw::header_file(table);
        let mut r = write_plain(dir, &name, &format!("{}\n", table.header_line()))?;
        r.rows = 0;
        reports.push(r);
    }
    if ctx.archive {
        for table in raw::TABLES {
            reports.push(archive(dir, table)?);
        }
    }
    Ok(reports)
}

/// Writes a file that is never corrupted (inventory, headers).
fn write_plain(dir: &Path, name: &str, text: &str) -> Result<FileReport> {
    let path = dir.join(name);
    outfile::write(&path, text.as_bytes(), Replace::Regular)?;
    Ok(FileReport { file: name.to_string(), bytes: text.len() as u64, rows: text.lines().count() as u64 })
}

/// `<stem>.tar.gz` holding `<stem>.csv`, as downloaded.
fn archive(dir: &Path, table: &RawCsv) -> Result<FileReport> {
    let csv = dir.join(table.file);
    let name = raw::archive_file(table);
    let path = dir.join(&name);
    tar_gz(&path, &[(&csv, table.file)])?;
    let bytes = std::fs::metadata(&path).at(&path)?.len();
    Ok(FileReport { file: name, bytes, rows: 0 })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::Effects;

    fn ctx(scale: f64, seed: u64) -> Ctx {
        Ctx { scale, seed, effects: Effects::default(), corruption: None, archive: false }
    }

    fn rows(dir: &Path, table: &RawCsv) -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(dir.join(table.file)).unwrap();
        text.lines().map(|l| l.split(',').map(str::to_string).collect()).collect()
    }

    #[test]
    fn same_seed_same_bytes_and_headers_and_spec_are_verbatim() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let ra = generate(&ctx(0.003, 5), a.path()).unwrap();
        let rb = generate(&ctx(0.003, 5), b.path()).unwrap();
        assert_eq!(ra, rb);
        for r in &ra {
            let x = std::fs::read(a.path().join(&r.file)).unwrap();
            assert_eq!(x, std::fs::read(b.path().join(&r.file)).unwrap(), "{}", r.file);
        }
        assert_eq!(std::fs::read_to_string(a.path().join("pai_machine_spec.csv")).unwrap(), PAI_MACHINE_SPEC);
        let header = std::fs::read_to_string(a.path().join("pai_task_table.header")).unwrap();
        assert_eq!(
            header,
            "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type\n"
        );
        let c = generate(&ctx(0.003, 6), b.path()).unwrap();
        assert_ne!(
            std::fs::read(a.path().join("pai_job_table.csv")).unwrap(),
            std::fs::read(b.path().join("pai_job_table.csv")).unwrap()
        );
        assert_eq!(c.len(), ra.len());
    }

    /// Every instance sits on a machine of its task's type, within the
    /// machine's capacity at every instant, and the metric rows' worker
    /// counts are the time averages of the instance table.
    #[test]
    fn placements_fit_and_metrics_agree_with_the_instance_table() {
        let dir = tempfile::tempdir().unwrap();
        generate(&ctx(0.01, 3), dir.path()).unwrap();
        let spec: HashMap<String, (String, f64, f64, f64)> = rows(dir.path(), &raw::MACHINE_SPEC)
            .into_iter()
            .map(|r| {
                (r[0].clone(), (r[1].clone(), r[2].parse().unwrap(), r[3].parse().unwrap(), r[4].parse().unwrap()))
            })
            .collect();
        let tasks: HashMap<(String, String), Vec<String>> =
            rows(dir.path(), &raw::TASK).into_iter().map(|r| ((r[0].clone(), r[1].clone()), r)).collect();
        let num = |s: &str| if s.is_empty() { 0.0 } else { s.parse::<f64>().unwrap() };
        // Per machine: (time, is_start, cpu, mem, gpu) of every instance.
        type Event = (f64, bool, f64, f64, f64);
        let mut events: HashMap<String, Vec<Event>> = HashMap::new();
        let mut spans: HashMap<String, Vec<(f64, f64)>> = HashMap::new();
        for r in rows(dir.path(), &raw::INSTANCE) {
            let t = &tasks[&(r[0].clone(), r[1].clone())];
            if r[8].is_empty() {
                continue;
            }
            let (kind, ..) = &spec[&r[8]];
            if !t[9].is_empty() {
                assert_eq!(&t[9], kind, "instance on a machine of another type");
            }
            let (cpu, mem, gpu) = (num(&t[6]), num(&t[7]), num(&t[8]));
            let (s, e) = (num(&r[6]), if r[7].is_empty() { f64::INFINITY } else { num(&r[7]) });
            let ev = events.entry(r[8].clone()).or_default();
            ev.push((s, true, cpu, mem, gpu));
            ev.push((e, false, cpu, mem, gpu));
            spans.entry(r[8].clone()).or_default().push((s, e));
        }
        for (m, mut ev) in events {
            ev.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let (_, cap_cpu, cap_mem, cap_gpu) = spec[&m];
            let (mut c, mut me, mut g) = (0.0, 0.0, 0.0);
            for (_, start, cpu, mem, gpu) in ev {
                let sign = if start { 1.0 } else { -1.0 };
                c += sign * cpu;
                me += sign * mem;
                g += sign * gpu;
                assert!(c <= cap_cpu * 100.0 + 1e-6 && me <= cap_mem + 1e-6 && g <= cap_gpu * 100.0 + 1e-6, "{m}");
            }
        }
        let metric = rows(dir.path(), &raw::MACHINE_METRIC);
        assert!(metric.len() > 100);
        for r in metric.iter().take(300) {
            let (s, e) = (num(&r[2]), num(&r[3]));
            let overlap: f64 = spans[&r[1]].iter().map(|&(a, b)| (e.min(b) - s.max(a)).max(0.0)).sum();
            let want = overlap / (e - s).max(1.0);
            assert!((want - num(&r[10])).abs() < 1e-6 * want.max(1.0), "{r:?}: {want}");
        }
    }
}
