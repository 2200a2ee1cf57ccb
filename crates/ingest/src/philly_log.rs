//! The Philly job log (`cluster_job_log`, one JSON list of jobs) into the
//! jobs, attempts and placements tables, streamed job by job with serde so
//! that the 100k-job file is never held whole. A job is one record: if any
//! part of it is malformed, the whole job is rejected with the JSON path at
//! fault (see [`super::philly`]). A job longer than the record limit stops
//! the ingest: the list cannot be resumed past it.

use std::cell::Cell;
use std::collections::HashSet;
use std::io::{self, BufReader, Read};
use std::rc::Rc;

use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde_json::Value as Json;

use super::record::Fault;
use super::sink::Value;
use super::source::Member;
use super::table::TableIngest;
use super::time::philly_job_time;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::raw::philly::STATUSES;

/// Where the job-log reader is: the line (counting newlines in what
/// serde_json consumes, so a rejected job can be located) and the bytes
/// read since the current job started.
#[derive(Default)]
struct Position {
    line: Cell<u64>,
    /// The line the current job starts on.
    job_line: Cell<u64>,
    job_bytes: Cell<u64>,
}

/// Counts lines and refuses to feed one job more than `max` bytes: a job is
/// parsed whole into memory, so a 1 GiB job would cost gigabytes. The
/// job log cannot be resumed past such a job, so it stops the ingest.
struct LineCounting<R> {
    inner: R,
    at: Rc<Position>,
    max: u64,
}

impl<R: Read> Read for LineCounting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let newlines = memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        self.at.line.set(self.at.line.get() + newlines);
        let job = self.at.job_bytes.get() + n as u64;
        self.at.job_bytes.set(job);
        if job > self.max + (1 << 16) {
            return Err(io::Error::other(JobTooLong));
        }
        Ok(n)
    }
}

#[derive(Debug)]
struct JobTooLong;

impl std::fmt::Display for JobTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("job too long")
    }
}

impl std::error::Error for JobTooLong {}

pub(super) fn read_job_log(member: Member<'_>, tables: [&mut TableIngest; 3], max_job: usize) -> Result<()> {
    let at = Rc::new(Position { line: Cell::new(1), ..Position::default() });
    let reader = LineCounting {
        inner: BufReader::with_capacity(1 << 16, member.reader),
        at: Rc::clone(&at),
        max: max_job as u64,
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut sink = JobSink { tables, label: &member.label, at: Rc::clone(&at), error: None };
    let parsed = (&mut sink).deserialize(&mut de).and_then(|()| de.end());
    if let Some(e) = sink.error.take() {
        return Err(e);
    }
    parsed.map_err(|e| {
        if e.is_io() && e.to_string().contains("job too long") {
            return Error::input(
                &member.label,
                format!(
                    "the job starting on line {} is longer than the limit of {max_job} bytes \
                     (--max-record-bytes); expected the job log as published",
                    sink.at.job_line.get()
                ),
            );
        }
        Error::input(
            &member.label,
            format!("not a complete JSON list of jobs ({e}); expected the job log as published"),
        )
    })
}

/// Receives the jobs of the top-level list one at a time.
struct JobSink<'s, 't> {
    tables: [&'t mut TableIngest; 3],
    label: &'s str,
    at: Rc<Position>,
    /// A store error raised inside serde, reported after it unwinds.
    error: Option<Error>,
}

impl<'de> DeserializeSeed<'de> for &mut JobSink<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for &mut JobSink<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON list of jobs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            let seed = JobSeed { at: Rc::clone(&self.at) };
            let Some((job, start_line)) = seq.next_element_seed(seed)? else { return Ok(()) };
            if let Err(e) = self.job(&job, start_line) {
                self.error = Some(e);
                return Err(serde::de::Error::custom("stopped"));
            }
        }
    }
}

/// Deserializes one job and notes the line it starts on: serde_json has
/// consumed the separator and peeked the job's `{` when it calls the seed.
/// The job's byte count starts there (give or take the reader's buffer,
/// hence the 64 KiB of slack in [`LineCounting`]).
struct JobSeed {
    at: Rc<Position>,
}

impl<'de> DeserializeSeed<'de> for JobSeed {
    type Value = (Json, u64);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(Json, u64), D::Error> {
        let line = self.at.line.get();
        self.at.job_line.set(line);
        self.at.job_bytes.set(0);
        Ok((serde::Deserialize::deserialize(d)?, line))
    }
}

