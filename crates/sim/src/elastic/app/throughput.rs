//! The true (measured) speed of a training job: step time and gradient
//! synchronisation time as a function of its placement (GPUs on each node)
//! and per-GPU batch size, interpolated between the artifact's
//! measurements. This is what the simulated job *experiences*; the
//! scheduler only sees it through the model a job fits from what it has
//! observed ([`crate::elastic::model`]).
//!
//! - A placement measured in `placements.csv` (every placement of up to 4
//!   nodes of up to 4 GPUs) is linear in the per-GPU batch size between its
//!   measured sizes; a size outside them is an error (nothing was measured
//!   there).
//! - Any other placement (5 or more nodes) is interpolated on the lattice of
//!   measured (nodes, replicas, batch) points: the 1-4 node placements
//!   averaged per (nodes, replicas, batch), plus `scalability.csv` (6, 8,
//!   12 and 16 nodes). Within a lattice layer (one node count) lines of
//!   equal replica count are linear in the batch size (clamped to the
//!   line's range); between lines, linear in replicas per node; between
//!   layers, linear in the node count, which is capped at 16 (the largest
//!   measured). The artifact interpolates these points on a Delaunay
//!   triangulation instead (scipy's `LinearNDInterpolator`); both are
//!   linear between measured points, and they differ only where several
//!   triangulations are possible.
//!
//! A placement is identified up to rotation, as measured: `(4, 1)` is the
//! measured `14`, the lexicographically smallest rotation.

use std::collections::{BTreeMap, HashMap};

use super::tables::{PlacementRow, ScalabilityRow, Step};

/// A measured line: steps at ascending per-GPU batch sizes.
type Line = Vec<Step>;

/// Measured placements and the lattice for the others.
#[derive(Clone, Debug)]
pub struct Throughput {
    exact: HashMap<Vec<u32>, Line>,
    /// node count -> replica count -> line.
    lattice: BTreeMap<u32, BTreeMap<u32, Line>>,
}

/// Why no step time exists for a configuration.
#[derive(Clone, Debug, PartialEq)]
pub enum Unmeasured {
    /// The per-GPU batch size lies outside the sizes measured for this placement.
    Batch { placement: Vec<u32>, local_bsz: f64, min: f64, max: f64 },
    /// A placement without GPUs.
    Empty,
}

impl std::fmt::Display for Unmeasured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unmeasured::Batch { placement, local_bsz, min, max } => write!(
                f,
                "per-GPU batch size {local_bsz} on placement {placement:?} is outside the measured {min}..={max}"
            ),
            Unmeasured::Empty => f.write_str("a placement without GPUs has no step time"),
        }
    }
}

/// The largest node count measured; more nodes are read as this many.
const MAX_MEASURED_NODES: u32 = 16;

impl Throughput {
    pub fn new(placements: &[PlacementRow], scalability: &[ScalabilityRow]) -> Throughput {
        let mut exact: HashMap<Vec<u32>, Line> = HashMap::new();
        for r in placements {
            exact.entry(canonical(&r.placement)).or_default().push(r.step);
        }
        exact.values_mut().for_each(|l| l.sort_by(|a, b| a.local_bsz.total_cmp(&b.local_bsz)));
        Throughput { lattice: lattice(placements, scalability), exact }
    }

    /// (step time, sync time) in seconds of one iteration of `local_bsz`
    /// examples per GPU on `placement` (GPUs per node; zeros ignored).
    pub fn step(&self, placement: &[u32], local_bsz: f64) -> Result<(f64, f64), Unmeasured> {
        let p: Vec<u32> = placement.iter().copied().filter(|&g| g > 0).collect();
        if p.is_empty() {
            return Err(Unmeasured::Empty);
        }
        let key = canonical(&p);
        if let Some(line) = self.exact.get(&key) {
            let (min, max) = (line[0].local_bsz, line[line.len() - 1].local_bsz);
            if !(local_bsz >= min && local_bsz <= max) {
                return Err(Unmeasured::Batch { placement: key, local_bsz, min, max });
            }
            return Ok(on_line(line, local_bsz));
        }
        let nodes = (p.len() as u32).min(MAX_MEASURED_NODES);
        let replicas: u32 = p.iter().sum();
        Ok(self.on_lattice(nodes as f64, replicas as f64 / nodes as f64, local_bsz))
    }

