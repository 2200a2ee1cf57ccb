//! `pai.wait-over-completion`: wait time over completion time for short and
//! long tasks (NSDI'22 Fig 4b, notebook A8), split at the median
//! mean-instance runtime.

use polars::prelude::*;

use super::frames;
use super::wait::WaitParams;
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::{collect, dist, dists_by, scalar};
use crate::output::{Headline, Output};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct WaitOverCompletion;

const SOURCE: &str = "NSDI'22 Sec 3.2 (Fig 4b)";

impl Analyze for WaitOverCompletion {
    type Params = WaitParams;
    const ABOUT: About = About {
        id: "pai.wait-over-completion",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 4b (notebook A8)",
        summary: "wait / completion time for short vs long tasks (split at the median mean-instance runtime)",
        title: "Wait time over completion time, short vs long tasks",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 4b, notebook cell A8.

- **Reads** `dfa`: the wait, `runtime` (task end minus task start) and `runtime_i`.
- **Computes** ratio = 100 × wait / `runtime` per task. Tasks are *long* when `runtime_i` is
  above its median over `dfa`, *short* when at or below it. Part `ratio` has three distributions
  (long, all, short); *all* is every task with a ratio, including those without a `runtime_i`
  (the notebook's middle curve). Headlines: the share of short tasks, of long tasks and of all
  tasks whose ratio is above 50 % (`short_over_half`, `long_over_half`, `all_over_half`).
- **Null and infinite ratios.** Tasks with a null or NaN ratio are dropped, as upstream. A ratio
  of ±infinity (zero completion time) counts in the headline shares (+∞ is above 50 %) and is left
  out of the curves.
- **Published:** 9 % of short tasks and 3 % of long tasks wait more than half their completion
  time (NSDI'22 Sec 3.2; consistent with the notebook's image).
- **Differences:** tasks whose raw `end_time` is 0 have a null completion time here and drop
  out; upstream gives them a negative one, which enters its curves and denominators.
"##;
    const PUBLISHED: &'static [Published] =
        &[Published::new("short_over_half", 9.0, "%", SOURCE), Published::new("long_over_half", 3.0, "%", SOURCE)];

    fn definition(p: &WaitParams) -> String {
        format!(
            "pai/task joined (inner) to pai/job and to instance aggregates per task (dfa); ratio = 100 * wait / \
             (task end_time - task start_time); wait: {}; long = mean instance runtime > its median ({{median}} \
             s), short = <= median; all = every task with a ratio, those without a mean instance runtime \
             included (the notebook's middle curve); rows with a null or NaN ratio dropped as upstream; +-inf \
             (zero completion time) counted in the shares and left out of the curves",
            p.wait.definition()
        )
    }

    fn run(ctx: &Ctx, p: &WaitParams, out: &mut Output) -> Result<()> {
        let wait = p.wait.column();
        let dfa = frames::tasks(ctx, &["runtime_i_s", "runtime_s", wait])?;
        let median =
            scalar(&collect(dfa.clone().select([col("runtime_i_s").median()]), "median runtime")?, "runtime_i_s")?;
        let frame = ratios(dfa, wait, median);
        let by_class = dists_by(frame.clone(), col("class"), col("ratio"), &["long", "short"], "wait over completion")?;
        let all = dist(frame.clone(), col("ratio"), "wait over completion")?;
        let [short, long, every] = over_half(frame)?;
        let mut series = vec![by_class[0].clone(), ("all".to_string(), all)];
        series.push(by_class[1].clone());
        out.fill("median", median);
        out.dists("ratio", "wait / completion time (%)", series).headlines(
            "shares",
            vec![
                Headline::new("short_over_half", "short tasks waiting > 50 % of completion", short, "%"),
                Headline::new("long_over_half", "long tasks waiting > 50 % of completion", long, "%"),
                Headline::new("all_over_half", "all tasks waiting > 50 % of completion", every, "%"),
            ],
        );
        Ok(())
    }
}

/// Per task of `dfa`: `ratio` = 100 * wait / completion time and `class`
/// long (mean instance runtime above `median`), short (at or below it) or
/// null (no mean instance runtime); null and NaN ratios dropped.
fn ratios(dfa: LazyFrame, wait: &str, median: f64) -> LazyFrame {
    let ratio = (col(wait) / col("runtime_s") * lit(100.0)).alias("ratio");
    let class = when(col("runtime_i_s").gt(lit(median)))
        .then(lit("long"))
        .when(col("runtime_i_s").lt_eq(lit(median)))
        .then(lit("short"))
        .otherwise(lit(NULL).cast(DataType::String));
    dfa.select([ratio, class.alias("class")]).filter(col("ratio").is_not_nan().and(col("ratio").is_not_null()))
}

/// The share (%) of short, long and all tasks whose ratio is above 50; NaN
/// for a class without tasks.
fn over_half(frame: LazyFrame) -> Result<[f64; 3]> {
    let over = || col("ratio").gt(lit(50.0));
    let of = |class: &str| over().filter(col("class").eq(lit(class.to_string()))).mean().alias(class);
    let df =
        collect(frame.select([of("short"), of("long"), over().mean().alias("all")]), "wait over completion shares")?;
    Ok([100.0 * scalar(&df, "short")?, 100.0 * scalar(&df, "long")?, 100.0 * scalar(&df, "all")?])
}
