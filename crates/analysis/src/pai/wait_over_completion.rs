//! `pai.wait-over-completion`: wait time over completion time for short and
//! long tasks (NSDI'22 Fig 4b, notebook A8), split at the median
//! mean-instance runtime.

use polars::prelude::*;

use super::frames;
use super::wait::WaitParams;
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::{collect, dist, dists_by, f64s, scalar, strs};
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
    const PUBLISHED: &'static [Published] =
        &[Published::new("short_over_half", 9.0, "%", SOURCE), Published::new("long_over_half", 3.0, "%", SOURCE)];

    fn definition(p: &WaitParams) -> String {
        format!(
            "pai/task joined (inner) to pai/job and to instance aggregates per task (dfa); ratio = 100 * wait / \
             (task end_time - task start_time); wait: {}; long = mean instance runtime > its median ({{median}} \
             s), short = <= median; rows with a null or NaN ratio dropped as upstream; +-inf (zero completion \
             time) counted in the shares and left out of the curves",
            p.wait.definition()
        )
    }

    fn run(ctx: &Ctx, p: &WaitParams, out: &mut Output) -> Result<()> {
        let wait = p.wait.column();
        let dfa = frames::tasks(ctx, &["runtime_i_s", "runtime_s", wait])?;
        let median =
            scalar(&collect(dfa.clone().select([col("runtime_i_s").median()]), "median runtime")?, "runtime_i_s")?;
        let ratio = (col(wait) / col("runtime_s") * lit(100.0)).alias("ratio");
        let class = when(col("runtime_i_s").gt(lit(median)))
            .then(lit("long"))
            .when(col("runtime_i_s").lt_eq(lit(median)))
            .then(lit("short"))
            .otherwise(lit(NULL).cast(DataType::String));
        let frame =
            dfa.select([ratio, class.alias("class")]).filter(col("ratio").is_not_nan().and(col("ratio").is_not_null()));
        let by_class = dists_by(frame.clone(), col("class"), col("ratio"), &["long", "short"], "wait over completion")?;
        let all = dist(frame.clone(), col("ratio"), "wait over completion")?;
        let shares = collect(
            frame.group_by([col("class")]).agg([col("ratio").gt(lit(50.0)).mean().alias("share")]),
            "wait over completion shares",
        )?;
        let share_of = |label: &str| -> Result<f64> {
            let classes = strs(&shares, "class")?;
            let values = f64s(&shares, "share")?;
            Ok(classes
                .iter()
                .zip(values)
                .find(|(c, _)| c.as_deref() == Some(label))
                .and_then(|x| x.1)
                .unwrap_or(f64::NAN))
        };
        let mut series = vec![by_class[0].clone(), ("all".to_string(), all)];
        series.push(by_class[1].clone());
        out.fill("median", median);
        out.dists("ratio", "wait / completion time (%)", series).headlines(
            "shares",
            vec![
                Headline::new(
                    "short_over_half",
                    "short tasks waiting > 50 % of completion",
                    100.0 * share_of("short")?,
                    "%",
                ),
                Headline::new(
                    "long_over_half",
                    "long tasks waiting > 50 % of completion",
                    100.0 * share_of("long")?,
                    "%",
                ),
            ],
        );
        Ok(())
    }
}
