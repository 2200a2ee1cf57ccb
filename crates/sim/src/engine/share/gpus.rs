//! Who shares each GPU under a GPU-sharing policy: its tenants (jobs of at
//! most one GPU, in placement order), their memory against the GPU's
//! capacity, the SM share the policy left to offline tenants, and an index
//! of the occupied GPUs a policy offers for co-location, ordered by the
//! policy's key (`SharingPolicy::gpu_key`), so a policy finds its best
//! candidate without scanning GPUs.
//!
//! GPU ids are the engine's (numbered node by node). Whether a GPU is free
//! is `Nodes`' business: an occupied GPU is held there by a placeholder
//! tenant ([`HOLDER`]) for as long as it has tenants here.

use std::collections::BTreeSet;

use crate::job::JobId;
use crate::sharing::view::GpuView;

/// The job id that holds a shared GPU in `Nodes` (no real job has it:
/// workloads are limited to fewer jobs).
pub(crate) const HOLDER: JobId = u32::MAX;

/// Orders the GPUs a policy offers for co-location (`None`: not offered).
pub(crate) type KeyFn = fn(&GpuView) -> Option<i64>;

pub(crate) struct GpuState {
    pub(crate) node: Vec<u32>,
    pub(crate) gpu_type: Vec<u16>,
    pub(crate) tenants: Vec<Vec<JobId>>,
    pub(crate) mem_used: Vec<f64>,
    pub(crate) mem_cap: Vec<f64>,
    /// SM share left to low-priority tenants under space sharing (1 = all).
    pub(crate) share: Vec<f64>,
    /// Sum of the utilizations (%) the policy planned with for its tenants.
    pub(crate) planned: Vec<f64>,
    /// Online tenants, and the sum of their stated utilizations (%).
    pub(crate) online: Vec<u16>,
    pub(crate) online_util: Vec<f64>,
    key: Vec<Option<i64>>,
    pub(crate) index: BTreeSet<(i64, u32)>,
    /// GPUs whose tenants are all offline (room an online job may take).
    pub(crate) offline_only: BTreeSet<u32>,
    /// GPUs with at least one online tenant.
    pub(crate) with_online: BTreeSet<u32>,
    /// GPUs hosting online and offline tenants together (MuxFlow's oversold GPUs).
    pub(crate) oversold: u32,
    key_fn: KeyFn,
}

impl GpuState {
    pub(crate) fn new(node: Vec<u32>, gpu_type: Vec<u16>, mem_cap: Vec<f64>, key_fn: KeyFn) -> GpuState {
        let n = node.len();
        GpuState {
            node,
            gpu_type,
            tenants: vec![Vec::new(); n],
            mem_used: vec![0.0; n],
            mem_cap,
            share: vec![1.0; n],
            planned: vec![0.0; n],
            online: vec![0; n],
            online_util: vec![0.0; n],
            key: vec![None; n],
            index: BTreeSet::new(),
            offline_only: BTreeSet::new(),
            with_online: BTreeSet::new(),
            oversold: 0,
            key_fn,
        }
    }

    pub(crate) fn view(&self, gpu: u32) -> GpuView {
        let g = gpu as usize;
        GpuView {
            gpu,
            node: self.node[g],
            gpu_type: self.gpu_type[g],
            tenants: self.tenants[g].len() as u32,
            online: self.online[g] as u32,
            online_util_pct: self.online_util[g],
            planned_util_pct: self.planned[g],
            mem_free_gib: self.mem_cap[g] - self.mem_used[g],
            share: self.share[g],
        }
    }

    fn is_oversold(&self, g: usize) -> bool {
        self.online[g] > 0 && (self.online[g] as usize) < self.tenants[g].len()
    }

    /// Runs `change` on GPU `gpu` and brings the index and counters up to date.
    fn update(&mut self, gpu: u32, change: impl FnOnce(&mut GpuState)) {
        let g = gpu as usize;
        let was_oversold = self.is_oversold(g);
        if let Some(k) = self.key[g].take() {
            self.index.remove(&(k, gpu));
        }
        self.offline_only.remove(&gpu);
        self.with_online.remove(&gpu);
        change(self);
        if !self.tenants[g].is_empty() {
            self.key[g] = (self.key_fn)(&self.view(gpu));
            if let Some(k) = self.key[g] {
                self.index.insert((k, gpu));
            }
            if self.online[g] == 0 {
                self.offline_only.insert(gpu);
            } else {
                self.with_online.insert(gpu);
            }
        }
        match (was_oversold, self.is_oversold(g)) {
            (false, true) => self.oversold += 1,
            (true, false) => self.oversold -= 1,
            _ => {}
        }
    }

    /// Adds `job` (memory `mem` GiB, planned utilization `planned` %,
    /// online with stated utilization `online_util` %).
    pub(crate) fn join(&mut self, gpu: u32, job: JobId, mem: f64, planned: f64, online_util: Option<f64>) {
        self.update(gpu, |s| {
            let g = gpu as usize;
            s.tenants[g].push(job);
            s.mem_used[g] += mem;
            s.planned[g] += planned;
            if let Some(u) = online_util {
                s.online[g] += 1;
                s.online_util[g] += u;
            }
        });
    }

    /// Removes `job`; returns whether the GPU is now empty.
    pub(crate) fn leave(&mut self, gpu: u32, job: JobId, mem: f64, planned: f64, online_util: Option<f64>) -> bool {
        self.update(gpu, |s| {
            let g = gpu as usize;
            let at = s.tenants[g].iter().position(|&j| j == job).expect("job not on this GPU");
            // Keeps the placement order: the first tenant is the one placed first.
            s.tenants[g].remove(at);
            if s.tenants[g].is_empty() {
                (s.mem_used[g], s.planned[g], s.online[g], s.online_util[g], s.share[g]) = (0.0, 0.0, 0, 0.0, 1.0);
                return;
            }
            s.mem_used[g] -= mem;
            s.planned[g] -= planned;
            if let Some(u) = online_util {
                s.online[g] -= 1;
                s.online_util[g] -= u;
            }
        });
        self.tenants[gpu as usize].is_empty()
    }

    pub(crate) fn set_share(&mut self, gpu: u32, share: f64) {
        self.update(gpu, |s| s.share[gpu as usize] = share);
    }
}
