//! `time-sharing`: Gandiva's (OSDI'18) time slicing as the GPU-sharing
//! papers' baseline. Jobs go in submission order (online services first)
//! to a free GPU; a job of at most one GPU that finds none shares the
//! occupied GPU with the fewest jobs (up to `max_tenants`, memory
//! permitting), and the jobs on a GPU take equal time slices: with `n` of
//! them, each runs `n` times slower, online services too.

use crate::config::SimConfig;
use crate::job::Job;
use crate::sharing::model::ShareMode;
use crate::sharing::policy::{GpuView, Round, SharingPolicy};
use crate::sharing::waitlist::{start_on_candidate, Shape, WaitList, PROBES};
use crate::time::Millis;
use crate::usage::Usage;

pub(crate) struct TimeSharing {
    wait: WaitList,
}

impl TimeSharing {
    pub(crate) fn new(_cfg: &SimConfig) -> TimeSharing {
        TimeSharing { wait: WaitList::default() }
    }
}

/// Fewest tenants first (ties: lowest GPU id).
fn fewest_tenants(g: &GpuView) -> Option<i64> {
    Some(g.tenants as i64)
}

impl SharingPolicy for TimeSharing {
    fn mode(&self) -> ShareMode {
        ShareMode::TimeSlice
    }

    fn gpu_key(&self) -> fn(&GpuView) -> Option<i64> {
        fewest_tenants
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
