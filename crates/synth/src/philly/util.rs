//! The per-minute utilization files: `cluster_gpu_util`, `cluster_cpu_util`
//! and `cluster_mem_util`, one row per minute per machine in service,
//! minute-major, machines in list order.
//!
//! Values follow the placements: a GPU serving an attempt reports the
//! attempt's level plus per-minute noise (in-use GPUs average about 52 %,
//! ATC'19), an idle GPU reports 0 (now and then a few %), a machine's CPU
//! and memory use grow with its busy GPUs. A machine sometimes goes offline
//! while it has no work: its rows are then `NA` in all three files. A 2-GPU
//! machine has `NA` in the slots gpu2..gpu7. Numbers are printed as the
//! owners' files print them: GPU util as averages of 1 s samples rounded to
//! 9 decimals (`99.366666667`), CPU util with 3 decimals (`31.845`), memory
//! in KiB with 4 decimals (`2030730.6667`), always with a `.0` for whole
//! numbers.

use std::path::Path;

use super::clock::push_util_stamp;
use super::plan::{Machine, Plan};
use super::sched::{minute_of, Busy, Occupancy};
use crate::out::{CsvOut, RowShape};
use crate::pyfmt::{push_py_float, push_rounded};
use crate::rng::Rng;
use crate::{Ctx, FileReport};
use tracelab_schema::error::Result;
use tracelab_schema::raw::philly::{CPU_UTIL, GPU_UTIL, MEM_UTIL};

/// KiB of memory of an 8-GPU machine (README example row) and of a 2-GPU one.
const MEM_TOTAL: [(u8, u64); 2] = [(8, 528_272_672), (2, 264_067_536)];

/// Shared read-only state of the three writers.
pub struct Fleetwide<'a> {
    pub fleet: &'a [Machine],
    pub occ: &'a Occupancy,
    /// Offline minutes [from, to) of each machine.
    pub offline: Vec<Vec<(u32, u32)>>,
    pub minutes: (u32, u32),
}

pub fn write(dir: &Path, ctx: &Ctx, plan: &Plan, fleet: &[Machine], occ: &Occupancy) -> Result<Vec<FileReport>> {
    let minutes = (minute_of(plan.util_window.0), minute_of(plan.util_window.1));
    let mut rng = Rng::stream(ctx.seed, "philly:offline");
    let offline = (0..fleet.len()).map(|mi| offline_spells(occ, mi, minutes, &mut rng)).collect();
    let shared = Fleetwide { fleet, occ, offline, minutes };
    let (gpu, rest) = std::thread::scope(|s| {
        let gpu = s.spawn(|| write_gpu(dir, ctx, &shared));
        let rest = write_cpu_mem(dir, ctx, &shared);
        (gpu.join().expect("GPU writer thread"), rest)
    });
    let mut out = vec![gpu?];
    out.extend(rest?);
    Ok(out)
}

/// Spells with no work where the machine is offline: in about 1 of 12 idle
/// gaps of two hours or more, for 30 minutes to 12 hours.
fn offline_spells(occ: &Occupancy, mi: usize, (m0, m1): (u32, u32), rng: &mut Rng) -> Vec<(u32, u32)> {
    let mut busy: Vec<(u32, u32)> =
        occ.gpus[mi * 8..mi * 8 + 8].iter().flatten().map(|b| (b.from, b.to)).filter(|b| b.0 < b.1).collect();
    busy.sort_unstable();
    let mut spells = Vec::new();
    let mut free_from = m0;
    for (from, to) in busy.into_iter().chain(std::iter::once((m1, m1))) {
        let gap_end = from.min(m1);
        if gap_end >= free_from + 120 && rng.chance(1.0 / 12.0) {
            let start = free_from + 1 + rng.below(((gap_end - free_from) / 2) as u64) as u32;
            let len = 30 + rng.below(690) as u32;
            spells.push((start, (start + len).min(gap_end - 1)));
        }
        free_from = free_from.max(to);
        if free_from >= m1 {
            break;
        }
    }
    spells
}

/// Walks the busy stretches of every GPU minute by minute.
struct Walker<'a> {
    shared: &'a Fleetwide<'a>,
    next: Vec<usize>,
    off: Vec<usize>,
}

/// What one machine does in one minute.
struct MachineMinute {
    offline: bool,
    /// Level of each GPU slot (None: idle).
    levels: [Option<u16>; 8],
    busy: usize,
}

