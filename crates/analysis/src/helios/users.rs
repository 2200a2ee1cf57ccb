//! The per-user totals and concentration curves of the Helios user figures
//! (SC'21 Fig 8 and Fig 9a, HeliosArtifact `user characterization.ipynb`
//! over `trace_parser.parse_user`), shared by `helios.user-time` and
//! `helios.user-queue`. Per-user sums run in the engine; the sorted
//! cumulative shares of a few thousand users are computed here.

use polars::prelude::*;

use super::{jobs, CurveSet};
use crate::frame::{collect, f64s, strs};
use crate::output::Headline;
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_stats::gini;

/// The notebooks' concentration curve: values sorted descending, y_i = 100
/// * (sum of the top i+1) / total, x_i = 100 * i / (n - 1) (`np.linspace(0,
/// 100, n)`; a single user sits at x = 0). Zero-valued users are included.
pub fn helios_lorenz(values: &[f64]) -> Vec<(f64, f64)> {
    let mut v = values.to_vec();
    v.sort_by(|a, b| b.total_cmp(a));
    let total: f64 = v.iter().sum();
    let n = v.len();
    let mut acc = 0.0;
    v.iter()
        .enumerate()
        .map(|(i, x)| {
            acc += x;
            let xi = if n > 1 { 100.0 * i as f64 / (n - 1) as f64 } else { 0.0 };
            (xi, if total > 0.0 { 100.0 * acc / total } else { f64::NAN })
        })
        .collect()
}

/// Per cluster and user: the `parse_user` totals.
pub fn user_totals(ctx: &Ctx) -> Result<DataFrame> {
    let gpu = || col("gpus").gt(lit(0));
    let lf = jobs(ctx)?.group_by([col("cluster"), col("user")]).agg([
        (col("gpus").cast(DataType::Float64) * col("run_s")).filter(gpu()).sum().alias("total_gpu_time"),
        (col("cpus").cast(DataType::Float64) * col("run_s"))
            .filter(col("gpus").eq(lit(0)))
            .sum()
            .alias("total_cpu_only_time"),
        col("queue_s").filter(gpu()).sum().alias("total_gpu_pend_time"),
    ]);
    collect(lf, "per-user totals")
}

/// One concentration curve and a Gini headline per cluster for `column`.
pub fn concentration(df: &DataFrame, clusters: &[String], column: &str, heads: &mut Vec<Headline>) -> Result<CurveSet> {
    let (cs, vs) = (strs(df, "cluster")?, f64s(df, column)?);
    Ok(clusters
        .iter()
        .map(|c| {
            let vals: Vec<f64> = (0..df.height())
                .filter(|&i| cs[i].as_deref() == Some(c.as_str()))
                .map(|i| vs[i].unwrap_or(0.0))
                .collect();
            heads.push(Headline::new(
                &format!("{c}.{column}.gini"),
                &format!("{c}: Gini of {column} over users"),
                gini(&vals),
                "",
            ));
            (c.clone(), helios_lorenz(&vals))
        })
        .collect())
}

/// Users per cluster (points per curve).
pub fn user_counts(series: &[(String, Vec<(f64, f64)>)]) -> Vec<Headline> {
    series
        .iter()
        .map(|(c, pts)| Headline::new(&format!("{c}.users"), &format!("{c}: users"), pts.len() as f64, "users"))
        .collect()
}

pub const LORENZ_DEF: &str = "Per cluster, every user with at least one job in helios/jobs (zero-valued users included), sorted descending by the total; y = 100 * cumulative share of the top i+1 users, x = 100 * i / (n_users - 1) (np.linspace(0, 100, n_users), as the notebook). Gini = sum_i (2i - n - 1) x_(i) / (n sum x) over ascending values.";
