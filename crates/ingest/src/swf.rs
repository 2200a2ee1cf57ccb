//! SWF ingest: every Standard Workload Format log of the directory
//! (`<stem>.swf`, or `<stem>.swf.gz` as the Parallel Workloads Archive ships
//! them) into `swf/jobs` (one row per data record, the log's stem as its
//! `cluster`) and `swf/header` (its `;` comment lines).
//!
//! A log is one cluster of the `swf` trace, so several logs in one folder
//! sit side by side in the same tables and in the unified `jobs` table. The
//! same stem twice is refused, except `x.swf` beside `x.swf.gz` (the
//! extracted copy is read, the archive only hashed, as Helios does).
//!
//! Every data record is checked against the format (version 2.2, fields in
//! [`tracelab_schema::swf::FIELDS`]): 18 whitespace-separated numbers, each
//! `-1` (unknown, stored as null) or non-negative, whole numbers except the
//! average CPU time and used memory, a status code the format defines. A
//! record that fails is rejected with file, line and field name.

use std::collections::HashMap;
use std::io::Read;

use super::csv::{empty_file, overlong};
use super::lines::LineReader;
use super::record::{parse_finite, parse_integral, Fault};
use super::run::{TraceOutcome, TraceRun};
use super::sink::Value;
use super::source::{InputFile, Member, Packing, TraceInputs};
use super::table::TableIngest;
use super::Limits;
use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::swf::{self, status, FIELDS, UNKNOWN};

const US: i64 = 1_000_000;

/// Fields (0-based) whose values may have a fraction: 6 Average CPU Time
/// Used and 7 Used Memory (some archive logs write them with decimals).
const FRACTIONAL: [usize; 2] = [5, 6];

pub fn ingest(inputs: &TraceInputs, run: TraceRun<'_>) -> Result<TraceOutcome> {
    let limits = run.limits;
    let mut tables = Tables { jobs: run.open("jobs")?, header: run.open("header")? };
    let mut read = Vec::new();
    for (file, stem) in logs(inputs)? {
        match stem {
            Some(stem) => {
                run.read(file, |member| read_log(&stem, member, &mut tables, limits, &run))?;
                read.push(file.rel.clone());
            }
            None => run.skip(file, format!("{} skipped: the extracted log beside it was read", file.rel))?,
        }
    }
    let sources = read.join(", ");
    run.close(tables.jobs, &sources)?;
    run.close(tables.header, &sources)?;
    run.finish()
}

struct Tables {
    jobs: TableIngest,
    header: TableIngest,
}

/// Each input with the cluster it is read as, or `None` for a `.swf.gz`
/// whose extracted `.swf` is beside it. Any other repeated stem is an error.
fn logs(inputs: &TraceInputs) -> Result<Vec<(&InputFile, Option<String>)>> {
    let mut by_stem: HashMap<&str, Vec<&InputFile>> = HashMap::new();
    for file in &inputs.files {
        by_stem.entry(stem_of(file)).or_default().push(file);
    }
    let mut out = Vec::new();
    for file in &inputs.files {
        let stem = stem_of(file);
        let twins = &by_stem[stem];
        let paired = twins.len() == 2 && folder(&twins[0].rel) == folder(&twins[1].rel);
        if twins.len() > 1 && !paired {
            let names: Vec<&str> = twins.iter().map(|f| f.rel.as_str()).collect();
            return Err(Error::input(
                &file.rel,
                format!(
                    "two SWF logs named {stem} ({}); the file stem names the cluster, expected each once",
                    names.join(", ")
                ),
            ));
        }
        let skip = paired && file.packing == Packing::Gz;
        out.push((file, (!skip).then(|| stem.to_string())));
    }
    Ok(out)
}

fn stem_of(file: &InputFile) -> &str {
    let name = file.rel.rsplit('/').next().unwrap_or(&file.rel);
    swf::stem(name).expect("discovery classifies only SWF names as swf")
}

