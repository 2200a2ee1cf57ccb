//! Placing one cluster's jobs in time, VCs and users, and writing its
//! `cluster_log.csv` rows: a diurnal, weekday-heavy submission cycle (SC'21
//! Fig 2b), jobs only in VCs that have GPUs that day, rows in job-id (=
//! submission) order.

use super::specs::Spec;
use super::time::{hour_weekday, push_time, PERIOD};
use super::vcs::{Active, GpuTable};
use crate::rng::{Cumulative, Rng};

/// Submission intensity per hour ∝ GPUs of the active VCs that day ×
/// hour-of-day × weekday (SC'21 Fig 2b: GPU-job submissions peak in the
/// afternoon and evening, fall at night).
pub fn submit_times(n: usize, table: &GpuTable, active: &Active, rng: &mut Rng) -> Vec<i64> {
    const HOUR: [f64; 24] = [
        0.7, 0.55, 0.45, 0.38, 0.33, 0.32, 0.35, 0.45, 0.65, 0.9, 1.1, 1.25, 1.2, 1.25, 1.35, 1.4, 1.45, 1.45, 1.35,
        1.3, 1.3, 1.25, 1.1, 0.9,
    ];
    const WEEKDAY: [f64; 7] = [1.1, 1.12, 1.12, 1.1, 1.05, 0.75, 0.76];
    let (t0, t1) = active.window;
    let hours: Vec<i64> = (t0..t1).step_by(3600).collect();
    let mut acc = Vec::with_capacity(hours.len());
    let mut s = 0.0;
    for &t in &hours {
        let (h, wd) = hour_weekday(t);
        let gpus: u32 = active.vcs.iter().map(|&v| table.cap(v, t)).sum();
        s += gpus as f64 * HOUR[h] * WEEKDAY[wd];
        acc.push(s);
    }
    let mut out: Vec<i64> = (0..n)
        .map(|k| {
            let u = (k as f64 + rng.f64()) / n as f64 * s;
            let h = acc.partition_point(|&c| c <= u).min(hours.len() - 1);
            (hours[h] + rng.below(3600) as i64).min(t1 - 1)
        })
        .collect();
    out.sort_unstable();
    out
}

/// Moves jobs that would end after the period to earlier submission slots.
pub fn fit_period(submits: &[i64], specs: &mut [Spec]) {
    let ends = |t: i64, s: &Spec| t + s.queue + s.run < PERIOD.1;
    for i in (0..specs.len()).rev() {
        if ends(submits[i], &specs[i]) {
            continue;
        }
        if let Some(j) = (0..i).rev().find(|&j| ends(submits[i], &specs[j])) {
            specs.swap(i, j);
        }
    }
}

/// Users of a cluster: names `u` + 4 letters, heavy-tailed activity, each
/// with a home VC among the active ones (every active VC has at least one).
pub struct Users {
    pub names: Vec<String>,
    per_vc: Vec<(Vec<usize>, Cumulative)>,
    all: Cumulative,
}

impl Users {
    pub fn new(n: usize, active: &Active, rng: &mut Rng) -> Users {
        const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let n = n.max(active.vcs.len());
        let mut names: Vec<String> = Vec::with_capacity(n);
        while names.len() < n {
            let mut s = String::from("u");
            for _ in 0..4 {
                s.push(LETTERS[rng.below(52) as usize] as char);
            }
            if !names.contains(&s) {
                names.push(s);
            }
        }
        let weights: Vec<f64> = (0..n).map(|_| rng.pareto(1.0, 1.05).min(2e4)).collect();
        let home: Vec<usize> = (0..n)
            .map(|u| if u < active.vcs.len() { u } else { rng.below(active.vcs.len() as u64) as usize })
            .collect();
        let per_vc = (0..active.vcs.len())
            .map(|v| {
                let members: Vec<usize> = (0..n).filter(|&u| home[u] == v).collect();
                let w: Vec<f64> = members.iter().map(|&u| weights[u]).collect();
                (members, Cumulative::new(&w))
            })
            .collect();
        Users { names, per_vc, all: Cumulative::new(&weights) }
    }

    /// A user of the `k`-th active VC (now and then a guest from another).
    pub fn pick(&self, k: Option<usize>, rng: &mut Rng) -> &str {
        let u = match k {
            Some(k) if !rng.chance(0.1) => {
                let (members, cum) = &self.per_vc[k];
                members[cum.sample(rng)]
            }
            _ => self.all.sample(rng),
        };
        &self.names[u]
    }
}

