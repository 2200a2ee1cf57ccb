//! `tracelab simulate`: replays a trace (or a CSV job list) under the
//! schedulers the trace papers compare and prints the per-run summary, the
//! accounting of every job and the cluster; `--out` also writes the per-job
//! table and the time series. Options become a validated
//! `tracelab_workload::Request` and run plan before any work; output goes
//! through the same renderers as `analyze`.

use std::path::{Path, PathBuf};

use clap::ValueEnum;

use tracelab_analysis::{render, Cell, Output};

use super::listing::{self, Entry};
use super::output::OutputArgs;
use tracelab_schema::error::{Error, IoContext};
use tracelab_schema::outfile::{self, Replace};
use tracelab_sim::elastic::ElasticPolicyName;
use tracelab_sim::{Discipline, Placement, Policy, Predictor, ShareBy};
use tracelab_workload::options::Options;
use tracelab_workload::pollux::ElasticSource;
use tracelab_workload::results::{self, RunsWriter};
use tracelab_workload::{self as workload, Source};

/// Replay a trace under scheduling policies.
///
/// Answers "what would policy X have done on this trace?": the jobs of an
/// ingested trace (one job = a PAI task, a Philly job, a Helios or AcmeTrace
/// job, a spot-GPU job of worker_num x gpu_request GPUs), or of a CSV job
/// list, replayed by the tracelab-sim engine on the trace's own machines or
/// a cluster you describe, one run per policy x placement x load.
/// Prints per run: jobs done, mean/P50/P90/P99 JCT and wait, mean bounded
/// slowdown, makespan, GPU utilisation, Jain's fairness over users; and every
/// job left out, by reason. Semantics: docs/simulate.md.
///
/// Without --store, the bundled data-samples/ are used (ingested on first
/// use). Runs go two at a time on two threads (one at PAI scale).
///
/// Examples:
///   tracelab simulate --list
///   tracelab simulate --trace philly --policy fifo,sjf,srtf,las,qssf --placement pack
///   tracelab simulate --trace pai --policy fifo,sjf,sjf-predicted --placement pack,spread --out sim/
///   tracelab simulate --trace philly --window busiest:8h --sample 40 --seed 1 --load 0.5,1,2
///   tracelab simulate --trace helios:Venus --policy qssf --discipline strict --format json
///   tracelab simulate --trace acme:Seren --policy fifo,sjf --placement pack
///   tracelab simulate --trace spot --policy fifo,priority
///   tracelab simulate --jobs jobs.csv --cluster 4x8 --policy fifo,sjf
///   tracelab simulate --trace pai --policy exclusive,horus --cluster 2x8 --sample 2000
///   tracelab simulate --trace pai --online 8 --policy time-sharing,muxflow --cluster 2x8
///   tracelab simulate --jobs artifact:6 --policy pollux,optimus,tiresias
///   tracelab simulate --trace philly --recipe pollux --sample 160 --policy pollux --load 0.5,1,2
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// List every policy, discipline, placement, predictor and option with
    /// the paper or simulator it mirrors.
    #[arg(long)]
    list: bool,
    #[command(flatten)]
    store: super::store::StoreArg,
    /// pai, philly, helios or helios:CLUSTER (Earth, Saturn, Uranus, Venus),
    /// acme or acme:CLUSTER (Seren, Kalos), spot [default: the store's only
    /// trace; of several, pai if the store holds it, else a list of them]
    #[arg(long, conflicts_with = "jobs")]
    trace: Option<String>,
    /// Replay this CSV job list instead (columns submit_s, duration_s, gpus
    /// and optionally job_id, cpus, user, vc, group, gpu_type, gpu_util,
    /// gpu_mem_gib, class).
    #[arg(long, value_name = "FILE.csv")]
    jobs: Option<PathBuf>,
    /// Policies, comma-separated (see --list).
    #[arg(long, default_value = "fifo", value_name = "LIST", value_delimiter = ',', hide_possible_values = true,
          value_parser = super::choice::any_of(Policy::ALL.iter().map(|p| p.name()).chain(ElasticPolicyName::ALL.iter().map(|p| p.name()))))]
    policy: Vec<String>,
    /// Placements, comma-separated (see --list).
    #[arg(long, default_value = "pack", value_name = "LIST", value_delimiter = ',',
          value_parser = super::choice::named(Placement::ALL, Placement::name))]
    placement: Vec<Placement>,
    /// strict (head-of-line blocking), greedy (start all that fit) or easy (backfilling).
    #[arg(long, default_value = "greedy", value_parser = super::choice::named(Discipline::ALL, Discipline::name))]
    discipline: Discipline,
    /// The history key of sjf-predicted.
    #[arg(long, default_value = "group", value_parser = super::choice::named(Predictor::ALL, Predictor::name))]
    predictor: Predictor,
    /// Whose share `fair` balances.
    #[arg(long, default_value = "vc", value_parser = super::choice::named(ShareBy::ALL, ShareBy::name))]
    fair_by: ShareBy,
    /// Cost of a preemption (srtf, las): helios (7 s / 30 s / 60 s by GPUs), none, or a duration such as 30s.
    #[arg(long, default_value = "helios")]
    preempt_overhead: String,
    /// Progress of jobs sharing a GPU slows by this factor (>= 1).
    #[arg(long, default_value_t = 1.0)]
    share_slowdown: f64,
    /// How the classic policies' fractional jobs slow each other on a shared
    /// GPU: constant (--share-slowdown) or utilization (the interference
    /// model of docs/sharing.md, from each job's GPU utilization). Elastic
    /// replays (pollux, optimus, tiresias): the slowdown (0 to <1) of a
    /// multi-node job sharing a node with another, comma-separated for a
    /// sweep (Pollux: 0, 0.25, 0.5; `constant` counts as 0).
    #[arg(long, default_value = "constant")]
    interference: String,
    /// Add N online services (MuxFlow's latency-critical jobs) of one GPU
    /// each, running for the whole replay; the trace's jobs are offline.
    #[arg(long, default_value_t = 0, value_name = "N")]
    online: u32,
    /// The online services' mean GPU utilization, % (MuxFlow: 26 % before sharing).
    #[arg(long, default_value_t = 26.0, value_name = "PCT")]
    online_util: f64,
    /// The online services' GPU memory, GiB.
    #[arg(long, default_value_t = 2.0, value_name = "GIB")]
    online_mem: f64,
    /// The online load over a day: trace (the trace's measured utilization;
    /// the default for a trace), flat (the default for --jobs), or a CSV file
    /// of offset_s,load rows.
    #[arg(long, value_name = "SOURCE")]
    online_profile: Option<String>,
    /// GPU utilization (%) of a job whose trace measured none.
    #[arg(long, default_value_t = 50.0, value_name = "PCT")]
    default_gpu_util: f64,
    /// GPU memory (GiB per GPU) of a job whose trace measured none.
    #[arg(long, default_value_t = 2.0, value_name = "GIB")]
    default_gpu_mem: f64,
    /// Most jobs on one GPU under the sharing policies.
    #[arg(long, default_value_t = 4, value_name = "N")]
    max_tenants: u32,
    /// The online slowdown muxflow never lets pass (> 1; 1.2 = 20 %).
    #[arg(long, default_value_t = 1.2, value_name = "F")]
    online_bound: f64,
    #[command(flatten)]
    selection: super::selection::SelectionArgs,
    /// Load factors, comma-separated: submission times from the window start divided by each.
    #[arg(long, default_value = "1", value_name = "LIST")]
    load: String,
    /// from-trace, NODESxGPUS (e.g. 100x8) or a .toml file of [[group]] tables.
    #[arg(long, default_value = "from-trace")]
    cluster: String,
    /// Ceiling on the cluster's nodes (all partitions): a replay holds about
    /// 130 bytes per node. At most 2147483647.
    #[arg(long, value_name = "N", default_value_t = tracelab_sim::cluster::DEFAULT_MAX_NODES)]
    max_nodes: u64,
    /// Ceiling on the cluster's GPUs (all partitions): about 30 bytes per GPU.
    /// At most 4294967295.
    #[arg(long, value_name = "N", default_value_t = tracelab_sim::cluster::DEFAULT_MAX_GPUS)]
    max_gpus: u64,
    /// A job the cluster can never hold: skip (count it as left out) or error
    /// [default: skip with from-trace, error otherwise].
    #[arg(long, value_enum)]
    unplaceable: Option<Unplaceable>,
    /// Stop the replay this long after the window start (e.g. 12h); unfinished jobs are counted.
    #[arg(long, value_name = "DURATION")]
    until: Option<String>,
    /// Also write jobs.parquet (one row per job and run), series.parquet,
    /// summary.csv, left-out.csv and result.json into this folder (created
    /// if missing; each file replaced whole, other files left alone).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    output: OutputArgs,
    /// Replays run at the same time; each holds its own engine state (about
    /// 0.4 KB per job), so the default is 2, or 1 above 250,000 jobs.
    #[arg(long)]
    threads: Option<usize>,
    #[command(flatten)]
    elastic: super::simulate_elastic::ElasticArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Unplaceable {
    Skip,
    Error,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    crate::purge_freed_memory_at_once();
    let sink = args.output.resolve()?;
    if args.list {
        sink.table(&listing::table(&list()), render::DISPLAY_DIGITS, false)?;
        return Ok(0);
    }
    let mut options = args.options();
    if options.is_elastic() {
        check_outputs(&args, &super::simulate_elastic::OUT_FILES)?;
        let req = options.elastic_request(args.threads)?;
        let store = match &req.source {
            ElasticSource::Trace(..) => Some(args.store.open()?),
            _ => None,
        };
        let req = match &store {
            Some(store) if args.trace.is_none() => {
                options.trace = super::store::default_trace(store, "--trace")?;
                options.elastic_request(args.threads)?
            }
            _ => req,
        };
        return super::simulate_elastic::run(&req, store.as_ref(), args.out.as_deref(), &sink);
    }
    // Every option is checked before the store is opened (which may
    // ingest the bundled samples); then the trace, when not given.
    let mut planned = options.plan()?;
    check_outputs(&args, &OUT_FILES)?;
    let store = match &planned.0.source {
        Source::Trace(_) => Some(args.store.open()?),
        Source::Csv(_) => None,
    };
    if let (Some(store), None) = (&store, &args.trace) {
        options.trace = super::store::default_trace(store, "--trace")?;
        planned = options.plan()?;
    }
    let out = execute(&options, planned, store.as_ref(), args.threads, args.out.as_deref())?;
    if let Some(dir) = &args.out {
        write_outputs(dir, &out)?;
    }
    super::analyze::write(&out, None, &[], &sink)?;
    Ok(0)
}

