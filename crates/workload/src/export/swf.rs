//! `--to swf`: the Standard Workload Format 2.2 (fields in
//! [`tracelab_schema::swf::FIELDS`]), read by Batsim's converters, Slurm
//! simulators and evalys. The choices, also written as `; Note:` lines:
//! - a processor is a GPU: fields 5 and 8 hold the job's GPUs, a fractional
//!   (shared-GPU) demand rounded up to whole GPUs;
//! - times are whole seconds (halves up); Submit Time counts from
//!   `UnixStartTime`, the window's start; Wait Time is the trace's recorded
//!   queueing delay, Run Time the replayed duration;
//! - Status 1 completed, 0 failed, 5 killed/cancelled (the normalized status
//!   of [`tracelab_schema::status`]), -1 otherwise;
//! - users, groups, queues (virtual clusters) and partitions (Helios
//!   clusters) are numbered from 1 in order of first appearance; queue and
//!   partition names are in the `Queue:`/`Partition:` header lines and every
//!   number's name in the `--ids` file;
//! - fields the traces do not record are -1.

use tracelab_schema::error::Result;
use tracelab_schema::swf::{self, status, UNKNOWN};
use tracelab_schema::{status::normalize, Trace};
use tracelab_sim::csv::Interner;
use tracelab_store::Store;

use super::jobs::{ExportJob, Selected};
use super::text::{csv_line, one_line, secs, whole_gpus};
use super::{Request, Written};
use crate::cluster;
use crate::select;

/// The numbers the file assigns, in order of first appearance.
#[derive(Default)]
struct Numbers {
    users: Interner,
    groups: Interner,
    queues: Interner,
    partitions: Interner,
}

/// 1-based number of `name`.
fn number(i: &mut Interner, name: &str) -> i64 {
    i.id(name) as i64 + 1
}

/// The SWF file, its `--ids` numbering and the mapping notes.
pub fn write(store: &Store, sel: &Selected, req: &Request) -> Result<Written> {
    let mut n = Numbers::default();
    let mut body = String::new();
    let mut counts = Counts::default();
    for (i, j) in sel.jobs.iter().enumerate() {
        let rec = record(i, j, sel.trace, &mut n);
        counts.add(j, &rec);
        let fields: Vec<String> = rec.iter().map(i64::to_string).collect();
        body.push_str(&fields.join(" "));
        body.push('\n');
    }
    let machines = machines(store, req, sel);
    let mut text = header(sel, req, &n, &machines);
    text.push_str(&body);
    Ok(Written { text, ids: Some(ids(sel, &n)), notes: counts.notes() })
}

/// The 18 fields of one job.
fn record(i: usize, j: &ExportJob, trace: Trace, n: &mut Numbers) -> [i64; 18] {
    let gpus = whole_gpus(j.gpu_milli) as i64;
    let queue = match (trace, &j.detail.class) {
        (Trace::Pai, _) => UNKNOWN,
        // The spot trace's classes are its queues: HP and Spot.
        (Trace::Spot, Some(class)) => number(&mut n.queues, class),
        _ => number(&mut n.queues, &j.vc),
    };
    let partition = match (trace, &j.detail.gpu_type) {
        (Trace::Helios | Trace::Acme, _) => number(&mut n.partitions, &j.detail.cluster),
        // Each GPU model is a pool of its own.
        (Trace::Spot, Some(model)) => number(&mut n.partitions, model),
        _ => UNKNOWN,
    };
    [
        i as i64 + 1,
        secs(j.submit),
        j.detail.wait.map_or(UNKNOWN, secs),
        secs(j.duration),
        gpus,
        UNKNOWN,
        UNKNOWN,
        gpus,
        UNKNOWN,
        UNKNOWN,
        status_code(trace, &j.detail.status),
        number(&mut n.users, &j.user),
        number(&mut n.groups, &j.group),
        UNKNOWN,
        queue,
        partition,
        UNKNOWN,
        UNKNOWN,
    ]
}

