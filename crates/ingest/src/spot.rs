//! Spot-GPU trace ingest: `job_info_df.csv` and `node_info_df.csv` (plain,
//! gzipped or in a `.tar.gz` of the same stem) into `spot/jobs` and
//! `spot/nodes`. Headers are mapped by name. Submission offsets become
//! timestamps from the owners' simulator's origin
//! ([`tracelab_schema::spot::ORIGIN_UTC_S`]); the raw seconds are kept.

use super::csv::{CsvFile, Layout};
use super::header::Columns;
use super::record::{Fault, Record};
use super::run::{TraceOutcome, TraceRun};
use super::sink::Value;
use super::source::{spot_member, Member, Packing, TraceInputs};
use super::table::TableIngest;
use super::time::PAI_MAX_OFFSET_S;
use super::Limits;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::raw::spot::{JOBS, JOB_TYPES, NODES};
use tracelab_schema::raw::RawCsv;
use tracelab_schema::spot::ORIGIN_UTC_S;

pub fn ingest(inputs: &TraceInputs, run: TraceRun<'_>) -> Result<TraceOutcome> {
    let limits = run.limits;
    let mut jobs = run.open_deriving("jobs")?;
    let mut nodes = run.open("nodes")?;
    let plain: Vec<&str> = inputs
        .files
        .iter()
        .filter(|f| f.packing == Packing::Plain)
        .filter_map(|f| spot_member(&f.rel).map(|l| l.file))
        .collect();
    let mut seen: Vec<(&'static str, String)> = Vec::new();
    let mut skipped = Vec::new();
    for file in &inputs.files {
        if file.packing != Packing::Plain && spot_member(&file.rel).is_some_and(|l| plain.contains(&l.file)) {
            skipped.push(file);
            continue;
        }
        run.read(file, |member| {
            let Some(layout) = spot_member(&member.name) else { return Ok(()) };
            if let Some((_, first)) = seen.iter().find(|(f, _)| *f == layout.file) {
                let problem = format!("second copy of {} (first read from {first}); expected one", layout.file);
                return Err(Error::input(&member.label, problem));
            }
            seen.push((layout.file, member.label.clone()));
            if layout.file == JOBS.file {
                read(member, &JOBS, &mut jobs, limits, job)
            } else {
                read(member, &NODES, &mut nodes, limits, node)
            }
        })?;
    }
    for file in skipped {
        run.skip(file, format!("{} skipped: the plain file was read", file.rel))?;
    }
    let source = |f: &str| seen.iter().find(|(k, _)| *k == f).map(|(_, l)| l.clone());
    let Some(jobs_src) = source(JOBS.file) else {
        return Err(Error::input(JOBS.file, "missing; expected job_info_df.csv (cluster-trace-v2026-spot-gpu)"));
    };
    run.close(jobs, &jobs_src)?;
    run.close(nodes, source(NODES.file).as_deref().unwrap_or("(none)"))?;
    run.finish()
}

/// A record parser given the file positions of the layout's columns.
type Parse = for<'a> fn(&Columns, &Record<'a>, &mut Vec<Value<'a>>) -> Result<(), Fault>;

fn read(member: Member<'_>, layout: &RawCsv, out: &mut TableIngest, limits: Limits, parse: Parse) -> Result<()> {
    let mut csv = CsvFile::new(member.reader, member.label, limits);
    let header = csv.read_header()?;
    let cols = Columns::map(csv.label(), &header, layout.columns)?;
    let names = cols.name_refs();
    let csv_layout = Layout { names: &names, trailing_empty: false, optional_header: false };
    csv.records(&csv_layout, out, |r, row| parse(&cols, r, row))
}

fn count(r: &Record<'_>, i: usize) -> Result<i64, Fault> {
    let v = r.int_req(i)?;
    if v < 0 {
        return Err(r.fault(i, "expected a non-negative count"));
    }
    Ok(v)
}

fn amount(r: &Record<'_>, i: usize) -> Result<f64, Fault> {
    r.non_negative_opt(i, &[])?.ok_or_else(|| r.fault(i, "expected a non-negative number"))
}

/// `job_info_df.csv` columns, in the raw layout's order.
const J_NAME: usize = 0;
const J_ORG: usize = 1;
const J_MODEL: usize = 2;
const J_CPU: usize = 3;
const J_GPU: usize = 4;
const J_WORKERS: usize = 5;
const J_SUBMIT: usize = 6;
const J_DURATION: usize = 7;
const J_TYPE: usize = 8;

/// One job in `spot/jobs` column order.
fn job<'a>(c: &Columns, r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    let submit_s = amount(r, c.at(J_SUBMIT))?;
    if submit_s >= PAI_MAX_OFFSET_S {
        return Err(r.fault(c.at(J_SUBMIT), "offset seconds out of range: expected less than 9.2e12"));
    }
    let (gpu_request, workers) = (amount(r, c.at(J_GPU))?, count(r, c.at(J_WORKERS))?);
    let submit_us = ORIGIN_UTC_S * 1_000_000 + (submit_s * 1e6).round() as i64;
    out.extend([r.text_req(c.at(J_NAME))?, r.text_req(c.at(J_ORG))?, r.text_req(c.at(J_MODEL))?]);
    out.extend([Value::F64(amount(r, c.at(J_CPU))?), Value::F64(gpu_request), Value::I64(workers)]);
    out.extend([Value::F64(workers as f64 * gpu_request), Value::F64(submit_s), Value::Ts(submit_us)]);
    out.extend([Value::F64(amount(r, c.at(J_DURATION))?), r.one_of(c.at(J_TYPE), JOB_TYPES)?]);
    Ok(())
}

/// `node_info_df.csv` columns, in the raw layout's order.
const N_MODEL: usize = 0;
const N_GPUS: usize = 1;
const N_CPUS: usize = 2;
const N_NAME: usize = 3;

/// One node in `spot/nodes` column order.
fn node<'a>(c: &Columns, r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    out.extend([r.text_req(c.at(N_NAME))?, r.text_req(c.at(N_MODEL))?]);
    out.extend([Value::I64(count(r, c.at(N_GPUS))?), Value::I64(count(r, c.at(N_CPUS))?)]);
    Ok(())
}
