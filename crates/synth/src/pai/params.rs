//! The calibrated constants of the PAI workload model, in one place. Each
//! says which published number (README calibration facts, the NSDI'22
//! paper and `docs/definitions.md`) it is tuned against; `tests/calibration/pai.py` measures them.

/// Jobs at scale 1. With the task and instance structure below this gives
/// ~1.26 M tasks and ~6.9 M instances: the official uncompressed sizes
/// (job 133 MB, task 113 MB, instance 1.98 GB) over the row widths of the
/// README examples, and every table within 10 % of the official
/// compressed size (README: job 60M ... machine_metric 198M).
pub const JOBS: f64 = 1_040_000.0;

/// Share of jobs per machine type (index as `machines::TYPES`). GPU jobs
/// follow the task shares by assigned type of NSDI'22 Fig 5c (T4 22, MISC
/// 67, P100 7, V100 3, V100M32 2 %, `docs/definitions.md#paitask-share-by-gpu`); about 3 % of jobs
/// are CPU-only.
pub const TYPE_SHARE: [f64; 6] = [0.650, 0.205, 0.068, 0.029, 0.019, 0.029];

/// Recurrence (NSDI'22 §3: 65 % of tasks recur at least 5 times, by group
/// tag): share of groups that recur, and the Pareto shape of their size.
pub const P_RECURRING_GROUP: f64 = 0.15;
pub const RECURRING_ALPHA: f64 = 1.5;
/// Largest group (a run every half hour for two months).
pub const MAX_GROUP_JOBS: f64 = 3000.0;
/// The largest share of its type's jobs one group may hold.
pub const GROUP_MAX_JOB_SHARE: f64 = 0.002;
/// Jobs of a group come in bursts of these sizes, spaced by this share of
/// the window (~5 minutes; close enough that a burst's rows compress
/// together as in the official files, far enough not to flood a queue).
pub const BURST_SPACING: f64 = 5e-5;
pub const BURST_SIZES: [(u32, f64); 5] = [(1, 0.45), (2, 0.2), (3, 0.12), (5, 0.13), (10, 0.1)];
/// Sizes of one-off groups (1..4 jobs).
pub const ONE_OFF_SIZES: [(u32, f64); 4] = [(1, 0.62), (2, 0.2), (3, 0.11), (4, 0.07)];

/// Job structures: (kind, weight). Most jobs are one task; parameter-server
/// jobs add a CPU `ps` task, chief jobs a chief and an evaluator too.
pub const STRUCTURES: [(Structure, f64); 3] =
    [(Structure::Single, 0.845), (Structure::PsWorker, 0.125), (Structure::ChiefPsWorker, 0.03)];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Structure {
    Single,
    PsWorker,
    ChiefPsWorker,
}

/// Names of single-task jobs.
pub const SINGLE_NAMES: [(&str, f64); 4] =
    [("tensorflow", 0.46), ("PyTorchWorker", 0.22), ("worker", 0.27), ("JupyterTask", 0.05)];
/// Names of CPU-only single tasks.
pub const CPU_NAMES: [(&str, f64); 3] = [("worker", 0.6), ("xComputeWorker", 0.25), ("OpenmpiTracker", 0.15)];

/// Chance a single-task job is a gang (inst_num >= 2): about 85 % of
/// instances sit in gang tasks (NSDI'22 Fig 2b, `docs/definitions.md#paigang-size`).
pub const P_SINGLE_GANG: f64 = 0.25;
/// Gang sizes: log-normal median and sigma, and the largest gang.
pub const GANG_MEDIAN: f64 = 9.5;
pub const GANG_SIGMA: f64 = 1.0;
pub const GANG_MAX: f64 = 2000.0;
/// `ps` task sizes.
pub const PS_SIZES: [(u32, f64); 6] = [(1, 0.45), (2, 0.22), (3, 0.1), (4, 0.1), (8, 0.08), (16, 0.05)];
/// A gang may take at most this share of the instances its type's
/// machines hold (binds only at small scale, where a type may have two
/// machines); a narrowed gang runs longer instead (`TaskSpec::stretch`).
pub const GANG_CAPACITY_SHARE: f64 = 0.12;

