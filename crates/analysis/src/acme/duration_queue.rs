//! `acme.duration-queue`: GPU-job duration and queueing-delay CDFs per
//! workload type and cluster (NSDI'24 Fig 5, the notebook's
//! `cdf_job_duration_queue`), on the notebook's fixed grids.

use polars::prelude::*;

use super::{
    duration, duration_grid, duration_text, grid_cdf, jobs, queue_grid, selected_clusters, Clusters, Duration, CLUSTER,
    DURATION, TYPES,
};
use crate::declare::{About, Analyze, Scope};
use crate::frame::dists_by;
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::params::params;
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_stats::Dist;

params! {
    pub struct DqParams {
        pub cluster: Clusters = CLUSTER,
        pub duration: Duration = DURATION,
    }
}

pub struct DurationQueue;

impl Analyze for DurationQueue {
    type Params = DqParams;
    const ABOUT: About = About {
        id: "acme.duration-queue",
        scope: Scope::Acme,
        mirrors: "NSDI'24 Fig 5 (analysis.ipynb cdf_job_duration_queue)",
        summary: "GPU-job duration and queueing-delay CDFs per workload type and cluster",
        title: "Duration and queueing delay by workload type",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'24 Fig 5, notebook `cdf_job_duration_queue`.

- **Computes,** per cluster and workload type, over GPU jobs: the duration CDF on 2^i s (i =
  0..21) and the queueing-delay CDF (raw `queue`) on 2^i s (i = 0..15); series
  `<cluster> <type>`.
- **Output:** parts `duration`, `queue` (curves), `quantiles` (n, duration P50, P90 and mean,
  queueing P50, P90 and mean per series); headlines: median duration and mean queueing per series.
- **Published:** none.
- **Differences:** none with the defaults.
"##;

    fn definition(p: &DqParams) -> String {
        format!(
            "Per cluster and workload type, acme/jobs GPU jobs (gpus > 0); {}; queueing = the raw queue column (start - submit). Series '<cluster> <type>': y = 100 * count(x <= t) / count at t = 2^i s, i = 0..21 for the duration and i = 0..15 for the queueing (the notebook's calculate_num_cdf_customized_xaxis, joined by lines), jobs with no value excluded. Table quantiles: n, duration and queueing P50 / P90 and mean per series.",
            duration_text(p.duration)
        )
    }

    fn run(ctx: &Ctx, p: &DqParams, out: &mut Output) -> Result<()> {
        let clusters = selected_clusters(ctx, p.cluster)?;
        let mut labels = Vec::new();
        for c in &clusters {
            labels.extend(TYPES.iter().map(|t| format!("{c} {t}")));
        }
        let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
        let gpu = jobs(ctx)?.filter(col("gpus").gt(lit(0)));
        let key = concat_str([col("cluster"), col("kind")], " ", false);
        let durs = dists_by(gpu.clone(), key.clone(), duration(p.duration), &refs, "acme durations by type")?;
        let queues = dists_by(gpu, key, col("queue_s"), &refs, "acme queueing by type")?;
        let keep =
            |d: &Vec<(String, Dist)>| -> Vec<(String, Dist)> { d.iter().filter(|s| s.1.n() > 0).cloned().collect() };
        let (durs, queues) = (keep(&durs), keep(&queues));
        out.table("quantiles", quantiles(&durs, &queues));
        out.headlines("summary", headlines(&durs, &queues));
        let (dg, qg) = (duration_grid(), queue_grid());
        out.curves(
            "duration",
            "GPU job duration (s)",
            "fraction of jobs (%)",
            durs.iter().map(|(l, d)| (l.clone(), grid_cdf(d, &dg))).collect(),
        );
        out.curves(
            "queue",
            "GPU job queueing delay (s)",
            "fraction of jobs (%)",
            queues.iter().map(|(l, d)| (l.clone(), grid_cdf(d, &qg))).collect(),
        );
        Ok(())
    }
}

fn quantiles(durs: &[(String, Dist)], queues: &[(String, Dist)]) -> ResultTable {
    let mut t = ResultTable::new(&[
        "series",
        "jobs",
        "duration_p50_s",
        "duration_p90_s",
        "duration_mean_s",
        "queue_p50_s",
        "queue_p90_s",
        "queue_mean_s",
    ]);
    for (label, d) in durs {
        let q = queues.iter().find(|(l, _)| l == label).map(|(_, q)| q.clone()).unwrap_or_default();
        let qv = |f: &dyn Fn(&Dist) -> f64| if q.n() > 0 { Cell::from(f(&q)) } else { Cell::Null };
        t.push(vec![
            label.as_str().into(),
            Cell::from(d.n()),
            d.quantile(0.5).into(),
            d.quantile(0.9).into(),
            d.mean().into(),
            qv(&|q| q.quantile(0.5)),
            qv(&|q| q.quantile(0.9)),
            qv(&|q| q.mean()),
        ]);
    }
    t
}

fn headlines(durs: &[(String, Dist)], queues: &[(String, Dist)]) -> Vec<Headline> {
    let mut heads = Vec::new();
    for (label, d) in durs {
        let key = label.replace(' ', ".");
        heads.push(Headline::new(
            &format!("{key}.duration_p50"),
            &format!("{label} median duration"),
            d.quantile(0.5),
            "s",
        ));
    }
    for (label, q) in queues {
        let key = label.replace(' ', ".");
        heads.push(Headline::new(&format!("{key}.queue_mean"), &format!("{label} mean queueing delay"), q.mean(), "s"));
    }
    heads
}
