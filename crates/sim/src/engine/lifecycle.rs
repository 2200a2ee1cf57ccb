//! A job's life: arrival, queueing, start, progress (and its rate while a GPU
//! is shared), preemption and completion. Progress is settled lazily: a job's
//! remaining service is brought up to date only when its rate changes or the
//! job stops, and its completion event is rescheduled then (stale events are
//! recognised by a version number).

use super::state::{Kind, Phase};
use super::Engine;
use crate::engine::nodes::SharedSpot;
use crate::job::{Demand, JobId};
use crate::placement::search::Accept;
use crate::placement::{self, Spot};
use crate::time::{Millis, MAX_CLOCK};

impl Engine<'_> {
    fn demand(&self, job: JobId) -> Demand {
        self.w.jobs[job as usize].demand().expect("admitted jobs ask for GPUs")
    }

    fn cpu(&self, job: JobId) -> u32 {
        self.w.jobs[job as usize].cpu_milli.unwrap_or(0)
    }

    pub(crate) fn arrive(&mut self, job: JobId) {
        let j = &self.w.jobs[job as usize];
        let i = job as usize;
        self.st.phase[i] = Phase::Waiting;
        self.st.progress[i].remaining = j.duration as f64;
        self.st.progress[i].queued_at = j.submit;
        if self.cfg.sharing_policy() {
            self.share_wait(job);
            return;
        }
        self.st.class[i] = self.queue.class_id((self.demand(job), j.gpu_type));
        self.st.entity[i] = match (self.fair, self.cfg.fair_by) {
            (false, _) => 0,
            (true, crate::config::ShareBy::Vc) => j.vc,
            (true, crate::config::ShareBy::User) => j.user,
        };
        let key = self.policy.key(j, &self.st.progress[i], self.now);
        self.enqueue(job, key);
    }

    fn entry(&self, job: JobId) -> super::queue::Entry {
        (self.st.key[job as usize], self.w.jobs[job as usize].submit, job)
    }

    pub(crate) fn enqueue(&mut self, job: JobId, key: crate::policy::Key) {
        let i = job as usize;
        self.st.key[i] = key;
        self.queue.insert(self.st.entity[i], self.st.class[i], self.entry(job));
        if let Some(at) = self.policy.waiting_change(&self.w.jobs[i], &self.st.progress[i]) {
            self.events.push(at.max(self.now), Kind::Rekey, job, self.st.version[i]);
        }
    }

    pub(crate) fn dequeue(&mut self, job: JobId) {
        let i = job as usize;
        self.queue.remove(self.st.entity[i], self.st.class[i], self.entry(job));
    }

    pub(crate) fn rekey(&mut self, job: JobId) {
        self.dequeue(job);
        let i = job as usize;
        self.st.version[i] += 1;
        let key = self.policy.rekey(&self.w.jobs[i], &self.st.progress[i], self.now);
        self.enqueue(job, key);
    }

    /// Starts `job` if a spot accepted by `extra` exists now.
    pub(crate) fn try_start(&mut self, job: JobId, extra: Accept) -> bool {
        let (demand, ty, cpu) = (self.demand(job), self.w.jobs[job as usize].gpu_type, self.cpu(job));
        let Some(spot) = placement::find(self.rule.as_mut(), &self.nodes, demand, ty, cpu, extra) else {
            return false;
        };
        self.dequeue(job);
        self.start_on(job, spot);
        true
    }

    pub(crate) fn start_on(&mut self, job: JobId, spot: Spot) {
        let i = job as usize;
        let spot = self.allocate(job, spot);
        self.begin_run(job);
        self.note_nodes(job, &spot);
        let shared = match spot {
            Spot::Shared(SharedSpot::Gpu(g)) => Some(g),
            _ => None,
        };
        self.st.spot[i] = Some(spot);
        // After the spot is set: `held` counts a multi-node job's whole nodes,
        // as it does when the job stops.
        self.change_alloc(job, true);
        self.st.slow[i] = 1.0;
        match shared {
            Some(gpu) => {
                self.note_fractional(gpu, true);
                self.reset_rates(gpu, Some(job));
            }
            None => {
                self.note_whole(job, true);
                self.schedule_end(job);
            }
        }
        self.rank_insert(job);
    }

    /// A waiting job starts running now (its resources already taken).
    pub(crate) fn begin_run(&mut self, job: JobId) {
        let (i, now) = (job as usize, self.now);
        self.st.phase[i] = Phase::Running;
        self.st.waited[i] += now - self.st.progress[i].queued_at;
        self.st.first_start[i].get_or_insert(now);
        self.st.last_start[i] = now;
        self.st.last_update[i] = now;
        self.st.version[i] += 1;
        self.add_running(job);
        self.policy.on_start(&self.w.jobs[i], now);
    }

    /// Takes the resources of `spot`; a fractional job's spot becomes its GPU.
    fn allocate(&mut self, job: JobId, spot: Spot) -> Spot {
        let cpu = self.cpu(job);
        match spot {
            Spot::Node { node, gpus } => self.nodes.alloc_whole(node, gpus, cpu),
            Spot::Nodes(ref list) => list.iter().for_each(|&n| self.nodes.alloc_whole(n, self.nodes.gpus_of(n), 0)),
            Spot::Shared(s) => {
                let Demand::Shared(m) = self.demand(job) else { unreachable!("shared spot for a whole job") };
                return Spot::Shared(SharedSpot::Gpu(self.nodes.alloc_shared(job, m, s, cpu)));
            }
        }
        spot
    }

    /// Records the run that ends now, one segment per node.
    fn close_segment(&mut self, job: JobId) {
        if !self.cfg.record_segments {
            return;
        }
        let start = self.st.last_start[job as usize];
        let seg =
            |node, milli, shared_gpu| crate::metrics::Segment { job, start, end: self.now, node, milli, shared_gpu };
        let segs: Vec<crate::metrics::Segment> = match self.st.spot[job as usize].as_ref().expect("running") {
            Spot::Node { node, gpus } => vec![seg(*node, *gpus as u64 * 1000, None)],
            Spot::Nodes(list) => list.iter().map(|&n| seg(n, self.nodes.gpus_of(n) as u64 * 1000, None)).collect(),
            Spot::Shared(SharedSpot::Gpu(g)) => {
                vec![seg(self.nodes.gpu_node[*g as usize], self.demand(job).milli(), Some(*g))]
            }
            Spot::Shared(SharedSpot::EmptyOn(_)) => unreachable!("allocation resolves the GPU"),
        };
        self.segments.extend(segs);
    }

    fn release(&mut self, job: JobId) -> Option<u32> {
        if self.is_tenant(job) {
            self.leave_gpu(job);
            return None;
        }
        self.close_segment(job);
        let cpu = self.cpu(job);
        match self.st.spot[job as usize].as_ref().expect("a running job has a spot") {
            Spot::Shared(_) => {}
            _ => self.note_whole(job, false),
        }
        match self.st.spot[job as usize].take().expect("a running job has a spot") {
            Spot::Node { node, gpus } => self.nodes.release_whole(node, gpus, cpu),
            Spot::Nodes(list) => list.iter().for_each(|&n| self.nodes.release_whole(n, self.nodes.gpus_of(n), 0)),
            Spot::Shared(SharedSpot::Gpu(gpu)) => {
                let Demand::Shared(m) = self.demand(job) else { unreachable!("shared spot for a whole job") };
                self.nodes.release_shared(job, m, gpu, cpu);
                self.note_fractional(gpu, false);
                return Some(gpu);
            }
            Spot::Shared(SharedSpot::EmptyOn(_)) => unreachable!("allocation resolves the GPU"),
        }
        None
    }

    fn note_nodes(&mut self, job: JobId, spot: &Spot) {
        let i = job as usize;
        let (first, count) = match spot {
            Spot::Node { node, .. } => (*node, 1),
            Spot::Nodes(list) => (list[0], list.len() as u32),
            Spot::Shared(SharedSpot::Gpu(g)) => (self.nodes.gpu_node[*g as usize], 1),
            Spot::Shared(SharedSpot::EmptyOn(n)) => (*n, 1),
        };
        self.st.first_node[i] = Some(first);
        self.st.node_count[i] = count;
    }

    /// Milli-GPUs `job` holds while running (whole nodes count in full).
    pub(crate) fn held(&self, job: JobId) -> u64 {
        match &self.st.spot[job as usize] {
            Some(Spot::Nodes(list)) => list.iter().map(|&n| self.nodes.gpus_of(n) as u64 * 1000).sum(),
            _ => self.demand(job).milli(),
        }
    }

    fn change_alloc(&mut self, job: JobId, add: bool) {
        if !self.fair {
            return;
        }
        let (e, held) = (self.st.entity[job as usize] as usize, self.held(job));
        let a = &mut self.entity_alloc[e];
        *a = if add { *a + held } else { *a - held };
        self.queue.set_value(e as u32, self.entity_alloc[e]);
    }

    /// Brings a running job's progress up to `now`.
    pub(crate) fn settle(&mut self, job: JobId) {
        let i = job as usize;
        let elapsed = self.now - self.st.last_update[i];
        if elapsed <= 0 {
            return;
        }
        self.settle_share(job, elapsed);
        let slow = self.progress_slow(job);
        let milli = self.demand(job).milli() as i64;
        let p = &mut self.st.progress[i];
        p.remaining = (p.remaining - elapsed as f64 / slow).max(0.0);
        // GPU-milliseconds in thousandths of a GPU: a job of a million GPUs
        // for MAX_MILLIS would overflow, so the count stops at i64::MAX.
        p.attained = p.attained.saturating_add(elapsed.saturating_mul(milli));
        p.executed += elapsed;
        self.st.last_update[i] = self.now;
    }

    /// The slowdown of a job's progress: its slowdown, but 1 for an online
    /// service under a sharing policy (it serves for its duration; the
    /// slowdown is its latency's, counted in the sharing metrics).
    fn progress_slow(&self, job: JobId) -> f64 {
        if self.share.is_some() && self.fixed_lifetime(job) {
            1.0
        } else {
            self.st.slow[job as usize]
        }
    }

    pub(crate) fn schedule_end(&mut self, job: JobId) {
        let i = job as usize;
        let left = (self.st.progress[i].remaining * self.progress_slow(job)).ceil();
        let end = match self.st.last_update[i].checked_add(left as Millis).filter(|e| *e <= MAX_CLOCK) {
            Some(end) if left <= MAX_CLOCK as f64 => end,
            _ => {
                self.clock_overflow(job, left);
                MAX_CLOCK
            }
        };
        self.set_end(job, Some(end));
        self.st.version[i] += 1;
        self.st.end_at[i] = end;
        self.events.push(end, Kind::End, job, self.st.version[i]);
    }

    /// Records that `job`'s completion, `left` ms after its last update,
    /// lies past the clock's limit; the run stops with this error.
    fn clock_overflow(&mut self, job: JobId, left: f64) {
        let i = job as usize;
        let p = &self.st.progress[i];
        let what = format!(
            "its completion would come {left:.3e} ms after {} ms, past the clock's limit of {MAX_CLOCK} ms \
             (about 146 million years): {} ms of service left after {} preemptions, at a sharing slowdown of {:e} \
             (a smaller sharing slowdown or preemption overhead keeps it within the clock)",
            self.st.last_update[i], p.remaining, p.preemptions, self.cfg.share_slowdown
        );
        self.overflow.get_or_insert(crate::error::SimError::BadJob { job, what });
    }

    /// Re-derives the rate of every job on `gpu` after its tenants changed
    /// (`new` just arrived there and needs its first completion event):
    /// the constant `share_slowdown` while two or more share it, or the
    /// utilization model.
    fn reset_rates(&mut self, gpu: u32, new: Option<JobId>) {
        if self.share.is_some() {
            self.rerate_fractional(gpu, new);
            return;
        }
        let tenants = self.nodes.gpu_jobs[gpu as usize].clone();
        let shared = tenants.len() > 1 && self.cfg.share_slowdown > 1.0;
        let slow = if shared { self.cfg.share_slowdown } else { 1.0 };
        for job in tenants {
            if self.st.slow[job as usize] != slow || new == Some(job) {
                self.settle(job);
                self.st.slow[job as usize] = slow;
                self.schedule_end(job);
            }
        }
    }

    pub(crate) fn finish(&mut self, job: JobId) {
        let i = job as usize;
        self.set_end(job, None);
        self.rank_remove(job);
        self.settle(job);
        self.change_alloc(job, false);
        let gpu = self.release(job);
        self.st.phase[i] = Phase::Done;
        self.st.end[i] = Some(self.now);
        self.st.version[i] += 1;
        self.remove_running(job);
        self.policy.on_finish(&self.w.jobs[i], self.now);
        if self.cfg.sharing_policy() {
            self.share_finished(job);
        }
        if let Some(gpu) = gpu {
            self.reset_rates(gpu, None);
        }
    }

    /// Suspends a running job: it keeps its remaining service, pays the
    /// preemption overhead and waits again.
    pub(crate) fn preempt(&mut self, job: JobId) {
        let i = job as usize;
        self.set_end(job, None);
        self.rank_remove(job);
        self.settle(job);
        self.change_alloc(job, false);
        let gpu = self.release(job);
        self.remove_running(job);
        self.st.phase[i] = Phase::Waiting;
        self.st.version[i] += 1;
        let gpus = match self.demand(job) {
            Demand::Shared(_) => 1,
            Demand::Whole(g) => g,
        };
        let p = &mut self.st.progress[i];
        p.remaining += self.cfg.preempt_overhead.for_gpus(gpus) as f64;
        p.preemptions += 1;
        p.queued_at = self.now;
        if self.cfg.sharing_policy() {
            self.share_wait(job);
        } else {
            let key = self.policy.key(&self.w.jobs[i], &self.st.progress[i], self.now);
            self.enqueue(job, key);
        }
        if let Some(gpu) = gpu {
            self.reset_rates(gpu, None);
        }
    }
}