    /// Linear between the bracketing node-count layers.
    fn on_lattice(&self, nodes: f64, per_node: f64, local_bsz: f64) -> (f64, f64) {
        let below = self.lattice.range(..=nodes as u32).next_back();
        let above = self.lattice.range(nodes.ceil() as u32..).next();
        match (below, above) {
            (Some((&n0, l0)), Some((&n1, l1))) if n0 != n1 => {
                let w = (nodes - n0 as f64) / (n1 - n0) as f64;
                lerp2(in_layer(l0, n0, per_node, local_bsz), in_layer(l1, n1, per_node, local_bsz), w)
            }
            (Some((&n, l)), _) | (None, Some((&n, l))) => in_layer(l, n, per_node, local_bsz),
            (None, None) => unreachable!("the lattice has layers"),
        }
    }
}

/// The lexicographically smallest rotation of a placement.
pub fn canonical(p: &[u32]) -> Vec<u32> {
    (0..p.len()).map(|i| [&p[i..], &p[..i]].concat()).min().unwrap_or_default()
}

/// Layers of the lattice: placements averaged per (nodes, replicas, batch),
/// then the scalability rows.
fn lattice(placements: &[PlacementRow], scalability: &[ScalabilityRow]) -> BTreeMap<u32, BTreeMap<u32, Line>> {
    // (nodes, replicas, batch bits) -> sums; batch sizes are integers in the tables.
    let mut sums: BTreeMap<(u32, u32, u64), (f64, f64, u32)> = BTreeMap::new();
    for r in placements {
        let key = (r.placement.len() as u32, r.placement.iter().sum(), r.step.local_bsz as u64);
        let e = sums.entry(key).or_insert((0.0, 0.0, 0));
        *e = (e.0 + r.step.step_time, e.1 + r.step.sync_time, e.2 + 1);
    }
    let mut out: BTreeMap<u32, BTreeMap<u32, Line>> = BTreeMap::new();
    for ((n, r, b), (step, sync, k)) in sums {
        let s = Step { local_bsz: b as f64, step_time: step / k as f64, sync_time: sync / k as f64 };
        out.entry(n).or_default().entry(r).or_default().push(s);
    }
    for r in scalability {
        out.entry(r.num_nodes).or_default().entry(r.num_replicas).or_default().push(r.step);
    }
    for layer in out.values_mut() {
        layer.values_mut().for_each(|l| l.sort_by(|a, b| a.local_bsz.total_cmp(&b.local_bsz)));
    }
    out
}

/// Within one layer: linear in replicas per node between the bracketing
/// lines (clamped to the layer's range).
fn in_layer(layer: &BTreeMap<u32, Line>, nodes: u32, per_node: f64, local_bsz: f64) -> (f64, f64) {
    let replicas = per_node * nodes as f64;
    let below = layer.range(..=replicas.floor() as u32).next_back();
    let above = layer.range(replicas.ceil() as u32..).next();
    match (below, above) {
        (Some((&r0, l0)), Some((&r1, l1))) if r0 != r1 => {
            let w = (replicas - r0 as f64) / (r1 - r0) as f64;
            lerp2(clamped(l0, local_bsz), clamped(l1, local_bsz), w)
        }
        (Some((_, l)), _) | (None, Some((_, l))) => clamped(l, local_bsz),
        (None, None) => unreachable!("a lattice layer has lines"),
    }
}

fn clamped(line: &Line, local_bsz: f64) -> (f64, f64) {
    let b = local_bsz.clamp(line[0].local_bsz, line[line.len() - 1].local_bsz);
    on_line(line, b)
}

/// Linear between the two measured sizes around `b` (which lies in range).
fn on_line(line: &Line, b: f64) -> (f64, f64) {
    let i = line.partition_point(|s| s.local_bsz < b);
    if i == 0 {
        return (line[0].step_time, line[0].sync_time);
    }
    let (lo, hi) = (&line[i - 1], &line[i.min(line.len() - 1)]);
    if hi.local_bsz == lo.local_bsz {
        return (hi.step_time, hi.sync_time);
    }
    let w = (b - lo.local_bsz) / (hi.local_bsz - lo.local_bsz);
    lerp2((lo.step_time, lo.sync_time), (hi.step_time, hi.sync_time), w)
}

fn lerp2(a: (f64, f64), b: (f64, f64), w: f64) -> (f64, f64) {
    (a.0 + (b.0 - a.0) * w, a.1 + (b.1 - a.1) * w)
}
