//! From a request (source, selection, cluster) to a replayable workload:
//! load the jobs, select them, build the cluster, check every job against
//! the cluster, and account for every row of the source. The jobs that can
//! never run are left out here (with their reason), so the engine sees only
//! jobs it can place.

use std::collections::HashMap;
use std::path::PathBuf;

use tracelab_schema::error::{Error, Result};
use tracelab_sim::csv::JobList;
use tracelab_sim::{Job, Limits, LoadProfile, Unplaceable, Usage, Workload};
use tracelab_store::Store;

use crate::cluster::{self, ClusterSpec, SimCluster};
use crate::load::{self, LeftOut, LeftReason, Loaded, Names, TraceJob, TraceSel};
use crate::online::{self, Online};
use crate::select::{self, Selected, Selection};

/// Where the jobs come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Trace(TraceSel),
    /// A CSV job list (`tracelab_sim::csv` format).
    Csv(PathBuf),
}

/// What to replay and on what.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub source: Source,
    pub selection: Selection,
    pub cluster: ClusterSpec,
    /// Fail (usage error) on a job the cluster can never hold, instead of
    /// leaving it out.
    pub strict_cluster: bool,
    /// Read the jobs' measured GPU usage where the trace has it (the
    /// sharing policies and the utilization model use it).
    pub usage: bool,
    /// Online services to add (MuxFlow's setting).
    pub online: Option<Online>,
    /// Ceilings on the cluster's nodes and GPUs (`--max-nodes`, `--max-gpus`).
    pub limits: Limits,
}

/// A workload ready for the engine, with its accounting.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub source: String,
    pub unit: String,
    /// Rows read from the source.
    pub rows: u64,
    /// The replayed jobs (ids = positions), replay time (ms from `origin`).
    pub workload: Workload,
    /// The trace's id of each replayed job.
    pub job_ids: Vec<String>,
    pub names: Names,
    /// Window start and end, epoch milliseconds.
    pub origin: tracelab_sim::Millis,
    pub end: Option<tracelab_sim::Millis>,
    pub cluster: SimCluster,
    /// The partition of each replayed job.
    pub partition_of: Vec<u32>,
    /// Every row not replayed, by reason.
    pub left_out: LeftOut,
    /// Online services added to the trace's jobs (`--online`).
    pub online_services: u32,
    /// Their load over a day, replay time.
    pub profile: Option<LoadProfile>,
    /// GPU memory of each GPU type (by id), GiB, where published.
    pub gpu_mem_gib: Vec<Option<f64>>,
}

/// Loads, selects and checks; `store` is needed for traces only.
pub fn prepare(store: Option<&Store>, req: &Request) -> Result<Prepared> {
    let loaded = match &req.source {
        Source::Trace(sel) => {
            let store = store.ok_or_else(|| Error::Usage("--trace needs a store".into()))?;
            load::load(store, sel, req.usage)?
        }
        Source::Csv(path) => from_csv(path)?,
    };
    let Loaded { source, unit, rows, jobs, mut names, left_out } = loaded;
    let mut selected = select::select(jobs, &req.selection)?;
    let added = match &req.online {
        Some(o) => {
            let services = online::services(o, &selected.jobs, &mut names);
            let n = services.len() as u32;
            selected.jobs.extend(services);
            n
        }
        None => 0,
    };
    let cluster = build_cluster(store, req, &selected, &mut names)?;
    let mut left = left_out;
    for (r, n) in &selected.left_out.0 {
        left.add(r.clone(), *n);
    }
    let (kept, partition_of) = check(selected.jobs, &cluster, &names, &mut left, req.strict_cluster)?;
    if kept.is_empty() {
        return Err(Error::Usage(format!(
            "--cluster: none of the selected jobs can run on this cluster ({})",
            left.0.iter().map(|(r, n)| format!("{n} {r}")).collect::<Vec<_>>().join("; ")
        )));
    }
    let job_ids = kept.iter().map(|j| j.job_id.clone()).collect();
    let workload = to_workload(&kept, &names, cluster.typed);
    debug_assert_eq!(rows + added as u64, workload.jobs.len() as u64 + left.total());
    let trace = match &req.source {
        Source::Trace(t) => Some(t.trace),
        Source::Csv(_) => None,
    };
    let profile = match &req.online {
        Some(o) => online::profile(&o.profile, store, trace, selected.origin)?,
        None => None,
    };
    let gpu_mem_gib = names.gpu_types.names.iter().map(|t| tracelab_analysis::usage::pai_gpu_mem_gib(t)).collect();
    Ok(Prepared {
        source,
        unit,
        rows,
        workload,
        job_ids,
        names,
        origin: selected.origin,
        end: selected.end,
        cluster,
        partition_of,
        left_out: left,
        online_services: added,
        profile,
        gpu_mem_gib,
    })
}

