//! The sharing metrics of a finished run (definitions in
//! `crate::metrics::sharing`), from the engine's integrals and per-job
//! accumulators.

use crate::engine::Engine;
use crate::metrics::sharing::{class_summaries, JobSharing, OnlineSummary, SharingResult};
use crate::metrics::stats::dist;
use crate::metrics::JobResult;
use crate::usage::JobClass;

impl Engine<'_> {
    pub(crate) fn sharing_result(&self, jobs: &[JobResult]) -> Option<SharingResult> {
        let sh = self.share.as_ref()?;
        let m = &sh.metrics;
        let first = self.first_event.unwrap_or(self.now);
        // The arrival window, or the whole replay when every job arrived at once.
        let (window, area) = if m.last_submit > first {
            ((m.last_submit.min(self.now) - first) as f64, m.arrival)
        } else {
            ((self.now - first) as f64, m.whole)
        };
        let gpus = self.nodes.total_milli as f64 / 1000.0;
        let per_gpu_time = |area: f64| if window > 0.0 { area / (gpus * window) } else { 0.0 };
        let per_time = |area: f64| if window > 0.0 { area / window } else { 0.0 };
        let per_job: Vec<JobSharing> = (0..jobs.len())
            .map(|i| {
                let run = self.st.progress[i].executed;
                JobSharing {
                    mean_slowdown: (run > 0).then(|| sh.slow_area[i] / run as f64),
                    max_slowdown: (run > 0).then_some(sh.slow_max[i]),
                }
            })
            .collect();
        Some(SharingResult {
            gpu_allocated_util: per_gpu_time(area[2]),
            gpu_used_util: per_gpu_time(area[0]),
            gpus_saved_mean: per_time(area[1] - area[2]),
            oversold_gpus_mean: per_time(area[3]),
            evictions: sh.evictions,
            classes: class_summaries(jobs, |i| self.usage(i as u32).class),
            online: self.online_summary(&per_job),
            jobs: per_job,
            used_series: m.series.clone(),
        })
    }

    fn online_summary(&self, per_job: &[JobSharing]) -> Option<OnlineSummary> {
        let sh = self.share.as_ref()?;
        let bound = self.cfg.sharing.online_bound;
        let ran: Vec<usize> = (0..per_job.len())
            .filter(|&i| self.usage(i as u32).class == JobClass::Online && per_job[i].mean_slowdown.is_some())
            .collect();
        if ran.is_empty() {
            return None;
        }
        let run_time: i64 = ran.iter().map(|&i| self.st.progress[i].executed).sum();
        let over: i64 = ran.iter().map(|&i| sh.over_bound[i]).sum();
        Some(OnlineSummary {
            services: ran.len(),
            bound,
            mean_slowdown: dist(ran.iter().filter_map(|&i| per_job[i].mean_slowdown).collect()),
            max_slowdown: ran.iter().filter_map(|&i| per_job[i].max_slowdown).fold(1.0, f64::max),
            violations: ran
                .iter()
                .filter(|&&i| per_job[i].max_slowdown.is_some_and(|m| super::beyond(m, bound)))
                .count(),
            violation_share: if run_time > 0 { over as f64 / run_time as f64 } else { 0.0 },
        })
    }
}
