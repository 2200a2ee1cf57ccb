//! `helios.user-completion`: the histogram of per-user GPU-job completion
//! rates over all of Helios (SC'21 Fig 9b, HeliosArtifact `user
//! characterization.ipynb`).

use polars::prelude::*;

use super::jobs;
use crate::declare::{About, Analyze, Memory, Scope};
use crate::frame::{collect, f64s};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::params::{params, Param};
use crate::Ctx;
use tracelab_schema::error::Result;

const INCLUDE_CPU_ONLY: Param<bool> = Param::flag(
    "include-cpu-only-users",
    "true",
    "Count users with no GPU job at 0 % (the upstream quirk: parse_user sets their completed_gpu_percent to 0); false leaves them out.",
);

params! {
    pub struct UserCompletionParams {
        pub include_cpu_only_users: bool = INCLUDE_CPU_ONLY,
    }
}

pub struct UserCompletion;

impl Analyze for UserCompletion {
    type Params = UserCompletionParams;
    /// Peak 0.46 GB over the 3.36 M Helios jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::helios::JOBS, 140);
    const ABOUT: About = About {
        id: "helios.user-completion",
        scope: Scope::Helios,
        mirrors: "SC'21 Fig 9b (user characterization.ipynb)",
        summary: "Histogram of per-user GPU-job completion rates over all of Helios",
        title: "Per-user GPU-job completion rate",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors SC'21 Fig 9b, notebook H12.

- **Per user**, Helios-wide (users keyed by `user` across the four clusters, as `parse_user` on
  the merged log): completion rate = 100 × COMPLETED GPU jobs / GPU jobs.
- **Histogram** (part `histogram`): 10 equal bins from the smallest to the largest rate, the last
  bin closed (seaborn `histplot(bins=10)`). Headlines: users, mean rate, and the shares of users
  at 100 % and at 0 %.
- **Published:** none.
- **Differences:** none with the default.
"##;

    fn definition(_: &UserCompletionParams) -> String {
        USER_COMPLETION_DEF.into()
    }

    fn run(ctx: &Ctx, p: &UserCompletionParams, out: &mut Output) -> Result<()> {
        run_user_completion(ctx, p.include_cpu_only_users, out)
    }
}

/// numpy/seaborn `bins=10`: edges linspace(min, max, 11) (min = max widens
/// to +-0.5), last bin closed.
pub fn histogram10(values: &[f64]) -> Vec<(f64, f64, u64)> {
    if values.is_empty() {
        return Vec::new();
    }
    let (mut lo, mut hi) = values.iter().fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    if lo == hi {
        (lo, hi) = (lo - 0.5, hi + 0.5);
    }
    let edges: Vec<f64> = (0..=10).map(|i| lo + (hi - lo) * i as f64 / 10.0).collect();
    let mut counts = [0u64; 10];
    for v in values {
        let k = edges[1..10].partition_point(|e| e <= v);
        counts[k] += 1;
    }
    (0..10).map(|i| (edges[i], edges[i + 1], counts[i])).collect()
}

fn run_user_completion(ctx: &Ctx, include_cpu_only: bool, out: &mut Output) -> Result<()> {
    let gpu = || col("gpus").gt(lit(0));
    let lf = jobs(ctx)?.group_by([col("user")]).agg([
        gpu().cast(DataType::Float64).sum().alias("gpu_jobs"),
        col("state").eq(lit("COMPLETED")).and(gpu()).cast(DataType::Float64).sum().alias("completed"),
    ]);
    // A group-by's rows come out in no fixed order; the mean below adds the
    // rates in row order, so fix it (by user) for the same bits every run.
    let lf = lf.sort(["user"], SortMultipleOptions::default());
    let df = collect(lf, "per-user completion")?;
    let (g, c) = (f64s(&df, "gpu_jobs")?, f64s(&df, "completed")?);
    let rates: Vec<f64> = g
        .iter()
        .zip(&c)
        .filter(|(g, _)| include_cpu_only || g.unwrap_or(0.0) > 0.0)
        .map(|(g, c)| match g {
            Some(g) if *g > 0.0 => 100.0 * c.unwrap_or(0.0) / g,
            _ => 0.0,
        })
        .collect();
    let mut t = ResultTable::new(&["bin_lo_pct", "bin_hi_pct", "users"]);
    for (lo, hi, n) in histogram10(&rates) {
        t.push(vec![Cell::Float(lo), Cell::Float(hi), Cell::from(n)]);
    }
    let n = rates.len() as f64;
    let heads = vec![
        Headline::new("users", "users in the histogram", n, "users"),
        Headline::new("mean", "mean per-user GPU completion rate", rates.iter().sum::<f64>() / n, "%"),
        Headline::new(
            "at-100",
            "users with every GPU job completed",
            100.0 * rates.iter().filter(|r| **r == 100.0).count() as f64 / n,
            "% of users",
        ),
        Headline::new(
            "at-0",
            "users at 0 % (incl. CPU-only users when counted)",
            100.0 * rates.iter().filter(|r| **r == 0.0).count() as f64 / n,
            "% of users",
        ),
    ];
    out.table("histogram", t);
    out.headlines("summary", heads);
    Ok(())
}

const USER_COMPLETION_DEF: &str = "Helios-wide (users keyed by `user` across clusters, as parse_user on all_cluster_log): completed_gpu_percent = COMPLETED GPU jobs (gpus > 0) / GPU jobs, x100; users without GPU jobs are at 0 % unless include-cpu-only-users=false. Histogram with 10 equal bins from the minimum to the maximum rate (seaborn histplot bins=10, stat=count; last bin closed).";