/// The VC of a job needing `g` GPUs at `t`: an active VC with at least `g`
/// GPUs that day, chosen in proportion to its GPUs. Returns (table column,
/// position among the active VCs, GPUs granted).
pub fn pick_vc(table: &GpuTable, active: &Active, t: i64, g: u32, rng: &mut Rng) -> (usize, Option<usize>, u32) {
    let need = g.max(1);
    let caps: Vec<f64> =
        active.vcs.iter().map(|&v| table.cap(v, t)).map(|c| if c >= need { c as f64 } else { 0.0 }).collect();
    if caps.iter().any(|&c| c > 0.0) {
        let k = rng.weighted(&caps);
        return (active.vcs[k], Some(k), g);
    }
    // No active VC is that large today: the largest one runs the job with
    // as many GPUs as it has (a power of two).
    let k = (0..active.vcs.len()).max_by_key(|&k| (table.cap(active.vcs[k], t), std::cmp::Reverse(k))).expect("a VC");
    let cap = table.cap(active.vcs[k], t).max(1);
    let mut granted = g;
    while granted > cap {
        granted /= 2;
    }
    (active.vcs[k], Some(k), granted)
}

/// CPUs of a job: GPU jobs take 1 to 8 per GPU (README rows: 1 GPU with 1
/// CPU, 4 GPUs with 16), CPU jobs 1 to 64.
pub fn cpus(g: u32, rng: &mut Rng) -> u32 {
    if g > 0 {
        const PER_GPU: [(u32, f64); 5] = [(1, 0.3), (2, 0.2), (4, 0.3), (6, 0.1), (8, 0.1)];
        g * PER_GPU[rng.weighted(&PER_GPU.map(|p| p.1))].0
    } else {
        const CPUS: [(u32, f64); 7] = [(1, 0.35), (2, 0.2), (4, 0.18), (8, 0.13), (16, 0.08), (32, 0.04), (64, 0.02)];
        CPUS[rng.weighted(&CPUS.map(|p| p.1))].0
    }
}

/// A `cluster_log.csv` row.
#[allow(clippy::too_many_arguments)]
pub fn push_row(line: &mut String, id: u64, user: &str, vc: &str, spec: &Spec, g: u32, cpus: u32, submit: i64) {
    use std::fmt::Write;
    let start = submit + spec.queue;
    let end = start + spec.run;
    let nodes = if g > 0 { g.div_ceil(8) } else { 1 };
    write!(line, "{id},{user},{vc},{g},{cpus},{nodes},{},", spec.state).expect("String write");
    push_time(line, submit);
    line.push(',');
    push_time(line, start);
    line.push(',');
    push_time(line, end);
    write!(line, ",{},{}", spec.run, spec.queue).expect("String write");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_readme_row_is_reproduced() {
        let spec = Spec { gpus: 1, state: "COMPLETED", run: 36_848, queue: 0 };
        let mut line = String::new();
        push_row(&mut line, 1_425_511, "uXBbc", "vcJkd", &spec, 1, 1, 1_591_728_061);
        assert_eq!(
            line,
            "1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0"
        );
    }

    #[test]
    fn jobs_are_moved_so_that_all_end_inside_the_period() {
        let long = Spec { gpus: 8, state: "COMPLETED", run: 5 * 86_400, queue: 0 };
        let short = Spec { gpus: 1, state: "FAILED", run: 60, queue: 10 };
        let submits: Vec<i64> = (0..10).map(|k| PERIOD.1 - 10 * 86_400 + k * 86_400).collect();
        let mut specs = vec![short, short, short, short, short, short, short, long, short, long];
        fit_period(&submits, &mut specs);
        for (t, s) in submits.iter().zip(&specs) {
            assert!(t + s.queue + s.run < PERIOD.1);
        }
        assert_eq!(specs.iter().filter(|s| s.run == long.run).count(), 2);
    }

    #[test]
    fn submissions_follow_the_day() {
        let table = GpuTable::parse(crate::inventory::HELIOS_VENUS_GPUS);
        let active = Active { vcs: (0..table.vcs.len()).collect(), window: (PERIOD.0, PERIOD.0 + 28 * 86_400) };
        let t = submit_times(20_000, &table, &active, &mut Rng::new(3));
        assert!(t.windows(2).all(|w| w[0] <= w[1]) && t[0] >= active.window.0 && t[19_999] < active.window.1);
        let at = |h: usize| t.iter().filter(|&&x| hour_weekday(x).0 == h).count();
        assert!(at(16) as f64 > 3.0 * at(4) as f64, "{} vs {}", at(16), at(4));
    }
}
