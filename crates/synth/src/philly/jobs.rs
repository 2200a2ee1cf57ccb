//! The Philly jobs before placement: submission times, ids, VCs, users,
//! GPU counts, runtimes, final statuses and the attempts each job will make.
//!
//! Runtime is the owners' notebook definition, `attempts[-1].end_time -
//! attempts[0].start_time` (all retries and the gaps between them). It is
//! drawn from the 83,154 real Philly runtimes (`philly_runtime.csv`) by
//! stratified sampling (one draw per 1/n quantile slice), so even small
//! samples follow the real distribution; the scheduler keeps it unless a
//! retry must wait for GPUs.
//!
//! Statuses: about 30 % of jobs are killed or failed (ATC'19), and GPU time
//! (Σ GPUs × runtime) splits Pass 31.3 / Killed 32.6 / Failed 36.1 %
//! (Helios SC'21 Fig 1b on the Philly log). Killed and failed jobs must be
//! the big ones for both to hold: the jobs that make up the top 90 % of GPU
//! time get, largest first, the status whose GPU-time share is furthest
//! below its target; the rest get the remaining count quota in random order.

use super::clock::{local_hour_weekday, skip_repeated_hour};
use super::plan::{Machine, Plan};
use crate::inventory::PHILLY_RUNTIMES;
use crate::rng::{Cumulative, Rng};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Pass,
    Killed,
    Failed,
}

impl Status {
    pub const ALL: [Status; 3] = [Status::Pass, Status::Killed, Status::Failed];

    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "Pass",
            Status::Killed => "Killed",
            Status::Failed => "Failed",
        }
    }
}

/// Share of jobs per status (ATC'19: about 30 % killed or failed).
const COUNT_SHARE: [f64; 3] = [0.70, 0.12, 0.18];
/// Share of GPU time per status (Helios SC'21 Fig 1b, Philly bars).
const GPU_TIME_SHARE: [f64; 3] = [0.313, 0.326, 0.361];
/// Jobs killed or failed before any attempt started (README: "a job may
/// have no attempts").
const NO_ATTEMPT: f64 = 0.015;
/// GPU counts per job and their shares: mostly 1-GPU jobs (ATC'19 Fig 2
/// buckets 1 / 2-4 / 5-8 / >8).
const GPU_COUNTS: [(u32, f64); 7] = [(1, 0.72), (2, 0.07), (4, 0.08), (8, 0.09), (16, 0.025), (32, 0.01), (64, 0.005)];

/// The 15 virtual clusters of the log, weighted by the node counts of
/// HeliosArtifact's `philly_vc.csv` (the four it leaves out are small).
pub const VCS: [(&str, f64); 15] = [
    ("6214e9", 64.0),
    ("7f04ca", 32.0),
    ("11cb48", 16.0),
    ("b436b2", 64.0),
    ("ee9e8c", 64.0),
    ("e13805", 16.0),
    ("6c71a0", 32.0),
    ("2869ce", 16.0),
    ("ed69ec", 8.0),
    ("103959", 8.0),
    ("0e4a51", 32.0),
    ("795a4c", 4.0),
    ("51b7ef", 4.0),
    ("925e2b", 2.0),
    ("23dbec", 2.0),
];

/// One attempt as planned: the delay before it (for the first, the
/// queueing delay asked for) and its length.
#[derive(Clone, Debug)]
pub struct Planned {
    pub gap: i64,
    pub dur: i64,
    /// A launch that never ran: written with `"None"` times and no machines.
    pub launch_failed: bool,
}

/// One attempt as placed.
#[derive(Clone, Debug, Default)]
pub struct Attempt {
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// (machine index in the fleet, GPU index).
    pub place: Vec<(u16, u8)>,
}

#[derive(Clone, Debug)]
pub struct Job {
    pub submit: i64,
    pub id: String,
    pub vc: &'static str,
    pub user: u32,
    pub status: Status,
    pub gpus: u32,
    pub plan: Vec<Planned>,
    pub attempts: Vec<Attempt>,
    /// Still running when the log was collected: the last attempt has no end.
    pub running: bool,
}

pub struct Jobs {
    pub jobs: Vec<Job>,
    pub users: Vec<String>,
}

