//! The GPU models of the spot-GPU cluster and the node list written for
//! them. The counts are aggregates of the published `node_info_df.csv`
//! (4,278 nodes, 10,412 GPUs of six models); the file written is synthetic
//! (its own order and names), as the trace has no licence to copy from.
//! Per model: the node groups, the share of jobs, the offered load the
//! generator calibrates to (GPUs asked by running jobs / GPUs, GFS §2 and
//! alibaba/clusterdata#260), the GPUs per worker and vCPUs per GPU.

use crate::rng::Rng;

/// One node group: count at scale 1, GPUs and vCPUs per node.
pub type NodeGroup = (u32, u32, u32);

pub struct Model {
    pub name: &'static str,
    pub groups: &'static [NodeGroup],
    /// Share of the jobs asking for this model.
    pub job_share: f64,
    /// Mean over the trace of the GPUs asked by running jobs (workers x
    /// GPUs per worker over [submit, submit + duration)) / the model's GPUs.
    pub load: f64,
    /// GPUs per worker, with weights.
    pub per_worker: &'static [(u32, f64)],
    /// vCPUs per GPU.
    pub cpu_per_gpu: &'static [(u32, f64)],
}

/// The six models. A10 is oversubscribed: #260 measured 133 % of its GPUs
/// asked on average over the real trace (the paper's 84.59 % is an
/// allocation rate, which a queue keeps below 100 %); GFS §2 finds the
/// high-end models allocated below 80 %.
pub const MODELS: [Model; 6] = [
    Model {
        name: "A10",
        groups: &[(2492, 1, 128), (2, 1, 126)],
        job_share: 0.42,
        load: 1.33,
        per_worker: &[(1, 1.0)],
        cpu_per_gpu: &[(8, 0.4), (12, 0.2), (16, 0.2), (20, 0.2)],
    },
    Model {
        name: "GPU-series-1",
        groups: &[(901, 1, 192), (1, 1, 128), (10, 4, 192), (77, 8, 192)],
        job_share: 0.25,
        load: 0.95,
        per_worker: &[(1, 0.93), (4, 0.03), (8, 0.04)],
        cpu_per_gpu: &[(12, 0.5), (24, 0.5)],
    },
    Model {
        name: "A100-SXM4-80GB",
        groups: &[(432, 8, 128)],
        job_share: 0.2,
        load: 0.78,
        per_worker: &[(1, 0.45), (2, 0.1), (4, 0.15), (8, 0.3)],
        cpu_per_gpu: &[(15, 0.6), (16, 0.4)],
    },
    Model {
        name: "H800",
        groups: &[(219, 8, 192)],
        job_share: 0.08,
        load: 0.72,
        per_worker: &[(1, 0.3), (2, 0.1), (4, 0.15), (8, 0.45)],
        cpu_per_gpu: &[(20, 0.5), (24, 0.5)],
    },
    Model {
        name: "GPU-series-2",
        groups: &[(122, 8, 192)],
        job_share: 0.04,
        load: 0.6,
        per_worker: &[(1, 0.4), (2, 0.1), (4, 0.2), (8, 0.3)],
        cpu_per_gpu: &[(20, 0.5), (24, 0.5)],
    },
    Model {
        name: "A800-SXM4-80GB",
        groups: &[(22, 8, 128)],
        job_share: 0.01,
        load: 0.5,
        per_worker: &[(1, 0.4), (4, 0.2), (8, 0.4)],
        cpu_per_gpu: &[(15, 0.6), (16, 0.4)],
    },
];

/// A node of the written list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub model: usize,
    pub gpus: u32,
    pub cpus: u32,
}

/// The nodes at node share `f` (each model keeps at least one node of its
/// largest group), in a shuffled order.
pub fn nodes(f: f64, rng: &mut Rng) -> Vec<Node> {
    let mut out = Vec::new();
    for (m, model) in MODELS.iter().enumerate() {
        let largest = model.groups.iter().map(|g| g.1).max().unwrap_or(1);
        let before = out.len();
        for &(count, gpus, cpus) in model.groups {
            let mut n = (count as f64 * f).round() as u32;
            if n == 0 && gpus == largest && out.len() == before {
                n = 1;
            }
            out.extend((0..n).map(|_| Node { model: m, gpus, cpus }));
        }
        if out.len() == before {
            out.push(Node { model: m, gpus: largest, cpus: model.groups[0].2 });
        }
    }
    rng.shuffle(&mut out);
    out
}

/// GPUs of each model among `nodes`.
pub fn capacity(nodes: &[Node]) -> [u64; 6] {
    let mut cap = [0u64; 6];
    for n in nodes {
        cap[n.model] += n.gpus as u64;
    }
    cap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_scale_one_the_published_totals() {
        let all = nodes(1.0, &mut Rng::new(1));
        assert_eq!(all.len(), 4278);
        let cap = capacity(&all);
        assert_eq!(cap.iter().sum::<u64>(), 10_412);
        assert_eq!(cap[0], 2494);
        let small = nodes(0.01, &mut Rng::new(1));
        assert!(capacity(&small).iter().all(|&c| c > 0), "every model keeps a node");
    }
}
