//! Free-capacity index of the cluster during a replay.
//!
//! Nodes are grouped by (GPU type, GPUs per node, CPUs per node); inside a
//! group, nodes sit in one "level" per free-GPU count, each level an ordered
//! set (for lowest-id tie-breaks) plus a dense vector (for uniform random
//! picks). Finding the fullest or emptiest node that fits is then a walk over
//! non-empty levels, O(log n), never a scan of all nodes.
//!
//! GPUs have slots too: a GPU is free, held whole by one job, or shared by
//! fractional jobs whose milli-GPUs add up to at most 1000. Shared GPUs with
//! room are indexed per GPU type by used milli-GPUs and by job count.

use std::collections::BTreeSet;

use crate::cluster::Cluster;
use crate::job::MILLI_PER_GPU;

/// Nodes with the same free-GPU count in one group.
#[derive(Default)]
pub(crate) struct Level {
    pub(crate) ordered: BTreeSet<u32>,
    pub(crate) dense: Vec<u32>,
}

/// Identical nodes.
pub(crate) struct Group {
    pub(crate) gpu_type: u16,
    pub(crate) gpus: u32,
    pub(crate) levels: Vec<Level>,
    pub(crate) nonempty: BTreeSet<u32>,
}

/// Shared GPUs with room, of one GPU type.
#[derive(Default)]
pub(crate) struct SharedIndex {
    /// (used milli, gpu)
    pub(crate) by_used: BTreeSet<(u32, u32)>,
    /// (jobs on it, used milli, gpu)
    pub(crate) by_count: BTreeSet<(u32, u32, u32)>,
}

pub(crate) struct Nodes {
    pub(crate) groups: Vec<Group>,
    pub(crate) group_of: Vec<u32>,
    pub(crate) free: Vec<u32>,
    cpu_free: Vec<u32>,
    pos: Vec<u32>,
    pub(crate) gpu_node: Vec<u32>,
    pub(crate) gpu_used: Vec<u32>,
    pub(crate) gpu_jobs: Vec<Vec<u32>>,
    free_slots: Vec<Vec<u32>>,
    held_slots: Vec<Vec<u32>>,
    /// Per GPU type (indexed by type id).
    pub(crate) shared: Vec<SharedIndex>,
    /// GPUs allocated, in milli-GPUs (whole GPUs count 1000 each).
    pub(crate) allocated_milli: u64,
    /// All GPUs, in milli-GPUs.
    pub(crate) total_milli: u64,
}

impl Nodes {
    pub(crate) fn new(cluster: &Cluster) -> Nodes {
        let specs = cluster.nodes();
        let mut groups: Vec<Group> = Vec::new();
        let mut keys: Vec<(u16, u32, Option<u32>)> = Vec::new();
        let mut group_of = Vec::with_capacity(specs.len());
        for n in specs {
            let key = (n.gpu_type, n.gpus, n.cpu_milli);
            let gi = keys.iter().position(|k| *k == key).unwrap_or_else(|| {
                keys.push(key);
                let levels = (0..=n.gpus).map(|_| Level::default()).collect();
                groups.push(Group { gpu_type: n.gpu_type, gpus: n.gpus, levels, nonempty: BTreeSet::new() });
                keys.len() - 1
            });
            group_of.push(gi as u32);
        }
        let n_types = specs.iter().map(|n| n.gpu_type as usize + 1).max().unwrap_or(1);
        let mut nodes = Nodes {
            groups,
            group_of,
            free: vec![0; specs.len()],
            cpu_free: specs.iter().map(|n| n.cpu_milli.unwrap_or(u32::MAX)).collect(),
            pos: vec![0; specs.len()],
            gpu_node: Vec::new(),
            gpu_used: Vec::new(),
            gpu_jobs: Vec::new(),
            free_slots: Vec::with_capacity(specs.len()),
            held_slots: vec![Vec::new(); specs.len()],
            shared: (0..n_types).map(|_| SharedIndex::default()).collect(),
            allocated_milli: 0,
            total_milli: cluster.total_gpus() * MILLI_PER_GPU as u64,
        };
        for (id, n) in specs.iter().enumerate() {
            let base = nodes.gpu_node.len() as u32;
            nodes.gpu_node.extend(std::iter::repeat_n(id as u32, n.gpus as usize));
            // Reversed so that popping hands out the lowest-numbered GPU first.
            nodes.free_slots.push((base..base + n.gpus).rev().collect());
            nodes.insert_level(id as u32, n.gpus);
        }
        nodes.gpu_used = vec![0; nodes.gpu_node.len()];
        nodes.gpu_jobs = vec![Vec::new(); nodes.gpu_node.len()];
        nodes
    }

