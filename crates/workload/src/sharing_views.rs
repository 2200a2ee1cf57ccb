//! The GPU-sharing views of a replay, for report specs
//! (`notebooks-equivalents/gpu-sharing.toml`): `sim.sharing` (per run:
//! GPU-allocated and GPU-used utilization, GPUs saved, oversold GPUs,
//! offline JCT, online slowdown and bound violations), `sim.sharing-timeline`
//! (GPUs occupied and GPUs busy over time), `sim.offline-jct` (offline JCT
//! distributions) and `sim.online-slowdown` (the services' slowdowns).
//!
//! They take the replay's parameters (`crate::views::SimParams`) plus the
//! sharing ones: measured usage, the interference model of the classic
//! policies, online services and their load profile, the default usage of
//! unmeasured jobs. Runs are shared with every view of the same parameters.

use tracelab_analysis::params::{FromParam, Param, Params};
use tracelab_analysis::{About, Analysis, Analyze, Args, Ctx, Headline, Output, ParamSpec, Scope};
use tracelab_schema::error::Result;
use tracelab_sim::{Interference, JobClass, JobStatus, SharingConfig};
use tracelab_stats::Dist;

use crate::online::{Online, ProfileSource};
use crate::results::{self, Digest};
use crate::views::{experiment_with, Experiment, Extra, Named, SimParams, SIM_PARAMS};

impl FromParam for ProfileSource {
    fn from_param(raw: &str) -> Option<Self> {
        (!raw.is_empty()).then(|| ProfileSource::parse(raw))
    }
}

const USAGE: Param<bool> =
    Param::flag("usage", "true", "read the jobs' measured GPU utilization and memory where the trace has them");
const INTERFERENCE: Param<Named<Interference>> = Param::custom(
    "interference",
    "utilization",
    "how the classic policies' fractional jobs slow each other",
    "constant or utilization",
);
const ONLINE: Param<u64> = Param::whole("online", "0", "online services to add, one GPU each", 0, 1_000_000);
const ONLINE_UTIL: Param<f64> = Param::number("online-util", "26", "the services' mean GPU utilization (%)");
const ONLINE_PROFILE: Param<ProfileSource> =
    Param::custom("online-profile", "trace", "the services' load over a day", "trace, flat or a CSV file");
const DEFAULT_UTIL: Param<f64> = Param::number("default-util", "50", "utilization of unmeasured jobs (%)");
const MAX_TENANTS: Param<u64> = Param::whole("max-tenants", "4", "most jobs sharing one GPU", 1, 64);

/// The replay's parameters, then the sharing ones.
const DECLARED: [ParamSpec; 16] = {
    let own = [
        USAGE.spec,
        INTERFERENCE.spec,
        ONLINE.spec,
        ONLINE_UTIL.spec,
        ONLINE_PROFILE.spec,
        DEFAULT_UTIL.spec,
        MAX_TENANTS.spec,
    ];
    let mut all = [SIM_PARAMS[0]; 16];
    let mut i = 0;
    while i < 16 {
        all[i] = if i < SIM_PARAMS.len() { SIM_PARAMS[i] } else { own[i - SIM_PARAMS.len()] };
        i += 1;
    }
    all
};

/// The sharing views' parameters.
#[derive(Debug, Clone)]
pub struct SharingParams {
    pub sim: SimParams,
    pub usage: bool,
    pub interference: Named<Interference>,
    pub online: u64,
    pub online_util: f64,
    pub online_profile: ProfileSource,
    pub default_util: f64,
    pub max_tenants: u64,
}

impl Params for SharingParams {
    const DECLARED: &'static [ParamSpec] = &DECLARED;

    fn read(args: &Args) -> Self {
        SharingParams {
            sim: SimParams::read(args),
            usage: args.get(&USAGE),
            interference: args.get(&INTERFERENCE),
            online: args.get(&ONLINE),
            online_util: args.get(&ONLINE_UTIL),
            online_profile: args.get(&ONLINE_PROFILE),
            default_util: args.get(&DEFAULT_UTIL),
            max_tenants: args.get(&MAX_TENANTS),
        }
    }
}

impl SharingParams {
    fn extra(&self) -> Extra {
        let online = (self.online > 0).then(|| Online {
            services: self.online as u32,
            util_pct: self.online_util.clamp(0.0, 100.0),
            mem_gib: 2.0,
            profile: self.online_profile.clone(),
        });
        let sharing = SharingConfig {
            interference: self.interference.0,
            default_util_pct: self.default_util.clamp(0.0, 100.0),
            max_tenants: self.max_tenants as u32,
            ..SharingConfig::default()
        };
        Extra { usage: self.usage, online, sharing }
    }
}

const MIRRORS: &str = "Horus (TPDS'22) and MuxFlow (2023) evaluations, by tracelab-sim (docs/sharing.md)";

