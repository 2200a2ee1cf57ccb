//! `philly.runtime-by-size`: job runtime per GPU bucket (ATC'19 Fig 2, the
//! notebook's 'Job Runtimes' cell), in minutes.

use polars::prelude::*;

use super::clock::{Clock, CLOCK};
use super::jobs::{dists_in_order, labelled};
use super::{bucket, BUCKETS};
use crate::declare::{About, Analyze, Scope};
use crate::frame::collect;
use crate::output::Output;
use crate::params::params;
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::philly::JOBS;

params! {
    pub struct RuntimeParams {
        pub clock: Clock = CLOCK,
    }
}

pub struct RuntimeBySize;

impl Analyze for RuntimeBySize {
    type Params = RuntimeParams;
    const ABOUT: About = About {
        id: "philly.runtime-by-size",
        scope: Scope::Philly,
        mirrors: "ATC'19 Fig 2 (notebook 'Job Runtimes')",
        summary: "Job runtime CDF (minutes) per GPU-count bucket 1, 2-4, 5-8, >8",
        title: "Job runtime by GPU count (ATC'19 Fig 2)",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors ATC'19 Fig 2, notebook P1 ("Job Runtimes").

- **Reads** `philly/jobs`: `gpus` (first attempt) and `run_s` (`clock=utc`) or the first start
  and last end (`clock=wall`).
- **Computes** the runtime distribution in **minutes** per GPU bucket (1, 2-4, 5-8, > 8 GPU), over
  jobs of every status that have a runtime (first start and last end both known). Part
  `by-size`.
- **Published:** none (figure only).
- **Differences:** with the default `clock=utc`, jobs spanning the 2017-11-05 fall-back run 60
  minutes longer than in the notebook; `clock=wall` gives the notebook's numbers.
"##;

    fn definition(p: &RuntimeParams) -> String {
        format!(
            "philly/jobs, every status; runtime = last attempt end - first attempt start (run_s, spanning \
             retries and the gaps between them), in MINUTES as the notebook plots it; jobs whose first start or \
             last end is missing have no runtime and are skipped; GPU count = GPUs of the FIRST attempt, bucketed \
             1, 2-4, 5-8, >8 (0 GPUs or no attempts: skipped). CDF convention: i-th of n sorted at 100*i/(n-1). \
             {}",
            p.clock.note()
        )
    }

    /// P1: every job (any status) with a runtime, by GPU bucket.
    fn run(ctx: &Ctx, p: &RuntimeParams, out: &mut Output) -> Result<()> {
        let lf = ctx.store.scan(&JOBS)?.select([bucket(col("gpus")).alias("b"), p.clock.run_minutes().alias("v")]);
        let df = collect(lf, "philly.runtime-by-size")?;
        let samples = labelled(&df, "b", "v")?;
        out.dists("by-size", "Runtime (min)", dists_in_order(samples, &BUCKETS));
        Ok(())
    }
}
