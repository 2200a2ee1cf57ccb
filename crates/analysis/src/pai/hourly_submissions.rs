//! `pai.hourly-submissions`: tasks submitted per hour over one week
//! (NSDI'22 Fig 3a, notebook A3), by task start in Asia/Shanghai.

use polars::prelude::*;

use super::frames;
use super::hourly::{points, week_series, WeekParams, SUBMISSIONS_END};
use crate::declare::{About, Analyze, Scope};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct HourlySubmissions;

impl Analyze for HourlySubmissions {
    type Params = WeekParams;
    const ABOUT: About = About {
        id: "pai.hourly-submissions",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 3a (notebook A3)",
        summary: "tasks submitted per hour over one week (Sunday 00:00 UTC+8 = hour 0)",
        title: "Task submissions per hour over one week",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 3a, notebook cell A3.

- **Reads** `dfa.start_time` (the task's start, the notebook's "submission").
- **Computes** tasks per local hour. Each task's start is taken in Asia/Shanghai; its
  `hourofyear` is day-of-year (1-based) × 24 + hour; `hour = hourofyear − offset`. Hours 0 to
  168 are kept. Hour 0 is `hourofyear` 600 by default, i.e. 25 January 00:00 local, a Sunday, so
  the week runs Sunday to Saturday. Hours with no task are absent rather than 0. Part `tasks`, a
  curve.
- **Published:** none.
- **Differences:** none.
"##;

    fn definition(p: &WeekParams) -> String {
        format!(
            "dfa (tasks with instances), task start_time in Asia/Shanghai; tasks per hourofyear = dayofyear*24 + \
             hour; hour = hourofyear - {}; hours 0..168; hours without tasks are absent (as upstream)",
            p.offset
        )
    }

    fn run(ctx: &Ctx, p: &WeekParams, out: &mut Output) -> Result<()> {
        let tasks = frames::tasks(ctx, &["start_time"])?;
        let df = week_series(tasks, col("start_time"), &[("tasks", lit(1.0))], p.offset as i64, SUBMISSIONS_END)?;
        out.curves(
            "tasks",
            "hour of the week (0 = Sunday 00:00)",
            "tasks submitted",
            vec![("tasks".into(), points(&df, "tasks", 1.0)?)],
        );
        Ok(())
    }
}