impl<'a> Walker<'a> {
    fn new(shared: &'a Fleetwide<'a>) -> Self {
        Walker { shared, next: vec![0; shared.occ.gpus.len()], off: vec![0; shared.fleet.len()] }
    }

    fn at(&mut self, mi: usize, m: u32) -> MachineMinute {
        let spells = &self.shared.offline[mi];
        while self.off[mi] < spells.len() && spells[self.off[mi]].1 <= m {
            self.off[mi] += 1;
        }
        let offline = spells.get(self.off[mi]).is_some_and(|s| s.0 <= m);
        let mut levels = [None; 8];
        let mut busy = 0;
        for (g, level) in levels.iter_mut().enumerate().take(self.shared.fleet[mi].gpus as usize) {
            let i = mi * 8 + g;
            let list: &[Busy] = &self.shared.occ.gpus[i];
            while self.next[i] < list.len() && list[self.next[i]].to <= m {
                self.next[i] += 1;
            }
            if let Some(b) = list.get(self.next[i]).filter(|b| b.from <= m) {
                *level = Some(b.level);
                busy += 1;
            }
        }
        MachineMinute { offline, levels, busy }
    }

    /// Calls `row(machine, state, stamp)` for every machine in service, minute by minute.
    fn each(&mut self, mut row: impl FnMut(usize, &MachineMinute, &str) -> Result<()>) -> Result<()> {
        let (m0, m1) = self.shared.minutes;
        let mut stamp = String::with_capacity(24);
        for m in m0..m1 {
            stamp.clear();
            push_util_stamp(&mut stamp, m as i64 * 60);
            for mi in 0..self.shared.fleet.len() {
                if self.shared.fleet[mi].online <= m as i64 * 60 {
                    let state = self.at(mi, m);
                    row(mi, &state, &stamp)?;
                }
            }
        }
        Ok(())
    }
}

/// `k / 60` % for k in 0..=6000 as the owners print it.
fn gpu_values() -> Vec<String> {
    (0..=6000)
        .map(|k| {
            let mut s = String::new();
            push_rounded(&mut s, k as f64 / 60.0, 9);
            s
        })
        .collect()
}

fn write_gpu(dir: &Path, ctx: &Ctx, shared: &Fleetwide<'_>) -> Result<FileReport> {
    let values = gpu_values();
    let shape = RowShape { numeric: &[2, 3, 4, 5, 6, 7, 8, 9], status: None, span: None };
    let mut out = CsvOut::create(dir, GPU_UTIL.file, shape, ctx.corruption.as_ref())?;
    out.header(&GPU_UTIL.header_line())?;
    let mut rng = Rng::stream(ctx.seed, "philly:gpu_util");
    let mut line = String::with_capacity(128);
    Walker::new(shared).each(|mi, st, stamp| {
        line.clear();
        line.push_str(stamp);
        line.push(',');
        line.push_str(shared.fleet[mi].name);
        for g in 0..8 {
            line.push(',');
            if st.offline || g >= shared.fleet[mi].gpus as usize {
                line.push_str("NA");
            } else {
                line.push_str(&values[gpu_sample(st.levels[g], &mut rng)]);
            }
        }
        line.push(',');
        out.row(&line)
    })?;
    out.finish()
}

/// One minute's reading of a GPU in 1/60 %: the attempt's level with noise,
/// or an idle GPU's 0 (sometimes a little).
fn gpu_sample(level: Option<u16>, rng: &mut Rng) -> usize {
    match level {
        Some(l) => (l as f64 + 300.0 * rng.normal()).round().clamp(0.0, 6000.0) as usize,
        None if rng.chance(0.04) => rng.below(240) as usize,
        None => 0,
    }
}

