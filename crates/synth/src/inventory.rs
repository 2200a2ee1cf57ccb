//! The real inventory tables synth builds on, embedded from `data-samples/`
//! (CC BY 4.0 / MIT, see `data-samples/SOURCE.md`): the complete PAI machine
//! table, the Philly machine list, the Helios per-VC GPU tables of Venus and
//! Earth, the published Helios per-cluster summary, the real Philly
//! runtimes the PAI paper compares against, and AcmeTrace's published
//! per-cluster summary.

/// `pai_machine_spec.csv`, 1,897 machines, byte-identical to the official file.
pub const PAI_MACHINE_SPEC: &str = include_str!("../../../data-samples/pai/pai_machine_spec.csv");
/// `cluster_machine_list`, 552 machines.
pub const PHILLY_MACHINE_LIST: &str = include_str!("../../../data-samples/philly/cluster_machine_list");
/// 83,154 real Philly job runtimes in seconds (`runtime` column).
pub const PHILLY_RUNTIMES: &str = include_str!("../../../data-samples/pai/philly_runtime.csv");
/// Venus `cluster_gpu_number.csv` (2020-04-01..2020-09-28).
pub const HELIOS_VENUS_GPUS: &str = include_str!("../../../data-samples/helios/Venus/cluster_gpu_number.csv");
/// Earth `cluster_gpu_number.csv`.
pub const HELIOS_EARTH_GPUS: &str = include_str!("../../../data-samples/helios/Earth/cluster_gpu_number.csv");
/// `helios_cluster_summary.csv`: per-cluster counts, medians and rates.
pub const HELIOS_SUMMARY: &str = include_str!("../../../data-samples/helios/helios_cluster_summary.csv");
/// AcmeTrace `data/cluster_summary.csv` (CC BY 4.0): the owners' per-cluster
/// summary of Seren and Kalos (and their rows for Philly, Helios and PAI).
pub const ACME_SUMMARY: &str = include_str!("../../../data-samples/acme/cluster_summary.csv");
