//! The simulated cluster: nodes with a GPU count, a GPU type and optionally a
//! CPU count; builders for homogeneous clusters and node groups, within the
//! [`Limits`] on nodes and GPUs; and the check of whether a job could ever run
//! on it.

use serde::{Deserialize, Serialize};

use crate::error::{SimError, Unplaceable};
use crate::job::{Demand, Job};

/// One machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// GPUs on the node.
    pub gpus: u32,
    /// CPU capacity in milli-cores; `None` leaves CPUs unmodelled here.
    pub cpu_milli: Option<u32>,
    /// Interned GPU type.
    pub gpu_type: u16,
}

/// `count` identical nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeGroup {
    pub count: u32,
    pub gpus: u32,
    pub cpu_milli: Option<u32>,
    pub gpu_type: u16,
}

/// How large a cluster may be. A replay holds about 130 bytes per node and
/// 30 per GPU (measured: a million 8-GPU nodes peak at 371 MB, a million
/// 1-GPU nodes at 164 MB), so the description of a cluster, a few bytes of
/// text, sizes the memory of the run. The defaults (a million nodes, ten
/// million GPUs: about 0.45 GB at the ceiling) are far above any published
/// cluster and refuse a slip such as 100,000,000 nodes before anything is
/// allocated; [`Limits::new`] raises them for a user who needs more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Most nodes ([`DEFAULT_MAX_NODES`]; at most [`MAX_NODES`]).
    pub max_nodes: u64,
    /// Most GPUs over all nodes ([`DEFAULT_MAX_GPUS`]; at most [`MAX_GPUS`]).
    pub max_gpus: u64,
}

/// Default ceiling on nodes: a million.
pub const DEFAULT_MAX_NODES: u64 = 1_000_000;
/// Default ceiling on GPUs: ten million.
pub const DEFAULT_MAX_GPUS: u64 = 10_000_000;
/// What node ids (32 bits, with room for offsets when partitions merge) allow.
pub const MAX_NODES: u64 = (u32::MAX / 2) as u64;
/// What GPU ids (32 bits) allow.
pub const MAX_GPUS: u64 = u32::MAX as u64;

impl Default for Limits {
    fn default() -> Self {
        Limits { max_nodes: DEFAULT_MAX_NODES, max_gpus: DEFAULT_MAX_GPUS }
    }
}

impl Limits {
    /// Ceilings above the ids' range are refused (they could not be honoured).
    pub fn new(max_nodes: u64, max_gpus: u64) -> Result<Limits, SimError> {
        if max_nodes == 0 || max_nodes > MAX_NODES || max_gpus == 0 || max_gpus > MAX_GPUS {
            return Err(SimError::BadCluster(format!(
                "ceilings of {max_nodes} nodes and {max_gpus} GPUs: expected 1 to {MAX_NODES} nodes and 1 to {MAX_GPUS} GPUs"
            )));
        }
        Ok(Limits { max_nodes, max_gpus })
    }

    /// Checks totals of nodes and GPUs (computed without overflow by the
    /// caller) against the ceilings; the message names the ceiling crossed.
    pub fn check(&self, nodes: u64, gpus: u64) -> Result<(), SimError> {
        if nodes > self.max_nodes {
            return Err(SimError::TooLarge { what: "nodes", have: nodes, limit: self.max_nodes });
        }
        if gpus > self.max_gpus {
            return Err(SimError::TooLarge { what: "GPUs", have: gpus, limit: self.max_gpus });
        }
        Ok(())
    }
}

/// Nodes, numbered by position (node id = index).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Nodes")]
pub struct Cluster {
    nodes: Vec<Node>,
}

/// The serialised form, checked on the way in like any other cluster.
#[derive(Deserialize)]
struct Nodes {
    nodes: Vec<Node>,
}

impl TryFrom<Nodes> for Cluster {
    type Error = SimError;
    fn try_from(n: Nodes) -> Result<Cluster, SimError> {
        Cluster::from_nodes(n.nodes)
    }
}

