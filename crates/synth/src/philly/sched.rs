//! Places every attempt on GPUs of the machine list, in start-time order,
//! so that placements fit the machines (8 GPUs on an 8-GPU machine, 2 on a
//! 2-GPU one) and no GPU serves two attempts in the same minute.
//!
//! A GPU counts as busy for every minute the owners' utilization analysis
//! (notebook P4) attributes to an attempt: from the minute of its start up
//! to, but not including, the minute after its end. An attempt waits until
//! enough GPUs are free: 1-2 GPU jobs go to any machine with room, 3-8 GPU
//! jobs to the fullest 8-GPU machine that fits them, larger jobs to whole
//! free 8-GPU machines; after 30 minutes of waiting a job takes GPUs on
//! several machines (Philly relaxes locality, ATC'19 Fig 4).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::clock::skip_repeated_hour;
use super::jobs::{Attempt, Job};
use super::plan::{Machine, Plan};
use crate::rng::Rng;

/// One busy stretch of one GPU, in minutes since 1970 (UTC), `to` exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Busy {
    pub from: u32,
    pub to: u32,
    /// The attempt's utilization level, in 1/60 % (0..=6000).
    pub level: u16,
}

/// Minutes since 1970 of a UTC instant, rounded down.
pub fn minute_of(t: i64) -> u32 {
    (t.div_euclid(60)) as u32
}

/// The busy stretches of every GPU: index `machine * 8 + gpu`, in time order.
pub struct Occupancy {
    pub gpus: Vec<Vec<Busy>>,
}

/// Waiting longer than this lets a job spread over several machines.
const RELAX_AFTER: i64 = 1800;

struct Cluster<'a> {
    fleet: &'a [Machine],
    /// Minute from which each GPU is free (u32::MAX: held past collection).
    free_at: Vec<[u32; 8]>,
}

pub fn schedule(jobs: &mut [Job], fleet: &[Machine], plan: &Plan, seed: u64) -> Occupancy {
    let mut cluster = Cluster { fleet, free_at: vec![[0; 8]; fleet.len()] };
    let mut occ = Occupancy { gpus: vec![Vec::new(); fleet.len() * 8] };
    let mut rng = Rng::stream(seed, "philly:place");
    let mut levels = Rng::stream(seed, "philly:level");
    // (time, job, attempt, ready since)
    let mut heap: BinaryHeap<Reverse<(i64, u32, u16, i64)>> = BinaryHeap::new();
    for (j, job) in jobs.iter().enumerate() {
        if let Some(first) = job.plan.first() {
            let t = job.submit + first.gap;
            heap.push(Reverse((t, j as u32, 0, t)));
        }
    }
    let collected = plan.collected();
    let util_end = minute_of(plan.util_window.1);
    while let Some(Reverse((t, j, a, ready))) = heap.pop() {
        let t = skip_repeated_hour(t);
        if t >= collected {
            continue;
        }
        let job = &mut jobs[j as usize];
        let planned = job.plan[a as usize].clone();
        if planned.launch_failed {
            job.attempts.push(Attempt::default());
            push_next(&mut heap, job, j, a, t);
            continue;
        }
        let m = minute_of(t);
        let Some(place) = cluster.place(job.gpus, m, t - ready >= RELAX_AFTER, &mut rng) else {
            let next = cluster.next_change(m).map_or(t + 3600, |n| (n as i64 * 60).max(t + 60));
            heap.push(Reverse((next, j, a, ready)));
            continue;
        };
        let end = skip_repeated_hour(t + planned.dur);
        let last = a as usize + 1 == job.plan.len();
        let (end, to) =
            if end >= collected || (job.running && last) { (None, u32::MAX) } else { (Some(end), minute_of(end + 59)) };
        let base = draw_level(&mut levels, job.gpus);
        for &(mi, g) in &place {
            cluster.free_at[mi as usize][g as usize] = to;
            let list = &mut occ.gpus[mi as usize * 8 + g as usize];
            push_phases(list, (m, to.max(m)), base, util_end, job.gpus, &mut levels);
        }
        job.attempts.push(Attempt { start: Some(t), end, place });
        if let Some(end) = end {
            push_next(&mut heap, job, j, a, end);
        }
    }
    occ
}

fn push_next(heap: &mut BinaryHeap<Reverse<(i64, u32, u16, i64)>>, job: &Job, j: u32, a: u16, after: i64) {
    if let Some(next) = job.plan.get(a as usize + 1) {
        let t = after + next.gap;
        heap.push(Reverse((t, j, a + 1, t)));
    }
}

/// Records a GPU's busy minutes [from, to) in phases of about an hour (up
/// to `until`, the end of the utilization files), each at a level an eighth
/// of the way from a fresh draw to the attempt's: training jobs change pace, and
/// a long, wide job does not pin one level on thousands of GPU-minutes.
fn push_phases(list: &mut Vec<Busy>, (from, to): (u32, u32), base: u16, until: u32, gpus: u32, rng: &mut Rng) {
    let mut a = from;
    while a < to {
        let b = if a >= until { to } else { a.saturating_add(1 + rng.exponential(60.0) as u32).min(to) };
        let level = ((base as u32 + 7 * draw_level(rng, gpus) as u32) / 8) as u16;
        list.push(Busy { from: a, to: b, level });
        a = b;
    }
}

