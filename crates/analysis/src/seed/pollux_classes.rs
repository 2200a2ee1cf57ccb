//! `seed.pollux-classes`: Pollux (Qiao et al., OSDI'21 Sec 5) describes its
//! workload by job size class in GPU-hours; this gives that mix per trace
//! (jobs and GPU-hours per class, [`super::size_classes`]).

use super::notes::Notes;
use super::present;
use super::size_classes::{bounds, class_definition, jobs, mix, pct, LABELS, LARGE, MEDIUM, SMALL};
use super::{Traces, ALL_TRACES};
use crate::declare::{About, Analyze, Scope};
use crate::output::{Output, ResultTable};
use crate::params::params;
use crate::Ctx;
use tracelab_schema::error::Result;

params! {
    pub struct PolluxClassesParams {
        pub trace: Traces = ALL_TRACES,
        pub small: f64 = SMALL,
        pub medium: f64 = MEDIUM,
        pub large: f64 = LARGE,
    }
}

pub struct PolluxClasses;

impl Analyze for PolluxClasses {
    type Params = PolluxClassesParams;
    const ABOUT: About = About {
        id: "seed.pollux-classes",
        scope: Scope::Cross,
        mirrors: "Pollux (Qiao et al., OSDI'21) Sec 5: job size classes by GPU-hours",
        summary: "GPU jobs per GPU-hour class (small, medium, large, extra large) per trace, jobs and GPU-hour shares",
        title: "Jobs by GPU-hour class",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors Pollux (OSDI'21 Sec 5): job size classes by GPU-hours.

- **Jobs:** the unified `jobs` table, GPU jobs (`gpus_requested` > 0) with a `submit_time` and a
  `run_s`. GPU-hours = `gpus_requested` × `run_s` / 3600 (see the
  [cross-trace conventions](#cross-trace-conventions) for each trace's GPUs and runtime).
- **Classes:** small < `small` ≤ medium < `medium` ≤ large < `large` ≤ xlarge (GPU-hours). Pollux's
  extra-large class is 100–1000; jobs above 1000 GPU-hours are xlarge here.
- **Output:** table `classes`: per trace and class, jobs, % of jobs, GPU-hours, % of GPU-hours.
"##;

    fn definition(p: &PolluxClassesParams) -> String {
        class_definition([p.small, p.medium, p.large])
    }

    fn run(ctx: &Ctx, p: &PolluxClassesParams, out: &mut Output) -> Result<()> {
        classes(ctx, p, out)
    }
}

fn classes(ctx: &Ctx, p: &PolluxClassesParams, out: &mut Output) -> Result<()> {
    let b = bounds(PolluxClasses::ABOUT.id, p.small, p.medium, p.large)?;
    let mut t = ResultTable::new(&["trace", "class", "jobs", "jobs_pct", "gpu_hours", "gpu_hours_pct"]);
    let mut notes = Notes::default();
    for trace in p.trace.selected() {
        if !present(ctx, trace) {
            notes.missing(trace);
            continue;
        }
        let jobs = jobs(ctx, trace)?;
        let m = mix(&jobs, 0..jobs.len(), &b);
        let (n, h) = (jobs.len() as f64, jobs.total_gpu_hours());
        for (label, (count, hours)) in LABELS.iter().zip(m) {
            t.push(vec![
                trace.name().into(),
                (*label).into(),
                (count as i64).into(),
                pct(count as f64, n).into(),
                hours.into(),
                pct(hours, h).into(),
            ]);
        }
    }
    out.table("classes", t).table("notes", notes.table());
    Ok(())
}