impl JobSink<'_, '_> {
    fn job(&mut self, job: &Json, line: u64) -> Result<()> {
        for t in &mut self.tables {
            t.counts.records_in += 1;
        }
        let outcome = match parse_job(job) {
            Ok(rows) => self.write(&rows)?,
            Err(f) => Err(f),
        };
        match outcome {
            Ok(()) => self.tables.iter_mut().for_each(|t| t.counts.written += 1),
            Err(fault) => {
                // Listed once, as a jobs reject; its attempts and
                // placements are counted as rejected with it.
                self.tables[1].counts.rejected += 1;
                self.tables[2].counts.rejected += 1;
                self.tables[0].reject(self.label, line, fault)?;
            }
        }
        Ok(())
    }

    fn write(&mut self, rows: &JobRows<'_>) -> Result<Result<(), Fault>> {
        if let Err(f) = self.tables[0].offer(&rows.job)? {
            return Ok(Err(f));
        }
        // Attempt and placement keys extend the job key, which was unique.
        self.tables[1].offer(&rows.attempts)?.expect("derived table has no key guard");
        self.tables[2].offer(&rows.placements)?.expect("derived table has no key guard");
        Ok(Ok(()))
    }
}

/// The rows one job becomes, flat in table column order.
struct JobRows<'a> {
    job: Vec<Value<'a>>,
    attempts: Vec<Value<'a>>,
    placements: Vec<Value<'a>>,
}

fn text<'a>(job: &'a Json, key: &str) -> Result<&'a str, Fault> {
    match job.get(key) {
        Some(Json::String(s)) if !s.is_empty() => Ok(s),
        other => Err(Fault::new(key, json_raw(other), "expected a non-empty string")),
    }
}

fn json_raw(v: Option<&Json>) -> String {
    v.map_or_else(|| "(missing)".to_string(), std::string::ToString::to_string)
}

/// A time that may be absent: `null`, missing, `""` or `"None"`.
fn opt_time(v: Option<&Json>, path: &str) -> Result<Option<i64>, Fault> {
    match v {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) if s.is_empty() || s == "None" => Ok(None),
        Some(Json::String(s)) => philly_job_time(s).map(Some).map_err(|r| Fault::new(path, s.as_str(), r)),
        Some(other) => Err(Fault::new(path, other.to_string(), "expected a time string or null")),
    }
}

fn parse_job(job: &Json) -> Result<JobRows<'_>, Fault> {
    if !job.is_object() {
        return Err(Fault::record(&job.to_string(), "expected a JSON object (a job)"));
    }
    let job_id = text(job, "jobid")?;
    let status = text(job, "status")?;
    if !STATUSES.contains(&status) {
        return Err(Fault::new("status", status, format!("unknown status; expected one of {}", STATUSES.join(", "))));
    }
    let submit = opt_time(job.get("submitted_time"), "submitted_time")?.ok_or_else(|| {
        Fault::new("submitted_time", json_raw(job.get("submitted_time")), "expected the submission time")
    })?;
    let attempts = match job.get("attempts") {
        None | Some(Json::Null) => &[][..],
        Some(Json::Array(a)) => &a[..],
        Some(other) => return Err(Fault::new("attempts", other.to_string(), "expected a list of attempts")),
    };
    let mut rows = JobRows { job: Vec::new(), attempts: Vec::new(), placements: Vec::new() };
    let mut spans = Vec::new();
    for (i, attempt) in attempts.iter().enumerate() {
        spans.push(parse_attempt(job_id, i, attempt, &mut rows)?);
    }
    let first_start = spans.first().and_then(|s| s.0);
    let last_end = spans.last().and_then(|s| s.1);
    let gpus = spans.first().map(|s| s.2);
    let secs = |a: Option<i64>, b: Option<i64>| match (a, b) {
        (Some(a), Some(b)) => Value::F64((b - a) as f64 / 1e6),
        _ => Value::Null,
    };
    rows.job = vec![
        Value::Str(job_id),
        Value::Str(text(job, "vc")?),
        Value::Str(text(job, "user")?),
        Value::Str(status),
        Value::Ts(submit),
        Value::I64(attempts.len() as i64),
        Value::opt_ts(first_start),
        Value::opt_ts(last_end),
        Value::opt_i64(gpus),
        secs(Some(submit), first_start),
        secs(first_start, last_end),
    ];
    Ok(rows)
}

