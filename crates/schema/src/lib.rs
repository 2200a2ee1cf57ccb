//! The canonical tables tracelab writes: their names, columns, types, units and
//! meaning. This is the leaf of the module tree (layer 0): it knows nothing of
//! files, Polars plans or the CLI, so every other layer can depend on it.
//!
//! Two kinds of knowledge live here:
//! - [`raw`]: the official raw layouts (file names, header rows, column order)
//!   exactly as the trace owners publish them; ingest reads them and synth
//!   writes them, so both take them from one place.
//! - the canonical tables of the store (`<store>/<trace>/<table>.parquet` and
//!   the unified `<store>/jobs.parquet`), declared as static [`Table`]s and
//!   rendered by `tracelab schema` (and checked against `docs/schema.md`).
//!
//! [`swf`] holds the fields of the Standard Workload Format, which export
//! writes and ingest reads (the fourth trace kind), and its canonical tables.
//! [`acme`] and [`spot`] are the LLM-era traces: AcmeTrace (NSDI'24) and
//! Alibaba's cluster-trace-v2026-spot-gpu (ASPLOS'26).

pub mod acme;
pub mod civil;
pub mod error;
pub mod helios;
pub mod outfile;
pub mod pai;
pub mod philly;
pub mod raw;
mod render;
pub mod spot;
pub mod status;
pub mod swf;
pub mod synthetic;
pub mod unified;

pub use error::{Error, Result};
pub use render::{render_json, render_markdown, render_text};

use std::fmt;

/// The public traces tracelab knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Trace {
    /// Alibaba PAI cluster-trace-gpu-v2020 (NSDI'22 "MLaaS in the Wild").
    Pai,
    /// Microsoft Philly (ATC'19).
    Philly,
    /// SenseTime Helios (SC'21).
    Helios,
    /// Any log in the Standard Workload Format of the Parallel Workloads
    /// Archive (`*.swf`, `*.swf.gz`), one cluster per file; jobs only.
    Swf,
    /// Shanghai AI Lab AcmeTrace (NSDI'24): the LLM-development clusters
    /// Seren and Kalos.
    Acme,
    /// Alibaba cluster-trace-v2026-spot-gpu (ASPLOS'26 GFS): HP and Spot
    /// jobs on a heterogeneous GPU cluster.
    Spot,
}

impl Trace {
    pub const ALL: [Trace; 6] = [Trace::Pai, Trace::Philly, Trace::Helios, Trace::Swf, Trace::Acme, Trace::Spot];

    /// The short name used on the command line and as the store folder.
    pub fn name(self) -> &'static str {
        match self {
            Trace::Pai => "pai",
            Trace::Philly => "philly",
            Trace::Helios => "helios",
            Trace::Swf => "swf",
            Trace::Acme => "acme",
            Trace::Spot => "spot",
        }
    }

    pub fn from_name(name: &str) -> Option<Trace> {
        Trace::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The IANA zone whose wall clock is the trace's true local time. Analyses
    /// that bin by hour of day or weekday convert the UTC timestamps to it.
    /// PAI: the owners' README guarantees time of day and weekday only in
    /// UTC+8. Philly: the utilization files carry PDT/PST. Helios: the files
    /// carry no zone; SenseTime's clusters are in China, so UTC+8 is assumed.
    /// SWF: each log names its own zone (`TimeZoneString`, kept in
    /// `swf/header`); one zone cannot stand for all of them, so UTC.
    /// AcmeTrace: the files carry offsets (Seren +08:00, Kalos +00:00); the
    /// clusters are in Shanghai. Spot: offsets without a date, counted from
    /// a Shanghai midnight (`spot::ORIGIN_UTC_S`).
    pub fn local_tz(self) -> &'static str {
        match self {
            Trace::Pai | Trace::Helios | Trace::Acme | Trace::Spot => "Asia/Shanghai",
            Trace::Philly => "America/Los_Angeles",
            Trace::Swf => "UTC",
        }
    }

    /// The canonical tables of this trace, in the order they are documented.
    pub fn tables(self) -> &'static [&'static Table] {
        match self {
            Trace::Pai => pai::TABLES,
            Trace::Philly => philly::TABLES,
            Trace::Helios => helios::TABLES,
            Trace::Swf => swf::TABLES,
            Trace::Acme => acme::TABLES,
            Trace::Spot => spot::TABLES,
        }
    }

    /// One-line description with the paper it comes from.
    pub fn title(self) -> &'static str {
        match self {
            Trace::Pai => "Alibaba PAI cluster-trace-gpu-v2020 (NSDI'22 \"MLaaS in the Wild\")",
            Trace::Philly => "Microsoft Philly traces (ATC'19)",
            Trace::Helios => "SenseTime Helios traces (SC'21)",
            Trace::Swf => "Standard Workload Format logs (Parallel Workloads Archive)",
            Trace::Acme => "Shanghai AI Lab AcmeTrace (NSDI'24 \"Characterization of Large Language Model Development in the Datacenter\")",
            Trace::Spot => "Alibaba cluster-trace-v2026-spot-gpu (ASPLOS'26 GFS)",
        }
    }
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Logical column types; each maps to exactly one Arrow/Polars type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColType {
    /// UTF-8 string.
    Str,
    /// 64-bit signed integer.
    I64,
    /// 64-bit float.
    F64,
    /// Instant, microseconds since the Unix epoch, time zone UTC.
    Timestamp,
    /// Calendar date.
    Date,
}

