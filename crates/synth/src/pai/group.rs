//! A recurring group of the PAI workload model (the `group` tag: runs of the
//! same script with the same resources) and the tasks of its jobs. The
//! workload model decides them ([`super::workload`]); the load
//! normalization ([`super::load`]) rescales their runtimes.

/// One task of a group's jobs (requests are per instance).
#[derive(Clone, Debug)]
pub struct TaskSpec {
    pub name: &'static str,
    pub inst_num: u32,
    /// % of a core.
    pub plan_cpu: u32,
    /// MiB; `plan_mem` is this / 1024.
    pub plan_mem: u32,
    /// % of a GPU; `None` for CPU-only tasks (empty `plan_gpu`).
    pub plan_gpu: Option<u32>,
    /// Usage over request (task-level medians; jobs and instances vary).
    pub cpu_ratio: f32,
    pub gpu_ratio: f32,
    pub mem_ratio: f32,
    pub read_bps: f32,
    /// Runtime multiplier of a gang narrowed to fit a small scale's
    /// machines: the same work on fewer instances (requested / kept), so
    /// the load per machine and the per-type runtime levels do not depend
    /// on the scale.
    pub stretch: f32,
}

#[derive(Clone, Debug)]
pub struct Group {
    pub tag: u128,
    pub user: u32,
    /// Machine type the GPU tasks are assigned (index of `TYPES`).
    pub kind: usize,
    pub spec: bool,
    pub workload: Option<&'static str>,
    pub tasks: Vec<TaskSpec>,
    /// Median instance runtime, s.
    pub runtime: f32,
    /// The runtime relative to its type's typical one, before the load
    /// normalization (queueing delays scale with it, scale-independently).
    pub rel_runtime: f32,
    /// The load normalization factor its type's runtimes were scaled by.
    pub norm: f32,
    pub fail: f32,
    /// Exact number of jobs in the trace.
    pub jobs: u32,
}

impl Group {
    pub(super) fn instances(&self) -> u64 {
        self.tasks.iter().map(|t| t.inst_num as u64).sum::<u64>() * self.jobs as u64
    }
}
