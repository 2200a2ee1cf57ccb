//! `pai.task-share-by-gpu`: the share of tasks per GPU-request bin and per
//! GPU type (NSDI'22 Fig 5c, notebook A11).

use polars::prelude::*;

use super::frames;
use super::wait::{gpu_bin, GPU_BINS, GPU_TYPES};
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::{collect, i64s, scalar, strs};
use crate::output::{Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct TaskShareByGpu;

/// Read off the notebook's Fig 5c image
/// (`docs/definitions.md#paitask-share-by-gpu`): approximate.
const SOURCE: &str = "notebook Fig 5c image (approximate)";

impl Analyze for TaskShareByGpu {
    type Params = ();
    const ABOUT: About = About {
        id: "pai.task-share-by-gpu",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 5c (notebook A11)",
        summary: "share of tasks per GPU-request bin and per GPU type",
        title: "Share of tasks by GPU request and GPU type",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 5c, notebook cell A11.

- **Reads** `dfa`: `plan_gpu_pct` and `gpu_type`.
- **Computes** 100 × (tasks in the bin, or of the type) / (tasks with a `plan_gpu_pct`), for the five
  request bins of [pai.wait-by-gpu-request](#paiwait-by-gpu-request) and the five GPU types.
  Part `shares` (a table with the published value beside each share) and one headline per row.
- **Published:** read off the notebook's bar chart, so approximate: < 25 %: 15, [25, 50): 26,
  [50, 100): 13, 1 GPU: 43, > 1 GPU: 3; T4 22, MISC 67, P100 7, V100 3, V100M32 2 (percent).
- **Differences:** tracelab counts only tasks with a `plan_gpu_pct` in both panels. Upstream uses
  that denominator for both panels too, but its type counts include tasks without a `plan_gpu_pct`.
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("GPU request: <25%", 15.0, "%", SOURCE),
        Published::new("GPU request: 25-50%", 26.0, "%", SOURCE),
        Published::new("GPU request: 50-100%", 13.0, "%", SOURCE),
        Published::new("GPU request: 1 GPU", 43.0, "%", SOURCE),
        Published::new("GPU request: >1 GPU", 3.0, "%", SOURCE),
        Published::new("GPU type: T4", 22.0, "%", SOURCE),
        Published::new("GPU type: MISC", 67.0, "%", SOURCE),
        Published::new("GPU type: P100", 7.0, "%", SOURCE),
        Published::new("GPU type: V100", 3.0, "%", SOURCE),
        Published::new("GPU type: V100M32", 2.0, "%", SOURCE),
    ];

    fn definition(_: &()) -> String {
        "dfa; share = 100 * tasks in the bin (or of the type) / tasks with a non-null plan_gpu_pct \
         (the notebook's denominator for both panels); bins on the per-instance plan_gpu_pct"
            .into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let dfa = frames::tasks(ctx, &["plan_gpu_pct", "gpu_type"])?.filter(col("plan_gpu_pct").is_not_null());
        let counts = |by: Expr, what: &str| -> Result<DataFrame> {
            collect(dfa.clone().group_by([by.alias("k")]).agg([len().alias("n")]), what)
        };
        let total = scalar(&collect(dfa.clone().select([len().alias("n")]), "task count")?, "n")?;
        let bins = counts(gpu_bin(), "tasks per bin")?;
        let types = counts(col("gpu_type"), "tasks per type")?;
        let mut table = ResultTable::new(&["group", "label", "tasks", "share_pct", "published_pct"]);
        let mut headlines = Vec::new();
        for (group, df, labels) in [("GPU request", &bins, &GPU_BINS), ("GPU type", &types, &GPU_TYPES)] {
            let keys = strs(df, "k")?;
            let ns = i64s(df, "n")?;
            for label in labels {
                let n =
                    keys.iter().zip(&ns).find(|(k, _)| k.as_deref() == Some(*label)).and_then(|x| *x.1).unwrap_or(0);
                let share = 100.0 * n as f64 / total;
                let key = format!("{group}: {label}");
                let published = Published::lookup(Self::PUBLISHED, &key);
                table.push(vec![group.into(), (*label).into(), n.into(), share.into(), published.into()]);
                headlines.push(Headline::new(&key, &format!("tasks, {group} {label}"), share, "%"));
            }
        }
        out.table("shares", table).headlines("published", headlines);
        Ok(())
    }
}
