//! What a sharing policy's round can do to the cluster: start a job alone
//! (a free GPU, or whole free GPUs for a larger job), start a job of at
//! most one GPU on an occupied GPU beside its tenants, evict a job, and set
//! the SM share a GPU leaves to its offline tenants; and the engine's side
//! of a round (arrivals, online load steps, the round itself).
//!
//! Every command checks what the engine guarantees whatever the policy
//! asks: GPU memory is a hard capacity (a job joins a GPU only if the
//! tenants' memory still fits; alone it always may), at most `max_tenants`
//! jobs per GPU, GPU-type pins, and only waiting jobs start.

use super::gpus::{GpuState, HOLDER};
use crate::engine::nodes::SharedSpot;
use crate::engine::state::Phase;
use crate::engine::Engine;
use crate::job::JobId;
use crate::placement::{self, search};
use crate::sharing::policy::Round;
use crate::sharing::view::Refused;
use crate::time::Millis;

/// Rounds run again at one instant for jobs evicted by the previous one.
const REROUNDS: usize = 3;

impl Engine<'_> {
    pub(crate) fn gpus(&self) -> &GpuState {
        self.share.as_ref().and_then(|s| s.gpus.as_ref()).expect("a sharing policy runs")
    }

    fn gpus_mut(&mut self) -> &mut GpuState {
        self.share.as_mut().and_then(|s| s.gpus.as_mut()).expect("a sharing policy runs")
    }

    /// Whether `job` asks for at most one GPU (it can share one).
    pub(crate) fn single_gpu(&self, job: JobId) -> bool {
        self.w.jobs[job as usize].gpu_milli <= 1000
    }

    /// Starts a waiting job alone: a job of at most one GPU on a free GPU of
    /// the fullest node with one (packing keeps whole nodes free), a larger
    /// job on free GPUs by the run's placement rule.
    pub(crate) fn start_alone(&mut self, job: JobId, planned_pct: f64) -> Result<(), Refused> {
        if self.st.phase[job as usize] != Phase::Waiting {
            return Err(Refused::NotWaiting);
        }
        let ty = self.w.jobs[job as usize].gpu_type;
        if !self.single_gpu(job) {
            let demand = self.w.jobs[job as usize].demand().expect("admitted jobs ask for GPUs");
            let spot = placement::find(self.rule.as_mut(), &self.nodes, demand, ty, 0, &|_| true);
            let spot = spot.ok_or(Refused::NoRoom)?;
            self.share.as_mut().expect("sharing").waiting -= 1;
            self.start_on(job, spot);
            return Ok(());
        }
        let node = search::fullest(&self.nodes, 1, ty, &|_| true).ok_or(Refused::NoRoom)?;
        let gpu = self.nodes.alloc_shared(HOLDER, 1000, SharedSpot::EmptyOn(node), 0);
        self.share.as_mut().expect("sharing").metrics.change(true, 0, 1000);
        self.join_gpu(job, gpu, planned_pct);
        Ok(())
    }

    /// Why `job` may not join occupied `gpu` now, if it may not.
    pub(crate) fn refusal(&self, job: JobId, gpu: u32) -> Option<Refused> {
        let j = &self.w.jobs[job as usize];
        let g = self.gpus();
        let tenants = g.tenants.get(gpu as usize)?.len() as u32;
        if self.st.phase[job as usize] != Phase::Waiting {
            Some(Refused::NotWaiting)
        } else if !self.single_gpu(job) {
            Some(Refused::TooLarge)
        } else if tenants == 0
            || tenants >= self.cfg.sharing.max_tenants
            || j.gpu_type.is_some_and(|t| t != g.gpu_type[gpu as usize])
        {
            Some(Refused::NotShareable)
        } else if g.mem_used[gpu as usize] + self.mem_of(job) > g.mem_cap[gpu as usize] + 1e-9 {
            Some(Refused::Memory)
        } else {
            None
        }
    }

    /// Starts a waiting job of at most one GPU beside the tenants of `gpu`.
    pub(crate) fn start_beside(&mut self, job: JobId, gpu: u32, planned_pct: f64) -> Result<(), Refused> {
        match self.refusal(job, gpu) {
            Some(r) => Err(r),
            None => {
                self.join_gpu(job, gpu, planned_pct);
                Ok(())
            }
        }
    }

    fn join_gpu(&mut self, job: JobId, gpu: u32, planned_pct: f64) {
        let i = job as usize;
        self.begin_run(job);
        self.st.first_node[i] = Some(self.nodes.gpu_node[gpu as usize]);
        self.st.node_count[i] = 1;
        self.st.slow[i] = 1.0;
        let (mem, online) = (self.mem_of(job), self.online(job).then(|| self.stated_util(job)));
        let sh = self.share.as_mut().expect("sharing");
        sh.gpu_of[i] = gpu;
        sh.planned[i] = planned_pct as f32;
        sh.waiting -= 1;
        sh.metrics.change(true, 1000, 0);
        self.gpus_mut().join(gpu, job, mem, planned_pct, online);
        self.rerate_gpu(gpu, Some(job));
    }

    /// Takes a running tenant off its GPU (it finished or is evicted); the
    /// GPU is freed when it was the last.
    pub(crate) fn leave_gpu(&mut self, job: JobId) {
        let i = job as usize;
        let sh = self.share.as_mut().expect("sharing");
        let gpu = std::mem::replace(&mut sh.gpu_of[i], u32::MAX);
        let planned = sh.planned[i] as f64;
        sh.metrics.change(false, 1000, 0);
        if self.cfg.record_segments {
            let (start, node, milli) = (self.st.last_start[i], self.nodes.gpu_node[gpu as usize], self.held(job));
            let seg = crate::metrics::Segment { job, start, end: self.now, node, milli, shared_gpu: Some(gpu) };
            self.segments.push(seg);
        }
        let (mem, online) = (self.mem_of(job), self.online(job).then(|| self.stated_util(job)));
        if self.gpus_mut().leave(gpu, job, mem, planned, online) {
            self.nodes.release_shared(HOLDER, 1000, gpu, 0);
            self.share.as_mut().expect("sharing").metrics.change(false, 0, 1000);
        }
        self.rerate_gpu(gpu, None);
    }

    /// Whether `job` holds a GPU as a tenant.
    pub(crate) fn is_tenant(&self, job: JobId) -> bool {
        self.share.as_ref().is_some_and(|s| s.gpu_of[job as usize] != u32::MAX)
    }

    /// Re-derives the rates of `gpu`'s tenants in the policy's mode.
    pub(crate) fn rerate_gpu(&mut self, gpu: u32, new: Option<JobId>) {
        let (mode, tenants, share) = {
            let g = self.gpus();
            (self.share.as_ref().expect("sharing").mode, g.tenants[gpu as usize].clone(), g.share[gpu as usize])
        };
        let slow = self.tenant_slowdowns(mode, &tenants, share);
        self.apply_rates(gpu, &tenants, &slow, new);
    }

    /// Evicts a running job: it keeps its progress, pays the preemption
    /// overhead and waits again (MuxFlow's offline jobs yielding an online GPU).
    pub(crate) fn evict(&mut self, job: JobId) -> Result<(), Refused> {
        if self.st.phase[job as usize] != Phase::Running {
            return Err(Refused::NotWaiting);
        }
        self.preempt(job);
        let sh = self.share.as_mut().expect("sharing");
        sh.evictions += 1;
        sh.capacity_grew = true;
        Ok(())
    }

    /// Sets the SM share `gpu` leaves to its offline tenants (0-1).
    pub(crate) fn set_share(&mut self, gpu: u32, share: f64) {
        let share = share.clamp(0.0, 1.0);
        if self.gpus().tenants[gpu as usize].is_empty() || self.gpus().share[gpu as usize] == share {
            return;
        }
        self.gpus_mut().set_share(gpu, share);
        self.rerate_gpu(gpu, None);
    }

    /// A job joins the wait of the sharing policy (arrival or eviction);
    /// during a round (the policy is out running it) the policy hears of it
    /// when the round returns.
    pub(crate) fn share_wait(&mut self, job: JobId) {
        let usage = self.usage(job);
        let (now, j) = (self.now, &self.w.jobs[job as usize]);
        let sh = self.share.as_mut().expect("sharing");
        sh.waiting += 1;
        match sh.policy.as_mut() {
            Some(p) => p.arrive(j, &usage, now),
            None => sh.rejoined.push(job),
        }
    }

    /// Tells the sharing policy a job finished.
    pub(crate) fn share_finished(&mut self, job: JobId) {
        let usage = self.usage(job);
        let (now, j) = (self.now, &self.w.jobs[job as usize]);
        let sh = self.share.as_mut().expect("sharing");
        sh.capacity_grew = true;
        if let Some(p) = sh.policy.as_mut() {
            p.finish(j, &usage, now);
        }
    }

    /// The online load moved to its next step: online GPUs' rates change.
    fn profile_step(&mut self) {
        let Some(profile) = &self.cfg.sharing.profile else { return };
        let due = self.share.as_ref().and_then(|s| s.profile_next).is_none_or(|t| t <= self.now);
        let sh = self.share.as_mut().expect("sharing");
        if !sh.has_online || !due {
            return;
        }
        sh.profile_next = Some(profile.next_change(self.now));
        sh.capacity_grew = true;
        sh.load_stepped = true;
        let online: Vec<u32> = self.gpus().with_online.iter().copied().collect();
        for gpu in online {
            self.rerate_gpu(gpu, None);
        }
        let mut whole: Vec<JobId> = self.share.as_ref().expect("sharing").job_busy.keys().copied().collect();
        whole.retain(|&j| self.online(j));
        whole.sort_unstable();
        for job in whole {
            self.note_whole(job, false);
            self.note_whole(job, true);
        }
    }

    /// The pass of a sharing policy: the online load's step if one is due,
    /// then the policy's round.
    ///
    /// Jobs evicted during a round wait again: the policy hears of them
    /// after the round and runs another at once (they may start elsewhere
    /// now), up to [`REROUNDS`] times.
    pub(crate) fn share_pass(&mut self) {
        self.profile_step();
        for _ in 0..=REROUNDS {
            let mut policy = self.share.as_mut().and_then(|s| s.policy.take()).expect("a sharing policy runs");
            policy.round(&mut Round::new(self));
            let sh = self.share.as_mut().expect("sharing");
            sh.capacity_grew = false;
            sh.load_stepped = false;
            let rejoined = std::mem::take(&mut sh.rejoined);
            for &job in &rejoined {
                policy.arrive(&self.w.jobs[job as usize], &self.usage(job), self.now);
            }
            self.share.as_mut().expect("sharing").policy = Some(policy);
            if rejoined.is_empty() {
                break;
            }
        }
    }

    /// The next time a sharing run needs a pass without an event: the
    /// policy's wake-up or the online load's next step.
    pub(crate) fn share_wake(&self) -> Option<Millis> {
        let sh = self.share.as_ref()?;
        let policy = sh.policy.as_ref()?.wake_at(self.now);
        let profile = sh.profile_next.filter(|_| sh.has_online && self.running_online());
        match (policy, profile) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn running_online(&self) -> bool {
        !self.gpus().with_online.is_empty()
            || self.share.as_ref().is_some_and(|s| s.job_busy.keys().any(|&j| self.online(j)))
    }
}
