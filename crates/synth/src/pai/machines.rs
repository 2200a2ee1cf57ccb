//! The real PAI machine table as the cluster the synthetic workload runs on:
//! which machines receive work at a given scale, and each machine's live
//! state during the simulation (free capacity, the instances on it, and
//! running integrals of what they use).
//!
//! Scale: at `--scale s <= 1` a stratified `s` share of the real machines
//! (per GPU type, rounded, at least one each) receives work, and the job
//! count of each type is scaled by the same realized share, so the load per
//! machine (and with it queueing, co-location and `machine_*` values) stays
//! that of the full trace. The machine table itself is always written
//! complete.
//!
//! The integrals make `pai_machine_metric` exact: an instance remembers the
//! integrals when it starts, and at its end the differences divided by its
//! lifetime are the time averages over the instances co-located with it
//! (itself included), which is how the owners define `machine_num_worker`
//! (clusterdata issue #125).

use super::super::rng::Rng;

/// GPU types in the order the workload model indexes them. `CPU` machines
/// have no GPU; CPU-only tasks may run on any machine.
pub const TYPES: [&str; 6] = ["MISC", "T4", "P100", "V100", "V100M32", "CPU"];
/// Index of the CPU-only machines in [`TYPES`].
pub const CPU: usize = 5;

/// One machine of `pai_machine_spec.csv` with its simulation state.
#[derive(Clone, Debug)]
pub struct Machine {
    pub name: &'static str,
    pub kind: usize,
    /// Capacities in the units of the task requests: % of a core (600 = 6
    /// vCPU), MiB, % of a GPU.
    pub cap_cpu: i64,
    pub cap_mem: i64,
    pub cap_gpu: i64,
    pub free_cpu: i64,
    pub free_mem: i64,
    pub free_gpu: i64,
    /// Instances running now and their summed usage rates.
    pub workers: i64,
    pub use_cpu: f64,
    pub use_gpu: f64,
    pub use_read: f64,
    pub integrals: Integrals,
    /// Time the integrals were last advanced to.
    last: i64,
    /// Next `/dev/nvidiaN` handed out (round robin).
    next_gpu: u32,
}

/// Time integrals of the co-located worker count and usage on a machine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Integrals {
    /// Worker-seconds (exact in integers).
    pub workers: i64,
    /// (% of a core)-seconds.
    pub cpu: f64,
    /// (% of a GPU)-seconds.
    pub gpu: f64,
    /// Bytes received.
    pub read: f64,
}

/// What one instance takes and uses on its machine.
#[derive(Clone, Copy, Debug)]
pub struct Load {
    pub cpu: i64,
    pub mem: i64,
    pub gpu: i64,
    pub use_cpu: f64,
    pub use_gpu: f64,
    pub use_read: f64,
}

impl Machine {
    fn new(name: &'static str, kind: usize, cpu: i64, mem_gb: i64, gpu: i64) -> Machine {
        Machine {
            name,
            kind,
            cap_cpu: cpu * 100,
            cap_mem: mem_gb * 1024,
            cap_gpu: gpu * 100,
            free_cpu: cpu * 100,
            free_mem: mem_gb * 1024,
            free_gpu: gpu * 100,
            workers: 0,
            use_cpu: 0.0,
            use_gpu: 0.0,
            use_read: 0.0,
            integrals: Integrals::default(),
            last: 0,
            next_gpu: 0,
        }
    }

    /// How many instances of `load` fit now (at most `max`).
    pub fn fits(&self, load: &Load, max: u32) -> u32 {
        let by = |free: i64, need: i64| if need <= 0 { u32::MAX } else { (free / need).max(0) as u32 };
        by(self.free_cpu, load.cpu).min(by(self.free_mem, load.mem)).min(by(self.free_gpu, load.gpu)).min(max)
    }

    /// Brings the integrals up to time `t`.
    pub fn advance(&mut self, t: i64) {
        let dt = t - self.last;
        debug_assert!(dt >= 0, "time runs forward");
        if dt > 0 {
            self.integrals.workers += self.workers * dt;
            self.integrals.cpu += self.use_cpu * dt as f64;
            self.integrals.gpu += self.use_gpu * dt as f64;
            self.integrals.read += self.use_read * dt as f64;
            self.last = t;
        }
    }

    /// Starts one instance at `t` (integrals already advanced to `t`).
    pub fn add(&mut self, load: &Load) {
        self.free_cpu -= load.cpu;
        self.free_mem -= load.mem;
        self.free_gpu -= load.gpu;
        debug_assert!(self.free_cpu >= 0 && self.free_mem >= 0 && self.free_gpu >= 0, "over capacity");
        self.workers += 1;
        self.use_cpu += load.use_cpu;
        self.use_gpu += load.use_gpu;
        self.use_read += load.use_read;
    }

    /// Ends one instance (integrals already advanced to its end).
    pub fn remove(&mut self, load: &Load) {
        self.free_cpu += load.cpu;
        self.free_mem += load.mem;
        self.free_gpu += load.gpu;
        self.workers -= 1;
        self.use_cpu -= load.use_cpu;
        self.use_gpu -= load.use_gpu;
        self.use_read -= load.use_read;
        if self.workers == 0 {
            // Drop the rounding residue of adding and removing floats.
            self.use_cpu = 0.0;
            self.use_gpu = 0.0;
            self.use_read = 0.0;
        }
    }