/// Appends one attempt's rows; returns (start, end, gpus).
fn parse_attempt<'a>(
    job_id: &'a str,
    i: usize,
    attempt: &'a Json,
    rows: &mut JobRows<'a>,
) -> Result<(Option<i64>, Option<i64>, i64), Fault> {
    let path = format!("attempts[{i}]");
    if !attempt.is_object() {
        return Err(Fault::new(&path, attempt.to_string(), "expected an attempt object"));
    }
    let start = opt_time(attempt.get("start_time"), &format!("{path}.start_time"))?;
    let end = opt_time(attempt.get("end_time"), &format!("{path}.end_time"))?;
    if let (Some(s), Some(e)) = (start, end) {
        if e < s {
            return Err(Fault::new(format!("{path}.end_time"), json_raw(attempt.get("end_time")), "end before start"));
        }
    }
    let detail = match attempt.get("detail") {
        None | Some(Json::Null) => &[][..],
        Some(Json::Array(d)) => &d[..],
        Some(other) => {
            return Err(Fault::new(format!("{path}.detail"), other.to_string(), "expected a list of machines"))
        }
    };
    let mut seen = HashSet::new();
    let mut gpus = 0;
    for (m, machine) in detail.iter().enumerate() {
        let mpath = format!("{path}.detail[{m}]");
        let ip = match machine.get("ip") {
            Some(Json::String(s)) if !s.is_empty() => s.as_str(),
            other => return Err(Fault::new(format!("{mpath}.ip"), json_raw(other), "expected a machine name")),
        };
        let list = match machine.get("gpus") {
            Some(Json::Array(g)) => g,
            other => return Err(Fault::new(format!("{mpath}.gpus"), json_raw(other), "expected a list of GPU names")),
        };
        for g in list {
            let idx = gpu_index(g)
                .ok_or_else(|| Fault::new(format!("{mpath}.gpus"), g.to_string(), "expected a GPU name like gpu3"))?;
            if !seen.insert((ip, idx)) {
                return Err(Fault::new(format!("{mpath}.gpus"), g.to_string(), "GPU listed twice in one attempt"));
            }
            rows.placements.extend([Value::Str(job_id), Value::I64(i as i64), Value::Str(ip), Value::I64(idx)]);
            gpus += 1;
        }
    }
    let run_s = match (start, end) {
        (Some(s), Some(e)) => Value::F64((e - s) as f64 / 1e6),
        _ => Value::Null,
    };
    rows.attempts.extend([
        Value::Str(job_id),
        Value::I64(i as i64),
        Value::opt_ts(start),
        Value::opt_ts(end),
        run_s,
        Value::I64(gpus),
        Value::I64(detail.len() as i64),
    ]);
    Ok((start, end, gpus))
}

/// `gpu3` -> 3: digits only (no sign; `gpu-1` is not GPU -1), at most 4.
fn gpu_index(g: &Json) -> Option<i64> {
    let digits = g.as_str()?.strip_prefix("gpu")?;
    let plain = !digits.is_empty() && digits.len() <= 4 && digits.bytes().all(|b| b.is_ascii_digit());
    plain.then(|| digits.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_job_parses_into_job_attempt_and_placement_rows() {
        let text = include_str!("../../../tests/fixtures/real-traces/philly/readme-example-rows/cluster_job_log");
        let jobs: Json = serde_json::from_str(text).unwrap();
        let rows = parse_job(&jobs[0]).unwrap();
        // Two attempts of 8 GPUs each on m47 then m412.
        assert_eq!(rows.attempts.len(), 2 * 7);
        assert_eq!(rows.placements.len(), 16 * 4);
        assert_eq!(rows.job[5], Value::I64(2));
        assert_eq!(rows.job[8], Value::I64(8));
        // Submitted 01:11:39, first start 01:12:09 (PDT): queue 30 s.
        assert_eq!(rows.job[9], Value::F64(30.0));
    }

    #[test]
    fn a_job_without_attempts_has_null_start_and_gpus() {
        let job: Json = serde_json::json!({"status": "Killed", "vc": "v", "jobid": "j", "attempts": [],
            "submitted_time": "2017-10-07 01:11:39", "user": "u"});
        let rows = parse_job(&job).unwrap();
        assert_eq!(rows.job[6], Value::Null);
        assert_eq!(rows.job[8], Value::Null);
        assert!(rows.attempts.is_empty());
    }

    #[test]
    fn faults_carry_the_json_path() {
        let job: Json = serde_json::json!({"status": "Pass", "vc": "v", "jobid": "j", "user": "u",
            "submitted_time": "2017-10-07 01:11:39",
            "attempts": [{"start_time": "2017-10-07 02:00:00", "end_time": "2017-10-07 01:00:00", "detail": []}]});
        let f = parse_job(&job).err().unwrap();
        assert_eq!(f.column, "attempts[0].end_time");
        let job: Json = serde_json::json!({"status": "Pass", "vc": "v", "jobid": "j", "user": "u",
            "submitted_time": "None", "attempts": null});
        assert_eq!(parse_job(&job).err().unwrap().column, "submitted_time");
    }

    #[test]
    fn gpu_names_are_gpu_and_digits() {
        let idx = |s: &str| gpu_index(&Json::String(s.into()));
        assert_eq!(idx("gpu0"), Some(0));
        assert_eq!(idx("gpu15"), Some(15));
        for bad in ["gpu-1", "gpu+1", "gpu", "gpu 1", "gpu99999", "cpu1"] {
            assert_eq!(idx(bad), None, "{bad}");
        }
    }
}