impl Cluster {
    /// `n` nodes of `gpus` GPUs each, GPU type 0, CPUs unmodelled, within the default [`Limits`].
    pub fn homogeneous(n: u32, gpus: u32) -> Result<Cluster, SimError> {
        Cluster::from_groups(&[NodeGroup { count: n, gpus, cpu_milli: None, gpu_type: 0 }])
    }

    /// Nodes of each group in turn (the first group gets the lowest ids),
    /// within the default [`Limits`].
    pub fn from_groups(groups: &[NodeGroup]) -> Result<Cluster, SimError> {
        Cluster::from_groups_within(groups, &Limits::default())
    }

    /// As [`Cluster::from_groups`], within `limits`: the totals are checked
    /// before a single node is made, so a huge count costs nothing.
    pub fn from_groups_within(groups: &[NodeGroup], limits: &Limits) -> Result<Cluster, SimError> {
        let nodes: u64 = groups.iter().map(|g| g.count as u64).sum();
        let gpus: u64 = groups.iter().map(|g| g.count as u64 * g.gpus as u64).sum();
        limits.check(nodes, gpus)?;
        let nodes = groups
            .iter()
            .flat_map(|g| (0..g.count).map(|_| Node { gpus: g.gpus, cpu_milli: g.cpu_milli, gpu_type: g.gpu_type }))
            .collect();
        Cluster::from_nodes_within(nodes, limits)
    }

    /// A cluster of these nodes within the default [`Limits`]; every node needs at least one GPU.
    pub fn from_nodes(nodes: Vec<Node>) -> Result<Cluster, SimError> {
        Cluster::from_nodes_within(nodes, &Limits::default())
    }

    /// As [`Cluster::from_nodes`], within `limits`.
    pub fn from_nodes_within(nodes: Vec<Node>, limits: &Limits) -> Result<Cluster, SimError> {
        if nodes.is_empty() {
            return Err(SimError::BadCluster("no nodes".into()));
        }
        if let Some(i) = nodes.iter().position(|n| n.gpus == 0) {
            return Err(SimError::BadCluster(format!("node {i} has no GPU")));
        }
        let gpus: u64 = nodes.iter().map(|n| n.gpus as u64).sum();
        limits.check(nodes.len() as u64, gpus)?;
        Limits::new(limits.max_nodes, limits.max_gpus)?;
        Ok(Cluster { nodes })
    }

    /// The nodes, by id.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// All GPUs.
    pub fn total_gpus(&self) -> u64 {
        self.nodes.iter().map(|n| n.gpus as u64).sum()
    }

    /// Whether `job` can run on an otherwise empty cluster, and if not why.
    ///
    /// A job within one node's GPUs needs one node of its type with that many
    /// GPUs (and CPUs); a larger job needs whole nodes whose GPUs add up.
    pub fn check_job(&self, job: &Job) -> Result<(), Unplaceable> {
        let demand = job.demand().ok_or(Unplaceable::NoGpuDemand)?;
        let allowed: Vec<&Node> = self.nodes.iter().filter(|n| job.gpu_type.is_none_or(|t| t == n.gpu_type)).collect();
        let Some(largest) = allowed.iter().map(|n| n.gpus).max() else {
            return Err(Unplaceable::NoNodeOfType(job.gpu_type.unwrap_or(0)));
        };
        let need = match demand {
            Demand::Shared(_) => 1,
            Demand::Whole(g) => g,
        };
        if need > largest {
            let have: u64 = allowed.iter().map(|n| n.gpus as u64).sum();
            return if need as u64 > have { Err(Unplaceable::TooManyGpus { need, have }) } else { Ok(()) };
        }
        self.check_cpu(job, &allowed, need)
    }

    fn check_cpu(&self, job: &Job, allowed: &[&Node], need: u32) -> Result<(), Unplaceable> {
        let Some(cpu) = job.cpu_milli else { return Ok(()) };
        let fitting = allowed.iter().filter(|n| n.gpus >= need);
        let have = fitting.map(|n| n.cpu_milli.unwrap_or(u32::MAX)).max().unwrap_or(0);
        if cpu > have {
            return Err(Unplaceable::TooManyCpus { need: cpu, have });
        }
        Ok(())
    }
}
