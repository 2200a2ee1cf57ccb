//! `muxflow`: MuxFlow (Zhao et al., 2023), safe and efficient GPU sharing
//! between online services and offline jobs:
//! - online services are placed first (on a free GPU, else on a GPU whose
//!   offline tenants they evict) and are never slowed beyond
//!   `online_bound`: the two-level protection;
//! - each GPU of an online service leaves its offline tenant the SM share
//!   its online load leaves, `min(1 - k U_online(t), (bound - 1) / c_s)`
//!   (dynamic SM allocation, re-set at every step of the online load and
//!   before an offline job joins);
//!   when that share falls below `min_offline_share`, the offline tenant
//!   yields: it is evicted and waits again with its progress;
//! - every round, the first `matching_batch` waiting offline jobs of at
//!   most one GPU are matched to GPUs (free GPUs, and online GPUs with room)
//!   by maximum-weight bipartite matching (Kuhn-Munkres)
//!   on their predicted normalised speed there (1 on a free GPU; the
//!   interference model's 1 / slowdown at the job's predicted utilization
//!   beside an online service); then every waiting job that finds a free
//!   GPU takes it, in submission order, as under the baselines.
//!
//! Sharing is MPS space sharing (`ShareMode::Space`). An online GPU hosts
//! one offline job, as MuxFlow pairs workloads (`offline_per_online` lets
//! successive rounds add more, sharing its SM share, up to `max_tenants`
//! jobs in all: a trace's offline jobs are often a fraction of a GPU,
//! MuxFlow's were whole training jobs). Utilization is predicted as
//! `horus` predicts it (MuxFlow's speed predictor learns from workload
//! features the traces do not have).

use crate::config::SimConfig;
use crate::job::{Job, JobId, Workload};
use crate::sharing::matching;
use crate::sharing::model::ShareMode;
use crate::sharing::policy::{GpuView, Round, SharingPolicy};
use crate::sharing::predict::{Predicted, UsagePredictor};
use crate::sharing::waitlist::{Shape, WaitList};
use crate::time::Millis;
use crate::usage::Usage;

pub(crate) struct Muxflow {
    predictor: UsagePredictor,
    predicted: Vec<Option<Predicted>>,
    wait: WaitList,
}

impl Muxflow {
    pub(crate) fn new(cfg: &SimConfig, w: &Workload) -> Muxflow {
        let s = &cfg.sharing;
        let default = Predicted { util_pct: s.default_util_pct, mem_gib: s.default_mem_gib };
        Muxflow {
            predictor: UsagePredictor::new(cfg.predictor, w, default),
            predicted: vec![None; w.jobs.len()],
            wait: WaitList::default(),
        }
    }

    fn util(&self, job: JobId) -> f64 {
        self.predicted[job as usize].map_or(0.0, |p| p.util_pct)
    }

    /// Dynamic SM allocation: every online GPU's share from its load now;
    /// offline tenants yield where it falls below the minimum.
    fn set_shares(&self, r: &mut Round) {
        let (bound, min) = (r.config().online_bound, r.config().min_offline_share);
        let gpus: Vec<u32> = r.with_online().collect();
        for gpu in gpus {
            let share = r.model().bounded_share(r.online_load(gpu), bound);
            if share < min {
                let offline: Vec<JobId> = r.tenants(gpu).iter().copied().filter(|&j| !r.is_online(j)).collect();
                for j in offline {
                    r.evict(j).expect("a tenant runs");
                }
            }
            r.set_share(gpu, share);
        }
    }

    /// The offline jobs this round considers, in submission order: the
    /// first `matching_batch` (only new arrivals when no capacity was freed).
    fn batch(&self, r: &Round) -> Vec<JobId> {
        let limit = r.config().matching_batch as usize;
        let list: Vec<(Millis, JobId)> = if r.capacity_grew() {
            self.wait.offline.iter().take(limit * 4).copied().collect()
        } else {
            self.wait.fresh.iter().filter(|e| self.wait.offline.contains(e)).copied().collect()
        };
        list.iter().map(|e| e.1).filter(|&j| r.single_gpu(j)).take(limit).collect()
    }

