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
