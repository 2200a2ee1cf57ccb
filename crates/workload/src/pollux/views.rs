//! Elastic replays as analyses, so report specs plot them
//! (`notebooks-equivalents/pollux-osdi21.toml`):
//! - `pollux.summary`: every run of one workload (a shipped artifact
//!   workload, or Pollux's generator over a trace);
//! - `pollux.artifact`: the artifact's workloads replayed per policy beside
//!   the averages its own simulator published, and the job-load sweep
//!   (Fig 8a) from the shipped 0.5x-2x variants;
//! - `pollux.interval-sweep` (Fig 8b) and `pollux.interference-sweep`
//!   (Fig 8c): `pollux` on the artifact's workloads, beside the published.
//!
//! Views with the same parameters share one set of runs.

use std::sync::Arc;

use tracelab_analysis::params::{Param, Params};
use tracelab_analysis::{About, Analysis, Analyze, Args, Cell, Ctx, Output, ParamSpec, ResultTable, Scope};
use tracelab_schema::error::{Error, Result};
use tracelab_sim::elastic::artifact::published_jct;
use tracelab_sim::elastic::{ElasticConfig, ElasticPolicyName, ElasticResult};
use tracelab_sim::time::SECOND;

use super::recipe::Recipe;
use super::run::{self, plan, run_all, ElasticSpec, Sweep};
use super::{prepare, ElasticPrepared, ElasticSource};
use crate::load::TraceSel;
use crate::views::List;
use crate::ClusterSpec;

const WORKLOAD: Param<String> = Param::text(
    "workload",
    "artifact:6",
    "artifact:N or artifact:SET/N (a shipped Pollux workload), or a trace (pai, philly, helios) through Pollux's generator",
);
const WORKLOADS: Param<String> =
    Param::text("workloads", "1,2,3,4,5,6,7,8", "the artifact's workload numbers, comma-separated");
const POLICIES: Param<List<ElasticPolicyName>> = Param::custom(
    "policies",
    "pollux,optimus,tiresias",
    "elastic policies, comma-separated",
    "pollux, optimus, tiresias, comma-separated",
);
const JOBS: Param<u64> = Param::whole("jobs", "160", "jobs the generator draws from a trace", 1, 1_000_000);
const SEED: Param<u64> = Param::whole("seed", "0", "seed of the generator", 0, u64::MAX);
const CLUSTER: Param<ClusterSpec> =
    Param::custom("cluster", "16x4", "the cluster", "NODESxGPUS, at most 4 GPUs a node");

/// Parameters of every Pollux view.
#[derive(Debug, Clone)]
pub struct PolluxParams {
    pub workload: String,
    pub workloads: String,
    pub policies: List<ElasticPolicyName>,
    pub jobs: u64,
    pub seed: u64,
    pub cluster: ClusterSpec,
}

impl Params for PolluxParams {
    const DECLARED: &'static [ParamSpec] =
        &[WORKLOAD.spec, WORKLOADS.spec, POLICIES.spec, JOBS.spec, SEED.spec, CLUSTER.spec];

    fn read(args: &Args) -> Self {
        PolluxParams {
            workload: args.get(&WORKLOAD),
            workloads: args.get(&WORKLOADS),
            policies: args.get(&POLICIES),
            jobs: args.get(&JOBS),
            seed: args.get(&SEED),
            cluster: args.get(&CLUSTER),
        }
    }
}

const MIRRORS: &str = "Pollux (Qiao et al., OSDI'21) §5.3, petuum/adaptdl osdi21-artifact simulator";

macro_rules! view {
    ($name:ident, $id:literal, $mirrors:expr, $summary:literal, $run:ident) => {
        pub struct $name;

        impl Analyze for $name {
            type Params = PolluxParams;
            const ABOUT: About =
                About { id: $id, scope: Scope::Cross, mirrors: $mirrors, summary: $summary, title: "Elastic replay" };

            fn definition(_: &PolluxParams) -> String {
                "{replay}".to_string()
            }

            fn run(ctx: &Ctx, p: &PolluxParams, out: &mut Output) -> Result<()> {
                $run(ctx, p, out)
            }
        }
    };
}

