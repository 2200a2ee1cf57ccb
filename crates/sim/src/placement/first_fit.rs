//! `first-fit`: the lowest-numbered node with room. This is what the PAI
//! simulator calls packing (`sort_node_policy = 0` sorts nodes by id and takes
//! the first that fits). Fractional jobs are placed as by `pack`.

use super::search::{fullest, lowest_id, most_used_gpu, Accept};
use super::Rule;
use crate::engine::nodes::{Nodes, SharedSpot};

pub(crate) struct FirstFit;

impl Rule for FirstFit {
    fn node(&mut self, nodes: &Nodes, g: u32, ty: Option<u16>, accept: Accept) -> Option<u32> {
        lowest_id(nodes, g, ty, accept)
    }

    fn shared(&mut self, nodes: &Nodes, milli: u32, ty: Option<u16>, accept: Accept) -> Option<SharedSpot> {
        let gpu = most_used_gpu(nodes, milli, ty, accept).map(SharedSpot::Gpu);
        gpu.or_else(|| fullest(nodes, 1, ty, accept).map(SharedSpot::EmptyOn))
    }
}
