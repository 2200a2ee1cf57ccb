//! `acme.cluster-summary`: the owners' `data/cluster_summary.csv` (Seren,
//! Kalos, and their Philly, Helios and PAI rows), every column computed:
//! Seren and Kalos from `acme/jobs`, the three prior traces from the
//! unified `jobs` table of the same store. The owners computed the prior
//! rows from files their repository leaves out; here any store holding
//! those traces reproduces them with the definitions stated.

use std::borrow::Cow;
use std::collections::BTreeMap;

use polars::prelude::*;

use super::{is_failed, jobs};
use crate::declare::{About, Analyze, Memory, Published, Scope};
use crate::frame::{collect, f64s, strs};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::unified;

/// The published table, verbatim (InternLM/AcmeTrace, CC BY 4.0).
const PUBLISHED_CSV: &str = include_str!("../../../../data-samples/acme/cluster_summary.csv");
const SOURCE: &str = "AcmeTrace data/cluster_summary.csv";

/// The rows: (id, unified trace name), the AcmeTrace clusters first.
const PRIOR: [(&str, &str); 3] = [("Philly", "philly"), ("Helios", "helios"), ("PAI", "pai")];

pub struct ClusterSummary;

impl Analyze for ClusterSummary {
    type Params = ();
    /// Medians over the unified jobs of every trace (4.5 M at full scale).
    const MEMORY: Memory = Memory::PerRow(&unified::JOBS, 200);
    const ABOUT: About = About {
        id: "acme.cluster-summary",
        scope: Scope::Acme,
        mirrors: "AcmeTrace data/cluster_summary.csv (NSDI'24 Table 1 and Fig 9 inputs, with the Philly, Helios and PAI rows)",
        summary: "Per-cluster summary of Seren and Kalos beside Philly, Helios and PAI: jobs, run/queue times, GPUs, final states",
        title: "AcmeTrace cluster summary, with Philly, Helios and PAI",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors the owners' `data/cluster_summary.csv` (the table behind NSDI'24 Table 1 and Fig 9, with
rows for Philly, Helios and PAI that their repository cannot recompute: its notebook reads prior
traces from files it leaves out).

- **Rows:** Seren and Kalos from `acme/jobs`; Philly, Helios and PAI from the unified `jobs` table
  when the store holds them.
- **Columns**, exactly the file's: `job_num`, `cpu_job_num` (GPUs = 0), `gpu_job_num` (GPUs > 0);
  `avg/med_run_time_gpu|cpu` and `avg/med_que_time_gpu|cpu` (mean and linear median over the
  kind's jobs with a value); `avg/med_gpu_num` (over GPU jobs), `max_run_time_gpu`, `max_gpu`;
  `complete/cancel/fail_rate_gpu|cpu` (share of the kind's jobs in the state group; other states
  count in the denominator); `complete/cancel/fail_gpu_time` (GPUs × run summed over the GPU jobs
  of the group, GPU-seconds) and `*_rate_gpu_time` (their shares).
- **Definitions per row:** Seren and Kalos: run = raw `duration`, queue = raw `queue`, GPUs =
  `gpu_num`. Philly, Helios, PAI: run = `run_s`, queue = `queue_s`, GPUs = `gpus_requested`,
  states from the normalized status (completed, killed, failed).
- **Output:** part `summary` (the table) and the headlines `<row>.<column>` beside the published
  values.
- **Published:** the whole file (bundled in `data-samples/acme/`, CC BY 4.0). The owners left the
  Philly and PAI CPU columns and PAI's states empty.
- **Differences:** the owners' PAI row counts tasks (1,260,920) and the unified table PAI jobs, so
  PAI counts and GPU numbers differ; the prior rows follow the unified table's definitions
  ([Cross-trace conventions](#cross-trace-conventions)), not the owners' unpublished files.
"##;

    /// Every finite value of the published CSV, keyed `<id>.<column>`.
    fn published() -> Cow<'static, [Published]> {
        let mut all = Vec::new();
        for (id, row) in published_rows() {
            for (name, value) in row.into_iter().filter(|(_, v)| v.is_finite()) {
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

/// The published CSV: (id, column -> value; empty fields NaN), in file order.
pub fn published_rows() -> Vec<(String, BTreeMap<String, f64>)> {
    let mut lines = PUBLISHED_CSV.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').skip(1).collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split(',');
            let id = f.next().unwrap_or("").to_string();
            let row = header.iter().zip(f).map(|(h, v)| (h.to_string(), v.parse().unwrap_or(f64::NAN))).collect();
            (id, row)
        })
        .collect()
}

/// The published column names, in order (after `id`).
fn published_columns() -> Vec<String> {
    PUBLISHED_CSV.lines().next().unwrap_or("").split(',').skip(1).map(String::from).collect()
}

/// (id, gpus, run, queue, state group) rows: Seren and Kalos from acme/jobs
/// (raw duration and queue, as the owners' notebook), the prior traces
/// from the unified table.
fn frame(ctx: &Ctx) -> Result<LazyFrame> {
    let group = |done: Expr, cancel: Expr, fail: Expr| {
        when(done)
            .then(lit("complete"))
            .when(cancel)
            .then(lit("cancel"))
            .when(fail)
            .then(lit("fail"))
            .otherwise(lit(NULL))
    };
    let st = |s: &str| col("state").eq(lit(s.to_string()));
    let acme = jobs(ctx)?.select([
        col("cluster").alias("id"),
        col("gpus").cast(DataType::Float64).alias("g"),
        col("run_s").alias("run"),
        col("queue_s").alias("queue"),
        group(st("COMPLETED"), st("CANCELLED"), is_failed()).alias("st"),
    ]);
    let mut parts = vec![acme];
    if let Ok(all) = ctx.store.scan(&unified::JOBS) {
        let status = |s: &str| col("status").eq(lit(s.to_string()));
        let id = PRIOR.iter().fold(lit(NULL).cast(DataType::String), |rest, (id, t)| {
            when(col("trace").eq(lit(*t))).then(lit(*id)).otherwise(rest)
        });
        let prior = all.filter(col("trace").is_in(lit(Series::new("t".into(), PRIOR.map(|p| p.1))), false)).select([
            id.alias("id"),
            col("gpus_requested").alias("g"),
            col("run_s").alias("run"),
            col("queue_s").alias("queue"),
            group(status("completed"), status("killed"), status("failed")).alias("st"),
        ]);
        parts.push(prior);
    }
    concat(parts, UnionArgs::default()).map_err(|e| Error::polars("acme summary rows".to_string(), e))
}

/// Each published column as an aggregation over one row's jobs.
fn aggregations() -> Vec<(&'static str, Expr)> {
    let (gpu, cpu) = (|| col("g").gt(lit(0.0)), || col("g").eq(lit(0.0)));
    let count = |f: Expr| f.cast(DataType::Float64).sum();
    let rate = |s: &str, kind: Expr| col("st").eq(lit(s.to_string())).cast(DataType::Float64).filter(kind).mean();
    let gtime = |f: Expr| (col("g") * col("run")).filter(f).sum();
    let gpu_state = |s: &str| col("st").eq(lit(s.to_string())).and(gpu());
    let all_gt = || (col("g") * col("run")).filter(gpu().and(col("st").is_not_null())).sum();
    vec![
        ("job_num", len().cast(DataType::Float64)),
        ("cpu_job_num", count(cpu())),
        ("gpu_job_num", count(gpu())),
        ("avg_run_time_gpu", col("run").filter(gpu()).mean()),
        ("avg_que_time_gpu", col("queue").filter(gpu()).mean()),
        ("avg_gpu_num", col("g").filter(gpu()).mean()),
        ("med_run_time_gpu", col("run").filter(gpu()).median()),
        ("med_que_time_gpu", col("queue").filter(gpu()).median()),
        ("med_gpu_num", col("g").filter(gpu()).median()),
        ("max_run_time_gpu", col("run").filter(gpu()).max()),
        ("max_gpu", col("g").max()),
        ("complete_rate_gpu", rate("complete", gpu())),
        ("cancel_rate_gpu", rate("cancel", gpu())),
        ("fail_rate_gpu", rate("fail", gpu())),
        ("complete_gpu_time", gtime(gpu_state("complete"))),
        ("cancel_gpu_time", gtime(gpu_state("cancel"))),
        ("fail_gpu_time", gtime(gpu_state("fail"))),
        ("complete_rate_gpu_time", gtime(gpu_state("complete")) / all_gt()),
        ("cancel_rate_gpu_time", gtime(gpu_state("cancel")) / all_gt()),
        ("fail_rate_gpu_time", gtime(gpu_state("fail")) / all_gt()),
        ("avg_run_time_cpu", col("run").filter(cpu()).mean()),
        ("avg_que_time_cpu", col("queue").filter(cpu()).mean()),
        ("med_run_time_cpu", col("run").filter(cpu()).median()),
        ("med_que_time_cpu", col("queue").filter(cpu()).median()),
        ("complete_rate_cpu", rate("complete", cpu())),
        ("cancel_rate_cpu", rate("cancel", cpu())),
        ("fail_rate_cpu", rate("fail", cpu())),
    ]
}

fn run_summary(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let aggs = aggregations();
    debug_assert_eq!(aggs.iter().map(|a| a.0.to_string()).collect::<Vec<_>>(), published_columns());
    let exprs: Vec<Expr> = aggs.iter().map(|(n, e)| e.clone().cast(DataType::Float64).alias(*n)).collect();
    let df = collect(frame(ctx)?.group_by([col("id")]).agg(exprs), "acme cluster summary")?;
    let ids = strs(&df, "id")?;
    let values: Vec<Vec<Option<f64>>> = aggs.iter().map(|a| f64s(&df, a.0)).collect::<Result<_>>()?;
    let mut header = vec!["id"];
    header.extend(aggs.iter().map(|a| a.0));
    let mut t = ResultTable::new(&header);
    let mut heads = Vec::new();
    let order = super::CLUSTERS.iter().chain(PRIOR.iter().map(|p| &p.0));
    for id in order {
        let Some(i) = ids.iter().position(|x| x.as_deref() == Some(*id)) else { continue };
        let mut row = vec![Cell::from(*id)];
        for ((name, _), col) in aggs.iter().zip(&values) {
            let v = col[i].unwrap_or(f64::NAN);
            row.push(v.into());
            heads.push(Headline::new(&format!("{id}.{name}"), &format!("{id} {name}"), v, ""));
        }
        t.push(row);
    }
    out.table("summary", t);
    out.headlines("published", heads);
    Ok(())
}

const SUMMARY_DEF: &str = "The columns of the owners' data/cluster_summary.csv, one row per cluster. Seren and Kalos: acme/jobs, run = the raw duration column (Kalos' is end - submit, queueing included, as the owners' figures read it), queue = the raw queue column, GPUs = gpu_num; complete = COMPLETED, cancel = CANCELLED, fail = FAILED + TIMEOUT + NODE_FAIL (README note 1). Philly, Helios, PAI (when the store holds them): the unified jobs table, run = run_s, queue = queue_s, GPUs = gpus_requested (PAI: fractional, summed over a job's tasks; the owners' PAI row counts tasks, 1,260,920 of them, so its counts differ), states from the normalized status (completed, killed, failed). CPU jobs: GPUs = 0; GPU jobs: GPUs > 0. avg/med: mean and median (linear interpolation) over the kind's jobs with a value; max_gpu over all jobs; *_rate_*: share of the kind's jobs in the state group (jobs of other states count in the denominator); *_gpu_time: sum of GPUs x run of the GPU jobs in the group (GPU-seconds); *_rate_gpu_time: its share of the three groups' total. The published values are beside each headline; the owners left the PAI and Philly CPU columns and PAI's states empty.";
