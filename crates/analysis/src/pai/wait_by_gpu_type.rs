//! `pai.wait-by-gpu-type`: queueing delay per assigned GPU type, and V100
//! against the low-end types (NSDI'22 Fig 5b, notebook A10).

use polars::prelude::*;

use super::frames;
use super::wait::{quantile_table, WaitParams, GPU_TYPES};
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::{dist, dists_by};
use crate::output::{Headline, Output};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct WaitByGpuType;

impl Analyze for WaitByGpuType {
    type Params = WaitParams;
    const ABOUT: About = About {
        id: "pai.wait-by-gpu-type",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 5b (notebook A10)",
        summary: "queueing delay CDF per assigned GPU type; V100 vs low-end P90",
        title: "Queueing delay by GPU type",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 5b, notebook cell A10.

- **Reads** `dfa`: `gpu_type` and the wait.
- **Computes** the wait distribution (seconds) per GPU type T4, MISC, P100, V100, V100M32. The
  type is the task table's `gpu_type`, the type the task was placed on, not the type it asked for
  (`gpu_type_spec`). Part `by-type`, and part `quantiles` (P50, P90, P99). Null waits dropped.
- **Headlines:** P90 wait of V100 tasks; P90 wait of low-end tasks (T4, P100 and MISC pooled).
- **Published:** V100 P90 13,709 s against 360 s for low-end GPUs (NSDI'22 Sec 3.2).
- **Differences:** none; the low-end pool is tracelab's reading of the paper's "low-end GPUs".
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("v100_p90", 13_709.0, "s", "NSDI'22 Sec 3.2"),
        Published::new("low_end_p90", 360.0, "s", "NSDI'22 Sec 3.2"),
    ];

    fn definition(p: &WaitParams) -> String {
        format!(
            "dfa; series by the GPU type ASSIGNED to the task (pai/task gpu_type), not the requested one; wait: \
             {}; null waits dropped; low-end = T4, P100 and MISC together",
            p.wait.definition()
        )
    }

    fn run(ctx: &Ctx, p: &WaitParams, out: &mut Output) -> Result<()> {
        let wait = p.wait.column();
        let dfa = frames::tasks(ctx, &["gpu_type", wait])?;
        let series = dists_by(dfa.clone(), col("gpu_type"), col(wait), &GPU_TYPES, "wait by GPU type")?;
        let t = || col("gpu_type");
        let low_end = t().eq(lit("T4")).or(t().eq(lit("P100"))).or(t().eq(lit("MISC")));
        let low = dist(dfa.filter(low_end), col(wait), "low-end wait")?;
        let v100 = series[3].1.quantile(0.9);
        out.table("quantiles", quantile_table(&series));
        out.dists("by-type", "queueing delay (s)", series);
        out.headlines(
            "ratios",
            vec![
                Headline::new("v100_p90", "P90 wait, V100 tasks", v100, "s"),
                Headline::new("low_end_p90", "P90 wait, low-end GPU tasks (T4, P100, MISC)", low.quantile(0.9), "s"),
            ],
        );
        Ok(())
    }
}
