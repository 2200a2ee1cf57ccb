//! `cluster_job_log`: the JSON list of jobs laid out like the owners' README
//! example (a `[` line, each job's `{` on its own line, 4-space indentation,
//! a machine's GPU list on one line, keys in the order status, vc, jobid,
//! attempts, submitted_time, user).
//!
//! Missing times: a launch that never ran is written with `"None"` times
//! (the notebook treats `None`, `''` and `'None'` alike); an attempt still
//! running when the log was collected has `"end_time": null`.
//!
//! `--corrupt`: a JSON file cannot lose a field or be cut without losing
//! every later job, so faults here are whole jobs made invalid, listed with
//! the line of the job's `{` (the line ingest reports): `unknown_status`
//! (status `Bogus`), `non_numeric` (a time that is not a time,
//! `yesterday`), `end_before_start` (an attempt's start and end swapped).
//! The first job is never touched and the file is never truncated.

use std::io::{BufWriter, Write};
use std::path::Path;

use super::clock::push_local;
use super::jobs::Jobs;
use super::plan::Machine;
use crate::out::Injected;
use crate::rng::Rng;
use crate::{Corruption, FileReport};
use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::outfile::{OutputFile, Replace};
use tracelab_schema::raw::philly::JOB_LOG;

/// A fault to apply to one job while writing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    None,
    Status,
    Time,
    /// Swap start and end of this attempt.
    Swap(usize),
}

pub fn write(dir: &Path, jobs: &Jobs, fleet: &[Machine], corruption: Option<&Corruption>) -> Result<FileReport> {
    let path = dir.join(JOB_LOG);
    let mut w = BufWriter::with_capacity(1 << 20, OutputFile::create(&path, Replace::Regular)?);
    let mut rng = corruption.map(|c| (c, Rng::stream(c.seed, &format!("corrupt:{JOB_LOG}"))));
    let mut text = String::with_capacity(1 << 16);
    let (mut line, mut bytes) = (1u64, 0u64);
    text.push_str("[\n");
    for (i, job) in jobs.jobs.iter().enumerate() {
        let fault = match rng.as_mut() {
            Some((c, r)) if i > 0 => {
                if r.chance(c.rate) {
                    pick_fault(job, r)
                } else {
                    Fault::None
                }
            }
            _ => Fault::None,
        };
        if fault != Fault::None {
            let (c, _) = rng.as_ref().expect("corruption on");
            let (kind, column) = describe(fault);
            let f = Injected { file: JOB_LOG.to_string(), line: line + 1, kind, column };
            c.log.lock().expect("fault log").push(f);
        }
        let start = text.len();
        push_job(&mut text, job, &jobs.users, fleet, fault);
        text.push_str(if i + 1 < jobs.jobs.len() { ",\n" } else { "\n" });
        line += memchr::memchr_iter(b'\n', &text.as_bytes()[start..]).count() as u64;
        if text.len() > 1 << 20 {
            bytes += flush(&mut w, &mut text, &path)?;
        }
    }
    text.push_str("]\n");
    bytes += flush(&mut w, &mut text, &path)?;
    w.into_inner().map_err(|e| Error::io(&path, e.into_error()))?.commit()?;
    Ok(FileReport { file: JOB_LOG.to_string(), bytes, rows: jobs.jobs.len() as u64 })
}

fn flush(w: &mut BufWriter<OutputFile>, text: &mut String, path: &Path) -> Result<u64> {
    w.write_all(text.as_bytes()).at(path)?;
    let n = text.len() as u64;
    text.clear();
    Ok(n)
}

fn pick_fault(job: &super::jobs::Job, rng: &mut Rng) -> Fault {
    let swappable: Vec<usize> = job
        .attempts
        .iter()
        .enumerate()
        .filter(|(_, a)| matches!((a.start, a.end), (Some(s), Some(e)) if s < e))
        .map(|(k, _)| k)
        .collect();
    let kinds = if swappable.is_empty() { 2 } else { 3 };
    match rng.below(kinds) {
        0 => Fault::Status,
        1 => Fault::Time,
        _ => Fault::Swap(swappable[rng.below(swappable.len() as u64) as usize]),
    }
}

fn describe(fault: Fault) -> (&'static str, String) {
    match fault {
        Fault::Status => ("unknown_status", "status".into()),
        Fault::Time => ("non_numeric", "submitted_time".into()),
        Fault::Swap(k) => ("end_before_start", format!("attempts[{k}].end_time")),
        Fault::None => unreachable!("only faults are described"),
    }
}

