//! Helios ingest: `<Cluster>/cluster_log.csv` and
//! `<Cluster>/cluster_gpu_number.csv` for any subset of Earth, Saturn,
//! Uranus and Venus, plain or inside `data.zip`, into one jobs table (with a
//! `cluster` column) and one long VC-capacity table.

use super::csv::{short, CsvFile, Layout};
use super::record::{Fault, Record};
use super::run::{TraceOutcome, TraceRun};
use super::sink::Value;
use super::source::{helios_member, Member, Packing, TraceInputs};
use super::table::TableIngest;
use super::time::{helios_time, parse_date};
use super::Limits;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::raw::helios::{self as raw, STATES};

pub fn ingest(inputs: &TraceInputs, run: TraceRun<'_>) -> Result<TraceOutcome> {
    let limits = run.limits;
    let mut jobs = run.open("jobs")?;
    let mut vcs = run.open("vc_gpus")?;
    let plain = plain_members(inputs);
    // (cluster/file, label) of every member read, to refuse a second copy
    // and to name the sources.
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut skipped = Vec::new();
    for file in &inputs.files {
        let archive = file.packing != Packing::Plain;
        run.read(file, |member| {
            let Some((cluster, kind)) = helios_member(&member.name) else { return Ok(()) };
            let what = format!("{cluster}/{kind}");
            if archive && plain.contains(&what) {
                skipped.push(member.label);
                return Ok(());
            }
            if seen.iter().any(|(w, _)| *w == what) {
                return Err(Error::input(&member.label, format!("second copy of {what}; expected one")));
            }
            seen.push((what, member.label.clone()));
            if kind == raw::CLUSTER_LOG.file {
                read_log(cluster, member, &mut jobs, limits)
            } else {
                read_gpu_number(cluster, member, &mut vcs, limits)
            }
        })?;
    }
    for label in skipped {
        run.note(format!("{label} skipped: the extracted file beside the archive was read"));
    }
    let (log_src, gpu_src) = (sources(&seen, raw::CLUSTER_LOG.file), sources(&seen, raw::GPU_NUMBER_FILE));
    if log_src.is_none() {
        return Err(Error::input(
            "cluster_log.csv",
            "missing; expected <Cluster>/cluster_log.csv for at least one of Earth, Saturn, Uranus, Venus",
        ));
    }
    run.close(jobs, log_src.as_deref().unwrap_or("(none)"))?;
    run.close(vcs, gpu_src.as_deref().unwrap_or("(none)"))?;
    run.finish()
}

/// `cluster/file` of the Helios files present extracted.
fn plain_members(inputs: &TraceInputs) -> Vec<String> {
    inputs
        .files
        .iter()
        .filter(|f| f.packing == Packing::Plain)
        .filter_map(|f| helios_member(&f.rel).map(|(c, k)| format!("{c}/{k}")))
        .collect()
}

/// The labels of the members of one kind that were read, or `None`.
fn sources(seen: &[(String, String)], file: &str) -> Option<String> {
    let mut labels: Vec<&str> = seen.iter().filter(|(w, _)| w.ends_with(file)).map(|(_, l)| l.as_str()).collect();
    labels.sort_unstable();
    (!labels.is_empty()).then(|| labels.join(", "))
}

fn read_log(cluster: &'static str, member: Member<'_>, jobs: &mut TableIngest, limits: Limits) -> Result<()> {
    let mut csv = CsvFile::new(member.reader, member.label, limits);
    csv.expect_header(&raw::CLUSTER_LOG.header_line())?;
    let layout = Layout { names: raw::CLUSTER_LOG.columns, trailing_empty: false, optional_header: false };
    csv.records(&layout, jobs, |r, out| job(cluster, r, out))
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
        s => helios_time(s).map(Some).map_err(|reason| r.fault(i, reason)),
    }
}

fn job<'a>(cluster: &'static str, r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    let submit = time(r, 7)?.ok_or_else(|| r.fault(7, "expected the submission time"))?;
    let (start, end) = (time(r, 8)?, time(r, 9)?);
    if let (Some(s), Some(e)) = (start, end) {
        if e < s {
            return Err(r.fault(9, format!("end before start (start_time is {})", r.get(8))));
        }
    }
    out.extend([Value::Str(cluster), Value::I64(r.int_req(0)?), r.text_req(1)?, r.text_req(2)?]);
    out.extend([Value::I64(count(r, 3)?), Value::I64(count(r, 4)?), Value::I64(count(r, 5)?)]);
    out.extend([r.one_of(6, STATES)?, Value::Ts(submit), Value::opt_ts(start), Value::opt_ts(end)]);
    // Raw duration and queue (s): a negative one is a corrupt record.
    out.extend([Value::opt_f64(r.non_negative_opt(10, &[])?), Value::opt_f64(r.non_negative_opt(11, &[])?)]);
    Ok(())
}

/// `date,<vc>...,total`: one long row per VC; `total` must equal their sum.
fn read_gpu_number(cluster: &'static str, member: Member<'_>, vcs: &mut TableIngest, limits: Limits) -> Result<()> {
    let mut csv = CsvFile::new(member.reader, member.label, limits);
    let header = csv.read_header()?;
    let names: Vec<&str> = header.split(',').collect();
    if names.len() < 3 || names[0] != raw::GPU_NUMBER_FIRST || names[names.len() - 1] != raw::GPU_NUMBER_LAST {
        return Err(Error::input(
            csv.label(),
            format!("unknown layout: expected a header `date,<vc>...,total`, found `{}`", short(&header)),
        ));
    }
    let layout = Layout { names: &names, trailing_empty: false, optional_header: false };
    csv.records(&layout, vcs, |r, out| vc_row(cluster, r, out))
}

/// The VC names are the record's column names (the header's middle columns).
fn vc_row<'a>(cluster: &'static str, r: &Record<'a>, out: &mut Vec<Value<'a>>) -> Result<(), Fault> {
    let date = parse_date(r.get(0)).ok_or_else(|| r.fault(0, "expected a date like 2020-04-01"))?;
    let total_col = r.len() - 1;
    let mut sum = 0;
    for i in 1..total_col {
        let gpus = count(r, i)?;
        sum += gpus;
        out.extend([Value::Str(cluster), Value::Date(date), Value::Str(r.name(i)), Value::I64(gpus)]);
    }
    let total = count(r, total_col)?;
    if total != sum {
        return Err(r.fault(total_col, format!("total differs from the sum of the VC columns ({sum})")));
    }
    Ok(())
}
