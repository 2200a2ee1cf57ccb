//! How `--scale s` maps onto Philly: the machines that receive work and the
//! windows of the job log and of the utilization files.
//!
//! The load per machine is kept at its scale-1 level: a fraction f = √s of
//! the machines of each kind (8-GPU and 2-GPU, drawn at random from the real
//! machine list) receives jobs, and both time windows shrink by f around the
//! 2017-11-05 fall-back, so every sample still crosses the PDT/PST change.
//! Jobs (117,325 s) / (machines f × window f) stays constant.
//!
//! The fleet grows over time as in the HeliosArtifact CES node sequence,
//! whose total is 174, then 420, then 552 machines: each selected machine
//! belongs to one of three stages (174/552, 246/552 and 132/552 of each
//! kind) and is in service from its stage's date on. The stage dates
//! (2017-10-19 and 2017-11-21) and the end of the utilization window
//! (2017-12-14 00:00 PST; the CES sequence ends 2017-12-15) are ours; they
//! put the five files at about 6.6 GB at scale 1, the size of the real
//! download.

use super::clock::{DST_END, JOBS_END, JOBS_START, UTIL_START};
use crate::inventory::PHILLY_MACHINE_LIST;
use crate::rng::Rng;

/// Jobs in the real log (README).
pub const REAL_JOBS: f64 = 117_325.0;
/// Stage dates at scale 1: 2017-10-19 00:00 PDT and 2017-11-21 00:00 PST.
const STAGES: [i64; 2] = [1_508_396_400, 1_511_251_200];
/// End of the utilization window at scale 1: 2017-12-14 00:00 PST.
const UTIL_END: i64 = 1_513_238_400;
/// Cumulative machine counts of the CES node sequence.
const STAGE_TOTALS: [f64; 3] = [174.0, 420.0, 552.0];

/// The windows and sizes of one scale.
#[derive(Clone, Debug)]
pub struct Plan {
    /// √scale: the fraction of machines and of time.
    pub f: f64,
    pub jobs: usize,
    /// Submission window [start, end) in UTC seconds; the log is collected at `end`.
    pub jobs_window: (i64, i64),
    /// Utilization minutes [start, end), minute-aligned UTC seconds.
    pub util_window: (i64, i64),
    /// When the second and third machine stages come online.
    pub stages: [i64; 2],
}

impl Plan {
    pub fn new(scale: f64) -> Plan {
        let f = scale.sqrt().min(1.0);
        let squeeze = |t: i64| minute(DST_END + ((t - DST_END) as f64 * f).round() as i64);
        Plan {
            f,
            jobs: ((REAL_JOBS * scale).round() as usize).max(1),
            jobs_window: (squeeze(JOBS_START), squeeze(JOBS_END)),
            util_window: (squeeze(UTIL_START), squeeze(UTIL_END)),
            stages: [squeeze(STAGES[0]), squeeze(STAGES[1])],
        }
    }

    /// The collection instant: attempts still running then have no end.
    /// It is 60 days after the last submission at every scale, longer than
    /// the longest real runtime (53.6 days), so that the runtimes of small
    /// samples are not cut short (runtimes do not shrink with the scale,
    /// only the windows do); the jobs still running are chosen instead
    /// (`jobs::mark_running`).
    pub fn collected(&self) -> i64 {
        self.jobs_window.1 + 60 * 86_400
    }
}

fn minute(t: i64) -> i64 {
    t.div_euclid(60) * 60
}

/// One machine of the list that receives work.
#[derive(Clone, Debug)]
pub struct Machine {
    pub name: &'static str,
    pub gpus: u8,
    /// In service from this instant (UTC seconds).
    pub online: i64,
}

/// Every machine of the real list, in list order.
pub fn machine_list() -> Vec<(&'static str, u8)> {
    PHILLY_MACHINE_LIST
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split(',');
            let name = f.next().expect("machine name");
            let gpus = f.next().and_then(|g| g.trim().parse().ok()).expect("GPU count in the machine list");
            (name, gpus)
        })
        .collect()
}

/// The machines that receive work at this scale, in list order.
pub fn fleet(plan: &Plan, seed: u64) -> Vec<Machine> {
    let list = machine_list();
    let mut rng = Rng::stream(seed, "philly:fleet");
    let mut chosen: Vec<(usize, i64)> = Vec::new();
    for kind in [8u8, 2] {
        let mut idx: Vec<usize> = (0..list.len()).filter(|&i| list[i].1 == kind).collect();
        rng.shuffle(&mut idx);
        let n = ((idx.len() as f64 * plan.f).round() as usize).clamp(2.min(idx.len()), idx.len());
        for (pos, &i) in idx[..n].iter().enumerate() {
            chosen.push((i, stage_online(plan, pos, n)));
        }
    }
    chosen.sort_unstable();
    chosen.into_iter().map(|(i, online)| Machine { name: list[i].0, gpus: list[i].1, online }).collect()
}

/// The first machines of each kind form stage 1 (always at least one),
/// the next ones stage 2, the rest stage 3.
fn stage_online(plan: &Plan, pos: usize, n: usize) -> i64 {
    let cut = |k: usize| ((n as f64 * STAGE_TOTALS[k] / STAGE_TOTALS[2]).round() as usize).max(1);
    if pos < cut(0) {
        i64::MIN / 4
    } else if pos < cut(1) {
        plan.stages[0]
    } else {
        plan.stages[1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::philly::clock::in_repeated_hour;

    #[test]
    fn the_machine_list_is_the_real_one() {
        let list = machine_list();
        assert_eq!(list.len(), 552);
        assert_eq!(list.iter().filter(|m| m.1 == 2).count(), 321);
        assert_eq!(list.iter().filter(|m| m.1 == 8).count(), 231);
    }

    #[test]
    fn scale_one_is_the_real_windows_and_the_whole_fleet() {
        let p = Plan::new(1.0);
        assert_eq!(p.jobs, 117_325);
        assert_eq!(p.jobs_window, (JOBS_START, JOBS_END));
        assert_eq!(p.util_window.0, UTIL_START);
        let f = fleet(&p, 1);
        assert_eq!(f.len(), 552);
        let by_stage = |t: i64| f.iter().filter(|m| m.online <= t).count();
        assert_eq!(by_stage(JOBS_START), 174);
        assert_eq!(by_stage(STAGES[0]), 420);
        assert_eq!(by_stage(STAGES[1]), 552);
    }

    #[test]
    fn small_scales_keep_jobs_per_machine_minute_and_cross_the_dst_change() {
        for s in [0.001, 0.003, 0.1] {
            let p = Plan::new(s);
            let f = fleet(&p, 7);
            let load = p.jobs as f64 / (f.len() as f64 * (p.jobs_window.1 - p.jobs_window.0) as f64);
            let full = REAL_JOBS / (552.0 * (JOBS_END - JOBS_START) as f64);
            assert!((load / full - 1.0).abs() < 0.25, "scale {s}: load ratio {}", load / full);
            assert!(p.util_window.0 < DST_END - 3600 && p.util_window.1 > DST_END + 3600, "{s}");
            assert!(p.jobs_window.0 <= p.util_window.0 && p.util_window.1 <= p.jobs_window.1);
            assert!(f.iter().any(|m| m.gpus == 8 && m.online < p.jobs_window.0));
            assert!(!in_repeated_hour(p.jobs_window.0));
        }
    }
}
