//! `tracelab synth`: generates synthetic traces in the official raw formats,
//! with a spinner on a terminal, and lists the files written (trace, file,
//! bytes, rows) in any format; the throughput line goes to stderr.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::ValueEnum;

use tracelab_present::{Column, Table, Value};

use tracelab_schema::Trace;
use tracelab_synth::{self as synth, Effects, Plan};

/// Generate synthetic traces in the owners' raw formats.
///
/// Byte-for-byte the owners' layouts, calibrated to the published numbers,
/// at any scale, from a seed.
///
/// --scale 1 is the size of the real trace (PAI about 3.8 GB of CSV, Philly
/// about 6.6 GB, Helios 3.36 M jobs, AcmeTrace 1.09 M jobs, the spot-GPU
/// trace 467 k jobs on 4,278 nodes); 0.01 is a hundredth. The same seed
/// gives byte-identical files. Each trace folder also gets the real
/// inventory tables (PAI machines, Philly machine list, Helios VC GPUs).
///
/// Examples:
///   tracelab synth pai --scale 0.01 --seed 7 --out /tmp/pai-small
///   tracelab synth all --scale 1 --out /tmp/full
///   tracelab synth philly --scale 0.1 --archive
///   tracelab synth helios --scale 0.001 --corrupt 0.01 --out /tmp/bad
///   tracelab synth acme --scale 0.003 --out /tmp/acme
///   tracelab synth spot --scale 0.005 --out /tmp/spot
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Which trace (`all` writes <OUT>/pai, <OUT>/philly, <OUT>/helios,
    /// <OUT>/acme, <OUT>/spot).
    #[arg(value_enum)]
    trace: Which,
    /// Size relative to the real trace.
    #[arg(long, default_value_t = 0.01)]
    scale: f64,
    /// Random seed; the same seed gives the same files.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output folder [default: synthetic-<trace>]
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also pack the files as downloaded (PAI per-table .tar.gz, Philly
    /// trace-data.tar.gz, Helios data.zip; AcmeTrace and the spot-GPU trace
    /// ship plain CSVs, so nothing more is written for them).
    #[arg(long)]
    archive: bool,
    /// Corrupt this fraction of rows (and cut the last line of every file);
    /// the faults are listed in corruptions.csv.
    #[arg(long, value_name = "RATE")]
    corrupt: Option<f64>,
    /// Do not plant the CPU-contention slowdown (PAI).
    #[arg(long)]
    no_cpu_contention: bool,
    /// Do not plant the co-location slowdown (PAI).
    #[arg(long)]
    no_colocation: bool,
    /// The list of files written: --format (default: table on a terminal,
    /// csv when piped) and -o FILE (a file; the traces go to --out).
    #[command(flatten)]
    listing: super::output::OutputArgs,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Which {
    Pai,
    Philly,
    Helios,
    Acme,
    Spot,
    All,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let traces = match args.trace {
        Which::Pai => vec![Trace::Pai],
        Which::Philly => vec![Trace::Philly],
        Which::Helios => vec![Trace::Helios],
        Which::Acme => vec![Trace::Acme],
        Which::Spot => vec![Trace::Spot],
        // The traces synth generates (not SWF logs).
        Which::All => vec![Trace::Pai, Trace::Philly, Trace::Helios, Trace::Acme, Trace::Spot],
    };
    let name = if traces.len() == 1 { traces[0].name() } else { "all" };
    let plan = Plan {
        traces,
        scale: args.scale,
        seed: args.seed,
        out: args.out.unwrap_or_else(|| PathBuf::from(format!("synthetic-{name}"))),
        archive: args.archive,
        corrupt: args.corrupt,
        effects: Effects { cpu_contention: !args.no_cpu_contention, colocation: !args.no_colocation },
    };
    plan.validate()?;
    let sink = args.listing.resolve()?;
    let started = Instant::now();
    let spinner = super::progress::spinner(&format!("generating into {}", plan.out.display()), args.quiet);
    let report = synth::run(&plan).with_context(|| format!("synth into {}", plan.out.display()))?;
    drop(spinner);
    let secs = started.elapsed().as_secs_f64();
    if !args.quiet {
        sink.table(&files(&report), 6, false)?;
        for (path, n) in &report.corruptions {
            eprintln!("{n} injected fault(s) listed in {}", path.display());
        }
        let mb = report.traces.iter().flat_map(|t| &t.files).map(|f| f.bytes).sum::<u64>() as f64 / 1e6;
        eprintln!("{mb:.1} MB in {secs:.1} s ({:.1} MB/s)", mb / secs.max(1e-9));
    }
    Ok(0)
}

/// One row per file written.
fn files(report: &synth::Report) -> Table {
    let mut t = Table::new(vec![
        Column::text("trace"),
        Column::text("file"),
        Column::int("bytes"),
        Column::int("rows"),
        Column::text("folder"),
    ]);
    for tr in &report.traces {
        for f in &tr.files {
            let dir = tr.dir.display().to_string();
            t.push(vec![
                tr.trace.name().into(),
                f.file.as_str().into(),
                Value::from(f.bytes),
                Value::from(f.rows),
                dir.into(),
            ]);
        }
    }
    t
}
