//! `cross.diurnal`: diurnal submission profiles across traces, the share of each trace's
//! submissions in each local hour of day, in the trace's own time zone
//! (PAI, Helios, AcmeTrace and Spot Asia/Shanghai, Philly
//! America/Los_Angeles; SWF in UTC).

use polars::prelude::*;

use super::{jobs_note, with_series, ViewParams};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::frame::{collect, f64s, i64s, strs};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::Trace;

/// Local hour of the submission, per the row's trace.
fn local_hour() -> Result<Expr> {
    let zone = |tz: &str| {
        TimeZone::opt_try_new(Some(tz))
            .ok()
            .flatten()
            .ok_or_else(|| tracelab_schema::error::Error::Usage(format!("unknown time zone {tz}")))
    };
    let (philly, pai, helios) =
        (zone(Trace::Philly.local_tz())?, zone(Trace::Pai.local_tz())?, zone(Trace::Helios.local_tz())?);
    // Each SWF log names its own zone; one zone cannot stand for all: UTC.
    let swf = zone(Trace::Swf.local_tz())?;
    let hour_in = |tz: TimeZone| col("submit_time").dt().convert_time_zone(tz).dt().hour().cast(DataType::Int64);
    Ok(when(col("trace").eq(lit("philly")))
        .then(hour_in(philly))
        .when(col("trace").eq(lit("pai")))
        .then(hour_in(pai))
        .when(col("trace").eq(lit("swf")))
        .then(hour_in(swf))
        // Helios, AcmeTrace and Spot: Asia/Shanghai.
        .otherwise(hour_in(helios)))
}

pub struct Diurnal;

impl Analyze for Diurnal {
    type Params = ViewParams;
    /// Peak 0.66 GB over the 4.52 M unified jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::unified::JOBS, 146);
    const ABOUT: About = About {
        id: "cross.diurnal",
        scope: Scope::Cross,
        mirrors: "tracelab (cross-trace view)",
        summary: "Share of submissions by local hour of day per trace and Helios cluster",
        title: "Submissions by hour of day across traces",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
tracelab cross-trace view.

- **Computes** per series the share (%) of submissions in each local hour of day 0-23, with
  `submit_time` converted to the trace's zone: Asia/Shanghai for PAI and Helios,
  America/Los_Angeles for Philly. Jobs without a submission time are skipped. Part `by-hour`.
"##;

    fn definition(p: &ViewParams) -> String {
        format!(
            "Unified jobs.submit_time (PAI job start_time, Philly submitted_time, Helios and AcmeTrace submit_time, \
             SWF UnixStartTime + Submit Time, Spot 2024-03-01 00:00 Asia/Shanghai + submit_time seconds), converted \
             from UTC to each trace's local zone (PAI, Helios, AcmeTrace and Spot Asia/Shanghai, Philly \
             America/Los_Angeles; SWF logs stay in UTC, their own zones are in swf_headers), \
             hour of day 0-23; y = submissions in that hour / all submissions of the series, in %. {}",
            jobs_note(p.jobs)
        )
    }

    fn run(ctx: &Ctx, p: &ViewParams, out: &mut Output) -> Result<()> {
        diurnal(ctx, p, out)
    }
}

fn diurnal(ctx: &Ctx, p: &ViewParams, out: &mut Output) -> Result<()> {
    let lf = with_series(ctx, p.jobs)?
        .filter(col("submit_time").is_not_null())
        .select([col("series"), local_hour()?.alias("hour")])
        .group_by([col("series"), col("hour")])
        .agg([len().cast(DataType::Float64).alias("n")])
        .sort(["series", "hour"], SortMultipleOptions::default());
    let df = collect(lf, "cross.diurnal")?;
    let (series, hour, n) = (strs(&df, "series")?, i64s(&df, "hour")?, f64s(&df, "n")?);
    let mut curves: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for i in 0..df.height() {
        let (Some(s), Some(h), Some(c)) = (&series[i], hour[i], n[i]) else { continue };
        if curves.last().map(|c| &c.0) != Some(s) {
            curves.push((s.clone(), (0..24).map(|h| (h as f64, 0.0)).collect()));
        }
        curves.last_mut().expect("pushed above").1[h as usize].1 = c;
    }
    for (_, pts) in &mut curves {
        let total: f64 = pts.iter().map(|p| p.1).sum();
        pts.iter_mut().for_each(|p| p.1 = 100.0 * p.1 / total);
    }
    out.curves("by-hour", "Local hour of day", "Share of submissions (%)", curves);
    Ok(())
}