fn push_job(s: &mut String, job: &super::jobs::Job, users: &[String], fleet: &[Machine], fault: Fault) {
    let status = if fault == Fault::Status { "Bogus" } else { job.status.name() };
    s.push_str("{\n");
    field(s, 4, "status", status);
    field(s, 4, "vc", job.vc);
    field(s, 4, "jobid", &job.id);
    if job.attempts.is_empty() {
        s.push_str("    \"attempts\": [],\n");
    } else {
        s.push_str("    \"attempts\": [\n");
        for (k, a) in job.attempts.iter().enumerate() {
            let (start, end) = if fault == Fault::Swap(k) { (a.end, a.start) } else { (a.start, a.end) };
            let launched = a.start.is_some();
            s.push_str("        {\n");
            time_field(s, "start_time", start, launched);
            time_field(s, "end_time", end, launched);
            push_detail(s, &a.place, fleet);
            s.push_str(if k + 1 < job.attempts.len() { "        },\n" } else { "        }\n" });
        }
        s.push_str("    ],\n");
    }
    let mut submitted = String::with_capacity(19);
    if fault == Fault::Time {
        submitted.push_str("yesterday");
    } else {
        push_local(&mut submitted, job.submit);
    }
    field(s, 4, "submitted_time", &submitted);
    s.push_str("    \"user\": \"");
    s.push_str(&users[job.user as usize]);
    s.push_str("\"\n}");
}

fn field(s: &mut String, indent: usize, key: &str, value: &str) {
    for _ in 0..indent {
        s.push(' ');
    }
    s.push('"');
    s.push_str(key);
    s.push_str("\": \"");
    s.push_str(value);
    s.push_str("\",\n");
}

/// A set time; `null` for an attempt still running; `"None"` for a launch
/// that never ran.
fn time_field(s: &mut String, key: &str, t: Option<i64>, launched: bool) {
    s.push_str("            \"");
    s.push_str(key);
    s.push_str("\": ");
    match t {
        Some(t) => {
            s.push('"');
            push_local(s, t);
            s.push('"');
        }
        None if launched => s.push_str("null"),
        None => s.push_str("\"None\""),
    }
    s.push_str(",\n");
}

/// `"detail"`: one entry per machine, its GPUs on one line.
fn push_detail(s: &mut String, place: &[(u16, u8)], fleet: &[Machine]) {
    if place.is_empty() {
        s.push_str("            \"detail\": []\n");
        return;
    }
    s.push_str("            \"detail\": [\n");
    let mut i = 0;
    while i < place.len() {
        let mi = place[i].0;
        let mut j = i;
        while j < place.len() && place[j].0 == mi {
            j += 1;
        }
        s.push_str("                {\n                    \"ip\": \"");
        s.push_str(fleet[mi as usize].name);
        s.push_str("\",\n                    \"gpus\": [");
        for (k, &(_, g)) in place[i..j].iter().enumerate() {
            if k > 0 {
                s.push_str(", ");
            }
            s.push_str("\"gpu");
            s.push((b'0' + g) as char);
            s.push('"');
        }
        s.push_str("]\n                }");
        s.push_str(if j < place.len() { ",\n" } else { "\n" });
        i = j;
    }
    s.push_str("            ]\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::philly::jobs::{Attempt, Job, Status};

    /// The README's example job, rebuilt from its values, must come out byte
    /// for byte as the README shows it.
    #[test]
    fn the_readme_job_is_reproduced_exactly() {
        let want = include_str!("../../../../tests/fixtures/real-traces/philly/readme-example-rows/cluster_job_log");
        let fleet = vec![Machine { name: "m47", gpus: 8, online: 0 }, Machine { name: "m412", gpus: 8, online: 0 }];
        // 2017-10-07 01:12:09 PDT = 08:12:09 UTC.
        let t = |s: i64| 1_507_363_929 + s;
        let all = |m: u16| (0..8).map(|g| (m, g)).collect::<Vec<_>>();
        let job = Job {
            submit: t(-30),
            id: "application_1506638472019_14199".into(),
            vc: "ee9e8c",
            user: 0,
            status: Status::Pass,
            gpus: 8,
            plan: Vec::new(),
            attempts: vec![
                Attempt { start: Some(t(0)), end: Some(t(74)), place: all(0) },
                Attempt { start: Some(t(81)), end: Some(t(81 + 2 * 86_400 + 5 * 3600 + 39 * 60 + 42)), place: all(1) },
            ],
            running: false,
        };
        let mut s = String::from("[\n");
        push_job(&mut s, &job, &["ce2f4c".to_string()], &fleet, Fault::None);
        s.push_str("\n]\n");
        assert_eq!(s, want);
    }

    #[test]
    fn missing_times_are_null_or_none() {
        let mut s = String::new();
        time_field(&mut s, "end_time", None, true);
        time_field(&mut s, "start_time", None, false);
        assert_eq!(s, "            \"end_time\": null,\n            \"start_time\": \"None\",\n");
    }
}