impl Args {
    /// The replay's options as the library takes them (it checks them).
    fn options(&self) -> Options {
        let a = self;
        Options {
            trace: a.trace.clone().unwrap_or_else(|| Options::default().trace),
            jobs: a.jobs.clone(),
            policy: a.policy.join(","),
            placement: a.placement.iter().map(|p| p.name()).collect::<Vec<_>>().join(","),
            discipline: a.discipline.name().into(),
            predictor: a.predictor.name().into(),
            fair_by: a.fair_by.name().into(),
            preempt_overhead: a.preempt_overhead.clone(),
            share_slowdown: a.share_slowdown,
            interference: a.interference.clone(),
            online: a.online,
            online_util: a.online_util,
            online_mem: a.online_mem,
            online_profile: a.online_profile.clone(),
            default_gpu_util: a.default_gpu_util,
            default_gpu_mem: a.default_gpu_mem,
            max_tenants: a.max_tenants,
            online_bound: a.online_bound,
            window: a.selection.window.clone(),
            sample: a.selection.sample,
            seed: a.selection.seed,
            load: a.load.clone(),
            cluster: a.cluster.clone(),
            max_nodes: a.max_nodes,
            max_gpus: a.max_gpus,
            unplaceable_is_error: a.unplaceable.map(|u| u == Unplaceable::Error),
            until: a.until.clone(),
            elastic: a.elastic.options(),
        }
    }
}

