//! What a run is asked to do: the policy, queue discipline and placement (each
//! parsed from its CLI name, with an error listing the valid ones) and the
//! engine's options with their documented defaults.

use serde::{Deserialize, Serialize};

use crate::error::SimError;
pub use crate::sharing::config::{Interference, SharingConfig};
use crate::time::{Millis, MAX_MILLIS, SECOND};

/// The largest `las` threshold, in GPU-seconds: 1e12, which is 1e18
/// milli-GPU-milliseconds, so that attained service and the time to the next
/// threshold fit 64-bit integers.
pub const MAX_LAS_THRESHOLD_GPU_S: f64 = 1e12;

use crate::names::named_enum;

named_enum!(
    /// Which job the queue prefers (see `docs/simulate.md` for each policy's paper).
    Policy, "policy" {
        /// Submission order.
        Fifo => "fifo",
        /// Shortest trace duration first (oracle).
        Sjf => "sjf",
        /// Shortest remaining time first, preemptive (Helios `srtf`).
        Srtf => "srtf",
        /// Shortest predicted duration first; predictions from jobs finished earlier.
        SjfPredicted => "sjf-predicted",
        /// Helios QSSF: predicted duration times GPUs.
        Qssf => "qssf",
        /// Tiresias discretized 2D-LAS, preemptive.
        Las => "las",
        /// Fewest allocated GPUs of the job's VC (or user) first.
        Fair => "fair",
        /// Higher priority class first, FIFO within a class; preempts lower classes (HP over Spot, GFS).
        Priority => "priority",
        /// GPU sharing baseline: every job holds whole GPUs alone, in submission order.
        Exclusive => "exclusive",
        /// Gandiva: a job that finds no free GPU time-slices one equally with its tenants.
        TimeSharing => "time-sharing",
        /// AntMan / PAI: online jobs first; offline jobs use the online jobs' idle time.
        PriorityTimeSharing => "priority-time-sharing",
        /// Horus: predicted utilization, k-means queues, least-interference co-location.
        Horus => "horus",
        /// MuxFlow: online first, offline matched to online GPUs on dynamic SM shares.
        Muxflow => "muxflow",
    }
);

named_enum!(
    /// How the ordered queue is turned into starts.
    Discipline, "discipline" {
        /// Head-of-line blocking: stop at the first job that does not fit (Helios QSSF framework).
        Strict => "strict",
        /// Start every job that fits, in order (PAI simulator).
        Greedy => "greedy",
        /// Strict plus EASY backfilling around a reservation for the head job.
        Easy => "easy",
    }
);

named_enum!(
    /// Which node (and GPU) a job is put on.
    Placement, "placement" {
        /// Consolidate: the fullest node that fits (best fit), ties by lowest id.
        Pack => "pack",
        /// Max-min balance: the emptiest node first, ties by lowest id.
        Spread => "spread",
        /// The lowest-numbered node that fits (the PAI simulator's "packing").
        FirstFit => "first-fit",
        /// A seeded uniform choice among the nodes that fit.
        Random => "random",
        /// Shared GPUs: an empty GPU first, then the one with fewest co-located jobs.
        LeastShared => "least-shared",
    }
);

named_enum!(
    /// The history key of `sjf-predicted` (the PAI paper's estimators).
    Predictor, "predictor" {
        /// Mean duration of the user's finished jobs (PAI `SJU`).
        User => "user",
        /// Mean duration of the group's finished jobs (PAI `SJG`).
        Group => "group",
        /// Mean duration of the user's finished jobs on the same GPU type (PAI `SJGG`-like).
        UserGpuType => "user-gpu-type",
    }
);

named_enum!(
    /// Whose share `fair` balances.
    ShareBy, "fair-share key" {
        Vc => "vc",
        User => "user",
    }
);

named_enum!(
    /// What to do with a job that can never run on the cluster.
    OnUnplaceable, "unplaceable-job action" {
        /// Fail the run with a typed error naming the job.
        Error => "error",
        /// Leave it out of the schedule and report it with its reason.
        Skip => "skip",
    }
);

/// Extra service a job needs after each preemption (checkpoint and restore).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PreemptOverhead {
    /// No cost.
    None,
    /// Helios `srtf`: 7 s for 1 GPU, 30 s up to 8 GPUs, 60 s beyond.
    Helios,
    /// The same cost for every job.
    Fixed(Millis),
}

impl PreemptOverhead {
    /// The overhead charged to a job of `gpus` GPUs (fractions count as one).
    pub fn for_gpus(self, gpus: u32) -> Millis {
        match self {
            PreemptOverhead::None => 0,
            PreemptOverhead::Fixed(ms) => ms,
            PreemptOverhead::Helios if gpus <= 1 => 7 * SECOND,
            PreemptOverhead::Helios if gpus <= 8 => 30 * SECOND,
            PreemptOverhead::Helios => 60 * SECOND,
        }
    }
}