pub fn draw(plan: &Plan, fleet: &[Machine], seed: u64) -> Jobs {
    let submits = submit_times(plan, fleet, &mut Rng::stream(seed, "philly:submit"));
    let ids = job_ids(plan, &submits, &mut Rng::stream(seed, "philly:ids"));
    let users = Users::new(plan, &mut Rng::stream(seed, "philly:users"));
    let vc_pick = Cumulative::new(&VCS.map(|v| v.1));
    let mut rng = Rng::stream(seed, "philly:jobs");
    let mut jobs: Vec<Job> = submits
        .iter()
        .zip(ids)
        .map(|(&submit, id)| {
            let vc = vc_pick.sample(&mut rng);
            let user = users.pick(vc, &mut rng);
            let gpus = gpu_count(&mut rng, online_gpus(fleet, submit));
            Job {
                submit,
                id,
                vc: VCS[vc].0,
                user,
                status: Status::Pass,
                gpus,
                plan: Vec::new(),
                attempts: Vec::new(),
                running: false,
            }
        })
        .collect();
    let started: Vec<bool> = jobs.iter().map(|_| !rng.chance(NO_ATTEMPT)).collect();
    let runtimes = stratified_runtimes(started.iter().filter(|s| **s).count(), &mut rng);
    let mut r = runtimes.into_iter();
    let mut runtime: Vec<Option<i64>> = started.iter().map(|&s| if s { r.next() } else { None }).collect();
    tame_giants(&jobs, &mut runtime, &mut rng);
    assign_statuses(&mut jobs, &runtime, &mut Rng::stream(seed, "philly:status"));
    mark_running(&mut jobs, &runtime, &mut Rng::stream(seed, "philly:running"));
    let mut prng = Rng::stream(seed, "philly:attempts");
    for (job, rt) in jobs.iter_mut().zip(&runtime) {
        if let Some(rt) = rt {
            job.plan = plan_attempts(job, *rt, &mut prng);
        }
    }
    Jobs { jobs, users: users.names }
}

/// GPUs of the machines in service at `t`.
pub fn online_gpus(fleet: &[Machine], t: i64) -> u32 {
    fleet.iter().filter(|m| m.online <= t).map(|m| m.gpus as u32).sum()
}

/// Submission intensity ∝ GPUs in service × hour-of-day × weekday, the
/// diurnal, weekday-heavy pattern of cluster submissions.
fn submit_times(plan: &Plan, fleet: &[Machine], rng: &mut Rng) -> Vec<i64> {
    const HOUR: [f64; 24] = [
        0.55, 0.5, 0.45, 0.45, 0.45, 0.5, 0.6, 0.75, 0.95, 1.15, 1.3, 1.35, 1.3, 1.35, 1.4, 1.4, 1.35, 1.25, 1.1, 1.0,
        0.95, 0.85, 0.75, 0.65,
    ];
    const WEEKDAY: [f64; 7] = [1.1, 1.1, 1.1, 1.1, 1.05, 0.7, 0.75];
    let (t0, t1) = plan.jobs_window;
    let hours: Vec<i64> = (t0..t1).step_by(3600).collect();
    let weights: Vec<f64> = hours
        .iter()
        .map(|&t| {
            let (h, wd) = local_hour_weekday(t);
            online_gpus(fleet, t) as f64 * HOUR[h as usize] * WEEKDAY[wd as usize]
        })
        .collect();
    let n = plan.jobs;
    let total: f64 = weights.iter().sum();
    let mut acc = Vec::with_capacity(weights.len());
    let mut s = 0.0;
    for w in &weights {
        s += w;
        acc.push(s);
    }
    let mut out: Vec<i64> = (0..n)
        .map(|k| {
            let u = (k as f64 + rng.f64()) / n as f64 * total;
            let h = acc.partition_point(|&c| c <= u).min(hours.len() - 1);
            let t = hours[h] + rng.below(3600) as i64;
            skip_repeated_hour(t.min(t1 - 1))
        })
        .collect();
    out.sort_unstable();
    out
}

