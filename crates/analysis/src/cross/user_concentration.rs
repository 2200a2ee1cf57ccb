//! `cross.user-concentration`: per-user concentration of GPU time or jobs,
//! the Lorenz curve (Helios Fig 8 style) and Gini per trace and Helios
//! cluster.

use std::collections::BTreeMap;

use polars::prelude::*;

use super::{jobs_note, with_series, Jobs, JOBS_PARAM, TRACE_DEFINITIONS};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::frame::{collect, f64s, strs};
use crate::output::{Cell, Output, ResultTable};
use crate::params::{choice, params, Param};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_stats::{gini, lorenz};

choice! {
    /// What a user's total counts.
    pub enum Measure {
        /// Sum of gpus_requested x run_s (Helios Fig 8 style).
        GpuTime = "gpu-time",
        /// Job count.
        Jobs = "jobs",
    }
}

const MEASURE: Param<Measure> = Param::choice(
    "measure",
    "gpu-time",
    "gpu-time: per-user sum of gpus_requested x run_s (Helios Fig 8 style); jobs: per-user job count",
);

params! {
    pub struct UserParams {
        pub jobs: Jobs = JOBS_PARAM,
        pub measure: Measure = MEASURE,
    }
}

pub struct UserConcentration;

impl Analyze for UserConcentration {
    type Params = UserParams;
    /// Peak 0.92 GB over the 4.52 M unified jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::unified::JOBS, 205);
    const ABOUT: About = About {
        id: "cross.user-concentration",
        scope: Scope::Cross,
        mirrors: "tracelab (cross-trace view)",
        summary: "Per-user concentration: Lorenz curve and Gini per trace and Helios cluster",
        title: "Per-user concentration across traces",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
tracelab cross-trace view.

- **Computes** per series and user (null users skipped) the user's total: GPU time (sum of
  `gpus_requested` × `run_s`, a missing term counting 0) or the number of jobs. Part `lorenz`:
  users sorted by total, largest first, from (0, 0) to (100, 100), point i = (100 × i / users,
  100 × share held by the top i users); users with 0 included. Table `gini`: users, Gini, and the
  share held by the top ⌈5 % of users⌉.
- **Note:** the x values start at 0 with no user and step by 1/users, whereas the Helios notebooks'
  curves ([helios.user-time](#heliosuser-time)) place the first user at 0.
"##;

    fn definition(p: &UserParams) -> String {
        let measure = match p.measure {
            Measure::GpuTime => "GPU time (sum of gpus_requested x run_s; unknown terms count 0)",
            Measure::Jobs => "jobs",
        };
        format!(
            "Per user (unified jobs.user, nulls skipped): total {measure}. Lorenz curve in the Helios style: users \
             sorted DESCENDING, point i = (% of users in the top i, % of the total they hold), users with 0 included. \
             Gini over the same per-user totals. top5_share = share held by the top ceil(5 % of users). {} \
             {TRACE_DEFINITIONS}",
            jobs_note(p.jobs)
        )
    }

    fn run(ctx: &Ctx, p: &UserParams, out: &mut Output) -> Result<()> {
        users(ctx, p, out)
    }
}

fn users(ctx: &Ctx, p: &UserParams, out: &mut Output) -> Result<()> {
    let gpu_time = p.measure == Measure::GpuTime;
    let value = if gpu_time { (col("gpus_requested") * col("run_s")).sum() } else { len().cast(DataType::Float64) };
    let lf = with_series(ctx, p.jobs)?
        .filter(col("user").is_not_null())
        .group_by([col("series"), col("user")])
        .agg([value.alias("v")]);
    let df = collect(lf, "cross.user-concentration")?;
    let mut by: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (s, v) in strs(&df, "series")?.into_iter().zip(f64s(&df, "v")?) {
        if let Some(s) = s {
            by.entry(s).or_default().push(v.filter(|v| v.is_finite()).unwrap_or(0.0));
        }
    }
    let mut t = ResultTable::new(&["series", "users", "gini", "top5_share_pct"]);
    let mut curves = Vec::new();
    for (s, v) in &by {
        let curve = lorenz(v);
        let k = (v.len() as f64 * 0.05).ceil() as usize;
        t.push(vec![Cell::from(s.as_str()), Cell::Int(v.len() as i64), gini(v).into(), (100.0 * curve[k].1).into()]);
        curves.push((s.clone(), curve.into_iter().map(|(x, y)| (100.0 * x, 100.0 * y)).collect()));
    }
    out.table("gini", t);
    out.curves(
        "lorenz",
        "Users, largest first (%)",
        &format!("Share of {} (%)", if gpu_time { "GPU time" } else { "jobs" }),
        curves,
    );
    Ok(())
}
