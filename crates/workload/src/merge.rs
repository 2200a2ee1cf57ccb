//! Merging the runs of independently replayed partitions (Helios VCs, as
//! HeliosArtifact simulates them) into one result: jobs back to their
//! workload ids, node ids numbered across partitions, the time series summed
//! as step functions, and the summary recomputed over all jobs with the
//! engine's definitions (`docs/simulate.md`, "Results"): the engine's own
//! numeric helpers (`tracelab_sim::metrics::stats`) compute the percentiles,
//! means and Jain's index.

use tracelab_sim::metrics::stats::{dist, jain};
use tracelab_sim::{JobResult, JobStatus, Series, SimConfig, SimResult, Summary, Workload};

/// One partition's run.
pub struct Part {
    /// Workload id of each of the partition's jobs (by partition job id).
    pub ids: Vec<u32>,
    /// The partition's first node id in the whole cluster.
    pub node_offset: u32,
    pub result: SimResult,
}

/// One result for the whole workload; `total_gpus` over all partitions.
pub fn merge(parts: Vec<Part>, w: &Workload, total_gpus: u64, config: &SimConfig) -> SimResult {
    let series = sum_series(parts.iter().map(|p| &p.result.series).collect());
    let mut jobs: Vec<Option<JobResult>> = vec![None; w.jobs.len()];
    let (mut events, mut not_submitted) = (0, 0);
    for p in parts {
        events += p.result.summary.events;
        not_submitted += p.result.summary.jobs_not_submitted;
        for (j, global) in p.result.jobs.into_iter().zip(&p.ids) {
            let first_node = j.first_node.map(|n| n + p.node_offset);
            jobs[*global as usize] = Some(JobResult { id: *global, first_node, ..j });
        }
    }
    let jobs: Vec<JobResult> = jobs.into_iter().map(|j| j.expect("every job is in one partition")).collect();
    let summary = summarize(&jobs, w, &series, total_gpus, config, (events, not_submitted));
    SimResult { summary, jobs, series, segments: Vec::new(), sharing: None }
}

/// The summary of merged jobs.
fn summarize(
    jobs: &[JobResult],
    w: &Workload,
    series: &Series,
    total_gpus: u64,
    config: &SimConfig,
    (events, not_submitted): (u64, usize),
) -> Summary {
    let done: Vec<&JobResult> = jobs.iter().filter(|j| j.status == JobStatus::Done).collect();
    let count = |s: JobStatus| jobs.iter().filter(|j| j.status == s).count();
    let of = |f: &dyn Fn(&JobResult) -> Option<f64>| done.iter().filter_map(|j| f(j)).collect::<Vec<f64>>();
    let mean = |x: Vec<f64>| if x.is_empty() { f64::NAN } else { x.iter().sum::<f64>() / x.len() as f64 };
    let first_submit = jobs.iter().filter(|j| j.queue_time.is_some()).map(|j| j.submit).min();
    let last_end = done.iter().filter_map(|j| j.end).max();
    Summary {
        config: config.clone(),
        jobs_submitted: jobs.len() - not_submitted,
        jobs_done: done.len(),
        jobs_left_running: count(JobStatus::Running),
        jobs_left_waiting: count(JobStatus::Waiting),
        jobs_not_submitted: not_submitted,
        jobs_unplaceable: 0,
        unplaceable_reasons: Vec::new(),
        jct_ms: dist(of(&|j| j.jct.map(|x| x as f64))),
        queue_ms: dist(of(&|j| j.queue_time.map(|x| x as f64))),
        mean_slowdown: mean(of(&|j| j.slowdown)),
        mean_bounded_slowdown: mean(of(&|j| j.bounded_slowdown)),
        makespan_ms: match (first_submit, last_end) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        },
        gpu_utilisation: utilisation(series, total_gpus),
        jain_user_slowdown: jain(&user_slowdowns(&done, w)),
        preemptions: jobs.iter().map(|j| j.preemptions as u64).sum(),
        events,
    }
}

/// Allocated GPU-time over (all GPUs x (last point - first point)).
fn utilisation(s: &Series, total_gpus: u64) -> f64 {
    let (Some(&a), Some(&b)) = (s.time.first(), s.time.last()) else { return 0.0 };
    if b <= a {
        return 0.0;
    }
    let area: f64 = s.time.windows(2).zip(&s.allocated_milli).map(|(t, m)| (t[1] - t[0]) as f64 * *m as f64).sum();
    area / (total_gpus as f64 * 1000.0 * (b - a) as f64)
}