/// Every policy, discipline, placement, predictor and option, as the
/// `--list` table `analyze` and `query` print (the kind in the scope column).
fn list() -> Vec<Entry> {
    let t = workload::catalog::table();
    t.rows
        .iter()
        .map(|row| {
            let text = |i: usize| match &row[i] {
                Cell::Str(s) => s.clone(),
                other => format!("{other:?}"),
            };
            Entry {
                name: text(1),
                scope: text(0),
                mirrors: text(2),
                tables: Vec::new(),
                params: Vec::new(),
                summary: text(3),
            }
        })
        .collect()
}

fn usage(msg: String) -> anyhow::Error {
    Error::Usage(msg).into()
}

/// Runs the plan; with `out`, per-job rows and series are written as each
/// run finishes, so only two runs' jobs are ever held.
fn execute(
    options: &Options,
    planned: (workload::Request, Vec<workload::RunSpec>),
    store: Option<&tracelab_store::Store>,
    threads: Option<usize>,
    out: Option<&Path>,
) -> anyhow::Result<Output> {
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).at(dir)?;
    }
    let mut jobs = out.map(|d| RunsWriter::create(&d.join("jobs.parquet"))).transpose()?;
    let mut series = out.map(|d| RunsWriter::create(&d.join("series.parquet"))).transpose()?;
    let result = options.replay(planned, store, threads, |p, run| {
        if let (Some(j), Some(s)) = (jobs.as_mut(), series.as_mut()) {
            j.write(&results::jobs_frame(p, &run.spec, &run.result)?)?;
            s.write(&results::series_frame(&run.spec, &run.result.series)?)?;
        }
        Ok(())
    })?;
    jobs.map(RunsWriter::finish).transpose()?;
    series.map(RunsWriter::finish).transpose()?;
    Ok(result)
}

