//! Per-day GPUs of every virtual cluster (`cluster_gpu_number.csv`): the
//! real tables of Venus and Earth verbatim, synthesized ones for Saturn and
//! Uranus (whose tables were not published), and the choice of the VCs and
//! the window that receive jobs at a given scale.
//!
//! Synthesized tables have the real ones' shape: about 25 VCs named `vc` +
//! three letters or digits (some shared with the other clusters), GPUs in
//! multiples of 8, a few capacity changes over the six months (VCs grow,
//! shrink, appear and retire), and a mean daily total near the summary's
//! `gpu_num` (2,080 for Saturn, 2,119 for Uranus).

use super::time::{DAY, PERIOD};
use crate::inventory::{HELIOS_EARTH_GPUS, HELIOS_VENUS_GPUS};
use crate::rng::Rng;

/// Days in the period 2020-04-01..2020-09-28.
pub const DAYS: usize = 181;

#[derive(Clone, Debug)]
pub struct GpuTable {
    pub vcs: Vec<String>,
    /// `caps[day][vc]`.
    pub caps: Vec<Vec<u32>>,
    /// The file text (verbatim for the real tables).
    pub text: String,
}

impl GpuTable {
    pub fn parse(text: &str) -> GpuTable {
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().expect("header").split(',').collect();
        let vcs = header[1..header.len() - 1].iter().map(std::string::ToString::to_string).collect();
        let caps = lines
            .filter(|l| !l.is_empty())
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                f[1..f.len() - 1].iter().map(|x| x.parse().expect("GPU count")).collect()
            })
            .collect();
        GpuTable { vcs, caps, text: text.to_string() }
    }

    /// GPUs of `vc` on the day of naive time `t` (0 outside the period).
    pub fn cap(&self, vc: usize, t: i64) -> u32 {
        let day = (t - PERIOD.0).div_euclid(DAY);
        if (0..self.caps.len() as i64).contains(&day) {
            self.caps[day as usize][vc]
        } else {
            0
        }
    }

    /// Mean GPUs of each VC over the days of [t0, t1).
    pub fn mean_caps(&self, (t0, t1): (i64, i64)) -> Vec<f64> {
        let days: Vec<usize> = (0..self.caps.len())
            .filter(|&d| {
                let day = PERIOD.0 + d as i64 * DAY;
                day + DAY > t0 && day < t1
            })
            .collect();
        (0..self.vcs.len())
            .map(|v| days.iter().map(|&d| self.caps[d][v] as f64).sum::<f64>() / days.len().max(1) as f64)
            .collect()
    }
}

/// The table of a cluster: real for Venus and Earth, synthesized otherwise.
pub fn table(cluster: &str, seed: u64, target_total: f64) -> GpuTable {
    match cluster {
        "Venus" => GpuTable::parse(HELIOS_VENUS_GPUS),
        "Earth" => GpuTable::parse(HELIOS_EARTH_GPUS),
        _ => synthesize(&mut Rng::stream(seed, &format!("helios:vcs:{cluster}")), target_total),
    }
}

/// VC names of the real tables, some of which recur in other clusters.
fn real_names() -> Vec<String> {
    let mut names: Vec<String> =
        [HELIOS_VENUS_GPUS, HELIOS_EARTH_GPUS].iter().flat_map(|t| GpuTable::parse(t).vcs).collect();
    names.sort();
    names.dedup();
    names
}

fn synthesize(rng: &mut Rng, target_total: f64) -> GpuTable {
    let n = 23 + rng.below(6) as usize;
    let vcs = vc_names(rng, n);
    let weights: Vec<f64> = (0..n).map(|_| rng.pareto(1.0, 1.3).min(12.0)).collect();
    let wsum: f64 = weights.iter().sum();
    let mut cap: Vec<f64> = weights.iter().map(|w| w / wsum * target_total).collect();
    // A few VCs appear during the period, a few retire.
    let mut from = vec![0usize; n];
    let mut to = vec![DAYS; n];
    for v in 0..n {
        match rng.below(10) {
            0 => from[v] = 20 + rng.below(120) as usize,
            1 => to[v] = 60 + rng.below(110) as usize,
            _ => {}
        }
    }
    let changes: Vec<(usize, usize, f64)> =
        (0..8).map(|_| (10 + rng.below(165) as usize, rng.below(n as u64) as usize, rng.uniform(0.6, 1.6))).collect();
    let mut caps = vec![vec![0u32; n]; DAYS];
    for (d, row) in caps.iter_mut().enumerate() {
        for &(day, v, factor) in &changes {
            if day == d {
                cap[v] *= factor;
            }
        }
        for v in 0..n {
            if (from[v]..to[v]).contains(&d) {
                row[v] = ((cap[v] / 8.0).round().max(1.0) * 8.0) as u32;
            }
        }
    }
    rescale(&mut caps, target_total);
    let text = render(&vcs, &caps);
    GpuTable { vcs, caps, text }
}

/// Scales every VC so the mean daily total is near `target`, keeping
/// multiples of 8.
fn rescale(caps: &mut [Vec<u32>], target: f64) {
    let mean = caps.iter().map(|r| r.iter().sum::<u32>() as f64).sum::<f64>() / caps.len() as f64;
    let k = target / mean;
    for row in caps.iter_mut() {
        for c in row.iter_mut() {
            if *c > 0 {
                *c = (((*c as f64 * k) / 8.0).round().max(1.0) * 8.0) as u32;
            }
        }
    }
}

