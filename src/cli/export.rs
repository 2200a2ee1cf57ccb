//! `tracelab export`: writes a trace's jobs (windowed, sampled) in the input
//! format of a simulator. Options become a validated
//! `tracelab_workload::export::Request` and output paths are checked before
//! any work; the file goes to `-o` (or stdout), written whole through a
//! temporary file (`tracelab_schema::outfile`), the accounting to stderr.

use std::path::PathBuf;

use tracelab_schema::error::Error;
use tracelab_schema::outfile::{self, Replace};
use tracelab_workload::export::{self, Format, Request};
use tracelab_workload::pollux::recipe::Recipe;
use tracelab_workload::TraceSel;

use super::output::is_stdout;

/// Write a trace's jobs in a simulator's input format.
///
/// The jobs are those `tracelab simulate` replays (one job = a PAI task, a
/// Philly job, a Helios or AcmeTrace job, a spot-GPU job; unfinished, CPU-only and undated jobs are left
/// out), after --window and --sample. Every selected job is written; stderr
/// gets the accounting of every row of the trace and the format's mapping
/// notes. Formats (semantics in docs/export.md):
///   swf         Standard Workload Format 2.2 (Batsim, Slurm simulators, evalys); a processor = a GPU
///   pai-sim     the CSV of the PAI simulator (alibaba/clusterdata cluster-trace-gpu-v2020/simulator)
///   helios-sim  the cluster_log.csv of HeliosArtifact's QSSF framework
///   pollux      the workload CSV of the Pollux simulator (a mapping: applications by GPU-hours;
///               with --recipe pollux, the jobs Pollux's own generator draws)
///
/// Without --store, the bundled data-samples/ are used (ingested on first
/// use). The output is deterministic: the same store and options give the
/// same bytes.
///
/// Examples:
///   tracelab export --trace philly --recipe pollux --sample 160 --seed 1 --to pollux -o pollux.csv
///   tracelab export --trace philly --window busiest:8h --sample 160 --seed 1 --to pollux -o busiest.csv
///   tracelab export --trace helios:Venus --to swf -o venus.swf --ids venus-ids.csv
///   tracelab export --trace pai --to pai-sim -o pai_jobs.csv
///   tracelab export --trace helios:Venus --to helios-sim -o cluster_log.csv --force
///   tracelab export --trace philly --to swf -o - | head
///   tracelab export --trace spot --to swf -o spot.swf
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    store: super::store::StoreArg,
    /// pai, philly, helios or helios:CLUSTER (Earth, Saturn, Uranus, Venus),
    /// acme or acme:CLUSTER (Seren, Kalos), spot [default: the store's only
    /// trace]
    #[arg(long)]
    trace: Option<String>,
    #[command(flatten)]
    selection: super::selection::SelectionArgs,
    /// The simulator's format (described above).
    #[arg(long, value_name = "FORMAT", value_parser = super::choice::named(&Format::ALL, Format::name))]
    to: Format,
    /// The file to write; - for stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: PathBuf,
    /// Replace FILE (and the --ids file) if it is a regular file; a link,
    /// folder or device is never replaced.
    #[arg(long)]
    force: bool,
    /// swf only: also write the numbering (CSV kind,number,name: every job's
    /// trace id and the names of the user, group, queue and partition numbers).
    #[arg(long, value_name = "FILE.csv")]
    ids: Option<PathBuf>,
    /// pollux only: draw the jobs as Pollux's generator does instead of
    /// --window (at least 60 s, under 1,000 GPU-hours, submitted at hours
    /// [--start, --start + --duration) of every day, placed at their time of
    /// day; --sample jobs, default 160; TunedJobs GPUs and batch sizes).
    #[arg(long, value_name = "NAME", conflicts_with = "window", value_parser = ["pollux"])]
    recipe: Option<String>,
    /// --recipe: hours to shift submissions back before taking hours of the day.
    #[arg(long, default_value_t = 2, requires = "recipe")]
    start: u32,
    /// --recipe: hours of the day kept.
    #[arg(long, default_value_t = 8, requires = "recipe")]
    duration: u32,
    /// --recipe: the trace's GPU counts instead of TunedJobs configurations.
    #[arg(long, requires = "recipe")]
    realistic: bool,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    check_outputs(&args)?;
    let store = args.store.open()?;
    let trace = match &args.trace {
        Some(t) => t.clone(),
        None => super::store::only_trace(&store)?,
    };
    let req = request(&args, &trace)?;
    if let Some(recipe) = recipe(&args)? {
        let (text, out) = tracelab_workload::pollux::export::export(&store, &req.trace, &recipe)?;
        if is_stdout(&args.output) {
            super::out(&text)?;
        } else {
            outfile::write(&args.output, text.as_bytes(), replace(&args))?;
        }
        eprint!("{}", super::analyze::terminal_text(&out));
        return Ok(0);
    }
    let exported = export::export(&store, &req)?;
    if let (Some(path), Some(ids)) = (&args.ids, &exported.ids) {
        outfile::write(path, ids.as_bytes(), replace(&args))?;
    }
    if is_stdout(&args.output) {
        super::out(&exported.text)?;
    } else {
        outfile::write(&args.output, exported.text.as_bytes(), replace(&args))?;
    }
    eprint!("{}", super::analyze::terminal_text(&export::output(&exported)));
    Ok(0)
}

fn usage(msg: String) -> anyhow::Error {
    Error::Usage(msg).into()
}

/// The validated request.
fn request(a: &Args, trace: &str) -> anyhow::Result<Request> {
    let format = a.to;
    let selection = a.selection.selection()?;
    if a.ids.is_some() && format != Format::Swf {
        return Err(usage(format!(
            "--ids: only --to swf numbers users, groups and queues; {format} writes the names and the trace's job ids itself"
        )));
    }
    Ok(Request { trace: TraceSel::parse(trace)?, selection, format })
}

/// `--recipe pollux`: Pollux's generator (docs/simulate-elastic.md).
fn recipe(a: &Args) -> anyhow::Result<Option<Recipe>> {
    match a.recipe.as_deref() {
        None => Ok(None),
        Some("pollux") if a.to == Format::Pollux => Ok(Some(Recipe {
            jobs: a.selection.sample.unwrap_or(160),
            start_h: a.start,
            duration_h: a.duration,
            seed: a.selection.seed,
            tuned: !a.realistic,
        })),
        Some("pollux") => Err(usage(format!("--recipe pollux writes --to pollux, not --to {}", a.to.name()))),
        Some(other) => Err(usage(format!("--recipe {other}: the recipe known is pollux"))),
    }
}

/// Refuses, before any work, outputs that cannot be written: an existing
/// file without --force; a link, folder or device even with it; `--ids`
/// and `-o` naming one file (see [`tracelab_schema::outfile`]).
fn check_outputs(a: &Args) -> anyhow::Result<()> {
    let mut outputs = vec![("-o", a.output.as_path())];
    if let Some(ids) = &a.ids {
        if is_stdout(ids) {
            return Err(usage(format!("--ids {}: expected a file other than -o's", ids.display())));
        }
        outputs.push(("--ids", ids.as_path()));
    }
    for (option, path) in &outputs {
        if !is_stdout(path) {
            outfile::check(option, path, replace(a))?;
        }
    }
    outfile::distinct(&outputs)?;
    Ok(())
}

/// What --force allows: replacing a regular file, never anything else.
fn replace(a: &Args) -> Replace {
    if a.force {
        Replace::Regular
    } else {
        Replace::Never
    }
}
