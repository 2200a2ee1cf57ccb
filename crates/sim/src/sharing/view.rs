//! The plain data a sharing policy's round reads and gets back: an occupied
//! GPU as it sees it, and why a command was refused. Knows nothing of the
//! engine, so the engine and the policies' hook both stand on it.

/// An occupied GPU as a policy sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuView {
    /// The GPU's id (numbered node by node).
    pub gpu: u32,
    pub node: u32,
    pub gpu_type: u16,
    /// Jobs on it.
    pub tenants: u32,
    /// Online jobs on it, and the sum of their stated utilizations (%).
    pub online: u32,
    pub online_util_pct: f64,
    /// Sum of the utilizations (%) the policy planned its tenants with.
    pub planned_util_pct: f64,
    /// GPU memory not used by its tenants, GiB.
    pub mem_free_gib: f64,
    /// SM share left to its offline tenants (space sharing), 0-1.
    pub share: f64,
}

/// Why a command was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The job is not waiting (or, to evict, not running).
    NotWaiting,
    /// No free GPU (or free node) of the job's type.
    NoRoom,
    /// The GPU is free, of another type, or already holds `max_tenants` jobs.
    NotShareable,
    /// The tenants' memory plus the job's exceeds the GPU's.
    Memory,
    /// Only jobs of at most one GPU share a GPU.
    TooLarge,
}
