//! `pai.submissions-by-hour`: tasks submitted per hour of day as box
//! statistics over complete days (NSDI'22 Fig 3b, notebook A4:
//! `get_hourly_task_request`).

use polars::prelude::*;

use super::frames;
use super::hourly::by_hour_boxes;
use crate::declare::{About, Analyze, Scope};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct SubmissionsByHour;

impl Analyze for SubmissionsByHour {
    type Params = ();
    const ABOUT: About = About {
        id: "pai.submissions-by-hour",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 3b (notebook A4)",
        summary: "tasks submitted per hour of day: box statistics over complete days",
        title: "Tasks submitted by hour of day",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 3b, notebook cell A4.

- **Reads** `dfa.start_time`.
- **Computes** tasks per (local date, local hour). Dates that miss any of the 24 hours are
  dropped, as the notebook does ("not a typical day"). Then, per hour of day, box statistics over
  the remaining dates: quartiles (linear), whiskers at the most extreme values within 1 × IQR of
  the box (seaborn `whis=1`), the mean, and `above_mean` = whether that hour's mean is at least
  the mean over all (date, hour) values (the boxes the notebook colours). Fliers are not drawn
  upstream and not output. Part `boxes`, a table.
- **Published:** none.
- **Differences:** none.
"##;

    fn definition(_: &()) -> String {
        "dfa, task start_time in Asia/Shanghai; tasks per (date, hour); dates missing any hour dropped \
         (the notebook's dropna); box per hour of day over the remaining dates, quartiles by linear \
         interpolation, whiskers at 1 x IQR (seaborn whis=1), fliers not drawn"
            .into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let table = by_hour_boxes(frames::tasks(ctx, &["start_time"])?, col("start_time"), lit(1.0))?;
        out.table("boxes", table);
        Ok(())
    }
}
