//! Heavy tails, characterized (NSDI'22 Sec 3 skew claims; paper only): for
//! requests, usages, runtimes, per-user counts and gang sizes, the CDF (the
//! report plots CCDFs on log axes from the same data), quantiles, the share
//! held by the top 1 % / 5 % of samples, Gini, the Hill tail index and a
//! log-normal vs power-law fit by KS distance ([`tracelab_stats::fit_tail`]).

use polars::prelude::*;

use super::frames;
use crate::declare::{About, Analyze, Memory, Published, Scope};
use crate::frame::dist_by_sort;
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::params::{params, FromParam, Param};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_stats::{fit_tail, hill, lorenz, Dist};

/// How many order statistics the Hill estimator uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HillK {
    /// floor(sqrt(n)).
    Sqrt,
    /// p % of the n samples (0 < p < 100), floored, at least 1.
    Percent(f64),
}

impl FromParam for HillK {
    fn from_param(raw: &str) -> Option<HillK> {
        if raw == "sqrt" {
            return Some(HillK::Sqrt);
        }
        let p: f64 = raw.strip_suffix('%')?.parse().ok()?;
        (p > 0.0 && p < 100.0).then_some(HillK::Percent(p))
    }
}

impl std::fmt::Display for HillK {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HillK::Sqrt => f.write_str("sqrt"),
            HillK::Percent(p) => write!(f, "{p}%"),
        }
    }
}

impl HillK {
    /// k on n samples.
    fn of(self, n: u64) -> u64 {
        match self {
            HillK::Sqrt => (n as f64).sqrt().floor() as u64,
            HillK::Percent(p) => (n as f64 * p / 100.0).floor().max(1.0) as u64,
        }
    }
}

const HILL_K: Param<HillK> = Param::custom(
    "hill-k",
    "1%",
    "order statistics used by the Hill estimator: p% of the samples (e.g. 1%) or sqrt",
    "sqrt or a percentage like 1%",
);

params! {
    pub struct HeavyTailsParams {
        pub hill_k: HillK = HILL_K,
    }
}

pub struct HeavyTails;

const SOURCE: &str = "NSDI'22 Sec 3";