fn build_cluster(store: Option<&Store>, req: &Request, sel: &Selected, names: &mut Names) -> Result<SimCluster> {
    match (&req.cluster, &req.source) {
        (ClusterSpec::FromTrace, Source::Trace(t)) => {
            let store = store.ok_or_else(|| Error::Usage("--cluster from-trace needs a store".into()))?;
            cluster::from_trace(store, t.trace, t.cluster.as_deref(), sel.origin, &mut names.gpu_types, &req.limits)
        }
        (ClusterSpec::FromTrace, Source::Csv(_)) => Err(Error::Usage(
            "--cluster from-trace: a CSV job list has no machines; give --cluster NODESxGPUS or a .toml file".into(),
        )),
        (ClusterSpec::Shape { nodes, gpus }, _) => cluster::shape(*nodes, *gpus, &mut names.gpu_types, &req.limits),
        (ClusterSpec::File(path), _) => cluster::from_file(path, &mut names.gpu_types, &req.limits),
    }
}

/// A partition and what `Cluster::check_job` looks at: milli-GPUs,
/// milli-cores, GPU type.
type Kind = (usize, u32, Option<u32>, Option<u16>);

/// Splits jobs into those some partition can hold and the unplaceable,
/// returning the kept jobs with their partition.
fn check(
    jobs: Vec<TraceJob>,
    cluster: &SimCluster,
    names: &Names,
    left: &mut LeftOut,
    strict: bool,
) -> Result<(Vec<TraceJob>, Vec<u32>)> {
    let mut kept = Vec::with_capacity(jobs.len());
    let mut part = Vec::with_capacity(jobs.len());
    // `check_job` scans every node: one verdict per partition and demand kind.
    let mut verdicts: HashMap<Kind, Result<(), String>> = HashMap::new();
    let part_of_vc: Vec<Option<usize>> = names
        .vcs
        .names
        .iter()
        .map(|vc| cluster.partitions.iter().position(|p| p.vc.as_deref().is_none_or(|v| v == vc)))
        .collect();
    for j in jobs {
        let p = part_of_vc.get(j.job.vc as usize).copied().flatten();
        let verdict = match p {
            None => Err(format!("its VC {} has no nodes (fewer than 8 GPUs)", names.vcs.names[j.job.vc as usize])),
            Some(i) => {
                let probe = engine_job(&j, 0, cluster.typed);
                let key = (i, probe.gpu_milli, probe.cpu_milli, probe.gpu_type);
                let c = &cluster.partitions[i].cluster;
                verdicts.entry(key).or_insert_with(|| c.check_job(&probe).map_err(|r| reason_text(&r, names))).clone()
            }
        };
        match verdict {
            Ok(()) => {
                kept.push(j);
                part.push(p.unwrap_or(0) as u32);
            }
            Err(why) if strict => {
                return Err(Error::Usage(format!(
                    "--cluster: job {} can never run on this cluster: {why} (pass --unplaceable skip to leave such jobs out)",
                    j.job_id
                )))
            }
            Err(why) => left.add(LeftReason::Unplaceable(why), 1),
        }
    }
    Ok((kept, part))
}

fn reason_text(r: &Unplaceable, names: &Names) -> String {
    match r {
        Unplaceable::NoNodeOfType(t) => {
            format!("needs GPU type {}, which no node has", names.gpu_types.names.get(*t as usize).map_or("?", |s| s))
        }
        other => other.to_string(),
    }
}

fn engine_job(j: &TraceJob, id: u32, typed: bool) -> Job {
    Job { id, gpu_type: if typed { j.job.gpu_type } else { None }, ..j.job.clone() }
}

fn to_workload(jobs: &[TraceJob], names: &Names, typed: bool) -> Workload {
    let len = |i: &tracelab_sim::csv::Interner| i.names.len() as u32;
    Workload {
        jobs: jobs.iter().enumerate().map(|(i, j)| engine_job(j, i as u32, typed)).collect(),
        n_users: len(&names.users).max(1),
        n_vcs: len(&names.vcs).max(1),
        n_groups: len(&names.groups).max(1),
        n_gpu_types: u16::try_from(len(&names.gpu_types).max(1))
            .expect("Interner::gpu_type keeps at most u16::MAX types"),
        usage: if jobs.iter().all(|j| j.usage == Usage::default()) {
            Vec::new()
        } else {
            jobs.iter().map(|j| j.usage).collect()
        },
    }
}

/// A CSV job list as trace jobs (times as given, in milliseconds).
fn from_csv(path: &std::path::Path) -> Result<Loaded> {
    let file = std::fs::File::open(path).map_err(|e| Error::Usage(format!("--jobs {}: {e}", path.display())))?;
    let list: JobList = tracelab_sim::csv::read_jobs(std::io::BufReader::new(file))
        .map_err(|e| Error::input(path.display().to_string(), e.to_string()))?;
    let names = Names { users: list.users, vcs: list.vcs, groups: list.groups, gpu_types: list.gpu_types };
    let mut left = LeftOut::default();
    let mut jobs = Vec::with_capacity(list.workload.jobs.len());
    let mut usage = list.workload.usage.into_iter();
    for (j, id) in list.workload.jobs.into_iter().zip(list.job_ids) {
        let usage = usage.next().unwrap_or_default();
        if j.gpu_milli == 0 {
            left.add(LeftReason::NoGpu, 1);
            continue;
        }
        jobs.push(TraceJob { job_id: id, job: j, usage });
    }
    let rows = jobs.len() as u64 + left.total();
    let unit = "a row of the CSV job list (submit_s, duration_s, gpus, ...)".to_string();
    Ok(Loaded { source: path.display().to_string(), unit, rows, jobs, names, left_out: left })
}
