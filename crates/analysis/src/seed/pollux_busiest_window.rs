//! `seed.pollux-busiest-window`: Pollux (Qiao et al., OSDI'21 Sec 5)
//! evaluates on jobs sampled from the busiest 8-hour window of the
//! Microsoft trace. This finds the window (`tracelab_stats::
//! busiest_window`, as `tracelab simulate --window busiest:<len>`) and
//! compares its mix of GPU-hour classes ([`super::size_classes`]) with the
//! whole trace's.

use chrono::{DateTime, TimeZone};

use super::notes::Notes;
use super::size_classes::{bounds, class_definition, jobs, mix, pct, Jobs, LABELS, LARGE, MEDIUM, SMALL};
use super::{duration_text, present, OneTrace};
use crate::declare::{About, Analyze, Published, Scope};
use crate::output::{Headline, Output, ResultTable};
use crate::params::{params, Param, Seconds};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::Trace;
use tracelab_stats::{busiest_window, Window};

const TRACE: Param<OneTrace> = Param::choice("trace", "philly", "the trace");
const LENGTH: Param<Seconds> = Param::duration("length", "8h", "window length");

params! {
    pub struct BusiestWindowParams {
        pub trace: OneTrace = TRACE,
        pub length: Seconds = LENGTH,
        pub small: f64 = SMALL,
        pub medium: f64 = MEDIUM,
        pub large: f64 = LARGE,
    }
}

pub struct PolluxBusiestWindow;

const MIX_SOURCE: &str = "Pollux (OSDI'21) Table 1: share of jobs per size class in its 8-hour Microsoft sample";
/// Pollux sampled an 8-hour window of the Microsoft (Philly) trace and
/// classed jobs at 1, 10 and 100 GPU-hours: its mix is compared with the
/// Philly window's only, and only at that length and those boundaries.
const PHILLY: &[(&str, &str)] =
    &[("trace", "philly"), ("length", "8h"), ("small", "1"), ("medium", "10"), ("large", "100")];

impl Analyze for PolluxBusiestWindow {
    type Params = BusiestWindowParams;
    const ABOUT: About = About {
        id: "seed.pollux-busiest-window",
        scope: Scope::Cross,
        mirrors: "Pollux (Qiao et al., OSDI'21) Sec 5: jobs sampled from the busiest 8-hour window",
        summary: "The window with the most GPU-hours submitted, and its job mix against the whole trace",
        title: "The busiest window",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors Pollux (OSDI'21 Sec 5): its workload is sampled from the busiest 8-hour window of the
Microsoft (Philly) trace.

- **Window:** `[t, t + length)` starting at a submission time t, maximizing the GPU-hours of the GPU
  jobs (as [seed.pollux-classes](#seedpollux-classes)) submitted in it; ties go to the earliest t.
  O(n log n): one sort, then two pointers over prefix sums (`tracelab_stats::busiest_window`, the
  function `tracelab simulate --window busiest:<len>` uses).
- **Output:** table `window` (start and end in UTC, start in local time, jobs, GPU-hours and their
  share of the trace's), table `mix` (jobs and GPU-hours per class in the window and in the whole
  trace), headlines (window GPU-hours, share, jobs, and the share of each class in the window),
  part `hourly-demand` (GPU-hours submitted per hour; the window's hours drawn again).
- **Published:** Pollux's sample was 72 % small, 20 % medium, 6 % large and 2 % extra-large jobs
  (Table 1); beside the window's class shares (`window_small` … `window_xlarge`) with
  `trace=philly` only.
"##;
    /// Pollux's workload: share of jobs per class (%), OSDI'21 Table 1.
    const PUBLISHED: &'static [Published] = &[
        Published::new("window_small", 72.0, "%", MIX_SOURCE).when(PHILLY),
        Published::new("window_medium", 20.0, "%", MIX_SOURCE).when(PHILLY),
        Published::new("window_large", 6.0, "%", MIX_SOURCE).when(PHILLY),
        Published::new("window_xlarge", 2.0, "%", MIX_SOURCE).when(PHILLY),
    ];

    fn definition(p: &BusiestWindowParams) -> String {
        window_definition(p)
    }

    fn run(ctx: &Ctx, p: &BusiestWindowParams, out: &mut Output) -> Result<()> {
        window(ctx, p, out)
    }
}

fn window(ctx: &Ctx, p: &BusiestWindowParams, out: &mut Output) -> Result<()> {
    let b = bounds(PolluxBusiestWindow::ABOUT.id, p.small, p.medium, p.large)?;
    let trace = p.trace.trace();
    let mut notes = Notes::default();
    let jobs = if present(ctx, trace) {
        jobs(ctx, trace)?
    } else {
        notes.missing(trace);
        Jobs::empty()
    };
    let w = busiest_window(&jobs.submit_s, &jobs.gpu_hours, p.length.0 as f64);
    let range = w.map_or(0..0, |w| {
        let first = jobs.submit_s.partition_point(|t| *t < w.start);
        first..first + w.count
    });
    let (inside, all) = (mix(&jobs, range, &b), mix(&jobs, 0..jobs.len(), &b));
    out.table("window", window_table(trace, w, &jobs))
        .table("mix", mix_table(&inside, &all))
        .headlines("headlines", window_headlines(w, &jobs, &inside))
        .curves("hourly-demand", "Hours since the first submission's hour", "GPU-hours submitted", demand(&jobs, w))
        .table("notes", notes.table());
    Ok(())
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
        let total = jobs.total_gpu_hours();
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

fn window_headlines(w: Option<Window>, jobs: &Jobs, inside: &[(usize, f64); 4]) -> Vec<Headline> {
    let total = jobs.total_gpu_hours();
    let (weight, count) = w.map_or((f64::NAN, f64::NAN), |w| (w.weight, w.count as f64));
    let mut h = vec![
        Headline::new("window_gpu_hours", "GPU-hours submitted in the window", weight, "GPU-h"),
        Headline::new("window_share", "share of the trace's GPU-hours", pct(weight, total), "%"),
        Headline::new("window_jobs", "GPU jobs submitted in the window", count, "jobs"),
    ];
    let n_in = inside.iter().map(|m| m.0).sum::<usize>() as f64;
    for (i, label) in LABELS.iter().enumerate() {
        h.push(Headline::new(
            &format!("window_{label}"),
            &format!("{label} jobs in the window"),
            pct(inside[i].0 as f64, n_in),
            "%",
        ));
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

fn window_definition(p: &BusiestWindowParams) -> String {
    format!(
        "{} The window [t, t + {}) starting at a submission time t with the largest sum of GPU-hours of the jobs \
         submitted in it (ties to the earliest t; jobs by submit_time, then job_id). Its mix (jobs and GPU-hours per \
         class) against the whole trace's; hourly-demand = GPU-hours submitted per hour (the window's hours drawn \
         again). Pollux sampled 160 jobs from the busiest 8-hour window of the Microsoft trace; its published mix is \
         the share of jobs per class in that sample. Trace: {}.",
        class_definition([p.small, p.medium, p.large]),
        duration_text(p.length),
        p.trace.name()
    )
}
