//! `tracelab export`: writes a trace's jobs (windowed, sampled) in the input
//! format of a simulator. Options become a validated
//! `tracelab_workload::export::Request` and output paths are checked before
//! any work; the file goes to `-o` (or stdout), the accounting to stderr.

use std::path::{Path, PathBuf};

use tracelab_schema::error::Error;
use tracelab_schema::error::IoContext;
use tracelab_workload::export::{self, Format, Request};
use tracelab_workload::{Selection, TraceSel, Window};

use super::output::is_stdout;

/// Write a trace's jobs in a simulator's input format.
///
/// The jobs are those `tracelab simulate` replays (one job = a PAI task, a
/// Philly job, a Helios job; unfinished, CPU-only and undated jobs are left
/// out), after --window and --sample. Every selected job is written; stderr
/// gets the accounting of every row of the trace and the format's mapping
/// notes. Formats (semantics in docs/export.md):
///   swf         Standard Workload Format 2.2 (Batsim, Slurm simulators, evalys); a processor = a GPU
///   pai-sim     the CSV of the PAI simulator (alibaba/clusterdata cluster-trace-gpu-v2020/simulator)
///   helios-sim  the cluster_log.csv of HeliosArtifact's QSSF framework
///   pollux      the workload CSV of the Pollux simulator (a mapping: applications by GPU-hours)
///
/// Without --store, the bundled data-samples/ are used (ingested on first
/// use). The output is deterministic: the same store and options give the
/// same bytes.
///
/// Examples:
///   tracelab export --trace philly --window busiest:8h --sample 160 --seed 1 --to pollux -o pollux.csv
///   tracelab export --trace helios:Venus --to swf -o venus.swf --ids venus-ids.csv
///   tracelab export --trace pai --to pai-sim -o pai_jobs.csv
///   tracelab export --trace helios:Venus --to helios-sim -o cluster_log.csv --force
///   tracelab export --trace philly --to swf -o - | head
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The store written by `tracelab ingest` [default: data-samples/.tracelab]
    #[arg(long, value_name = "STORE")]
    store: Option<PathBuf>,
    /// pai, philly, helios or helios:CLUSTER (Earth, Saturn, Uranus, Venus).
    #[arg(long)]
    trace: String,
    /// FROM..TO (RFC 3339 or offsets from the trace start, e.g. 3h..11h), busiest:DURATION, or all.
    #[arg(long, default_value = "all")]
    window: String,
    /// Write N jobs of the window, drawn uniformly without replacement.
    #[arg(long, value_name = "N")]
    sample: Option<usize>,
    /// Seed of --sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Format: swf, pai-sim, helios-sim or pollux.
    #[arg(long, value_name = "FORMAT")]
    to: String,
    /// The file to write; - for stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: PathBuf,
    /// Replace FILE (and the --ids file) if it exists.
    #[arg(long)]
    force: bool,
    /// swf only: also write the numbering (CSV kind,number,name: every job's
    /// trace id and the names of the user, group, queue and partition numbers).
    #[arg(long, value_name = "FILE.csv")]
    ids: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let req = request(&args)?;
    check_outputs(&args)?;
    let store = super::store::resolve(args.store.as_ref())?;
    let exported = export::export(&store, &req)?;
    if let (Some(path), Some(ids)) = (&args.ids, &exported.ids) {
        publish(path, ids)?;
    }
    if is_stdout(&args.output) {
        super::out(&exported.text)?;
    } else {
        publish(&args.output, &exported.text)?;
    }
    eprint!("{}", super::analyze::terminal_text(&export::output(&exported)));
    Ok(0)
}

fn usage(msg: String) -> anyhow::Error {
    Error::Usage(msg).into()
}

/// The validated request.
fn request(a: &Args) -> anyhow::Result<Request> {
    let format = Format::parse(&a.to)?;
    if a.sample == Some(0) {
        return Err(usage("--sample 0: expected at least one job".into()));
    }
    if a.ids.is_some() && format != Format::Swf {
        return Err(usage(format!(
            "--ids: only --to swf numbers users, groups and queues; {format} writes the names and the trace's job ids itself"
        )));
    }
    let selection = Selection { window: Window::parse(&a.window)?, sample: a.sample, seed: a.seed };
    Ok(Request { trace: TraceSel::parse(&a.trace)?, selection, format })
}

/// Refuses to overwrite without --force, and paths that cannot be written.
fn check_outputs(a: &Args) -> anyhow::Result<()> {
    let mut outputs = vec![("-o", &a.output)];
    if let Some(ids) = &a.ids {
        if is_stdout(ids) || ids == &a.output {
            return Err(usage(format!("--ids {}: expected a file other than -o's", ids.display())));
        }
        outputs.push(("--ids", ids));
    }
    for (option, path) in outputs {
        if is_stdout(path) {
            continue;
        }
        if path.exists() && !a.force {
            return Err(usage(format!("{option} {}: the file exists; pass --force to replace it", path.display())));
        }
        if path.is_dir() {
            return Err(usage(format!("{option} {}: is a folder; expected a file", path.display())));
        }
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !parent.is_dir() {
            return Err(usage(format!("{option} {}: the folder {} does not exist", path.display(), parent.display())));
        }
    }
    Ok(())
}

/// Writes `text` to `path` through a hidden partial file in the same folder
/// and a rename, so an interrupted export leaves no half file under the name.
fn publish(path: &Path, text: &str) -> anyhow::Result<()> {
    let name = path.file_name().map_or_else(|| "export".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.partial"));
    std::fs::write(&tmp, text).at(&tmp)?;
    std::fs::rename(&tmp, path).at(path)?;
    Ok(())
}
