//! A plain CSV job list, so that any job list (a cross-check script, a user's
//! own trace) can be replayed without Polars.
//!
//! Format: a header row naming the columns, in any order, then one job per
//! line; fields are separated by commas (RFC 4180: a field in double quotes
//! may hold commas, line breaks and `""` for a quote). A UTF-8 byte-order
//! mark before the header (as spreadsheets write it) and CRLF line ends are
//! accepted. Unquoted fields are trimmed.
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
//! | `gpu_util` | no | GPU utilization alone, % of one GPU (0-100); empty = unknown |
//! | `gpu_mem_gib` | no | GPU memory per GPU, GiB (>= 0); empty = unknown |
//! | `class` | no | `offline` (default) or `online` (a service) |
//! | `priority` | no | priority class 0-255 (`priority` policy: higher preempts lower); empty = 0 |
//!
//! Times are bounded by [`MAX_SECS`] and GPU and CPU counts by
//! [`MAX_UNITS`], so that no sum the engine takes overflows. Bad rows are
//! rejected with their line number (the header is line 1) and column.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use crate::error::SimError;
use crate::job::{Job, Workload};
use crate::time::{from_secs, to_secs, MAX_SECS};
use crate::usage::{JobClass, Usage, MAX_GPU_MEM_GIB};

/// The most GPUs or CPU cores one job may ask for: a million, far beyond
/// any cluster, and within the engine's thousandths held in a `u32`.
pub const MAX_UNITS: f64 = 1e6;

/// The most GPU types a replay tells apart: GPU-type ids and their count
/// ([`Workload::n_gpu_types`]) are `u16`. One more type used to wrap to the
/// first one, so a job pinned to it ran on the wrong nodes.
pub const MAX_GPU_TYPES: usize = u16::MAX as usize;

/// Names to dense ids, in order of first appearance. User, VC and group ids
/// are `u32`; GPU types go through [`Interner::gpu_type`], never `id as u16`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interner {
    pub names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Interner {
    /// The id of `name`, added if new.
    ///
    /// Panics past `u32::MAX` names, which cannot be reached: the names
    /// alone would take over 100 GB first.
    pub fn id(&mut self, name: &str) -> u32 {
        self.intern(name, u32::MAX as usize).expect("fewer than 2^32 distinct names fit in memory")
    }

    /// The id of GPU type `name`, added if new; an error past
    /// [`MAX_GPU_TYPES`] types.
    pub fn gpu_type(&mut self, name: &str) -> Result<u16, SimError> {
        let too_many =
            || SimError::TooLarge { what: "GPU types", have: self.names.len() as u64 + 1, limit: MAX_GPU_TYPES as u64 };
        match self.ids.get(name) {
            Some(&id) => Ok(id as u16),
            None if self.names.len() >= MAX_GPU_TYPES => Err(too_many()),
            None => Ok(self.intern(name, MAX_GPU_TYPES).expect("checked above") as u16),
        }
    }

    /// The id of `name`, added if new while fewer than `limit` names are held.
    fn intern(&mut self, name: &str, limit: usize) -> Option<u32> {
        if let Some(&id) = self.ids.get(name) {
            return Some(id);
        }
        if self.names.len() >= limit {
            return None;
        }
        let id = u32::try_from(self.names.len()).ok()?;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        Some(id)
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

const COLUMNS: [&str; 13] = [
    "job_id",
    "submit_s",
    "duration_s",
    "gpus",
    "cpus",
    "user",
    "vc",
    "group",
    "gpu_type",
    "gpu_util",
    "gpu_mem_gib",
    "class",
    "priority",
];
/// The columns every list has; then the GPU usage columns (written only
/// when a job has usage), then `priority` (only when a job has a class
/// above 0).
const BASE_COLUMNS: usize = 9;
const USAGE_COLUMNS: usize = 3;
/// The position of `priority` in [`COLUMNS`].
const PRIORITY: usize = 12;

struct Row<'a> {
    line: usize,
    fields: Vec<String>,
    at: &'a [Option<usize>; COLUMNS.len()],
}

impl Row<'_> {
    fn text(&self, col: usize) -> Option<&str> {
        self.at[col].map(|i| self.fields[i].as_str())
    }

    /// The number in `col`, checked to lie in `[min, max]`.
    fn number(&self, col: usize, min: f64, max: f64) -> Result<Option<f64>, SimError> {
        let Some(text) = self.text(col).filter(|t| !t.is_empty()) else { return Ok(None) };
        let bad = |what: String| SimError::Csv { line: self.line, column: COLUMNS[col].into(), what };
        let x: f64 = text.parse().map_err(|_| bad(format!("expected a number, found `{text}`")))?;
        if !x.is_finite() || x < min {
            return Err(bad(format!("expected a finite number >= {min}, found `{text}`")));
        }
        if x > max {
            let max = if max < 1e6 { format!("{max}") } else { format!("{max:e}") };
            return Err(bad(format!("expected a number <= {max}, found `{text}`")));
        }
        Ok(Some(x))
    }

    /// The priority class: a whole number 0-255, 0 when absent or empty.
    fn priority(&self) -> Result<u8, SimError> {
        let Some(p) = self.number(PRIORITY, 0.0, 255.0)? else { return Ok(0) };
        if p.fract() != 0.0 {
            let what = format!("expected a whole number 0-255, found `{}`", self.text(PRIORITY).unwrap_or(""));
            return Err(SimError::Csv { line: self.line, column: COLUMNS[PRIORITY].into(), what });
        }
        Ok(p as u8)
    }

    fn required(&self, col: usize, min: f64, max: f64) -> Result<f64, SimError> {
        self.number(col, min, max)?.ok_or_else(|| SimError::Csv {
            line: self.line,
            column: COLUMNS[col].into(),
            what: "missing value".into(),
        })
    }
}

