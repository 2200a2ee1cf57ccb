//! How a headline compares with its published value, honestly for the data
//! at hand: the tolerance rule, and for synthetic traces what `tracelab
//! synth` targets (so that a number the generator never aimed at is not
//! reported as a deviation of the pipeline). The one judge of both the
//! report's pages and `tracelab analyze`'s headline table, so a synthetic
//! count is compared with the published value times the scale in both.
//!
//! The targets below are the calibration checks of `tests/calibration/`
//! (`pai.py`, `philly.py`, `helios.py`): each names the analysis whose
//! published numbers a check measures, and the smallest scale from which it
//! holds (`pai.py`'s docstring: everything from 0.05, all but the gangs
//! and queueing from 0.02; `data-samples/pai/SOURCE.md`: requests, usage,
//! GPU-request shares and recurrence also at 0.005). Analyses not listed
//! (Philly queueing, PAI machine utilization, Helios per-VC and per-user
//! views, ...) are not targeted at any scale.

use tracelab_schema::synthetic::Marker;
use tracelab_schema::Trace;
use tracelab_store::Store;

use tracelab_present::number::{percent_change, report_signed, report_text};

use crate::headline_row::HeadlineRow;

/// The rule, as the report states it.
pub const TOLERANCE_RULE: &str = "A headline is within tolerance (≈) when it differs from the published value by \
     at most 10 % of that value, or by at most 2 percentage points for a share in %; beyond that it is marked ▲ \
     (above) or ▼ (below) with the relative difference. For a synthetic trace, counts and totals that grow with the \
     trace's size are compared with the published value times the trace's scale, and numbers the generator does not \
     target at that scale are marked \"not calibrated\" rather than compared.";

/// Relative tolerance, and the absolute one for shares in %.
const RELATIVE: f64 = 0.10;
const PERCENT_POINTS: f64 = 2.0;

/// Headline keys a target covers.
enum Keys {
    All,
    Only(&'static [&'static str]),
}

