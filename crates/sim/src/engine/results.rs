//! Collects a finished replay's typed results from the engine's state: one
//! record per job, the run summary (metric definitions in
//! [`crate::metrics`]) and the recorded series.

use super::state::Phase;
use super::Engine;
use crate::error::Unplaceable;
use crate::job::JobId;
use crate::metrics::stats::{dist, jain};
use crate::metrics::{JobResult, JobStatus, SimResult, Summary};

impl Engine<'_> {
    fn job_result(&self, i: usize) -> JobResult {
        let job = &self.w.jobs[i];
        let st = &self.st;
        let status = match st.phase[i] {
            Phase::Done => JobStatus::Done,
            Phase::Running => JobStatus::Running,
            Phase::Waiting => JobStatus::Waiting,
            Phase::NotArrived => JobStatus::NotSubmitted,
            Phase::Unplaceable => {
                let at = self.unplaceable.binary_search_by_key(&(i as JobId), |(j, _)| *j).expect("reason recorded");
                let reason = self.unplaceable[at].1.clone();
                JobStatus::Unplaceable(reason)
            }
        };
        let waiting_now = if st.phase[i] == Phase::Waiting { self.now - st.progress[i].queued_at } else { 0 };
        let queue_time =
            matches!(st.phase[i], Phase::Done | Phase::Running | Phase::Waiting).then(|| st.waited[i] + waiting_now);
        let jct = st.end[i].map(|e| e - job.submit);
        let bound = self.cfg.bounded_slowdown_threshold;
        JobResult {
            id: job.id,
            status,
            submit: job.submit,
            duration: job.duration,
            first_start: st.first_start[i],
            end: st.end[i],
            queue_time,
            jct,
            slowdown: jct.map(|j| j as f64 / job.duration.max(1) as f64),
            bounded_slowdown: jct.map(|j| (j as f64 / job.duration.max(bound) as f64).max(1.0)),
            preemptions: st.progress[i].preemptions,
            first_node: st.first_node[i],
            nodes: st.node_count[i],
        }
    }

    pub(crate) fn results(self) -> SimResult {
        let jobs: Vec<JobResult> = (0..self.w.jobs.len()).map(|i| self.job_result(i)).collect();
        let summary = self.summary(&jobs);
        let sharing = self.sharing_result(&jobs);
        SimResult { summary, jobs, series: self.series, segments: self.segments, sharing }
    }

    fn summary(&self, jobs: &[JobResult]) -> Summary {
        let done: Vec<&JobResult> = jobs.iter().filter(|j| j.status == JobStatus::Done).collect();
        let count = |s: JobStatus| jobs.iter().filter(|j| j.status == s).count();
        let f = |g: &dyn Fn(&JobResult) -> f64| done.iter().map(|j| g(j)).collect::<Vec<f64>>();
        let mean = |x: Vec<f64>| if x.is_empty() { f64::NAN } else { x.iter().sum::<f64>() / x.len() as f64 };
        let first_submit = jobs.iter().filter(|j| j.queue_time.is_some()).map(|j| j.submit).min();
        let last_end = done.iter().filter_map(|j| j.end).max();
        let window = (self.now - self.first_event.unwrap_or(self.now)) as f64;
        Summary {
            config: self.cfg.clone(),
            jobs_submitted: jobs.len() - count(JobStatus::NotSubmitted) - self.unplaceable.len(),
            jobs_done: done.len(),
            jobs_left_running: count(JobStatus::Running),
            jobs_left_waiting: count(JobStatus::Waiting),
            jobs_not_submitted: count(JobStatus::NotSubmitted),
            jobs_unplaceable: self.unplaceable.len(),
            unplaceable_reasons: self.reason_counts(),
            jct_ms: dist(f(&|j| j.jct.unwrap_or(0) as f64)),
            queue_ms: dist(f(&|j| j.queue_time.unwrap_or(0) as f64)),
            mean_slowdown: mean(f(&|j| j.slowdown.unwrap_or(f64::NAN))),
            mean_bounded_slowdown: mean(f(&|j| j.bounded_slowdown.unwrap_or(f64::NAN))),
            makespan_ms: match (first_submit, last_end) {
                (Some(a), Some(b)) => b - a,
                _ => 0,
            },
            gpu_utilisation: if window > 0.0 { self.gpu_area / (self.nodes.total_milli as f64 * window) } else { 0.0 },
            jain_user_slowdown: jain(&self.user_slowdowns(&done)),
            preemptions: jobs.iter().map(|j| j.preemptions as u64).sum(),
            events: self.event_count,
        }
    }

    fn reason_counts(&self) -> Vec<(Unplaceable, usize)> {
        let mut reasons: Vec<Unplaceable> = self.unplaceable.iter().map(|(_, r)| r.clone()).collect();
        reasons.sort();
        let mut out: Vec<(Unplaceable, usize)> = Vec::new();
        for r in reasons {
            match out.last_mut() {
                Some((last, n)) if *last == r => *n += 1,
                _ => out.push((r, 1)),
            }
        }
        out
    }

    /// Mean slowdown of each user with at least one done job, by user id.
    fn user_slowdowns(&self, done: &[&JobResult]) -> Vec<f64> {
        let mut acc = vec![(0.0, 0u64); self.w.n_users as usize];
        for j in done {
            let a = &mut acc[self.w.jobs[j.id as usize].user as usize];
            a.0 += j.slowdown.unwrap_or(0.0);
            a.1 += 1;
        }
        acc.iter().filter(|a| a.1 > 0).map(|a| a.0 / a.1 as f64).collect()
    }
}
