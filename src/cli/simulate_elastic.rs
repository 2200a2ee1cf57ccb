//! `tracelab simulate` with elastic policies (pollux, optimus, tiresias):
//! the options of Pollux's simulator (checked and turned into a request by
//! `tracelab_workload::options::elastic`, which the Python package calls
//! too); the replay itself is the library's. This file holds the options'
//! flags and writes `--out`.

use std::path::Path;

use tracelab_analysis::render;
use tracelab_schema::error::IoContext;
use tracelab_schema::outfile::{self, Replace};
use tracelab_store::Store;
use tracelab_workload::options::elastic::ElasticOptions;
use tracelab_workload::pollux::run::{self, ElasticRequest};

use super::output::Sink;

/// Options of elastic replays (docs/simulate-elastic.md).
#[derive(Debug, Clone, clap::Args)]
pub struct ElasticArgs {
    /// With --trace: build the workload by a named recipe. `pollux`: Pollux's
    /// generator (jobs of at least 60 s under 1,000 GPU-hours submitted at
    /// hours [--start, --start + --duration) of every day, applications by
    /// GPU-hours; --sample jobs, default 160).
    #[arg(long, value_name = "NAME", value_parser = ["pollux"])]
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

impl ElasticArgs {
    /// The options as the library takes them.
    pub fn options(&self) -> ElasticOptions {
        ElasticOptions {
            recipe: self.recipe.clone(),
            start: self.start,
            duration: self.duration,
            realistic: self.realistic,
            interval: self.interval.clone(),
            restart_delay: self.restart_delay.clone(),
            no_interference_avoidance: self.no_interference_avoidance,
            fairness_p: self.fairness_p,
        }
    }
}

/// What `--out` holds after an elastic replay.
pub const OUT_FILES: [&str; 3] = ["summary.csv", "jobs.csv", "result.json"];

/// Replays `req` (`store` is given for a recipe over a trace), writes
/// `out`'s files and prints the summary.
pub fn run(req: &ElasticRequest, store: Option<&Store>, out: Option<&Path>, sink: &Sink) -> anyhow::Result<i32> {
    let (result, runs) = run::replay(store, req)?;
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).at(dir)?;
        let write = |name: &str, text: String| outfile::write(&dir.join(name), text.as_bytes(), Replace::Regular);
        write("summary.csv", tracelab_present::csv::render(&render::tidy(&result, Some("summary"))))?;
        let mut jobs = tracelab_analysis::Output::new("jobs", "per job", "");
        jobs.table("jobs", run::jobs_table(&runs));
        write("jobs.csv", tracelab_present::csv::render(&render::tidy(&jobs, Some("jobs"))))?;
        write("result.json", serde_json::to_string_pretty(&result.to_json())? + "\n")?;
    }
    super::analyze::write(&result, None, &[], sink)?;
    Ok(0)
}
