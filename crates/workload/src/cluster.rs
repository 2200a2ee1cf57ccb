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
//!   AcmeTrace: each cluster on its own nodes of 8 A100 GPUs, as NSDI'24
//!   Sec 2 gives them (Seren 286, Kalos 302; the trace has no node list).
//!   Spot: `node_info_df` grouped by (GPU model, GPUs, CPUs); every job is
//!   pinned to its GPU model.
//! - `NxG` (`100x8`): N untyped nodes of G GPUs; GPU-type pins are ignored.
//! - a TOML file: `[[group]]` tables with `count`, `gpus`, optional `cpus` and
//!   `gpu_type`. Pins are kept when any group names a GPU type.
//!
//! Every cluster stays within [`Limits`] (nodes and GPUs over all partitions,
//! checked from the counts before a node is made; `--max-nodes`,
//! `--max-gpus`) and within [`tracelab_sim::csv::MAX_GPU_TYPES`] GPU types; a cluster file within
//! [`MAX_FILE_BYTES`]. A refusal names the file and line, or the option.
//!
//! Must not: decide which jobs run (that is [`crate::prepare`]).

use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde::Deserialize;

use tracelab_analysis::frame;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::{helios, pai, philly, spot, Trace};
use tracelab_sim::cluster::{MAX_GPUS, MAX_NODES};
use tracelab_sim::csv::Interner;
use tracelab_sim::{Cluster, Limits, Millis, NodeGroup, SimError};
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
        let shape = raw.split_once('x').and_then(|(n, g)| Some((n.parse::<u64>().ok()?, g.parse::<u64>().ok()?)));
        match shape {
            Some((nodes, gpus)) if nodes > 0 && gpus > 0 => {
                // Beyond 32 bits no option can help: say so rather than "expected NxG".
                let ids = |n: u64, max: u64, what: &str| {
                    (n <= max).then_some(n as u32).ok_or_else(|| {
                        Error::Usage(format!("--cluster {raw}: {n} {what}, more than the {max} that 32-bit ids allow"))
                    })
                };
                Ok(ClusterSpec::Shape {
                    nodes: ids(nodes, MAX_NODES, "nodes")?,
                    gpus: ids(gpus, MAX_GPUS, "GPUs per node")?,
                })
            }
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

/// The largest cluster file read: far more than any list of node groups.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// A ceiling crossed, with the option that raises it.
fn too_large(e: SimError) -> String {
    too_large_with(e, "")
}

/// The same, with `more` said after the count.
fn too_large_with(e: SimError, more: &str) -> String {
    let hint = match &e {
        SimError::TooLarge { what: "nodes", .. } => " (raise it with --max-nodes)",
        SimError::TooLarge { what: "GPUs", .. } => " (raise it with --max-gpus)",
        _ => "",
    };
    match e {
        SimError::TooLarge { what, have, limit } => {
            format!("{have} {what}{more}, more than the limit of {limit}{hint}")
        }
        e => format!("{e}{hint}"),
    }
}

/// Checks the nodes and GPUs of `groups` (over all partitions) against
/// `limits`, in 64-bit sums, before any node is made.
fn check_size<'a>(groups: impl IntoIterator<Item = &'a GroupDesc>, limits: &Limits) -> std::result::Result<(), String> {
    let (mut nodes, mut gpus) = (0u64, 0u64);
    for g in groups {
        nodes += g.count as u64;
        gpus += g.count as u64 * g.gpus as u64;
    }
    limits.check(nodes, gpus).map_err(too_large)
}

/// Builds a cluster from node groups (already checked against the limits);
/// GPU types interned into `types`; `source` names the cluster in errors.
fn partition(
    name: &str,
    vc: Option<String>,
    groups: Vec<GroupDesc>,
    types: &mut Interner,
    limits: &Limits,
    source: &str,
) -> Result<Partition> {
    let mut ng = Vec::with_capacity(groups.len());
    for g in &groups {
        let ty = types
            .gpu_type(if g.gpu_type.is_empty() { UNTYPED } else { &g.gpu_type })
            .map_err(|e| Error::Usage(format!("{source}: {e}")))?;
        ng.push(NodeGroup {
            count: g.count,
            gpus: g.gpus,
            cpu_milli: g.cpus.map(|c| c.saturating_mul(1000)),
            gpu_type: ty,
        });
    }
    let cluster =
        Cluster::from_groups_within(&ng, limits).map_err(|e| Error::Usage(format!("{source}: {}", too_large(e))))?;
    Ok(Partition { name: name.into(), vc, groups, cluster })
}

