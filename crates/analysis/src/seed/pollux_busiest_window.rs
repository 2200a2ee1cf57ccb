//! Pollux (Qiao et al., OSDI'21 Sec 5) evaluates on jobs sampled from the
//! busiest 8-hour window of the Microsoft trace, described by size class
//! in GPU-hours: small 0-1, medium 1-10, large 10-100, extra large
//! 100-1000. `seed.pollux-classes` gives that mix per trace;
//! `seed.pollux-busiest-window` finds the window (`tracelab_stats::
//! busiest_window`, as `tracelab simulate --window busiest:<len>`) and
//! compares its mix with the whole trace's.
//!
//! Jobs: the unified `jobs` table, GPU jobs (`gpus_requested > 0`) with a
//! submission time and a runtime; GPU-hours = `gpus_requested x run_s /
//! 3600` (PAI's request is fractional with GPU sharing).

use chrono::{DateTime, TimeZone};
use polars::prelude::*;

use super::{present, selected, Notes, ALL_TRACES_PARAM};
use crate::frame::{collect, f64s};
use crate::{Analysis, Args, Ctx, Headline, Output, Param, ResultTable, Scope};
use tracelab_schema::error::{Error, Result};
use tracelab_schema::{unified::JOBS, Trace};
use tracelab_stats::{busiest_window, Window};

const SMALL: Param = Param { name: "small", default: "1", doc: "small: GPU-hours below this", choices: &[] };
const MEDIUM: Param = Param { name: "medium", default: "10", doc: "medium: below this (and not small)", choices: &[] };
const LARGE: Param =
    Param { name: "large", default: "100", doc: "large: below this; extra large from here", choices: &[] };

pub const CLASSES: Analysis = Analysis {
    id: "seed.pollux-classes",
    scope: Scope::Cross,
    mirrors: "Pollux (Qiao et al., OSDI'21) Sec 5: job size classes by GPU-hours",
    summary: "GPU jobs per GPU-hour class (small, medium, large, extra large) per trace, jobs and GPU-hour shares",
    params: &[ALL_TRACES_PARAM, SMALL, MEDIUM, LARGE],
    run: classes,
};

pub const BUSIEST_WINDOW: Analysis = Analysis {
    id: "seed.pollux-busiest-window",
    scope: Scope::Cross,
    mirrors: "Pollux (Qiao et al., OSDI'21) Sec 5: jobs sampled from the busiest 8-hour window",
    summary: "The window with the most GPU-hours submitted, and its job mix against the whole trace",
    params: &[
        Param { name: "trace", default: "philly", doc: "the trace", choices: &["pai", "philly", "helios"] },
        Param { name: "length", default: "8h", doc: "window length", choices: &[] },
        SMALL,
        MEDIUM,
        LARGE,
    ],
    run: window,
};

/// Class labels in output order.
pub const LABELS: [&str; 4] = ["small", "medium", "large", "xlarge"];
/// Pollux's workload: share of jobs per class (%), OSDI'21 Table 1.
const PUBLISHED_MIX: [f64; 4] = [72.0, 20.0, 6.0, 2.0];
const MIX_SOURCE: &str = "Pollux (OSDI'21) Table 1: share of jobs per size class in its 8-hour Microsoft sample";

/// GPU jobs of one trace, by submission then job id.
pub struct Jobs {
    pub submit_s: Vec<f64>,
    pub gpu_hours: Vec<f64>,
}

/// The GPU jobs of `trace` in the unified table.
pub fn jobs(ctx: &Ctx, trace: Trace) -> Result<Jobs> {
    let lf = ctx
        .store
        .scan(&JOBS)?
        .filter(
            col("trace")
                .eq(lit(trace.name()))
                .and(col("gpus_requested").gt(lit(0.0)))
                .and(col("run_s").is_not_null())
                .and(col("submit_time").is_not_null()),
        )
        .sort(["submit_time", "job_id"], SortMultipleOptions::default())
        .select([
            (col("submit_time").cast(DataType::Int64).cast(DataType::Float64) / lit(1e6)).alias("t"),
            (col("gpus_requested") * col("run_s") / lit(3600.0)).alias("h"),
        ]);
    let df = collect(lf, "seed.pollux jobs")?;
    let flat = |v: Vec<Option<f64>>| v.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect();
    Ok(Jobs { submit_s: flat(f64s(&df, "t")?), gpu_hours: flat(f64s(&df, "h")?) })
}

/// The class bounds, validated increasing.
fn bounds(args: &Args) -> Result<[f64; 3]> {
    let b = [args.f64("small")?, args.f64("medium")?, args.f64("large")?];
    if !(0.0 < b[0] && b[0] < b[1] && b[1] < b[2]) {
        return Err(Error::Usage(format!("{}: class bounds must increase: small < medium < large", "seed.pollux")));
    }
    Ok(b)
}