impl ColType {
    pub fn name(self) -> &'static str {
        match self {
            ColType::Str => "string",
            ColType::I64 => "int64",
            ColType::F64 => "float64",
            ColType::Timestamp => "timestamp[us, UTC]",
            ColType::Date => "date",
        }
    }
}

/// One column of a canonical table.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    pub name: &'static str,
    pub ty: ColType,
    /// Unit of the values ("s", "GiB", "% of one GPU", ...); empty when the
    /// column is an identifier or a code.
    pub unit: &'static str,
    /// Whether nulls may occur, and so what a reader must be prepared for.
    pub nullable: bool,
    /// Meaning, the raw column it comes from, and how it was converted.
    pub doc: &'static str,
}

/// Shorthand constructors used by the table declarations.
pub const fn col(name: &'static str, ty: ColType, unit: &'static str, doc: &'static str) -> Column {
    Column { name, ty, unit, nullable: false, doc }
}

/// Like [`col`] for a column that may hold nulls.
pub const fn opt(name: &'static str, ty: ColType, unit: &'static str, doc: &'static str) -> Column {
    Column { name, ty, unit, nullable: true, doc }
}

/// A canonical table of the store.
#[derive(Debug)]
pub struct Table {
    /// The trace it belongs to; `None` for tables of the store root.
    pub trace: Option<Trace>,
    /// File stem: the table is written as `<name>.parquet`.
    pub name: &'static str,
    /// What one row is and where it comes from.
    pub doc: &'static str,
    /// Columns that together are unique per row; empty when nothing is
    /// required to be unique. Ingest rejects a row whose key was already seen.
    pub key: &'static [&'static str],
    pub columns: &'static [Column],
}

impl Table {
    pub fn file_name(&self) -> String {
        format!("{}.parquet", self.name)
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    pub fn column_names(&self) -> Vec<&'static str> {
        self.columns.iter().map(|c| c.name).collect()
    }