/// Field 11 from the trace's status code.
pub fn status_code(trace: Trace, raw: &str) -> i64 {
    match normalize(trace, raw) {
        "completed" => status::COMPLETED,
        "failed" => status::FAILED,
        "killed" => status::CANCELLED,
        _ => UNKNOWN,
    }
}

/// Jobs the mapping changed or could not fill.
#[derive(Default)]
struct Counts {
    fractional: u64,
    no_wait: u64,
    no_status: u64,
}

impl Counts {
    fn add(&mut self, j: &ExportJob, rec: &[i64; 18]) {
        self.fractional += u64::from(!j.gpu_milli.is_multiple_of(1000));
        self.no_wait += u64::from(rec[2] == UNKNOWN);
        self.no_status += u64::from(rec[10] == UNKNOWN);
    }

    fn notes(&self) -> Vec<(String, u64)> {
        let all = [
            ("fractional GPU demand rounded up to whole GPUs (processors)", self.fractional),
            ("no recorded wait: Wait Time -1", self.no_wait),
            ("status neither completed, failed nor killed: Status -1", self.no_status),
        ];
        all.into_iter().filter(|(_, n)| *n > 0).map(|(s, n)| (s.to_string(), n)).collect()
    }
}

/// `MaxNodes` and `MaxProcs`: the cluster `simulate --cluster from-trace`
/// builds, with its description; `None` (and why) when the store has none.
fn machines(store: &Store, req: &Request, sel: &Selected) -> Result<(u64, u64, String), String> {
    let mut types = Interner::default();
    let limits = tracelab_sim::Limits::default();
    let c = cluster::from_trace(store, req.trace.trace, req.trace.cluster.as_deref(), sel.origin, &mut types, &limits)
        .map_err(|e| e.to_string())?;
    let nodes = c.partitions.iter().map(|p| p.cluster.nodes().len() as u64).sum();
    Ok((nodes, c.total_gpus(), c.notes.join("; ")))
}

fn header(sel: &Selected, req: &Request, n: &Numbers, machines: &Result<(u64, u64, String), String>) -> String {
    let mut h: Vec<(&str, String)> = vec![
        ("Version", swf::VERSION.into()),
        ("Computer", sel.trace.title().into()),
        ("Installation", sel.source.clone()),
        ("Information", information(sel.trace).into()),
        ("Conversion", format!("tracelab {} export --to swf", env!("CARGO_PKG_VERSION"))),
        ("MaxJobs", sel.jobs.len().to_string()),
        ("MaxRecords", sel.jobs.len().to_string()),
        ("Preemption", "No".into()),
        ("UnixStartTime", secs(sel.origin).to_string()),
        ("TimeZoneString", sel.trace.local_tz().into()),
    ];
    if let Ok((nodes, gpus, _)) = machines {
        h.push(("MaxNodes", nodes.to_string()));
        h.push(("MaxProcs", gpus.to_string()));
    }
    named(&mut h, "Queue", &n.queues);
    named(&mut h, "Partition", &n.partitions);
    for note in notes(sel, req, machines) {
        h.push(("Note", note));
    }
    h.into_iter().map(|(k, v)| format!("; {k}: {}\n", one_line(&v))).collect()
}

/// `MaxQueues: n` and one `Queue: number name` line each (likewise for
/// partitions), when there are any.
fn named(h: &mut Vec<(&str, String)>, kind: &'static str, names: &Interner) {
    if names.names.is_empty() {
        return;
    }
    let max = if kind == "Queue" { "MaxQueues" } else { "MaxPartitions" };
    h.push((max, names.names.len().to_string()));
    for (i, name) in names.names.iter().enumerate() {
        h.push((kind, format!("{} {name}", i + 1)));
    }
}

/// Where the trace comes from.
fn information(trace: Trace) -> &'static str {
    match trace {
        Trace::Pai => "https://github.com/alibaba/clusterdata/tree/master/cluster-trace-gpu-v2020",
        Trace::Philly => "https://github.com/msr-fiddle/philly-traces",
        Trace::Helios => "https://github.com/S-Lab-System-Group/HeliosData",
        Trace::Swf => "https://www.cs.huji.ac.il/labs/parallel/workload/",
        Trace::Acme => "https://github.com/InternLM/AcmeTrace",
        Trace::Spot => "https://github.com/alibaba/clusterdata/tree/master/cluster-trace-v2026-spot-gpu",
    }
}

