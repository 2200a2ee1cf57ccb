//! `pack`: consolidate. The fullest node that fits (best fit, ties by lowest
//! id), as HeliosArtifact's `consolidate` placer sorts nodes by free GPUs
//! ascending; fractional jobs go to the most used shared GPU with room before
//! opening a free GPU, which maximises sharing.

use super::search::{fullest, most_used_gpu, Accept};
use super::Rule;
use crate::engine::nodes::{Nodes, SharedSpot};

pub(crate) struct Pack;

impl Rule for Pack {
    fn node(&mut self, nodes: &Nodes, g: u32, ty: Option<u16>, accept: Accept) -> Option<u32> {
        fullest(nodes, g, ty, accept)
    }

    fn shared(&mut self, nodes: &Nodes, milli: u32, ty: Option<u16>, accept: Accept) -> Option<SharedSpot> {
        let gpu = most_used_gpu(nodes, milli, ty, accept).map(SharedSpot::Gpu);
        gpu.or_else(|| fullest(nodes, 1, ty, accept).map(SharedSpot::EmptyOn))
    }
}
