//! The planted parts of the simulation: queueing delays drawn per task
//! (NSDI'22 Fig 4b/5) and the runtime stretch of the CPU-contention and
//! co-location effects (NSDI'22 §4.2), with the per-type running totals the
//! stretch compares a machine against.

use super::super::rng::Rng;
use super::super::Effects;
use super::group::TaskSpec;
use super::machines::{Load, Machine};
use super::params as p;

/// Planted queueing delay of a task (s), see `params::WAIT`.
pub fn planted_wait(pool: usize, spec: &TaskSpec, typical: f64, rel_runtime: f64, rng: &mut Rng) -> i64 {
    let w = p::WAIT[pool];
    if rng.chance(w.immediate) {
        return rng.below(4) as i64;
    }
    let ratio = if spec.plan_gpu.is_some_and(|g| g >= 100) { w.whole } else { w.sharing };
    let median = ratio * typical * rel_runtime.powf(p::WAIT_RUNTIME_EXP);
    rng.lognormal(median, p::WAIT_SIGMA).min(30.0 * 86_400.0).round() as i64
}

/// The planted runtime stretch of an instance on `m` at its start: by how
/// much its machine's CPU share and co-location exceed the current average
/// of the machines of its type, so the stretch is about neutral on average
/// (no feedback into the load) and switching it off keeps the load.
pub fn slowdown(m: &Machine, pool: &Pool, effects: Effects) -> f64 {
    let stretch = |x: f64| x.exp().clamp(p::EFFECT_MIN, p::EFFECT_MAX);
    let mut f = 1.0;
    if effects.cpu_contention {
        f *= stretch(p::CPU_GAIN * (m.cpu_share() - pool.cpu_share()));
    }
    if effects.colocation {
        f *= stretch(p::COLOC_GAIN * (m.workers as f64 - pool.workers_per_machine()));
    }
    f
}

/// Running totals of the machines of one type.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pool {
    machines: f64,
    cap_cpu: f64,
    use_cpu: f64,
    workers: f64,
}

impl Pool {
    pub fn of(machines: &[Machine]) -> [Pool; 6] {
        let mut pools = [Pool::default(); 6];
        for m in machines {
            pools[m.kind].machines += 1.0;
            pools[m.kind].cap_cpu += m.cap_cpu as f64;
        }
        pools
    }
    pub fn add(&mut self, load: &Load, sign: f64) {
        self.use_cpu += sign * load.use_cpu;
        self.workers += sign;
    }
    fn cpu_share(&self) -> f64 {
        self.use_cpu.max(0.0) / self.cap_cpu
    }
    fn workers_per_machine(&self) -> f64 {
        self.workers / self.machines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::PAI_MACHINE_SPEC;
    use crate::pai::machines::{parse_spec, CPU};

    fn spec(gpu: Option<u32>) -> TaskSpec {
        TaskSpec {
            name: "worker",
            inst_num: 1,
            plan_cpu: 600,
            plan_mem: 30000,
            plan_gpu: gpu,
            cpu_ratio: 0.2,
            gpu_ratio: 0.1,
            mem_ratio: 0.1,
            read_bps: 1e6,
            stretch: 1.0,
        }
    }

    #[test]
    fn planted_waits_grow_with_runtime_and_are_often_immediate() {
        let mut rng = Rng::new(1);
        let draw = |rel: f64, rng: &mut Rng| -> Vec<i64> {
            let mut v: Vec<i64> = (0..20_000).map(|_| planted_wait(0, &spec(Some(50)), 200.0, rel, rng)).collect();
            v.sort();
            v
        };
        let short = draw(0.1, &mut rng);
        let long = draw(10.0, &mut rng);
        let immediate = long.iter().filter(|&&w| w < 4).count() as f64 / long.len() as f64;
        assert!((immediate - p::WAIT[0].immediate).abs() < 0.02, "{immediate}");
        assert!(long[18_000] > 20 * short[18_000], "{} vs {}", long[18_000], short[18_000]);
    }

    #[test]
    fn the_stretch_is_one_when_off_and_follows_cpu_load_when_on() {
        let mut machines = parse_spec(PAI_MACHINE_SPEC);
        machines.truncate(3);
        let pools = Pool::of(&machines);
        let busy = Load { cpu: 600, mem: 1000, gpu: 0, use_cpu: 3000.0, use_gpu: 0.0, use_read: 0.0 };
        let mut hot = machines[0].clone();
        hot.add(&busy);
        let mut pool = pools[CPU];
        pool.add(&busy, 1.0);
        let off = Effects { cpu_contention: false, colocation: false };
        assert_eq!(slowdown(&hot, &pool, off), 1.0);
        let on = Effects { cpu_contention: true, colocation: false };
        assert!(slowdown(&hot, &pool, on) > 1.3, "busier than its pool: slower");
        assert!(slowdown(&machines[1], &pool, on) < 1.0, "idler than its pool: faster");
    }
}
