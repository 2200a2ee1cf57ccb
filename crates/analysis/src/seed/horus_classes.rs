//! `seed.horus-classes`: Horus (Yeung et al., IEEE TPDS 2022) queues jobs
//! by their utilization profile. Here PAI tasks are grouped by k-means on
//! their min-max scaled mean GPU utilization, GPU memory and CPU usage
//! (k = 3, a seeded k-means++ start), with the class sizes, centroids and
//! each class's share of GPU time.
//!
//! A task (the notebook's unit: one role of a job) is described by the
//! means over its `dfws` instances (workers with a sensor row) that ask for
//! a GPU (`plan_gpu > 0`); tasks missing any of the three means are left
//! out. GPU time = sum over those instances of `plan_gpu / 100 x run_s`.

use polars::prelude::*;

use super::ml::kmeans;
use super::notes::Notes;
use super::present;
use crate::declare::{About, Analyze, Memory, Scope};
use crate::frame::{collect, f64s};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::pai::frames;
use crate::params::{params, Param};
use crate::Ctx;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::Trace;
use tracelab_stats::{min_max_scale, Clustering};

const K: Param<u64> = Param::whole("k", "3", "number of classes", 1, 20);
const SEED: Param<u64> = Param::whole("seed", "42", "seed of the k-means++ start (SplitMix64)", 0, u64::MAX);
const MAX_ITER: Param<u64> =
    Param::whole("max-iter", "300", "Lloyd iterations at most (scikit-learn's default)", 1, u64::MAX);

params! {
    pub struct ClassesParams {
        pub k: u64 = K,
        pub seed: u64 = SEED,
        pub max_iter: u64 = MAX_ITER,
    }
}

pub struct HorusClasses;

impl Analyze for HorusClasses {
    type Params = ClassesParams;
    /// Peak 1.17 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 165);
    const ABOUT: About = About {
        id: "seed.horus-classes",
        scope: Scope::Pai,
        mirrors: "Horus (Yeung et al., TPDS 2022): utilization classes of jobs; PAI only",
        summary:
            "k-means classes of PAI tasks by GPU utilization, GPU memory and CPU; sizes, centroids, GPU-time shares",
        title: "Utilization classes of PAI tasks (k-means)",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors Horus's utilization classes (jobs queued by class); PAI only.

- **Tasks:** `dfws` instances with `plan_gpu_pct` > 0, grouped by (`job_name`, `task_name`); features =
  the task's mean `gpu_wrk_util_pct`, mean `avg_gpu_wrk_mem_gib`, mean `cpu_usage_pct` (nulls skipped; tasks
  missing any mean are left out); GPU hours = Σ `plan_gpu_pct`/100 × `run_s` / 3600 over the same
  instances.
- **k-means:** each feature min-max scaled to [0, 1] (a constant feature becomes 0); k-means++ start
  (first centroid uniformly drawn, each next one with probability proportional to the squared
  distance to the nearest so far) from a SplitMix64 generator seeded `seed`, tasks in (job, task)
  order; then Lloyd's iterations (nearest centroid, ties to the lower index; centroid = mean of its
  tasks; an emptied class keeps its centroid, where scikit-learn would move it) until no assignment
  changes or `max-iter` steps.
