//! Alibaba PAI (NSDI'22 "MLaaS in the Wild"): the owners' notebook cells
//! (A1-A18) and the paper-only analyses, one file per analysis id
//! (`pai.gang-size` is `gang_size.rs`).
//!
//! Shared here: the owners' frames ([`frames`], defined in [`plans`],
//! cached by [`derived`]), Asia/Shanghai hour binning ([`hourly`]), the
//! queueing-delay definitions and GPU bins ([`wait`]), machine classes and
//! placed instances ([`machines`]), and the time bins of the per-time
//! reconstructions ([`bins`]).

pub(crate) mod bins;
pub(crate) mod derived;
pub mod frames;
mod hourly;
mod machines;
mod plans;
mod wait;

pub mod allocation_by_gpu_type;
pub mod cpu_contention;
pub mod cpu_time_split;
pub mod gang_and_constraints;
pub mod gang_size;
pub mod gpu_sharing;
pub mod heavy_tails;
pub mod hourly_requests;
pub mod hourly_submissions;
pub mod machine_util;
pub mod network_input;
pub mod recurrence;
pub mod request_vs_usage;
pub mod requests_by_hour;
pub mod runtime_by_gpu_type;
pub mod runtime_vs_philly;
pub mod submissions_by_hour;
pub mod supply_demand;
pub mod task_share_by_gpu;
pub mod tasks_per_user;
pub mod usage_minus_request;
pub mod wait_by_gpu_request;
pub mod wait_by_gpu_type;
pub mod wait_over_completion;
pub mod workloads;

#[cfg(test)]
mod tests;
