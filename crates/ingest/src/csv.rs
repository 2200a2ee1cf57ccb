//! Drives one raw CSV file through a per-table parser: header checks, field
//! counts, UTF-8, layout detection, and the accounting of every record as
//! written or rejected. The per-trace modules only say how one record maps to
//! canonical rows.

use std::io::Read;
use std::ops::Range;

use super::lines::{split_fields, Line, LineReader};
use super::record::{Fault, Record};
use super::sink::Value;
use super::table::TableIngest;
use super::Limits;
use tracelab_schema::error::{Error, IoContext, Result};

/// The first line of a Git LFS pointer file, which a clone without Git LFS
/// leaves in place of a large file (the spot-GPU trace's job file, AcmeTrace's
/// job traces).
const LFS_POINTER: &[u8] = b"version https://git-lfs.github.com/spec/";

/// After this many leading records of the wrong width and none of the right
/// one, the file is taken to be of another layout and ingest stops.
const LAYOUT_PROBE: u64 = 100;

/// A record parser: appends the canonical row(s) of one raw record.
pub type Parse = for<'a> fn(&Record<'a>, &mut Vec<Value<'a>>) -> Result<(), Fault>;

/// What a file's field layout is.
pub struct Layout<'a> {
    /// Raw column names, in file order.
    pub names: &'a [&'a str],
    /// Data rows end with a comma, i.e. one empty field more than the header
    /// (Philly `cluster_gpu_util`). Rows without it are accepted too.
    pub trailing_empty: bool,
    /// A headerless file whose first line may still be the header (PAI CSVs
    /// someone saved with `header=True`): skip it if it is.
    pub optional_header: bool,
}

/// A CSV input positioned at its first unread line.
pub struct CsvFile<R> {
    lines: LineReader<R>,
    label: String,
    max_line: usize,
}

/// The one rule for empty inputs, whatever the trace: a file without a
/// single line (header or record) is a failed download or extraction, not
/// an empty table, and stops the ingest. A header without records is an
/// empty table.
pub(super) fn empty_file(label: &str, expected: &str) -> Error {
    Error::input(label, format!("empty file; expected {expected} (an empty download or extraction?)"))
}

