//! `--window`, `--sample` and `--seed`, declared once for the verbs that take
//! a trace's jobs out as a workload (`export`; `simulate` keeps its own
//! until its options move to `tracelab_workload::options`), with the check
//! that a sample holds at least one job.

use tracelab_schema::error::Error;
use tracelab_workload::{Selection, Window};

/// Which jobs of the trace: a window, then a sample of it.
#[derive(Debug, Clone, clap::Args)]
pub struct SelectionArgs {
    /// FROM..TO (RFC 3339 or offsets from the trace start, e.g. 3h..11h), busiest:DURATION, or all.
    #[arg(long, default_value = "all")]
    pub window: String,
    /// Take N jobs of the window, drawn uniformly without replacement.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Seed of --sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl SelectionArgs {
    /// The validated selection; `--sample 0` is a usage error.
    pub fn selection(&self) -> Result<Selection, Error> {
        if self.sample == Some(0) {
            return Err(Error::Usage("--sample 0: expected at least one job".into()));
        }
        Ok(Selection { window: Window::parse(&self.window)?, sample: self.sample, seed: self.seed })
    }
}
