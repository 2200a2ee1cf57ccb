//! The knobs of GPU sharing: which interference model the classic policies'
//! fractional jobs use, the model's parameters (each default calibrated to a
//! published measurement, cited below), the sharing policies' thresholds and
//! the online load profile. Semantics: `docs/sharing.md`.

use serde::{Deserialize, Serialize};

use super::profile::LoadProfile;
use crate::error::SimError;
use crate::names::named_enum;
use crate::time::Millis;

named_enum!(
    /// How fractional jobs of the classic policies slow each other on a shared GPU.
    Interference, "interference model" {
        /// Every job on a GPU shared by two or more slows by `share_slowdown`.
        Constant => "constant",
        /// The utilization model of `crate::sharing::model` (concurrent sharing).
        Utilization => "utilization",
    }
);

/// GPU-sharing settings; every field has a documented default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SharingConfig {
    /// The classic policies' model for fractional jobs (the sharing policies
    /// always use the utilization model in their own mode).
    pub interference: Interference,
    /// `c`: extra time per unit of co-tenant utilization when jobs share a
    /// GPU by time multiplexing. Two saturating jobs (100 % each) then take
    /// 2 x (1 + c) = 2.9x as long: the middle of the 2.4-3.4x Horus (TPDS'22,
    /// Sec 3) measured for bad pairs; a pair at 40 % each is slowed by
    /// 1 + 0.4 c = 18 %, Horus' average co-location slowdown.
    pub contention: f64,
    /// `c_s`: the same under MPS space sharing (MuxFlow). MuxFlow (Sec 7)
    /// raised SM activity from 16 % with online work alone to 33 % and keeps
    /// online slowdown under 20 %: an offline job using all SMs the online
    /// load leaves at that point (1 - 0.16) slows it by 20 %, so
    /// c_s = 0.2 / 0.84.
    pub space_contention: f64,
    /// `k`: SM activity per unit of utilization; MuxFlow's clusters before
    /// sharing: 16 % SM activity at 26 % utilization.
    pub sm_per_util: f64,
    /// Cap on any slowdown (a job left almost no GPU still progresses).
    pub max_slowdown: f64,
    /// Most jobs on one GPU under the co-locating policies (PAI packs up to
    /// four 25 % tasks on a GPU).
    pub max_tenants: u32,
    /// Horus: the predicted utilizations on a GPU never add up beyond this (%).
    pub horus_util_threshold_pct: f64,
    /// Horus: how often the k-means queues are refitted on the waiting jobs.
    pub horus_refit: Millis,
    /// MuxFlow: the online slowdown its protection never lets pass.
    pub online_bound: f64,
    /// MuxFlow: an offline job yields its online GPU (is evicted) when the
    /// SM share the online load leaves falls below this; such GPUs are not
    /// offered to offline jobs either.
    pub min_offline_share: f64,
    /// Utilization of a job whose usage is unknown (%).
    pub default_util_pct: f64,
    /// GPU memory of a job whose usage is unknown (GiB per GPU).
    pub default_mem_gib: f64,
    /// GPU memory of each GPU type (index = GPU type id), GiB; types beyond
    /// the list have `default_gpu_mem_gib`.
    pub gpu_mem_gib: Vec<f64>,
    /// GPU memory of a GPU type without an entry in `gpu_mem_gib`, GiB.
    pub default_gpu_mem_gib: f64,
    /// Waiting jobs a round tries past the ones it starts (bounded work per
    /// round at a million jobs).
    pub lookahead: u32,
    /// MuxFlow: offline jobs matched per round.
    pub matching_batch: u32,
    /// MuxFlow: offline jobs one online GPU may host (MuxFlow pairs one
    /// offline workload with each online GPU); `max_tenants` still applies.
    pub offline_per_online: u32,
    /// Online services' load over a day; `None`: constant at their utilization.
    pub profile: Option<LoadProfile>,
}

impl Default for SharingConfig {
    fn default() -> Self {
        SharingConfig {
            interference: Interference::Constant,
            contention: 0.45,
            space_contention: 0.2 / 0.84,
            sm_per_util: 16.0 / 26.0,
            max_slowdown: 100.0,
            max_tenants: 4,
            horus_util_threshold_pct: 100.0,
            horus_refit: 600_000,
            online_bound: 1.2,
            min_offline_share: 0.25,
            default_util_pct: 50.0,
            default_mem_gib: 2.0,
            gpu_mem_gib: Vec::new(),
            default_gpu_mem_gib: 16.0,
            lookahead: 64,
            matching_batch: 32,
            offline_per_online: 1,
            profile: None,
        }
    }
}

impl SharingConfig {
    /// GPU memory of GPU type `ty`, GiB.
    pub fn gpu_mem(&self, ty: u16) -> f64 {
        self.gpu_mem_gib.get(ty as usize).copied().unwrap_or(self.default_gpu_mem_gib)
    }

    /// Rejects values the model cannot honour.
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |s: &str| Err(SimError::BadOption(s.to_string()));
        let finite = |x: f64| x.is_finite();
        if !(finite(self.contention) && self.contention >= 0.0) {
            return bad("contention must be a finite number >= 0");
        }
        if !(finite(self.space_contention) && self.space_contention >= 0.0) {
            return bad("space contention must be a finite number >= 0");
        }
        if !(finite(self.sm_per_util) && self.sm_per_util > 0.0 && self.sm_per_util <= 1.0) {
            return bad("SM activity per utilization must lie in (0, 1]");
        }
        if !(finite(self.max_slowdown) && self.max_slowdown >= 1.0) {
            return bad("max slowdown must be a finite number >= 1");
        }
        if !(1..=64).contains(&self.max_tenants) {
            return bad("max tenants per GPU must lie in 1-64");
        }
        if !(finite(self.horus_util_threshold_pct) && self.horus_util_threshold_pct > 0.0) {
            return bad("the Horus utilization threshold must be positive");
        }
        if self.horus_refit <= 0 {
            return bad("the Horus refit interval must be positive");
        }
        if !(finite(self.online_bound) && self.online_bound > 1.0) {
            return bad("the online slowdown bound must be a finite number > 1");
        }
        if !(finite(self.min_offline_share) && (0.0..1.0).contains(&self.min_offline_share)) {
            return bad("the minimum offline SM share must lie in [0, 1)");
        }
        if !(finite(self.default_util_pct) && (0.0..=100.0).contains(&self.default_util_pct)) {
            return bad("the default GPU utilization must lie in 0-100 %");
        }
        let mem_ok = |m: f64| finite(m) && (0.0..=crate::usage::MAX_GPU_MEM_GIB).contains(&m);
        if !mem_ok(self.default_mem_gib) {
            return bad("the default GPU memory must be a finite number of GiB >= 0");
        }
        if !(self.gpu_mem_gib.iter().all(|&m| mem_ok(m) && m > 0.0) && mem_ok(self.default_gpu_mem_gib))
            || self.default_gpu_mem_gib <= 0.0
        {
            return bad("GPU memory capacities must be positive finite numbers of GiB");
        }
        if self.lookahead == 0 || self.matching_batch == 0 || self.matching_batch > 1024 {
            return bad("lookahead must be positive and the matching batch within 1-1024");
        }
        if self.offline_per_online == 0 {
            return bad("an online GPU must be able to host at least one offline job");
        }
        if let Some(p) = &self.profile {
            p.validate()?;
        }
        Ok(())
    }
}