fn header_positions(header: &[String]) -> Result<[Option<usize>; COLUMNS.len()], SimError> {
    let mut at = [None; COLUMNS.len()];
    for (i, name) in header.iter().enumerate() {
        let col = COLUMNS.iter().position(|c| c == name).ok_or_else(|| SimError::Csv {
            line: 1,
            column: name.clone(),
            what: format!("unknown column; expected some of {}", COLUMNS.join(",")),
        })?;
        if at[col].replace(i).is_some() {
            return Err(SimError::Csv { line: 1, column: name.clone(), what: "column named twice".into() });
        }
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

/// The most lines and bytes one record may span: a quoted field with line
/// breaks in a name is a few lines; a quote left open would otherwise take
/// the rest of the file into one record.
const RECORD_LINES: usize = 100;
const RECORD_BYTES: usize = 64 << 10;

/// The next record of `lines` with the line it starts on: its fields, or
/// None at the end. A quoted field may span lines, up to [`RECORD_LINES`]
/// and [`RECORD_BYTES`].
pub(crate) fn next_record(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    line_no: &mut usize,
) -> Result<Option<(usize, Vec<String>)>, SimError> {
    let Some(first) = lines.next().transpose()? else { return Ok(None) };
    *line_no += 1;
    let start = *line_no;
    let mut text = first;
    loop {
        match split_fields(&text) {
            Some(fields) => return Ok(Some((start, fields))),
            None if *line_no - start + 1 >= RECORD_LINES || text.len() > RECORD_BYTES => {
                let what =
                    format!("a quoted field is not closed within {RECORD_LINES} lines or {} KiB", RECORD_BYTES >> 10);
                return Err(SimError::Csv { line: start, column: String::new(), what });
            }
            None => match lines.next().transpose()? {
                Some(more) => {
                    *line_no += 1;
                    text.push('\n');
                    text.push_str(&more);
                }
                None => {
                    let what = "a quoted field is not closed before the end of the file".into();
                    return Err(SimError::Csv { line: start, column: String::new(), what });
                }
            },
        }
    }
}

/// The fields of one record (RFC 4180), unquoted fields trimmed; None while
/// a quoted field is still open at the end of `text`. A quote inside an
/// unquoted field, or text after a closing quote, is kept as it stands.
fn split_fields(text: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| *c == ' ' || *c == '\t').is_some() {}
        let mut field = String::new();
        if chars.next_if_eq(&'"').is_some() {
            loop {
                match chars.next()? {
                    '"' if chars.next_if_eq(&'"').is_some() => field.push('"'),
                    '"' => break,
                    c => field.push(c),
                }
            }
            // Whatever follows the closing quote up to the comma belongs to
            // the field, but for white space before the comma.
            let mut rest = String::new();
            while let Some(c) = chars.next_if(|c| *c != ',') {
                rest.push(c);
            }
            field.push_str(rest.trim_end());
        } else {
            while let Some(c) = chars.next_if(|c| *c != ',') {
                field.push(c);
            }
            field = field.trim().to_string();
        }
        fields.push(field);
        if chars.next().is_none() {
            return Some(fields);
        }
    }
}

/// Reads a job list (see the module docs for the format).
pub fn read_jobs(input: impl BufRead) -> Result<JobList, SimError> {
    let mut lines = input.lines();
    let mut line_no = 0;
    let no_header = || SimError::Csv { line: 1, column: String::new(), what: "no header row".into() };
    let (_, mut header) = next_record(&mut lines, &mut line_no)?.ok_or_else(no_header)?;
    if let Some(first) = header.first_mut() {
        if let Some(rest) = first.strip_prefix('\u{feff}') {
            *first = rest.trim().to_string();
        }
    }
    let at = header_positions(&header)?;
    let mut list = JobList::default();
    while let Some((line, fields)) = next_record(&mut lines, &mut line_no)? {
        if fields.len() == 1 && fields[0].is_empty() {
            continue;
        }
        if fields.len() != header.len() {
            let what = format!("expected {} fields, found {}", header.len(), fields.len());
            return Err(SimError::Csv { line, column: String::new(), what });
        }
        read_row(&mut list, &Row { line, fields, at: &at })?;
    }
    finish(list)
}

