//! The simulated cluster: nodes with a GPU count, a GPU type and optionally a
//! CPU count; builders for homogeneous clusters and node groups; and the
//! check of whether a job could ever run on it.

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

/// Nodes, numbered by position (node id = index).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cluster {
    nodes: Vec<Node>,
}

impl Cluster {
    /// `n` nodes of `gpus` GPUs each, GPU type 0, CPUs unmodelled.
    pub fn homogeneous(n: u32, gpus: u32) -> Result<Cluster, SimError> {
        Cluster::from_groups(&[NodeGroup { count: n, gpus, cpu_milli: None, gpu_type: 0 }])
    }

    /// Nodes of each group in turn (the first group gets the lowest ids).
    pub fn from_groups(groups: &[NodeGroup]) -> Result<Cluster, SimError> {
        let nodes = groups
            .iter()
            .flat_map(|g| (0..g.count).map(|_| Node { gpus: g.gpus, cpu_milli: g.cpu_milli, gpu_type: g.gpu_type }))
            .collect();
        Cluster::from_nodes(nodes)
    }

    /// A cluster of these nodes; every node needs at least one GPU.
    pub fn from_nodes(nodes: Vec<Node>) -> Result<Cluster, SimError> {
        if nodes.is_empty() {
            return Err(SimError::BadCluster("no nodes".into()));
        }
        if let Some(i) = nodes.iter().position(|n| n.gpus == 0) {
            return Err(SimError::BadCluster(format!("node {i} has no GPU")));
        }
        if nodes.len() > u32::MAX as usize / 2 {
            return Err(SimError::BadCluster("too many nodes".into()));
        }
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
