//! The per-cluster summary table (`helios_cluster_summary.csv` of
//! HeliosArtifact, whose generator is not published): the same columns and
//! row ids, each definition inferred from the published values and stated
//! in the output, so a user with the real trace gets the published table.

use std::borrow::Cow;

use polars::prelude::*;

use super::{is_failed, jobs, present_clusters};
use crate::declare::{About, Analyze, Memory, Published, Scope};
use crate::frame::{collect, f64s, strs};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema as schema;
use tracelab_schema::error::Result;

/// The published table, verbatim (the real file of HeliosArtifact, MIT).
const PUBLISHED_CSV: &str = include_str!("../../../../data-samples/helios/helios_cluster_summary.csv");

const SOURCE: &str = "helios_cluster_summary.csv (HeliosArtifact)";

pub struct ClusterSummary;

impl Analyze for ClusterSummary {
    type Params = ();
    /// Peak 0.87 GB over the 3.36 M Helios jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::helios::JOBS, 260);
    const ABOUT: About = About {
        id: "helios.cluster-summary",
        scope: Scope::Helios,
        mirrors: "HeliosArtifact helios_cluster_summary.csv (SC'21 Table 2, Fig 1b/7a inputs)",
        summary:
            "Per-cluster summary: job counts, mean/median run and queue times, final-state rates, GPU time by state",
        title: "Helios per-cluster summary",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors HeliosArtifact `helios_cluster_summary.csv` (the table behind SC'21 Table 2 and the inputs
of Fig 1b and 7a). The code that made the file is not published, so each column's definition
below was worked out from the published values.

- **Rows:** one per cluster present, then `total` (all clusters).
- **Columns**, exactly the file's:
  - `gpu_num`: the mean over dates of the day's GPUs (sum over VCs), rounded down; for `total`,
    of the day's sum over clusters. This gives Venus 1022 and Earth 997, and explains why the
    published total (6220) is not the sum of the rows (6218).
  - `job_num` (all jobs), `cpu_job_num` (`gpus` = 0), `gpu_job_num` (`gpus` > 0).
  - `avg_run_time_cpu/gpu`, `med_run_time_cpu/gpu`: mean and median (linear) of `run_s` over CPU
    or GPU jobs; `avg_que_time_*`, `med_que_time_*` the same of `queue_s`;
    `avg_gpu_num`, `med_gpu_num`: of `gpus` over GPU jobs.
  - `complete_rate`, `cancel_rate`, `fail_rate`, and the `_cpu` and `_gpu` variants: fractions of
    the row's jobs (all, CPU or GPU) that are COMPLETED, CANCELLED, or failed (FAILED, TIMEOUT,
    NODE_FAIL).
  - `complete_gpu_time`, `cancel_gpu_time`, `fail_gpu_time`: sum of `gpus` × `run_s` (GPU
    seconds) over the GPU jobs of each state group.
  - Floats are rounded to 3 decimals, half to even (as pandas rounds).
- **SUSPENDED:** the one SUSPENDED job counts in `job_num` and the time statistics but in no state
  group, so its row's rates can sum to just under 1 (invisible at 3 decimals).
- **Output:** part `summary` (the table) and part `vs-published`: every value beside the published
  one, for the clusters present.
- **Published:** the whole file (bundled in `data-samples/helios/`).
- **Differences:** none intended. The job-based definitions are inferred from the published
  values; `gpu_num` was checked against the real GPU tables bundled in `data-samples/helios/`.
"##;

    /// Every value of the published CSV, keyed `<id>.<column>`.
    fn published() -> Cow<'static, [Published]> {
        let (names, rows) = published_table();
        let mut all = Vec::new();
        for (id, values) in rows {
            for (name, value) in names.iter().zip(values) {
                let key = Cow::Owned(format!("{id}.{name}"));
                all.push(Published { key, value, unit: "", source: SOURCE, when: &[] });
            }
        }
        Cow::Owned(all)
    }

    fn definition(_: &()) -> String {
        SUMMARY_DEF.into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        run_summary(ctx, out)
    }
}

