//! `time-sharing`: Gandiva's (OSDI'18) time slicing as the GPU-sharing
//! papers' baseline. Jobs go in submission order (online services first)
//! to a free GPU; a job of at most one GPU that finds none shares the
//! occupied GPU with the fewest jobs (up to `max_tenants`, memory
//! permitting), and the jobs on a GPU take equal time slices: with `n` of
//! them, each runs `n` times slower, online services too.

use crate::sharing::model::ShareMode;
use crate::sharing::policy::GpuView;
use crate::sharing::waitlist::Simple;

pub(crate) fn new() -> Simple {
    Simple::new(ShareMode::TimeSlice, fewest_tenants, true)
}

/// Fewest tenants first (ties: lowest GPU id).
fn fewest_tenants(g: &GpuView) -> Option<i64> {
    Some(g.tenants as i64)
}
