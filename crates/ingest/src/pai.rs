//! PAI ingest: the seven headerless CSVs (plain, or the per-table `.tar.gz`
//! they are downloaded as), checked against their `.header` files when those
//! are present, into the canonical tables of `schema::pai`.
//!
//! Row rules beyond types: statuses and GPU types must be known codes, whole
//! numbers must be whole, requests, capacities, usage and metrics must not
//! be negative, times are offset seconds (0 or empty = null) below
//! 9.2e12 s (the microsecond timestamps' range), and a record whose end
//! time precedes its start time is rejected.
//!
//! `philly_runtime.csv` (the Philly runtimes of the PAI authors' analysis
//! folder) is a reference input of this trace: when it is in the directory
//! it becomes the table `philly_runtimes`, checked like the rest.

use super::csv::{read_meta, short, CsvFile, Layout, Parse};
use super::record::{Fault, Record};
use super::run::{in_parallel, TraceOutcome, TraceRun};
use super::sink::Value;
use super::source::{InputFile, Member, TraceInputs};
use super::table::TableIngest;
use super::time::pai_offset;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::raw::pai::{self as raw, GPU_TYPES, INSTANCE_STATUSES, JOB_STATUSES};
use tracelab_schema::raw::RawCsv;
use tracelab_schema::Trace;

/// Raw table, canonical table, parser; in the README's order.
const TABLES: [(&RawCsv, &str, Parse); 7] = [
    (&raw::JOB, "job", job),
    (&raw::TASK, "task", task),
    (&raw::INSTANCE, "instance", instance),
    (&raw::SENSOR, "sensor", sensor),
    (&raw::GROUP_TAG, "group_tag", group_tag),
    (&raw::MACHINE_SPEC, "machine_spec", machine_spec),
    (&raw::MACHINE_METRIC, "machine_metric", machine_metric),
];

/// Tables without which the trace cannot be analysed at all.
const REQUIRED: [&str; 3] = ["pai_job_table", "pai_task_table", "pai_instance_table"];

pub fn ingest(inputs: &TraceInputs, run: TraceRun<'_>) -> Result<TraceOutcome> {
    let sources = resolve(inputs)?;
    debug_assert_eq!(run.trace, Trace::Pai);
    for (file, note) in &sources.skipped {
        run.skip(file, note.clone())?;
    }
    // Largest input first, so that the big tables overlap each other.
    let mut order: Vec<usize> = (0..TABLES.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sources.data[i].map_or(0, |f| f.bytes)));
    in_parallel(order, |i| ingest_table(&run, &sources, i))?;
    ingest_reference(&run, sources.runtimes)?;
    run.finish()
}

/// `philly_runtime.csv` into `philly_runtimes` (empty without the file).
fn ingest_reference(run: &TraceRun<'_>, file: Option<&InputFile>) -> Result<()> {
    let mut table = run.open("philly_runtimes")?;
    let Some(file) = file else { return run.close(table, "(none)") };
    let raw = &raw::PHILLY_RUNTIME;
    let layout = Layout { names: raw.columns, trailing_empty: false, optional_header: false };
    run.read(file, |member| {
        let mut csv = CsvFile::new(member.reader, member.label, run.limits);
        csv.expect_header(&raw.header_line())?;
        csv.records(&layout, &mut table, runtime)
    })?;
    run.close(table, &file.rel)
}

fn runtime<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    out.push(non_negative(r, 0)?);
    Ok(())
}

/// One table: its `.header` (if present), then its data file.
fn ingest_table(run: &TraceRun<'_>, sources: &Sources<'_>, i: usize) -> Result<()> {
    let (raw, name, parse) = TABLES[i];
    if let Some(header) = sources.headers[i] {
        run.read(header, |m| check_header_file(m, raw, run.limits.max_meta_bytes))?;
    }
    let mut table = run.open(name)?;
    let source = match sources.data[i] {
        Some(file) => {
            read_table(run, file, raw, &mut table, parse)?;
            file.rel.clone()
        }
        None => "(none)".to_string(),
    };
    run.close(table, &source)
}

fn read_table(run: &TraceRun<'_>, file: &InputFile, raw: &RawCsv, table: &mut TableIngest, parse: Parse) -> Result<()> {
    let layout = Layout { names: raw.columns, trailing_empty: false, optional_header: true };
    let mut found: Option<String> = None;
    run.read(file, |member: Member<'_>| {
        let base = member.name.rsplit('/').next().unwrap_or(&member.name);
        if base == raw.file {
            // A second member of that name would be appended to the first.
            if let Some(first) = found.replace(member.label.clone()) {
                return Err(Error::input(
                    &member.label,
                    format!("second copy of {} in the archive (also {first}); expected one", raw.file),
                ));
            }
            let mut csv = CsvFile::new(member.reader, member.label, run.limits);
            csv.records(&layout, table, parse)
        } else if base == raw::header_file(raw) {
            check_header_file(member, raw, run.limits.max_meta_bytes)
        } else {
            Ok(())
        }
    })?;
    if found.is_none() {
        return Err(Error::input(
            &file.rel,
            format!("archive holds no {}; expected the table as downloaded", raw.file),
        ));
    }
    Ok(())
}

