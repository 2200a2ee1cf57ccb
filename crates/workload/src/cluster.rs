//! The simulated cluster, from `--cluster`:
//! - `from-trace`: the trace's own machines.
//!   PAI: `pai_machine_spec` grouped by (GPU type, GPUs, CPUs); the 83
//!   CPU-only machines are dropped (the engine schedules GPUs; CPU-only tasks
//!   are left out as asking for no GPU), and jobs keep their GPU-type pins.
//!   Philly: `cluster_machine_list` grouped by GPUs, untyped. Upstream issue
//!   #8 says this list contradicts the placements (8-GPU jobs on "2-GPU"
//!   machines), so jobs larger than it allows are reported as unplaceable.
//!   Helios: as HeliosArtifact's QSSF framework, each VC is its own cluster of
//!   8-GPU nodes, `VC GPUs // 8` of them, from `cluster_gpu_number.csv` on the
//!   last recorded day at or before the window start (in Helios' local time) (the first day if none);
//!   each VC is replayed separately and the runs are merged
//!   ([`crate::merge`]).
//! - `NxG` (`100x8`): N untyped nodes of G GPUs; GPU-type pins are ignored.
//! - a TOML file: `[[group]]` tables with `count`, `gpus`, optional `cpus` and
//!   `gpu_type`. Pins are kept when any group names a GPU type.
//!
//! Must not: decide which jobs run (that is [`crate::prepare`]).

use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde::Deserialize;

use tracelab_analysis::frame;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::{helios, pai, philly, Trace};
use tracelab_sim::csv::Interner;
use tracelab_sim::{Cluster, Millis, NodeGroup};
use tracelab_store::Store;

/// `--cluster`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClusterSpec {
    FromTrace,
    Shape { nodes: u32, gpus: u32 },
    File(PathBuf),
}

impl ClusterSpec {
    pub fn parse(raw: &str) -> Result<ClusterSpec> {
        if raw == "from-trace" {
            return Ok(ClusterSpec::FromTrace);
        }
        if raw.ends_with(".toml") {
            return Ok(ClusterSpec::File(PathBuf::from(raw)));
        }
        let shape = raw.split_once('x').and_then(|(n, g)| Some((n.parse::<u32>().ok()?, g.parse::<u32>().ok()?)));
        match shape {
            Some((nodes, gpus)) if nodes > 0 && gpus > 0 => Ok(ClusterSpec::Shape { nodes, gpus }),
            _ => Err(Error::Usage(format!(
                "--cluster {raw}: expected from-trace, NODESxGPUS (e.g. 100x8, both > 0) or a .toml file of node groups"
            ))),
        }
    }
}

/// A node group as the output shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupDesc {
    pub count: u32,
    pub gpus: u32,
    pub cpus: Option<u32>,
    /// GPU type name; empty when untyped.
    pub gpu_type: String,
}

/// One independently replayed part of the cluster.
#[derive(Clone, Debug)]
pub struct Partition {
    /// `cluster` for a whole cluster, `Cluster/vc` for a Helios VC.
    pub name: String,
    /// The VC name whose jobs run here; `None` = every job.
    pub vc: Option<String>,
    pub groups: Vec<GroupDesc>,
    pub cluster: Cluster,
}

/// The cluster of a replay.
#[derive(Clone, Debug)]
pub struct SimCluster {
    pub partitions: Vec<Partition>,
    /// Whether jobs' GPU-type pins apply.
    pub typed: bool,
    /// Where it came from and what was dropped, one sentence each.
    pub notes: Vec<String>,
}

impl SimCluster {
    pub fn total_gpus(&self) -> u64 {
        self.partitions.iter().map(|p| p.cluster.total_gpus()).sum()
    }
}

/// The GPU type of nodes without one: no job is pinned to it.
pub const UNTYPED: &str = "(untyped)";