/// The CSV's columns, in order (after `id` and `gpu_num`), with how each
/// is computed over a row's jobs.
fn job_columns() -> Vec<(&'static str, Expr)> {
    let gpu = || col("gpus").gt(lit(0));
    let cpu = || col("gpus").eq(lit(0));
    let n = |f: Expr| f.cast(DataType::Int64).sum().cast(DataType::Float64);
    let st = |s: &str| col("state").eq(lit(s.to_string()));
    // Share of the kind's jobs in a state group: filter first, then mean.
    let state_rates = |kind: Option<Expr>| {
        let rate = |f: Expr| {
            let v = f.cast(DataType::Float64);
            match &kind {
                Some(k) => v.filter(k.clone()).mean(),
                None => v.mean(),
            }
        };
        [rate(st("COMPLETED")), rate(st("CANCELLED")), rate(is_failed())]
    };
    let [c, k, f] = state_rates(None);
    let [cc, kc, fc] = state_rates(Some(cpu()));
    let [cg, kg, fg] = state_rates(Some(gpu()));
    let gtime = |f: Expr| (col("gpus").cast(DataType::Float64) * col("run_s")).filter(f).sum();
    vec![
        ("job_num", len().cast(DataType::Float64)),
        ("cpu_job_num", n(cpu())),
        ("gpu_job_num", n(gpu())),
        ("avg_run_time_cpu", col("run_s").filter(cpu()).mean()),
        ("avg_run_time_gpu", col("run_s").filter(gpu()).mean()),
        ("avg_que_time_cpu", col("queue_s").filter(cpu()).mean()),
        ("avg_que_time_gpu", col("queue_s").filter(gpu()).mean()),
        ("avg_gpu_num", col("gpus").filter(gpu()).cast(DataType::Float64).mean()),
        ("med_run_time_cpu", col("run_s").filter(cpu()).median()),
        ("med_run_time_gpu", col("run_s").filter(gpu()).median()),
        ("med_que_time_cpu", col("queue_s").filter(cpu()).median()),
        ("med_que_time_gpu", col("queue_s").filter(gpu()).median()),
        ("med_gpu_num", col("gpus").filter(gpu()).cast(DataType::Float64).median()),
        ("complete_rate", c),
        ("cancel_rate", k),
        ("fail_rate", f),
        ("complete_rate_cpu", cc),
        ("cancel_rate_cpu", kc),
        ("fail_rate_cpu", fc),
        ("complete_rate_gpu", cg),
        ("cancel_rate_gpu", kg),
        ("fail_rate_gpu", fg),
        ("complete_gpu_time", gtime(st("COMPLETED").and(gpu()))),
        ("cancel_gpu_time", gtime(st("CANCELLED").and(gpu()))),
        ("fail_gpu_time", gtime(is_failed().and(gpu()))),
    ]
}

/// Columns written as whole numbers in the CSV (`int`), the rest as floats
/// rounded to 3 decimals.
const INT_COLUMNS: [&str; 4] = ["gpu_num", "job_num", "cpu_job_num", "gpu_job_num"];

/// numpy/pandas `round(3)`: half to even on x * 1000.
fn round3(x: f64) -> f64 {
    (x * 1000.0).round_ties_even() / 1000.0
}

/// gpu_num per cluster and for all: floor of the mean over days of the
/// day's total GPUs (the sum over clusters for `total`). This reproduces
/// Venus 1022 and Earth 997 from the real GPU tables, and explains why the
/// published total (6220) is not the sum of the rows (6218).
fn gpu_num(ctx: &Ctx) -> Result<Vec<(String, f64)>> {
    let daily =
        ctx.store.scan(&schema::helios::VC_GPUS)?.group_by([col("cluster"), col("date")]).agg([col("gpus").sum()]);
    let per = daily.clone().group_by([col("cluster")]).agg([col("gpus").cast(DataType::Float64).mean()]);
    let all = daily
        .group_by([col("date")])
        .agg([col("gpus").sum()])
        .select([lit("total").alias("cluster"), col("gpus").cast(DataType::Float64).mean()]);
    let df = collect(
        concat([per, all], UnionArgs::default())
            .map_err(|e| tracelab_schema::error::Error::polars("gpu_num".to_string(), e))?,
        "gpu_num",
    )?;
    let (cs, gs) = (strs(&df, "cluster")?, f64s(&df, "gpus")?);
    Ok(cs.into_iter().zip(gs).map(|(c, g)| (c.unwrap_or_default(), g.map_or(f64::NAN, f64::floor))).collect())
}

/// Rows as (id, values in CSV column order after `id`).
type IdRows = Vec<(String, Vec<f64>)>;

