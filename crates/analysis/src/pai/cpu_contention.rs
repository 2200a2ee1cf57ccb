//! CPU contention vs slowdown of recurring instances (NSDI'22 Sec 6, "CPU
//! can be the bottleneck"; paper only). Within recurring groups, an
//! instance's slowdown is its runtime over the group's median runtime;
//! instances are accelerated (< low), normal, or delayed (> high). The paper
//! found that machines above 24 % CPU utilization ran about half of the
//! delayed CTR instances but only a tenth of the accelerated ones.
//!
//! Population: `dfw` instances (one per worker; group := user when untagged)
//! with a runtime `run_s > 0`, inner-joined to their `pai/machine_metric` row
//! on `worker_name`, optionally one workload tag; groups with at least
//! `min-group` such instances.

use polars::prelude::*;

use super::bins::over;
use super::frames;
use crate::declare::{About, Analyze, Memory, Published, Scope};
use crate::frame::{collect, dist_by_sort, dists_by_sort, f64s, strs};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::params::{params, FromParam, Param};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::pai::MACHINE_METRIC;
use tracelab_stats::{map_on_two_threads, pearson, spearman, Correlation};

/// Which instances: every workload, or one workload tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Workload {
    All,
    Tag(String),
}

impl FromParam for Workload {
    fn from_param(raw: &str) -> Option<Workload> {
        match raw {
            "" => None,
            "all" => Some(Workload::All),
            tag => Some(Workload::Tag(tag.to_string())),
        }
    }
}

impl std::fmt::Display for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Workload::All => f.write_str("all"),
            Workload::Tag(tag) => f.write_str(tag),
        }
    }
}

const LOW: Param<f64> = Param::number("low", "0.8", "accelerated: slowdown below this");
const HIGH: Param<f64> = Param::number("high", "1.25", "delayed: slowdown above this");
const MIN_GROUP: Param<u64> =
    Param::whole("min-group", "5", "a group recurs with at least this many instances", 0, u64::MAX);
const CPU_THRESHOLD: Param<f64> =
    Param::number("cpu-threshold", "24", "machine_cpu_pct (%) above which a machine is CPU-busy");
const WORKLOAD: Param<Workload> =
    Param::custom("workload", "all", "restrict to one workload tag (e.g. ctr), or all", "all or a workload tag");

params! {
    pub struct ContentionParams {
        pub low: f64 = LOW,
        pub high: f64 = HIGH,
        pub min_group: u64 = MIN_GROUP,
        pub cpu_threshold: f64 = CPU_THRESHOLD,
        pub workload: Workload = WORKLOAD,
    }
}

pub struct CpuContention;

const SOURCE: &str = "NSDI'22 Sec 6 (CTR instances)";