fn folder(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// What is known of a log while reading it.
#[derive(Default)]
struct LogState {
    /// `UnixStartTime`, once the header gave it.
    start_s: Option<i64>,
    /// Whether a data record was seen (the header is over).
    data_seen: bool,
    /// Partial-execution records seen per job number.
    parts: HashMap<i64, i64>,
}

fn read_log(cluster: &str, member: Member<'_>, t: &mut Tables, limits: Limits, run: &TraceRun<'_>) -> Result<()> {
    let label = member.label.clone();
    let mut lines = LineReader::with_cr_line_ends(member.reader as &mut dyn Read, limits.max_record_bytes);
    let mut state = LogState::default();
    while let Some(line) = lines.next_line().at(&label)? {
        let (no, terminated) = (line.no, line.terminated);
        if let Some(fault) = overlong(&line, limits.max_record_bytes) {
            // Too long to tell a comment from a record: counted as a job.
            t.jobs.counts.records_in += 1;
            t.jobs.reject(&label, no, fault)?;
            continue;
        }
        // A byte-order mark (an editor's) is not part of the first line.
        let bytes = if no == 1 { line.bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line.bytes) } else { line.bytes };
        let Ok(text) = std::str::from_utf8(bytes) else {
            t.jobs.counts.records_in += 1;
            t.jobs.reject(&label, no, Fault::record(&String::from_utf8_lossy(bytes), "not valid UTF-8"))?;
            continue;
        };
        if let Some(comment) = text.trim_start().strip_prefix(';') {
            header_line(cluster, &label, no, comment, &mut state, &mut t.header)?;
        } else if !text.trim().is_empty() {
            if !state.data_seen && state.start_s.is_none() {
                run.note(format!(
                    "{label}: no UnixStartTime (in Unix time) in the header; submit times are taken as seconds after \
                     1970-01-01 00:00 UTC"
                ));
            }
            state.data_seen = true;
            data_line(cluster, &label, no, text, terminated, &mut state, &mut t.jobs)?;
        }
    }
    if lines.lines_read() == 0 {
        return Err(empty_file(&label, "an SWF log (`;` header lines and job records)"));
    }
    Ok(())
}

/// Stores one comment line; takes `UnixStartTime` from the header. A
/// malformed or repeated one, or one after the first job, would shift
/// every timestamp, so it stops the ingest.
fn header_line(
    cluster: &str,
    label: &str,
    no: u64,
    comment: &str,
    state: &mut LogState,
    header: &mut TableIngest,
) -> Result<()> {
    let (key, value) = swf::header_entry(comment);
    if key == Some("UnixStartTime") {
        let bad = |why: &str| Error::input(label, format!("line {no}: UnixStartTime {value:?}: {why}"));
        if state.data_seen {
            return Err(bad("after the first job record; expected it in the header"));
        }
        if state.start_s.is_some() {
            return Err(bad("given twice; expected it once"));
        }
        // Some archive logs say they do not know (MIT Supercloud: UNKNOWN):
        // the start is then missing, as without the line, and a note says so.
        if value.eq_ignore_ascii_case("UNKNOWN") || value == "-1" {
            return store_comment(cluster, label, no, key, value, header);
        }
        let secs = value.parse::<i64>().ok().filter(|s| (0..=LAST_SECOND).contains(s));
        let why = "expected Unix time in whole seconds, at most 253402300799 (9999-12-31T23:59:59Z)";
        state.start_s = Some(secs.ok_or_else(|| bad(why))?);
    }
    store_comment(cluster, label, no, key, value, header)
}

fn store_comment(
    cluster: &str,
    label: &str,
    no: u64,
    key: Option<&'static str>,
    value: &str,
    header: &mut TableIngest,
) -> Result<()> {
    header.counts.records_in += 1;
    let row = [Value::Str(cluster), Value::I64(no as i64), key.map_or(Value::Null, Value::Str), Value::Str(value)];
    match header.offer(&row)? {
        Ok(()) => header.counts.written += 1,
        Err(fault) => header.reject(label, no, fault)?,
    }
    Ok(())
}

/// The largest number of seconds kept: about 292,000 years, where
/// microsecond timestamps end (2^63 µs), with room for the sums.
const MAX_SECONDS: i64 = i64::MAX / US / 4;

fn data_line(
    cluster: &str,
    label: &str,
    no: u64,
    text: &str,
    terminated: bool,
    state: &mut LogState,
    jobs: &mut TableIngest,
) -> Result<()> {
    jobs.counts.records_in += 1;
    let outcome = match parse_record(text, terminated) {
        Ok(rec) => match instants(&rec, state.start_s.unwrap_or(0)) {
            Ok(times) => {
                let part = part_of(&rec, state);
                jobs.offer(&row(cluster, &rec, part, times))?
            }
            Err(fault) => Err(fault),
        },
        Err(fault) => Err(fault),
    };
    match outcome {
        Ok(()) => jobs.counts.written += 1,
        Err(fault) => jobs.reject(label, no, fault)?,
    }
    Ok(())
}

