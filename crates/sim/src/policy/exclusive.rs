//! `exclusive`: the no-sharing baseline of the GPU-sharing papers (Horus'
//! and MuxFlow's "dedicated GPUs"). Every job holds whole GPUs alone (a
//! fractional job a whole GPU), in submission order, online services
//! first; a job that finds no free GPU waits.

use crate::config::SimConfig;
use crate::job::Job;
use crate::sharing::model::ShareMode;
use crate::sharing::policy::{GpuView, Round, SharingPolicy};
use crate::sharing::waitlist::{Shape, WaitList};
use crate::time::Millis;
use crate::usage::Usage;

pub(crate) struct Exclusive {
    wait: WaitList,
}

impl Exclusive {
    pub(crate) fn new(_cfg: &SimConfig) -> Exclusive {
        Exclusive { wait: WaitList::default() }
    }
}

/// No GPU is ever offered for co-location.
fn never(_: &GpuView) -> Option<i64> {
    None
}

impl SharingPolicy for Exclusive {
    fn mode(&self) -> ShareMode {
        ShareMode::Concurrent
    }

    fn gpu_key(&self) -> fn(&GpuView) -> Option<i64> {
        never
    }

    fn arrive(&mut self, job: &Job, usage: &Usage, _now: Millis) {
        self.wait.arrive(job, usage);
    }

    fn finish(&mut self, _job: &Job, _usage: &Usage, _now: Millis) {}

    fn round(&mut self, r: &mut Round) {
        let stated = |r: &Round, j| r.util_now(j) * 100.0;
        self.wait.place_online(r, stated);
        self.wait.walk(r, |r, j| Shape::of(r, j, 0.0), |r, j| r.start_alone(j, stated(r, j)).is_ok());
    }
}
