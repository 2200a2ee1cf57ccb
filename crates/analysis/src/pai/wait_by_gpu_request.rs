//! `pai.wait-by-gpu-request`: queueing delay per GPU-request bin, and
//! GPU-sharing against whole-GPU tasks (NSDI'22 Fig 5a, notebook A9).

use polars::prelude::*;

use super::frames;
use super::wait::{gpu_bin, quantile_table, WaitParams, GPU_BINS};
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::dists_by;
use crate::output::{Headline, Output};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct WaitByGpuRequest;

impl Analyze for WaitByGpuRequest {
    type Params = WaitParams;
    const ABOUT: About = About {
        id: "pai.wait-by-gpu-request",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 5a (notebook A9)",
        summary: "queueing delay CDF per GPU-request bin, and GPU-sharing vs whole-GPU P90",
        title: "Queueing delay by GPU request",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 5a, notebook cell A9.

- **Reads** `dfa`: `plan_gpu_pct` (per instance, % of one GPU) and the wait.
- **Computes** the wait distribution (seconds) per bin of `plan_gpu_pct`: < 25, [25, 50),
  [50, 100), = 100 ("1 GPU"), > 100 ("> 1 GPU"). Part `by-bin`. Part `sharing` splits the tasks
  with a `plan_gpu_pct` into *sharing* (< 100) and *whole GPU* (≥ 100). Part `quantiles`: tasks, P50,
  P90, P99 per series. Null waits are dropped. Waits of 0 s are kept (upstream's log axis hides
  them).
- **Headlines:** P90 wait of sharing tasks; share of whole-GPU tasks waiting more than 1000 s.
- **Published:** P90 of 497 s for GPU-sharing tasks; about 10 % of the others wait more than
  1000 s (NSDI'22 Sec 3.2).
- **Differences:** none in the bins. The sharing split is tracelab's reading of the paper's
  "sharing" vs "non-sharing".
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("sharing_p90", 497.0, "s", "NSDI'22 Sec 3.2"),
        Published::new("whole_over_1000", 10.0, "%", "NSDI'22 Sec 3.2"),
    ];

    fn definition(p: &WaitParams) -> String {
        format!(
            "dfa (one row per task with instances); wait: {}; bins on the per-instance plan_gpu_pct (% of one GPU): \
             <25, [25,50), [50,100), ==100, >100; sharing = plan_gpu_pct < 100; null waits dropped; waits of 0 s are \
             in the data but fall off the log axis upstream",
            p.wait.definition()
        )
    }

    fn run(ctx: &Ctx, p: &WaitParams, out: &mut Output) -> Result<()> {
        let wait = p.wait.column();
        let dfa = frames::tasks(ctx, &["plan_gpu_pct", wait])?;
        let series = dists_by(dfa.clone(), gpu_bin(), col(wait), &GPU_BINS, "wait by GPU request")?;
        let sharing =
            when(col("plan_gpu_pct").lt(lit(100.0))).then(lit("sharing (<1 GPU)")).otherwise(lit("whole GPU (>=1)"));
        let labels = ["sharing (<1 GPU)", "whole GPU (>=1)"];
        let split =
            dists_by(dfa.filter(col("plan_gpu_pct").is_not_null()), sharing, col(wait), &labels, "sharing split")?;
        let mut table = quantile_table(&series);
        for row in quantile_table(&split).rows {
            table.push(row);
        }
        out.dists("by-bin", "queueing delay (s)", series)
            .dists("sharing", "queueing delay (s)", split.clone())
            .table("quantiles", table);
        out.headlines(
            "ratios",
            vec![
                Headline::new("sharing_p90", "P90 wait, GPU-sharing tasks", split[0].1.quantile(0.9), "s"),
                Headline::new(
                    "whole_over_1000",
                    "whole-GPU tasks waiting > 1000 s",
                    100.0 * split[1].1.share_above(1000.0),
                    "%",
                ),
            ],
        );
        Ok(())
    }
}
