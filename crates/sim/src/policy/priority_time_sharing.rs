//! `priority-time-sharing`: AntMan's (OSDI'20) and PAI's priority time
//! sharing, MuxFlow's second baseline. Online services are placed first
//! and run as if alone; offline jobs take a free GPU, else join the GPU of
//! the least loaded online service (up to `max_tenants`, memory
//! permitting) and run in the time it leaves idle (`ShareMode::Priority`).
//! Offline jobs never share a GPU without an online service.

use crate::sharing::model::ShareMode;
use crate::sharing::policy::GpuView;
use crate::sharing::waitlist::Simple;

pub(crate) fn new() -> Simple {
    Simple::new(ShareMode::Priority, least_online_load, true)
}

/// GPUs with an online service, least stated online load first.
fn least_online_load(g: &GpuView) -> Option<i64> {
    (g.online > 0).then(|| (g.online_util_pct * 1000.0).round() as i64)
}