/// The files `--out` gets, every one replaced whole (a new path or a
/// regular file; links and devices refused).
const OUT_FILES: [&str; 5] = ["jobs.parquet", "series.parquet", "summary.csv", "left-out.csv", "result.json"];

/// Refuses, before any replay, an `--out` that is a link or not a folder,
/// a file of it that cannot be replaced, and `-o` naming one of them.
fn check_outputs(a: &Args, names: &[&str]) -> anyhow::Result<()> {
    let Some(dir) = &a.out else { return Ok(()) };
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(usage(format!("--out {}: is a symbolic link; give the folder itself", dir.display())))
        }
        Ok(m) if !m.is_dir() => return Err(usage(format!("--out {}: is not a folder", dir.display()))),
        _ => {}
    }
    let files: Vec<PathBuf> = names.iter().map(|f| dir.join(f)).collect();
    if dir.is_dir() {
        for path in &files {
            outfile::check("--out", path, Replace::Regular)?;
        }
    }
    let mut outputs: Vec<(&str, &Path)> = files.iter().map(|p| ("--out", p.as_path())).collect();
    if let Some(o) = &a.output.output {
        outputs.push(("-o", o));
    }
    Ok(outfile::distinct(&outputs)?)
}

fn write_outputs(dir: &Path, out: &Output) -> anyhow::Result<()> {
    let write = |name: &str, text: String| outfile::write(&dir.join(name), text.as_bytes(), Replace::Regular);
    write("summary.csv", tracelab_present::csv::render(&render::tidy(out, Some("summary"))))?;
    write("left-out.csv", tracelab_present::csv::render(&render::tidy(out, Some("left-out"))))?;
    write("result.json", serde_json::to_string_pretty(&out.to_json())? + "\n")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    /// The defaults a user of the library (the Python package) gets are the command's.
    #[test]
    fn the_options_defaults_are_the_commands() {
        let cli = crate::cli::Cli::try_parse_from(["tracelab", "simulate"]).unwrap();
        let crate::cli::Command::Simulate(args) = cli.command else { panic!("not simulate") };
        assert_eq!(args.options(), Options::default());
    }
}