fn write_cpu_mem(dir: &Path, ctx: &Ctx, shared: &Fleetwide<'_>) -> Result<Vec<FileReport>> {
    let cpu_shape = RowShape { numeric: &[2], status: None, span: None };
    let mem_shape = RowShape { numeric: &[2, 3], status: None, span: None };
    let mut cpu = CsvOut::create(dir, CPU_UTIL.file, cpu_shape, ctx.corruption.as_ref())?;
    let mut mem = CsvOut::create(dir, MEM_UTIL.file, mem_shape, ctx.corruption.as_ref())?;
    cpu.header(&CPU_UTIL.header_line())?;
    mem.header(&MEM_UTIL.header_line())?;
    let cpu_values: Vec<String> = (0..=20_000).map(|k| py(k as f64 / 200.0)).collect();
    let (mut crng, mut mrng) = (Rng::stream(ctx.seed, "philly:cpu_util"), Rng::stream(ctx.seed, "philly:mem_util"));
    let mut line = String::with_capacity(96);
    Walker::new(shared).each(|mi, st, stamp| {
        let machine = &shared.fleet[mi];
        let total = MEM_TOTAL.iter().find(|m| m.0 == machine.gpus).map_or(MEM_TOTAL[0].1, |m| m.1);
        let share = st.busy as f64 / machine.gpus as f64;
        line.clear();
        prefix(&mut line, stamp, machine.name);
        if st.offline {
            line.push_str("NA");
        } else {
            let pct = 2.0 + 45.0 * share + 3.0 * crng.normal().abs();
            line.push_str(&cpu_values[(pct * 200.0).round().clamp(0.0, 20_000.0) as usize]);
        }
        cpu.row(&line)?;
        line.clear();
        prefix(&mut line, stamp, machine.name);
        if st.offline {
            line.push_str("NA,NA");
        } else {
            line.push_str(&py(total as f64));
            line.push(',');
            let used = (0.04 + 0.55 * share + 0.02 * mrng.normal()).clamp(0.0, 0.995);
            push_thirds(&mut line, ((1.0 - used) * total as f64 * 3.0).round() as u64);
        }
        mem.row(&line)
    })?;
    Ok(vec![cpu.finish()?, mem.finish()?])
}

fn prefix(line: &mut String, stamp: &str, machine: &str) {
    line.push_str(stamp);
    line.push(',');
    line.push_str(machine);
    line.push(',');
}

fn py(v: f64) -> String {
    let mut s = String::new();
    push_py_float(&mut s, v);
    s
}

/// Appends `thirds / 3` rounded to 4 decimals as Python prints it
/// (`2030730.6667`), without float formatting in the hot loop.
fn push_thirds(out: &mut String, thirds: u64) {
    use std::fmt::Write;
    write!(out, "{}", thirds / 3).expect("writing to a String");
    out.push_str(["", ".3333", ".6667"][(thirds % 3) as usize]);
    if thirds.is_multiple_of(3) {
        out.push_str(".0");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_tables_print_like_the_readme_rows() {
        let v = gpu_values();
        // README: 60.8, 99.366666667, 100.0, 63.333333333.
        assert_eq!(v[3648], "60.8");
        assert_eq!(v[5962], "99.366666667");
        assert_eq!(v[6000], "100.0");
        assert_eq!(v[3800], "63.333333333");
        assert_eq!(v[0], "0.0");
        assert_eq!(py(6369.0 / 200.0), "31.845");
        assert_eq!(py(528_272_672.0), "528272672.0");
        let mut s = String::new();
        push_thirds(&mut s, 6_092_192);
        assert_eq!(s, "2030730.6667");
    }

    #[test]
    fn thirds_agree_with_rounding_then_repr() {
        let mut rng = Rng::new(4);
        for _ in 0..10_000 {
            let q = rng.below(1_600_000_000);
            let (mut a, mut b) = (String::new(), String::new());
            push_thirds(&mut a, q);
            push_rounded(&mut b, q as f64 / 3.0, 4);
            assert_eq!(a, b, "{q}");
        }
    }

    #[test]
    fn offline_spells_avoid_work() {
        let occ = Occupancy {
            gpus: {
                let mut g = vec![Vec::new(); 8];
                g[0] = vec![Busy { from: 1000, to: 1100, level: 10 }, Busy { from: 5000, to: 5200, level: 10 }];
                g[3] = vec![Busy { from: 1050, to: 3000, level: 10 }];
                g
            },
        };
        let mut rng = Rng::new(1);
        for _ in 0..200 {
            for (a, b) in offline_spells(&occ, 0, (0, 20_000), &mut rng) {
                assert!(a < b);
                for w in [(1000, 3000), (5000, 5200)] {
                    assert!(b <= w.0 || a >= w.1, "spell {a}..{b} overlaps work {w:?}");
                }
            }
        }
    }
}