/// YARN application ids `application_<RM start ms>_<seq, 4+ digits>`. The
/// resource manager restarts a few times; the log holds a subset of all
/// applications, so sequence numbers skip.
fn job_ids(plan: &Plan, submits: &[i64], rng: &mut Rng) -> Vec<String> {
    let (t0, t1) = plan.jobs_window;
    let restarts = ((6.0 * plan.f).round() as usize).max(1);
    let mut starts: Vec<i64> = vec![t0 - 86_400 - rng.below(3 * 86_400) as i64];
    starts.extend((0..restarts).map(|_| t0 + rng.below((t1 - t0) as u64) as i64));
    starts.sort_unstable();
    // The cluster timestamp is the RM start in milliseconds.
    let stamps: Vec<i64> = starts.iter().map(|s| s * 1000 + rng.below(1000) as i64).collect();
    let mut epoch = 0;
    let mut seq = rng.below(40);
    submits
        .iter()
        .map(|&t| {
            while epoch + 1 < starts.len() && starts[epoch + 1] <= t {
                epoch += 1;
                seq = rng.below(40);
            }
            seq += 1 + rng.poisson(0.8);
            format!("application_{}_{:04}", stamps[epoch], seq)
        })
        .collect()
}

/// Users with heavy-tailed activity, each with a home VC (every VC has at
/// least one); a tenth of a VC's jobs come from guests of other VCs.
struct Users {
    names: Vec<String>,
    per_vc: Vec<(Vec<u32>, Cumulative)>,
    all: Cumulative,
}

impl Users {
    fn new(plan: &Plan, rng: &mut Rng) -> Users {
        let n = ((330.0 * plan.f).round() as usize).max(VCS.len());
        let vc_pick = Cumulative::new(&VCS.map(|v| v.1));
        let mut names: Vec<String> = Vec::with_capacity(n);
        while names.len() < n {
            let name = rng.hex(6);
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let home: Vec<usize> = (0..n).map(|u| if u < VCS.len() { u } else { vc_pick.sample(rng) }).collect();
        let weights: Vec<f64> = (0..n).map(|_| rng.pareto(1.0, 1.1).min(1e4)).collect();
        let per_vc = (0..VCS.len())
            .map(|v| {
                let members: Vec<u32> = (0..n as u32).filter(|&u| home[u as usize] == v).collect();
                let w: Vec<f64> = members.iter().map(|&u| weights[u as usize]).collect();
                (members, Cumulative::new(&w))
            })
            .collect();
        Users { names, per_vc, all: Cumulative::new(&weights) }
    }

    fn pick(&self, vc: usize, rng: &mut Rng) -> u32 {
        if rng.chance(0.1) {
            return self.all.sample(rng) as u32;
        }
        let (members, cum) = &self.per_vc[vc];
        members[cum.sample(rng)]
    }
}

/// Gives the multi-day runtimes of jobs with 16+ GPUs to 1-GPU jobs
/// instead (a swap, so the runtime distribution is unchanged): one job of
/// 64 GPUs for weeks would otherwise hold a fifth of a small sample's GPU
/// time and make every GPU-time share hinge on it.
fn tame_giants(jobs: &[Job], runtime: &mut [Option<i64>], rng: &mut Rng) {
    const LONG: i64 = 3 * 86_400;
    let singles: Vec<usize> = (0..jobs.len()).filter(|&i| jobs[i].gpus == 1 && runtime[i].is_some()).collect();
    if singles.is_empty() {
        return;
    }
    for i in 0..jobs.len() {
        if jobs[i].gpus >= 16 && runtime[i].is_some_and(|r| r > LONG) {
            for _ in 0..20 {
                let j = singles[rng.below(singles.len() as u64) as usize];
                if runtime[j].is_some_and(|r| r <= LONG) {
                    runtime.swap(i, j);
                    break;
                }
            }
        }
    }
}

/// A GPU count from [`GPU_COUNTS`], at most half the GPUs in service (so a
/// tiny sample can still place every job).
fn gpu_count(rng: &mut Rng, online: u32) -> u32 {
    let i = rng.weighted(&GPU_COUNTS.map(|g| g.1));
    let cap = (online / 2).max(1);
    let mut g = GPU_COUNTS[i].0;
    while g > cap {
        g /= 2;
    }
    g
}

/// `n` runtimes, one from each 1/n slice of the real distribution, in
/// random order.
fn stratified_runtimes(n: usize, rng: &mut Rng) -> Vec<i64> {
    let mut real: Vec<f64> = PHILLY_RUNTIMES.lines().skip(1).filter_map(|l| l.trim().parse().ok()).collect();
    real.sort_by(f64::total_cmp);
    let mut slices: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut slices);
    slices
        .into_iter()
        .map(|k| {
            let u = (k as f64 + rng.f64()) / n as f64;
            real[((u * real.len() as f64) as usize).min(real.len() - 1)].round() as i64
        })
        .collect()
}