/// Utilization level of an attempt's GPUs: some attempts barely use them,
/// some saturate them, most sit in between; larger jobs run a little lower
/// (ATC'19 Fig 5). Tuned so that in-use GPUs average about 52 %.
fn draw_level(rng: &mut Rng, gpus: u32) -> u16 {
    let u = rng.f64();
    let pct = if u < 0.12 {
        rng.uniform(0.0, 12.0)
    } else if u < 0.34 {
        rng.uniform(85.0, 100.0)
    } else {
        rng.uniform(16.0, 80.0)
    };
    let pct = pct * (1.0 - 0.01 * (gpus as f64).log2());
    (pct * 60.0).round().clamp(0.0, 6000.0) as u16
}

impl Cluster<'_> {
    fn free(&self, mi: usize, m: u32) -> usize {
        let n = self.fleet[mi].gpus as usize;
        self.free_at[mi][..n].iter().filter(|&&f| f <= m).count()
    }

    fn online(&self, mi: usize, m: u32) -> bool {
        self.fleet[mi].online <= m as i64 * 60
    }

    /// GPUs for `g` at minute `m`, or None if they are not free.
    fn place(&self, g: u32, m: u32, relaxed: bool, rng: &mut Rng) -> Option<Vec<(u16, u8)>> {
        let g = g as usize;
        let frees: Vec<(usize, usize)> = (0..self.fleet.len())
            .filter(|&mi| self.online(mi, m))
            .map(|mi| (mi, self.free(mi, m)))
            .filter(|&(_, f)| f > 0)
            .collect();
        let machines: Option<Vec<usize>> = if g <= 2 {
            let fit: Vec<usize> = frees.iter().filter(|x| x.1 >= g).map(|x| x.0).collect();
            (!fit.is_empty()).then(|| vec![fit[rng.below(fit.len() as u64) as usize]])
        } else if g <= 8 {
            let fit: Vec<(usize, usize)> =
                frees.iter().copied().filter(|&(mi, f)| f >= g && self.fleet[mi].gpus == 8).collect();
            let least = fit.iter().map(|x| x.1).min();
            least.map(|least| {
                let tight: Vec<usize> = fit.iter().filter(|x| x.1 == least).map(|x| x.0).collect();
                vec![tight[rng.below(tight.len() as u64) as usize]]
            })
        } else {
            let mut whole: Vec<usize> =
                frees.iter().filter(|&&(mi, f)| f == 8 && self.fleet[mi].gpus == 8).map(|x| x.0).collect();
            let need = g.div_ceil(8);
            (whole.len() >= need).then(|| {
                rng.shuffle(&mut whole);
                let mut pick = whole[..need].to_vec();
                pick.sort_unstable();
                pick
            })
        };
        match machines {
            Some(ms) => Some(self.take(&ms, g, m)),
            None if relaxed => self.spread(frees, g, m),
            None => None,
        }
    }

    /// Lowest-numbered free GPUs on `machines`, `g` in all.
    fn take(&self, machines: &[usize], g: usize, m: u32) -> Vec<(u16, u8)> {
        let mut out = Vec::with_capacity(g);
        for &mi in machines {
            for k in 0..self.fleet[mi].gpus as usize {
                if out.len() < g && self.free_at[mi][k] <= m {
                    out.push((mi as u16, k as u8));
                }
            }
        }
        out
    }

    /// Any free GPUs, the emptiest machines first.
    fn spread(&self, mut frees: Vec<(usize, usize)>, g: usize, m: u32) -> Option<Vec<(u16, u8)>> {
        if frees.iter().map(|x| x.1).sum::<usize>() < g {
            return None;
        }
        frees.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut need = g;
        let mut machines = Vec::new();
        for (mi, f) in frees {
            if need == 0 {
                break;
            }
            machines.push(mi);
            need = need.saturating_sub(f);
        }
        Some(self.take(&machines, g, m))
    }

    /// The next minute after `m` at which a GPU frees up or a machine comes online.
    fn next_change(&self, m: u32) -> Option<u32> {
        let mut best: Option<u32> = None;
        for (mi, machine) in self.fleet.iter().enumerate() {
            let online = machine.online.div_euclid(60);
            if online > m as i64 {
                best = Some(best.map_or(online as u32, |b| b.min(online as u32)));
                continue;
            }
            for &f in &self.free_at[mi][..machine.gpus as usize] {
                if f > m && f != u32::MAX {
                    best = Some(best.map_or(f, |b| b.min(f)));
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::philly::jobs::draw;
    use crate::philly::plan::fleet;

    #[test]
    fn placements_fit_the_machines_and_never_share_a_gpu_minute() {
        let p = Plan::new(0.01);
        let f = fleet(&p, 2);
        let mut jobs = draw(&p, &f, 2).jobs;
        let occ = schedule(&mut jobs, &f, &p, 2);
        for (i, stretches) in occ.gpus.iter().enumerate() {
            let (mi, g) = (i / 8, i % 8);
            if g >= f[mi].gpus as usize {
                assert!(stretches.is_empty(), "{} has no gpu{g}", f[mi].name);
            }
            for w in stretches.windows(2) {
                assert!(w[0].to <= w[1].from, "{} gpu{g}: {:?} overlaps {:?}", f[mi].name, w[0], w[1]);
            }
        }
        for job in &jobs {
            for a in &job.attempts {
                if let Some(start) = a.start {
                    assert_eq!(a.place.len(), job.gpus as usize, "{}", job.id);
                    assert!(a.place.iter().all(|p| f[p.0 as usize].online <= start));
                }
                if let (Some(s), Some(e)) = (a.start, a.end) {
                    assert!(e >= s);
                }
            }
            if let Some(first) = job.attempts.first() {
                assert!(first.start.unwrap() >= job.submit);
            }
        }
        let started = jobs.iter().filter(|j| !j.attempts.is_empty()).count();
        assert!(started as f64 > 0.95 * jobs.len() as f64, "{started} of {}", jobs.len());
    }
}
