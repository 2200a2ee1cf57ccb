//! Online services for MuxFlow-style replays: a trace's jobs are offline
//! work; `--online N` adds N latency-critical services of one GPU each,
//! running from the window start until the last of the window's jobs would
//! end if it started on submission (so they hold their GPUs across the
//! whole replayed workload), at a stated utilization that follows a daily
//! load profile: the trace's own measured utilization over a day
//! (`tracelab_analysis::usage::daily_profile`), a profile file, or flat.
//!
//! Must not: replay anything (the engine does) or read the trace's jobs.

use std::path::{Path, PathBuf};

use tracelab_schema::error::{Error, Result};
use tracelab_schema::Trace;
use tracelab_sim::{Job, JobClass, LoadProfile, Millis, Usage};
use tracelab_store::Store;

use crate::load::{Names, TraceJob};

/// Where the online load's daily shape comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileSource {
    /// Constant load.
    Flat,
    /// The trace's measured cluster utilization over a day.
    Trace,
    /// A CSV file of `offset_s,load` rows (see [`read_profile`]).
    File(PathBuf),
}

impl ProfileSource {
    pub fn parse(raw: &str) -> ProfileSource {
        match raw {
            "flat" => ProfileSource::Flat,
            "trace" => ProfileSource::Trace,
            path => ProfileSource::File(PathBuf::from(path)),
        }
    }
}

/// `--online`: the services to add.
#[derive(Clone, Debug, PartialEq)]
pub struct Online {
    pub services: u32,
    /// Each service's mean utilization, % (MuxFlow's online GPUs ran at
    /// 26 % before sharing).
    pub util_pct: f64,
    pub mem_gib: f64,
    pub profile: ProfileSource,
}

/// The most services a replay may add (a large cluster's GPUs).
pub const MAX_SERVICES: u32 = 1_000_000;

/// Steps of a profile taken from a trace: an hour.
const STEP_S: i64 = 3600;
const DAY_MS: Millis = 86_400_000;

/// The services as jobs (replay time), named `online-0`, `online-1`, ...
pub fn services(spec: &Online, offline: &[TraceJob], names: &mut Names) -> Vec<TraceJob> {
    let end = offline.iter().map(|j| j.job.submit + j.job.duration).max().unwrap_or(0).max(1000);
    let (user, vc, group) = (names.users.id("online"), names.vcs.id("online"), names.groups.id("online"));
    (0..spec.services)
        .map(|i| TraceJob {
            job_id: format!("online-{i}"),
            job: Job {
                id: 0,
                submit: 0,
                duration: end,
                gpu_milli: 1000,
                cpu_milli: None,
                user,
                vc,
                group,
                gpu_type: None,
                priority: 0,
            },
            usage: Usage {
                gpu_util: Some(spec.util_pct as f32),
                gpu_mem_gib: Some(spec.mem_gib as f32),
                class: JobClass::Online,
            },
        })
        .collect()
}

/// The load profile in replay time (`origin`: the window start, epoch ms):
/// step 0 begins at a UTC midnight.
pub fn profile(
    src: &ProfileSource,
    store: Option<&Store>,
    trace: Option<Trace>,
    origin: Millis,
) -> Result<Option<LoadProfile>> {
    let (step_s, factors) = match src {
        ProfileSource::Flat => return Ok(None),
        ProfileSource::Trace => {
            let (Some(store), Some(trace)) = (store, trace) else {
                return Err(Error::Usage(
                    "--online-profile trace: a CSV job list has no utilization series; give a profile file or flat"
                        .into(),
                ));
            };
            let ctx = tracelab_analysis::Ctx::new(store.clone());
            match tracelab_analysis::usage::daily_profile(&ctx, trace, STEP_S)? {
                Some(p) => (p.step_s, p.factors),
                None => return Ok(None),
            }
        }
        ProfileSource::File(path) => read_profile(path)?,
    };
    let p = LoadProfile { step: step_s * 1000, factors, origin: -origin.rem_euclid(DAY_MS) };
    p.validate().map_err(|e| Error::Usage(format!("--online-profile: {e}")))?;
    Ok(Some(p))
}

/// A profile file: a header `offset_s,load`, then one row per step of the
/// day: the step's start in seconds after 00:00 UTC (0 first, equal steps
/// dividing a day) and its load (any unit, >= 0). The loads are divided
/// by their mean, so they give the shape of the day; the services' stated
/// utilization is its mean.
pub fn read_profile(path: &Path) -> Result<(i64, Vec<f64>)> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::Usage(format!("--online-profile {}: {e}", path.display())))?;
    let bad = |line: usize, column: &str, what: String| {
        Error::input(path.display().to_string(), format!("line {line}, column `{column}`: {what}"))
    };
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.trim().trim_start_matches('\u{feff}') == "offset_s,load" => {}
        _ => return Err(bad(1, "", "expected the header offset_s,load".into())),
    }
    let (mut offsets, mut loads) = (Vec::new(), Vec::new());
    for (i, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        if offsets.len() >= tracelab_sim::sharing::profile::MAX_STEPS {
            return Err(bad(i + 1, "", format!("more than {} steps", tracelab_sim::sharing::profile::MAX_STEPS)));
        }
        let mut f = line.split(',').map(str::trim);
        let mut num = |col: &str| -> Result<f64> {
            let t = f.next().unwrap_or("");
            t.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| bad(i + 1, col, format!("expected a number >= 0, found `{t}`")))
        };
        offsets.push(num("offset_s")?);
        loads.push(num("load")?);
    }
    let step = offsets.get(1).copied().unwrap_or(86_400.0);
    let equal = offsets.iter().enumerate().all(|(k, &o)| o == k as f64 * step);
    if offsets.is_empty()
        || !equal
        || step <= 0.0
        || step.fract() != 0.0
        || (86_400.0 / step) as usize != offsets.len()
        || 86_400.0 % step != 0.0
    {
        return Err(bad(2, "offset_s", "expected steps from 0 of equal whole seconds covering one day".into()));
    }
    let mean = loads.iter().sum::<f64>() / loads.len() as f64;
    if mean <= 0.0 {
        return Err(bad(2, "load", "every load is 0".into()));
    }
    Ok((step as i64, loads.iter().map(|l| l / mean).collect()))
}