impl<R: Read> CsvFile<R> {
    /// `label` names the file in errors and rejects (`dir/file` or
    /// `archive!member`); lines longer than `limits.max_record_bytes` are
    /// rejected.
    pub fn new(reader: R, label: impl Into<String>, limits: Limits) -> Self {
        let max_line = limits.max_record_bytes;
        CsvFile { lines: LineReader::new(reader, max_line), label: label.into(), max_line }
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    /// Reads the header line; an empty file is an error.
    pub fn read_header(&mut self) -> Result<String> {
        let label = self.label.clone();
        let max = self.max_line;
        match self.lines.next_line().at(&label)? {
            None => Err(empty_file(&label, "a header line")),
            Some(line) if line.overlong.is_some() => Err(Error::input(
                label,
                format!("header line longer than {max} bytes (--max-record-bytes); expected the column names"),
            )),
            Some(line) if line.bytes.starts_with(LFS_POINTER) => Err(Error::input(
                label,
                "a Git LFS pointer, not the data (the repository was cloned without Git LFS); \
                 expected the CSV itself: fetch it with `git lfs pull` or download the file",
            )),
            Some(line) => Ok(String::from_utf8_lossy(strip_bom(line.bytes)).into_owned()),
        }
    }

    /// Reads the header and checks it is exactly `expected`.
    pub fn expect_header(&mut self, expected: &str) -> Result<()> {
        let found = self.read_header()?;
        if found.trim_end_matches(',') != expected {
            return Err(Error::input(
                &self.label,
                format!("unknown layout: expected the header `{expected}`, found `{}`", short(&found)),
            ));
        }
        Ok(())
    }

    /// Parses every remaining record with `parse`, which appends the values
    /// of zero or more rows (a multiple of the table width) for one record.
    pub fn records<F>(&mut self, layout: &Layout<'_>, out: &mut TableIngest, mut parse: F) -> Result<()>
    where
        F: for<'a> FnMut(&Record<'a>, &mut Vec<Value<'a>>) -> Result<(), Fault>,
    {
        let mut ranges: Vec<Range<usize>> = Vec::with_capacity(layout.names.len() + 1);
        let mut spare: Vec<Value<'static>> = Vec::with_capacity(out.width());
        let mut probe = LayoutProbe::default();
        let header = layout.names.join(",");
        let label = self.label.clone();
        let max_line = self.max_line;
        while let Some(line) = self.lines.next_line().at(&label)? {
            if let Some(fault) = overlong(&line, max_line) {
                out.counts.records_in += 1;
                out.reject(&label, line.no, fault)?;
                continue;
            }
            let (no, terminated) = (line.no, line.terminated);
            let bytes = if no == 1 { strip_bom(line.bytes) } else { line.bytes };
            let Ok(text) = std::str::from_utf8(bytes) else {
                out.counts.records_in += 1;
                let raw = String::from_utf8_lossy(bytes);
                out.reject(&label, no, Fault::record(&raw, "not valid UTF-8"))?;
                continue;
            };
            if no == 1 && layout.optional_header && text == header {
                continue;
            }
            out.counts.records_in += 1;
            split_fields(text, &mut ranges);
            let outcome = match check_width(text, ranges.len(), layout, terminated) {
                Err(fault) => {
                    probe.wrong(no, ranges.len(), layout, &label)?;
                    Err(fault)
                }
                Ok(width) => {
                    probe.right();
                    let record = Record::new(text, &ranges[..width], layout.names);
                    let mut row = recycle(std::mem::take(&mut spare));
                    let result = match parse(&record, &mut row) {
                        Ok(()) => out.offer(&row)?,
                        Err(f) => Err(f),
                    };
                    spare = recycle(row);
                    result
                }
            };
            match outcome {
                Ok(()) => out.counts.written += 1,
                Err(fault) => out.reject(&label, no, fault)?,
            }
        }
        if self.lines.lines_read() == 0 {
            return Err(empty_file(&label, "records"));
        }
        probe.at_end(layout, &label)
    }
}

/// The reject of a line over the cap, quoting its start.
pub(super) fn overlong(line: &Line<'_>, max: usize) -> Option<Fault> {
    let len = line.overlong?;
    let start = String::from_utf8_lossy(line.bytes);
    let reason = format!("line of {len} bytes, longer than the limit of {max} bytes (--max-record-bytes)");
    Some(Fault::record(&start, reason))
}

/// Reads a small metadata input (a `.header` file) whole: at most
/// `max_bytes`, valid UTF-8.
pub fn read_meta(reader: &mut dyn Read, label: &str, max_bytes: usize) -> Result<String> {
    let mut bytes = Vec::new();
    reader.take(max_bytes as u64 + 1).read_to_end(&mut bytes).at(label)?;
    if bytes.len() > max_bytes {
        return Err(Error::input(label, format!("larger than {max_bytes} bytes; expected one header line")));
    }
    String::from_utf8(bytes).map_err(|_| Error::input(label, "not valid UTF-8; expected a header line of column names"))
}

/// Returns the number of fields to parse, or the width fault.
fn check_width(text: &str, found: usize, layout: &Layout<'_>, terminated: bool) -> Result<usize, Fault> {
    let n = layout.names.len();
    if found == n {
        return Ok(n);
    }
    if layout.trailing_empty && found == n + 1 && text.ends_with(',') {
        return Ok(n);
    }
    let expected = if layout.trailing_empty { format!("{n} (+1 trailing empty)") } else { n.to_string() };
    let reason = if terminated {
        format!("expected {expected} comma-separated fields, found {found}")
    } else {
        format!("truncated last line (no newline at end of file): expected {expected} fields, found {found}")
    };
    Err(Fault::record(text, reason))
}

/// Tells a file of another layout (every leading record the wrong width)
/// from a file with some malformed records.
#[derive(Default)]
struct LayoutProbe {
    any_right: bool,
    wrong: u64,
    first: Option<(u64, usize)>,
}

impl LayoutProbe {
    fn right(&mut self) {
        self.any_right = true;
    }

    fn wrong(&mut self, line: u64, found: usize, layout: &Layout<'_>, label: &str) -> Result<()> {
        if self.any_right {
            return Ok(());
        }
        self.wrong += 1;
        self.first.get_or_insert((line, found));
        if self.wrong >= LAYOUT_PROBE {
            return Err(self.error(layout, label));
        }
        Ok(())
    }

    fn at_end(&self, layout: &Layout<'_>, label: &str) -> Result<()> {
        if !self.any_right && self.wrong > 0 {
            return Err(self.error(layout, label));
        }
        Ok(())
    }

    fn error(&self, layout: &Layout<'_>, label: &str) -> Error {
        let (line, found) = self.first.unwrap_or((0, 0));
        Error::input(
            label,
            format!(
                "unknown layout: expected {} comma-separated fields ({}), found {found} on line {line} and no record of the expected width",
                layout.names.len(),
                short(&layout.names.join(","))
            ),
        )
    }
}

fn strip_bom(b: &[u8]) -> &[u8] {
    b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b)
}

/// `s` cut to 120 characters for an error message.
pub fn short(s: &str) -> String {
    if s.chars().count() > 120 {
        format!("{}...", s.chars().take(120).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Reuses a vector's allocation for values of another lifetime. The vector
/// is emptied first, so no value outlives the line it borrows from; the
/// in-place `collect` keeps the allocation (same size and alignment).
fn recycle<'b>(mut v: Vec<Value<'_>>) -> Vec<Value<'b>> {
    v.clear();
    v.into_iter().map(|_| Value::Null).collect()
}