/// `--cluster NxG`, within `limits`.
pub fn shape(nodes: u32, gpus: u32, types: &mut Interner, limits: &Limits) -> Result<SimCluster> {
    let g = GroupDesc { count: nodes, gpus, cpus: None, gpu_type: String::new() };
    let source = format!("--cluster {nodes}x{gpus}");
    check_size([&g], limits).map_err(|e| Error::Usage(format!("{source}: {e}")))?;
    let p = partition("cluster", None, vec![g], types, limits, &source)?;
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
    /// 64-bit, so that a count past 32 bits is refused with the limit.
    count: toml::Spanned<u64>,
    gpus: toml::Spanned<u64>,
    cpus: Option<u32>,
    gpu_type: Option<toml::Spanned<String>>,
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// `--cluster FILE.toml`, within `limits`.
pub fn from_file(path: &Path, types: &mut Interner, limits: &Limits) -> Result<SimCluster> {
    let shown = path.display();
    let text = read_small(path)?;
    let spec: FileSpec = toml::from_str(&text).map_err(|e| {
        let line = e.span().map_or(0, |s| line_of(&text, s.start));
        Error::Usage(format!(
            "--cluster {shown}, line {line}: {} (expected [[group]] tables with count, gpus, optional cpus and gpu_type)",
            e.message()
        ))
    })?;
    let at = |span: std::ops::Range<usize>, what: String| {
        Error::Usage(format!("--cluster {shown}, line {}: {what}", line_of(&text, span.start)))
    };
    let typed = spec.group.iter().any(|g| g.gpu_type.is_some());
    let (mut nodes, mut gpus) = (0u64, 0u64);
    let mut groups = Vec::with_capacity(spec.group.len());
    for (i, g) in spec.group.iter().enumerate() {
        let (count, per_node) = (*g.count.get_ref(), *g.gpus.get_ref());
        if count == 0 || per_node == 0 {
            let span = if count == 0 { g.count.span() } else { g.gpus.span() };
            return Err(at(span, "count and gpus must be at least 1".into()));
        }
        // The group that takes a total past its ceiling is the one named.
        nodes = nodes.saturating_add(count);
        gpus = gpus.saturating_add(count.saturating_mul(per_node));
        if let Err(e) = limits.check(nodes, gpus) {
            let span = if nodes > limits.max_nodes { g.count.span() } else { g.gpus.span() };
            let above = if i > 0 { " with the groups above" } else { "" };
            return Err(at(span, too_large_with(e, above)));
        }
        if let Some(t) = g.gpu_type.as_ref().filter(|t| !t.get_ref().is_empty()) {
            types.gpu_type(t.get_ref()).map_err(|e| at(t.span(), e.to_string()))?;
        }
        let gpu_type = g.gpu_type.as_ref().map(|t| t.get_ref().clone()).unwrap_or_default();
        groups.push(GroupDesc { count: count as u32, gpus: per_node as u32, cpus: g.cpus, gpu_type });
    }
    let p = partition("cluster", None, groups, types, limits, &format!("--cluster {shown}"))?;
    let pins = if typed { "GPU-type pins apply" } else { "no GPU type named, pins ignored" };
    Ok(SimCluster { partitions: vec![p], typed, notes: vec![format!("node groups of {shown} ({pins})")] })
}

/// A cluster file's text, refused beyond [`MAX_FILE_BYTES`].
fn read_small(path: &Path) -> Result<String> {
    use std::io::Read;
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| Error::Usage(format!("--cluster {shown}: {e}")))?;
    let mut text = String::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| Error::Usage(format!("--cluster {shown}: {e}")))?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::Usage(format!(
            "--cluster {shown}: larger than {MAX_FILE_BYTES} bytes (a list of node groups is a few lines)"
        )));
    }
    Ok(text)
}

/// `--cluster from-trace`; `origin` (the window start, epoch ms) picks the
/// Helios day; `helios_cluster` limits Helios (or AcmeTrace) to one cluster.
pub fn from_trace(
    store: &Store,
    trace: Trace,
    helios_cluster: Option<&str>,
    origin: Millis,
    types: &mut Interner,
    limits: &Limits,
) -> Result<SimCluster> {
    match trace {
        Trace::Pai => pai_machines(store, types, limits),
        Trace::Philly => philly_machines(store, types, limits),
        Trace::Helios => helios_vcs(store, helios_cluster, origin, types, limits),
        Trace::Acme => acme_clusters(helios_cluster, types, limits),
        Trace::Spot => spot_nodes(store, types, limits),
        Trace::Swf => Err(Error::Usage("--trace swf: SWF logs are not a source of simulate or export".into())),
    }
}