/// Mean slowdown of each user with a done job, by user id.
fn user_slowdowns(done: &[&JobResult], w: &Workload) -> Vec<f64> {
    let mut acc = vec![(0.0, 0u64); w.n_users as usize];
    for j in done {
        let a = &mut acc[w.jobs[j.id as usize].user as usize];
        a.0 += j.slowdown.unwrap_or(0.0);
        a.1 += 1;
    }
    acc.iter().filter(|a| a.1 > 0).map(|a| a.0 / a.1 as f64).collect()
}

/// The sum of step functions: at every time any of them has a point, each
/// contributes its last value at or before that time (0 before its first).
pub fn sum_series(all: Vec<&Series>) -> Series {
    let mut times: Vec<i64> = all.iter().flat_map(|s| s.time.iter().copied()).collect();
    times.sort_unstable();
    times.dedup();
    let mut out = Series::default();
    let mut at = vec![0usize; all.len()];
    for &t in &times {
        let (mut alloc, mut queued, mut running) = (0u64, 0u32, 0u32);
        for (s, i) in all.iter().zip(at.iter_mut()) {
            while *i < s.time.len() && s.time[*i] <= t {
                *i += 1;
            }
            if *i > 0 {
                alloc += s.allocated_milli[*i - 1];
                queued += s.queued[*i - 1];
                running += s.running[*i - 1];
            }
        }
        out.time.push(t);
        out.allocated_milli.push(alloc);
        out.queued.push(queued);
        out.running.push(running);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracelab_sim::{simulate, Cluster, Job, Policy};

    fn job(id: u32, submit_s: i64, dur_s: i64, gpus: u32, user: u32) -> Job {
        Job { user, ..Job::new(id, submit_s * 1000, dur_s * 1000, gpus * 1000) }
    }

    /// Two step functions: a = 2 from t=0, 5 from t=10; b = 1 from t=5.
    /// Their sum: 2 at 0, 3 at 5, 6 at 10.
    #[test]
    fn step_functions_add_up_by_hand() {
        let a = Series { time: vec![0, 10], allocated_milli: vec![2, 5], queued: vec![1, 0], running: vec![1, 2] };
        let b = Series { time: vec![5], allocated_milli: vec![1], queued: vec![3], running: vec![1] };
        let s = sum_series(vec![&a, &b]);
        assert_eq!(s.time, vec![0, 5, 10]);
        assert_eq!(s.allocated_milli, vec![2, 3, 6]);
        assert_eq!(s.queued, vec![1, 4, 3]);
        assert_eq!(s.running, vec![1, 2, 3]);
    }

    /// One partition merged must reproduce the engine's own summary: the same
    /// definitions computed twice, independently.
    #[test]
    fn one_partition_merged_equals_the_engine_summary() {
        let jobs = vec![
            job(0, 0, 100, 4, 0),
            job(1, 0, 50, 4, 1),
            job(2, 10, 30, 2, 0),
            job(3, 20, 500, 8, 2),
            job(4, 25, 5, 1, 1),
        ];
        let w = Workload::from_jobs(jobs);
        let cluster = Cluster::homogeneous(2, 4).unwrap();
        for policy in [Policy::Fifo, Policy::Sjf, Policy::Srtf] {
            let cfg = SimConfig { policy, ..SimConfig::default() };
            let r = simulate(&w, &cluster, &cfg).unwrap();
            let m = merge(vec![Part { ids: (0..5).collect(), node_offset: 0, result: r.clone() }], &w, 8, &cfg);
            let (a, b) = (&r.summary, &m.summary);
            assert_eq!(m.jobs, r.jobs);
            assert_eq!(
                (a.jobs_done, a.jobs_submitted, a.makespan_ms, a.preemptions),
                (b.jobs_done, b.jobs_submitted, b.makespan_ms, b.preemptions)
            );
            assert_eq!((a.jct_ms, a.queue_ms), (b.jct_ms, b.queue_ms));
            for (x, y) in [
                (a.mean_slowdown, b.mean_slowdown),
                (a.mean_bounded_slowdown, b.mean_bounded_slowdown),
                (a.gpu_utilisation, b.gpu_utilisation),
                (a.jain_user_slowdown, b.jain_user_slowdown),
            ] {
                assert!((x - y).abs() < 1e-12, "{policy}: {x} vs {y}");
            }
        }
    }
}