/// The summary rows, computed: (id, values in CSV column order after id).
fn rows(ctx: &Ctx) -> Result<(Vec<String>, IdRows)> {
    let cols = job_columns();
    let names: Vec<String> = std::iter::once("gpu_num").chain(cols.iter().map(|c| c.0)).map(String::from).collect();
    let aggs: Vec<Expr> = cols.iter().map(|(n, e)| e.clone().cast(DataType::Float64).alias(*n)).collect();
    let per = jobs(ctx)?.group_by([col("cluster")]).agg(aggs.clone());
    let all = jobs(ctx)?.select(aggs).with_column(lit("total").alias("cluster"));
    let df = collect(
        concat([per, all], UnionArgs { diagonal: true, ..Default::default() })
            .map_err(|e| tracelab_schema::error::Error::polars("summary".to_string(), e))?,
        "cluster summary",
    )?;
    let ids = strs(&df, "cluster")?;
    let values: Vec<Vec<Option<f64>>> = cols.iter().map(|c| f64s(&df, c.0)).collect::<Result<_>>()?;
    let gpus = gpu_num(ctx)?;
    let mut order = present_clusters(ctx)?;
    order.push("total".into());
    let out = order
        .iter()
        .map(|id| {
            let i = ids.iter().position(|x| x.as_deref() == Some(id.as_str()));
            let g = gpus.iter().find(|(c, _)| c == id).map_or(f64::NAN, |x| x.1);
            let mut v = vec![g];
            v.extend(values.iter().map(|col| i.and_then(|i| col[i]).unwrap_or(f64::NAN)));
            (id.clone(), v)
        })
        .collect();
    Ok((names, out))
}

/// The published CSV: (header after id, rows by id).
fn published_table() -> (Vec<String>, IdRows) {
    let mut lines = PUBLISHED_CSV.lines();
    let header: Vec<String> = lines.next().unwrap_or("").split(',').skip(1).map(String::from).collect();
    let rows = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split(',');
            let id = f.next().unwrap_or("").to_string();
            (id, f.map(|x| x.parse().unwrap_or(f64::NAN)).collect())
        })
        .collect();
    (header, rows)
}

fn run_summary(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let (names, computed) = rows(ctx)?;
    let (pub_names, pub_rows) = published_table();
    debug_assert_eq!(names, pub_names, "column list must equal the published header");
    let mut header = vec!["id"];
    header.extend(names.iter().map(String::as_str));
    let mut t = ResultTable::new(&header);
    let mut heads = Vec::new();
    for (id, vals) in &computed {
        let mut row = vec![Cell::from(id.as_str())];
        for (name, v) in names.iter().zip(vals) {
            row.push(match (INT_COLUMNS.contains(&name.as_str()), v.is_finite()) {
                (_, false) => Cell::Null,
                (true, true) => Cell::Int(*v as i64),
                (false, true) => Cell::Float(round3(*v)),
            });
        }
        t.push(row);
        if pub_rows.iter().any(|(pid, _)| pid == id) {
            for (j, name) in names.iter().enumerate() {
                heads.push(Headline::new(&format!("{id}.{name}"), &format!("{id} {name}"), round3(vals[j]), ""));
            }
        }
    }
    out.table("summary", t);
    out.headlines("vs-published", heads);
    Ok(())
}

const SUMMARY_DEF: &str = "One row per cluster present plus `total` (all clusters), columns exactly those of helios_cluster_summary.csv. gpu_num = floor(mean over the days of helios/vc_gpus of the day's GPUs summed over VCs) (for total: of the day's sum over clusters; this gives 6220 while the rows sum to 6218, as published). job_num = all jobs; cpu_job_num = gpus == 0; gpu_job_num = gpus > 0. avg_/med_run_time_cpu/gpu = mean / median (linear) of run_s (raw `duration`, s) over CPU / GPU jobs; avg_/med_que_time_* the same of queue_s (raw `queue`, start - submit); avg_/med_gpu_num = mean / median of gpus over GPU jobs. Rates are fractions of the row's jobs (all, CPU, GPU): complete = COMPLETED, cancel = CANCELLED, fail = FAILED + TIMEOUT + NODE_FAIL (TIMEOUT and NODE_FAIL regarded as failed). SUSPENDED (one Uranus job upstream) counts in job_num and the time statistics but in no state, so its row's rates may sum to slightly under 1 (at 1/490,309 this is invisible at 3 decimals). *_gpu_time = sum of gpus * run_s (GPU seconds) over GPU jobs in that state group. Floats rounded to 3 decimals half-to-even (pandas round(3)). Headlines put every value beside the published one for the clusters present.";
