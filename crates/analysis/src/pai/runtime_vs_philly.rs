//! `pai.runtime-vs-philly`: task runtime, PAI against Philly (NSDI'22 Fig
//! 4a, notebook A7). Runtime is the notebook's `runtime_i`: the MEAN runtime
//! of the task's instances (end - start where both are recorded), not the
//! task's span.

use polars::prelude::*;

use super::frames;
use crate::declare::{About, Analyze, Scope};
use crate::frame::{dist, dist_by_sort};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::{pai, philly};
use tracelab_stats::Dist;

pub struct RuntimeVsPhilly;

impl Analyze for RuntimeVsPhilly {
    type Params = ();
    const ABOUT: About = About {
        id: "pai.runtime-vs-philly",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 4a (notebook A7)",
        summary: "task runtime (mean instance runtime) CDF, PAI vs Philly",
        title: "Task runtime, PAI vs Philly",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 4a, notebook cell A7.

- **Reads** `dfa.runtime_i` (mean instance runtime of each task, seconds), and Philly runtimes.
- **Computes** two distributions in seconds (part `runtime`): PAI task runtimes (nulls dropped),
  and Philly job runtimes.
- **Philly series.** When the store also holds the Philly trace, it is `philly/jobs.run_s`
  (last attempt end minus first attempt start in UTC, see [Philly durations](#time); every job
  with a value). Otherwise it is
  `philly_runtime.csv`, the 83,154 Philly runtimes (seconds) the PAI owners ship next to their
  notebook, which ingest reads with the PAI trace into `pai/philly_runtimes` when the file is in
  the directory (as in `data-samples/`); the definition names which one was used.
- **Published:** none.
- **Differences:** upstream always uses `philly_runtime.csv`, whose generating code is not
  published; with a Philly store tracelab uses its own Philly runtimes instead.
"##;

    fn definition(_: &()) -> String {
        "PAI: dfa runtime_i, the mean runtime of the task's instances (s), nulls dropped; Philly: {philly}".into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let pai = dist_by_sort(frames::tasks(ctx, &["runtime_i_s"])?, col("runtime_i_s"), "PAI runtime")?;
        let (philly, source) = philly_runtimes(ctx)?;
        out.fill("philly", source);
        out.dists("runtime", "runtime (s)", vec![("PAI".into(), pai), ("Philly".into(), philly)]);
        Ok(())
    }
}

/// Philly runtimes: the ingested Philly trace when present, else the
/// `philly_runtime.csv` the PAI authors shipped (83,154 jobs, seconds),
/// which ingest reads with PAI into `pai/philly_runtimes` when it is in the
/// directory.
fn philly_runtimes(ctx: &Ctx) -> Result<(Dist, String)> {
    if ctx.store.has_trace(tracelab_schema::Trace::Philly) {
        let d = dist(ctx.store.scan(&philly::JOBS)?, col("run_s"), "Philly runtime")?;
        return Ok((
            d,
            "philly/jobs run_s (last attempt end - first attempt start, UTC instants) from the store".into(),
        ));
    }
    let d = match ctx.store.scan(&pai::PHILLY_RUNTIMES) {
        Ok(lf) => dist(lf, col("runtime_s"), "Philly runtime")?,
        Err(_) => Dist::default(),
    };
    if d.is_empty() {
        return Ok((d, "no Philly trace in the store and no philly_runtime.csv ingested with PAI: empty".into()));
    }
    Ok((d, "pai/philly_runtimes (philly_runtime.csv, the PAI authors' Philly runtimes, s)".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a Philly trace the runtimes come from `pai/philly_runtimes`
    /// (three hand-made runtimes: median 20), and are empty without them.
    #[test]
    fn without_philly_the_reference_table_of_the_pai_trace_is_used() {
        let t = crate::testkit::store(vec![(&pai::PHILLY_RUNTIMES, df!("runtime_s" => [10.0, 30.0, 20.0]).unwrap())]);
        let (d, source) = philly_runtimes(&t.ctx).unwrap();
        assert_eq!((d.n(), d.quantile(0.5)), (3, 20.0));
        assert!(source.starts_with("pai/philly_runtimes"), "{source}");
        let empty =
            crate::testkit::store(vec![(&pai::PHILLY_RUNTIMES, df!("runtime_s" => Vec::<f64>::new()).unwrap())]);
        let (d, source) = philly_runtimes(&empty.ctx).unwrap();
        assert!(d.is_empty() && source.contains("empty"), "{source}");
    }
}