/// A count read from a store, saturated into 32 bits (the limits then refuse it).
fn count32(x: i64) -> u32 {
    x.clamp(0, u32::MAX as i64) as u32
}

/// A trace's machines checked against the limits before any node is made.
fn check_trace(file: &str, groups: &[GroupDesc], limits: &Limits) -> Result<()> {
    check_size(groups.iter(), limits).map_err(|e| Error::Usage(format!("--cluster from-trace ({file}): {e}")))
}

/// A machine table's nodes grouped by (GPU type, GPUs, CPUs), the columns
/// named by `cols` in that order: the groups with GPUs, and how many nodes
/// have none (left out of the cluster).
fn typed_groups(lf: LazyFrame, cols: [&str; 3], what: &str) -> Result<(Vec<GroupDesc>, u64)> {
    let lf = lf.group_by(cols.map(col)).agg([len().alias("n")]).sort(cols, SortMultipleOptions::default());
    let df = frame::collect(lf, what)?;
    let (ty, gpus, cpus, n) =
        (frame::strs(&df, cols[0])?, frame::i64s(&df, cols[1])?, frame::i64s(&df, cols[2])?, frame::i64s(&df, "n")?);
    let mut groups = Vec::new();
    let mut gpuless = 0;
    for i in 0..df.height() {
        let count = count32(n[i].unwrap_or(0));
        match gpus[i].filter(|g| *g > 0) {
            Some(g) => groups.push(GroupDesc {
                count,
                gpus: count32(g),
                cpus: cpus[i].map(count32),
                gpu_type: ty[i].clone().unwrap_or_default(),
            }),
            None => gpuless += count as u64,
        }
    }
    Ok((groups, gpuless))
}

fn pai_machines(store: &Store, types: &mut Interner, limits: &Limits) -> Result<SimCluster> {
    let (groups, cpu_only) =
        typed_groups(store.scan(&pai::MACHINE_SPEC)?, ["gpu_type", "cap_gpu", "cap_cpu"], "pai: machine groups")?;
    if groups.is_empty() {
        return Err(no_gpu_nodes("pai/machine_spec.parquet"));
    }
    let file = "pai/machine_spec.parquet";
    check_trace(file, &groups, limits)?;
    let p = partition("pai", None, groups, types, limits, &format!("--cluster from-trace ({file})"))?;
    let note = format!(
        "PAI machine_spec: {} GPU machines, {cpu_only} CPU-only machines dropped; GPU-type pins (gpu_type_spec) apply",
        p.cluster.nodes().len()
    );
    Ok(SimCluster { partitions: vec![p], typed: true, notes: vec![note] })
}

fn philly_machines(store: &Store, types: &mut Interner, limits: &Limits) -> Result<SimCluster> {
    let lf = store
        .scan(&philly::MACHINES)?
        .group_by([col("gpus")])
        .agg([len().alias("n")])
        .sort(["gpus"], SortMultipleOptions::default());
    let df = frame::collect(lf, "philly: machine groups")?;
    let (gpus, n) = (frame::i64s(&df, "gpus")?, frame::i64s(&df, "n")?);
    let groups: Vec<GroupDesc> = (0..df.height())
        .filter_map(|i| {
            let g = count32(gpus[i].filter(|g| *g > 0)?);
            Some(GroupDesc { count: count32(n[i].unwrap_or(0)), gpus: g, cpus: None, gpu_type: String::new() })
        })
        .collect();
    if groups.is_empty() {
        return Err(no_gpu_nodes("philly/machines.parquet"));
    }
    let file = "philly/machines.parquet";
    check_trace(file, &groups, limits)?;
    let p = partition("philly", None, groups, types, limits, &format!("--cluster from-trace ({file})"))?;
    let note = format!(
        "Philly cluster_machine_list: {} machines; upstream issue #8 says the list contradicts the job placements, so jobs it cannot hold are left out as unplaceable",
        p.cluster.nodes().len()
    );
    Ok(SimCluster { partitions: vec![p], typed: false, notes: vec![note] })
}