/// A `.header` file: one line, the table's column names.
fn check_header_file(member: Member<'_>, raw: &RawCsv, max_bytes: usize) -> Result<()> {
    let text = read_meta(member.reader, &member.label, max_bytes)?;
    let found = text.trim_end_matches(['\n', '\r']);
    if found != raw.header_line() {
        return Err(Error::input(
            member.label,
            format!("unknown layout: expected the header `{}`, found `{}`", raw.header_line(), short(found)),
        ));
    }
    Ok(())
}

/// Data file and header file per table, in `TABLES` order.
struct Sources<'a> {
    data: [Option<&'a InputFile>; 7],
    headers: [Option<&'a InputFile>; 7],
    runtimes: Option<&'a InputFile>,
    /// Archives not read because their extracted twin is, with the note.
    skipped: Vec<(&'a InputFile, String)>,
}

/// Assigns each file to its table. A table present both extracted and as
/// its `.tar.gz` is read from the extracted `.csv` (the usual state after
/// `tar -xzf` beside the download), and the archive is skipped with a note.
fn resolve(inputs: &TraceInputs) -> Result<Sources<'_>> {
    let mut s = Sources { data: [None; 7], headers: [None; 7], runtimes: None, skipped: Vec::new() };
    let mut archives: [Option<&InputFile>; 7] = [None; 7];
    for file in &inputs.files {
        let name = file.rel.rsplit('/').next().unwrap_or(&file.rel);
        if name == raw::PHILLY_RUNTIME.file {
            if let Some(other) = s.runtimes.replace(file) {
                return Err(second_copy(file, raw::PHILLY_RUNTIME.file, other));
            }
            continue;
        }
        let Some(i) = TABLES.iter().position(|(raw, _, _)| is_table_file(name, raw)) else { continue };
        let slot = if name.ends_with(".header") {
            &mut s.headers[i]
        } else if name.ends_with(".tar.gz") {
            &mut archives[i]
        } else {
            &mut s.data[i]
        };
        if let Some(other) = slot {
            return Err(second_copy(file, TABLES[i].0.stem(), other));
        }
        *slot = Some(file);
    }
    for (i, archive) in archives.into_iter().enumerate() {
        match (s.data[i], archive) {
            (Some(plain), Some(archive)) => s
                .skipped
                .push((archive, format!("{} skipped: the extracted {} beside it was read", archive.rel, plain.rel))),
            (None, Some(archive)) => s.data[i] = Some(archive),
            _ => {}
        }
    }
    for stem in REQUIRED {
        let i = TABLES.iter().position(|(raw, _, _)| raw.stem() == stem).expect("required table");
        if s.data[i].is_none() {
            let found: Vec<&str> = s.data.iter().flatten().map(|f| f.rel.as_str()).collect();
            return Err(Error::input(
                format!("{stem}.csv"),
                format!(
                    "missing; expected {stem}.csv or {stem}.tar.gz beside the other PAI tables (found: {})",
                    found.join(", ")
                ),
            ));
        }
    }
    Ok(s)
}

fn second_copy(file: &InputFile, what: &str, other: &InputFile) -> Error {
    Error::input(&file.rel, format!("second copy of {what} (also {}); expected one", other.rel))
}

fn is_table_file(name: &str, raw: &RawCsv) -> bool {
    let stem = raw.stem();
    [".csv", ".tar.gz", ".header"].iter().any(|ext| name == format!("{stem}{ext}"))
}

/// Offset seconds (null for 0 or empty).
fn time(r: &Record<'_>, i: usize) -> Result<Option<i64>, Fault> {
    pai_offset(r.get(i)).map_err(|reason| r.fault(i, reason))
}

/// Start and end times, rejecting an end before the start.
fn span(r: &Record<'_>, start: usize, end: usize) -> Result<(Option<i64>, Option<i64>), Fault> {
    let (s, e) = (time(r, start)?, time(r, end)?);
    if let (Some(s), Some(e)) = (s, e) {
        if e < s {
            return Err(r.fault(end, format!("end before start (start_time is {})", r.get(start))));
        }
    }
    Ok((s, e))
}

/// A number that cannot be negative (a request, a usage, a metric), or null.
fn non_negative<'a>(r: &Record<'a>, i: usize) -> Result<Value<'a>, Fault> {
    r.non_negative_opt(i, &[]).map(Value::opt_f64)
}