fn notes(sel: &Selected, req: &Request, machines: &Result<(u64, u64, String), String>) -> Vec<String> {
    let (wait, group) = match sel.trace {
        Trace::Pai => ("earliest instance start - task start", "the job's group tag, else its user"),
        Trace::Philly => ("first attempt start - submission", "the virtual cluster"),
        Trace::Helios => ("the raw queue column", "the virtual cluster"),
        Trace::Swf => ("the log's Wait Time", "the log's Group ID"),
        Trace::Acme => ("start_time - submit_time", "the workload type (Pretrain, Eval, ...)"),
        Trace::Spot => {
            ("not recorded (-1)", "the organization; Queue is the class (HP or Spot), Partition the GPU model")
        }
    };
    let sample = req
        .selection
        .sample
        .map_or_else(|| "no sample".to_string(), |k| format!("a uniform sample of {k} (seed {})", req.selection.seed));
    let left: Vec<String> = sel.left_out.0.iter().map(|(r, k)| format!("{k} {r}")).collect();
    let cluster = match machines {
        Ok((_, _, what)) => {
            format!("MaxNodes and MaxProcs are the machines of `tracelab simulate --cluster from-trace`: {what}.")
        }
        Err(why) => format!("MaxNodes and MaxProcs omitted: {why}."),
    };
    vec![
        format!("One job = {}.", sel.unit),
        format!(
            "Selection: window {}, {sample}; {} of {} rows written; left out: {}.",
            select::describe(sel.origin, sel.end),
            sel.jobs.len(),
            sel.rows,
            if left.is_empty() { "none".to_string() } else { left.join(", ") }
        ),
        "A processor is one GPU: fields 5 and 8 are the job's GPUs, a fractional (shared-GPU) demand rounded up to whole GPUs.".into(),
        "Times are whole seconds, halves rounded up; Submit Time counts from UnixStartTime, the window's start.".into(),
        format!("Wait Time is the trace's recorded queueing delay ({wait}); Run Time is the replayed duration."),
        "Status: 1 completed, 0 failed, 5 killed or cancelled (the trace's code, normalized as in the jobs table), -1 otherwise.".into(),
        format!("User and Group IDs number users and groups (group = {group}) from 1 in order of first appearance; Queue = virtual cluster (-1 for PAI, which has none); Partition = Helios cluster (-1 otherwise)."),
        "Fields 6, 7, 9, 10, 14, 17 and 18 are not recorded by the trace: -1.".into(),
        cluster,
    ]
}

/// `kind,number,name` for every number the file uses.
fn ids(sel: &Selected, n: &Numbers) -> String {
    let mut out = csv_line(&["kind", "number", "name"]);
    for (i, j) in sel.jobs.iter().enumerate() {
        out.push_str(&csv_line(&["job", &(i + 1).to_string(), &j.trace_id]));
    }
    for (kind, names) in [("user", &n.users), ("group", &n.groups), ("queue", &n.queues), ("partition", &n.partitions)]
    {
        for (i, name) in names.names.iter().enumerate() {
            out.push_str(&csv_line(&[kind, &(i + 1).to_string(), name]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_codes_follow_the_normalized_status() {
        assert_eq!(status_code(Trace::Philly, "Pass"), 1);
        assert_eq!(status_code(Trace::Philly, "Failed"), 0);
        assert_eq!(status_code(Trace::Philly, "Killed"), 5);
        assert_eq!(status_code(Trace::Helios, "TIMEOUT"), 0);
        assert_eq!(status_code(Trace::Helios, "CANCELLED"), 5);
        assert_eq!(status_code(Trace::Helios, "SUSPENDED"), -1);
        assert_eq!(status_code(Trace::Pai, "Terminated"), 1);
        assert_eq!(status_code(Trace::Pai, "Interrupted"), 5);
    }
}