impl Analyze for HeavyTails {
    type Params = HeavyTailsParams;
    /// Peak 0.88 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 125);
    const ABOUT: About = About {
        id: "pai.heavy-tails",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 3 (paper only: top 5 % of users submit 77 % of instances)",
        summary:
            "tails of requests, usage, runtime, per-user counts and gang sizes: quantiles, top-k share, Hill, fits",
        title: "Heavy tails of requests, usage, runtime and per-user counts",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors the NSDI'22 Sec 3 skew statements (paper only).

- **Variables** (one row each in part `tails`, one distribution each in part `cdf`): per-instance
  requests `plan_gpu_pct`/100, `plan_cpu_pct`/100, `plan_mem_gib` (`dfw`); per-instance usage
  `gpu_wrk_util_pct`/100, `cpu_usage_pct`/100, `avg_mem_gib` (`dfws`); instance runtime `run_s` (`dfw`);
  task runtime `runtime_i` (`dfa`); instances per user (`dfw` rows per user); tasks per user
  (`dfa` rows per user); gang size `inst_num` (`dfa`). Nulls and non-finite values dropped.
- **Per variable:** n, mean, P50, P90, P99, P99.9, max; the share of the total held by the
  largest ⌈1 % · n⌉ and ⌈5 % · n⌉ samples; the Gini coefficient; the Hill tail index from the k
  largest samples (k from `hill-k`, at least 1; null when infinite); a log-normal fit (maximum
  likelihood on ln x, x > 0) and a power-law fit (Clauset, Shalizi and Newman: x_min chosen by the
  smallest KS distance among 40 quantile candidates in [0, 0.95]); `better_tail_model` is the one
  with the smaller KS distance on the power-law tail. No fit below 50 positive samples.
- **Headlines** and part `lorenz-users` (instances per user, users sorted by count, largest
  first): the share of instances submitted by the top 5 % of users, and the per-user counts at
  P95 and P50.
- **Published:** the top 5 % of users submit about 77 % of instances, each more than 17.5k; the
  bottom half submit fewer than 180 each (NSDI'22 Sec 3).
- **Differences:** no upstream code. In `dfw` the user comes from the group-tag table, so
  instances of untagged jobs count as one null "user" here.
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("top5_users", 77.0, "%", SOURCE),
        Published::new("users_p95", 17_500.0, "instances", SOURCE),
        Published::new("users_p50", 180.0, "instances", SOURCE),
    ];

    fn definition(p: &HeavyTailsParams) -> String {
        definition(p.hill_k)
    }

    fn run(ctx: &Ctx, p: &HeavyTailsParams, out: &mut Output) -> Result<()> {
        heavy_tails(ctx, p.hill_k, out)
    }
}

/// (label, frame, value expression, unit) of every characterized variable.
fn variables(ctx: &Ctx) -> Result<Vec<(&'static str, LazyFrame, Expr, &'static str)>> {
    let dfw = frames::instances(ctx, &["plan_gpu_pct", "plan_cpu_pct", "plan_mem_gib", "run_s", "user"])?;
    let dfws = frames::instances_with_sensor(ctx, &["gpu_wrk_util_pct", "cpu_usage_pct", "avg_mem_gib"])?;
    let dfa = frames::tasks(ctx, &["runtime_i_s", "user", "inst_num"])?;
    let per_user = |lf: LazyFrame| lf.group_by([col("user")]).agg([len().alias("n")]);
    Ok(vec![
        ("gpu request per instance", dfw.clone(), col("plan_gpu_pct") / lit(100.0), "GPUs"),
        ("cpu request per instance", dfw.clone(), col("plan_cpu_pct") / lit(100.0), "vCPU"),
        ("mem request per instance", dfw.clone(), col("plan_mem_gib"), "GiB"),
        ("gpu usage per instance", dfws.clone(), col("gpu_wrk_util_pct") / lit(100.0), "GPUs"),
        ("cpu usage per instance", dfws.clone(), col("cpu_usage_pct") / lit(100.0), "vCPU"),
        ("mem usage per instance", dfws, col("avg_mem_gib"), "GiB"),
        ("instance runtime", dfw.clone(), col("run_s"), "s"),
        ("task runtime (mean instance)", dfa.clone(), col("runtime_i_s"), "s"),
        ("instances per user", per_user(dfw), col("n"), "instances"),
        ("tasks per user", per_user(dfa.clone()), col("n"), "tasks"),
        ("gang size (inst_num)", dfa, col("inst_num"), "instances"),
    ])
}

/// Share (0..1) of the total held by the largest ceil(frac * n) samples.
pub fn top_share(d: &Dist, frac: f64) -> f64 {
    let total = d.sum();
    let mut left = (frac * d.n() as f64).ceil() as u64;
    let mut acc = 0.0;
    for (v, &c) in d.values().iter().zip(d.counts()).rev() {
        let take = c.min(left);
        acc += v * take as f64;
        left -= take;
        if left == 0 {
            break;
        }
    }
    if total > 0.0 {
        acc / total
    } else {
        f64::NAN
    }
}

/// Gini of a non-negative distribution from its counts (ascending ranks).
fn gini_of(d: &Dist) -> f64 {
    let (n, total) = (d.n() as f64, d.sum());
    if n == 0.0 || total <= 0.0 {
        return f64::NAN;
    }
    // sum_i (2i - n - 1) x_(i) over a run of c equal values starting at rank r+1.
    let mut r = 0.0;
    let mut acc = 0.0;
    for (v, &c) in d.values().iter().zip(d.counts()) {
        let c = c as f64;
        let ranks = c * (2.0 * r + c + 1.0); // 2 * sum of ranks r+1..r+c
        acc += v * (ranks - c * (n + 1.0));
        r += c;
    }
    acc / (n * total)
}

const COLUMNS: [&str; 21] = [
    "variable",
    "unit",
    "n",
    "mean",
    "p50",
    "p90",
    "p99",
    "p999",
    "max",
    "top1_share_pct",
    "top5_share_pct",
    "gini",
    "hill_k",
    "hill_alpha",
    "lognormal_mu",
    "lognormal_sigma",
    "lognormal_ks",
    "powerlaw_alpha",
    "powerlaw_xmin",
    "powerlaw_ks",
    "better_tail_model",
];

fn row(label: &str, unit: &str, d: &Dist, hill_k: HillK) -> Vec<Cell> {
    let k = hill_k.of(d.n());
    let fit = fit_tail(d);
    let f = |g: fn(&tracelab_stats::TailFit) -> f64| fit.as_ref().map_or(f64::NAN, g);
    vec![
        label.into(),
        unit.into(),
        d.n().into(),
        d.mean().into(),
        d.quantile(0.5).into(),
        d.quantile(0.9).into(),
        d.quantile(0.99).into(),
        d.quantile(0.999).into(),
        d.max().into(),
        (100.0 * top_share(d, 0.01)).into(),
        (100.0 * top_share(d, 0.05)).into(),
        gini_of(d).into(),
        k.into(),
        Some(hill(d, k)).filter(|a| a.is_finite()).into(),
        f(|t| t.lognormal_mu).into(),
        f(|t| t.lognormal_sigma).into(),
        f(|t| t.lognormal_ks).into(),
        f(|t| t.powerlaw_alpha).into(),
        f(|t| t.powerlaw_xmin).into(),
        f(|t| t.powerlaw_ks).into(),
        fit.as_ref().map_or("-", |t| t.better_tail_model).into(),
    ]
}

fn heavy_tails(ctx: &Ctx, hill_k: HillK, out: &mut Output) -> Result<()> {
    let mut series = Vec::new();
    let mut table = ResultTable::new(&COLUMNS);
    for (label, lf, value, unit) in variables(ctx)? {
        let d = dist_by_sort(lf, value, label)?;
        table.push(row(label, unit, &d, hill_k));
        series.push((format!("{label} ({unit})"), d));
    }
    let users = &series[8].1;
    let curve = lorenz_of(users);
    let headlines = vec![
        Headline::new("top5_users", "instances submitted by the top 5 % of users", 100.0 * top_share(users, 0.05), "%"),
        Headline::new(
            "users_p95",
            "instances per user at the 95th percentile (top 5 % submit more)",
            users.quantile(0.95),
            "instances",
        ),
        Headline::new(
            "users_p50",
            "instances per user at the median (bottom 50 % submit fewer)",
            users.quantile(0.5),
            "instances",
        ),
    ];
    out.dists("cdf", "value (unit in the series label)", series)
        .table("tails", table)
        .curves(
            "lorenz-users",
            "share of users (top first)",
            "share of instances",
            vec![("instances per user".into(), curve)],
        )
        .headlines("skew", headlines);
    Ok(())
}

fn definition(k_spec: HillK) -> String {
    format!(
        "requests: per-instance plan_gpu_pct/100, plan_cpu_pct/100, plan_mem_gib over dfw rows (one per worker); usage: \
         gpu_wrk_util_pct/100, cpu_usage_pct/100, avg_mem_gib over dfws rows (instances with a sensor row); runtimes: instance run_s \
         (dfw) and the task's mean instance runtime runtime_i (dfa, Fig 4a); per-user counts: dfw rows and dfa rows per \
         user; gang size: dfa inst_num. Nulls and non-finite values dropped. top-k share = sum of the largest \
         ceil(k * n) samples / sum of all; Gini over the samples; Hill alpha from the k = {k_spec} largest samples \
         (floor, at least 1); tail fits over samples > 0 (log-normal MLE; power law Clauset-Shalizi-Newman with x_min \
         by minimal KS over 40 quantile candidates; the better model has the smaller KS on the tail; none below 50 \
         samples; an infinite Hill alpha, when the k largest samples all equal the k-th, is null). lorenz: instances per user, users sorted by count descending"
    )
}

/// The Lorenz curve of a distribution of counts (descending), from the
/// expanded samples (per-user counts: at most a few thousand users).
fn lorenz_of(d: &Dist) -> Vec<(f64, f64)> {
    let samples: Vec<f64> =
        d.values().iter().zip(d.counts()).flat_map(|(v, &c)| std::iter::repeat_n(*v, c as usize)).collect();
    lorenz(&samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [1, 1, 2, 6]: the top ceil(5 % of 4) = 1 sample holds 6 of 10; Gini =
    /// sum (2i - 5) x_(i) / (4 * 10) = (-3 - 1 + 2 + 18) / 40 = 0.4, the same
    /// as stats::gini on the expanded samples.
    #[test]
    fn top_share_and_gini_by_hand() {
        let d = Dist::from_samples(vec![6.0, 1.0, 2.0, 1.0]);
        assert_eq!(top_share(&d, 0.05), 0.6);
        assert_eq!(top_share(&d, 0.5), 0.8);
        assert!((gini_of(&d) - 0.4).abs() < 1e-12);
        assert!((gini_of(&d) - tracelab_stats::gini(&[1.0, 1.0, 2.0, 6.0])).abs() < 1e-12);
    }

    /// 1 % of 1000 is 10; sqrt(100) = 10; 1 % of 50 floors to 0, raised to 1.
    #[test]
    fn hill_k_is_a_percentage_or_sqrt() {
        let k = |raw: &str, n: u64| HillK::from_param(raw).map(|k| k.of(n));
        assert_eq!((k("1%", 1000), k("sqrt", 100), k("1%", 50)), (Some(10), Some(10), Some(1)));
        assert_eq!((k("ten", 100), k("0%", 100), k("100%", 100), k("1", 100)), (None, None, None, None));
        assert_eq!(HillK::Percent(0.5).to_string(), "0.5%");
    }
}