/// Everything a run needs besides the workload and the cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SimConfig {
    pub policy: Policy,
    pub discipline: Discipline,
    pub placement: Placement,
    /// Seed of the `random` placement (the only randomness in the engine).
    pub seed: u64,
    /// Progress of a job slows by this factor while its GPU is shared with
    /// another job (1.0 = no interference; Horus measured 2.4-3.4 for bad pairs).
    pub share_slowdown: f64,
    /// Cost of each preemption (preemptive policies only).
    pub preempt_overhead: PreemptOverhead,
    /// History key of `sjf-predicted`.
    pub predictor: Predictor,
    /// Whose share `fair` balances.
    pub fair_by: ShareBy,
    /// `las` queue thresholds in GPU-seconds of attained service (ascending).
    pub las_thresholds_gpu_s: Vec<f64>,
    /// `las` starvation guard: a demoted job waiting at least this many times
    /// its executed time goes back to the first queue (Tiresias' knob); off if `None`.
    pub las_starvation_factor: Option<f64>,
    /// Bounded slowdown uses `max(duration, this)` as denominator.
    pub bounded_slowdown_threshold: Millis,
    pub on_unplaceable: OnUnplaceable,
    /// Stop the replay at this time; unfinished jobs are reported as left.
    pub until: Option<Millis>,
    /// Record the step-function time series (allocated GPUs, queue, running).
    pub record_series: bool,
    /// Record every run segment with its nodes and GPUs (for Gantt charts and
    /// audits; one record per node per segment).
    pub record_segments: bool,
    /// GPU sharing: the interference model, its parameters and the sharing
    /// policies' knobs (`docs/sharing.md`).
    pub sharing: SharingConfig,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            policy: Policy::Fifo,
            discipline: Discipline::Greedy,
            placement: Placement::Pack,
            seed: 0,
            share_slowdown: 1.0,
            preempt_overhead: PreemptOverhead::Helios,
            predictor: Predictor::Group,
            fair_by: ShareBy::Vc,
            las_thresholds_gpu_s: vec![3600.0],
            las_starvation_factor: None,
            bounded_slowdown_threshold: 10 * SECOND,
            on_unplaceable: OnUnplaceable::Error,
            until: None,
            record_series: true,
            record_segments: false,
            sharing: SharingConfig::default(),
        }
    }
}

impl SimConfig {
    /// A default configuration with these three choices.
    pub fn new(policy: Policy, discipline: Discipline, placement: Placement) -> SimConfig {
        SimConfig { policy, discipline, placement, ..SimConfig::default() }
    }

    /// Rejects combinations and values the engine cannot honour.
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |s: &str| Err(SimError::BadOption(s.to_string()));
        if !(self.share_slowdown >= 1.0 && self.share_slowdown.is_finite()) {
            return bad("share_slowdown must be a finite number >= 1");
        }
        if self.preemptive() && self.discipline == Discipline::Easy {
            return bad("easy backfilling needs a non-preemptive policy (srtf, las and priority preempt instead)");
        }
        let t = &self.las_thresholds_gpu_s;
        if t.iter().any(|x| !(*x > 0.0 && x.is_finite())) || t.windows(2).any(|w| w[0] >= w[1]) {
            return bad("las thresholds must be positive and strictly ascending");
        }
        if self.las_starvation_factor.is_some_and(|f| !(f > 0.0 && f.is_finite())) {
            return bad("las starvation factor must be positive");
        }
        if t.iter().any(|x| *x > MAX_LAS_THRESHOLD_GPU_S) {
            return bad("las thresholds must be at most 1e12 GPU-seconds (attained service counts milli-GPU-milliseconds in 64 bits)");
        }
        if self.bounded_slowdown_threshold <= 0 {
            return bad("bounded slowdown threshold must be positive");
        }
        if let PreemptOverhead::Fixed(ms) = self.preempt_overhead {
            if !(0..=MAX_MILLIS).contains(&ms) {
                return bad("a fixed preemption overhead must lie between 0 and 1e14 ms (about 3,200 years)");
            }
        }
        if self.until.is_some_and(|u| u.abs() > MAX_MILLIS) {
            return bad("until must lie within 1e14 ms (about 3,200 years) of the window start");
        }
        if self.sharing_policy() && self.discipline != Discipline::Greedy {
            return bad("the GPU-sharing policies schedule greedily in their own order: use the greedy discipline");
        }
        self.sharing.validate()
    }

    /// Whether the policy is a GPU-sharing policy (its own queue, placement
    /// and co-location; `crate::sharing`).
    pub fn sharing_policy(&self) -> bool {
        matches!(
            self.policy,
            Policy::Exclusive | Policy::TimeSharing | Policy::PriorityTimeSharing | Policy::Horus | Policy::Muxflow
        )
    }

    /// Whether the policy suspends running jobs.
    pub fn preemptive(&self) -> bool {
        matches!(self.policy, Policy::Srtf | Policy::Las | Policy::Priority)
    }
}
