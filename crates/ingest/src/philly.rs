//! Philly ingest: the JSON job log into jobs, attempts and placements, and
//! the per-minute utilization CSVs and the machine list, read plain or from
//! `trace-data.tar.gz`.
//!
//! Job-log rules follow the README and the owners' notebook: a job may have
//! no attempts, an attempt may lack times (`null`, `""` or `"None"`), a last
//! attempt without an end means the job was still running. A job is one
//! record: if any part of it is malformed (unknown status, unparsable time,
//! an attempt ending before it starts, a GPU name that is not `gpuN`), the
//! whole job is rejected with the JSON path at fault, so its three tables
//! stay consistent. The job log itself is read by [`super::philly_log`].

use std::collections::HashSet;
use std::sync::Mutex;

use super::csv::{CsvFile, Layout};
use super::philly_log::read_job_log;
use super::record::{Fault, Record};
use super::run::{in_parallel, TraceOutcome, TraceRun};
use super::sink::Value;
use super::source::{philly_member, InputFile, Member, Packing, TraceInputs};
use super::table::TableIngest;
use super::time::philly_util_time;
use super::Limits;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::raw::philly as raw;
use tracelab_schema::raw::RawCsv;

/// The canonical tables, in schema order; the first three come from the job log.
const TABLES: [&str; 7] = ["jobs", "attempts", "placements", "gpu_util", "cpu_util", "mem_util", "machines"];

pub fn ingest(inputs: &TraceInputs, run: TraceRun<'_>) -> Result<TraceOutcome> {
    let plain = plain_members(inputs)?;
    let mut tables = Vec::new();
    for name in TABLES {
        let table = if name == "attempts" || name == "placements" { run.open_derived(name)? } else { run.open(name)? };
        tables.push(Mutex::new(table));
    }
    let sources: Mutex<Vec<Option<String>>> = Mutex::new(vec![None; TABLES.len()]);
    // Largest first: the utilization files dominate and overlap each other.
    let mut files: Vec<&InputFile> = inputs.files.iter().collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.bytes));
    in_parallel(files, |file| {
        let archive = file.packing != Packing::Plain;
        if archive && plain.len() == FILES {
            return run.skip(file, format!("{} skipped: all five files are present extracted beside it", file.rel));
        }
        run.read(file, |member| {
            let base = member.name.rsplit('/').next().unwrap_or(&member.name);
            let Some(kind) = philly_member(base) else { return Ok(()) };
            if archive && plain.contains(kind) {
                run.note(format!("{} skipped: the extracted file beside the archive was read", member.label));
                return Ok(());
            }
            read_member(kind, member, &tables, &sources, run.limits)
        })
    })?;
    let sources = sources.into_inner().expect("sources");
    if sources[0].is_none() {
        return Err(missing_job_log(inputs));
    }
    for (table, source) in tables.into_iter().zip(sources) {
        run.close(table.into_inner().expect("table"), source.as_deref().unwrap_or("(none)"))?;
    }
    run.finish()
}

/// Parses one member into its table(s); each file may be read once.
fn read_member(
    kind: &str,
    member: Member<'_>,
    tables: &[Mutex<TableIngest>],
    sources: &Mutex<Vec<Option<String>>>,
    limits: Limits,
) -> Result<()> {
    let first = match kind {
        raw::JOB_LOG => 0,
        k if k == raw::GPU_UTIL.file => 3,
        k if k == raw::CPU_UTIL.file => 4,
        k if k == raw::MEM_UTIL.file => 5,
        _ => 6,
    };
    {
        let mut sources = sources.lock().expect("sources");
        if let Some(other) = &sources[first] {
            return Err(Error::input(&member.label, format!("second copy of {kind} (also {other}); expected one")));
        }
        let count = if first == 0 { 3 } else { 1 };
        for s in &mut sources[first..first + count] {
            *s = Some(member.label.clone());
        }
    }
    let lock = |i: usize| tables[i].lock().expect("table");
    if first == 0 {
        let (mut jobs, mut attempts, mut placements) = (lock(0), lock(1), lock(2));
        return read_job_log(member, [&mut jobs, &mut attempts, &mut placements], limits.max_record_bytes);
    }
    let (raw, parse): (&RawCsv, super::csv::Parse) = match first {
        3 => (&raw::GPU_UTIL, gpu_util),
        4 => (&raw::CPU_UTIL, cpu_util),
        5 => (&raw::MEM_UTIL, mem_util),
        _ => (&raw::MACHINE_LIST, machine),
    };
    let mut csv = CsvFile::new(member.reader, member.label, limits);
    csv.expect_header(&raw.header_line())?;
    let layout = Layout { names: raw.columns, trailing_empty: first == 3, optional_header: false };
    csv.records(&layout, &mut lock(first), parse)
}

/// The five files of the trace.
const FILES: usize = 5;

/// The Philly files present extracted. Each may be present once; an
/// archive member with an extracted twin is skipped in its favour.
fn plain_members(inputs: &TraceInputs) -> Result<HashSet<&'static str>> {
    let mut seen = HashSet::new();
    for file in inputs.files.iter().filter(|f| f.packing == Packing::Plain) {
        let base = file.rel.rsplit('/').next().unwrap_or(&file.rel);
        if let Some(kind) = philly_member(base) {
            if !seen.insert(kind) {
                return Err(Error::input(&file.rel, format!("second copy of {kind}; expected one")));
            }
        }
    }
    Ok(seen)
}

fn missing_job_log(inputs: &TraceInputs) -> Error {
    let found: Vec<&str> = inputs.files.iter().map(|f| f.rel.as_str()).collect();
    Error::input(
        raw::JOB_LOG,
        format!("missing; expected {} (plain or inside {}) beside {}", raw::JOB_LOG, raw::ARCHIVE, found.join(", ")),
    )
}

// ---------------------------------------------------------------- CSV files

fn util_time(r: &Record<'_>) -> Result<Value<'static>, Fault> {
    philly_util_time(r.get(0)).map(Value::Ts).map_err(|reason| r.fault(0, reason))
}

/// A utilization or memory figure: non-negative, or `NA` (null).
fn na<'a>(r: &Record<'a>, i: usize) -> Result<Value<'a>, Fault> {
    r.non_negative_opt(i, &["NA"]).map(Value::opt_f64)
}

fn gpu_util<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    out.extend([util_time(r)?, r.text_req(1)?]);
    for i in 2..10 {
        out.push(na(r, i)?);
    }
    Ok(())
}

fn cpu_util<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    out.extend([util_time(r)?, r.text_req(1)?, na(r, 2)?]);
    Ok(())
}

fn mem_util<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    out.extend([util_time(r)?, r.text_req(1)?, na(r, 2)?, na(r, 3)?]);
    Ok(())
}

fn machine<'a>(r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    let gpus = r.int_req(1)?;
    let mem = r.get(2).trim().strip_suffix("GB").and_then(|s| s.parse::<i64>().ok());
    let mem = mem.ok_or_else(|| r.fault(2, "expected a GPU memory like ` 24GB`"))?;
    out.extend([r.text_req(0)?, Value::I64(gpus), Value::I64(mem)]);
    Ok(())
}