- **Output:** table `classes` (c1 … ck by centroid GPU utilization, lowest first: tasks, GPU hours and
  their shares, the mean raw features and the scaled centroid), table `initial-centroids` (the start,
  which reproduces the run: the cross-check hands it to scikit-learn's `KMeans(init=…, n_init=1,
  algorithm="lloyd", tol=0)` and gets the same partition), headlines: tasks, iterations, inertia.
"##;

    fn definition(p: &ClassesParams) -> String {
        definition(p)
    }

    fn run(ctx: &Ctx, p: &ClassesParams, out: &mut Output) -> Result<()> {
        classes(ctx, p, out)
    }
}

/// The features, in matrix column order: (output name, dfws column).
pub const FEATURES: [(&str, &str); 3] =
    [("gpu_util_pct", "gpu_wrk_util_pct"), ("gpu_mem_gib", "avg_gpu_wrk_mem_gib"), ("cpu_pct", "cpu_usage_pct")];

/// The tasks' raw features (row-major) and GPU hours, in (job, task) order.
pub struct Tasks {
    pub raw: Vec<f64>,
    pub gpu_hours: Vec<f64>,
}

fn classes(ctx: &Ctx, p: &ClassesParams, out: &mut Output) -> Result<()> {
    let mut notes = Notes::default();
    let tasks = if present(ctx, Trace::Pai) {
        tasks(ctx)?
    } else {
        notes.add("pai", "not in the store (only PAI has per-job utilization)");
        Tasks { raw: Vec::new(), gpu_hours: Vec::new() }
    };
    notes.add("philly, helios", "no per-job utilization in the trace");
    let mut scaled = tasks.raw.clone();
    scale_columns(&mut scaled, FEATURES.len());
    let (init, c) = kmeans(&scaled, FEATURES.len(), p.k as usize, p.seed, p.max_iter as usize);
    let order = by_gpu_util(&c);
    out.table("classes", class_table(&tasks, &c, &order))
        .table("initial-centroids", init_table(&init))
        .headlines("run", run_headlines(&tasks, &c))
        .table("notes", notes.table());
    Ok(())
}

/// Per task of `dfws` GPU instances: mean features and GPU hours.
pub fn tasks(ctx: &Ctx) -> Result<Tasks> {
    let mut cols = vec!["job_name", "task_name", "plan_gpu_pct", "run_s"];
    cols.extend(FEATURES.iter().map(|f| f.1));
    let mut aggs: Vec<Expr> = FEATURES.iter().map(|(name, c)| col(*c).mean().alias(*name)).collect();
    aggs.push((col("plan_gpu_pct") / lit(100.0) * col("run_s")).sum().alias("gpu_s"));
    let lf = frames::instances_with_sensor(ctx, &cols)?
        .filter(col("plan_gpu_pct").gt(lit(0.0)))
        .group_by([col("job_name"), col("task_name")])
        .agg(aggs)
        .filter(
            all_horizontal(FEATURES.iter().map(|f| col(f.0).is_not_null()).collect::<Vec<_>>())
                .map_err(|e| Error::polars("task filter", e))?,
        )
        .sort(["job_name", "task_name"], SortMultipleOptions::default());
    let df = collect(lf, "seed.horus-classes tasks")?;
    let columns: Vec<Vec<Option<f64>>> = FEATURES.iter().map(|f| f64s(&df, f.0)).collect::<Result<_>>()?;
    let raw = (0..df.height()).flat_map(|i| columns.iter().map(move |c| c[i].unwrap_or(f64::NAN))).collect();
    let gpu_hours = f64s(&df, "gpu_s")?.into_iter().map(|s| s.unwrap_or(0.0) / 3600.0).collect();
    Ok(Tasks { raw, gpu_hours })
}

/// Min-max scales every column of a row-major matrix in place.
fn scale_columns(m: &mut [f64], dim: usize) {
    for j in 0..dim {
        let mut column: Vec<f64> = m.iter().skip(j).step_by(dim).copied().collect();
        min_max_scale(&mut column);
        m.iter_mut().skip(j).step_by(dim).zip(column).for_each(|(v, s)| *v = s);
    }
}

/// Class indices in output order: by centroid GPU utilization, lowest
/// first (ties by index).
fn by_gpu_util(c: &Clustering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..c.centroids.len()).collect();
    order.sort_by(|a, b| c.centroids[*a][0].total_cmp(&c.centroids[*b][0]).then(a.cmp(b)));
    order
}

fn class_table(tasks: &Tasks, c: &Clustering, order: &[usize]) -> ResultTable {
    let dim = FEATURES.len();
    let mut cols = vec!["class", "kmeans_index", "tasks", "tasks_pct", "gpu_hours", "gpu_time_pct"];
    cols.extend(FEATURES.iter().map(|f| f.0));
    cols.extend(["scaled_gpu_util", "scaled_gpu_mem", "scaled_cpu"]);
    let mut t = ResultTable::new(&cols);
    let (n, total_h) = (c.labels.len() as f64, tasks.gpu_hours.iter().sum::<f64>());
    for (rank, &k) in order.iter().enumerate() {
        let members: Vec<usize> = (0..c.labels.len()).filter(|&i| c.labels[i] == k).collect();
        let hours: f64 = members.iter().map(|&i| tasks.gpu_hours[i]).sum();
        let mean = |j: usize| members.iter().map(|&i| tasks.raw[i * dim + j]).sum::<f64>() / members.len() as f64;
        let mut row: Vec<Cell> = vec![
            format!("c{}", rank + 1).into(),
            (k as i64).into(),
            (members.len() as i64).into(),
            (100.0 * members.len() as f64 / n).into(),
            hours.into(),
            (100.0 * hours / total_h).into(),
        ];
        row.extend((0..dim).map(|j| Cell::from(mean(j))));
        row.extend(c.centroids[k].iter().map(|v| Cell::from(*v)));
        t.push(row);
    }
    t
}

/// The k-means++ start (scaled units), in k-means index order: what the
/// cross-check hands scikit-learn as `init`.
fn init_table(init: &[Vec<f64>]) -> ResultTable {
    let mut t = ResultTable::new(&["kmeans_index", "scaled_gpu_util", "scaled_gpu_mem", "scaled_cpu"]);
    for (i, c) in init.iter().enumerate() {
        let mut row = vec![Cell::from(i as i64)];
        row.extend(c.iter().map(|v| Cell::from(*v)));
        t.push(row);
    }
    t
}

fn run_headlines(tasks: &Tasks, c: &Clustering) -> Vec<Headline> {
    vec![
        Headline::new("tasks", "tasks clustered", tasks.gpu_hours.len() as f64, "tasks"),
        Headline::new("iterations", "Lloyd assignment steps", c.iterations as f64, ""),
        Headline::new("inertia", "sum of squared distances (scaled units)", c.inertia, ""),
    ]
}

fn definition(p: &ClassesParams) -> String {
    format!(
        "PAI dfws instances (workers with a sensor row) with plan_gpu_pct > 0, grouped per task (job_name, task_name): \
         features = mean gpu_wrk_util_pct (% of one GPU), mean avg_gpu_wrk_mem_gib (GiB), mean cpu_usage_pct (% of one vCPU) over \
         the task's instances (nulls skipped); tasks missing any mean are left out; GPU hours = sum of plan_gpu_pct/100 x \
         run_s / 3600 over the same instances. Each feature is min-max scaled to [0, 1] over the tasks (a constant \
         feature becomes 0). k-means with k = {k}: k-means++ start (first centroid uniform, then proportional to the \
         squared distance) drawn with SplitMix64 seeded {seed}, tasks in (job_name, task_name) order; then Lloyd's \
         iterations (nearest centroid, ties to the lower index; centroid = mean of its tasks; an emptied class keeps \
         its centroid) until no assignment changes or {it} steps. Classes c1..ck are ordered by centroid GPU \
         utilization, lowest first; the table gives tasks, GPU hours and their shares, the mean raw features (the \
         centroid in original units) and the scaled centroid; initial-centroids is the start, in k-means index \
         order.",
        k = p.k,
        seed = p.seed,
        it = p.max_iter
    )
}
