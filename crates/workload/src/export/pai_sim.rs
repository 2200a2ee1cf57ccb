//! `--to pai-sim`: the job CSV the PAI simulator reads
//! (`cluster-trace-gpu-v2020/simulator`, `Simulator.add_job` -> `_add_job`
//! in `utils.py`), one row per job with a header; the loader reads columns by
//! name:
//! - `job_id`: 1, 2, ... in submission order (the simulator sorts and
//!   breaks ties by it and saves it into an integer array, so it must be an
//!   integer); `jobid`: the trace's id (the loader drops this column);
//! - `user`: the trace's user; `gpu_type`: the PAI task's assigned GPU type
//!   (MISC, P100, T4, V100, V100M32; empty for Philly and Helios, which do
//!   not record one), used only with the simulator's GPU-type matching;
//! - `num_inst`, `num_gpu`, `num_cpu`: instances and GPUs and CPUs per
//!   instance, in units (the loader multiplies by 100): PAI `inst_num`,
//!   `plan_gpu/100`, `plan_cpu/100`; Philly and Helios one instance with the
//!   job's GPUs (and Helios `cpu_num`; Philly records no CPUs: empty, which
//!   the loader reads as 0);
//! - `submit_time`, `duration`, `wait_time`: whole seconds, submission from
//!   the window start, the replayed duration, the recorded queueing delay
//!   (empty when not recorded);
//! - `user_dur`, `user_gpu_dur`, `group_dur`, `group_gpu_dur`: predicted
//!   durations in seconds ([`super::history`]), rounded to the millisecond.

use super::history::{Predicted, COLUMNS};
use super::jobs::{ExportJob, Selected};
use super::text::{csv_line, gpus, num, secs};
use super::Written;

const HEAD: [&str; 10] =
    ["job_id", "jobid", "user", "gpu_type", "num_inst", "num_gpu", "num_cpu", "submit_time", "duration", "wait_time"];

/// The CSV and its mapping notes.
pub fn write(sel: &Selected) -> Written {
    let mut head: Vec<&str> = HEAD.to_vec();
    head.extend(COLUMNS);
    let mut text = csv_line(&head);
    for (i, (j, p)) in sel.jobs.iter().zip(&sel.predicted).enumerate() {
        text.push_str(&csv_line(&row(i, j, p)));
    }
    Written { text, ids: None, notes: notes(sel) }
}

fn row(i: usize, j: &ExportJob, p: &Predicted) -> Vec<String> {
    let d = &j.detail;
    let per_inst = d.inst_gpus.map_or_else(|| gpus(j.gpu_milli), num);
    let mut r = vec![
        (i + 1).to_string(),
        j.trace_id.clone(),
        j.user.clone(),
        d.gpu_type.clone().unwrap_or_default(),
        d.instances.filter(|_| d.inst_gpus.is_some()).unwrap_or(1).to_string(),
        per_inst,
        d.cpus.map(num).unwrap_or_default(),
        secs(j.submit).to_string(),
        secs(j.duration).to_string(),
        d.wait.map(|w| secs(w).to_string()).unwrap_or_default(),
    ];
    r.extend(p.secs.iter().map(|s| num((s * 1000.0).round() / 1000.0)));
    r
}

fn notes(sel: &Selected) -> Vec<(String, u64)> {
    let count = |f: &dyn Fn(&ExportJob) -> bool| sel.jobs.iter().filter(|j| f(j)).count() as u64;
    let fell_back = sel.predicted.iter().filter(|p| p.fallbacks > 0).count() as u64;
    let no_history = sel.predicted.iter().filter(|p| p.no_history).count() as u64;
    let all = [
        ("no GPU type recorded: gpu_type empty", count(&|j| j.detail.gpu_type.is_none())),
        ("no CPU request recorded: num_cpu empty (read as 0)", count(&|j| j.detail.cpus.is_none())),
        ("no recorded wait: wait_time empty", count(&|j| j.detail.wait.is_none())),
        ("a prediction key without earlier-ended jobs: the mean of all ended jobs used", fell_back),
        ("submitted before any job ended: predictions 0", no_history),
    ];
    all.into_iter().filter(|(_, n)| *n > 0).map(|(s, n)| (s.to_string(), n)).collect()
}
