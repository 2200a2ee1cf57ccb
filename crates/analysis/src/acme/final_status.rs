//! `acme.final-status`: final states of GPU jobs by job count and by GPU
//! time per cluster (NSDI'24 Fig 9's inputs, the notebook's
//! `bar_job_state` over `cluster_summary.csv`), and by workload type and by
//! job size.

use std::borrow::Cow;

use polars::prelude::*;

use super::cluster_summary::published_rows;
use super::{is_failed, jobs, pct, selected_clusters, Clusters, CLUSTER, TYPES};
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::{collect, f64s, i64s, strs};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::params::params;
use crate::Ctx;
use tracelab_schema::error::Result;

const SOURCE: &str = "AcmeTrace data/cluster_summary.csv (NSDI'24 Fig 9 input)";

/// Job-size buckets: one GPU, within one 8-GPU node, then multi-node.
const SIZES: [(&str, i64, i64); 5] =
    [("1", 1, 1), ("2-8", 2, 8), ("9-64", 9, 64), ("65-256", 65, 256), (">256", 257, i64::MAX)];

params! {
    pub struct StatusParams {
        pub cluster: Clusters = CLUSTER,
    }
}

pub struct FinalStatus;

impl Analyze for FinalStatus {
    type Params = StatusParams;
    const ABOUT: About = About {
        id: "acme.final-status",
        scope: Scope::Acme,
        mirrors: "NSDI'24 Fig 9 (analysis.ipynb bar_job_state; cluster_summary.csv)",
        summary: "Final states of GPU jobs by count and GPU time per cluster, workload type and size",
        title: "Final job states",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'24 Fig 9's inputs, notebook `bar_job_state` (which plots `cluster_summary.csv`).

- **Computes,** over GPU jobs: the shares completed (COMPLETED), cancelled (CANCELLED) and failed
  (FAILED, TIMEOUT, NODE_FAIL), of the jobs and of the raw `gpu_time`; per cluster (part
  `by-cluster`), per cluster and workload type (`by-type`), and per cluster and size (`by-size`:
  1 GPU, 2-8 within one 8-GPU node, 9-64, 65-256, more than 256).
- **Headlines:** `<cluster>.count.<state>` and `<cluster>.gpu_time.<state>` in %.
- **Published:** the summary CSV's `complete/cancel/fail_rate_gpu` and `_gpu_time` × 100.
- **Differences:** none.
"##;

    /// The rates of the owners' summary CSV, in %: `<cluster>.count.<state>`
    /// and `<cluster>.gpu_time.<state>`.
    fn published() -> Cow<'static, [Published]> {
        let mut all = Vec::new();
        for (id, row) in published_rows() {
            if !super::CLUSTERS.contains(&id.as_str()) {
                continue;
            }
            for (state, col) in [("completed", "complete"), ("cancelled", "cancel"), ("failed", "fail")] {
                for (what, suffix) in [("count", "gpu"), ("gpu_time", "gpu_time")] {
                    let value = row.get(&format!("{col}_rate_{suffix}")).copied().unwrap_or(f64::NAN) * 100.0;
                    let key = Cow::Owned(format!("{id}.{what}.{state}"));
                    all.push(Published { key, value, unit: "%", source: SOURCE, when: &[] });
                }
            }
        }
        Cow::Owned(all)
    }

    fn definition(_: &StatusParams) -> String {
        "acme/jobs GPU jobs (gpus > 0); completed = COMPLETED, cancelled = CANCELLED, failed = FAILED + TIMEOUT + NODE_FAIL (README note 1). count: share of the jobs; gpu_time_s: share of the sum of the raw gpu_time column (duration x gpu_num, GPU-seconds; Kalos' duration is end - submit). Tables by-cluster (the summary CSV's complete/cancel/fail_rate_gpu and _gpu_time, in %), by-type (workload type; Evaluation counted as Eval) and by-size (GPUs: 1, 2-8 within one 8-GPU node, 9-64, 65-256, > 256).".into()
    }

