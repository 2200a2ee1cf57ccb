//! A plain CSV job list, so that any job list (a cross-check script, a user's
//! own trace) can be replayed without Polars.
//!
//! Format: a header row naming the columns, in any order, then one job per
//! line; fields are separated by commas and may not be quoted.
//!
//! | column | required | meaning |
//! |---|---|---|
//! | `job_id` | no | the caller's id, kept as text (default: the row number) |
//! | `submit_s` | yes | submission time, seconds (decimals allowed) |
//! | `duration_s` | yes | run time, seconds |
//! | `gpus` | yes | GPUs per job, may be fractional (0.5 = half a GPU) |
//! | `cpus` | no | CPU cores; empty = unknown |
//! | `user`, `vc`, `group` | no | names, interned in order of appearance |
//! | `gpu_type` | no | GPU type name the job is pinned to; empty = any |
//!
//! Bad rows are rejected with their line number (the header is line 1) and
//! column.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use crate::error::SimError;
use crate::job::{Job, Workload};
use crate::time::{from_secs, to_secs};

/// Names to dense ids, in order of first appearance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interner {
    pub names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Interner {
    pub fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }

    pub fn get(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }
}

/// A job list read from CSV: the workload and the names behind its ids.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobList {
    pub workload: Workload,
    pub job_ids: Vec<String>,
    pub users: Interner,
    pub vcs: Interner,
    pub groups: Interner,
    /// GPU type names; a cluster for this list must use the same ids.
    pub gpu_types: Interner,
}

const COLUMNS: [&str; 9] = ["job_id", "submit_s", "duration_s", "gpus", "cpus", "user", "vc", "group", "gpu_type"];

struct Row<'a> {
    line: usize,
    fields: Vec<&'a str>,
    at: &'a [Option<usize>; 9],
}

impl Row<'_> {
    fn text(&self, col: usize) -> Option<&str> {
        self.at[col].map(|i| self.fields[i].trim())
    }

    fn number(&self, col: usize, min: f64) -> Result<Option<f64>, SimError> {
        let Some(text) = self.text(col).filter(|t| !t.is_empty()) else { return Ok(None) };
        let bad = |what: String| SimError::Csv { line: self.line, column: COLUMNS[col].into(), what };
        let x: f64 = text.parse().map_err(|_| bad(format!("expected a number, found `{text}`")))?;
        if !x.is_finite() || x < min {
            return Err(bad(format!("expected a finite number >= {min}, found `{text}`")));
        }
        Ok(Some(x))
    }

    fn required(&self, col: usize, min: f64) -> Result<f64, SimError> {
        self.number(col, min)?.ok_or_else(|| SimError::Csv {
            line: self.line,
            column: COLUMNS[col].into(),
            what: "missing value".into(),
        })
    }
}

fn header_positions(header: &str) -> Result<[Option<usize>; 9], SimError> {
    let mut at = [None; 9];
    for (i, name) in header.split(',').map(str::trim).enumerate() {
        let col = COLUMNS.iter().position(|c| *c == name).ok_or_else(|| SimError::Csv {
            line: 1,
            column: name.into(),
            what: format!("unknown column; expected some of {}", COLUMNS.join(",")),
        })?;
        at[col] = Some(i);
    }
    for (col, name) in [(1, "submit_s"), (2, "duration_s"), (3, "gpus")] {
        if at[col].is_none() {
            return Err(SimError::Csv {
                line: 1,
                column: name.into(),
                what: "required column missing from the header".into(),
            });
        }
    }
    Ok(at)
}

/// Reads a job list (see the module docs for the format).
pub fn read_jobs(input: impl BufRead) -> Result<JobList, SimError> {
    let mut lines = input.lines();
    let header = lines.next().transpose()?.ok_or(SimError::Csv {
        line: 1,
        column: String::new(),
        what: "no header row".into(),
    })?;
    let at = header_positions(&header)?;
    let width = header.split(',').count();
    let mut list = JobList::default();
    for (i, line) in lines.enumerate() {
        let line_no = i + 2;
        let text = line?;
        if text.trim().is_empty() {
            continue;
        }
        if text.contains('"') {
            return Err(SimError::Csv {
                line: line_no,
                column: String::new(),
                what: "quoted fields are not supported".into(),
            });
        }
        let fields: Vec<&str> = text.split(',').collect();
        if fields.len() != width {
            let what = format!("expected {width} fields, found {}", fields.len());
            return Err(SimError::Csv { line: line_no, column: String::new(), what });
        }
        read_row(&mut list, &Row { line: line_no, fields, at: &at })?;
    }
    finish(list)
}

fn read_row(list: &mut JobList, row: &Row) -> Result<(), SimError> {
    let id = list.workload.jobs.len() as u32;
    let gpus = row.required(3, 0.0)?;
    let job = Job {
        id,
        submit: from_secs(row.required(1, f64::MIN)?),
        duration: from_secs(row.required(2, 0.0)?),
        gpu_milli: (gpus * 1000.0).round() as u32,
        cpu_milli: row.number(4, 0.0)?.map(|c| (c * 1000.0).round() as u32),
        user: list.users.id(row.text(5).unwrap_or("")),
        vc: list.vcs.id(row.text(6).unwrap_or("")),
        group: list.groups.id(row.text(7).unwrap_or("")),
        gpu_type: row.text(8).filter(|t| !t.is_empty()).map(|t| list.gpu_types.id(t) as u16),
    };
    list.job_ids.push(row.text(0).map_or_else(|| id.to_string(), str::to_string));
    list.workload.jobs.push(job);
    Ok(())
}

fn finish(mut list: JobList) -> Result<JobList, SimError> {
    if list.workload.jobs.is_empty() {
        return Err(SimError::EmptyWorkload);
    }
    let w = &mut list.workload;
    w.n_users = list.users.names.len() as u32;
    w.n_vcs = list.vcs.names.len() as u32;
    w.n_groups = list.groups.names.len() as u32;
    w.n_gpu_types = list.gpu_types.names.len() as u16;
    Ok(list)
}

/// Writes a job list in the same format (all columns; times in seconds with
/// millisecond precision).
pub fn write_jobs(list: &JobList, mut out: impl Write) -> std::io::Result<()> {
    writeln!(out, "{}", COLUMNS.join(","))?;
    for (i, j) in list.workload.jobs.iter().enumerate() {
        let name = |int: &Interner, id: u32| int.names.get(id as usize).cloned().unwrap_or_default();
        let cpus = j.cpu_milli.map_or(String::new(), |c| format!("{}", c as f64 / 1000.0));
        let ty = j.gpu_type.map_or(String::new(), |t| name(&list.gpu_types, t as u32));
        writeln!(
            out,
            "{},{:.3},{:.3},{},{},{},{},{},{}",
            list.job_ids.get(i).cloned().unwrap_or_else(|| i.to_string()),
            to_secs(j.submit),
            to_secs(j.duration),
            j.gpu_milli as f64 / 1000.0,
            cpus,
            name(&list.users, j.user),
            name(&list.vcs, j.vc),
            name(&list.groups, j.group),
            ty
        )?;
    }
    Ok(())
}
