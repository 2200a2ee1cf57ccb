//! `tracelab export`: a trace's jobs (windowed, sampled) in the input formats
//! of the simulators researchers use. The jobs are the replay's own: loaded
//! by [`crate::load`] (one job = a PAI task, a Philly job, a Helios job) and
//! selected by [`crate::select`], so every row of the source is either
//! written or counted under its reason, as in `tracelab simulate`. What the
//! engine's job lacks (status, recorded wait, end, instances) comes from
//! [`detail`].
//!
//! One module per format: [`swf`] (Standard Workload Format 2.2), [`pai_sim`]
//! (the PAI simulator's CSV), [`helios_sim`] (HeliosArtifact's QSSF framework)
//! and [`pollux`] (the Pollux/AdaptDL simulator's workload CSV). Each
//! returns the file's text; nothing here prints or writes files (the CLI
//! does). Semantics per format: `docs/export.md`.

pub mod detail;
pub mod helios_sim;
pub mod history;
pub mod jobs;
pub mod pai_sim;
pub mod pollux;
pub mod swf;
pub(crate) mod text;

use std::fmt;

use tracelab_analysis::{Cell, Output, ResultTable};
use tracelab_schema::error::{Error, Result};
use tracelab_sim::Millis;
use tracelab_store::Store;

use crate::load::{LeftOut, TraceSel};
use crate::select::{self, Selection};

/// The formats `--to` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Swf,
    PaiSim,
    HeliosSim,
    Pollux,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Swf, Format::PaiSim, Format::HeliosSim, Format::Pollux];

    pub fn name(self) -> &'static str {
        match self {
            Format::Swf => "swf",
            Format::PaiSim => "pai-sim",
            Format::HeliosSim => "helios-sim",
            Format::Pollux => "pollux",
        }
    }

    /// Parses `--to`; an unknown name is a usage error listing the formats.
    pub fn parse(raw: &str) -> Result<Format> {
        Format::ALL.into_iter().find(|f| f.name() == raw).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            Error::Usage(format!("--to {raw}: unknown format (expected one of {})", names.join(", ")))
        })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What to export.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub trace: TraceSel,
    pub selection: Selection,
    pub format: Format,
}

/// An exported file with its accounting.
#[derive(Clone, Debug)]
pub struct Export {
    pub format: Format,
    /// What was read (`philly`, `helios:Venus`).
    pub source: String,
    /// What one job is, in one sentence.
    pub unit: String,
    /// Rows of the source table.
    pub rows: u64,
    /// Jobs written.
    pub written: usize,
    /// Every row not written, by reason.
    pub left_out: LeftOut,
    /// Window start and (exclusive) end, epoch milliseconds.
    pub origin: Millis,
    pub end: Option<Millis>,
    /// The file.
    pub text: String,
    /// SWF only: the numbers the file uses for jobs, users, groups, queues
    /// and partitions, as CSV `kind,number,name` (`--ids`).
    pub ids: Option<String>,
    /// How the format's mapping treated the jobs, with the number of jobs
    /// each note concerns (e.g. GPU demands rounded up).
    pub notes: Vec<(String, u64)>,
}

/// A file's text and the mapping notes its writer reports.
#[derive(Clone, Debug, Default)]
pub struct Written {
    pub text: String,
    pub ids: Option<String>,
    pub notes: Vec<(String, u64)>,
}

/// Loads, selects and writes the jobs in the requested format.
pub fn export(store: &Store, req: &Request) -> Result<Export> {
    let sel = jobs::select(store, &req.trace, &req.selection, req.format == Format::PaiSim)?;
    let written = match req.format {
        Format::Swf => swf::write(store, &sel, req)?,
        Format::PaiSim => pai_sim::write(&sel),
        Format::HeliosSim => helios_sim::write(&sel)?,
        Format::Pollux => pollux::write(&sel),
    };
    debug_assert_eq!(sel.rows, sel.jobs.len() as u64 + sel.left_out.total());
    Ok(Export {
        format: req.format,
        source: sel.source.clone(),
        unit: sel.unit.clone(),
        rows: sel.rows,
        written: sel.jobs.len(),
        left_out: sel.left_out.clone(),
        origin: sel.origin,
        end: sel.end,
        text: written.text,
        ids: written.ids,
        notes: written.notes,
    })
}

/// The export's record for the terminal: what was read and selected, the
/// accounting of every source row, and the format's mapping notes.
pub fn output(e: &Export) -> Output {
    let definition = format!(
        "Source: {}. One job = {}. Window {}; submission times are seconds from its start. {} of {} rows written \
         in the {} format; the others are counted by reason in part accounting. Semantics: docs/export.md.",
        e.source,
        e.unit,
        select::describe(e.origin, e.end),
        e.written,
        e.rows,
        e.format
    );
    let mut out = Output::new("export", &format!("Export of {} as {}", e.source, e.format), definition);
    out.table("accounting", crate::results::accounting("written", e.written, &e.left_out, e.rows));
    let mut notes = ResultTable::new(&["note", "jobs"]);
    for (note, n) in &e.notes {
        notes.push(vec![note.clone().into(), Cell::Int(*n as i64)]);
    }
    if !e.notes.is_empty() {
        out.table("mapping", notes);
    }
    out
}