    fn run(ctx: &Ctx, p: &StatusParams, out: &mut Output) -> Result<()> {
        let clusters = selected_clusters(ctx, p.cluster)?;
        let size = SIZES.iter().fold(lit(NULL).cast(DataType::String), |rest, (label, lo, hi)| {
            when(col("gpus").gt_eq(lit(*lo)).and(col("gpus").lt_eq(lit(*hi)))).then(lit(*label)).otherwise(rest)
        });
        let base = jobs(ctx)?.filter(col("gpus").gt(lit(0))).with_column(size.alias("size"));
        let (by_cluster, heads) = table(base.clone(), &clusters, None)?;
        out.table("by-cluster", by_cluster);
        out.table("by-type", table(base.clone(), &clusters, Some(("kind", &TYPES)))?.0);
        let sizes: Vec<&str> = SIZES.iter().map(|s| s.0).collect();
        out.table("by-size", table(base, &clusters, Some(("size", &sizes)))?.0);
        out.headlines("summary", heads);
        Ok(())
    }
}

/// Rates per cluster (and per value of `by`, in the order given).
fn table(lf: LazyFrame, clusters: &[String], by: Option<(&str, &[&str])>) -> Result<(ResultTable, Vec<Headline>)> {
    let mut keys = vec![col("cluster")];
    if let Some((name, _)) = by {
        keys.push(col(name).alias("group"));
    }
    let st = |s: &str| col("state").eq(lit(s.to_string()));
    let gt = |f: Expr| col("gpu_time_s").filter(f).sum();
    let df = collect(
        lf.group_by(keys).agg([
            len().cast(DataType::Int64).alias("n"),
            st("COMPLETED").cast(DataType::Int64).sum().alias("nc"),
            st("CANCELLED").cast(DataType::Int64).sum().alias("nk"),
            is_failed().cast(DataType::Int64).sum().alias("nf"),
            col("gpu_time_s").sum().alias("g"),
            gt(st("COMPLETED")).alias("gc"),
            gt(st("CANCELLED")).alias("gk"),
            gt(is_failed()).alias("gf"),
        ]),
        "acme final states",
    )?;
    let cs = strs(&df, "cluster")?;
    let gs = if by.is_some() { strs(&df, "group")? } else { vec![None; df.height()] };
    let ints = |c: &str| i64s(&df, c);
    let (n, nc, nk, nf) = (ints("n")?, ints("nc")?, ints("nk")?, ints("nf")?);
    let (g, gc, gk, gf) = (f64s(&df, "g")?, f64s(&df, "gc")?, f64s(&df, "gk")?, f64s(&df, "gf")?);
    let mut columns = vec!["cluster"];
    if let Some((name, _)) = by {
        columns.push(if name == "kind" { "type" } else { "gpus" });
    }
    columns.extend(["jobs", "completed_pct", "cancelled_pct", "failed_pct"]);
    columns.extend(["gpu_time_completed_pct", "gpu_time_cancelled_pct", "gpu_time_failed_pct"]);
    let mut t = ResultTable::new(&columns);
    let mut heads = Vec::new();
    let groups: Vec<Option<&str>> = by.map_or(vec![None], |(_, v)| v.iter().map(|x| Some(*x)).collect());
    for c in clusters {
        for grp in &groups {
            let Some(i) = (0..df.height()).find(|&i| cs[i].as_deref() == Some(c.as_str()) && gs[i].as_deref() == *grp)
            else {
                continue;
            };
            let total = n[i].unwrap_or(0) as f64;
            let share = |x: Option<i64>| pct(x.unwrap_or(0) as f64, total);
            let gshare = |x: Option<f64>| pct(x.unwrap_or(0.0), g[i].unwrap_or(0.0));
            let rates = [share(nc[i]), share(nk[i]), share(nf[i])];
            let times = [gshare(gc[i]), gshare(gk[i]), gshare(gf[i])];
            let mut row = vec![Cell::from(c.as_str())];
            if let Some(g) = grp {
                row.push((*g).into());
            }
            row.push(Cell::Int(total as i64));
            row.extend(rates.iter().chain(&times).map(|v| Cell::from(*v)));
            t.push(row);
            if grp.is_none() {
                for (k, state) in ["completed", "cancelled", "failed"].iter().enumerate() {
                    heads.push(Headline::new(
                        &format!("{c}.count.{state}"),
                        &format!("{c} GPU jobs {state}"),
                        rates[k],
                        "%",
                    ));
                    let label = format!("{c} GPU time of {state} jobs");
                    heads.push(Headline::new(&format!("{c}.gpu_time.{state}"), &label, times[k], "%"));
                }
            }
        }
    }
    Ok((t, heads))
}