/// One calibration check: the analysis (and keys) whose published numbers
/// it measures, and the smallest scale at which it holds.
struct Target(&'static str, Keys, f64);

/// tests/calibration/pai.py.
const PAI: &[Target] = &[
    Target("pai.request-vs-usage", Keys::All, 0.0),
    Target("pai.usage-minus-request", Keys::All, 0.0),
    Target("pai.task-share-by-gpu", Keys::All, 0.0),
    Target("pai.recurrence", Keys::Only(&["recurring_tasks"]), 0.0),
    Target("pai.heavy-tails", Keys::Only(&["top5_users"]), 0.02),
    Target("pai.gang-and-constraints", Keys::Only(&["gpu_type_spec"]), 0.02),
    Target("pai.gang-and-constraints", Keys::Only(&["gang_instances"]), 0.05),
    Target("pai.workloads", Keys::Only(&["tagged_instances"]), 0.02),
    Target("pai.hourly-submissions", Keys::All, 0.02),
    Target("pai.submissions-by-hour", Keys::All, 0.02),
    Target("pai.tasks-per-user", Keys::All, 0.02),
    Target("pai.runtime-vs-philly", Keys::All, 0.02),
    Target("pai.gang-size", Keys::All, 0.05),
    Target("pai.wait-over-completion", Keys::All, 0.05),
    Target("pai.wait-by-gpu-request", Keys::All, 0.05),
    Target("pai.wait-by-gpu-type", Keys::All, 0.05),
];

/// tests/calibration/philly.py (its tolerances widen at small scale; the
/// report's do not).
const PHILLY: &[Target] = &[
    Target(
        "philly.paper-numbers",
        Keys::Only(&["killed-or-failed", "gpu-time-pass", "gpu-time-killed", "gpu-time-failed"]),
        0.0,
    ),
    Target("philly.gpu-util-by-status", Keys::Only(&["mean-in-use"]), 0.0),
    Target("philly.runtime-by-size", Keys::All, 0.0),
    Target("helios.gpu-time-by-status", Keys::Only(&["philly.completed", "philly.canceled", "philly.failed"]), 0.0),
];

/// tests/calibration/helios.py.
const HELIOS: &[Target] = &[
    Target("helios.cluster-summary", Keys::All, 0.0),
    Target("helios.final-status", Keys::All, 0.0),
    Target("helios.gpu-time-by-status", Keys::Only(&["helios.completed", "helios.canceled", "helios.failed"]), 0.0),
    Target("helios.diurnal-submissions", Keys::All, 0.0),
    Target("helios.diurnal-utilization", Keys::All, 0.0),
    Target("helios.duration-vs-philly", Keys::All, 0.0),
    Target("helios.duration-gpu-cpu", Keys::All, 0.0),
    Target("helios.job-size", Keys::All, 0.0),
];

/// tests/calibration/acme.py: Seren from any scale, Kalos (62,413 jobs at
/// scale 1) from 0.1, where its few large jobs no longer swing the means and
/// the GPU-time shares; the largest values (max_*) are not targeted.
const ACME: &[Target] = &[
    Target("acme.cluster-summary", Keys::Only(SEREN_SUMMARY), 0.0),
    Target("acme.cluster-summary", Keys::Only(KALOS_SUMMARY), 0.1),
    Target(
        "acme.final-status",
        Keys::Only(&[
            "Seren.count.completed",
            "Seren.count.cancelled",
            "Seren.count.failed",
            "Seren.gpu_time.completed",
            "Seren.gpu_time.cancelled",
            "Seren.gpu_time.failed",
        ]),
        0.0,
    ),
    Target(
        "acme.final-status",
        Keys::Only(&[
            "Kalos.count.completed",
            "Kalos.count.cancelled",
            "Kalos.count.failed",
            "Kalos.gpu_time.completed",
            "Kalos.gpu_time.cancelled",
            "Kalos.gpu_time.failed",
        ]),
        0.1,
    ),
];

const SEREN_SUMMARY: &[&str] = &[
    "Seren.job_num",
    "Seren.cpu_job_num",
    "Seren.gpu_job_num",
    "Seren.avg_run_time_gpu",
    "Seren.avg_que_time_gpu",
    "Seren.avg_gpu_num",
    "Seren.med_run_time_gpu",
    "Seren.med_que_time_gpu",
    "Seren.med_gpu_num",
    "Seren.complete_rate_gpu",
    "Seren.cancel_rate_gpu",
    "Seren.fail_rate_gpu",
    "Seren.complete_gpu_time",
    "Seren.cancel_gpu_time",
    "Seren.fail_gpu_time",
    "Seren.complete_rate_gpu_time",
    "Seren.cancel_rate_gpu_time",
    "Seren.fail_rate_gpu_time",
    "Seren.avg_run_time_cpu",
    "Seren.avg_que_time_cpu",
    "Seren.med_run_time_cpu",
    "Seren.med_que_time_cpu",
    "Seren.complete_rate_cpu",
    "Seren.cancel_rate_cpu",
    "Seren.fail_rate_cpu",
];

const KALOS_SUMMARY: &[&str] = &[
    "Kalos.job_num",
    "Kalos.cpu_job_num",
    "Kalos.gpu_job_num",
    "Kalos.avg_run_time_gpu",
    "Kalos.avg_que_time_gpu",
    "Kalos.avg_gpu_num",
    "Kalos.med_run_time_gpu",
    "Kalos.med_que_time_gpu",
    "Kalos.med_gpu_num",
    "Kalos.complete_rate_gpu",
    "Kalos.cancel_rate_gpu",
    "Kalos.fail_rate_gpu",
    "Kalos.complete_gpu_time",
    "Kalos.cancel_gpu_time",
    "Kalos.fail_gpu_time",
    "Kalos.complete_rate_gpu_time",
    "Kalos.cancel_rate_gpu_time",
    "Kalos.fail_rate_gpu_time",
    "Kalos.avg_run_time_cpu",
    "Kalos.avg_que_time_cpu",
    "Kalos.med_run_time_cpu",
    "Kalos.med_que_time_cpu",
    "Kalos.complete_rate_cpu",
    "Kalos.cancel_rate_cpu",
    "Kalos.fail_rate_cpu",
];

/// tests/calibration/spot.py.
const SPOT: &[Target] = &[
    Target("spot.demand-capacity", Keys::Only(&["A10.mean_pct"]), 0.0),
    Target("spot.durations-sizes", Keys::Only(&["all.duration_p90", "all.duration_p99"]), 0.0),
];

/// Helios and AcmeTrace summary numbers that grow with the trace
/// (helios.py compares them with the published value x scale).
const EXTENSIVE: [&str; 6] =
    ["job_num", "cpu_job_num", "gpu_job_num", "complete_gpu_time", "cancel_gpu_time", "fail_gpu_time"];

fn targets(trace: Trace) -> &'static [Target] {
    match trace {
        Trace::Pai => PAI,
        Trace::Philly => PHILLY,
        Trace::Helios => HELIOS,
        // synth makes no SWF logs: nothing is calibrated.
        Trace::Swf => &[],
        Trace::Acme => ACME,
        Trace::Spot => SPOT,
    }
}

