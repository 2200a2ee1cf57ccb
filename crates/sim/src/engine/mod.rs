//! The discrete-event loop. Time jumps from event to event (completions,
//! arrivals, policy wake-ups); at each distinct time the engine processes, in
//! this order, every completion, every arrival (by submission time then job
//! id), every re-key, and then one scheduling pass. A job submitted at `t`
//! can therefore start at `t`, on GPUs freed at `t`, exactly as in the PAI
//! simulator's and Helios' one-second ticks, without simulating idle seconds.

mod backfill;
#[cfg(test)]
mod differential;
mod evict;
mod lifecycle;
pub(crate) mod nodes;
mod pass;
mod preempt;
pub(crate) mod queue;
mod ranking;
#[cfg(test)]
pub(crate) mod reference;
mod results;
pub(crate) mod share;
pub(crate) mod state;
mod sumlist;

use crate::cluster::Cluster;
use crate::config::{OnUnplaceable, ShareBy, SimConfig};
use crate::error::{SimError, Unplaceable};
use crate::job::{JobId, Workload};
use crate::metrics::series::Series;
use crate::placement::{self, Rule};
use crate::policy::{self, PolicyImpl};
use crate::time::Millis;
use nodes::Nodes;
use queue::WaitQueue;
use ranking::Ranking;
use state::{Events, JobState, Kind, Phase};

/// What `Cluster::check_job` looks at: milli-GPUs, milli-cores, GPU type.
type DemandKind = (u32, Option<u32>, Option<u16>);

pub(crate) struct Engine<'a> {
    pub(crate) w: &'a Workload,
    pub(crate) cfg: &'a SimConfig,
    pub(crate) nodes: Nodes,
    pub(crate) rule: Box<dyn Rule>,
    pub(crate) policy: Box<dyn PolicyImpl>,
    pub(crate) queue: WaitQueue,
    pub(crate) ranking: Ranking,
    pub(crate) st: JobState,
    pub(crate) events: Events,
    arrivals: Vec<JobId>,
    next_arrival: usize,
    pub(crate) running: Vec<JobId>,
    running_pos: Vec<u32>,
    pub(crate) entity_alloc: Vec<u64>,
    pub(crate) fair: bool,
    pub(crate) now: Millis,
    pub(crate) series: Series,
    /// Allocated milli-GPU-milliseconds so far, and when it was last brought up to date.
    pub(crate) gpu_area: f64,
    area_at: Option<Millis>,
    pub(crate) first_event: Option<Millis>,
    pending_pass: Option<Millis>,
    pub(crate) unplaceable: Vec<(JobId, Unplaceable)>,
    pub(crate) event_count: u64,
    pub(crate) segments: Vec<crate::metrics::Segment>,
    /// EASY: the head job, its reservation time and reserved nodes.
    pub(crate) reservation_cache: Option<(JobId, Millis, Vec<u32>)>,
    /// EASY: running jobs by scheduled completion.
    pub(crate) ends: std::collections::BTreeSet<(Millis, JobId)>,
    track_ends: bool,
    /// GPU sharing (sharing policies, or the utilization interference model).
    pub(crate) share: Option<Box<share::Share>>,
    /// A computed time past the clock's limit, reported once the step ends.
    pub(crate) overflow: Option<SimError>,
}

