//! AcmeTrace ingest: `trace_seren.csv` and `trace_kalos.csv` (either or
//! both; plain, gzipped or in a `.tar.gz` of the same stem) into one jobs
//! table with a `cluster` column. Each file's header is mapped by name; a
//! value's own UTC offset is honoured ([`iso_offset_time`]).

use super::csv::{CsvFile, Layout};
use super::header::Columns;
use super::record::{Fault, Record};
use super::run::{TraceOutcome, TraceRun};
use super::sink::Value;
use super::source::{acme_member, Member, Packing, TraceInputs};
use super::table::TableIngest;
use super::time::iso_offset_time;
use super::Limits;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::raw::acme::{self as raw, STATES, TYPES};
use tracelab_schema::raw::RawCsv;

pub fn ingest(inputs: &TraceInputs, run: TraceRun<'_>) -> Result<TraceOutcome> {
    let limits = run.limits;
    let mut jobs = run.open_deriving("jobs")?;
    // Clusters present as a plain file: their packed copies are skipped.
    let plain: Vec<&str> = inputs
        .files
        .iter()
        .filter(|f| f.packing == Packing::Plain)
        .filter_map(|f| acme_member(&f.rel).map(|(c, _)| c))
        .collect();
    let mut seen: Vec<(&'static str, String)> = Vec::new();
    let mut skipped = Vec::new();
    for file in &inputs.files {
        if file.packing != Packing::Plain && acme_member(&file.rel).is_some_and(|(c, _)| plain.contains(&c)) {
            skipped.push(file);
            continue;
        }
        run.read(file, |member| {
            let Some((cluster, layout)) = acme_member(&member.name) else { return Ok(()) };
            if let Some((_, first)) = seen.iter().find(|(c, _)| *c == cluster) {
                let problem = format!("second copy of {} (first read from {first}); expected one", layout.file);
                return Err(Error::input(&member.label, problem));
            }
            seen.push((cluster, member.label.clone()));
            read_jobs(cluster, layout, member, &mut jobs, limits)
        })?;
    }
    for file in skipped {
        run.skip(file, format!("{} skipped: the plain file of the same cluster was read", file.rel))?;
    }
    if seen.is_empty() {
        return Err(Error::input(
            "trace_seren.csv",
            "missing; expected trace_seren.csv or trace_kalos.csv (AcmeTrace data/job_trace/)",
        ));
    }
    seen.sort_by_key(|(c, _)| raw::CLUSTERS.iter().position(|(k, _)| k == c));
    let sources: Vec<&str> = seen.iter().map(|(_, l)| l.as_str()).collect();
    run.close(jobs, &sources.join(", "))?;
    run.finish()
}

/// The raw columns a parser reads, by position in the cluster's layout.
struct Cols {
    map: Columns,
    kalos: bool,
}

impl Cols {
    /// The file position of raw column `name` (one of the layout's).
    fn at(&self, layout: &RawCsv, name: &str) -> usize {
        self.map.at(layout.index_of(name).expect("a column of the layout"))
    }
}

fn read_jobs(
    cluster: &'static str,
    layout: &'static RawCsv,
    member: Member<'_>,
    jobs: &mut TableIngest,
    limits: Limits,
) -> Result<()> {
    let mut csv = CsvFile::new(member.reader, member.label, limits);
    let header = csv.read_header()?;
    let cols = Cols { map: Columns::map(csv.label(), &header, layout.columns)?, kalos: layout.file == raw::KALOS.file };
    let idx = Idx::new(&cols, layout);
    let names = cols.map.name_refs();
    let csv_layout = Layout { names: &names, trailing_empty: false, optional_header: false };
    csv.records(&csv_layout, jobs, |r, out| job(cluster, &idx, r, out))
}

/// File positions of every raw column, looked up once per file.
struct Idx {
    job_id: usize,
    user: usize,
    nodes: usize,
    gpus: usize,
    cpus: usize,
    mem: Option<usize>,
    shm: Option<usize>,
    kind: usize,
    state: usize,
    submit: usize,
    start: usize,
    end: usize,
    fail: Option<usize>,
    stop: Option<usize>,
    duration: usize,
    queue: usize,
    gpu_time: usize,
}

impl Idx {
    fn new(c: &Cols, l: &RawCsv) -> Idx {
        let kalos = |name: &str| c.kalos.then(|| c.at(l, name));
        Idx {
            job_id: c.at(l, "job_id"),
            user: c.at(l, "user"),
            nodes: c.at(l, "node_num"),
            gpus: c.at(l, "gpu_num"),
            cpus: c.at(l, "cpu_num"),
            mem: kalos("mem_per_pod_GB"),
            shm: kalos("shared_mem_per_pod"),
            kind: c.at(l, "type"),
            state: c.at(l, "state"),
            submit: c.at(l, "submit_time"),
            start: c.at(l, "start_time"),
            end: c.at(l, "end_time"),
            fail: kalos("fail_time"),
            stop: kalos("stop_time"),
            duration: c.at(l, "duration"),
            queue: c.at(l, "queue"),
            gpu_time: c.at(l, "gpu_time"),
        }
    }
}

fn count(r: &Record<'_>, i: usize) -> Result<i64, Fault> {
    let v = r.int_req(i)?;
    if v < 0 {
        return Err(r.fault(i, "expected a non-negative count"));
    }
    Ok(v)
}

fn time(r: &Record<'_>, i: usize) -> Result<Option<i64>, Fault> {
    match r.get(i) {
        "" => Ok(None),
        s => iso_offset_time(s).map(Some).map_err(|reason| r.fault(i, reason)),
    }
}

fn opt_time(r: &Record<'_>, i: Option<usize>) -> Result<Value<'static>, Fault> {
    Ok(match i {
        Some(i) => Value::opt_ts(time(r, i)?),
        None => Value::Null,
    })
}

fn opt_amount<'a>(r: &Record<'a>, i: Option<usize>) -> Result<Value<'a>, Fault> {
    Ok(match i {
        Some(i) => Value::opt_f64(r.non_negative_opt(i, &[])?),
        None => Value::Null,
    })
}

/// One record in `acme/jobs` column order.
fn job<'a>(cluster: &'static str, x: &Idx, r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    let submit = time(r, x.submit)?.ok_or_else(|| r.fault(x.submit, "expected the submission time"))?;
    let (start, end) = (time(r, x.start)?, time(r, x.end)?);
    if let (Some(s), Some(e)) = (start, end) {
        if e < s {
            return Err(r.fault(x.end, format!("end before start (start_time is {})", r.get(x.start))));
        }
    }
    out.extend([Value::Str(cluster), r.text_req(x.job_id)?, r.text_req(x.user)?]);
    out.extend([Value::I64(count(r, x.nodes)?), Value::I64(count(r, x.gpus)?), Value::I64(count(r, x.cpus)?)]);
    out.extend([opt_amount(r, x.mem)?, opt_amount(r, x.shm)?, r.one_of(x.kind, TYPES)?, r.one_of(x.state, STATES)?]);
    out.extend([
        Value::Ts(submit),
        Value::opt_ts(start),
        Value::opt_ts(end),
        opt_time(r, x.fail)?,
        opt_time(r, x.stop)?,
    ]);
    // Raw duration, queue and GPU time: a negative one is a corrupt record.
    let amount = |i: usize| r.non_negative_opt(i, &[]).map(Value::opt_f64);
    out.extend([amount(x.duration)?, amount(x.queue)?, amount(x.gpu_time)?]);
    Ok(())
}