/// One data record: the 18 fields, `None` where the log says `-1`.
#[derive(Debug, PartialEq)]
struct SwfRecord {
    values: [Option<f64>; 18],
}

impl SwfRecord {
    /// Field `number` (1-based, as the format counts) as a whole number.
    fn int(&self, number: usize) -> Option<i64> {
        self.values[number - 1].map(|v| v as i64)
    }
}

/// Splits and checks one data line.
fn parse_record(text: &str, terminated: bool) -> Result<SwfRecord, Fault> {
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    if fields.len() != FIELDS.len() {
        let found = fields.len();
        let reason = if terminated {
            format!("expected 18 whitespace-separated fields, found {found}")
        } else {
            format!("truncated last line (no newline at end of file): expected 18 fields, found {found}")
        };
        return Err(Fault::record(text, reason));
    }
    let mut values = [None; 18];
    for (i, raw) in fields.iter().enumerate() {
        values[i] = field_value(i, raw)?;
    }
    let rec = SwfRecord { values };
    check_codes(&rec, fields[0], fields[10])?;
    Ok(rec)
}

/// Field `i` (0-based): `-1` is `None`; other negatives, fractions where
/// the format has whole numbers, and values past [`MAX_SECONDS`] are faults.
fn field_value(i: usize, raw: &str) -> Result<Option<f64>, Fault> {
    let name = FIELDS[i].name;
    let v = if FRACTIONAL.contains(&i) {
        parse_finite(raw).ok_or_else(|| Fault::new(name, raw, "expected a number"))?
    } else {
        parse_integral(raw).ok_or_else(|| Fault::new(name, raw, "expected a whole number"))? as f64
    };
    if v == UNKNOWN as f64 {
        return Ok(None);
    }
    if v < 0.0 {
        return Err(Fault::new(name, raw, "negative; expected -1 (unknown) or a value of 0 or more"));
    }
    if v > MAX_SECONDS as f64 {
        return Err(Fault::new(name, raw, format!("out of range: expected at most {MAX_SECONDS}")));
    }
    Ok(Some(v))
}

/// The job number is required and counts from 1; the status is a code of
/// the format.
fn check_codes(rec: &SwfRecord, job_raw: &str, status_raw: &str) -> Result<(), Fault> {
    if rec.int(1).is_none_or(|n| n < 1) {
        return Err(Fault::new(FIELDS[0].name, job_raw, "expected a job number of 1 or more"));
    }
    let code = rec.int(11).unwrap_or(UNKNOWN);
    if !status::CODES.contains(&code) {
        return Err(Fault::new(
            FIELDS[10].name,
            status_raw,
            "unknown status; expected 1 (completed), 0 (failed), 5 (cancelled), 2, 3, 4 (partial executions) or -1",
        ));
    }
    Ok(())
}

/// 0 for a job's summary record, 1, 2, ... for its partial executions.
fn part_of(rec: &SwfRecord, state: &mut LogState) -> i64 {
    let code = rec.int(11).unwrap_or(UNKNOWN);
    if !status::PARTIAL.contains(&code) {
        return 0;
    }
    let seen = state.parts.entry(rec.int(1).expect("checked")).or_insert(0);
    *seen += 1;
    *seen
}

/// The last second RFC 3339 can write (9999-12-31T23:59:59Z): every
/// time tracelab prints is RFC 3339, so a record whose times land later
/// is rejected rather than stored as a time nothing can print.
const LAST_SECOND: i64 = 253_402_300_799;