    pub(crate) fn cpu_free(&self, node: u32) -> u32 {
        self.cpu_free[node as usize]
    }

    pub(crate) fn gpus_of(&self, node: u32) -> u32 {
        self.groups[self.group_of[node as usize] as usize].gpus
    }

    pub(crate) fn type_of(&self, node: u32) -> u16 {
        self.groups[self.group_of[node as usize] as usize].gpu_type
    }

    /// Groups a job of GPU type `ty` may use.
    pub(crate) fn matching(&self, ty: Option<u16>) -> impl Iterator<Item = (usize, &Group)> {
        self.groups.iter().enumerate().filter(move |(_, g)| ty.is_none_or(|t| t == g.gpu_type))
    }

    /// Shared-GPU indexes a job of GPU type `ty` may use.
    pub(crate) fn matching_shared(&self, ty: Option<u16>) -> impl Iterator<Item = &SharedIndex> {
        self.shared.iter().enumerate().filter(move |(t, _)| ty.is_none_or(|x| x as usize == *t)).map(|(_, s)| s)
    }

    fn insert_level(&mut self, node: u32, free: u32) {
        let g = &mut self.groups[self.group_of[node as usize] as usize];
        let level = &mut g.levels[free as usize];
        level.ordered.insert(node);
        self.pos[node as usize] = level.dense.len() as u32;
        level.dense.push(node);
        g.nonempty.insert(free);
        self.free[node as usize] = free;
    }

    fn remove_level(&mut self, node: u32) {
        let free = self.free[node as usize];
        let g = &mut self.groups[self.group_of[node as usize] as usize];
        let level = &mut g.levels[free as usize];
        level.ordered.remove(&node);
        let p = self.pos[node as usize] as usize;
        level.dense.swap_remove(p);
        if let Some(&moved) = level.dense.get(p) {
            self.pos[moved as usize] = p as u32;
        }
        if level.dense.is_empty() {
            g.nonempty.remove(&free);
        }
    }

    fn set_free(&mut self, node: u32, free: u32) {
        self.remove_level(node);
        self.insert_level(node, free);
    }

    /// Takes `gpus` whole GPUs (and `cpu` milli-cores) on `node`.
    pub(crate) fn alloc_whole(&mut self, node: u32, gpus: u32, cpu: u32) {
        let n = node as usize;
        for _ in 0..gpus {
            let slot = self.free_slots[n].pop().expect("placement chose a node without enough free GPUs");
            self.held_slots[n].push(slot);
        }
        self.cpu_free[n] -= cpu.min(self.cpu_free[n]);
        self.allocated_milli += gpus as u64 * MILLI_PER_GPU as u64;
        self.set_free(node, self.free[n] - gpus);
    }

    /// Gives back what [`Nodes::alloc_whole`] took.
    pub(crate) fn release_whole(&mut self, node: u32, gpus: u32, cpu: u32) {
        let n = node as usize;
        for _ in 0..gpus {
            let slot = self.held_slots[n].pop().expect("releasing more GPUs than held");
            self.free_slots[n].push(slot);
        }
        self.restore_cpu(node, cpu);
        self.allocated_milli -= gpus as u64 * MILLI_PER_GPU as u64;
        self.set_free(node, self.free[n] + gpus);
    }

