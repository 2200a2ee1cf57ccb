//! The registry: every analysis, once, in `tracelab analyze --list` order
//! (the report and the docs follow the same order). Each entry is the
//! [`Analysis`] of a declaration (`crate::declare::Analyze`).
//!
//! Adding an analysis: a file `<scope>/<name>.rs` named after its id
//! (`pai.gang-size` is `pai/gang_size.rs`) with a unit struct implementing
//! `Analyze` (its `DOC` is its section of `docs/definitions.md`, which is
//! regenerated with `tracelab analyze --describe > docs/definitions.md`);
//! `pub mod <name>;` in `<scope>/mod.rs`; one line below (the registry
//! tests check the ids, the docs sections, the parameter defaults and the
//! published values).
//! The scheduler-motivation views are the exception to `<scope>.<name>`:
//! they are `seed.<name>` in `seed/`, with the scope of what they read
//! (`pai` or `cross`).

use crate::declare::Analysis;
use crate::{acme, cross, helios, pai, philly, seed, spot};
use tracelab_schema::error::{Error, Result};

/// Every analysis, in `--list` order.
static REGISTRY: &[Analysis] = &[
    Analysis::of(&pai::tasks_per_user::TasksPerUser),
    Analysis::of(&pai::gang_size::GangSize),
    Analysis::of(&pai::runtime_vs_philly::RuntimeVsPhilly),
    Analysis::of(&pai::runtime_by_gpu_type::RuntimeByGpuType),
    Analysis::of(&pai::hourly_submissions::HourlySubmissions),
    Analysis::of(&pai::submissions_by_hour::SubmissionsByHour),
    Analysis::of(&pai::hourly_requests::HourlyRequests),
    Analysis::of(&pai::requests_by_hour::RequestsByHour),
    Analysis::of(&pai::wait_over_completion::WaitOverCompletion),
    Analysis::of(&pai::wait_by_gpu_request::WaitByGpuRequest),
    Analysis::of(&pai::wait_by_gpu_type::WaitByGpuType),
    Analysis::of(&pai::task_share_by_gpu::TaskShareByGpu),
    Analysis::of(&pai::request_vs_usage::RequestVsUsage),
    Analysis::of(&pai::usage_minus_request::UsageMinusRequest),
    Analysis::of(&pai::network_input::NetworkInput),
    Analysis::of(&pai::cpu_time_split::CpuTimeSplit),
    Analysis::of(&pai::machine_util::MachineUtil),
    Analysis::of(&pai::supply_demand::SupplyDemand),
    Analysis::of(&pai::allocation_by_gpu_type::AllocationByGpuType),
    Analysis::of(&pai::recurrence::Recurrence),
    Analysis::of(&pai::workloads::Workloads),
    Analysis::of(&pai::gang_and_constraints::GangAndConstraints),
    Analysis::of(&pai::cpu_contention::CpuContention),
    Analysis::of(&pai::heavy_tails::HeavyTails),
    Analysis::of(&pai::gpu_sharing::GpuSharing),
    Analysis::of(&philly::runtime_by_size::RuntimeBySize),
    Analysis::of(&philly::queueing_by_vc::QueueingByVc),
    Analysis::of(&philly::locality::Locality),
    Analysis::of(&philly::gpu_util_by_status::GpuUtilByStatus),
    Analysis::of(&philly::gpu_util_dedicated::GpuUtilDedicated),
    Analysis::of(&philly::host_util::HostUtil),
    Analysis::of(&philly::machine_util::MachineUtil),
    Analysis::of(&philly::paper_numbers::PaperNumbers),
    Analysis::of(&helios::sequence::Sequence),
    Analysis::of(&helios::throughput::Throughput),
    Analysis::of(&helios::cluster_summary::ClusterSummary),
    Analysis::of(&helios::duration_vs_philly::DurationVsPhilly),
    Analysis::of(&helios::gpu_time_by_status::GpuTimeByStatus),
    Analysis::of(&helios::diurnal_utilization::DiurnalUtilization),
    Analysis::of(&helios::diurnal_submissions::DiurnalSubmissions),
    Analysis::of(&helios::monthly::Monthly),
    Analysis::of(&helios::vc_utilization::VcUtilization),
    Analysis::of(&helios::duration_gpu_cpu::DurationGpuCpu),
    Analysis::of(&helios::job_size::JobSize),
    Analysis::of(&helios::final_status::FinalStatus),
    Analysis::of(&helios::user_time::UserTime),
    Analysis::of(&helios::user_queue::UserQueue),
    Analysis::of(&helios::user_completion::UserCompletion),
    Analysis::of(&acme::cluster_summary::ClusterSummary),
    Analysis::of(&acme::type_mix::TypeMix),
    Analysis::of(&acme::duration_queue::DurationQueue),
    Analysis::of(&acme::final_status::FinalStatus),
    Analysis::of(&acme::gpu_demand::GpuDemand),
    Analysis::of(&acme::vs_prior::VsPrior),
    Analysis::of(&spot::class_mix::ClassMix),
    Analysis::of(&spot::demand_capacity::DemandCapacity),
    Analysis::of(&spot::durations_sizes::DurationsSizes),
    Analysis::of(&cross::runtime::Runtime),
    Analysis::of(&cross::queueing::Queueing),
    Analysis::of(&cross::wait_fraction::WaitFraction),
    Analysis::of(&cross::gpus_per_job::GpusPerJob),
    Analysis::of(&cross::status::Status),
    Analysis::of(&cross::user_concentration::UserConcentration),
    Analysis::of(&cross::diurnal::Diurnal),
    Analysis::of(&seed::muxflow_gpu_util::MuxflowGpuUtil),
    Analysis::of(&seed::muxflow_predictability::MuxflowPredictability),
    Analysis::of(&seed::horus_interference::HorusInterference),
    Analysis::of(&seed::horus_classes::HorusClasses),
    Analysis::of(&seed::pollux_classes::PolluxClasses),
    Analysis::of(&seed::pollux_busiest_window::PolluxBusiestWindow),
    Analysis::of(&seed::duration_prediction::DurationPrediction),
];

/// Every analysis, in `--list` order.
pub fn registry() -> &'static [Analysis] {
    REGISTRY
}

/// The analysis `id`, or a usage error suggesting close ids.
pub fn find(id: &str) -> Result<&'static Analysis> {
    REGISTRY.iter().find(|a| a.id == id).ok_or_else(|| {
        let close: Vec<&str> = REGISTRY.iter().map(|a| a.id).filter(|a| a.contains(id) || id.contains(*a)).collect();
        let hint = if close.is_empty() {
            "see `tracelab analyze --list`".to_string()
        } else {
            format!("did you mean {}?", close.join(", "))
        };
        Error::Usage(format!("unknown analysis `{id}`; {hint}"))
    })
}

#[cfg(test)]
mod tests;