fn job<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    let (start, end) = span(r, 4, 5)?;
    out.extend([r.text_req(0)?, r.text_req(1)?, r.text_req(2)?, r.one_of(3, JOB_STATUSES)?]);
    out.extend([Value::opt_ts(start), Value::opt_ts(end)]);
    Ok(())
}

fn task<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    let inst_num = r.int_req(2)?;
    if inst_num < 0 {
        return Err(r.fault(2, "expected a non-negative instance count"));
    }
    let (start, end) = span(r, 4, 5)?;
    out.extend([r.text_req(0)?, r.text_req(1)?, Value::I64(inst_num), r.one_of(3, INSTANCE_STATUSES)?]);
    out.extend([Value::opt_ts(start), Value::opt_ts(end)]);
    out.extend([non_negative(r, 6)?, non_negative(r, 7)?, non_negative(r, 8)?, r.one_of_opt(9, GPU_TYPES)?]);
    Ok(())
}

fn instance<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    let (start, end) = span(r, 6, 7)?;
    let run_s = match (start, end) {
        (Some(s), Some(e)) => Value::F64((e - s) as f64 / 1e6),
        _ => Value::Null,
    };
    out.extend([r.text_req(0)?, r.text_req(1)?, r.text_req(2)?, r.text_opt(3), r.text_req(4)?]);
    out.extend([r.one_of(5, INSTANCE_STATUSES)?, Value::opt_ts(start), Value::opt_ts(end), r.text_opt(8), run_s]);
    Ok(())
}

fn sensor<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    out.extend([r.text_req(0)?, r.text_req(1)?, r.text_req(2)?, r.text_req(3)?, r.text_opt(4), r.text_opt(5)]);
    for i in 6..16 {
        out.push(non_negative(r, i)?);
    }
    Ok(())
}

fn group_tag<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    out.extend([r.text_req(0)?, r.text_req(1)?, r.one_of_opt(2, GPU_TYPES)?, r.text_opt(3), r.text_opt(4)]);
    Ok(())
}

fn machine_spec<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    out.extend([r.text_req(0)?, r.one_of(1, GPU_TYPES)?]);
    for i in 2..5 {
        let v = r.int_req(i)?;
        if v < 0 {
            return Err(r.fault(i, "expected a non-negative capacity"));
        }
        out.push(Value::I64(v));
    }
    Ok(())
}

fn machine_metric<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    let (start, end) = span(r, 2, 3)?;
    out.extend([r.text_req(0)?, r.text_req(1)?, Value::opt_ts(start), Value::opt_ts(end)]);
    for i in 4..12 {
        out.push(non_negative(r, i)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::split_fields;

    fn parse(p: Parse, line: &str, names: &[&str]) -> Result<Vec<String>, Fault> {
        let mut ranges = Vec::new();
        split_fields(line, &mut ranges);
        let r = Record::new(line, &ranges, names);
        let mut out = Vec::new();
        p(&r, &mut out)?;
        Ok(out.iter().map(|v| format!("{v:?}")).collect())
    }

    #[test]
    fn readme_task_row_parses_to_typed_values() {
        // The README's example task row.
        let row = "4f057009a5d481acec67b088,tensorflow,1.0,Terminated,1739162.0,1739200.0,600.0,29.296875,50.0,MISC";
        let got = parse(task, row, raw::TASK.columns).unwrap();
        assert_eq!(got[2], "I64(1)");
        assert_eq!(got[4], "Ts(1739162000000)");
        assert_eq!(got[7], "F64(29.296875)");
        assert_eq!(got[9], "Str(\"MISC\")");
    }

    #[test]
    fn end_before_start_and_unknown_status_are_faults_on_the_right_column() {
        let f = parse(job, "j,i,u,Terminated,100.0,50.0", raw::JOB.columns).unwrap_err();
        assert_eq!((f.column.as_str(), f.raw.as_str()), ("end_time", "50.0"));
        let f = parse(job, "j,i,u,Done,100.0,150.0", raw::JOB.columns).unwrap_err();
        assert_eq!(f.column, "status");
        let f = parse(task, "j,t,1.5,Running,,,,,,", raw::TASK.columns).unwrap_err();
        assert_eq!(f.column, "inst_num");
    }

    #[test]
    fn instance_runtime_is_end_minus_start_only_when_both_exist() {
        let got = parse(instance, "j,t,n,w,i,Terminated,2081336.0,2083889.0,m", raw::INSTANCE.columns).unwrap();
        assert_eq!(got[9], "F64(2553.0)");
        let got = parse(instance, "j,t,n,w,i,Running,2081336.0,,m", raw::INSTANCE.columns).unwrap();
        assert_eq!(got[9], "Null");
    }
}