view!(
    Summary,
    "pollux.summary",
    MIRRORS,
    "Elastic replay of one workload under pollux, optimus and tiresias: JCT, makespan, restarts, GPU-hours, finish-time fairness",
    summary
);
view!(
    ArtifactJct,
    "pollux.artifact",
    "Pollux OSDI'21 §5.3 (Table 3) and Fig 8a",
    "The artifact's eight workloads at 0.5x-2x job load per policy, average JCT beside the artifact simulator's own",
    artifact_jct
);
view!(
    IntervalSweep,
    "pollux.interval-sweep",
    "Pollux OSDI'21 Fig 8b",
    "pollux's average JCT against the scheduling interval, beside the artifact simulator's",
    interval_sweep
);
view!(
    InterferenceSweep,
    "pollux.interference-sweep",
    "Pollux OSDI'21 Fig 8c",
    "pollux's average JCT against injected interference, with and without interference avoidance",
    interference_sweep
);

static VIEWS: [Analysis; 4] = [
    Analysis::of(&Summary),
    Analysis::of(&ArtifactJct),
    Analysis::of(&IntervalSweep),
    Analysis::of(&InterferenceSweep),
];

/// Every Pollux view.
pub fn views() -> impl Iterator<Item = &'static Analysis> {
    VIEWS.iter()
}

fn nodes(c: &ClusterSpec) -> Result<(u32, u32)> {
    match c {
        ClusterSpec::Shape { nodes, gpus } => Ok((*nodes, *gpus)),
        _ => Err(Error::Usage("pollux views need cluster = NODESxGPUS".into())),
    }
}

fn source(p: &PolluxParams) -> Result<ElasticSource> {
    if p.workload.starts_with("artifact:") {
        return ElasticSource::parse_artifact(&p.workload);
    }
    let sel = TraceSel::parse(&p.workload)?;
    Ok(ElasticSource::Trace(sel, Recipe { jobs: p.jobs as usize, seed: p.seed, ..Recipe::default() }))
}

/// Runs shared across the views of one report.
type Runs = Vec<(ElasticSpec, ElasticResult)>;

fn runs(ctx: &Ctx, key: &str, p: &ElasticPrepared, specs: &[ElasticSpec]) -> Result<Arc<Runs>> {
    ctx.shared.get_or_compute(&format!("pollux.runs {key} {specs:?}"), || run_all(p, specs, 2).map(Arc::new))
}

fn prepared(ctx: &Ctx, src: &ElasticSource, cluster: &ClusterSpec) -> Result<Arc<ElasticPrepared>> {
    let (n, g) = nodes(cluster)?;
    let store = &ctx.store;
    ctx.shared.get_or_compute(&format!("pollux.prepared {src:?} {cluster:?}"), || {
        let needs_store = matches!(src, ElasticSource::Trace(..));
        prepare(needs_store.then_some(store), src, n, g).map(Arc::new)
    })
}

fn base_sweep(p: &PolluxParams) -> Sweep {
    Sweep {
        policies: p.policies.0.clone(),
        loads: vec![1.0],
        intervals: vec![60 * SECOND],
        interference: vec![(0.0, true)],
    }
}

fn summary(ctx: &Ctx, p: &PolluxParams, out: &mut Output) -> Result<()> {
    let src = source(p)?;
    let prep = prepared(ctx, &src, &p.cluster)?;
    let specs = plan(&base_sweep(p), &ElasticConfig::default());
    let r = runs(ctx, &prep.source, &prep, &specs)?;
    let full = run::output("pollux.summary", &prep, &r);
    out.title = full.title.clone();
    out.fill("replay", run::definition(&prep));
    out.parts = full.parts;
    Ok(())
}

/// The artifact workload numbers of a view.
fn numbers(p: &PolluxParams) -> Result<Vec<usize>> {
    p.workloads
        .split(',')
        .map(|s| s.trim().parse::<usize>().ok().filter(|n| (1..=8).contains(n)))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::Usage(format!("workloads = {}: expected numbers 1-8, comma-separated", p.workloads)))
}