    fn restore_cpu(&mut self, node: u32, cpu: u32) {
        let c = &mut self.cpu_free[node as usize];
        if *c != u32::MAX {
            *c += cpu;
        }
    }

    /// Puts fractional job `job` (`milli` milli-GPUs) on a GPU: a shared one
    /// with room (`Some(gpu)`) or a free one of `node`. Returns the GPU.
    pub(crate) fn alloc_shared(&mut self, job: u32, milli: u32, spot: SharedSpot, cpu: u32) -> u32 {
        let gpu = match spot {
            SharedSpot::Gpu(gpu) => gpu,
            SharedSpot::EmptyOn(node) => {
                let gpu = self.free_slots[node as usize].pop().expect("placement chose a node without a free GPU");
                self.set_free(node, self.free[node as usize] - 1);
                gpu
            }
        };
        let node = self.gpu_node[gpu as usize];
        self.cpu_free[node as usize] -= cpu.min(self.cpu_free[node as usize]);
        self.unindex_shared(gpu);
        self.gpu_used[gpu as usize] += milli;
        self.gpu_jobs[gpu as usize].push(job);
        self.index_shared(gpu);
        self.allocated_milli += milli as u64;
        gpu
    }

    /// Removes fractional job `job` from `gpu`; a GPU left empty is free again.
    pub(crate) fn release_shared(&mut self, job: u32, milli: u32, gpu: u32, cpu: u32) {
        let g = gpu as usize;
        let node = self.gpu_node[g];
        self.unindex_shared(gpu);
        self.gpu_used[g] -= milli;
        let jobs = &mut self.gpu_jobs[g];
        let at = jobs.iter().position(|&j| j == job).expect("job not on this GPU");
        jobs.swap_remove(at);
        let now_empty = jobs.is_empty();
        self.allocated_milli -= milli as u64;
        self.restore_cpu(node, cpu);
        if now_empty {
            self.free_slots[node as usize].push(gpu);
            self.set_free(node, self.free[node as usize] + 1);
        } else {
            self.index_shared(gpu);
        }
    }

    fn shared_key(&self, gpu: u32) -> Option<(usize, u32, u32)> {
        let used = self.gpu_used[gpu as usize];
        let jobs = self.gpu_jobs[gpu as usize].len() as u32;
        (jobs > 0 && used < MILLI_PER_GPU).then(|| (self.type_of(self.gpu_node[gpu as usize]) as usize, used, jobs))
    }

    fn unindex_shared(&mut self, gpu: u32) {
        if let Some((t, used, jobs)) = self.shared_key(gpu) {
            self.shared[t].by_used.remove(&(used, gpu));
            self.shared[t].by_count.remove(&(jobs, used, gpu));
        }
    }

    fn index_shared(&mut self, gpu: u32) {
        if let Some((t, used, jobs)) = self.shared_key(gpu) {
            self.shared[t].by_used.insert((used, gpu));
            self.shared[t].by_count.insert((jobs, used, gpu));
        }
    }

    /// The most free GPUs on one node a job of type `ty` may use.
    pub(crate) fn max_free(&self, ty: Option<u16>) -> u32 {
        self.matching(ty).filter_map(|(_, g)| g.nonempty.last().copied()).max().unwrap_or(0)
    }

    /// GPUs on entirely free nodes a job of type `ty` may use.
    pub(crate) fn whole_free_gpus(&self, ty: Option<u16>) -> u64 {
        self.matching(ty).map(|(_, g)| g.levels[g.gpus as usize].dense.len() as u64 * g.gpus as u64).sum()
    }

    /// The least-used shared GPU with room a job of type `ty` may use.
    pub(crate) fn min_shared_used(&self, ty: Option<u16>) -> Option<u32> {
        self.matching_shared(ty).filter_map(|s| s.by_used.first().map(|&(u, _)| u)).min()
    }
}

/// Where a fractional job goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SharedSpot {
    /// A GPU that already hosts fractional jobs and has room.
    Gpu(u32),
    /// A free GPU of this node.
    EmptyOn(u32),
}