/// Per-instance GPU request (% of a GPU) of non-gang tasks. Bins of NSDI'22
/// Fig 5c (`docs/definitions.md#paitask-share-by-gpu`): <25: 15 %, [25,50): 26 %, [50,100): 13 %,
/// =100: 43 %, >100: 3 %; the median instance requests 0.5 GPU.
pub const GPU_SINGLE: [(u32, f64); 13] = [
    (5, 0.03),
    (10, 0.07),
    (20, 0.094),
    (25, 0.17),
    (30, 0.04),
    (40, 0.046),
    (50, 0.04),
    (60, 0.006),
    (80, 0.009),
    (100, 0.461),
    (200, 0.024),
    (400, 0.005),
    (800, 0.005),
];
/// Per-instance GPU request of gang tasks: mostly half or whole GPUs, so
/// the median instance (most instances are in gangs) requests 0.5 GPU.
pub const GPU_GANG: [(u32, f64); 5] = [(10, 0.05), (25, 0.27), (50, 0.30), (100, 0.36), (200, 0.02)];
/// Per-instance CPU request (% of a core); median 600 = 6 vCPU.
pub const CPU_GPU_TASK: [(u32, f64); 9] = [
    (100, 0.05),
    (200, 0.08),
    (400, 0.15),
    (600, 0.35),
    (800, 0.12),
    (1200, 0.12),
    (1600, 0.06),
    (2400, 0.04),
    (3200, 0.03),
];
pub const CPU_CPU_TASK: [(u32, f64); 7] =
    [(100, 0.1), (200, 0.18), (400, 0.25), (600, 0.22), (800, 0.1), (1200, 0.1), (1600, 0.05)];
/// Per-instance memory request in MiB (`plan_mem` = MiB / 1024, so 30000 is
/// the README's 29.296875 GB); median 29 GiB.
pub const MEM_MIB: [(u32, f64); 10] = [
    (5000, 0.06),
    (10000, 0.12),
    (15000, 0.08),
    (20000, 0.12),
    (30000, 0.28),
    (40000, 0.1),
    (60000, 0.1),
    (80000, 0.06),
    (100000, 0.05),
    (150000, 0.03),
];

/// Usage over request, per task: log-normal (median, sigma). Medians give
/// the published median use 1.4 vCPU / 0.042 GPU / 3.5 GiB against 6 / 0.5
/// / 29 requested; sigmas give plan > use for 84.46 % (CPU), 98.02 % (GPU),
/// 95.88 % (memory) of tasks (notebook A16 output).
/// These sigmas are of the group level; `JOB_USAGE_SIGMA` adds per run
/// (totals 1.45, 1.2 and 1.22).
pub const CPU_RATIO: (f64, f64) = (0.235, 1.14);
pub const GPU_RATIO: (f64, f64) = (0.095, 0.79);
pub const MEM_RATIO: (f64, f64) = (0.12, 0.81);
/// Instance network receive, bytes/s (log-normal median, sigma).
pub const READ_BPS: (f64, f64) = (2.0e6, 1.8);

/// Median instance runtime of a group per type (s) and its log-normal
/// sigma across groups. PAI tasks run shorter than Philly's (median 1,186
/// s) and span more than four orders of magnitude (NSDI'22 Fig 4a, `docs/definitions.md#pairuntime-vs-philly`). The
/// medians are set so that the load normalization (`load::normalize`)
/// scales them by ~1 at scale 1: they follow from the allocation targets.
pub const RUNTIME_MEDIAN: [f64; 6] = [140.0, 285.0, 1590.0, 1860.0, 3885.0, 3170.0];
pub const RUNTIME_SIGMA: f64 = 2.0;
/// Longest planned instance runtime (s), about the trace's length.
pub const MAX_RUNTIME: f64 = 5.0e6;
/// How many runs of a recurring group overlap at most, on average.
pub const RECURRING_OVERLAP: f64 = 10.0;
/// The largest share of its type's full capacity one group may use.
pub const GROUP_LOAD_CAP: f64 = 0.005;
/// Range of the per-type load normalization factor.
pub const LOAD_FACTOR_RANGE: (f64, f64) = (0.6, 1.6);
/// Expected (GPU, CPU) allocation of the working machines per type (as
/// `machines::TYPES`); `load::normalize` scales each type's runtimes so
/// the more binding of the two is met. CPU-only jobs: CPU machines' cores.
pub const TARGET_ALLOCATION: [(f64, f64); 6] =
    [(0.5, 0.3), (0.42, 0.45), (0.42, 0.45), (0.45, 0.3), (0.42, 0.3), (0.0, 0.25)];
/// Run-to-run variation of a recurring group's runtime, and per instance.
pub const JOB_NOISE: f64 = 0.22;
pub const INSTANCE_NOISE: f64 = 0.06;

/// Share of groups that fail often, and the failure chance of a run.
pub const P_FLAKY_GROUP: f64 = 0.2;
pub const FAIL_FLAKY: f64 = 0.4;
pub const FAIL_STABLE: f64 = 0.04;

