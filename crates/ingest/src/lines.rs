//! Streaming line and field splitting for the traces' CSV files.
//!
//! The owners' CSVs never quote fields (ids are hex hashes, values numbers,
//! codes plain words), so a record is one line and fields are split on every
//! comma; a quote character is kept as a literal. Lines are numbered from 1
//! as a text editor shows them, header included, so a reject's `line` can be
//! opened directly. `\r\n` endings are accepted; a reader made with
//! [`LineReader::with_cr_line_ends`] also ends a line at a lone `\r` (the
//! classic Mac line end, which some SWF logs have: read by `\n` alone,
//! such a log is one line).
//!
//! A line longer than the reader's cap is not held in memory: its first
//! bytes are kept for the reject and the rest is read and dropped, so a
//! 1 GiB line costs the cap, not a gigabyte.

use std::io::{self, Read};
use std::ops::Range;

/// Reads 1 MiB at a time and hands out complete lines without copying them.
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// Unconsumed bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
    line_no: u64,
    /// The longest line handed out whole.
    max: usize,
    /// The start of the last overlong line.
    prefix: Vec<u8>,
    /// A lone `\r` ends a line too.
    cr: bool,
    /// The last line ended at a `\r`: a `\n` right after it belongs to it.
    after_cr: bool,
}

/// One line of input, without its line terminator.
pub struct Line<'a> {
    /// 1-based line number.
    pub no: u64,
    pub bytes: &'a [u8],
    /// False for a last line that does not end in a newline, the sign of a
    /// truncated file.
    pub terminated: bool,
    /// For a line longer than the cap, its length; `bytes` then holds only
    /// its first [`PREFIX`] bytes.
    pub overlong: Option<u64>,
}

const CHUNK: usize = 1 << 20;
/// Bytes of an overlong line kept for its reject.
pub const PREFIX: usize = 256;

impl<R: Read> LineReader<R> {
    /// Reads lines of at most `max` bytes whole (longer ones are cut).
    pub fn new(inner: R, max: usize) -> Self {
        let start_size = CHUNK.min(max.saturating_add(1)).max(PREFIX);
        LineReader {
            inner,
            buf: vec![0; start_size],
            start: 0,
            end: 0,
            eof: false,
            line_no: 0,
            max,
            prefix: Vec::new(),
            cr: false,
            after_cr: false,
        }
    }

    /// Like [`LineReader::new`], with a lone `\r` ending a line as well
    /// as `\n` and `\r\n`.
    pub fn with_cr_line_ends(inner: R, max: usize) -> Self {
        LineReader { cr: true, ..LineReader::new(inner, max) }
    }

    /// Where the first line end in `chunk` is: `\n`, or with `cr` also `\r`.
    fn line_end(&self, chunk: &[u8]) -> Option<usize> {
        if self.cr {
            memchr::memchr2(b'\n', b'\r', chunk)
        } else {
            memchr::memchr(b'\n', chunk)
        }
    }

    /// Consumes the line end at `buf[at]`; after a `\r`, the `\n` of a
    /// `\r\n` is consumed with the next read.
    fn consume_end(&mut self, at: usize) {
        self.after_cr = self.cr && self.buf[at] == b'\r';
        self.start = at + 1;
    }

    /// Drops the `\n` of a `\r\n` whose `\r` ended the previous line.
    fn skip_lf_after_cr(&mut self) -> io::Result<()> {
        if !self.after_cr {
            return Ok(());
        }
        if self.start == self.end && !self.eof {
            self.fill()?;
        }
        if self.start < self.end && self.buf[self.start] == b'\n' {
            self.start += 1;
        }
        self.after_cr = false;
        Ok(())
    }

    /// How many lines were handed out.
    pub fn lines_read(&self) -> u64 {
        self.line_no
    }

    /// The next line, or `None` at end of input.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.skip_lf_after_cr()?;
        loop {
            if let Some(pos) = self.line_end(&self.buf[self.start..self.end]) {
                let from = self.start;
                self.consume_end(from + pos);
                if pos > self.max {
                    return Ok(Some(self.overlong(from, pos as u64, true)));
                }
                return Ok(Some(self.line(from, from + pos, true)));
            }
            if self.end - self.start > self.max {
                return self.skip_overlong().map(Some);
            }
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let (from, to) = (self.start, self.end);
                self.start = self.end;
                return Ok(Some(self.line(from, to, false)));
            }
            self.fill()?;
        }
    }

    fn line(&mut self, from: usize, mut to: usize, terminated: bool) -> Line<'_> {
        if to > from && self.buf[to - 1] == b'\r' {
            to -= 1;
        }
        self.line_no += 1;
        Line { no: self.line_no, bytes: &self.buf[from..to], terminated, overlong: None }
    }

    /// An overlong line starting at `buf[from]`, `len` bytes long, already
    /// consumed: its first bytes are kept.
    fn overlong(&mut self, from: usize, len: u64, terminated: bool) -> Line<'_> {
        let keep = (len as usize).min(PREFIX).min(self.end - from);
        self.prefix.clear();
        self.prefix.extend_from_slice(&self.buf[from..from + keep]);
        self.line_no += 1;
        Line { no: self.line_no, bytes: &self.prefix, terminated, overlong: Some(len) }
    }

    /// Reads past the rest of a line longer than the buffer may hold,
    /// keeping only its first [`PREFIX`] bytes.
    fn skip_overlong(&mut self) -> io::Result<Line<'_>> {
        self.prefix.clear();
        let mut len = 0u64;
        let terminated = loop {
            if self.start == self.end {
                if self.eof {
                    break false;
                }
                self.fill()?;
                continue;
            }
            let chunk = &self.buf[self.start..self.end];
            let newline = self.line_end(chunk);
            let take = newline.unwrap_or(chunk.len());
            let room = PREFIX - self.prefix.len();
            self.prefix.extend_from_slice(&chunk[..take.min(room)]);
            len += take as u64;
            if newline.is_some() {
                self.consume_end(self.start + take);
                break true;
            }
            self.start += take;
        };
        self.line_no += 1;
        Ok(Line { no: self.line_no, bytes: &self.prefix, terminated, overlong: Some(len) })
    }

    /// Moves the partial line to the front and reads more behind it.
    fn fill(&mut self) -> io::Result<()> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            // A line longer than the buffer: grow rather than split it.
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let n = loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        if n == 0 {
            self.eof = true;
        }
        self.end += n;
        Ok(())
    }
}

