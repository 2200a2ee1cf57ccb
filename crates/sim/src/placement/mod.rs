//! Placement: which node (and, for fractional jobs, which GPU) a job that is
//! allowed to start goes on. One rule per file behind [`Rule`]; the walks they
//! share are in [`search`].
//!
//! Common to all rules (as in the owners' simulators): a job within one
//! node's GPUs goes on a single node; a larger job takes whole free nodes
//! (Helios' consolidating placer does so for multiples of 8 GPUs); the job's
//! GPU-type constraint limits the candidate nodes; CPUs are checked on nodes
//! that declare them.

mod first_fit;
mod least_shared;
mod pack;
mod random;
pub(crate) mod search;
mod spread;

use crate::config::Placement;
use crate::engine::nodes::{Nodes, SharedSpot};
use crate::job::Demand;
use crate::rng::Rng;
use search::Accept;

/// A placement rule.
pub(crate) trait Rule {
    /// A node with `g` free GPUs for a single-node job.
    fn node(&mut self, nodes: &Nodes, g: u32, ty: Option<u16>, accept: Accept) -> Option<u32>;
    /// A GPU with `milli` room for a fractional job.
    fn shared(&mut self, nodes: &Nodes, milli: u32, ty: Option<u16>, accept: Accept) -> Option<SharedSpot>;
    /// The generator for random choices of whole nodes, if the rule is random.
    fn rng(&mut self) -> Option<&mut Rng> {
        None
    }
}

/// The rule named by `placement` (`seed` feeds `random`).
pub(crate) fn rule(placement: Placement, seed: u64) -> Box<dyn Rule> {
    match placement {
        Placement::Pack => Box::new(pack::Pack),
        Placement::Spread => Box::new(spread::Spread),
        Placement::FirstFit => Box::new(first_fit::FirstFit),
        Placement::Random => Box::new(random::Random(Rng::new(seed))),
        Placement::LeastShared => Box::new(least_shared::LeastShared),
    }
}

/// Where a job was put.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Spot {
    /// `gpus` whole GPUs of one node.
    Node { node: u32, gpus: u32 },
    /// Whole nodes, each held entirely.
    Nodes(Vec<u32>),
    /// A fraction of one GPU.
    Shared(SharedSpot),
}

/// Finds a spot for `demand` without allocating it (`None`: does not fit now).
pub(crate) fn find(
    rule: &mut dyn Rule,
    nodes: &Nodes,
    demand: Demand,
    ty: Option<u16>,
    cpu: u32,
    extra: Accept,
) -> Option<Spot> {
    let accept = |n: u32| extra(n) && nodes.cpu_free(n) >= cpu;
    match demand {
        Demand::Shared(m) => rule.shared(nodes, m, ty, &accept).map(Spot::Shared),
        Demand::Whole(g) if g <= largest_node(nodes, ty) => {
            rule.node(nodes, g, ty, &accept).map(|node| Spot::Node { node, gpus: g })
        }
        Demand::Whole(g) => search::whole_nodes(nodes, g, ty, extra, rule.rng()).map(Spot::Nodes),
    }
}

/// GPUs of the largest node a job of type `ty` may use.
pub(crate) fn largest_node(nodes: &Nodes, ty: Option<u16>) -> u32 {
    nodes.matching(ty).map(|(_, g)| g.gpus).max().unwrap_or(0)
}
