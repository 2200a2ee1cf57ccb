//! `pai.gang-size`: the share of instances in tasks with at least N
//! instances (NSDI'22 Fig 2b, notebook A2: `get_inst_task_num_ratio`).

use polars::prelude::*;

use super::frames;
use crate::declare::{About, Analyze, Scope};
use crate::frame::{collect, i64s};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct GangSize;

impl Analyze for GangSize {
    type Params = ();
    const ABOUT: About = About {
        id: "pai.gang-size",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 2b (notebook A2)",
        summary: "share of instances in tasks with at least N instances, N = 2..600",
        title: "Instances in gang tasks",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 2b, notebook cell A2.

- **Reads** `dfa.inst_num`.
- **Computes**, for each threshold N in 2, 4, ..., 298 and then 300, 320, ..., 600 (165 values),
  100 × (sum of `inst_num` over tasks with `inst_num` ≥ N) / (sum of `inst_num` over all tasks):
  the share of instances that belong to tasks of at least N instances. Part `share`, a curve.
- **Published:** the paper's "about 85 % of instances are in gang tasks" is checked by
  [pai.gang-and-constraints](#paigang-and-constraints).
- **Differences:** none. (The notebook also computes the task share per threshold but does not
  plot it; tracelab does not output it.)
"##;

    fn definition(_: &()) -> String {
        "dfa; for N in 2,4,..,298,300,320,..,600: 100 * sum(inst_num of tasks with inst_num >= N) / \
         sum(inst_num) (the notebook's num_inst_ratio)"
            .into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let counts = frames::tasks(ctx, &["inst_num"])?.group_by([col("inst_num")]).agg([len().alias("tasks")]);
        let df = collect(counts, "tasks per inst_num")?;
        let pairs: Vec<(i64, i64)> =
            i64s(&df, "inst_num")?.into_iter().zip(i64s(&df, "tasks")?).filter_map(|(a, b)| Some((a?, b?))).collect();
        let total: i64 = pairs.iter().map(|(n, t)| n * t).sum();
        let curve = gang_thresholds()
            .into_iter()
            .map(|i| {
                let at_least: i64 = pairs.iter().filter(|(n, _)| *n >= i).map(|(n, t)| n * t).sum();
                (i as f64, 100.0 * at_least as f64 / total as f64)
            })
            .collect();
        out.curves(
            "share",
            "instances in the task (at least)",
            "share of instances (%)",
            vec![("instances".into(), curve)],
        );
        Ok(())
    }
}

/// The notebook's thresholds: `range(2,300,2) + range(300,620,20)`.
fn gang_thresholds() -> Vec<i64> {
    (2..300).step_by(2).chain((300..620).step_by(20)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thresholds: 2..298 step 2 is 149 values, 300..600 step 20 is 16.
    #[test]
    fn gang_thresholds_match_the_notebook() {
        let t = gang_thresholds();
        assert_eq!(t.len(), 165);
        assert_eq!((t[0], t[148], t[149], t[164]), (2, 298, 300, 600));
    }
}
