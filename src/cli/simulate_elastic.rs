//! `tracelab simulate` with elastic policies (pollux, optimus, tiresias):
//! the options of Pollux's simulator, parsed into a
//! `tracelab_workload::pollux::run::ElasticRequest`; the replay itself is
//! the library's. An elastic replay is chosen by its policies or its
//! source: a Pollux workload CSV (header `name,time,application,
//! num_replicas,batch_size`), a shipped artifact workload (`--jobs
//! artifact:6`) or `--recipe pollux` on a trace.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use tracelab_analysis::render;
use tracelab_schema::error::{Error, IoContext};
use tracelab_schema::outfile::{self, Replace};
use tracelab_sim::elastic::workload::is_pollux_header;
use tracelab_sim::elastic::{ElasticConfig, ElasticPolicyName};
use tracelab_sim::Policy;
use tracelab_workload::pollux::recipe::Recipe;
use tracelab_workload::pollux::run::{self, ElasticRequest, Sweep};
use tracelab_workload::pollux::ElasticSource;
use tracelab_workload::{select, TraceSel};

use super::output::Sink;

/// Options of elastic replays (docs/simulate-elastic.md).
#[derive(Debug, Clone, clap::Args)]
pub struct ElasticArgs {
    /// With --trace: build the workload by a named recipe. `pollux`: Pollux's
    /// generator (jobs of at least 60 s under 1,000 GPU-hours submitted at
    /// hours [--start, --start + --duration) of every day, applications by
    /// GPU-hours; --sample jobs, default 160).
    #[arg(long, value_name = "NAME")]
    recipe: Option<String>,
    /// Recipe: hours to shift submissions back before taking hours of the day.
    #[arg(long, default_value_t = 2)]
    start: u32,
    /// Recipe: hours of the day kept.
    #[arg(long, default_value_t = 8)]
    duration: u32,
    /// Recipe: keep the trace's GPU counts (smallest batch per GPU) instead
    /// of TunedJobs configurations.
    #[arg(long, conflicts_with = "tuned")]
    realistic: bool,
    /// Recipe: TunedJobs configurations (the default).
    #[arg(long)]
    tuned: bool,
    /// Elastic: time between scheduling rounds, comma-separated for a sweep (e.g. 30s,1m,2m).
    #[arg(long, default_value = "60s", value_name = "LIST")]
    interval: String,
    /// Elastic: time a job restarts after each re-allocation.
    #[arg(long, default_value = "30s")]
    restart_delay: String,
    /// Elastic: let pollux put two multi-node jobs on one node (Fig 8c's
    /// "no avoidance").
    #[arg(long)]
    no_interference_avoidance: bool,
    /// Elastic: fairness exponent p of pollux's generalised mean (<= 1).
    #[arg(long, default_value_t = -1.0, allow_hyphen_values = true)]
    fairness_p: f64,
}

/// The options `simulate` shares with elastic replays (its outputs
/// already checked against [`OUT_FILES`]).
pub struct Common<'a> {
    pub store: &'a Option<PathBuf>,
    pub trace: &'a String,
    pub jobs: &'a Option<PathBuf>,
    pub policy: &'a String,
    pub sample: Option<usize>,
    pub seed: u64,
    pub load: &'a String,
    pub cluster: &'a String,
    pub until: &'a Option<String>,
    pub out: &'a Option<PathBuf>,
    pub threads: Option<usize>,
    /// `--interference`: slowdown levels of an elastic replay.
    pub interference: &'a String,
    pub elastic: &'a ElasticArgs,
}

/// Whether the invocation is an elastic replay.
pub fn wanted(policy: &str, jobs: Option<&Path>, e: &ElasticArgs) -> bool {
    let elastic_name = policy.split(',').any(|p| p.trim().parse::<ElasticPolicyName>().is_ok());
    elastic_name || e.recipe.is_some() || jobs.is_some_and(|p| is_artifact(p) || pollux_csv(p))
}

fn is_artifact(p: &Path) -> bool {
    p.to_str().is_some_and(|s| s.starts_with("artifact:"))
}

/// Whether the file's header is Pollux's (an unreadable file is left to the reader's error).
fn pollux_csv(path: &Path) -> bool {
    let Ok(f) = std::fs::File::open(path) else { return false };
    let mut line = String::new();
    std::io::BufReader::new(f).read_line(&mut line).is_ok() && is_pollux_header(&line)
}

/// What `--out` holds after an elastic replay.
pub const OUT_FILES: [&str; 3] = ["summary.csv", "jobs.csv", "result.json"];

fn usage(msg: String) -> anyhow::Error {
    Error::Usage(msg).into()
}