/// Statuses hitting both the count shares and the GPU-time shares (module docs).
fn assign_statuses(jobs: &mut [Job], runtime: &[Option<i64>], rng: &mut Rng) {
    let n = jobs.len();
    let mut quota: Vec<i64> = COUNT_SHARE.iter().map(|s| (s * n as f64).round() as i64).collect();
    quota[0] = n as i64 - quota[1] - quota[2];
    // Jobs that never started: killed or failed while queued.
    for (job, rt) in jobs.iter_mut().zip(runtime) {
        if rt.is_none() {
            let k = if rng.chance(0.75) { 1 } else { 2 };
            let k = if quota[k] > 0 { k } else { 3 - k };
            job.status = Status::ALL[k];
            quota[k] -= 1;
        }
    }
    let x = |i: usize| jobs[i].gpus as f64 * runtime[i].unwrap_or(0) as f64;
    let mut order: Vec<usize> = (0..n).filter(|&i| runtime[i].is_some()).collect();
    order.sort_by(|&a, &b| x(b).total_cmp(&x(a)).then(a.cmp(&b)));
    let total: f64 = order.iter().map(|&i| x(i)).sum();
    let (mut big, mut acc) = (0, 0.0);
    while big < order.len() && acc < 0.9 * total {
        acc += x(order[big]);
        big += 1;
    }
    // The small jobs' GPU time will split like the count quotas.
    let rest = total - acc;
    let left: i64 = quota.iter().sum();
    let mut filled: Vec<f64> = quota.iter().map(|&q| rest * q as f64 / left.max(1) as f64).collect();
    let mut status = vec![0usize; n];
    for &i in &order[..big] {
        let k = best_fit(&filled, &quota, x(i), total);
        status[i] = k;
        filled[k] += x(i);
        quota[k] -= 1;
    }
    let mut pool: Vec<usize> = (0..3).flat_map(|k| std::iter::repeat_n(k, quota[k].max(0) as usize)).collect();
    rng.shuffle(&mut pool);
    for (&i, k) in order[big..].iter().zip(pool) {
        status[i] = k;
    }
    for &i in &order {
        jobs[i].status = Status::ALL[status[i]];
    }
}

/// The status whose GPU-time share, with this job added, ends furthest
/// below its target (largest remaining deficit); only statuses with quota.
fn best_fit(filled: &[f64], quota: &[i64], x: f64, total: f64) -> usize {
    let mut best = None;
    let mut best_deficit = f64::NEG_INFINITY;
    for k in 0..3 {
        if quota[k] <= 0 {
            continue;
        }
        let deficit = GPU_TIME_SHARE[k] * total - filled[k] - x / 2.0;
        if deficit > best_deficit {
            best_deficit = deficit;
            best = Some(k);
        }
    }
    best.unwrap_or(0)
}

/// Jobs still running at collection (README: "a last attempt with no end
/// means the job was still running"): 0.2 % of the jobs, at least one,
/// among the last 5 % submitted and the smaller half by GPU time, so the
/// runtime and GPU-time calibration is not biased by whom it hides.
fn mark_running(jobs: &mut [Job], runtime: &[Option<i64>], rng: &mut Rng) {
    let n = jobs.len();
    let x = |i: usize| jobs[i].gpus as i64 * runtime[i].unwrap_or(i64::MAX / 64);
    let mut xs: Vec<i64> = (0..n).filter(|&i| runtime[i].is_some()).map(x).collect();
    xs.sort_unstable();
    let Some(&median) = xs.get(xs.len() / 2) else { return };
    let late: Vec<usize> = (n - n.div_ceil(20)..n).filter(|&i| runtime[i].is_some() && x(i) <= median).collect();
    let want = ((n as f64 * 0.002).round() as usize).max(1).min(late.len());
    let mut pick = late;
    rng.shuffle(&mut pick);
    for &i in &pick[..want] {
        jobs[i].running = true;
    }
}

