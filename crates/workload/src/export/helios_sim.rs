//! `--to helios-sim`: the `cluster_log.csv` that HeliosArtifact's QSSF
//! framework reads (`QSSF Service/utils.py`, `trace_process` and
//! `trace_philly_process`: `pd.read_csv(..., parse_dates=['submit_time'],
//! usecols=[...])`). Exactly the nine columns those loaders name:
//! - `job_id`: 1, 2, ... in submission order; `jobname`: the trace's id (no
//!   public trace records job names, so QSSF's name-similarity estimator has
//!   nothing to learn from it: use fifo, sjf or srtf);
//! - `user`; `vc`: the trace's VC name (the keys of the framework's
//!   `vc_dict_homo.pkl`; PAI has none: `pai`); a selection spanning several
//!   Helios clusters is refused, since the framework simulates one cluster;
//! - `gpu_num`: whole GPUs (a fractional PAI demand rounded up); `cpu_num`:
//!   Helios `cpu_num`, PAI `inst_num x plan_cpu/100`, empty for Philly;
//! - `state`: Helios' own code; for PAI and Philly the normalized status as
//!   COMPLETED, FAILED or CANCELLED;
//! - `submit_time`: the trace's wall clock (`YYYY-MM-DD HH:MM:SS` in its
//!   zone, as in the Helios logs), not shifted: the framework selects its
//!   experiment's dates itself (2020-09 for Helios, 2017-10/11 for Philly);
//! - `duration`: the replayed duration, whole seconds.

use std::collections::BTreeSet;

use tracelab_schema::error::{Error, Result};
use tracelab_schema::{status::normalize, Trace};

use super::jobs::{ExportJob, Selected};
use super::text::{csv_line, num, secs, wall_clock, whole_gpus};
use super::Written;

const HEAD: [&str; 9] = ["job_id", "user", "vc", "jobname", "gpu_num", "cpu_num", "state", "submit_time", "duration"];

/// The CSV and its mapping notes; several Helios clusters are a usage error.
pub fn write(sel: &Selected) -> Result<Written> {
    let clusters: BTreeSet<&str> = sel.jobs.iter().map(|j| j.detail.cluster.as_str()).collect();
    if clusters.len() > 1 {
        return Err(Error::Usage(format!(
            "--to helios-sim: the framework simulates one cluster at a time, but the selection has jobs of {}; \
             pass --trace helios:CLUSTER",
            clusters.into_iter().collect::<Vec<_>>().join(", ")
        )));
    }
    let mut text = csv_line(&HEAD);
    for (i, j) in sel.jobs.iter().enumerate() {
        text.push_str(&csv_line(&row(i, j, sel)));
    }
    let fractional = sel.jobs.iter().filter(|j| j.gpu_milli % 1000 != 0).count() as u64;
    let no_cpu = sel.jobs.iter().filter(|j| cpus(j).is_empty()).count() as u64;
    let notes = [
        ("fractional GPU demand rounded up to whole GPUs", fractional),
        ("no CPU request recorded: cpu_num empty", no_cpu),
    ];
    let notes = notes.into_iter().filter(|(_, n)| *n > 0).map(|(s, n)| (s.to_string(), n)).collect();
    Ok(Written { text, ids: None, notes })
}

fn row(i: usize, j: &ExportJob, sel: &Selected) -> Vec<String> {
    vec![
        (i + 1).to_string(),
        j.user.clone(),
        j.detail.vc.clone(),
        j.trace_id.clone(),
        whole_gpus(j.gpu_milli).to_string(),
        cpus(j),
        state(sel.trace, &j.detail.status),
        wall_clock(sel.origin + j.submit, sel.trace),
        secs(j.duration).to_string(),
    ]
}

/// CPUs of the whole job, empty when the trace has none.
fn cpus(j: &ExportJob) -> String {
    let d = &j.detail;
    let inst = if d.inst_gpus.is_some() { d.instances.unwrap_or(1) as f64 } else { 1.0 };
    d.cpus.map(|c| num(c * inst)).unwrap_or_default()
}

/// Helios' state vocabulary.
fn state(trace: Trace, raw: &str) -> String {
    if matches!(trace, Trace::Helios | Trace::Acme) {
        return raw.to_string();
    }
    match normalize(trace, raw) {
        "completed" => "COMPLETED".into(),
        "failed" => "FAILED".into(),
        "killed" => "CANCELLED".into(),
        _ => raw.to_string(),
    }
}
