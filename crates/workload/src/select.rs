//! Which of a trace's jobs a replay gets, and when they arrive:
//! - `--window FROM..TO`: jobs submitted in `[FROM, TO)`; each end is an
//!   RFC 3339 instant or an offset from the trace's first submission (`3h`,
//!   `1d12h`), either may be empty (open);
//! - `--window busiest:DURATION`: the window of that length with the most
//!   GPU demand submitted in it, as Pollux (OSDI'21 §5.1) picked its busiest
//!   8 hours of Philly. Demand = the sum of GPUs x duration (GPU-seconds) of
//!   the jobs submitted in the window. The best window starts at a
//!   submission (moving its start later up to the next submission loses no
//!   job), so one sorted sweep with two pointers finds it in O(n log n);
//!   ties go to the earliest;
//! - `--sample N --seed S`: N jobs drawn uniformly without replacement by a
//!   partial Fisher-Yates shuffle of the window's jobs (in submission order,
//!   then id) driven by `tracelab_sim::rng::Rng::new(S)` (xoshiro256**
//!   seeded by splitmix64), so the same seed gives the same sample;
//! - `--load F`: submission times relative to the window start divided by
//!   F (Pollux Fig 8a's workload intensity; F = 2 doubles the arrival rate).
//!
//! The result is in replay time: milliseconds from the window start.

use chrono::DateTime;

use tracelab_schema::error::{Error, Result};
use tracelab_sim::rng::Rng;
use tracelab_sim::Millis;

use crate::load::{LeftOut, LeftReason, TraceJob};

/// One end of `--window FROM..TO`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instant {
    /// Milliseconds since the Unix epoch.
    At(Millis),
    /// Milliseconds after the trace's first submission.
    Offset(Millis),
}

/// `--window`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Window {
    #[default]
    All,
    Range {
        from: Option<Instant>,
        to: Option<Instant>,
    },
    Busiest(Millis),
}

impl Window {
    pub fn parse(raw: &str) -> Result<Window> {
        let bad = |what: &str| Error::Usage(format!("--window {raw}: {what}"));
        let expected = "expected FROM..TO (RFC 3339 instants or offsets from the trace start such as 3h..11h), \
                        busiest:DURATION (e.g. busiest:8h) or all";
        if raw == "all" {
            return Ok(Window::All);
        }
        if let Some(d) = raw.strip_prefix("busiest:") {
            let span = parse_span(d).filter(|s| *s > 0).ok_or_else(|| bad(expected))?;
            return Ok(Window::Busiest(span));
        }
        let (from, to) = raw.split_once("..").ok_or_else(|| bad(expected))?;
        let end = |s: &str| -> Result<Option<Instant>> {
            if s.is_empty() {
                return Ok(None);
            }
            parse_instant(s).map(Some).ok_or_else(|| bad(expected))
        };
        let w = Window::Range { from: end(from)?, to: end(to)? };
        if let Window::Range { from: Some(a), to: Some(b) } = w {
            let same_kind =
                matches!((a, b), (Instant::At(_), Instant::At(_)) | (Instant::Offset(_), Instant::Offset(_)));
            if same_kind && instant_ms(a) >= instant_ms(b) {
                return Err(bad("the window's end must come after its start"));
            }
        }
        Ok(w)
    }
}

fn instant_ms(i: Instant) -> Millis {
    match i {
        Instant::At(t) | Instant::Offset(t) => t,
    }
}

fn parse_instant(s: &str) -> Option<Instant> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(Instant::At(t.timestamp_millis()));
    }
    parse_span(s).map(Instant::Offset)
}

/// A span such as `90s`, `30m`, `8h`, `2d`, `1d12h` or `0`, in milliseconds.
pub fn parse_span(s: &str) -> Option<Millis> {
    if s == "0" {
        return Some(0);
    }
    let mut total: Millis = 0;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit())?;
        let n: Millis = rest[..digits].parse().ok()?;
        let unit_len = rest[digits..].find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len() - digits);
        let unit = match &rest[digits..digits + unit_len] {
            "ms" => 1,
            "s" => 1000,
            "m" | "min" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(unit)?)?;
        rest = &rest[digits + unit_len..];
    }
    (!s.is_empty()).then_some(total)
}

/// The selection options.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selection {
    pub window: Window,
    /// Draw this many jobs (all when `None` or more than there are).
    pub sample: Option<usize>,
    pub seed: u64,
}

/// Jobs in replay time (milliseconds since `origin`), by submission.
#[derive(Clone, Debug, Default)]
pub struct Selected {
    pub jobs: Vec<TraceJob>,
    /// The window's start, epoch milliseconds.
    pub origin: Millis,
    /// The window's end (exclusive), epoch milliseconds; `None` = open.
    pub end: Option<Millis>,
    pub left_out: LeftOut,
}

