//! `least-shared`: interference-aware sharing. A fractional job takes a free
//! GPU (on the emptiest node) when there is one, else the shared GPU with the
//! fewest co-located jobs, so that fewer jobs suffer the sharing slowdown
//! (Horus measured 2.4-3.4x for bad pairs). Whole-GPU jobs are packed, which
//! keeps free GPUs on other nodes for fractional jobs.

use super::search::{emptiest, fullest, least_shared_gpu, Accept};
use super::Rule;
use crate::engine::nodes::{Nodes, SharedSpot};

pub(crate) struct LeastShared;

impl Rule for LeastShared {
    fn node(&mut self, nodes: &Nodes, g: u32, ty: Option<u16>, accept: Accept) -> Option<u32> {
        fullest(nodes, g, ty, accept)
    }

    fn shared(&mut self, nodes: &Nodes, milli: u32, ty: Option<u16>, accept: Accept) -> Option<SharedSpot> {
        let empty = emptiest(nodes, 1, ty, accept).map(SharedSpot::EmptyOn);
        empty.or_else(|| least_shared_gpu(nodes, milli, ty, accept).map(SharedSpot::Gpu))
    }
}
