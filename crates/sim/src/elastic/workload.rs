//! Pollux's workload CSV, read as the artifact's simulator reads it
//! (`simulator/workloads/*.csv`): a header naming the columns `name`,
//! `time` (submission, seconds), `application` (one of the six measured
//! applications), `num_replicas` (GPUs asked for) and `batch_size` (total
//! batch size asked for), in any order; other columns are ignored (so
//! `tracelab export --to pollux` output reads back). Quoting, a byte-order
//! mark and CRLF as the rigid engine's job list ([`crate::csv`]).
//!
//! A bad row is an error naming the file, the line (the header is line 1)
//! and the column: an unknown application, a number that is not one, a
//! batch size outside the application's measured range, or more GPUs than
//! the batch size can feed (each GPU needs the smallest measured per-GPU
//! batch).

use std::io::BufRead;

use crate::csv::next_record;
use crate::elastic::app;
use crate::elastic::error::ElasticError;
use crate::elastic::job::ElasticJob;
use crate::error::SimError;
use crate::time::{from_secs, MAX_SECS};

const COLUMNS: [&str; 5] = ["name", "time", "application", "num_replicas", "batch_size"];

/// Whether a header row is Pollux's (it names `application` and `num_replicas`).
pub fn is_pollux_header(header: &str) -> bool {
    let cols: Vec<&str> =
        header.trim_start_matches('\u{feff}').split(',').map(|c| c.trim().trim_matches('"')).collect();
    cols.contains(&"application") && cols.contains(&"num_replicas")
}

/// Reads a workload; `file` names it in errors.
pub fn read_workload(input: impl BufRead, file: &str) -> Result<Vec<ElasticJob>, ElasticError> {
    let err = |line: usize, column: &str, what: String| ElasticError::Workload {
        file: file.to_string(),
        line,
        column: column.to_string(),
        what,
    };
    let from_sim = |e: SimError| match e {
        SimError::Csv { line, column, what } => err(line, &column, what),
        other => ElasticError::Sim(other),
    };
    let mut lines = input.lines();
    let mut line_no = 0;
    let (_, header) =
        next_record(&mut lines, &mut line_no).map_err(from_sim)?.ok_or_else(|| err(1, "", "no header row".into()))?;
    let header: Vec<String> = header.iter().map(|h| h.trim_start_matches('\u{feff}').trim().to_string()).collect();
    let mut at = [0usize; 5];
    for (k, c) in COLUMNS.iter().enumerate() {
        at[k] = header
            .iter()
            .position(|h| h == c)
            .ok_or_else(|| err(1, c, format!("missing column `{c}` (expected {})", COLUMNS.join(", "))))?;
    }
    let mut jobs = Vec::new();
    while let Some((line, fields)) = next_record(&mut lines, &mut line_no).map_err(from_sim)? {
        if fields.len() == 1 && fields[0].is_empty() {
            continue;
        }
        if fields.len() != header.len() {
            return Err(err(line, "", format!("expected {} fields, found {}", header.len(), fields.len())));
        }
        jobs.push(row(&fields, &at, line, &err)?);
    }
    if jobs.is_empty() {
        return Err(err(line_no.max(1), "", "the workload has no jobs".into()));
    }
    Ok(jobs)
}

fn row(
    f: &[String],
    at: &[usize; 5],
    line: usize,
    err: &impl Fn(usize, &str, String) -> ElasticError,
) -> Result<ElasticJob, ElasticError> {
    let name = f[at[0]].clone();
    let time: f64 = f[at[1]].parse().ok().filter(|t: &f64| t.is_finite() && t.abs() <= MAX_SECS).ok_or_else(|| {
        err(line, "time", format!("`{}` is not a time in seconds (a number within ±{MAX_SECS:e})", f[at[1]]))
    })?;
    let a = app::get(&f[at[2]]).ok_or_else(|| {
        err(line, "application", format!("unknown application `{}`; known: {}", f[at[2]], app::names()))
    })?;
    let whole = |k: usize, col: &str| -> Result<u32, ElasticError> {
        f[at[k]]
            .parse::<u32>()
            .ok()
            .filter(|v| *v >= 1)
            .ok_or_else(|| err(line, col, format!("`{}` is not a whole number >= 1", f[at[k]])))
    };
    let replicas = whole(3, "num_replicas")?;
    let batch = whole(4, "batch_size")?;
    if batch < a.init_batch_size || batch > a.max_batch_size {
        let what = format!(
            "batch size {batch} is outside {}'s measured range {}..={}",
            a.name, a.init_batch_size, a.max_batch_size
        );
        return Err(err(line, "batch_size", what));
    }
    if batch.div_ceil(replicas) < a.min_local_bsz {
        let what = format!(
            "{replicas} GPUs for batch size {batch} leave fewer than {} examples per GPU, the smallest {} measured",
            a.min_local_bsz, a.name
        );
        return Err(err(line, "num_replicas", what));
    }
    Ok(ElasticJob { name, application: a, submit: from_secs(time), replicas, batch_size: batch })
}