/// Average JCT (s) of each (set, workload) run under `sweep`, in order.
fn replay_sets(
    ctx: &Ctx,
    p: &PolluxParams,
    sets: &[&str],
    sweep: &Sweep,
) -> Result<Vec<(String, usize, ElasticSpec, f64)>> {
    let mut out = Vec::new();
    for set in sets {
        for n in numbers(p)? {
            let src = ElasticSource::Artifact { set: set.to_string(), number: n };
            let prep = prepared(ctx, &src, &p.cluster)?;
            let specs = plan(sweep, &ElasticConfig::default());
            for (spec, r) in runs(ctx, &prep.source, &prep, &specs)?.iter() {
                out.push((set.to_string(), n, spec.clone(), r.summary.jct_ms.mean / 1000.0));
            }
        }
    }
    Ok(out)
}

fn load_of(set: &str) -> &'static str {
    match set {
        "workloads-0.5" => "0.5",
        "workloads-1.5" => "1.5",
        "workloads-2.0" => "2.0",
        _ => "1.0",
    }
}

fn diff_pct(ours: f64, theirs: Option<f64>) -> Cell {
    theirs.map_or(Cell::Null, |t| (100.0 * (ours / t - 1.0)).into())
}

fn artifact_jct(ctx: &Ctx, p: &PolluxParams, out: &mut Output) -> Result<()> {
    let sets = ["workloads-0.5", "workloads", "workloads-1.5", "workloads-2.0"];
    let rows = replay_sets(ctx, p, &sets, &base_sweep(p))?;
    let mut t = ResultTable::new(&["load", "workload", "policy", "avg_jct_s", "artifact_avg_jct_s", "diff_pct"]);
    let mut curves: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (set, n, spec, ours) in &rows {
        let policy = spec.config.policy.name();
        let load = load_of(set);
        let theirs = published_jct("jobload", &format!("{policy}-{load}"), &format!("workload-{n}"));
        t.push(vec![
            load.into(),
            Cell::Int(*n as i64),
            policy.into(),
            (*ours).into(),
            theirs.map_or(Cell::Null, Cell::from),
            diff_pct(*ours, theirs),
        ]);
    }
    // Fig 8a: mean over the workloads per load, ours and the artifact's.
    for policy in &p.policies.0 {
        for (who, pick) in [("tracelab", true), ("artifact", false)] {
            let mut pts = Vec::new();
            for set in &sets {
                let vals: Vec<f64> = rows
                    .iter()
                    .filter(|r| r.0 == *set && r.2.config.policy == *policy)
                    .filter_map(|r| {
                        if pick {
                            Some(r.3)
                        } else {
                            published_jct(
                                "jobload",
                                &format!("{policy}-{}", load_of(set)),
                                &format!("workload-{}", r.1),
                            )
                        }
                    })
                    .collect();
                if !vals.is_empty() {
                    pts.push((
                        load_of(set).parse::<f64>().unwrap_or(1.0),
                        vals.iter().sum::<f64>() / vals.len() as f64,
                    ));
                }
            }
            curves.push((format!("{policy} ({who})"), pts));
        }
    }
    out.fill("replay", sweep_definition(p, "job load 0.5x, 1x, 1.5x and 2x (the artifact's workloads-0.5, workloads, workloads-1.5, workloads-2.0: 80, 160, 240 and 320 jobs in the same 8 hours)"));
    out.table("jct", t);
    out.curves("load-sweep", "relative job load", "average JCT (s)", curves);
    Ok(())
}

fn interval_sweep(ctx: &Ctx, p: &PolluxParams, out: &mut Output) -> Result<()> {
    let intervals = [(30, "pollux-30s"), (60, "pollux-1m"), (120, "pollux-2m"), (240, "pollux-4m"), (480, "pollux-8m")];
    let sweep = Sweep {
        policies: vec![ElasticPolicyName::Pollux],
        loads: vec![1.0],
        intervals: intervals.iter().map(|(s, _)| s * SECOND).collect(),
        interference: vec![(0.0, true)],
    };
    let rows = replay_sets(ctx, p, &["workloads"], &sweep)?;
    let mut t = ResultTable::new(&["interval_s", "workload", "avg_jct_s", "artifact_avg_jct_s", "diff_pct"]);
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for &(secs, run) in &intervals {
        let of: Vec<&(String, usize, ElasticSpec, f64)> =
            rows.iter().filter(|r| r.2.config.interval == secs * SECOND).collect();
        let mut pub_vals = Vec::new();
        for r in &of {
            let pj = published_jct("period", run, &format!("workload-{}", r.1));
            pub_vals.extend(pj);
            t.push(vec![
                Cell::Int(secs),
                Cell::Int(r.1 as i64),
                r.3.into(),
                pj.map_or(Cell::Null, Cell::from),
                diff_pct(r.3, pj),
            ]);
        }
        ours.push((secs as f64 / 60.0, of.iter().map(|r| r.3).sum::<f64>() / of.len().max(1) as f64));
        if pub_vals.len() == of.len() && !of.is_empty() {
            theirs.push((secs as f64 / 60.0, pub_vals.iter().sum::<f64>() / pub_vals.len() as f64));
        }
    }
    out.fill("replay", sweep_definition(p, "pollux with scheduling intervals of 30 s, 1, 2, 4 and 8 minutes"));
    out.table("jct", t);
    out.curves(
        "interval-sweep",
        "scheduling interval (minutes)",
        "average JCT (s)",
        vec![("pollux (tracelab)".into(), ours), ("pollux (artifact)".into(), theirs)],
    );
    Ok(())
}