/// Builds a cluster from node groups; GPU types interned into `types`.
fn partition(name: &str, vc: Option<String>, groups: Vec<GroupDesc>, types: &mut Interner) -> Result<Partition> {
    let ng: Vec<NodeGroup> = groups
        .iter()
        .map(|g| NodeGroup {
            count: g.count,
            gpus: g.gpus,
            cpu_milli: g.cpus.map(|c| c.saturating_mul(1000)),
            gpu_type: types.id(if g.gpu_type.is_empty() { UNTYPED } else { &g.gpu_type }) as u16,
        })
        .collect();
    let cluster = Cluster::from_groups(&ng).map_err(|e| Error::Usage(format!("--cluster: {e}")))?;
    Ok(Partition { name: name.into(), vc, groups, cluster })
}

/// `--cluster NxG`.
pub fn shape(nodes: u32, gpus: u32, types: &mut Interner) -> Result<SimCluster> {
    let g = GroupDesc { count: nodes, gpus, cpus: None, gpu_type: String::new() };
    let p = partition("cluster", None, vec![g], types)?;
    let notes = vec![format!("{nodes} nodes of {gpus} GPUs (--cluster {nodes}x{gpus}); GPU-type pins ignored")];
    Ok(SimCluster { partitions: vec![p], typed: false, notes })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    group: Vec<FileGroup>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileGroup {
    count: u32,
    gpus: u32,
    cpus: Option<u32>,
    gpu_type: Option<String>,
}

/// `--cluster FILE.toml`.
pub fn from_file(path: &Path, types: &mut Interner) -> Result<SimCluster> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Usage(format!("--cluster {}: {e}", path.display())))?;
    let spec: FileSpec = toml::from_str(&text).map_err(|e| {
        let line = e.span().map_or(0, |s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        Error::Usage(format!(
            "--cluster {}, line {line}: {} (expected [[group]] tables with count, gpus, optional cpus and gpu_type)",
            path.display(),
            e.message()
        ))
    })?;
    if let Some(i) = spec.group.iter().position(|g| g.count == 0 || g.gpus == 0) {
        return Err(Error::Usage(format!(
            "--cluster {}: group {} has count or gpus 0 (expected at least one node of at least one GPU)",
            path.display(),
            i + 1
        )));
    }
    let typed = spec.group.iter().any(|g| g.gpu_type.is_some());
    let groups = spec
        .group
        .into_iter()
        .map(|g| GroupDesc { count: g.count, gpus: g.gpus, cpus: g.cpus, gpu_type: g.gpu_type.unwrap_or_default() })
        .collect();
    let p = partition("cluster", None, groups, types)?;
    let pins = if typed { "GPU-type pins apply" } else { "no GPU type named, pins ignored" };
    Ok(SimCluster { partitions: vec![p], typed, notes: vec![format!("node groups of {} ({pins})", path.display())] })
}

/// `--cluster from-trace`; `origin` (the window start, epoch ms) picks the
/// Helios day; `clusters` limits Helios to some clusters.
pub fn from_trace(
    store: &Store,
    trace: Trace,
    helios_cluster: Option<&str>,
    origin: Millis,
    types: &mut Interner,
) -> Result<SimCluster> {
    match trace {
        Trace::Pai => pai_machines(store, types),
        Trace::Philly => philly_machines(store, types),
        Trace::Helios => helios_vcs(store, helios_cluster, origin, types),
        Trace::Swf => Err(Error::Usage("--trace swf: SWF logs are not a source of simulate or export".into())),
    }
}