/// Class index of a GPU-hour value.
fn class_of(h: f64, b: &[f64; 3]) -> usize {
    b.iter().take_while(|x| h >= **x).count()
}

/// (jobs, GPU hours) per class of the jobs in `range`.
fn mix(jobs: &Jobs, range: std::ops::Range<usize>, b: &[f64; 3]) -> [(usize, f64); 4] {
    let mut m = [(0usize, 0.0f64); 4];
    for i in range {
        let c = class_of(jobs.gpu_hours[i], b);
        m[c].0 += 1;
        m[c].1 += jobs.gpu_hours[i];
    }
    m
}

fn pct(part: f64, total: f64) -> f64 {
    if total > 0.0 {
        100.0 * part / total
    } else {
        f64::NAN
    }
}

fn classes(ctx: &Ctx, args: &Args) -> Result<Output> {
    let b = bounds(args)?;
    let mut t = ResultTable::new(&["trace", "class", "jobs", "jobs_pct", "gpu_hours", "gpu_hours_pct"]);
    let mut notes = Notes::default();
    for trace in selected(args.str("trace")) {
        if !present(ctx, trace) {
            notes.missing(trace);
            continue;
        }
        let jobs = jobs(ctx, trace)?;
        let m = mix(&jobs, 0..jobs.gpu_hours.len(), &b);
        let (n, h) = (jobs.gpu_hours.len() as f64, jobs.gpu_hours.iter().sum::<f64>());
        for (label, (count, hours)) in LABELS.iter().zip(m) {
            t.push(vec![
                trace.name().into(),
                (*label).into(),
                (count as i64).into(),
                pct(count as f64, n).into(),
                hours.into(),
                pct(hours, h).into(),
            ]);
        }
    }
    let mut out = Output::new("seed.pollux-classes", "Jobs by GPU-hour class", class_definition(&b));
    out.table("classes", t).table("notes", notes.table());
    Ok(out)
}

fn class_definition(b: &[f64; 3]) -> String {
    format!(
        "Unified jobs table, GPU jobs (gpus_requested > 0) with a submit_time and a run_s, per trace. GPU-hours = \
         gpus_requested x run_s / 3600 (PAI: sum over tasks of inst_num x plan_gpu / 100; Philly: first attempt's \
         GPUs x last end - first start; Helios: gpu_num x duration). Classes: small < {} <= medium < {} <= large < {} \
         <= xlarge GPU-hours (Pollux: 0-1, 1-10, 10-100, 100-1000; jobs above 1000 GPU-hours are xlarge here). \
         jobs_pct and gpu_hours_pct are shares of the trace's GPU jobs and GPU-hours.",
        b[0], b[1], b[2]
    )
}

fn window(ctx: &Ctx, args: &Args) -> Result<Output> {
    let (b, len_s) = (bounds(args)?, args.duration_s("length")? as f64);
    let trace = Trace::from_name(args.str("trace")).expect("declared choices are traces");
    let mut out = Output::new("seed.pollux-busiest-window", "The busiest window", window_definition(args, &b));
    let mut notes = Notes::default();
    let jobs = if present(ctx, trace) {
        jobs(ctx, trace)?
    } else {
        notes.missing(trace);
        Jobs { submit_s: Vec::new(), gpu_hours: Vec::new() }
    };
    let w = busiest_window(&jobs.submit_s, &jobs.gpu_hours, len_s);
    let range = w.map_or(0..0, |w| {
        let first = jobs.submit_s.partition_point(|t| *t < w.start);
        first..first + w.count
    });
    let (inside, all) = (mix(&jobs, range, &b), mix(&jobs, 0..jobs.gpu_hours.len(), &b));
    out.table("window", window_table(trace, w, &jobs))
        .table("mix", mix_table(&inside, &all))
        .headlines("headlines", window_headlines(trace, w, &jobs, &inside))
        .curves("hourly-demand", "Hours since the first submission's hour", "GPU-hours submitted", demand(&jobs, w))
        .table("notes", notes.table());
    Ok(out)
}

