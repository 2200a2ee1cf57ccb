//! `pai.recurrence`: the share of tasks whose group tag recurs, and the
//! distribution of group sizes (NSDI'22 Sec 5, paper only). Reads `dfa`
//! (tasks with a job and instance rows; group := user where the tag is
//! missing, as the notebook builds it).

use polars::prelude::*;

use super::frames;
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::{collect, dist, scalar};
use crate::output::{Headline, Output};
use crate::params::{choice, params, Param};
use crate::Ctx;
use tracelab_schema::error::Result;

choice! {
    /// Tasks without a group tag.
    pub enum Untagged {
        /// group := user, as the notebook.
        User = "user",
        /// Left out.
        Drop = "drop",
    }
}

const MIN_GROUP: Param<u64> =
    Param::whole("min-group", "5", "a group recurs when it has at least this many tasks", 0, u64::MAX);
const UNTAGGED: Param<Untagged> =
    Param::choice("untagged", "user", "tasks without a group tag: user (group := user, as the notebook) or drop");

params! {
    pub struct RecurrenceParams {
        pub min_group: u64 = MIN_GROUP,
        pub untagged: Untagged = UNTAGGED,
    }
}

pub struct Recurrence;

impl Analyze for Recurrence {
    type Params = RecurrenceParams;
    const ABOUT: About = About {
        id: "pai.recurrence",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 5 (paper only)",
        summary: "share of tasks whose group recurs at least min-group times; CDF of group sizes",
        title: "Recurring tasks by group tag",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Sec 5 (paper only).

- **Reads** `dfa.group` (the job's group tag; the user where untagged, as the notebook fills it).
- **Computes** group size = tasks per group. A task *recurs* when its group has at least
  `min-group` tasks. Headline: 100 × tasks in recurring groups / tasks; also the task, group and
  recurring-group counts. Part `group-size`: the distribution of group sizes.
- **Published:** 65 % of tasks recur at least 5 times (NSDI'22 Sec 5).
- **Differences:** no upstream code.
"##;
    const PUBLISHED: &'static [Published] = &[Published::new("recurring_tasks", 65.0, "%", "NSDI'22 Sec 5")];

    fn definition(p: &RecurrenceParams) -> String {
        format!(
            "dfa (tasks with a job and instance rows); group = pai/group_tag group of the task's inst_id, {}; group \
             size = tasks in the group; a task recurs when its group has >= {} tasks; share = 100 * tasks in \
             recurring groups / tasks",
            match p.untagged {
                Untagged::Drop => "untagged tasks dropped",
                Untagged::User => "the user where untagged (notebook)",
            },
            p.min_group
        )
    }

    fn run(ctx: &Ctx, p: &RecurrenceParams, out: &mut Output) -> Result<()> {
        let min = p.min_group as i64;
        let mut dfa = frames::tasks(ctx, &["group", "inst_id"])?;
        if p.untagged == Untagged::Drop {
            let tags =
                ctx.store.scan(&tracelab_schema::pai::GROUP_TAG)?.select([col("inst_id"), col("group").alias("tag")]);
            dfa = dfa
                .join(tags, [col("inst_id")], [col("inst_id")], JoinArgs::new(JoinType::Left))
                .filter(col("tag").is_not_null());
        }
        let sizes = dfa.group_by([col("group")]).agg([len().cast(DataType::Int64).alias("n")]);
        let totals = collect(
            sizes.clone().select([
                col("n").sum().alias("tasks"),
                col("n").filter(col("n").gt_eq(lit(min))).sum().alias("recurring"),
                len().alias("groups"),
                col("n").gt_eq(lit(min)).sum().alias("recurring_groups"),
            ]),
            "recurrence totals",
        )?;
        let get = |c: &str| scalar(&totals, c);
        let (tasks, recurring) = (get("tasks")?, get("recurring")?);
        let size_dist = dist(sizes, col("n"), "group sizes")?;
        out.dists("group-size", "tasks per group", vec![("groups".into(), size_dist)]).headlines(
            "recurrence",
            vec![
                Headline::new(
                    "recurring_tasks",
                    &format!("tasks whose group has >= {min} tasks"),
                    100.0 * recurring / tasks,
                    "%",
                ),
                Headline::new("tasks", "tasks", tasks, "tasks"),
                Headline::new("groups", "groups", get("groups")?, "groups"),
                Headline::new(
                    "recurring_groups",
                    &format!("groups with >= {min} tasks"),
                    get("recurring_groups")?,
                    "groups",
                ),
            ],
        );
        Ok(())
    }
}