/// Submit, start and end in seconds since the epoch (`start_s` plus the
/// record's offsets); a fault names the field that carries a time past
/// [`LAST_SECOND`].
fn instants(rec: &SwfRecord, start_s: i64) -> Result<[Option<i64>; 3], Fault> {
    // Each term is at most MAX_SECONDS, so the sums cannot overflow.
    let submit = rec.int(2).map(|s| start_s + s);
    let start = submit.zip(rec.int(3)).map(|(s, w)| s + w);
    let end = start.zip(rec.int(4)).map(|(s, r)| s + r);
    for (t, field, what) in [(submit, 1, "submit"), (start, 2, "start"), (end, 3, "end")] {
        if let Some(t) = t.filter(|t| *t > LAST_SECOND) {
            let raw = rec.int(field + 1).map_or_else(String::new, |v| v.to_string());
            return Err(Fault::new(
                FIELDS[field].name,
                raw,
                format!("puts the job's {what} {t} s after 1970-01-01, past 9999-12-31T23:59:59Z, the last time RFC 3339 can write"),
            ));
        }
    }
    Ok([submit, start, end])
}

/// The `swf/jobs` row of a checked record, in table column order.
fn row<'a>(cluster: &'a str, rec: &SwfRecord, part: i64, times: [Option<i64>; 3]) -> Vec<Value<'a>> {
    let mut out = vec![Value::Str(cluster), Value::I64(rec.int(1).expect("checked")), Value::I64(part)];
    for (i, v) in rec.values.iter().enumerate().skip(1) {
        out.push(match v {
            None => Value::Null,
            Some(x) if FRACTIONAL.contains(&i) => Value::F64(*x),
            Some(x) => Value::I64(*x as i64),
        });
    }
    out.extend(times.map(|t| Value::opt_ts(t.map(|s| s * US))));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_keeps_its_fields_with_minus_one_as_null() {
        let rec = parse_record("1 0 10 3600 4 -1 -1 4 7200 -1 1 3 2 -1 1 -1 -1 -1", true).unwrap();
        assert_eq!(rec.int(3), Some(10));
        assert_eq!(rec.values[5], None);
        let row = row("c", &rec, 0, instants(&rec, 100).unwrap());
        // submit 100 s, start 110 s, end 3710 s after the epoch.
        assert_eq!(&row[row.len() - 3..], &[Value::Ts(100 * US), Value::Ts(110 * US), Value::Ts(3710 * US)]);
    }

    #[test]
    fn faults_name_the_field() {
        let bad = |line: &str| parse_record(line, true).unwrap_err();
        assert_eq!(bad("1 0 -2 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1").column, "Wait Time");
        assert_eq!(bad("1 0 2 5.5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1").column, "Run Time");
        assert_eq!(bad("1 0 2 5 1 2.5 -1 1 -1 -1 7 1 1 -1 -1 -1 -1 -1").column, "Status");
        assert_eq!(bad("0 0 2 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1").column, "Job Number");
        assert_eq!(bad("1 0 2 5 1").column, "*");
        assert!(bad("1 0 2 5 1").reason.contains("found 5"));
        assert_eq!(bad("1 x 2 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1").column, "Submit Time");
        assert_eq!(bad("1 1e300 2 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1").column, "Submit Time");
    }

    /// 253402300799 s is 9999-12-31T23:59:59Z: a job ending then is kept, a
    /// second later the field that carries it past is named.
    #[test]
    fn times_past_the_year_9999_are_faults_of_the_field_that_carries_them() {
        let rec = |submit: i64, wait: i64, run: i64| {
            parse_record(&format!("1 {submit} {wait} {run} 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1"), true).unwrap()
        };
        let start = 253_402_300_000;
        assert_eq!(instants(&rec(700, 90, 9), start).unwrap()[2], Some(LAST_SECOND));
        assert_eq!(instants(&rec(700, 90, 10), start).unwrap_err().column, "Run Time");
        assert_eq!(instants(&rec(700, 100, 0), start).unwrap_err().column, "Wait Time");
        let err = instants(&rec(800, 0, 0), start).unwrap_err();
        assert_eq!(err.column, "Submit Time");
        assert!(err.reason.contains("253402300800 s after 1970-01-01, past 9999-12-31T23:59:59Z"), "{}", err.reason);
    }

    #[test]
    fn partial_executions_are_numbered_per_job() {
        let mut state = LogState::default();
        let rec = |status: i64| {
            let mut values = [None; 18];
            values[0] = Some(7.0);
            values[10] = Some(status as f64);
            SwfRecord { values }
        };
        assert_eq!(part_of(&rec(1), &mut state), 0);
        assert_eq!(part_of(&rec(2), &mut state), 1);
        assert_eq!(part_of(&rec(3), &mut state), 2);
    }
}
