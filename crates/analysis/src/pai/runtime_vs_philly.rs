//! `pai.runtime-vs-philly`: task runtime, PAI against Philly (NSDI'22 Fig
//! 4a, notebook A7). Runtime is the notebook's `runtime_i`: the MEAN runtime
//! of the task's instances (end - start where both are recorded), not the
//! task's span.

use std::path::Path;

use polars::prelude::*;

use super::frames;
use crate::declare::{About, Analyze, Scope};
use crate::frame::{dist, dist_by_sort};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::philly;
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

/// Philly runtimes: the ingested Philly store when present, else the
/// `philly_runtime.csv` the PAI authors shipped (83,154 jobs, seconds).
fn philly_runtimes(ctx: &Ctx) -> Result<(Dist, String)> {
    if ctx.store.has_trace(tracelab_schema::Trace::Philly) {
        let d = dist(ctx.store.scan(&philly::JOBS)?, col("run_s"), "Philly runtime")?;
        return Ok((
            d,
            "philly/jobs run_s (last attempt end - first attempt start, UTC instants) from the store".into(),
        ));
    }
    let Some(path) = &ctx.philly_runtime_csv else {
        return Ok((Dist::default(), "no Philly trace in the store and no philly_runtime.csv found: empty".into()));
    };
    Ok((read_runtime_csv(path)?, format!("{} (the PAI authors' Philly runtimes, s)", path.display())))
}

fn read_runtime_csv(path: &Path) -> Result<Dist> {
    let text = std::fs::read_to_string(path).at(path)?;
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, "runtime")) => {}
        _ => return Err(Error::input(path.display().to_string(), "line 1: expected the header `runtime`")),
    }
    let mut values = Vec::new();
    for (i, line) in lines {
        let v: f64 = line.trim().parse().ok().filter(|v: &f64| v.is_finite()).ok_or_else(|| {
            Error::input(
                path.display().to_string(),
                format!("line {}, column runtime: expected seconds, got `{line}`", i + 1),
            )
        })?;
        values.push(v);
    }
    Ok(Dist::from_samples(values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_csv_must_have_its_header_and_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("philly_runtime.csv");
        std::fs::write(&p, "runtime\n10\n30\n20\n").unwrap();
        assert_eq!(read_runtime_csv(&p).unwrap().quantile(0.5), 20.0);
        std::fs::write(&p, "runtime\n10\nabc\n").unwrap();
        let err = read_runtime_csv(&p).unwrap_err().to_string();
        assert!(err.contains("line 3, column runtime") && err.contains("abc"), "{err}");
    }
}
