//! `philly.gpu-util-by-status`: GPU utilization per GPU-minute by final
//! status and job size (ATC'19 Fig 5, the notebook's 'GPU Utilization' cell,
//! `get_utilization_data`), and the paper's average utilization of in-use
//! GPUs (about 52 %).

use super::gpu_minutes::{samples, size_label, Filter, Samples, SAMPLE_RULE};
use crate::declare::{About, Analyze, Memory, Published, Scope};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_stats::Dist;

const STATUSES: [&str; 3] = ["Pass", "Killed", "Failed"];
/// `get_utilization_data` keeps jobs of exactly these first-attempt sizes.
const P4_SIZES: [i64; 4] = [1, 4, 8, 16];

pub struct GpuUtilByStatus;

impl Analyze for GpuUtilByStatus {
    type Params = ();
    /// Peak 0.90-0.94 GB over the 42.3 M gpu_util rows of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::philly::GPU_UTIL, 22);
    const ABOUT: About = About {
        id: "philly.gpu-util-by-status",
        scope: Scope::Philly,
        mirrors: "ATC'19 Fig 5 (notebook 'GPU Utilization', get_utilization_data)",
        summary: "Per-GPU-minute utilization CDF by final status and job size (1, 4, 8, 16 GPUs); mean in-use GPU util",
        title: "GPU utilization by final status and job size (ATC'19 Fig 5)",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors ATC'19 Fig 5, notebook P4 (`get_utilization_data`).

- **Samples.** For every attempt with a start and an end, step through minutes from the start
  (floored to the minute) while the minute is before the end. At each minute, every GPU the
  attempt holds on each of its machines gives one sample: that GPU's column of the machine's
  `philly/gpu_util` row for the minute, when the row exists and the value is not NA. One sample is
  one GPU-minute, in %. Every attempt of a job counts, under the job's final status and
  first-attempt GPU count.
- **Figure parts** `pass`, `killed`, `failed`: per status, the distributions for jobs of exactly
  1, 4, 8 and 16 GPUs (the notebook's filter). Part `by-status-size`: GPU-minutes, mean and
  median for every (status, GPU count).
- **Headlines:** `mean-in-use`, the mean over every GPU-minute sample of every job with attempts
  (all sizes and statuses): tracelab's reading of the paper's "average utilization of in-use
  GPUs"; `mean-fig5`, the mean over the figure's samples only; `gpu-minutes`, the sample count.
- **Published:** about 52 % average utilization of in-use GPUs (ATC'19 Sec 4).
- **Differences:** the UTC stepping and matching described above (no `clock` parameter).
"##;
    const PUBLISHED: &'static [Published] = &[Published::new("mean-in-use", 52.0, "%", "ATC'19 Sec 4 (about 52 %)")];

    fn definition(_: &()) -> String {
        format!(
            "{SAMPLE_RULE} Figure parts (pass, killed, failed): jobs with attempts and first-attempt GPUs in {{1, \
             4, 8, 16}}, grouped by final status then GPUs (the notebook's filter). Headline `mean-in-use`: mean \
             over EVERY GPU-minute sample of every job with attempts (all sizes, all statuses), our reading of the \
             paper's 'average utilization of in-use GPUs'; `mean-fig5` over the figure's samples only. \
             Utilization in %."
        )
    }

    /// P4 and the average in-use GPU utilization.
    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let all = samples(ctx, Filter::All)?;
        for status in STATUSES {
            let series = P4_SIZES
                .iter()
                .map(|&g| (size_label(g), all.get(&(status.to_string(), g)).cloned().unwrap_or_default()))
                .collect();
            out.dists(&status.to_lowercase(), "GPU utilization (%)", series);
        }
        out.table("by-status-size", size_table(&all));
        let every = Dist::pooled(all.values());
        let fig5 = Dist::pooled(
            all.iter().filter(|((s, g), _)| STATUSES.contains(&s.as_str()) && P4_SIZES.contains(g)).map(|(_, d)| d),
        );
        out.headlines(
            "summary",
            vec![
                Headline::new("mean-in-use", "Average utilization of in-use GPUs (all GPU-minutes)", every.mean(), "%"),
                Headline::new("mean-fig5", "Average utilization, Fig 5 samples (1/4/8/16-GPU jobs)", fig5.mean(), "%"),
                Headline::new("gpu-minutes", "GPU-minute samples (all jobs)", every.n() as f64, "GPU-minutes"),
            ],
        );
        Ok(())
    }
}

/// Samples, mean and median per (status, GPUs), every size.
fn size_table(all: &Samples) -> ResultTable {
    let mut t = ResultTable::new(&["status", "gpus", "gpu_minutes", "mean_pct", "p50_pct"]);
    for ((status, g), d) in all {
        t.push(vec![
            Cell::from(status.as_str()),
            Cell::Int(*g),
            Cell::from(d.n()),
            d.mean().into(),
            d.quantile(0.5).into(),
        ]);
    }
    t
}