fn read_row(list: &mut JobList, row: &Row) -> Result<(), SimError> {
    let bad = |column: &str, what: String| SimError::Csv { line: row.line, column: column.into(), what };
    let id = u32::try_from(list.workload.jobs.len())
        .ok()
        .filter(|id| *id < u32::MAX)
        .ok_or_else(|| bad("", format!("more than {} jobs (job ids are 32-bit)", u32::MAX)))?;
    let gpus = row.required(3, 0.0, MAX_UNITS)?;
    let gpu_type = match row.text(8).filter(|t| !t.is_empty()) {
        Some(t) => Some(list.gpu_types.gpu_type(t).map_err(|e| bad("gpu_type", e.to_string()))?),
        None => None,
    };
    let job = Job {
        id,
        submit: from_secs(row.required(1, -MAX_SECS, MAX_SECS)?),
        duration: from_secs(row.required(2, 0.0, MAX_SECS)?),
        gpu_milli: (gpus * 1000.0).round() as u32,
        cpu_milli: row.number(4, 0.0, MAX_UNITS)?.map(|c| (c * 1000.0).round() as u32),
        user: list.users.id(row.text(5).unwrap_or("")),
        vc: list.vcs.id(row.text(6).unwrap_or("")),
        group: list.groups.id(row.text(7).unwrap_or("")),
        gpu_type,
        priority: row.priority()?,
    };
    let usage = read_usage(row)?;
    list.job_ids.push(row.text(0).map_or_else(|| id.to_string(), str::to_string));
    list.workload.jobs.push(job);
    list.workload.usage.push(usage);
    Ok(())
}

fn read_usage(row: &Row) -> Result<Usage, SimError> {
    let class = match row.text(11).filter(|t| !t.is_empty()) {
        None => JobClass::Offline,
        Some(t) => t.parse().map_err(|_| SimError::Csv {
            line: row.line,
            column: COLUMNS[11].into(),
            what: format!("expected offline or online, found `{t}`"),
        })?,
    };
    Ok(Usage {
        gpu_util: row.number(9, 0.0, 100.0)?.map(|u| u as f32),
        gpu_mem_gib: row.number(10, 0.0, MAX_GPU_MEM_GIB)?.map(|m| m as f32),
        class,
    })
}

fn finish(mut list: JobList) -> Result<JobList, SimError> {
    if list.workload.jobs.is_empty() {
        return Err(SimError::EmptyWorkload);
    }
    let w = &mut list.workload;
    if w.usage.iter().all(|u| *u == Usage::default()) {
        w.usage.clear();
    }
    w.n_users = list.users.names.len() as u32;
    w.n_vcs = list.vcs.names.len() as u32;
    w.n_groups = list.groups.names.len() as u32;
    w.n_gpu_types = u16::try_from(list.gpu_types.names.len()).expect("gpu_type keeps at most u16::MAX types");
    Ok(list)
}

/// Writes a job list in the same format (every column, the usage columns
/// only when some job has usage, `priority` only when a job has a class
/// above 0; times in seconds with millisecond precision).
pub fn write_jobs(list: &JobList, mut out: impl Write) -> std::io::Result<()> {
    let usage = !list.workload.usage.is_empty();
    let classes = list.workload.jobs.iter().any(|j| j.priority > 0);
    let mut columns: Vec<&str> = COLUMNS[..BASE_COLUMNS].to_vec();
    if usage {
        columns.extend(&COLUMNS[BASE_COLUMNS..BASE_COLUMNS + USAGE_COLUMNS]);
    }
    if classes {
        columns.push(COLUMNS[PRIORITY]);
    }
    writeln!(out, "{}", columns.join(","))?;
    for (i, j) in list.workload.jobs.iter().enumerate() {
        let name = |int: &Interner, id: u32| int.names.get(id as usize).cloned().unwrap_or_default();
        let cpus = j.cpu_milli.map_or(String::new(), |c| format!("{}", c as f64 / 1000.0));
        let ty = j.gpu_type.map_or(String::new(), |t| name(&list.gpu_types, t as u32));
        write!(
            out,
            "{},{:.3},{:.3},{},{},{},{},{},{}",
            quoted(&list.job_ids.get(i).cloned().unwrap_or_else(|| i.to_string())),
            to_secs(j.submit),
            to_secs(j.duration),
            j.gpu_milli as f64 / 1000.0,
            cpus,
            quoted(&name(&list.users, j.user)),
            quoted(&name(&list.vcs, j.vc)),
            quoted(&name(&list.groups, j.group)),
            quoted(&ty)
        )?;
        if let Some(u) = list.workload.usage.get(i).filter(|_| usage) {
            let num = |x: Option<f32>| x.map_or(String::new(), |v| v.to_string());
            write!(out, ",{},{},{}", num(u.gpu_util), num(u.gpu_mem_gib), u.class)?;
        }
        if classes {
            write!(out, ",{}", j.priority)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// `text` as a CSV field that reads back as itself: quoted when it holds a
/// comma, quote or line break, or begins or ends with white space (which
/// the reader trims from an unquoted field).
fn quoted(text: &str) -> std::borrow::Cow<'_, str> {
    let plain = !text.contains([',', '"', '\n', '\r']) && text.trim() == text;
    if plain {
        text.into()
    } else {
        format!("\"{}\"", text.replace('"', "\"\"")).into()
    }
}
