//! Buffered CSV output for synthetic trace files, with the optional fault
//! injection of `--corrupt` and the bookkeeping of what was written.
//!
//! Fault mix (`--corrupt RATE`): each data row after the first is corrupted
//! with probability RATE, by one of the kinds applicable to its file, chosen
//! uniformly: `field_count` (a field dropped, two when the row ends with an
//! empty field, or one added), `non_numeric` (a
//! numeric field replaced by `abc`), `end_before_start` (start and end
//! swapped, where both are set and differ), `unknown_status` (the status
//! replaced by `Bogus`). In addition the last row of every file is cut in
//! the middle, without its newline (`truncated_last_line`). The first data
//! row is never touched, so the file's layout stays recognizable. Every
//! injected fault is listed in `corruptions.csv` (file, line, kind, column).

use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::rng::Rng;
use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::outfile::{OutputFile, Replace};

/// Which fields of a file's rows the corruptor may target.
#[derive(Clone, Copy, Debug, Default)]
pub struct RowShape {
    /// Fields ingest parses as numbers.
    pub numeric: &'static [usize],
    /// The status field, if the file has one with a fixed vocabulary.
    pub status: Option<usize>,
    /// (start, end) time fields that ingest checks for order.
    pub span: Option<(usize, usize)>,
}

/// One injected fault.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Injected {
    /// File relative to the trace folder.
    pub file: String,
    pub line: u64,
    pub kind: &'static str,
    pub column: String,
}

/// The shared list of injected faults of one synth run.
pub type FaultLog = Arc<Mutex<Vec<Injected>>>;

/// `--corrupt` settings shared by every file of a run.
#[derive(Clone, Debug)]
pub struct Corruption {
    pub rate: f64,
    pub seed: u64,
    pub log: FaultLog,
}

/// What was written to one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    pub file: String,
    pub bytes: u64,
    pub rows: u64,
}

pub struct CsvOut {
    w: BufWriter<OutputFile>,
    rel: String,
    shape: RowShape,
    line: u64,
    rows: u64,
    bytes: u64,
    corrupt: Option<(Corruption, Rng)>,
    /// With corruption on, the last row is held back so it can be cut.
    held: Option<String>,
}

impl CsvOut {
    /// Creates `dir/rel` (and its parent folders).
    pub fn create(dir: &Path, rel: &str, shape: RowShape, corruption: Option<&Corruption>) -> Result<CsvOut> {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).at(parent)?;
        }
        let file = OutputFile::create(&path, Replace::Regular)?;
        let corrupt = corruption.map(|c| (c.clone(), Rng::stream(c.seed, &format!("corrupt:{rel}"))));
        Ok(CsvOut {
            w: BufWriter::with_capacity(1 << 20, file),
            rel: rel.to_string(),
            shape,
            line: 0,
            rows: 0,
            bytes: 0,
            corrupt,
            held: None,
        })
    }

    /// Writes a header line (never corrupted).
    pub fn header(&mut self, line: &str) -> Result<()> {
        self.write_line(line)
    }

    /// Writes one data row (`line` without its newline).
    pub fn row(&mut self, line: &str) -> Result<()> {
        self.rows += 1;
        if self.corrupt.is_none() {
            return self.write_line(line);
        }
        if let Some(prev) = self.held.take() {
            self.write_line(&prev)?;
        }
        let first = self.rows == 1;
        let (c, rng) = self.corrupt.as_mut().expect("corruption on");
        let line = if !first && rng.chance(c.rate) {
            let (text, kind, column) = corrupt_row(line, &self.shape, rng);
            let lineno = self.line + 1;
            c.log.lock().expect("fault log").push(Injected { file: self.rel.clone(), line: lineno, kind, column });
            text
        } else {
            line.to_string()
        };
        self.held = Some(line);
        Ok(())
    }

    fn write_line(&mut self, line: &str) -> Result<()> {
        self.w.write_all(line.as_bytes()).at(&self.rel)?;
        self.w.write_all(b"\n").at(&self.rel)?;
        self.line += 1;
        self.bytes += line.len() as u64 + 1;
        Ok(())
    }

    /// Flushes the file; with corruption on, cuts its last row.
    pub fn finish(mut self) -> Result<FileReport> {
        if let Some(last) = self.held.take() {
            let lineno = self.line + 1;
            let (c, _) = self.corrupt.as_ref().expect("held rows only with corruption");
            let log = Arc::clone(&c.log);
            match truncate(&last) {
                Some(cut) if self.rows > 1 => {
                    self.w.write_all(cut.as_bytes()).at(&self.rel)?;
                    self.bytes += cut.len() as u64;
                    self.line += 1;
                    // A cut row replaces whatever fault the row had.
                    let mut log = log.lock().expect("fault log");
                    log.retain(|f| !(f.file == self.rel && f.line == lineno));
                    log.push(Injected {
                        file: self.rel.clone(),
                        line: lineno,
                        kind: "truncated_last_line",
                        column: "*".into(),
                    });
                }
                _ => self.write_line(&last)?,
            }
        }
        let file = self.w.into_inner().map_err(|e| Error::io(&self.rel, e.into_error()))?;
        file.commit()?;
        Ok(FileReport { file: self.rel, bytes: self.bytes, rows: self.rows })
    }
}