/// The trace a headline measures: its analysis's, except Helios Fig 1b's
/// Philly rows and the prior-trace rows of AcmeTrace's summary.
fn trace_of(analysis: &str, key: &str) -> Option<Trace> {
    if analysis == "helios.gpu-time-by-status" && key.starts_with("philly.") {
        return Some(Trace::Philly);
    }
    if analysis == "acme.cluster-summary" {
        let row = key.split('.').next().unwrap_or("");
        if let Some(t) = ["Philly", "Helios", "PAI"].iter().find(|r| **r == row) {
            return Trace::from_name(&t.to_ascii_lowercase());
        }
    }
    Trace::from_name(analysis.split('.').next().unwrap_or(""))
}

/// Whether the generator targets (analysis, key) at `scale`; `key` None
/// asks about any key of the analysis (a figure).
fn targeted(trace: Trace, analysis: &str, key: Option<&str>, scale: f64) -> bool {
    targets(trace).iter().any(|Target(a, keys, from)| {
        *a == analysis
            && scale >= *from
            && match (keys, key) {
                (Keys::All, _) | (_, None) => true,
                (Keys::Only(k), Some(key)) => k.contains(&key),
            }
    })
}

/// Whether the figures of `analysis` show calibrated data, given the
/// synthetic markers of the report's traces (true for official data).
pub fn figure_calibrated(analysis: &str, markers: &[Marker]) -> bool {
    let Some(trace) = trace_of(analysis, "") else { return true };
    match markers.iter().find(|m| m.trace == trace) {
        Some(m) => targeted(trace, analysis, None, m.scale),
        None => true,
    }
}

/// The `tracelab synth` markers of the traces `store` shows: ingest copies
/// a synthetic sample's marker into its manifest's notes.
pub fn markers(store: &Store) -> Vec<Marker> {
    let marker =
        |trace: Trace, notes: &[String]| notes.iter().find_map(|n| Marker::from_note(n)).filter(|m| m.trace == trace);
    store.manifests().iter().filter_map(|(t, m)| marker(*t, &m.notes)).collect()
}

/// How one headline compares.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// No published value (or no value of ours) to compare.
    None,
    Close,
    /// Beyond the tolerance: the relative (or, against 0, absolute)
    /// difference, signed.
    Off(String),
    /// Synthetic data the generator does not target at this scale.
    NotCalibrated,
}

/// A headline's comparison: the verdict and the value it compared with.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub verdict: Verdict,
    /// The published value, or published x scale for a synthetic count.
    pub reference: Option<f64>,
    /// "x 0.001" when the reference was scaled.
    pub scaled_by: Option<f64>,
}

impl Judged {
    /// The comparison as a short mark for a table cell.
    pub fn mark(&self) -> String {
        match &self.verdict {
            Verdict::None => String::new(),
            Verdict::Close => "≈".into(),
            Verdict::Off(d) if d.starts_with('-') => format!("▼ {d}"),
            Verdict::Off(d) => format!("▲ {d}"),
            Verdict::NotCalibrated => "not calibrated".into(),
        }
    }

