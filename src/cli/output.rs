//! Where and how every verb writes its result: the `--format`/`-o` pair,
//! resolved once (an explicit `--format`; else from `-o`'s extension,
//! refusing one it does not know; else a table on a terminal and CSV when
//! piped), and the writers of `tracelab_present` behind it. Parquet goes
//! through `tracelab_query::output` (arrow-rs' Parquet writer). A
//! file is written whole through `tracelab_schema::outfile` (a temporary
//! file renamed into place; links, folders and devices refused).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::ValueEnum;

use tracelab_present::{csv, json, markdown, terminal, Table};
use tracelab_schema::error::Error;
use tracelab_schema::outfile::{self, Replace};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// An aligned table (control characters in the data shown escaped)
    Table,
    /// RFC 4180 CSV with a header row
    Csv,
    /// A JSON array, one object per row
    Json,
    /// One JSON object per line
    Jsonl,
    /// A Parquet file (needs -o)
    Parquet,
    /// A Markdown (pipe) table
    Markdown,
}

/// The `--format` and `-o` options, shared by every verb that prints a
/// result.
#[derive(Debug, Clone, clap::Args)]
pub struct OutputArgs {
    /// Output format [default: table on a terminal, csv when piped; with
    /// -o, from its extension]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write to FILE instead of stdout; the extension gives the format
    /// (.csv .json .jsonl .parquet .md .txt); `-` is stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// A resolved destination: the format, the file (else stdout) and whether
/// stdout is a terminal (tables then wrap to its width).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sink {
    pub format: Format,
    pub to: Option<PathBuf>,
    pub terminal: bool,
}

/// The width a terminal is taken to have when it does not say.
const UNKNOWN_WIDTH: u16 = 100;

/// Extensions `-o` understands.
const EXTENSIONS: &[(&str, Format)] = &[
    ("csv", Format::Csv),
    ("json", Format::Json),
    ("jsonl", Format::Jsonl),
    ("ndjson", Format::Jsonl),
    ("parquet", Format::Parquet),
    ("md", Format::Markdown),
    ("txt", Format::Table),
];

impl OutputArgs {
    /// The destination, checked: `-o` must be a new path or a regular file.
    pub fn resolve(&self) -> Result<Sink, Error> {
        let sink = resolve(self.format, self.output.as_deref(), std::io::stdout().is_terminal())?;
        sink.check()?;
        Ok(sink)
    }
}

/// Whether `-o PATH` names stdout (`-o -`), for every verb.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The format rule of every verb (docs/output-files.md, "What every verb prints"). `-o -` is stdout, as
/// in `export`: the format then comes from `--format` or the terminal rule,
/// and Parquet may go to stdout when it is not a terminal.
pub fn resolve(format: Option<Format>, output: Option<&Path>, stdout_terminal: bool) -> Result<Sink, Error> {
    let dash = output.is_some_and(is_stdout);
    let output = output.filter(|_| !dash);
    let by_extension = match output {
        Some(path) => from_extension(path, format.is_some())?,
        None => None,
    };
    if let (Some(f), Some(e), Some(path)) = (format, by_extension, output) {
        if f != e {
            return Err(Error::Usage(format!(
                "--format {} but -o {} names a {} file; give one of them",
                name(f),
                path.display(),
                name(e)
            )));
        }
    }
    let terminal = output.is_none() && stdout_terminal;
    let format = format.or(by_extension).unwrap_or(if terminal { Format::Table } else { Format::Csv });
    // Parquet goes to a file, or with `-o -` to stdout when that is a pipe.
    let parquet_to_pipe = dash && !stdout_terminal;
    if format == Format::Parquet && output.is_none() && !parquet_to_pipe {
        return Err(Error::Usage(if dash {
            "--format parquet -o -: stdout is a terminal; redirect it or give -o FILE".into()
        } else {
            "--format parquet writes a file: give it with -o FILE (or -o - for stdout)".into()
        }));
    }
    Ok(Sink { format, to: output.map(Path::to_path_buf), terminal })
}

/// The format `path`'s extension names; an unknown one is a usage error
/// unless `--format` was given.
fn from_extension(path: &Path, explicit: bool) -> Result<Option<Format>, Error> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    match EXTENSIONS.iter().find(|(e, _)| *e == ext) {
        Some((_, f)) => Ok(Some(*f)),
        None if explicit => Ok(None),
        None => {
            let known: Vec<String> = EXTENSIONS.iter().map(|(e, _)| format!(".{e}")).collect();
            Err(Error::Usage(format!(
                "-o {}: unknown extension; use {} or give --format",
                path.display(),
                known.join(", ")
            )))
        }
    }
}