impl Analyze for CpuContention {
    type Params = ContentionParams;
    /// Peak 2.22 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 310);
    const ABOUT: About = About {
        id: "pai.cpu-contention",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 6 \"CPU can be the bottleneck\" (paper only)",
        summary: "slowdown classes of recurring instances vs machine CPU load; correlations with machine metrics",
        title: "CPU contention and slowdown of recurring instances",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Sec 6, "CPU can be the bottleneck" (paper only).

- **Population:** `dfw` instances with `run_s` > 0, inner-joined to their `pai/machine_metric`
  row on `worker_name` (machine-level averages over that instance's lifetime), optionally only
  one `workload`; then only groups (`dfw.group`) with at least `min-group` such instances.
- **Slowdown** = `run_s` / median `run_s` of the instance's group (same population). Classes:
  *accelerated* below `low`, *delayed* above `high`, *normal* otherwise.
- **Output:** part `classes` (instances per class and the share on CPU-busy machines, i.e.
  `machine_cpu_pct` > `cpu-threshold`, among instances with a `machine_cpu_pct`); headlines for the
  delayed, accelerated and normal classes; distributions of `machine_cpu_pct` and `machine_gpu_pct` by
  class and of the slowdown; part `correlations`: Pearson r and Spearman ρ (average ranks) of the
  slowdown with `machine_cpu_pct`, `machine_gpu_pct`, `machine_load_1` and `machine_num_worker`, over
  instances with both values finite, with n, a 95 % Fisher-z interval (Spearman standard error
  √(1.06/(n−3))) and a two-sided t-test p-value.
- **Published:** machines above 24 % CPU utilization ran about half of the delayed CTR instances
  but only a tenth of the accelerated ones (NSDI'22 Sec 6). These are CTR numbers: compare with
  `workload=ctr`.
- **Differences:** no upstream code; the slowdown and class thresholds are tracelab's. Instances
  of jobs without a group-tag row have no group in `dfw` and form one group together (see the
  PAI notes above).
"##;
    const PUBLISHED: &'static [Published] =
        &[Published::new("delayed_busy", 50.0, "%", SOURCE), Published::new("accelerated_busy", 10.0, "%", SOURCE)];

    fn definition(p: &ContentionParams) -> String {
        definition(p)
    }

    fn run(ctx: &Ctx, p: &ContentionParams, out: &mut Output) -> Result<()> {
        cpu_contention(ctx, p, out)
    }
}

/// Slowdown classes in output order.
pub const CLASSES: [&str; 3] = ["accelerated", "normal", "delayed"];
/// Machine metrics correlated with the slowdown.
pub const METRICS: [&str; 4] = ["machine_cpu_pct", "machine_gpu_pct", "machine_load_1", "machine_num_worker"];

/// Recurring instances with slowdown, class and the machine metrics.
fn slowdowns(ctx: &Ctx, p: &ContentionParams) -> Result<LazyFrame> {
    let (low, high, min) = (p.low, p.high, p.min_group);
    let mut metric_cols = vec![col("worker_name")];
    metric_cols.extend(METRICS.iter().map(|m| col(*m)));
    let metrics = ctx.store.scan(&MACHINE_METRIC)?.select(metric_cols);
    let mut inst = frames::instances(ctx, &["worker_name", "group", "workload", "run_s"])?
        .filter(col("run_s").gt(lit(0.0)))
        .join(metrics, [col("worker_name")], [col("worker_name")], JoinArgs::new(JoinType::Inner));
    if let Workload::Tag(tag) = &p.workload {
        inst = inst.filter(col("workload").eq(lit(tag.clone())));
    }
    let slowdown = col("run_s") / over(col("run_s").median(), &["group"])?;
    Ok(inst
        .filter(over(len(), &["group"])?.gt_eq(lit(min as u32)))
        .with_column(slowdown.alias("slowdown"))
        .with_column(
            when(col("slowdown").lt(lit(low)))
                .then(lit(CLASSES[0]))
                .when(col("slowdown").gt(lit(high)))
                .then(lit(CLASSES[2]))
                .otherwise(lit(CLASSES[1]))
                .alias("class"),
        ))
}

fn cpu_contention(ctx: &Ctx, p: &ContentionParams, out: &mut Output) -> Result<()> {
    let thr = p.cpu_threshold;
    // Shares, distributions and correlations all read it: evaluate once.
    let lf = collect(slowdowns(ctx, p)?, "recurring instances")?.lazy();
    let shares = collect(
        lf.clone()
            .filter(col("machine_cpu_pct").is_not_null())
            .group_by([col("class")])
            .agg([len().cast(DataType::Float64).alias("n"), col("machine_cpu_pct").gt(lit(thr)).mean().alias("busy")]),
        "busy shares",
    )?;
    let (keys, busy, ns) = (strs(&shares, "class")?, f64s(&shares, "busy")?, f64s(&shares, "n")?);
    let share_of = |c: &str| {
        keys.iter()
            .position(|k| k.as_deref() == Some(c))
            .map_or((f64::NAN, 0.0), |i| (busy[i].unwrap_or(f64::NAN), ns[i].unwrap_or(0.0)))
    };
    let mut counts = ResultTable::new(&["class", "instances", "busy_share_pct"]);
    for c in CLASSES {
        let (s, n) = share_of(c);
        counts.push(vec![c.into(), (n as i64).into(), (100.0 * s).into()]);
    }
    let cpu = dists_by_sort(lf.clone(), col("class"), col("machine_cpu_pct"), &CLASSES, "machine_cpu_pct by class")?;
    let gpu = dists_by_sort(lf.clone(), col("class"), col("machine_gpu_pct"), &CLASSES, "machine_gpu_pct by class")?;
    let slow = dist_by_sort(lf.clone(), col("slowdown"), "slowdown")?;
    let corr = correlations(lf)?;
    let headlines = vec![
        Headline::new(
            "delayed_busy",
            &format!("delayed instances on machines with machine_cpu_pct > {thr} %"),
            100.0 * share_of("delayed").0,
            "%",
        ),
        Headline::new(
            "accelerated_busy",
            &format!("accelerated instances on machines with machine_cpu_pct > {thr} %"),
            100.0 * share_of("accelerated").0,
            "%",
        ),
        Headline::new(
            "normal_busy",
            &format!("normal instances on machines with machine_cpu_pct > {thr} %"),
            100.0 * share_of("normal").0,
            "%",
        ),
    ];
    out.table("classes", counts)
        .headlines("busy-machines", headlines)
        .dists("machine-cpu", "machine_cpu_pct (%)", cpu)
        .dists("machine-gpu", "machine_gpu_pct (%)", gpu)
        .dists("slowdown", "runtime / group median runtime", vec![("recurring instances".into(), slow)])
        .table("correlations", corr);
    Ok(())
}

fn definition(p: &ContentionParams) -> String {
    let thr = p.cpu_threshold;
    format!(
        "dfw instances (one per worker; group = group tag, the user where untagged) with run_s > 0, inner join \
         pai/machine_metric on worker_name (machine-level lifetime averages of that instance), workload = {}; groups \
         with >= {} such instances; slowdown = run_s / median run_s of the group (same population); accelerated < {}, \
         delayed > {}, normal otherwise. busy share = instances of the class with machine_cpu_pct > {thr} / instances \
         of the class with a machine_cpu_pct. Correlations over instances with both values finite: Pearson r and \
         Spearman rho (average ranks) with n, 95 % Fisher-z interval (Spearman se sqrt(1.06/(n-3))) and two-sided t-test \
         p-value. The paper's numbers are for CTR instances (workload=ctr)",
        p.workload, p.min_group, p.low, p.high
    )
}

/// Pearson and Spearman of slowdown with each machine metric.
fn correlations(lf: LazyFrame) -> Result<ResultTable> {
    let mut select = vec![col("slowdown")];
    select.extend(METRICS.iter().map(|m| col(*m).cast(DataType::Float64)));
    let df = collect(lf.select(select).sort(["slowdown"], SortMultipleOptions::default()), "correlation inputs")?;
    let slow = f64s(&df, "slowdown")?;
    let values: Vec<Vec<Option<f64>>> = METRICS.iter().map(|m| f64s(&df, m)).collect::<Result<_>>()?;
    let pair = |v: &[Option<f64>]| -> (Correlation, Correlation) {
        let (x, y): (Vec<f64>, Vec<f64>) =
            slow.iter().zip(v).filter_map(|(a, b)| a.zip(*b).filter(|p| p.0.is_finite() && p.1.is_finite())).unzip();
        (pearson(&x, &y), spearman(&x, &y))
    };
    // The metrics are independent (each ranks millions of values).
    let results = map_on_two_threads(&values, |v| pair(v));
    let mut t = ResultTable::new(&["metric", "method", "n", "r", "ci_low", "ci_high", "p_value"]);
    for (m, (p, s)) in METRICS.iter().zip(&results) {
        t.push(corr_row(m, "pearson", p));
        t.push(corr_row(m, "spearman", s));
    }
    Ok(t)
}

fn corr_row(metric: &str, method: &str, c: &Correlation) -> Vec<Cell> {
    vec![
        metric.into(),
        method.into(),
        (c.n as i64).into(),
        c.r.into(),
        c.ci_low.into(),
        c.ci_high.into(),
        c.p_value.into(),
    ]
}

#[cfg(test)]
mod tests {
    use polars::df;

    use super::*;
    use crate::testkit;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, MACHINE_METRIC, TASK};

    /// Group g: five instances with runtimes 10, 20, 30, 40, 100 (median
    /// 30): slowdowns 1/3, 2/3, 1, 4/3, 10/3 -> accelerated, accelerated,
    /// normal, delayed, delayed. machine_cpu 10, 30, 50, 20, 40: above 24 %
    /// are 1 of 2 accelerated, 1 of 2 delayed, 1 of 1 normal. Group h has
    /// four instances only and is left out.
    #[test]
    fn slowdown_classes_by_hand() {
        let n = 9;
        let workers: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
        let jobs: Vec<&str> = (0..n).map(|i| if i < 5 { "a" } else { "b" }).collect();
        let ids: Vec<&str> = (0..n).map(|i| if i < 5 { "ia" } else { "ib" }).collect();
        let t = testkit::store(vec![
            (&TASK, DataFrame::empty()),
            (&JOB, df!("job_name" => ["a", "b"], "inst_id" => ["ia", "ib"], "user" => ["u", "u"], "status" => ["Terminated"; 2]).unwrap()),
            (
                &INSTANCE,
                df!("job_name" => &jobs, "task_name" => vec!["t"; n], "inst_name" => &workers, "worker_name" => &workers,
                    "inst_id" => &ids, "status" => vec!["Terminated"; n], "run_s" => [10.0, 20.0, 30.0, 40.0, 100.0, 1.0, 2.0, 3.0, 4.0])
                .unwrap(),
            ),
            (&GROUP_TAG, df!("inst_id" => ["ia", "ib"], "user" => ["u", "u"], "group" => ["g", "h"]).unwrap()),
            (
                &MACHINE_METRIC,
                df!("worker_name" => &workers, "machine" => vec!["m"; n],
                    "machine_cpu_pct" => [10.0, 30.0, 50.0, 20.0, 40.0, 90.0, 90.0, 90.0, 90.0])
                .unwrap(),
            ),
        ]);
        let out = testkit::run(&CpuContention, &t, &[]);
        let crate::output::Body::Table(classes) = &out.part("classes").unwrap().body else { panic!() };
        let n: Vec<f64> = classes.column("instances").unwrap().iter().map(|c| c.as_f64().unwrap()).collect();
        let busy: Vec<f64> = classes.column("busy_share_pct").unwrap().iter().map(|c| c.as_f64().unwrap()).collect();
        assert_eq!(n, vec![2.0, 1.0, 2.0]);
        assert_eq!(busy, vec![50.0, 100.0, 50.0]);
        let crate::output::Body::Dists { series, .. } = &out.part("slowdown").unwrap().body else { panic!() };
        assert_eq!(series[0].1.n(), 5);
        assert!((series[0].1.max() - 10.0 / 3.0).abs() < 1e-12);
    }
}