/// Applies the window and the sample; the jobs come back in submission
/// order (ties by trace id) with times relative to the window start.
pub fn select(mut jobs: Vec<TraceJob>, sel: &Selection) -> Result<Selected> {
    jobs.sort_by(|a, b| (a.job.submit, &a.job_id).cmp(&(b.job.submit, &b.job_id)));
    let first = jobs.first().map_or(0, |j| j.job.submit);
    let (origin, end) = bounds(&jobs, sel.window, first);
    let mut left = LeftOut::default();
    let before = jobs.len();
    jobs.retain(|j| j.job.submit >= origin && end.is_none_or(|e| j.job.submit < e));
    left.add(LeftReason::OutsideWindow, (before - jobs.len()) as u64);
    if jobs.is_empty() {
        return Err(Error::Usage(format!(
            "--window: no job of the trace is submitted in the window ({}); the trace's jobs are submitted from {} on",
            describe(origin, end),
            rfc3339(first)
        )));
    }
    if let Some(n) = sel.sample.filter(|n| *n < jobs.len()) {
        let before = jobs.len();
        jobs = sample(jobs, n, sel.seed);
        left.add(LeftReason::NotSampled, (before - n) as u64);
    }
    for j in &mut jobs {
        j.job.submit -= origin;
    }
    Ok(Selected { jobs, origin, end, left_out: left })
}

/// The window's start and (exclusive) end in epoch milliseconds.
fn bounds(jobs: &[TraceJob], window: Window, first: Millis) -> (Millis, Option<Millis>) {
    let at = |i: Instant| match i {
        Instant::At(t) => t,
        Instant::Offset(d) => first + d,
    };
    match window {
        Window::All => (first, None),
        Window::Range { from, to } => (from.map_or(first, at), to.map(at)),
        Window::Busiest(span) => {
            let start = busiest(jobs, span);
            (start, Some(start + span))
        }
    }
}

/// GPU demand of one job in milli-GPU-milliseconds (GPUs x duration, kept
/// in integers so that sliding sums are exact).
fn demand(j: &TraceJob) -> i128 {
    j.job.gpu_milli as i128 * j.job.duration.max(0) as i128
}

/// Start of the `span`-long window with the most GPU demand submitted in it
/// (`jobs` sorted by submission); the earliest on ties. The search is the
/// one the `seed.pollux-busiest-window` analysis uses
/// ([`tracelab_stats::heaviest`]), on exact integer demands.
pub fn busiest(jobs: &[TraceJob], span: Millis) -> Millis {
    let points: Vec<(Millis, i128)> = jobs.iter().map(|j| (j.job.submit, demand(j))).collect();
    tracelab_stats::heaviest(&points, span).map_or(0, |w| w.start)
}