    /// The name SQL queries use for this table: the trace prefix plus a
    /// plural noun (`pai_instances`, `philly_attempts`, `helios_jobs`), and
    /// plain `jobs` for the unified table. Stable: named queries depend on it.
    pub fn sql_name(&self) -> &'static str {
        match (self.trace, self.name) {
            (None, _) => "jobs",
            (Some(Trace::Pai), "job") => "pai_jobs",
            (Some(Trace::Pai), "task") => "pai_tasks",
            (Some(Trace::Pai), "instance") => "pai_instances",
            (Some(Trace::Pai), "sensor") => "pai_sensors",
            (Some(Trace::Pai), "group_tag") => "pai_group_tags",
            (Some(Trace::Pai), "machine_spec") => "pai_machines",
            (Some(Trace::Pai), "machine_metric") => "pai_machine_metrics",
            (Some(Trace::Pai), "philly_runtimes") => "pai_philly_runtimes",
            (Some(Trace::Pai), _) => "pai_rejects",
            (Some(Trace::Philly), "jobs") => "philly_jobs",
            (Some(Trace::Philly), "attempts") => "philly_attempts",
            (Some(Trace::Philly), "placements") => "philly_placements",
            (Some(Trace::Philly), "gpu_util") => "philly_gpu_util",
            (Some(Trace::Philly), "cpu_util") => "philly_cpu_util",
            (Some(Trace::Philly), "mem_util") => "philly_mem_util",
            (Some(Trace::Philly), "machines") => "philly_machines",
            (Some(Trace::Philly), _) => "philly_rejects",
            (Some(Trace::Helios), "jobs") => "helios_jobs",
            (Some(Trace::Helios), "vc_gpus") => "helios_vc_gpus",
            (Some(Trace::Helios), _) => "helios_rejects",
            (Some(Trace::Swf), "jobs") => "swf_jobs",
            (Some(Trace::Swf), "header") => "swf_headers",
            (Some(Trace::Swf), _) => "swf_rejects",
            (Some(Trace::Acme), "jobs") => "acme_jobs",
            (Some(Trace::Acme), _) => "acme_rejects",
            (Some(Trace::Spot), "jobs") => "spot_jobs",
            (Some(Trace::Spot), "nodes") => "spot_nodes",
            (Some(Trace::Spot), _) => "spot_rejects",
        }
    }

    /// `trace/table`, or `table` for the store root.
    pub fn qualified_name(&self) -> String {
        match self.trace {
            Some(t) => format!("{}/{}", t.name(), self.name),
            None => self.name.to_string(),
        }
    }
}

/// The rejects table every trace folder carries: one row per rejected input
/// record, so nothing is ever dropped silently.
pub static REJECTS_COLUMNS: &[Column] = &[
    col("table", ColType::Str, "", "Canonical table the record was meant for (for Philly job-log records: `jobs`)."),
    col("file", ColType::Str, "", "Input file, relative to the trace directory; `archive!member` for archive members."),
    col(
        "line",
        ColType::I64,
        "",
        "1-based line of the record in its file (for JSON records, the line where the record starts).",
    ),
    col("column", ColType::Str, "", "Raw column (or JSON path) at fault; `*` when the whole record is at fault."),
    col("raw_value", ColType::Str, "", "The offending raw text, cut to 200 characters (then marked `...`)."),
    col("reason", ColType::Str, "", "What was expected."),
];

/// All tables of a trace folder, including its rejects table, by name.
pub fn find_table(trace: Trace, name: &str) -> Option<&'static Table> {
    trace.tables().iter().copied().find(|t| t.name == name)
}

/// Every table tracelab writes, in documentation order (trace tables first,
/// then the store root).
pub fn all_tables() -> Vec<&'static Table> {
    let mut out: Vec<&'static Table> = Trace::ALL.iter().flat_map(|t| t.tables().iter().copied()).collect();
    out.push(&unified::JOBS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql_names_are_unique_and_name_their_trace() {
        let tables = all_tables();
        let mut names: Vec<&str> = tables.iter().map(|t| t.sql_name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tables.len(), "two tables share an SQL name");
        for t in tables {
            let prefix = t.trace.map_or(String::new(), |tr| format!("{}_", tr.name()));
            assert!(t.sql_name().starts_with(&prefix), "{} lacks the prefix {prefix}", t.sql_name());
        }
    }

    #[test]
    fn every_table_has_unique_column_names_and_known_key_columns() {
        for table in all_tables() {
            let names = table.column_names();
            let mut sorted = names.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), names.len(), "duplicate column in {}", table.qualified_name());
            for k in table.key {
                assert!(table.column(k).is_some(), "key {k} not a column of {}", table.qualified_name());
            }
        }
    }

    #[test]
    fn every_trace_has_a_rejects_table_with_the_shared_columns() {
        for trace in Trace::ALL {
            let rejects = find_table(trace, "rejects").expect("rejects table");
            assert_eq!(rejects.column_names(), REJECTS_COLUMNS.iter().map(|c| c.name).collect::<Vec<_>>());
        }
    }
}