fn interference_sweep(ctx: &Ctx, p: &PolluxParams, out: &mut Output) -> Result<()> {
    // (level, avoidance, the artifact's run): its avoid run stands for all
    // three levels with avoidance (no two multi-node jobs share a node).
    let settings = [
        (0.0, true, "avoid"),
        (0.25, true, "avoid"),
        (0.5, true, "avoid"),
        (0.0, false, "noavoid"),
        (0.25, false, "inter25"),
        (0.5, false, "inter50"),
    ];
    let sweep = Sweep {
        policies: vec![ElasticPolicyName::Pollux],
        loads: vec![1.0],
        intervals: vec![60 * SECOND],
        interference: settings.iter().map(|s| (s.0, s.1)).collect(),
    };
    let rows = replay_sets(ctx, p, &["workloads"], &sweep)?;
    let mut t =
        ResultTable::new(&["interference", "avoidance", "workload", "avg_jct_s", "artifact_avg_jct_s", "diff_pct"]);
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for avoid in [true, false] {
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for &(level, a, run) in settings.iter().filter(|s| s.1 == avoid) {
            let of: Vec<&(String, usize, ElasticSpec, f64)> = rows
                .iter()
                .filter(|r| r.2.config.interference == level && r.2.config.avoid_interference == a)
                .collect();
            let mut pub_vals = Vec::new();
            for r in &of {
                let pj = published_jct("inter", run, &format!("workload-{}", r.1));
                pub_vals.extend(pj);
                let on = if a { "on" } else { "off" };
                t.push(vec![
                    level.into(),
                    on.into(),
                    Cell::Int(r.1 as i64),
                    r.3.into(),
                    pj.map_or(Cell::Null, Cell::from),
                    diff_pct(r.3, pj),
                ]);
            }
            ours.push((100.0 * level, of.iter().map(|r| r.3).sum::<f64>() / of.len().max(1) as f64));
            if pub_vals.len() == of.len() && !of.is_empty() {
                theirs.push((100.0 * level, pub_vals.iter().sum::<f64>() / pub_vals.len() as f64));
            }
        }
        let label = if avoid { "with avoidance" } else { "without avoidance" };
        series.push((format!("{label} (tracelab)"), ours));
        series.push((format!("{label} (artifact)"), theirs));
    }
    out.fill(
        "replay",
        sweep_definition(
            p,
            "pollux with 0, 25 % and 50 % slowdown for a multi-node job sharing a node with another, with interference \
             avoidance (no such sharing: the artifact's `avoid` run stands for all three levels) and without",
        ),
    );
    out.table("jct", t);
    out.curves("interference-sweep", "injected interference (%)", "average JCT (s)", series);
    Ok(())
}

fn sweep_definition(p: &PolluxParams, what: &str) -> String {
    format!(
        "The Pollux artifact's workloads {} (shipped with tracelab, Apache-2.0; 160 jobs each, drawn from Philly by the \
         artifact's generator) replayed on a cluster of {:?} under {what}; average JCT = mean of completion - \
         submission over each workload's jobs, beside the average the artifact's own simulator published for the same \
         workload (simulator/results-*/*/summary.json, 'avgs'); diff_pct = 100 x (tracelab / artifact - 1). pollux's \
         optimiser is a deterministic search, the artifact's a genetic algorithm. Semantics: docs/simulate-elastic.md.",
        p.workloads, p.cluster
    )
}
