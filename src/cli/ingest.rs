//! `tracelab ingest`: validates the request, runs the ingest with a progress
//! bar, prints the per-trace summary and decides the exit code.

use std::path::PathBuf;

use anyhow::Context;

use tracelab_ingest::{self as ingest, Limits, Plan, Report, TraceResult};
use tracelab_present as present;
use tracelab_schema::error::Error;

/// Read the official trace downloads in DIR into a Parquet store.
///
/// Finds which traces DIR holds (PAI pai_*_table files or their .tar.gz,
/// Philly cluster_* files or trace-data.tar.gz, Helios <Cluster>/ folders
/// or data.zip, AcmeTrace trace_seren.csv / trace_kalos.csv, the Alibaba
/// spot-GPU trace's job_info_df.csv / node_info_df.csv (these four also
/// gzipped or as <stem>.tar.gz), Standard Workload Format logs *.swf or
/// *.swf.gz, one cluster of the swf trace per file), validates every
/// record, and
/// writes one Parquet file per canonical table to <STORE>/<trace>/,
/// rejected records to <STORE>/<trace>/rejects.parquet, and the unified
/// cross-trace table to <STORE>/jobs.parquet. Unchanged inputs are not
/// read again.
///
/// Cost: about one pass over the input (streaming, bounded memory). The
/// store is locked while ingest writes it: another ingest, or a command
/// reading the store, waits for it (with a note) and then goes on.
///
/// Examples:
///   tracelab ingest data-samples
///   tracelab ingest ~/traces --out ~/tl-store --strict
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Directory holding one or more traces as downloaded [default: the
    /// bundled data-samples/]
    dir: Option<PathBuf>,
    /// Where to write the store [default: <DIR>/.tracelab]
    #[arg(long, value_name = "STORE")]
    out: Option<PathBuf>,
    /// Exit with status 1 if any record was rejected.
    #[arg(long)]
    strict: bool,
    /// Ingest again even if the inputs are unchanged.
    #[arg(long)]
    force: bool,
    /// No progress bar and no summary; errors are still printed.
    #[arg(long, short)]
    quiet: bool,
    /// The longest CSV line or Philly job accepted; a longer CSV line is
    /// rejected without being held in memory, a longer job stops the ingest
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_record_bytes)]
    max_record_bytes: usize,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let plan = plan(&args)?;
    let report = crate::keeping_freed_memory(|| ingest::run(&plan, super::progress::ingest(args.quiet)))
        .with_context(|| format!("ingest of {}", plan.dir.display()))?;
    if !args.quiet {
        // Reject samples quote the trace's fields, file and column names.
        super::out(&tracelab_present::text::neutralize_lines(&summary(&report)))?;
    }
    let rejected = report.total_rejects();
    if args.strict && rejected > 0 {
        eprintln!(
            "error: --strict: {rejected} record(s) rejected; see {}/<trace>/rejects.parquet",
            report.store.display()
        );
        return Ok(1);
    }
    Ok(0)
}

/// Resolves the directory and store before any work starts.
fn plan(args: &Args) -> anyhow::Result<Plan> {
    let dir = super::store::trace_dir(args.dir.as_ref())?;
    if args.max_record_bytes < 1024 {
        return Err(Error::Usage("--max-record-bytes: expected at least 1024 bytes".into()).into());
    }
    let store = args.out.clone().unwrap_or_else(|| Plan::default_store(&dir));
    let limits = Limits { max_record_bytes: args.max_record_bytes, ..Limits::default() };
    Ok(Plan { dir, store, force: args.force, limits, crash: super::crash_hook() })
}

fn summary(report: &Report) -> String {
    let mut s = String::new();
    for trace in &report.traces {
        let m = trace.manifest();
        let state = match trace {
            TraceResult::Ingested { .. } => "ingested",
            TraceResult::Unchanged { .. } => "unchanged since the last ingest; nothing to do",
        };
        s.push_str(&format!("{} -> {}/{}: {state}\n", m.trace, report.store.display(), m.trace));
        s.push_str(&counts_table(m));
        if m.rejects > 0 {
            let path = format!("{}/{}/rejects.parquet", report.store.display(), m.trace);
            s.push_str(&format!("{} record(s) rejected, listed in {path}\n", m.rejects));
            if let TraceResult::Ingested { reject_samples, .. } = trace {
                for r in reject_samples {
                    s.push_str(&format!("  {r}\n"));
                }
            }
        }
        for note in &m.notes {
            s.push_str(&format!("note: {note}\n"));
        }
        s.push('\n');
    }
    if let Some(unified) = &report.unified {
        let parts: Vec<String> = unified.iter().map(|(t, n)| format!("{t} {n}")).collect();
        s.push_str(&format!(
            "jobs -> {}/jobs.parquet: {} ({} rows)\n",
            report.store.display(),
            parts.join(", "),
            unified.iter().map(|x| x.1).sum::<u64>()
        ));
    }
    if !report.ignored.is_empty() {
        s.push_str(&format!("not part of a known trace, not read: {}\n", report.ignored.join(", ")));
    }
    s
}

/// The per-table counts, drawn by the presentation layer (so a hostile
/// file name cannot drive the terminal).
fn counts_table(m: &ingest::Manifest) -> String {
    let mut t = present::Table::new(vec![
        present::Column::text("table"),
        present::Column::text("source"),
        present::Column::int("records in"),
        present::Column::int("written"),
        present::Column::int("rejected"),
        present::Column::int("parquet rows"),
        present::Column::text("balanced"),
    ]);
    for r in &m.tables {
        let c = r.counts;
        let balanced = if c.balanced() { "yes" } else { "NO" };
        let counts = [c.records_in, c.written, c.rejected, c.rows].map(present::Value::from);
        let mut row = vec![r.table.as_str().into(), r.source.as_str().into()];
        row.extend(counts);
        row.push(balanced.into());
        t.push(row);
    }
    // Long source lists wrap inside the table instead of widening it.
    present::terminal::render(&t, &present::terminal::Style { width: Some(120), ..Default::default() })
}