fn pai_machines(store: &Store, types: &mut Interner) -> Result<SimCluster> {
    let lf = store
        .scan(&pai::MACHINE_SPEC)?
        .group_by([col("gpu_type"), col("cap_gpu"), col("cap_cpu")])
        .agg([len().alias("n")])
        .sort(["gpu_type", "cap_gpu", "cap_cpu"], SortMultipleOptions::default());
    let df = frame::collect(lf, "pai: machine groups")?;
    let (ty, gpus, cpus, n) = (
        frame::strs(&df, "gpu_type")?,
        frame::i64s(&df, "cap_gpu")?,
        frame::i64s(&df, "cap_cpu")?,
        frame::i64s(&df, "n")?,
    );
    let mut groups = Vec::new();
    let mut cpu_only = 0;
    for i in 0..df.height() {
        let count = n[i].unwrap_or(0) as u32;
        match gpus[i].filter(|g| *g > 0) {
            Some(g) => groups.push(GroupDesc {
                count,
                gpus: g as u32,
                cpus: cpus[i].map(|c| c.max(0) as u32),
                gpu_type: ty[i].clone().unwrap_or_default(),
            }),
            None => cpu_only += count,
        }
    }
    if groups.is_empty() {
        return Err(no_gpu_nodes("pai/machine_spec.parquet"));
    }
    let p = partition("pai", None, groups, types)?;
    let note = format!(
        "PAI machine_spec: {} GPU machines, {cpu_only} CPU-only machines dropped; GPU-type pins (gpu_type_spec) apply",
        p.cluster.nodes().len()
    );
    Ok(SimCluster { partitions: vec![p], typed: true, notes: vec![note] })
}

fn philly_machines(store: &Store, types: &mut Interner) -> Result<SimCluster> {
    let lf = store
        .scan(&philly::MACHINES)?
        .group_by([col("gpus")])
        .agg([len().alias("n")])
        .sort(["gpus"], SortMultipleOptions::default());
    let df = frame::collect(lf, "philly: machine groups")?;
    let (gpus, n) = (frame::i64s(&df, "gpus")?, frame::i64s(&df, "n")?);
    let groups: Vec<GroupDesc> = (0..df.height())
        .filter_map(|i| {
            let g = gpus[i].filter(|g| *g > 0)? as u32;
            Some(GroupDesc { count: n[i].unwrap_or(0) as u32, gpus: g, cpus: None, gpu_type: String::new() })
        })
        .collect();
    if groups.is_empty() {
        return Err(no_gpu_nodes("philly/machines.parquet"));
    }
    let p = partition("philly", None, groups, types)?;
    let note = format!(
        "Philly cluster_machine_list: {} machines; upstream issue #8 says the list contradicts the job placements, so jobs it cannot hold are left out as unplaceable",
        p.cluster.nodes().len()
    );
    Ok(SimCluster { partitions: vec![p], typed: false, notes: vec![note] })
}

/// HeliosArtifact's QSSF setup: one partition per VC, `GPUs // 8` nodes of 8 GPUs.
fn helios_vcs(store: &Store, only: Option<&str>, origin: Millis, types: &mut Interner) -> Result<SimCluster> {
    let day = local_day(origin);
    let mut lf = store.scan(&helios::VC_GPUS)?;
    if let Some(c) = only {
        lf = lf.filter(col("cluster").eq(lit(c.to_string())));
    }
    let lf = lf
        .select([col("cluster"), col("vc"), col("gpus"), col("date").cast(DataType::Int32).alias("day")])
        .sort(["cluster", "vc"], SortMultipleOptions::default());
    let df = frame::collect(lf, "helios: VC GPUs per day")?;
    let (cl, vc, gpus, days) =
        (frame::strs(&df, "cluster")?, frame::strs(&df, "vc")?, frame::i64s(&df, "gpus")?, frame::i64s(&df, "day")?);
    // Per cluster: the last day <= the window start, else the first day.
    let mut chosen: std::collections::BTreeMap<String, i64> = std::collections::BTreeMap::new();
    for (c, d) in cl.iter().zip(&days) {
        let (Some(c), Some(d)) = (c, d) else { continue };
        let slot = chosen.entry(c.clone()).or_insert(*d);
        let better = match (*slot <= day as i64, *d <= day as i64) {
            (true, true) => *d > *slot,
            (false, true) => true,
            (false, false) => *d < *slot,
            (true, false) => false,
        };
        if better {
            *slot = *d;
        }
    }
    let mut parts = Vec::new();
    let mut small = Vec::new();
    for i in 0..df.height() {
        let c = cl[i].clone().unwrap_or_default();
        if days[i] != chosen.get(&c).copied() {
            continue;
        }
        let name = format!("{c}/{}", vc[i].clone().unwrap_or_default());
        let nodes = (gpus[i].unwrap_or(0).max(0) / 8) as u32;
        if nodes == 0 {
            small.push(name);
            continue;
        }
        let g = GroupDesc { count: nodes, gpus: 8, cpus: None, gpu_type: String::new() };
        parts.push(partition(&name, Some(name.clone()), vec![g], types)?);
    }
    if parts.is_empty() {
        return Err(no_gpu_nodes("helios/vc_gpus.parquet (no VC with 8 GPUs or more)"));
    }
    let days: Vec<String> = chosen.iter().map(|(c, d)| format!("{c} {}", civil(*d))).collect();
    let note = format!(
        "Helios cluster_gpu_number on {}: each VC replayed separately on VC GPUs // 8 nodes of 8 GPUs (HeliosArtifact's QSSF setup), {} VCs; {} VCs with fewer than 8 GPUs have no nodes",
        days.join(", "),
        parts.len(),
        small.len()
    );
    Ok(SimCluster { partitions: parts, typed: false, notes: vec![note] })
}