    /// CPU in use now as a share of the machine (0..).
    pub fn cpu_share(&self) -> f64 {
        self.use_cpu / self.cap_cpu as f64
    }

    /// The GPU device an instance is shown on in `pai_sensor_table`.
    pub fn take_gpu_device(&mut self) -> u32 {
        let gpus = (self.cap_gpu / 100).max(1) as u32;
        let d = self.next_gpu % gpus;
        self.next_gpu = self.next_gpu.wrapping_add(1);
        d
    }
}

/// Parses the embedded machine table (`machine,gpu_type,cap_cpu,cap_mem,cap_gpu`).
pub fn parse_spec(text: &'static str) -> Vec<Machine> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let f: Vec<&'static str> = line.split(',').collect();
            let kind = TYPES.iter().position(|t| *t == f[1]).expect("known GPU type in the machine table");
            let num = |s: &str| s.parse::<i64>().expect("integer capacity in the machine table");
            Machine::new(f[0], kind, num(f[2]), num(f[3]), num(f[4]))
        })
        .collect()
}

/// The machines receiving work at `scale` and, per type, the realized share
/// of that type's machines (the factor its job count is scaled by).
pub struct Cluster {
    pub machines: Vec<Machine>,
    /// Indices into `machines`, per type.
    pub by_type: [Vec<usize>; 6],
    pub type_share: [f64; 6],
}

/// Picks a stratified share of the machines: per type `max(1, round(s*n))`,
/// chosen at random, kept in table order.
pub fn cluster(all: Vec<Machine>, scale: f64, seed: u64) -> Cluster {
    let mut rng = Rng::stream(seed, "pai:machines");
    let mut chosen = vec![false; all.len()];
    let mut type_share = [0.0; 6];
    for (kind, share) in type_share.iter_mut().enumerate() {
        let mut idx: Vec<usize> = (0..all.len()).filter(|&i| all[i].kind == kind).collect();
        let n = idx.len();
        let k = ((scale * n as f64).round() as usize).clamp(1, n);
        // Partial Fisher-Yates: the first k of a random permutation.
        for i in 0..k {
            let j = i + rng.below((n - i) as u64) as usize;
            idx.swap(i, j);
        }
        for &i in &idx[..k] {
            chosen[i] = true;
        }
        *share = k as f64 / n as f64;
    }
    let machines: Vec<Machine> = all.into_iter().zip(chosen).filter(|(_, c)| *c).map(|(m, _)| m).collect();
    let mut by_type: [Vec<usize>; 6] = Default::default();
    for (i, m) in machines.iter().enumerate() {
        by_type[m.kind].push(i);
    }
    Cluster { machines, by_type, type_share }
}

#[cfg(test)]
mod tests {
    use super::super::super::inventory::PAI_MACHINE_SPEC;
    use super::*;

    #[test]
    fn the_real_table_has_the_published_machine_counts() {
        // NSDI'22 Sec 4 (`docs/definitions.md#paisupply-demand`): 1,295 2-GPU and 519 8-GPU machines, 6,742 GPUs.
        let all = parse_spec(PAI_MACHINE_SPEC);
        assert_eq!(all.len(), 1897);
        assert_eq!(all.iter().filter(|m| m.cap_gpu == 200).count(), 1295);
        assert_eq!(all.iter().filter(|m| m.cap_gpu == 800).count(), 519);
        assert_eq!(all.iter().map(|m| m.cap_gpu / 100).sum::<i64>(), 6742);
    }

    #[test]
    fn a_small_scale_keeps_every_type_and_its_share() {
        let c = cluster(parse_spec(PAI_MACHINE_SPEC), 0.02, 7);
        for (kind, name) in TYPES.iter().enumerate() {
            assert!(!c.by_type[kind].is_empty(), "{name} has a machine");
            let n_all = parse_spec(PAI_MACHINE_SPEC).iter().filter(|m| m.kind == kind).count() as f64;
            assert_eq!(c.type_share[kind], c.by_type[kind].len() as f64 / n_all);
        }
        // 2 % of 798 P100 machines is 16.
        assert_eq!(c.by_type[2].len(), 16);
        let full = cluster(parse_spec(PAI_MACHINE_SPEC), 1.0, 7);
        assert_eq!(full.machines.len(), 1897);
    }

    #[test]
    fn integrals_give_exact_time_averages() {
        let mut m = Machine::new("m", 0, 96, 512, 8);
        let load = Load { cpu: 600, mem: 1024, gpu: 50, use_cpu: 100.0, use_gpu: 10.0, use_read: 1.0 };
        m.advance(0);
        let start = m.integrals;
        m.add(&load); // our instance, 0..100
        m.advance(50);
        m.add(&load); // a neighbour from 50 on
        m.advance(100);
        let avg_workers = (m.integrals.workers - start.workers) as f64 / 100.0;
        assert_eq!(avg_workers, 1.5);
        assert_eq!((m.integrals.cpu - start.cpu) / 100.0, 150.0);
        assert_eq!(m.fits(&load, 99), 14, "96 cores hold 16 six-core instances, 2 taken");
    }
}
