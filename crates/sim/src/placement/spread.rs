//! `spread`: max-min balance. The node with the largest free share of its
//! GPUs (ties by lowest id), like the PAI simulator's `sort_node_policy = 3`
//! (lowest utilisation first) when jobs ask for no CPU; fractional jobs take a
//! free GPU on the emptiest node, else the least used shared GPU.

use super::search::{emptiest, least_used_gpu, Accept};
use super::Rule;
use crate::engine::nodes::{Nodes, SharedSpot};

pub(crate) struct Spread;

impl Rule for Spread {
    fn node(&mut self, nodes: &Nodes, g: u32, ty: Option<u16>, accept: Accept) -> Option<u32> {
        emptiest(nodes, g, ty, accept)
    }

    fn shared(&mut self, nodes: &Nodes, milli: u32, ty: Option<u16>, accept: Accept) -> Option<SharedSpot> {
        let empty = emptiest(nodes, 1, ty, accept).map(SharedSpot::EmptyOn);
        empty.or_else(|| least_used_gpu(nodes, milli, ty, accept).map(SharedSpot::Gpu))
    }
}