/// Runtime factor of GPU-sharing (< 100 % of a GPU) and whole-GPU tasks:
/// whole-GPU training runs longer than shared inference and debugging, so
/// the long queueing of whole-GPU tasks (A9) falls on long tasks and few
/// short tasks wait more than half their completion time (A8).
pub const RUNTIME_SHARING: f64 = 0.8;
pub const RUNTIME_WHOLE: f64 = 2.5;

/// Planted queueing delay per task: with probability `immediate` under 4 s,
/// else `ratio` x the task's typical runtime x (its job's runtime relative
/// to the typical one) ^ `WAIT_RUNTIME_EXP` x log-normal(1, `WAIT_SIGMA`).
/// Waits grow a little slower than runtimes, so short tasks wait more
/// often than long ones for over half their completion time (9 % vs 3 %,
/// A8). Per type (as `machines::TYPES`), for GPU-sharing and whole-GPU
/// tasks. Targets: P90 497 s for sharing vs > 1000 s for whole-GPU tasks
/// (A9); V100 P90 13,709 s vs ~360 s on low-end types (A10). Fitted by a
/// Monte Carlo of this model; capacity waits come on top.
pub const WAIT: [Wait; 6] = [
    Wait { immediate: 0.3, sharing: 0.32, whole: 0.6 },
    Wait { immediate: 0.6, sharing: 0.25, whole: 0.15 },
    Wait { immediate: 0.6, sharing: 0.04, whole: 0.02 },
    Wait { immediate: 0.2, sharing: 0.55, whole: 0.55 },
    Wait { immediate: 0.3, sharing: 0.3, whole: 0.3 },
    Wait { immediate: 0.8, sharing: 0.05, whole: 0.05 },
];
pub const WAIT_RUNTIME_EXP: f64 = 0.9;
pub const WAIT_SIGMA: f64 = 0.6;

#[derive(Clone, Copy, Debug)]
pub struct Wait {
    pub immediate: f64,
    /// Median wait over typical runtime.
    pub sharing: f64,
    pub whole: f64,
}

/// Share of tasks that name their GPU type (`gpu_type_spec`, NSDI'22 §3:
/// about 6 %), and the relative preference per type (the high-end types
/// are named more often; CPU-only jobs never).
pub const SPEC_SHARE: f64 = 0.06;
pub const P_SPEC: [f64; 6] = [0.03, 0.08, 0.1, 0.3, 0.35, 0.0];
/// Share of instances whose job carries a `workload` tag (NSDI'22 §5
/// case studies: about 9 %), and the tags with their weights.
pub const WORKLOAD_SHARE: f64 = 0.09;
pub const WORKLOADS: [(&str, f64); 9] = [
    ("bert", 0.18),
    ("nmt", 0.12),
    ("xlnet", 0.05),
    ("ctr", 0.28),
    ("graphlearn", 0.1),
    ("rl", 0.06),
    ("resnet", 0.1),
    ("inception", 0.06),
    ("vgg", 0.05),
];

/// Users: about 1,300 at scale 1; the top 5 % submit about 77 % of the
/// instances (NSDI'22 §3).
pub const USERS: f64 = 1300.0;
pub const TOP5_INSTANCE_SHARE: f64 = 0.77;

/// Sensor rows exist for this share of started instances that ran at least
/// a minute, machine_metric rows for this share of finished ones: ~3.5 M
/// sensor and ~1.7 M metric rows at scale 1, the official table sizes.
pub const P_SENSOR: f64 = 0.68;
pub const P_METRIC: f64 = 0.24;
pub const SENSOR_MIN_RUNTIME: i64 = 60;

/// Planted effects (switchable): NSDI'22 §4.2 finds delayed instances of
/// recurring groups on machines above 24 % CPU (~50 % of delayed vs ~10 %
/// of accelerated ones), and slowdown rising with co-location. An
/// instance's runtime is stretched by exp(CPU_GAIN * (CPU share of its
/// machine - current mean share of its type)) and exp(COLOC_GAIN *
/// (co-located instances - current mean per machine of its type)), each
/// clamped to [EFFECT_MIN, EFFECT_MAX].
pub const CPU_GAIN: f64 = 3.0;
pub const COLOC_GAIN: f64 = 0.04;
pub const EFFECT_MIN: f64 = 0.7;
pub const EFFECT_MAX: f64 = 2.0;

/// Job-to-job variation of a group's usage (log-normal sigma): most of the
/// usage spread is between runs, not between recurring groups.
pub const JOB_USAGE_SIGMA: f64 = 0.9;

/// Draws a value from a small weighted table.
pub fn pick<T: Copy>(rng: &mut super::super::rng::Rng, table: &[(T, f64)]) -> T {
    let w: Vec<f64> = table.iter().map(|(_, w)| *w).collect();
    table[rng.weighted(&w)].0
}