fn name(f: Format) -> String {
    f.to_possible_value().map_or_else(String::new, |v| v.get_name().to_string())
}

impl Sink {
    /// The terminal-table style: on a terminal, a table wider than it
    /// (than [`UNKNOWN_WIDTH`] when its width is unknown) is shown
    /// expanded, one block of `column: value` lines per row, so wide
    /// summaries do not wrap mid-number; elsewhere lines as long as the data.
    pub fn style(&self, digits: usize, row_count: bool) -> terminal::Style {
        let width = if self.terminal { comfy_table::Table::new().width() } else { None };
        let expand_wider_than = self.terminal.then(|| usize::from(width.unwrap_or(UNKNOWN_WIDTH)));
        terminal::Style { digits, width, row_count, expand_wider_than }
    }

    /// Writes `t`; floats in tables and Markdown get `digits` significant
    /// digits, and a table says how many rows it has when `row_count`.
    pub fn table(&self, t: &Table, digits: usize, row_count: bool) -> anyhow::Result<()> {
        let text = match self.format {
            Format::Parquet => {
                let bytes = tracelab_query::output::parquet_bytes(t)?;
                return match self.to.as_deref() {
                    Some(path) => Ok(outfile::write(path, &bytes, Replace::Regular)?),
                    // resolve() allows this only when stdout is not a terminal (`-o -`).
                    None => super::out_bytes(&bytes),
                };
            }
            Format::Table => terminal::render(t, &self.style(digits, row_count)),
            Format::Csv => csv::render(t),
            Format::Json => json::array(t),
            Format::Jsonl => json::lines(t),
            Format::Markdown => markdown::render(t, digits),
        };
        self.text(&text)
    }

    /// Writes text as it is, to the file or stdout.
    pub fn text(&self, text: &str) -> anyhow::Result<()> {
        match &self.to {
            Some(path) => Ok(outfile::write(path, text.as_bytes(), Replace::Regular)?),
            None => super::out(text),
        }
    }

    /// Refuses, before any work, a `-o` that cannot be written: a link, a
    /// folder, a device (see [`tracelab_schema::outfile`]). A regular file
    /// is replaced, as a shell's `>` would.
    pub fn check(&self) -> Result<(), Error> {
        self.to.as_deref().map_or(Ok(()), |p| outfile::check("-o", p, Replace::Regular))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(f: Option<Format>, o: Option<&str>, tty: bool) -> Result<Format, String> {
        resolve(f, o.map(Path::new), tty).map(|s| s.format).map_err(|e| e.to_string())
    }

    #[test]
    fn a_terminal_gets_a_table_and_a_pipe_csv() {
        assert_eq!(format(None, None, true), Ok(Format::Table));
        assert_eq!(format(None, None, false), Ok(Format::Csv));
        assert_eq!(format(Some(Format::Json), None, true), Ok(Format::Json));
        // A file is never a terminal: -o without an extension's format.
        assert!(!resolve(None, Some(Path::new("x.csv")), true).unwrap().terminal);
    }

    #[test]
    fn the_extension_of_o_gives_the_format_and_unknown_ones_are_refused() {
        assert_eq!(format(None, Some("out.parquet"), true), Ok(Format::Parquet));
        assert_eq!(format(None, Some("out.JSONL"), false), Ok(Format::Jsonl));
        assert_eq!(format(None, Some("notes.md"), false), Ok(Format::Markdown));
        let err = format(None, Some("out.xlsx"), false).unwrap_err();
        assert!(err.contains("-o out.xlsx: unknown extension; use .csv, .json"), "{err}");
        assert_eq!(format(Some(Format::Csv), Some("out.dat"), false), Ok(Format::Csv));
        let err = format(Some(Format::Csv), Some("out.parquet"), false).unwrap_err();
        assert!(err.contains("--format csv but -o out.parquet names a parquet file"), "{err}");
        let err = format(Some(Format::Parquet), None, false).unwrap_err();
        assert!(err.contains("-o FILE"), "{err}");
    }

    #[test]
    fn dash_is_stdout_and_takes_parquet_only_when_it_is_not_a_terminal() {
        let dash = Some(Path::new("-"));
        assert_eq!(resolve(None, dash, true).unwrap(), Sink { format: Format::Table, to: None, terminal: true });
        assert_eq!(resolve(None, dash, false).unwrap(), Sink { format: Format::Csv, to: None, terminal: false });
        let piped = resolve(Some(Format::Parquet), dash, false).unwrap();
        assert_eq!(piped, Sink { format: Format::Parquet, to: None, terminal: false });
        let err = resolve(Some(Format::Parquet), dash, true).unwrap_err().to_string();
        assert!(err.contains("-o -: stdout is a terminal"), "{err}");
    }
}