/// A trace whose machine table yields no GPU node.
fn no_gpu_nodes(file: &str) -> Error {
    Error::input(file, "no machine with a GPU: no cluster to replay on (use --cluster NODESxGPUS)")
}

/// The Helios-local calendar day (days since the epoch) of an instant:
/// `cluster_gpu_number` dates are local days, while store timestamps are UTC.
fn local_day(ms: Millis) -> i32 {
    let tz: chrono_tz::Tz =
        Trace::Helios.local_tz().parse().expect("the zones of Trace::local_tz are valid IANA names");
    let utc = chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default();
    let local = utc.with_timezone(&tz).date_naive();
    (local - chrono::NaiveDate::from_ymd_opt(1970, 1, 1).expect("the epoch")).num_days() as i32
}

/// Days since the Unix epoch as `YYYY-MM-DD`.
fn civil(days: i64) -> String {
    chrono::DateTime::from_timestamp(days * 86_400, 0)
        .map_or_else(|| days.to_string(), |t| t.format("%Y-%m-%d").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_specs_parse_and_bad_ones_say_what_is_expected() {
        assert_eq!(ClusterSpec::parse("from-trace").unwrap(), ClusterSpec::FromTrace);
        assert_eq!(ClusterSpec::parse("100x8").unwrap(), ClusterSpec::Shape { nodes: 100, gpus: 8 });
        assert_eq!(ClusterSpec::parse("c.toml").unwrap(), ClusterSpec::File("c.toml".into()));
        for bad in ["0x8", "8x0", "8", "x8", "big"] {
            let e = ClusterSpec::parse(bad).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            assert!(e.to_string().contains("expected from-trace, NODESxGPUS"), "{e}");
        }
    }

    #[test]
    fn a_toml_cluster_reads_groups_and_types() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(
            &path,
            "[[group]]\ncount = 2\ngpus = 8\ncpus = 96\ngpu_type = \"V100\"\n\n[[group]]\ncount = 3\ngpus = 2\n",
        )
        .unwrap();
        let mut types = Interner::default();
        let c = from_file(&path, &mut types).unwrap();
        assert!(c.typed);
        assert_eq!(c.total_gpus(), 2 * 8 + 3 * 2);
        let nodes = c.partitions[0].cluster.nodes();
        assert_eq!(nodes.len(), 5);
        assert_eq!((nodes[0].gpu_type, nodes[0].cpu_milli), (0, Some(96_000)));
        assert_eq!((nodes[4].gpu_type, nodes[4].cpu_milli), (1, None));
        assert_eq!(types.names, ["V100", UNTYPED]);
        std::fs::write(&path, "[[group]]\ncount = 2\ngpu = 8\n").unwrap();
        let e = from_file(&path, &mut types).unwrap_err();
        assert!(e.to_string().contains("line 1") || e.to_string().contains("line 3"), "{e}");
        assert!(e.to_string().contains("unknown field"), "{e}");
    }
}
