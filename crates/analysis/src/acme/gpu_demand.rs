//! `acme.gpu-demand`: GPUs requested per job by workload type and cluster,
//! as the notebook's box plot (NSDI'24 Fig 6, `box_gpu_num`): quartiles
//! and whiskers at 1.5 IQR (seaborn's default).

use polars::prelude::*;

use super::{jobs, selected_clusters, Clusters, CLUSTER, TYPES};
use crate::declare::{About, Analyze, Scope};
use crate::frame::dists_by;
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::params::{choice, params, Param};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_stats::Dist;

choice! {
    /// Which jobs the boxes count.
    pub enum BoxJobs {
        /// Every job, CPU jobs (0 GPUs) included, as the notebook's boxplot over the whole frame.
        All = "all",
        /// GPU jobs only.
        Gpu = "gpu",
    }
}

const JOBS: Param<BoxJobs> = Param::choice(
    "jobs",
    "all",
    "all: every job as the notebook's box plot (CPU jobs count with 0 GPUs, which its log axis hides); gpu: GPU jobs only",
);

params! {
    pub struct DemandParams {
        pub cluster: Clusters = CLUSTER,
        pub jobs: BoxJobs = JOBS,
    }
}

pub struct GpuDemand;

impl Analyze for GpuDemand {
    type Params = DemandParams;
    const ABOUT: About = About {
        id: "acme.gpu-demand",
        scope: Scope::Acme,
        mirrors: "NSDI'24 Fig 6 (analysis.ipynb box_gpu_num)",
        summary: "GPUs requested per job by workload type and cluster: quartiles, whiskers, mean",
        title: "GPU demand by workload type",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'24 Fig 6, notebook `box_gpu_num`.

- **Computes,** per cluster and workload type, the distribution of `gpu_num`: quartiles (linear),
  whiskers at the most extreme values within 1.5 IQR of the box (seaborn's boxplot), mean and
  largest.
- **Output:** part `box` (table), headlines: median and mean GPUs per series.
- **Published:** none.
- **Differences:** none with the defaults. The notebook drops Kalos' few SFT jobs from its plot;
  the table keeps them (the report's figure selects the notebook's types).
"##;

    fn definition(p: &DemandParams) -> String {
        let jobs = match p.jobs {
            BoxJobs::All => "every job of acme/jobs (CPU jobs count with gpu_num 0, as the notebook's sns.boxplot over the whole frame; its log axis hides them)",
            BoxJobs::Gpu => "GPU jobs of acme/jobs (gpu_num > 0)",
        };
        format!(
            "Per cluster and workload type (Evaluation counted as Eval), {jobs}: gpu_num's quartiles (linear interpolation), the whiskers at the most extreme values within 1.5 IQR of the box (seaborn's default), mean and largest."
        )
    }

    fn run(ctx: &Ctx, p: &DemandParams, out: &mut Output) -> Result<()> {
        let clusters = selected_clusters(ctx, p.cluster)?;
        let mut labels = Vec::new();
        for c in &clusters {
            labels.extend(TYPES.iter().map(|t| (c.clone(), t.to_string())));
        }
        let keys: Vec<String> = labels.iter().map(|(c, t)| format!("{c} {t}")).collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let mut lf = jobs(ctx)?;
        if p.jobs == BoxJobs::Gpu {
            lf = lf.filter(col("gpus").gt(lit(0)));
        }
        let key = concat_str([col("cluster"), col("kind")], " ", false);
        let dists = dists_by(lf, key, col("gpus"), &refs, "acme GPUs by type")?;
        let mut t = ResultTable::new(&[
            "cluster",
            "type",
            "jobs",
            "whisker_lo",
            "q1",
            "median",
            "q3",
            "whisker_hi",
            "mean",
            "max",
        ]);
        let mut heads = Vec::new();
        for ((c, k), (_, d)) in labels.iter().zip(&dists) {
            if d.n() == 0 {
                continue;
            }
            let (lo, q1, med, q3, hi) = box_of(d);
            let row = [lo, q1, med, q3, hi, d.mean(), d.max()];
            let mut cells = vec![Cell::from(c.as_str()), Cell::from(k.as_str()), Cell::from(d.n())];
            cells.extend(row.iter().map(|v| Cell::from(*v)));
            t.push(cells);
            heads.push(Headline::new(&format!("{c}.{k}.median"), &format!("{c} {k} median GPUs per job"), med, "GPUs"));
            heads.push(Headline::new(
                &format!("{c}.{k}.mean"),
                &format!("{c} {k} mean GPUs per job"),
                d.mean(),
                "GPUs",
            ));
        }
        out.table("box", t);
        out.headlines("summary", heads);
        Ok(())
    }
}

/// (lower whisker, Q1, median, Q3, upper whisker) as seaborn (matplotlib)
/// draws them: whiskers at the most extreme values within 1.5 IQR.
pub fn box_of(d: &Dist) -> (f64, f64, f64, f64, f64) {
    let (q1, med, q3) = (d.quantile(0.25), d.quantile(0.5), d.quantile(0.75));
    let iqr = q3 - q1;
    let (lo_fence, hi_fence) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
    let lo = d.values().iter().copied().find(|v| *v >= lo_fence).unwrap_or(q1);
    let hi = d.values().iter().rev().copied().find(|v| *v <= hi_fence).unwrap_or(q3);
    (lo, q1, med, q3, hi)
}