pub fn run(a: &Common, sink: &Sink) -> anyhow::Result<i32> {
    let req = request(a)?;
    let store = match &req.source {
        ElasticSource::Trace(..) => Some(super::store::resolve(a.store.as_ref())?),
        _ => None,
    };
    let (out, runs) = run::replay(store.as_ref(), &req)?;
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).at(dir)?;
        let write = |name: &str, text: String| outfile::write(&dir.join(name), text.as_bytes(), Replace::Regular);
        write("summary.csv", tracelab_present::csv::render(&render::tidy(&out, Some("summary"))))?;
        let mut jobs = tracelab_analysis::Output::new("jobs", "per job", "");
        jobs.table("jobs", run::jobs_table(&runs));
        write("jobs.csv", tracelab_present::csv::render(&render::tidy(&jobs, Some("jobs"))))?;
        write("result.json", serde_json::to_string_pretty(&out.to_json())? + "\n")?;
    }
    super::analyze::write(&out, None, sink)?;
    Ok(0)
}

fn request(a: &Common) -> anyhow::Result<ElasticRequest> {
    let policies: Vec<ElasticPolicyName> = a
        .policy
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<ElasticPolicyName>().map_err(|e| {
                let rigid = s.parse::<Policy>().is_ok();
                let why = if rigid { " (a rigid policy: it replays trace jobs, not an elastic workload)" } else { "" };
                usage(format!("--policy {s}: {e}{why}"))
            })
        })
        .collect::<anyhow::Result<_>>()?;
    if policies.is_empty() {
        return Err(usage("--policy: expected pollux, optimus or tiresias".into()));
    }
    let e = &a.elastic;
    let source = source(a)?;
    let (nodes, gpus) = match a.cluster.as_str() {
        "from-trace" => (16, 4),
        raw => match tracelab_workload::ClusterSpec::parse(raw)? {
            tracelab_workload::ClusterSpec::Shape { nodes, gpus } => (nodes, gpus),
            _ => return Err(usage(format!("--cluster {raw}: elastic replays take NODESxGPUS (default 16x4)"))),
        },
    };
    let span = |opt: &str, raw: &str| {
        select::parse_span(raw).ok_or_else(|| usage(format!("--{opt} {raw}: expected a duration such as 60s or 2m")))
    };
    let intervals = e.interval.split(',').map(|r| span("interval", r.trim())).collect::<anyhow::Result<Vec<_>>>()?;
    // `--interference` is shared with the rigid replays, whose default is
    // `constant`: for an elastic replay that default means no slowdown.
    let raw = if a.interference.as_str() == "constant" { "0" } else { a.interference.as_str() };
    let levels = raw
        .split(',')
        .map(|r| r.trim().parse::<f64>().ok().filter(|x| (0.0..1.0).contains(x)))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| {
            usage(format!(
                "--interference {}: an elastic replay expects slowdowns in [0, 1), comma-separated",
                a.interference
            ))
        })?;
    let loads = a.load.split(',').map(select::parse_load).collect::<Result<Vec<f64>, _>>()?;
    let base = ElasticConfig {
        restart_delay: span("restart-delay", &e.restart_delay)?,
        fairness_p: e.fairness_p,
        until: a.until.as_deref().map(|u| span("until", u)).transpose()?,
        ..ElasticConfig::default()
    };
    base.validate().map_err(|err| usage(err.to_string()))?;
    let sweep = Sweep {
        policies,
        loads,
        intervals,
        interference: levels.into_iter().map(|l| (l, !e.no_interference_avoidance)).collect(),
    };
    Ok(ElasticRequest { source, nodes, gpus, sweep, base, threads: a.threads.unwrap_or(2) })
}

fn source(a: &Common) -> anyhow::Result<ElasticSource> {
    let e = &a.elastic;
    if let Some(path) = &a.jobs {
        if e.recipe.is_some() {
            return Err(usage("--recipe builds a workload from --trace, not from --jobs".into()));
        }
        return Ok(match path.to_str() {
            Some(s) if s.starts_with("artifact:") => ElasticSource::parse_artifact(s)?,
            _ => ElasticSource::Csv(path.clone()),
        });
    }
    match e.recipe.as_deref() {
        Some("pollux") => {}
        Some(other) => return Err(usage(format!("--recipe {other}: the recipe known is pollux"))),
        None => {
            return Err(usage(
                "elastic policies need an elastic workload: --jobs FILE.csv (Pollux's columns name,time,application,\
                 num_replicas,batch_size), --jobs artifact:N, or --trace T --recipe pollux"
                    .into(),
            ))
        }
    }
    let recipe = Recipe {
        jobs: a.sample.unwrap_or(160),
        start_h: e.start,
        duration_h: e.duration,
        seed: a.seed,
        tuned: !e.realistic,
    };
    Ok(ElasticSource::Trace(TraceSel::parse(&a.trace)?, recipe))
}