macro_rules! view {
    ($name:ident, $id:literal, $summary:literal, $run:ident) => {
        pub struct $name;

        impl Analyze for $name {
            type Params = SharingParams;
            const ABOUT: About =
                About { id: $id, scope: Scope::Cross, mirrors: MIRRORS, summary: $summary, title: "GPU sharing" };

            fn definition(_: &SharingParams) -> String {
                "{replay}".to_string()
            }

            fn run(ctx: &Ctx, p: &SharingParams, out: &mut Output) -> Result<()> {
                let e = experiment_with(ctx, &p.sim, &p.extra())?;
                let digests = e.digests();
                out.title = format!("GPU sharing in a replay of {}", e.prepared.source);
                out.fill("replay", crate::definition(&e.prepared, &digests));
                $run(&e, &digests, out)
            }
        }
    };
}

view!(
    SharingSummary,
    "sim.sharing",
    "Per run: GPU-allocated vs GPU-used utilization, GPUs saved, oversold GPUs, offline JCT, online slowdown",
    sharing
);
view!(SharingTimeline, "sim.sharing-timeline", "GPUs occupied and GPUs busy over time, per run", timeline);
view!(OfflineJct, "sim.offline-jct", "JCT and wait distributions of done offline jobs, per run", offline_jct);
view!(OnlineSlowdown, "sim.online-slowdown", "Distribution of the online services' mean slowdowns, per run", online);

pub(crate) static VIEWS: [Analysis; 4] = [
    Analysis::of(&SharingSummary),
    Analysis::of(&SharingTimeline),
    Analysis::of(&OfflineJct),
    Analysis::of(&OnlineSlowdown),
];

fn sharing(_: &Experiment, digests: &[Digest], out: &mut Output) -> Result<()> {
    if let Some(t) = results::sharing_table(digests) {
        out.table("sharing", t);
    }
    let headlines = digests
        .iter()
        .filter_map(|d| d.sharing.as_ref().map(|s| (d, s)))
        .flat_map(|(d, s)| {
            let key = |k: &str| format!("{}.{k}", d.spec.label);
            [
                Headline::new(
                    &key("gpu_used_util"),
                    &format!("{}: GPU-used utilization", d.spec.label),
                    100.0 * s.gpu_used_util,
                    "%",
                ),
                Headline::new(
                    &key("gpus_saved"),
                    &format!("{}: GPUs saved by sharing", d.spec.label),
                    s.gpus_saved_mean,
                    "GPUs",
                ),
            ]
        })
        .collect();
    out.headlines("headlines", headlines);
    Ok(())
}

fn timeline(e: &Experiment, digests: &[Digest], out: &mut Output) -> Result<()> {
    let span = digests.iter().filter_map(|d| d.series.time.last()).max().copied().unwrap_or(0);
    let interval = results::nice_interval(span, 200);
    let gpus = e.prepared.cluster.total_gpus() as f64;
    let hours = |t: i64| t as f64 / 3_600_000.0;
    let mut used = Vec::new();
    let mut occupied = Vec::new();
    for d in digests {
        let Some(s) = &d.sharing else { continue };
        let step = tracelab_sim::Series {
            time: s.used_series.iter().map(|p| p.0).collect(),
            allocated_milli: s.used_series.iter().map(|p| (p.1 * 1000.0).round() as u64).collect(),
            queued: vec![0; s.used_series.len()],
            running: vec![0; s.used_series.len()],
        };
        let busy = results::resampled(&[Digest { series: step, ..d.clone() }], interval);
        let alloc = results::resampled(std::slice::from_ref(d), interval);
        let pct = |r: &tracelab_sim::Resampled| -> Vec<(f64, f64)> {
            r.time.iter().zip(&r.allocated_gpus).map(|(t, g)| (hours(*t), 100.0 * g / gpus)).collect()
        };
        used.push((d.spec.label.clone(), pct(&busy[0].1)));
        occupied.push((d.spec.label.clone(), pct(&alloc[0].1)));
    }
    out.curves("used", "hours from the window start", "GPUs busy (%)", used);
    out.curves("allocated", "hours from the window start", "GPUs allocated (%)", occupied);
    out.definition.push_str(&format!(" Time series: time-weighted means over bins of {} s.", interval / 1000));
    Ok(())
}

fn offline_jct(e: &Experiment, _: &[Digest], out: &mut Output) -> Result<()> {
    let class = |i: u32| e.prepared.workload.usage.get(i as usize).map_or(JobClass::Offline, |u| u.class);
    let secs = |r: &crate::run::Run, f: &dyn Fn(&tracelab_sim::JobResult) -> Option<i64>| -> Vec<f64> {
        r.result
            .jobs
            .iter()
            .filter(|j| j.status == JobStatus::Done && class(j.id) == JobClass::Offline)
            .filter_map(|j| f(j).map(|ms| ms as f64 / 1000.0))
            .collect()
    };
    let jct = e.runs.iter().map(|r| (r.spec.label.clone(), Dist::from_samples(secs(r, &|j| j.jct)))).collect();
    let wait = e.runs.iter().map(|r| (r.spec.label.clone(), Dist::from_samples(secs(r, &|j| j.queue_time)))).collect();
    out.dists("jct", "offline JCT (s)", jct);
    out.dists("wait", "offline wait (s)", wait);
    Ok(())
}

fn online(_: &Experiment, digests: &[Digest], out: &mut Output) -> Result<()> {
    let series =
        digests.iter().map(|d| (d.spec.label.clone(), Dist::from_samples(d.online_slowdown.clone()))).collect();
    out.dists("slowdown", "online service mean slowdown", series);
    Ok(())
}
