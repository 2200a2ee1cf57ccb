//! `priority-time-sharing`: AntMan's (OSDI'20) and PAI's priority time
//! sharing, MuxFlow's second baseline. Online services are placed first
//! and run as if alone; offline jobs take a free GPU, else join the GPU of
//! the least loaded online service (up to `max_tenants`, memory
//! permitting) and run in the time it leaves idle (`ShareMode::Priority`).
//! Offline jobs never share a GPU without an online service.

use crate::config::SimConfig;
use crate::job::Job;
use crate::sharing::model::ShareMode;
use crate::sharing::policy::{GpuView, Round, SharingPolicy};
use crate::sharing::waitlist::{start_on_candidate, Shape, WaitList, PROBES};
use crate::time::Millis;
use crate::usage::Usage;

pub(crate) struct PriorityTimeSharing {
    wait: WaitList,
}

impl PriorityTimeSharing {
    pub(crate) fn new(_cfg: &SimConfig) -> PriorityTimeSharing {
        PriorityTimeSharing { wait: WaitList::default() }
    }
}

/// GPUs with an online service, least stated online load first.
fn least_online_load(g: &GpuView) -> Option<i64> {
    (g.online > 0).then(|| (g.online_util_pct * 1000.0).round() as i64)
}

impl SharingPolicy for PriorityTimeSharing {
    fn mode(&self) -> ShareMode {
        ShareMode::Priority
    }

    fn gpu_key(&self) -> fn(&GpuView) -> Option<i64> {
        least_online_load
    }

    fn arrive(&mut self, job: &Job, usage: &Usage, _now: Millis) {
        self.wait.arrive(job, usage);
    }

    fn finish(&mut self, _job: &Job, _usage: &Usage, _now: Millis) {}

    fn round(&mut self, r: &mut Round) {
        let stated = |r: &Round, j| r.util_now(j) * 100.0;
        self.wait.place_online(r, stated);
        self.wait.walk(
            r,
            |r, j| Shape::of(r, j, 0.0),
            |r, j| {
                let p = stated(r, j);
                r.start_alone(j, p).is_ok() || start_on_candidate(r, j, p, PROBES, |_, _| true)
            },
        );
    }
}