/// `n` of `jobs` by a partial Fisher-Yates shuffle, back in input order.
pub(crate) fn sample(jobs: Vec<TraceJob>, n: usize, seed: u64) -> Vec<TraceJob> {
    let mut rng = Rng::new(seed);
    let mut idx: Vec<usize> = (0..jobs.len()).collect();
    for i in 0..n {
        let j = i + rng.below((idx.len() - i) as u64) as usize;
        idx.swap(i, j);
    }
    let mut keep = idx[..n].to_vec();
    keep.sort_unstable();
    let mut slots: Vec<Option<TraceJob>> = jobs.into_iter().map(Some).collect();
    keep.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// Replay-time submissions divided by the load factor (rounded to the
/// millisecond; order is kept since division is monotone).
pub fn scale_arrivals(jobs: &mut [tracelab_sim::Job], load: f64) {
    for j in jobs {
        j.submit = (j.submit as f64 / load).round() as Millis;
    }
}

/// Validates a `--load` value.
pub fn parse_load(raw: &str) -> Result<f64> {
    raw.trim().parse::<f64>().ok().filter(|f| f.is_finite() && *f > 0.0).ok_or_else(|| {
        Error::Usage(format!("--load {raw}: expected a positive number (1 = as recorded, 2 = twice the arrival rate)"))
    })
}

/// An epoch-millisecond instant as RFC 3339 (UTC, seconds).
pub fn rfc3339(ms: Millis) -> String {
    DateTime::from_timestamp_millis(ms)
        .map_or_else(|| format!("{ms} ms"), |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// `[FROM, TO)` as text.
pub fn describe(origin: Millis, end: Option<Millis>) -> String {
    format!("[{}, {})", rfc3339(origin), end.map_or_else(|| "end of trace".to_string(), rfc3339))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, submit_s: i64, dur_s: i64, gpus: u32) -> TraceJob {
        let job = tracelab_sim::Job::new(0, submit_s * 1000, dur_s * 1000, gpus * 1000);
        TraceJob { job_id: id.into(), job, usage: tracelab_sim::Usage::default() }
    }

    #[test]
    fn spans_parse_with_units_and_compounds() {
        assert_eq!(parse_span("90s"), Some(90_000));
        assert_eq!(parse_span("8h"), Some(8 * 3_600_000));
        assert_eq!(parse_span("1d12h"), Some(36 * 3_600_000));
        assert_eq!(parse_span("0"), Some(0));
        for bad in ["", "h", "8", "8x", "-3h"] {
            assert_eq!(parse_span(bad), None, "{bad}");
        }
    }

    #[test]
    fn windows_parse_and_bad_ones_name_the_option() {
        assert_eq!(Window::parse("busiest:8h").unwrap(), Window::Busiest(8 * 3_600_000));
        let w = Window::parse("3h..11h").unwrap();
        assert_eq!(
            w,
            Window::Range { from: Some(Instant::Offset(3 * 3_600_000)), to: Some(Instant::Offset(11 * 3_600_000)) }
        );
        let w = Window::parse("2017-10-01T00:00:00Z..").unwrap();
        assert_eq!(w, Window::Range { from: Some(Instant::At(1_506_816_000_000)), to: None });
        for bad in ["busiest:", "busiest:0h", "3h", "11h..3h", "yesterday..today"] {
            let e = Window::parse(bad).unwrap_err();
            assert!(e.to_string().starts_with(&format!("--window {bad}:")), "{e}");
            assert_eq!(e.exit_code(), 2);
        }
    }

    /// Submissions at 0, 1, 2, 5, 6 h with GPU-hours 1, 4, 1, 3, 3: the
    /// 2-hour windows starting at each submission hold [0,2h): 1+4 = 5,
    /// [1h,3h): 4+1 = 5, [2h,4h): 1, [5h,7h): 3+3 = 6. The busiest starts at 5h.
    #[test]
    fn the_busiest_window_is_found_by_hand() {
        let h = 3600;
        let jobs = vec![
            job("a", 0, h, 1),
            job("b", h, h, 4),
            job("c", 2 * h, h, 1),
            job("d", 5 * h, h, 3),
            job("e", 6 * h, h, 3),
        ];
        assert_eq!(busiest(&jobs, 2 * h * 1000), 5 * h * 1000);
        // 1-hour windows: 1, 4, 1, 3, 3: the one at 1h, the earliest of none tied.
        assert_eq!(busiest(&jobs, h * 1000), h * 1000);
        // 3-hour windows: [0,3h) = 6, [5h,8h) = 6: the earliest wins.
        assert_eq!(busiest(&jobs, 3 * h * 1000), 0);
    }

    #[test]
    fn jobs_submitted_together_enter_the_window_together() {
        // Two jobs at 10 s and one at 0 s; a 5-s window holds both at 10 s.
        let jobs = vec![job("a", 0, 1, 1), job("b", 10, 1, 1), job("c", 10, 1, 1)];
        assert_eq!(busiest(&jobs, 5000), 10_000);
    }

    #[test]
    fn a_window_keeps_jobs_in_range_and_counts_the_others() {
        let jobs = vec![job("a", 100, 10, 1), job("b", 3700, 10, 1), job("c", 7400, 10, 1), job("d", 200, 10, 2)];
        let sel = Selection { window: Window::parse("1h..2h").unwrap(), ..Selection::default() };
        let s = select(jobs, &sel).unwrap();
        // The trace starts at 100 s; [3700 s, 7300 s) holds b only.
        assert_eq!(s.jobs.iter().map(|j| j.job_id.as_str()).collect::<Vec<_>>(), ["b"]);
        assert_eq!((s.origin, s.end), (3_700_000, Some(7_300_000)));
        assert_eq!(s.jobs[0].job.submit, 0);
        assert_eq!(s.left_out.count(&LeftReason::OutsideWindow), 3);
    }

    #[test]
    fn an_empty_window_is_a_usage_error() {
        let e = select(
            vec![job("a", 0, 1, 1)],
            &Selection { window: Window::parse("1h..2h").unwrap(), ..Default::default() },
        )
        .unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("no job of the trace is submitted in the window"), "{e}");
    }

    #[test]
    fn samples_are_reproducible_subsets_in_submission_order() {
        let jobs: Vec<TraceJob> = (0..50).map(|i| job(&format!("j{i:02}"), i, 1, 1)).collect();
        let sel = |seed| Selection { sample: Some(10), seed, ..Selection::default() };
        let a = select(jobs.clone(), &sel(1)).unwrap();
        let b = select(jobs.clone(), &sel(1)).unwrap();
        let c = select(jobs.clone(), &sel(2)).unwrap();
        let ids = |s: &Selected| s.jobs.iter().map(|j| j.job_id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&a), ids(&b));
        assert_ne!(ids(&a), ids(&c));
        assert_eq!(a.jobs.len(), 10);
        assert!(a.jobs.windows(2).all(|w| w[0].job_id < w[1].job_id));
        assert_eq!(a.left_out.count(&LeftReason::NotSampled), 40);
        // Asking for more than there are keeps everything.
        let all = select(jobs, &Selection { sample: Some(99), ..Selection::default() }).unwrap();
        assert_eq!((all.jobs.len(), all.left_out.total()), (50, 0));
    }
}