impl<'a> Engine<'a> {
    pub(crate) fn new(w: &'a Workload, cluster: &Cluster, cfg: &'a SimConfig) -> Result<Engine<'a>, SimError> {
        Engine::with_policies(w, cluster, cfg, None, None)
    }

    /// An engine whose ordering policy (`order`) or sharing policy (`full`)
    /// is the caller's (`crate::custom`) where given, else `cfg.policy`'s.
    pub(crate) fn with_policies(
        w: &'a Workload,
        cluster: &Cluster,
        cfg: &'a SimConfig,
        order: Option<Box<dyn PolicyImpl>>,
        full: Option<share::SharingBox>,
    ) -> Result<Engine<'a>, SimError> {
        let fair = cfg.policy == crate::config::Policy::Fair;
        let entities = match (fair, cfg.fair_by) {
            (false, _) => 1,
            (true, ShareBy::Vc) => w.n_vcs,
            (true, ShareBy::User) => w.n_users,
        };
        let policy = order.unwrap_or_else(|| policy::build(cfg, w));
        let mut engine = Engine {
            w,
            cfg,
            nodes: Nodes::new(cluster),
            rule: placement::rule(cfg.placement, cfg.seed),
            queue: WaitQueue::new(entities),
            ranking: Ranking::new(policy.as_ref(), cfg, w.jobs.len()),
            policy,
            st: JobState::new(w.jobs.len()),
            events: Events::default(),
            arrivals: Vec::new(),
            next_arrival: 0,
            running: Vec::new(),
            running_pos: vec![u32::MAX; w.jobs.len()],
            entity_alloc: vec![0; entities.max(1) as usize],
            fair,
            now: 0,
            series: Series::default(),
            gpu_area: 0.0,
            area_at: None,
            first_event: None,
            pending_pass: None,
            unplaceable: Vec::new(),
            event_count: 0,
            segments: Vec::new(),
            reservation_cache: None,
            ends: std::collections::BTreeSet::new(),
            track_ends: cfg.discipline == crate::config::Discipline::Easy,
            share: None,
            overflow: None,
        };
        engine.share = engine.sharing_state(cluster, full);
        engine.admit(cluster)?;
        let last_submit = engine.arrivals.last().map_or(0, |&j| w.jobs[j as usize].submit);
        if let Some(sh) = engine.share.as_mut() {
            sh.metrics.last_submit = last_submit;
        }
        Ok(engine)
    }

    /// Checks every job against the cluster and lines up the placeable ones.
    ///
    /// `check_job` scans every node, so its verdict is kept per distinct
    /// (GPU, CPU, GPU type) demand: admission is O(jobs + kinds x nodes), not
    /// O(jobs x nodes) (a million PAI jobs on 1,814 nodes took seconds).
    fn admit(&mut self, cluster: &Cluster) -> Result<(), SimError> {
        let mut verdicts: std::collections::HashMap<DemandKind, Result<(), Unplaceable>> = Default::default();
        for job in &self.w.jobs {
            let key = (job.gpu_milli, job.cpu_milli, job.gpu_type);
            match verdicts.entry(key).or_insert_with(|| cluster.check_job(job)).clone() {
                Ok(()) => self.arrivals.push(job.id),
                Err(reason) if self.cfg.on_unplaceable == OnUnplaceable::Skip => {
                    self.st.phase[job.id as usize] = Phase::Unplaceable;
                    self.unplaceable.push((job.id, reason));
                }
                Err(reason) => return Err(SimError::Unplaceable { job: job.id, reason }),
            }
        }
        let jobs = &self.w.jobs;
        self.arrivals.sort_by_key(|&j| (jobs[j as usize].submit, j));
        Ok(())
    }

    fn next_time(&self) -> Option<Millis> {
        let arrival = self.arrivals.get(self.next_arrival).map(|&j| self.w.jobs[j as usize].submit);
        match (arrival, self.events.peek_time()) {
            (Some(a), Some(e)) => Some(a.min(e)),
            (a, e) => a.or(e),
        }
    }

    /// Runs the replay to the end (or to `until`). Errors: a completion
    /// time past [`MAX_CLOCK`](crate::time::MAX_CLOCK).
    pub(crate) fn run(&mut self) -> Result<(), SimError> {
        while let Some(t) = self.next_time() {
            if self.cfg.until.is_some_and(|u| t > u) || self.share_idle() {
                break;
            }
            // Only stale events can be left (a wake-up for a key change of a
            // job that has since finished, an end moved by a rate change):
            // stepping to them would stretch the run past its last real event
            // and dilute the utilisation (1 GPU for 100 s under las read 0.028).
            if self.all_done() {
                break;
            }
            self.advance_to(t);
            self.step();
            if let Some(e) = self.overflow.take() {
                return Err(e);
            }
            if let Some(why) = self.policy_stopped() {
                return Err(SimError::PolicyStopped(why));
            }
        }
        if let Some(u) = self.cfg.until {
            self.advance_to(u.max(self.now));
        }
        Ok(())
    }

    /// Why the policy (a caller's, `crate::custom`) cannot go on, if it cannot.
    fn policy_stopped(&self) -> Option<String> {
        let sharing = self.share.as_ref().and_then(|s| s.policy.as_ref()).and_then(|p| p.stopped());
        sharing.or_else(|| self.policy.stopped())
    }

    /// What the engine knows of `job`'s service at `now` (a running job's
    /// progress brought up to date as `lifecycle::settle` would, without
    /// settling it).
    pub(crate) fn progress_now(&self, job: JobId) -> policy::Progress {
        let i = job as usize;
        let mut p = self.st.progress[i];
        if self.st.phase[i] == Phase::Running {
            let elapsed = (self.now - self.st.last_update[i]).max(0);
            let milli = self.w.jobs[i].demand().map_or(0, |d| d.milli() as i64);
            p.remaining = (p.remaining - elapsed as f64 / self.st.slow[i]).max(0.0);
            p.attained = p.attained.saturating_add(elapsed.saturating_mul(milli));
            p.executed += elapsed;
        }
        p
    }

    /// No job left to arrive, wait or run: nothing can happen any more.
    fn all_done(&self) -> bool {
        self.next_arrival == self.arrivals.len() && self.queue.len() == 0 && self.running.is_empty()
    }

    /// The sharing state `cfg` asks for: GPU tenancy and the policy for a
    /// sharing policy, rates and metrics for the utilization model.
    fn sharing_state(&self, cluster: &Cluster, custom: Option<share::SharingBox>) -> Option<Box<share::Share>> {
        if !share::Share::wanted(self.cfg) {
            return None;
        }
        let gpus = self.nodes.gpu_node.len();
        let policy = custom.or_else(|| crate::sharing::build(self.cfg, self.w));
        let mut sh = share::Share::new(self.w, self.cfg, gpus, policy);
        if let Some(p) = &sh.policy {
            let types: Vec<u16> = self.nodes.gpu_node.iter().map(|&n| cluster.nodes()[n as usize].gpu_type).collect();
            let mem = types.iter().map(|&t| self.cfg.sharing.gpu_mem(t)).collect();
            sh.gpus = Some(share::gpus::GpuState::new(self.nodes.gpu_node.clone(), types, mem, p.gpu_key()));
        }
        Some(Box::new(sh))
    }

    /// Whether a sharing run has nothing left to do: no job running or
    /// waiting and none to arrive (a policy's wake-up left in the event
    /// heap must not stretch the run's window).
    fn share_idle(&self) -> bool {
        self.cfg.sharing_policy()
            && self.running.is_empty()
            && self.next_arrival == self.arrivals.len()
            && self.share.as_ref().is_some_and(|s| s.waiting == 0)
    }

    /// Moves the clock, integrating allocated GPUs over the elapsed time.
    fn advance_to(&mut self, t: Millis) {
        if let Some(at) = self.area_at {
            self.gpu_area += self.nodes.allocated_milli as f64 * (t - at) as f64;
            if let Some(sh) = self.share.as_mut() {
                let oversold = sh.gpus.as_ref().map_or(0, |g| g.oversold);
                sh.metrics.integrate(at, t, oversold);
            }
        }
        self.area_at = Some(t);
        self.first_event.get_or_insert(t);
        self.now = t;
    }

    /// Everything that happens at `self.now`.
    fn step(&mut self) {
        let t = self.now;
        while let Some((_, job, v)) = self.events.pop_at(t, Kind::End) {
            self.event_count += 1;
            if v == self.st.version[job as usize] && self.st.phase[job as usize] == Phase::Running {
                self.finish(job);
            }
        }
        while let Some(&j) = self.arrivals.get(self.next_arrival) {
            if self.w.jobs[j as usize].submit != t {
                break;
            }
            self.next_arrival += 1;
            self.event_count += 1;
            self.arrive(j);
        }
        while let Some((kind, job, v)) = self.events.pop_at(t, Kind::Pass) {
            self.event_count += 1;
            if kind == Kind::Rekey
                && v == self.st.version[job as usize]
                && self.st.phase[job as usize] == Phase::Waiting
            {
                self.rekey(job);
            }
        }
        self.pass();
        self.schedule_wakeup();
        self.record();
    }

    /// Asks for a pass at the policy's next wake-up time, once.
    pub(crate) fn request_pass(&mut self, at: Millis) {
        if self.pending_pass.is_none_or(|p| p <= self.now || at < p) {
            self.pending_pass = Some(at);
            self.events.push(at, Kind::Pass, 0, 0);
        }
    }

    fn schedule_wakeup(&mut self) {
        let wake = if self.cfg.sharing_policy() { self.share_wake() } else { self.policy.wake_at() };
        if let Some(at) = wake {
            self.request_pass(at.max(self.now + 1));
        }
    }

    fn record(&mut self) {
        if self.cfg.record_series {
            let waiting = self.share.as_ref().map_or(0, |s| s.waiting);
            let (q, r) = ((self.queue.len() + waiting) as u32, self.running.len() as u32);
            self.series.push(self.now, self.nodes.allocated_milli, q, r);
            if let Some(sh) = self.share.as_mut() {
                sh.metrics.record(self.now);
            }
        }
    }

    pub(crate) fn add_running(&mut self, job: JobId) {
        self.running_pos[job as usize] = self.running.len() as u32;
        self.running.push(job);
    }

    /// Keeps the completion order of running jobs (EASY only).
    pub(crate) fn set_end(&mut self, job: JobId, end: Option<Millis>) {
        if !self.track_ends {
            return;
        }
        if self.st.phase[job as usize] == Phase::Running {
            self.ends.remove(&(self.st.end_at[job as usize], job));
        }
        if let Some(end) = end {
            self.ends.insert((end, job));
        }
    }

    pub(crate) fn remove_running(&mut self, job: JobId) {
        let p = self.running_pos[job as usize] as usize;
        self.running.swap_remove(p);
        if let Some(&moved) = self.running.get(p) {
            self.running_pos[moved as usize] = p as u32;
        }
        self.running_pos[job as usize] = u32::MAX;
    }
}