fn vc_names(rng: &mut Rng, n: usize) -> Vec<String> {
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let shared = real_names();
    let mut names: Vec<String> = Vec::with_capacity(n);
    while names.len() < n {
        let name = if rng.chance(0.3) {
            shared[rng.below(shared.len() as u64) as usize].clone()
        } else {
            let mut s = String::from("vc");
            for _ in 0..3 {
                s.push(ALNUM[rng.below(ALNUM.len() as u64) as usize] as char);
            }
            s
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// `date,<vc>...,total` with one row per day.
fn render(vcs: &[String], caps: &[Vec<u32>]) -> String {
    let mut s = format!("date,{},total\n", vcs.join(","));
    for (d, row) in caps.iter().enumerate() {
        s.push_str(&super::time::date(PERIOD.0 + d as i64 * DAY));
        for c in row {
            s.push(',');
            s.push_str(&c.to_string());
        }
        s.push(',');
        s.push_str(&row.iter().sum::<u32>().to_string());
        s.push('\n');
    }
    s
}

/// The VCs that receive jobs and the submission window, at scale `s`.
///
/// The per-GPU load stays at its scale-1 level: a share f_v ≈ √s of the
/// GPUs (whole VCs in random order, as near that share as whole VCs allow)
/// receives the jobs of a window of
/// f_t = s / f_v of the six months, centred in the period. The largest GPU
/// count drawn is then the largest of those VCs ([`super::jobs::specs`]).
pub struct Active {
    pub vcs: Vec<usize>,
    pub window: (i64, i64),
}

pub fn select(table: &GpuTable, scale: f64, rng: &mut Rng) -> Active {
    let f = scale.sqrt().min(1.0);
    let first = window(f);
    let mean = table.mean_caps(first);
    let total: f64 = mean.iter().sum();
    let mut order: Vec<usize> = (0..mean.len()).filter(|&v| mean[v] > 0.0).collect();
    rng.shuffle(&mut order);
    // Whole VCs up to about the target share, skipping VCs that would
    // overshoot it by more than a third (at least one VC: the smallest).
    let target = f * total;
    if f >= 1.0 {
        order.sort_unstable();
        return Active { vcs: order, window: PERIOD };
    }
    let mut vcs = Vec::new();
    let mut got = 0.0;
    for &v in &order {
        if got >= 0.9 * target - 1e-9 {
            break;
        }
        if got + mean[v] <= target * 4.0 / 3.0 + 1e-9 {
            vcs.push(v);
            got += mean[v];
        }
    }
    if vcs.is_empty() {
        let v = *order.iter().min_by(|&&a, &&b| mean[a].total_cmp(&mean[b]).then(a.cmp(&b))).expect("a VC with GPUs");
        vcs.push(v);
        got = mean[v];
    }
    vcs.sort_unstable();
    let share = got / total;
    Active { vcs, window: window((scale / share).min(1.0)) }
}

/// The share `ft` of the period, centred in it, on whole minutes.
fn window(ft: f64) -> (i64, i64) {
    let (p0, p1) = PERIOD;
    if ft >= 1.0 {
        return (p0, p1);
    }
    let centre = (p0 + p1) / 2;
    let half = ((p1 - p0) as f64 * ft / 2.0) as i64;
    ((centre - half).div_euclid(60) * 60, (centre + half).div_euclid(60) * 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_tables_parse_and_synthesized_ones_look_alike() {
        let venus = table("Venus", 1, 1022.0);
        assert_eq!(venus.caps.len(), DAYS);
        assert_eq!(venus.text, HELIOS_VENUS_GPUS);
        for (name, target) in [("Saturn", 2080.0), ("Uranus", 2119.0)] {
            let t = table(name, 9, target);
            assert_eq!(t.caps.len(), DAYS);
            let again = GpuTable::parse(&t.text);
            assert_eq!(again.caps, t.caps);
            let mean = t.caps.iter().map(|r| r.iter().sum::<u32>() as f64).sum::<f64>() / DAYS as f64;
            assert!((mean / target - 1.0).abs() < 0.05, "{name}: {mean}");
            assert!(t.caps.iter().flatten().all(|c| c % 8 == 0));
            assert!(t.vcs.iter().all(|v| v.len() == 5 && v.starts_with("vc")));
            assert!(t.text.starts_with("date,vc") && t.text.contains("\n2020-09-28,"));
        }
    }

    #[test]
    fn selection_keeps_the_gpu_load_and_scale_one_takes_everything() {
        let t = table("Earth", 1, 997.0);
        let all = select(&t, 1.0, &mut Rng::new(1));
        assert_eq!(all.window, PERIOD);
        assert_eq!(all.vcs.len(), t.mean_caps(PERIOD).iter().filter(|c| **c > 0.0).count());
        for s in [0.001, 0.003, 0.05] {
            let a = select(&t, s, &mut Rng::new(2));
            let mean = t.mean_caps(a.window);
            let share = a.vcs.iter().map(|&v| mean[v]).sum::<f64>() / mean.iter().sum::<f64>();
            let time = (a.window.1 - a.window.0) as f64 / (PERIOD.1 - PERIOD.0) as f64;
            assert!((share * time / s - 1.0).abs() < 0.25, "scale {s}: {share} x {time}");
        }
    }
}
