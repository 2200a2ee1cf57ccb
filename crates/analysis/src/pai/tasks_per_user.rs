//! `pai.tasks-per-user`: the tasks each user submitted (NSDI'22 Fig 2a,
//! notebook A1: `dfa.groupby('user').count()`).

use polars::prelude::*;

use super::frames;
use crate::declare::{About, Analyze, Scope};
use crate::frame::dist;
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct TasksPerUser;

impl Analyze for TasksPerUser {
    type Params = ();
    const ABOUT: About = About {
        id: "pai.tasks-per-user",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 2a (notebook A1)",
        summary: "CDF of tasks per user",
        title: "Tasks per user",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 2a, notebook cell A1.

- **Reads** `dfa.user` (the job's user).
- **Computes** the number of `dfa` rows per user, and the distribution of that count over users.
  Part `per-user`.
- **Published:** none (the notebook draws the curve only).
- **Differences:** none.
"##;

    fn definition(_: &()) -> String {
        "dfa (tasks with a job and instance rows) grouped by the job's user; tasks per user".into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let per_user = frames::tasks(ctx, &["user"])?.group_by([col("user")]).agg([len().alias("tasks")]);
        let d = dist(per_user, col("tasks"), "tasks per user")?;
        out.dists("per-user", "tasks per user", vec![("users".into(), d)]);
        Ok(())
    }
}