fn utc(s: f64) -> String {
    DateTime::from_timestamp(s.floor() as i64, 0).map_or(String::new(), |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

fn local(trace: Trace, s: f64) -> String {
    let tz: chrono_tz::Tz = trace.local_tz().parse().expect("Trace::local_tz names valid zones");
    tz.timestamp_opt(s.floor() as i64, 0)
        .single()
        .map_or(String::new(), |t| t.format("%Y-%m-%d %H:%M:%S %Z").to_string())
}

fn window_table(trace: Trace, w: Option<Window>, jobs: &Jobs) -> ResultTable {
    let mut t =
        ResultTable::new(&["trace", "start_utc", "end_utc", "start_local", "jobs", "gpu_hours", "gpu_hours_pct"]);
    if let Some(w) = w {
        let total: f64 = jobs.gpu_hours.iter().sum();
        t.push(vec![
            trace.name().into(),
            utc(w.start).into(),
            utc(w.end).into(),
            local(trace, w.start).into(),
            (w.count as i64).into(),
            w.weight.into(),
            pct(w.weight, total).into(),
        ]);
    }
    t
}

fn mix_table(inside: &[(usize, f64); 4], all: &[(usize, f64); 4]) -> ResultTable {
    let mut t = ResultTable::new(&[
        "class",
        "window_jobs",
        "window_jobs_pct",
        "trace_jobs",
        "trace_jobs_pct",
        "window_gpu_hours",
        "trace_gpu_hours",
    ]);
    let (n_in, n_all) =
        (inside.iter().map(|m| m.0).sum::<usize>() as f64, all.iter().map(|m| m.0).sum::<usize>() as f64);
    for (i, label) in LABELS.iter().enumerate() {
        t.push(vec![
            (*label).into(),
            (inside[i].0 as i64).into(),
            pct(inside[i].0 as f64, n_in).into(),
            (all[i].0 as i64).into(),
            pct(all[i].0 as f64, n_all).into(),
            inside[i].1.into(),
            all[i].1.into(),
        ]);
    }
    t
}

fn window_headlines(trace: Trace, w: Option<Window>, jobs: &Jobs, inside: &[(usize, f64); 4]) -> Vec<Headline> {
    let total: f64 = jobs.gpu_hours.iter().sum();
    let (weight, count) = w.map_or((f64::NAN, f64::NAN), |w| (w.weight, w.count as f64));
    let mut h = vec![
        Headline::new("window_gpu_hours", "GPU-hours submitted in the window", weight, "GPU-h"),
        Headline::new("window_share", "share of the trace's GPU-hours", pct(weight, total), "%"),
        Headline::new("window_jobs", "GPU jobs submitted in the window", count, "jobs"),
    ];
    let n_in = inside.iter().map(|m| m.0).sum::<usize>() as f64;
    for (i, label) in LABELS.iter().enumerate() {
        let mut line = Headline::new(
            &format!("window_{label}"),
            &format!("{label} jobs in the window"),
            pct(inside[i].0 as f64, n_in),
            "%",
        );
        if trace == Trace::Philly {
            line = line.published(PUBLISHED_MIX[i], MIX_SOURCE);
        }
        h.push(line);
    }
    h
}

/// GPU-hours submitted per hour since the first submission's hour: the
/// whole trace, and the window's hours alone.
fn demand(jobs: &Jobs, w: Option<Window>) -> Vec<(String, Vec<(f64, f64)>)> {
    let Some(first) = jobs.submit_s.first().map(|t| (t / 3600.0).floor()) else { return Vec::new() };
    let hour = |t: f64| (t / 3600.0).floor() - first;
    let last = jobs.submit_s.last().map_or(0.0, |t| hour(*t)) as usize;
    let mut per = vec![0.0; last + 1];
    for (t, h) in jobs.submit_s.iter().zip(&jobs.gpu_hours) {
        per[hour(*t) as usize] += h;
    }
    let all: Vec<(f64, f64)> = per.iter().enumerate().map(|(i, v)| (i as f64, *v)).collect();
    let mut out = vec![("all hours".to_string(), all.clone())];
    if let Some(w) = w {
        let (a, b) = (hour(w.start), hour(w.end - 1e-9));
        out.push(("busiest window".to_string(), all.into_iter().filter(|p| p.0 >= a && p.0 <= b).collect()));
    }
    out
}

fn window_definition(args: &Args, b: &[f64; 3]) -> String {
    format!(
        "{} The window [t, t + {}) starting at a submission time t with the largest sum of GPU-hours of the jobs \
         submitted in it (ties to the earliest t; jobs by submit_time, then job_id). Its mix (jobs and GPU-hours per \
         class) against the whole trace's; hourly-demand = GPU-hours submitted per hour (the window's hours drawn \
         again). Pollux sampled 160 jobs from the busiest 8-hour window of the Microsoft trace; its published mix is \
         the share of jobs per class in that sample. Trace: {}.",
        class_definition(b),
        args.str("length"),
        args.str("trace")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bounds 1, 10, 100: 0.5 small, 1 medium (the bound is the next
    /// class's), 99.9 large, 1000 xlarge.
    #[test]
    fn classes_by_hand() {
        let b = [1.0, 10.0, 100.0];
        assert_eq!([0.5, 1.0, 99.9, 1000.0].map(|h| class_of(h, &b)), [0, 1, 2, 3]);
    }
}