/// HeliosArtifact's QSSF setup: one partition per VC, `GPUs // 8` nodes of 8 GPUs.
fn helios_vcs(
    store: &Store,
    only: Option<&str>,
    origin: Millis,
    types: &mut Interner,
    limits: &Limits,
) -> Result<SimCluster> {
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
    let mut vcs = Vec::new();
    let mut small = Vec::new();
    for i in 0..df.height() {
        let c = cl[i].clone().unwrap_or_default();
        if days[i] != chosen.get(&c).copied() {
            continue;
        }
        let name = format!("{c}/{}", vc[i].clone().unwrap_or_default());
        let nodes = count32(gpus[i].unwrap_or(0) / 8);
        if nodes == 0 {
            small.push(name);
            continue;
        }
        vcs.push((name, GroupDesc { count: nodes, gpus: 8, cpus: None, gpu_type: String::new() }));
    }
    // The VCs are replayed one by one, but their runs are merged: the limits
    // hold over all of them.
    let file = "helios/vc_gpus.parquet";
    check_size(vcs.iter().map(|(_, g)| g), limits)
        .map_err(|e| Error::Usage(format!("--cluster from-trace ({file}, all VCs): {e}")))?;
    let mut parts = Vec::new();
    for (name, g) in vcs {
        parts.push(partition(
            &name,
            Some(name.clone()),
            vec![g],
            types,
            limits,
            &format!("--cluster from-trace ({file})"),
        )?);
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

/// AcmeTrace's clusters (NSDI'24 Sec 2: 286 and 302 nodes of 8 A100 GPUs,
/// 4,704 GPUs), each a partition for the jobs of its VC (the cluster).
pub const ACME_NODES: [(&str, u32); 2] = [("Seren", 286), ("Kalos", 302)];

fn acme_clusters(only: Option<&str>, types: &mut Interner, limits: &Limits) -> Result<SimCluster> {
    let chosen: Vec<(&str, GroupDesc)> = ACME_NODES
        .iter()
        .filter(|(c, _)| only.is_none_or(|o| o == *c))
        .map(|(name, nodes)| (*name, GroupDesc { count: *nodes, gpus: 8, cpus: None, gpu_type: String::new() }))
        .collect();
    // Replayed one by one, their runs merged: the limits hold over both.
    let source = "--cluster from-trace (AcmeTrace's published node counts)";
    check_size(chosen.iter().map(|(_, g)| g), limits).map_err(|e| Error::Usage(format!("{source}: {e}")))?;
    let mut parts = Vec::new();
    for (name, g) in chosen {
        parts.push(partition(name, Some(name.to_string()), vec![g], types, limits, source)?);
    }
    let note = "AcmeTrace: each cluster replayed on its own nodes of 8 GPUs, Seren 286 and Kalos 302 (NSDI'24 Sec 2; \
                the trace has no node list)";
    Ok(SimCluster { partitions: parts, typed: false, notes: vec![note.into()] })
}

fn spot_nodes(store: &Store, types: &mut Interner, limits: &Limits) -> Result<SimCluster> {
    let (groups, gpuless) =
        typed_groups(store.scan(&spot::NODES)?, ["gpu_model", "gpus", "cpus"], "spot: node groups")?;
    if groups.is_empty() {
        return Err(no_gpu_nodes("spot/nodes.parquet (is node_info_df.csv beside job_info_df.csv?)"));
    }
    let file = "spot/nodes.parquet";
    check_trace(file, &groups, limits)?;
    let p = partition("spot", None, groups, types, limits, &format!("--cluster from-trace ({file})"))?;
    let note = format!(
        "spot node_info_df: {} nodes, {} GPUs of {} models ({gpuless} without GPUs dropped); every job is pinned to its gpu_model",
        p.cluster.nodes().len(),
        p.cluster.total_gpus(),
        p.groups.iter().map(|g| g.gpu_type.as_str()).collect::<std::collections::BTreeSet<_>>().len()
    );
    Ok(SimCluster { partitions: vec![p], typed: true, notes: vec![note] })
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
        let c = from_file(&path, &mut types, &Limits::default()).unwrap();
        assert!(c.typed);
        assert_eq!(c.total_gpus(), 2 * 8 + 3 * 2);
        let nodes = c.partitions[0].cluster.nodes();
        assert_eq!(nodes.len(), 5);
        assert_eq!((nodes[0].gpu_type, nodes[0].cpu_milli), (0, Some(96_000)));
        assert_eq!((nodes[4].gpu_type, nodes[4].cpu_milli), (1, None));
        assert_eq!(types.names, ["V100", UNTYPED]);
        std::fs::write(&path, "[[group]]\ncount = 2\ngpu = 8\n").unwrap();
        let e = from_file(&path, &mut types, &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("line 1") || e.to_string().contains("line 3"), "{e}");
        assert!(e.to_string().contains("unknown field"), "{e}");
    }

    /// The error of a cluster file with `text`, read within `limits`.
    fn file_error(text: &str, types: &mut Interner, limits: &Limits) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, text).unwrap();
        let e = from_file(&path, types, limits).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        e.to_string().replace(&path.display().to_string(), "c.toml")
    }

    /// A 37-byte file asking for 100 M nodes (it grew past 8.7 GB) and one
    /// asking for 4 x 10^9 are refused from their counts, naming the file,
    /// the line of the count and the limit; so is a total over groups, and
    /// GPUs likewise.
    #[test]
    fn cluster_files_beyond_the_ceilings_name_file_line_and_limit() {
        let d = Limits::default();
        let mut t = Interner::default();
        let text = "[[group]]\ncount = 100000000\ngpus = 8\n";
        assert_eq!(text.len(), 37);
        assert_eq!(
            file_error(text, &mut t, &d),
            "--cluster c.toml, line 2: 100000000 nodes, more than the limit of 1000000 (raise it with --max-nodes)"
        );
        assert_eq!(
            file_error("[[group]]\ncount = 4000000000\ngpus = 8\n", &mut t, &d),
            "--cluster c.toml, line 2: 4000000000 nodes, more than the limit of 1000000 (raise it with --max-nodes)"
        );
        assert_eq!(
            file_error("[[group]]\ncount = 600000\ngpus = 8\n\n[[group]]\ncount = 600000\ngpus = 8\n", &mut t, &d),
            "--cluster c.toml, line 6: 1200000 nodes with the groups above, more than the limit of 1000000 (raise it with --max-nodes)"
        );
        assert_eq!(
            file_error("[[group]]\ncount = 10\ngpus = 2000000\n", &mut t, &d),
            "--cluster c.toml, line 3: 20000000 GPUs, more than the limit of 10000000 (raise it with --max-gpus)"
        );
        assert_eq!(
            file_error("[[group]]\ncount = 3\ngpus = 8\n", &mut t, &Limits::new(2, 100).unwrap()),
            "--cluster c.toml, line 2: 3 nodes, more than the limit of 2 (raise it with --max-nodes)"
        );
        assert_eq!(
            file_error("[[group]]\ncount = 0\ngpus = 8\n", &mut t, &d),
            "--cluster c.toml, line 2: count and gpus must be at least 1"
        );
        let big = format!("# {}\n", "x".repeat(MAX_FILE_BYTES as usize));
        assert!(file_error(&big, &mut t, &d).contains("larger than 1048576 bytes"));
    }

    #[test]
    fn a_shape_beyond_the_ceilings_names_the_limit() {
        let mut t = Interner::default();
        let e = |n, g, l: &Limits, t: &mut Interner| shape(n, g, t, l).unwrap_err().to_string();
        assert_eq!(
            e(100_000_000, 8, &Limits::default(), &mut t),
            "--cluster 100000000x8: 100000000 nodes, more than the limit of 1000000 (raise it with --max-nodes)"
        );
        assert_eq!(
            e(1_000_000, 11, &Limits::default(), &mut t),
            "--cluster 1000000x11: 11000000 GPUs, more than the limit of 10000000 (raise it with --max-gpus)"
        );
        for raw in ["5000000000x8", "4000000000x8"] {
            let e = ClusterSpec::parse(raw).unwrap_err().to_string();
            assert!(e.ends_with("nodes, more than the 2147483647 that 32-bit ids allow"), "{e}");
        }
        assert_eq!(ClusterSpec::parse("4000x8").unwrap(), ClusterSpec::Shape { nodes: 4000, gpus: 8 });
    }

    /// Job lists and clusters share the GPU-type ids: with 65,535 types named
    /// by the jobs, the cluster's first new type is refused at its line.
    #[test]
    fn the_gpu_type_past_the_ceiling_is_refused_at_its_cluster_line() {
        let mut t = Interner::default();
        for i in 0..65_535 {
            t.gpu_type(&format!("t{i}")).unwrap();
        }
        let text =
            "[[group]]\ncount = 1\ngpus = 8\ngpu_type = \"t7\"\n\n[[group]]\ncount = 1\ngpus = 8\ngpu_type = \"new\"\n";
        assert_eq!(
            file_error(text, &mut t, &Limits::default()),
            "--cluster c.toml, line 9: 65536 GPU types, more than the limit of 65535"
        );
    }
}
