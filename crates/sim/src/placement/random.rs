//! `random`: a seeded uniform choice among the nodes that fit (whole nodes of
//! large jobs are drawn too). Fractional jobs take a free GPU on a random node
//! that has one, else a uniformly drawn shared GPU with room.

use super::search::{uniform, uniform_gpu, Accept};
use super::Rule;
use crate::engine::nodes::{Nodes, SharedSpot};
use crate::rng::Rng;

pub(crate) struct Random(pub(crate) Rng);

impl Rule for Random {
    fn node(&mut self, nodes: &Nodes, g: u32, ty: Option<u16>, accept: Accept) -> Option<u32> {
        uniform(nodes, g, ty, accept, &mut self.0)
    }

    fn shared(&mut self, nodes: &Nodes, milli: u32, ty: Option<u16>, accept: Accept) -> Option<SharedSpot> {
        if let Some(node) = uniform(nodes, 1, ty, accept, &mut self.0) {
            return Some(SharedSpot::EmptyOn(node));
        }
        uniform_gpu(nodes, milli, ty, accept, &mut self.0).map(SharedSpot::Gpu)
    }

    fn rng(&mut self) -> Option<&mut Rng> {
        Some(&mut self.0)
    }
}