/// Cuts a row in its first half, so that at least one separator is lost.
fn truncate(line: &str) -> Option<String> {
    let commas: Vec<usize> = line.match_indices(',').map(|(i, _)| i).collect();
    let cut = *commas.get(commas.len() / 2)?;
    Some(line[..cut].to_string())
}

/// Applies one fault kind to `line`; returns the text, kind and column index.
fn corrupt_row(line: &str, shape: &RowShape, rng: &mut Rng) -> (String, &'static str, String) {
    let mut fields: Vec<String> = line.split(',').map(str::to_string).collect();
    let mut kinds: Vec<&'static str> = vec!["field_count"];
    if !shape.numeric.is_empty() {
        kinds.push("non_numeric");
    }
    if shape.status.is_some() {
        kinds.push("unknown_status");
    }
    if let Some((s, e)) = shape.span {
        let (a, b) = (fields[s].parse::<f64>().ok(), fields[e].parse::<f64>().ok());
        if matches!((a, b), (Some(a), Some(b)) if a > 0.0 && a < b) || (is_time(&fields[s]) && fields[s] < fields[e]) {
            kinds.push("end_before_start");
        }
    }
    let kind = kinds[rng.below(kinds.len() as u64) as usize];
    let column = match kind {
        "field_count" => {
            if rng.chance(0.5) && fields.len() > 2 {
                // A trailing empty field (Philly's trailing comma) is
                // optional to ingest, so dropping it alone is no fault.
                if fields.pop().is_some_and(|f| f.is_empty()) {
                    fields.pop();
                }
            } else {
                fields.push("x".into());
            }
            "*".to_string()
        }
        "non_numeric" => {
            let i = shape.numeric[rng.below(shape.numeric.len() as u64) as usize];
            fields[i] = "abc".into();
            i.to_string()
        }
        "unknown_status" => {
            let i = shape.status.expect("status field");
            fields[i] = "Bogus".into();
            i.to_string()
        }
        _ => {
            let (s, e) = shape.span.expect("span fields");
            fields.swap(s, e);
            e.to_string()
        }
    };
    (fields.join(","), kind, column)
}

/// A `YYYY-MM-DD HH:MM:SS` stamp (Helios); these order as strings.
fn is_time(s: &str) -> bool {
    s.len() >= 19 && s.as_bytes()[4] == b'-' && s.as_bytes()[10] == b' '
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(rows: &[&str], rate: f64) -> (String, Vec<Injected>) {
        let dir = tempfile::tempdir().unwrap();
        let log: FaultLog = Arc::default();
        let c = Corruption { rate, seed: 1, log: Arc::clone(&log) };
        let shape = RowShape { numeric: &[1], status: Some(2), span: Some((3, 4)) };
        let mut out = CsvOut::create(dir.path(), "t.csv", shape, Some(&c)).unwrap();
        for r in rows {
            out.row(r).unwrap();
        }
        out.finish().unwrap();
        let text = std::fs::read_to_string(dir.path().join("t.csv")).unwrap();
        let faults = log.lock().unwrap().clone();
        (text, faults)
    }

    #[test]
    fn every_row_but_the_first_is_corrupted_at_rate_one_and_the_last_is_cut() {
        let rows = ["a,1,Ok,10,20", "b,2,Ok,10,20", "c,3,Ok,10,20", "d,4,Ok,10,20"];
        let (text, faults) = write(&rows, 1.0);
        let lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(lines[0], rows[0]);
        assert!(!text.ends_with('\n'));
        assert_eq!(faults.len(), 3);
        assert_eq!(faults.last().unwrap().kind, "truncated_last_line");
        assert_eq!(faults.iter().map(|f| f.line).collect::<Vec<_>>(), vec![2, 3, 4]);
        for f in &faults[..2] {
            let line = lines[f.line as usize - 1];
            assert_ne!(line, rows[f.line as usize - 1], "{f:?}");
        }
    }

    #[test]
    fn faults_in_rows_with_a_trailing_comma_stay_faults() {
        // Philly GPU rows: 4 named fields plus the empty one after the
        // trailing comma; ingest accepts 4 or 5 fields, so every fault must
        // give another width or a non-number.
        let mut rng = Rng::new(5);
        let shape = RowShape { numeric: &[2, 3], status: None, span: None };
        for _ in 0..500 {
            let (text, kind, _) = corrupt_row("t,m,1.0,2.0,", &shape, &mut rng);
            let width = text.split(',').count();
            assert!(!(width == 4 || width == 5) || text.contains("abc"), "{kind}: {text}");
        }
    }

    #[test]
    fn no_rate_no_faults_but_still_the_cut_last_line() {
        let (text, faults) = write(&["a,1,Ok,10,20", "b,2,Ok,10,20"], 0.0);
        assert_eq!(faults.len(), 1);
        assert_eq!(text, "a,1,Ok,10,20\nb,2,Ok");
    }
}