/// Splits a runtime into attempts: failed jobs are retried most, a few
/// retries are a launch that never ran (`None` times).
fn plan_attempts(job: &Job, runtime: i64, rng: &mut Rng) -> Vec<Planned> {
    let weights: &[f64] = match job.status {
        Status::Pass => &[0.9, 0.08, 0.02],
        Status::Killed => &[0.85, 0.12, 0.03],
        Status::Failed => &[0.45, 0.2, 0.2, 0.15],
    };
    let mut n = rng.weighted(weights) + 1;
    if runtime < 120 * n as i64 {
        n = 1;
    }
    // Retry gaps take at most half the runtime, so every attempt lasts >= 0 s.
    let gap_max = (runtime / (2 * n as i64)).clamp(1, 300) as u64;
    let gaps: Vec<i64> = (1..n).map(|_| 1 + rng.below(gap_max) as i64).collect();
    let busy = runtime - gaps.iter().sum::<i64>();
    let w: Vec<f64> = (0..n).map(|_| rng.exponential(1.0) + 0.05).collect();
    let wsum: f64 = w.iter().sum();
    let mut durs: Vec<i64> = w.iter().map(|x| (busy as f64 * x / wsum).floor() as i64).collect();
    let short = busy - durs.iter().sum::<i64>();
    durs[n - 1] += short;
    let queue = rng.lognormal(40.0 * (1.0 + (job.gpus as f64).log2()), 1.8).min(2.0 * 86_400.0) as i64;
    let mut plan: Vec<Planned> = durs
        .iter()
        .enumerate()
        .map(|(k, &dur)| Planned { gap: if k == 0 { queue } else { gaps[k - 1] }, dur, launch_failed: false })
        .collect();
    if n >= 2 && rng.chance(0.05) {
        plan.insert(n - 1, Planned { gap: 0, dur: 0, launch_failed: true });
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::philly::plan::fleet;

    #[test]
    fn runtimes_follow_the_real_quantiles() {
        let mut rng = Rng::new(3);
        let mut r = stratified_runtimes(20_000, &mut rng);
        r.sort_unstable();
        // Real: median 1,186 s, P90 12,859 s (philly_runtime.csv).
        assert!((r[10_000] as f64 / 1186.0 - 1.0).abs() < 0.05, "{}", r[10_000]);
        assert!((r[18_000] as f64 / 12_859.0 - 1.0).abs() < 0.08, "{}", r[18_000]);
    }

    #[test]
    fn statuses_meet_count_and_gpu_time_shares() {
        let p = Plan::new(0.05);
        let f = fleet(&p, 5);
        let jobs = draw(&p, &f, 5);
        let n = jobs.jobs.len() as f64;
        let share = |s: Status| jobs.jobs.iter().filter(|j| j.status == s).count() as f64 / n;
        assert!((share(Status::Pass) - 0.70).abs() < 0.01);
        // Planned runtime = sum of durations and of retry gaps.
        let x = |j: &Job| {
            let rt: i64 = j.plan.iter().map(|a| a.dur).sum::<i64>() + j.plan.iter().skip(1).map(|a| a.gap).sum::<i64>();
            j.gpus as f64 * rt as f64
        };
        let total: f64 = jobs.jobs.iter().map(x).sum();
        for (k, s) in Status::ALL.iter().enumerate() {
            let mine: f64 = jobs.jobs.iter().filter(|j| j.status == *s).map(x).sum();
            assert!((mine / total - GPU_TIME_SHARE[k]).abs() < 0.03, "{s:?}: {}", mine / total);
        }
    }

    #[test]
    fn attempts_never_last_less_than_zero_and_span_the_runtime() {
        let mut rng = Rng::new(8);
        let job = |status| Job {
            submit: 0,
            id: String::new(),
            vc: "v",
            user: 0,
            status,
            gpus: 1,
            plan: Vec::new(),
            attempts: Vec::new(),
            running: false,
        };
        for runtime in [0, 1, 119, 240, 500, 5_000, 1_000_000] {
            for _ in 0..200 {
                let p = plan_attempts(&job(Status::Failed), runtime, &mut rng);
                assert!(p.iter().all(|a| a.dur >= 0 && a.gap >= 0), "{runtime}: {p:?}");
                let span: i64 = p.iter().map(|a| a.dur).sum::<i64>() + p.iter().skip(1).map(|a| a.gap).sum::<i64>();
                assert_eq!(span, runtime);
            }
        }
    }

    #[test]
    fn ids_are_unique_and_increase_within_an_rm_epoch() {
        let p = Plan::new(0.01);
        let f = fleet(&p, 1);
        let jobs = draw(&p, &f, 1);
        let mut ids: Vec<&str> = jobs.jobs.iter().map(|j| j.id.as_str()).collect();
        assert!(ids.iter().all(|i| i.starts_with("application_15") && i.len() >= 30));
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), jobs.jobs.len());
    }
}
