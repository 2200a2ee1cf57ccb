//! `exclusive`: the no-sharing baseline of the GPU-sharing papers (Horus'
//! and MuxFlow's dedicated GPUs). Every job holds whole GPUs alone (a
//! fractional job a whole GPU), in submission order, online services
//! first; a job that finds no free GPU waits.

use crate::sharing::model::ShareMode;
use crate::sharing::policy::GpuView;
use crate::sharing::waitlist::Simple;

pub(crate) fn new() -> Simple {
    Simple::new(ShareMode::Concurrent, never, false)
}

/// No GPU is ever offered for co-location.
fn never(_: &GpuView) -> Option<i64> {
    None
}