/// Splits `line` on commas into `out` (ranges into `line`).
pub fn split_fields(line: &str, out: &mut Vec<Range<usize>>) {
    out.clear();
    let mut from = 0;
    for pos in memchr::memchr_iter(b',', line.as_bytes()) {
        out.push(from..pos);
        from = pos + 1;
    }
    out.push(from..line.len());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<(u64, String, bool)> {
        let mut r = LineReader::new(input, usize::MAX / 2);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.no, String::from_utf8(l.bytes.to_vec()).unwrap(), l.terminated));
        }
        out
    }

    #[test]
    fn numbers_lines_strips_crlf_and_flags_an_unterminated_last_line() {
        let got = lines(b"a,b\r\nc\n\nlast");
        assert_eq!(
            got,
            vec![(1, "a,b".into(), true), (2, "c".into(), true), (3, String::new(), true), (4, "last".into(), false)]
        );
        assert!(lines(b"").is_empty());
    }

    /// A lone `\r` ends a line only when asked; `\r\n` is one line end in
    /// both modes, also when the `\n` comes in the next read.
    #[test]
    fn a_lone_cr_ends_a_line_when_asked() {
        let input = b"a\rb\r\nc\r\rlast";
        let mut r = LineReader::with_cr_line_ends(&input[..], usize::MAX / 2);
        let mut got = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            got.push((l.no, String::from_utf8(l.bytes.to_vec()).unwrap(), l.terminated));
        }
        let want = [(1, "a", true), (2, "b", true), (3, "c", true), (4, "", true), (5, "last", false)];
        assert_eq!(got, want.map(|(n, t, e)| (n, t.to_string(), e)));
        assert_eq!(lines(b"a\rb\n"), vec![(1, "a\rb".to_string(), true)]);
        // One byte per read: the `\n` of each `\r\n` arrives alone.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut r = LineReader::with_cr_line_ends(Trickle(b"x\r\ny\r\n"), 1 << 20);
        let mut n = 0;
        while let Some(l) = r.next_line().unwrap() {
            assert!(!l.bytes.is_empty(), "an empty line between a \\r and its \\n");
            n += 1;
        }
        assert_eq!(n, 2);
    }

    #[test]
    fn lines_longer_than_the_buffer_survive_refills() {
        let long = "x".repeat(CHUNK * 2 + 17);
        let input = format!("{long}\nshort\n");
        let got = lines(input.as_bytes());
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].1.len(), long.len());
        assert_eq!(got[1].1, "short");
    }

    /// Lines of 10 bytes at most: an 11-byte line inside the buffer, and a
    /// 3 MiB one across many refills, come out cut to their first bytes with
    /// their true length; the buffer never grows past the cap.
    #[test]
    fn lines_over_the_cap_are_cut_and_measured_without_being_held() {
        let huge = "y".repeat(3 * CHUNK);
        let input = format!("short\n{}\n{huge}\nok\n{huge}", "x".repeat(11));
        let mut r = LineReader::new(input.as_bytes(), 10);
        let mut got = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            got.push((l.no, l.bytes.len(), l.overlong, l.terminated));
        }
        assert_eq!(
            got,
            vec![
                (1, 5, None, true),
                (2, 11.min(PREFIX), Some(11), true),
                (3, PREFIX, Some(3 * CHUNK as u64), true),
                (4, 2, None, true),
                (5, PREFIX, Some(3 * CHUNK as u64), false),
            ]
        );
        assert!(r.buf.len() <= PREFIX.max(16), "buffer grew to {}", r.buf.len());
    }

    #[test]
    fn split_keeps_empty_fields_including_a_trailing_one() {
        let mut f = Vec::new();
        let line = "t,m1,,NA,";
        split_fields(line, &mut f);
        let parts: Vec<&str> = f.iter().map(|r| &line[r.clone()]).collect();
        assert_eq!(parts, vec!["t", "m1", "", "NA", ""]);
    }
}
