//! `--window`, `--sample` and `--seed`, declared once for the verbs that take
//! a trace's jobs out as a workload (`export`, `simulate`); the values are
//! checked by `tracelab_workload::options`, as the Python package's are.

use tracelab_schema::error::Error;
use tracelab_workload::Selection;

/// Which jobs of the trace: a window, then a sample of it.
#[derive(Debug, Clone, clap::Args)]
pub struct SelectionArgs {
    /// FROM..TO (RFC 3339 or offsets from the trace start, e.g. 3h..11h), busiest:DURATION, or all.
    #[arg(long, default_value = "all")]
    pub window: String,
    /// Take N jobs of the window, drawn uniformly without replacement.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Seed of --sample (and of simulate's random placement).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl SelectionArgs {
    /// The validated selection (`--sample 0` is a usage error).
    pub fn selection(&self) -> Result<Selection, Error> {
        tracelab_workload::options::selection(&self.window, self.sample, self.seed)
    }
}