    /// Online GPUs an offline job may join now (room for a tenant, a share
    /// above the minimum), least planned first.
    fn online_slots(&self, r: &Round, limit: usize) -> Vec<(u32, f64)> {
        let c = r.config();
        let (bound, min, max, per) = (c.online_bound, c.min_offline_share, c.max_tenants, c.offline_per_online);
        r.candidates()
            .filter(|&g| r.gpu(g).tenants < max && r.gpu(g).tenants - r.gpu(g).online < per)
            .map(|g| (g, r.model().bounded_share(r.online_load(g), bound)))
            .filter(|&(_, s)| s >= min)
            .take(limit)
            .collect()
    }

    /// Matches `jobs` to online slots and free GPUs by predicted speed and
    /// starts the pairs.
    fn matching(&mut self, r: &mut Round, jobs: &[JobId]) {
        if jobs.is_empty() {
            return;
        }
        let slots = self.online_slots(r, jobs.len() * 2);
        let free = jobs.iter().filter(|&&j| r.has_free_gpu(j)).count();
        let speed = |r: &Round, j: JobId, (g, share): (u32, f64)| {
            if r.refusal(j, g).is_some() {
                return 0.0;
            }
            1.0 / r.predicted_slowdown(ShareMode::Space, g, self.util(j) / 100.0, share)
        };
        let weights: Vec<Vec<f64>> = jobs
            .iter()
            .map(|&j| {
                let alone = if r.has_free_gpu(j) { 1.0 } else { 0.0 };
                let mut row: Vec<f64> = slots.iter().map(|&s| speed(r, j, s)).collect();
                row.extend(std::iter::repeat_n(alone, free));
                row
            })
            .collect();
        let pairs = matching::max_weight(jobs.len(), slots.len() + free, |j, c| weights[j][c]);
        for (j, c) in pairs {
            let job = jobs[j];
            let started = match slots.get(c) {
                Some(&(gpu, share)) => {
                    // The share is set before the job joins, so the online
                    // tenant is never slowed beyond the bound.
                    r.set_share(gpu, share);
                    r.start_beside(job, gpu, self.util(job)).is_ok()
                }
                None => r.start_alone(job, self.util(job)).is_ok(),
            };
            if started {
                self.wait.offline.remove(&(r.job(job).submit, job));
            }
        }
    }
}

/// GPUs of an online service, least planned utilization (online load and
/// offline tenants) first.
fn online_gpus(g: &GpuView) -> Option<i64> {
    (g.online > 0).then(|| (g.planned_util_pct * 1000.0).round() as i64)
}

impl SharingPolicy for Muxflow {
    fn mode(&self) -> ShareMode {
        ShareMode::Space
    }

    fn gpu_key(&self) -> fn(&GpuView) -> Option<i64> {
        online_gpus
    }

    fn arrive(&mut self, job: &Job, usage: &Usage, _now: Millis) {
        let i = job.id as usize;
        if self.predicted[i].is_none() {
            self.predicted[i] = Some(self.predictor.predict(job));
        }
        self.wait.arrive(job, usage);
    }

    fn finish(&mut self, job: &Job, usage: &Usage, _now: Millis) {
        self.predictor.record(job, usage);
    }

    fn round(&mut self, r: &mut Round) {
        let predicted = &self.predicted;
        self.wait.place_online(r, |_, j| predicted[j as usize].map_or(0.0, |p| p.util_pct));
        if r.online_load_changed() {
            self.set_shares(r);
        }
        let single = self.batch(r);
        self.matching(r, &single);
        // Every other waiting job that finds a free GPU takes it, as under
        // the baselines (the matching only chooses among online GPUs).
        let predicted = &self.predicted;
        let util = |j: JobId| predicted[j as usize].map_or(0.0, |p| p.util_pct);
        self.wait.walk(r, |r, j| Shape::of(r, j, 0.0), |r, j| r.start_alone(j, util(j)).is_ok());
    }
}
