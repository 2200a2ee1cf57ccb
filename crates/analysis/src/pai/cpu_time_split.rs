//! `pai.cpu-time-split`: machine CPU iowait, usr and kernel over every
//! `pai/machine_metric` row (NSDI'22 Fig 8b, notebook A18).

use polars::prelude::*;

use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::dist_by_sort;
use crate::output::{Headline, Output};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::pai::MACHINE_METRIC;

pub struct CpuTimeSplit;

impl Analyze for CpuTimeSplit {
    type Params = ();
    const ABOUT: About = About {
        id: "pai.cpu-time-split",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 8b (notebook A18)",
        summary: "machine CPU iowait, usr and kernel shares over all machine_metric rows",
        title: "Machine CPU iowait, usr and kernel",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 8b, notebook cell A18.

- **Reads** every `pai/machine_metric` row (one per instance; machine-level values averaged over
  that instance's lifetime).
- **Computes** the distributions of `machine_cpu_iowait_pct`, `machine_cpu_usr_pct` and
  `machine_cpu_kernel_pct` (%), nulls dropped (part `cpu`), and the headline mean iowait / (mean usr +
  mean kernel).
- **Published:** iowait is about 1/1000 of CPU time (NSDI'22 Sec 4.2).
- **Differences:** none in the curves; the headline ratio is tracelab's reading of the paper's
  sentence.
"##;
    const PUBLISHED: &'static [Published] =
        &[Published::new("iowait_over_cpu", 0.001, "", "NSDI'22 Sec 4.2 (about 1/1000 of CPU time)")];

    fn definition(_: &()) -> String {
        "pai/machine_metric, every row (one per instance; machine-level values averaged over the \
         instance's lifetime); nulls dropped; iowait share = mean iowait / (mean usr + mean kernel)"
            .into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let dfm = ctx.store.scan(&MACHINE_METRIC)?;
        let mut series = Vec::new();
        for (label, c) in
            [("iowait", "machine_cpu_iowait_pct"), ("usr", "machine_cpu_usr_pct"), ("kernel", "machine_cpu_kernel_pct")]
        {
            series.push((label.to_string(), dist_by_sort(dfm.clone(), col(c), "machine cpu split")?));
        }
        let ratio = series[0].1.mean() / (series[1].1.mean() + series[2].1.mean());
        out.dists("cpu", "machine CPU (%)", series).headlines(
            "iowait",
            vec![Headline::new("iowait_over_cpu", "mean iowait / mean (usr + kernel)", ratio, "")],
        );
        Ok(())
    }
}
