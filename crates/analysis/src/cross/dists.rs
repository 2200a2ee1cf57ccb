//! The distribution view shared by `cross.runtime`, `cross.queueing`,
//! `cross.wait-fraction` and `cross.gpus-per-job`: one CDF per series of a
//! unified-jobs quantity, plus a P50/P90/P99 table side by side.

use polars::prelude::*;

use super::{jobs_note, series_labels, with_series, Jobs, TRACE_DEFINITIONS};
use crate::frame::dists_by;
use crate::output::{Cell, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_stats::Dist;

/// The definition of a distribution view of `what`.
pub fn definition(what: &str, jobs: Jobs) -> String {
    format!(
        "{what} {} {TRACE_DEFINITIONS} Null, NaN and infinite values are skipped; negative values (clock skew in \
         the raw logs) are kept. Series: one per trace, and one per Helios cluster (helios/<cluster>), AcmeTrace \
         cluster (acme/<cluster>) and SWF log (swf/<file stem>).",
        jobs_note(jobs)
    )
}

/// `value` per series: its CDFs (part `cdf`) and quantile table (part
/// `quantiles`).
pub fn view(ctx: &Ctx, jobs: Jobs, value: Expr, x_label: &str, out: &mut Output) -> Result<()> {
    let lf = with_series(ctx, jobs)?;
    let labels = series_labels(lf.clone())?;
    let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    let series = dists_by(lf, col("series"), value, &refs, &out.id)?;
    out.table("quantiles", quantile_table(&series));
    out.dists("cdf", x_label, series);
    Ok(())
}

/// n and P50/P90/P99 per series.
pub fn quantile_table(series: &[(String, Dist)]) -> ResultTable {
    let mut t = ResultTable::new(&["series", "n", "p50", "p90", "p99"]);
    for (label, d) in series {
        t.push(vec![
            Cell::from(label.as_str()),
            Cell::from(d.n()),
            d.quantile(0.5).into(),
            d.quantile(0.9).into(),
            d.quantile(0.99).into(),
        ]);
    }
    t
}