    /// The reference as text: the published value, and its scaled value
    /// when the trace is a synthetic sample.
    pub fn reference_text(&self, published: Option<f64>) -> String {
        match (published, self.scaled_by, self.reference) {
            (Some(p), Some(s), Some(r)) => format!("{} (× {} = {})", report_text(p), report_text(s), report_text(r)),
            (Some(p), _, _) => report_text(p),
            _ => String::new(),
        }
    }

    /// A machine-readable name for summary.json.
    pub fn verdict_name(&self) -> &'static str {
        match self.verdict {
            Verdict::None => "none",
            Verdict::Close => "within-tolerance",
            Verdict::Off(_) => "beyond-tolerance",
            Verdict::NotCalibrated => "not-calibrated",
        }
    }
}

/// Compares a headline with its published value under the tolerance rule.
pub fn judge(row: &HeadlineRow, markers: &[Marker]) -> Judged {
    let none = Judged { verdict: Verdict::None, reference: row.published, scaled_by: None };
    let (Some(value), Some(published)) = (row.value, row.published) else { return none };
    let marker = trace_of(&row.analysis, &row.key).and_then(|t| markers.iter().find(|m| m.trace == t));
    let summary = row.analysis == "helios.cluster-summary" || row.analysis == "acme.cluster-summary";
    let extensive = summary && EXTENSIVE.iter().any(|k| row.key.rsplit('.').next() == Some(*k));
    let scaled_by = marker.filter(|_| extensive).map(|m| m.scale);
    let reference = published * scaled_by.unwrap_or(1.0);
    let judged = |verdict| Judged { verdict, reference: Some(reference), scaled_by };
    if let Some(m) = marker {
        if !targeted(m.trace, &row.analysis, Some(&row.key), m.scale) {
            return judged(Verdict::NotCalibrated);
        }
    }
    let diff = value - reference;
    let floor = if row.unit == "%" { PERCENT_POINTS } else { 0.0 };
    if diff.abs() <= (RELATIVE * reference.abs()).max(floor) {
        return judged(Verdict::Close);
    }
    let off = if reference != 0.0 { percent_change(100.0 * diff / reference.abs()) } else { report_signed(diff) };
    judged(Verdict::Off(off))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(analysis: &str, key: &str, value: f64, published: f64, unit: &str) -> HeadlineRow {
        HeadlineRow {
            analysis: analysis.into(),
            key: key.into(),
            label: key.into(),
            value: Some(value),
            unit: unit.into(),
            published: Some(published),
            source: String::new(),
        }
    }

    fn synthetic(trace: Trace, scale: f64) -> Marker {
        Marker { trace, version: "0".into(), scale, seed: 7, corrupt: None, effects: vec![], real_files: vec![] }
    }

    #[test]
    fn the_tolerance_is_ten_percent_or_two_points_for_shares() {
        // 31.6 vs 30 %: 1.6 points <= 2: close; 35 vs 30 %: 5 points and
        // 16.7 % > 10 %: off by +16.7 %.
        assert_eq!(judge(&row("philly.x", "k", 31.6, 30.0, "%"), &[]).verdict, Verdict::Close);
        assert_eq!(judge(&row("philly.x", "k", 35.0, 30.0, "%"), &[]).mark(), "▲ +16.7 %");
        // 13000 s vs 13709 s: -5.2 %, close; 39694 vs 497: +7886.7 %.
        assert_eq!(judge(&row("pai.x", "k", 13000.0, 13709.0, "s"), &[]).verdict, Verdict::Close);
        assert_eq!(judge(&row("pai.x", "k", 39694.0, 497.0, "s"), &[]).mark(), "▲ +7886.7 %");
        // Against 0 the difference is absolute.
        assert_eq!(judge(&row("pai.x", "k", 0.5, 0.0, "s"), &[]).mark(), "▲ +0.5");
        assert_eq!(judge(&row("pai.x", "k", 0.5, 1.0, ""), &[]).mark(), "▼ -50.0 %");
    }

    #[test]
    fn synthetic_numbers_the_generator_does_not_target_are_not_compared() {
        let pai = [synthetic(Trace::Pai, 0.005)];
        // Queueing holds from scale 0.05 only; request medians at any scale.
        let wait = row("pai.wait-by-gpu-request", "sharing_p90", 39694.0, 497.0, "s");
        assert_eq!(judge(&wait, &pai).verdict, Verdict::NotCalibrated);
        assert!(matches!(judge(&wait, &[synthetic(Trace::Pai, 0.05)]).verdict, Verdict::Off(_)));
        assert!(matches!(judge(&wait, &[]).verdict, Verdict::Off(_)), "official data is compared");
        let req = row("pai.request-vs-usage", "cpu_request_p50", 6.0, 6.0, "vCPU");
        assert_eq!(judge(&req, &pai).verdict, Verdict::Close);
        // Machine utilization is not targeted at any scale.
        let util = row("pai.machine-util", "2-GPU gpu p90 min", 0.0, 40.0, "%");
        assert_eq!(judge(&util, &[synthetic(Trace::Pai, 1.0)]).verdict, Verdict::NotCalibrated);
        // Helios Fig 1b's Philly rows follow the Philly marker.
        let philly_row = row("helios.gpu-time-by-status", "philly.failed", 44.5, 36.1, "%");
        assert_eq!(judge(&philly_row, &[synthetic(Trace::Helios, 0.001)]).mark(), "▲ +23.3 %");
    }

    #[test]
    fn acme_summary_rows_follow_their_own_trace_and_scale() {
        let markers = [synthetic(Trace::Acme, 0.003), synthetic(Trace::Philly, 0.001)];
        // Seren's jobs: 1,031,550 x 0.003 = 3,094.65; 3,095 is close.
        let seren = judge(&row("acme.cluster-summary", "Seren.job_num", 3095.0, 1_031_550.0, ""), &markers);
        assert_eq!((seren.verdict, seren.scaled_by), (Verdict::Close, Some(0.003)));
        // Kalos is targeted from scale 0.1 only.
        let kalos = row("acme.cluster-summary", "Kalos.avg_gpu_num", 20.6, 26.77, "");
        assert_eq!(judge(&kalos, &markers).verdict, Verdict::NotCalibrated);
        // The Philly row measures the (synthetic) Philly trace, which synth does not aim at this table.
        let philly = row("acme.cluster-summary", "Philly.job_num", 117.0, 112_956.0, "");
        assert_eq!(judge(&philly, &markers).verdict, Verdict::NotCalibrated);
        assert!(matches!(judge(&philly, &[]).verdict, Verdict::Off(_)), "official data is compared");
    }

    #[test]
    fn synthetic_counts_are_compared_with_the_published_value_times_the_scale() {
        // 246708 jobs x 0.001 = 246.708; 247 is 0.1 % above.
        let jobs = row("helios.cluster-summary", "Venus.job_num", 247.0, 246708.0, "");
        let j = judge(&jobs, &[synthetic(Trace::Helios, 0.001)]);
        assert_eq!((j.verdict.clone(), j.scaled_by), (Verdict::Close, Some(0.001)));
        assert_eq!(j.reference_text(Some(246708.0)), "246708 (× 0.001 = 246.7)");
        // Official data: no scaling.
        assert_eq!(judge(&jobs, &[]).mark(), "▼ -99.9 %");
    }

    #[test]
    fn figures_of_untargeted_analyses_are_not_calibrated() {
        let pai = [synthetic(Trace::Pai, 0.005)];
        assert!(figure_calibrated("pai.request-vs-usage", &pai));
        assert!(!figure_calibrated("pai.wait-by-gpu-type", &pai));
        assert!(!figure_calibrated("pai.machine-util", &pai));
        assert!(figure_calibrated("pai.machine-util", &[]));
        assert!(figure_calibrated("cross.runtime", &pai));
        // Every analysis a target names exists.
        for t in PAI.iter().chain(PHILLY).chain(HELIOS).chain(ACME).chain(SPOT) {
            assert!(crate::find(t.0).is_ok(), "{}", t.0);
        }
    }
}
