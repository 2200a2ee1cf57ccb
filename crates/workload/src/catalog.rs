//! What `tracelab simulate --list` prints: every policy, discipline,
//! placement and predictor of the engine (from their `ALL` lists, so a new
//! one cannot be forgotten: the matches below are exhaustive) and every
//! option of the replay, each with the paper or simulator it mirrors.

use tracelab_analysis::ResultTable;
use tracelab_sim::{Discipline, Placement, Policy, Predictor};

fn policy(p: Policy) -> (&'static str, &'static str) {
    match p {
        Policy::Fifo => ("PAI simulator policy 8; Helios fifo", "submission order"),
        Policy::Sjf => ("PAI simulator policy 0 (SJF); Helios sjf", "shortest trace duration first (oracle)"),
        Policy::Srtf => {
            ("Helios srtf (SC'21)", "shortest remaining time first, preemptive, with Helios' checkpoint overhead")
        }
        Policy::SjfPredicted => (
            "PAI NSDI'22 SJU/SJG/SJGG (Fig 13)",
            "shortest predicted duration first; predictions from jobs finished earlier in the replay (--predictor)",
        ),
        Policy::Qssf => ("Helios QSSF (SC'21)", "predicted duration x GPUs (expected GPU time) first"),
        Policy::Las => {
            ("Tiresias 2D-LAS (NSDI'19)", "least attained GPU service first, preemptive, discretized queues")
        }
        Policy::Fair => ("max-min fair share", "the VC (or user, --fair-by) holding the fewest GPUs first"),
        Policy::Priority => (
            "GFS (ASPLOS'26) HP/Spot; Sjtucitlab/Spot fifo_spot",
            "higher priority class first (spot trace: HP over Spot), FIFO within a class; preempts lower classes",
        ),
        Policy::Exclusive => ("GPU-sharing papers' dedicated-GPU baseline", "every job holds whole GPUs alone"),
        Policy::TimeSharing => {
            ("Gandiva (OSDI'18) time slicing", "a job finding no free GPU shares one in equal time slices")
        }
        Policy::PriorityTimeSharing => (
            "AntMan (OSDI'20) / PAI priority time sharing",
            "online first; offline jobs run in the idle time of online GPUs",
        ),
        Policy::Horus => (
            "Horus (TPDS'22)",
            "predicted utilization, k-means queues by weighted fair queueing, least-interference co-location",
        ),
        Policy::Muxflow => (
            "MuxFlow (2023)",
            "online protected by a slowdown bound; offline matched to online GPUs (Kuhn-Munkres) on dynamic SM shares",
        ),
    }
}

fn discipline(d: Discipline) -> (&'static str, &'static str) {
    match d {
        Discipline::Strict => (
            "textbook FIFO; HeliosArtifact QSSF framework (else: break)",
            "head-of-line blocking: stop at the first job that does not fit",
        ),
        Discipline::Greedy => ("PAI simulator allocation", "start every job that fits, in policy order"),
        Discipline::Easy => {
            ("EASY backfilling (Lifka)", "strict plus backfilling around a reservation for the head job")
        }
    }
}

fn placement(p: Placement) -> (&'static str, &'static str) {
    match p {
        Placement::Pack => ("Helios consolidate", "the fullest node that fits (best fit)"),
        Placement::Spread => ("PAI simulator balancing (sort_node_policy 3)", "the emptiest node first"),
        Placement::FirstFit => ("PAI simulator packing (sort_node_policy 0)", "the lowest-numbered node that fits"),
        Placement::Random => ("seeded uniform", "a random node that fits (--seed)"),
        Placement::LeastShared => {
            ("Horus-style interference avoidance", "shared GPUs: the one with the fewest co-located jobs")
        }
    }
}

fn predictor(p: Predictor) -> (&'static str, &'static str) {
    match p {
        Predictor::User => ("PAI SJU", "mean duration of the user's finished jobs"),
        Predictor::Group => ("PAI SJG", "mean duration of the group's finished jobs (default)"),
        Predictor::UserGpuType => ("PAI SJGG-like", "mean duration of the user's finished jobs on the same GPU type"),
    }
}

/// The replay's options that are not engine names.
const OPTIONS: [(&str, &str, &str); 16] = [
    (
        "--trace",
        "any ingested trace",
        "pai, philly, helios or helios:CLUSTER; one job = a PAI task, a Philly job, a Helios job",
    ),
    ("--jobs", "tracelab-sim CSV job list", "replay a plain CSV job list instead of a trace"),
    (
        "--window FROM..TO",
        "trace time",
        "jobs submitted in [FROM, TO): RFC 3339 instants or offsets from the trace start (3h..11h)",
    ),
    (
        "--window busiest:DUR",
        "Pollux (OSDI'21) busiest 8 h of Philly",
        "the window with the most GPU-seconds (GPUs x duration) submitted in it",
    ),
    (
        "--sample N --seed S",
        "Pollux 160-job samples",
        "N jobs drawn uniformly without replacement, reproducible from the seed",
    ),
    (
        "--load F",
        "Pollux Fig 8a workload intensity",
        "submission times from the window start divided by F; a list is a sweep",
    ),
    (
        "--cluster from-trace",
        "the trace's machines",
        "PAI machine_spec (GPU machines), Philly machine list, Helios VCs of GPUs // 8 8-GPU nodes",
    ),
    (
        "--cluster NxG | FILE.toml",
        "a cluster you describe",
        "N nodes of G GPUs, or [[group]] tables with count, gpus, cpus, gpu_type",
    ),
    (
        "--share-slowdown F",
        "Horus interference (2.4-3.4x for bad pairs)",
        "progress of jobs on a shared GPU slows by F",
    ),
    ("--until DUR", "truncated replay", "stop at this time from the window start; unfinished jobs are counted as left"),
    (
        "--interference M",
        "Horus co-location measurements",
        "constant (--share-slowdown) or utilization: the classic policies' fractional jobs slow by the model",
    ),
    (
        "--online N",
        "MuxFlow online services",
        "add N online services of one GPU (--online-util %, --online-mem GiB) for the whole replay",
    ),
    (
        "--online-profile P",
        "MuxFlow: online load smooth in minutes, periodic over days",
        "trace (the trace's utilization over a day), flat, or a CSV file of offset_s,load",
    ),
    (
        "--default-gpu-util U",
        "stated default",
        "utilization (%) of a job the trace measured nothing of (--default-gpu-mem GiB likewise)",
    ),
    ("--max-tenants N", "PAI packs four 25 % tasks per GPU", "most jobs sharing one GPU under the sharing policies"),
    ("--online-bound F", "MuxFlow: online slowdown under 20 %", "the online slowdown muxflow never lets pass"),
];

/// One row per choice and option: kind, name, what it mirrors, what it does.
pub fn table() -> ResultTable {
    let mut t = ResultTable::new(&["kind", "name", "mirrors", "what it does"]);
    let mut add =
        |kind: &str, name: &str, (m, w): (&str, &str)| t.push(vec![kind.into(), name.into(), m.into(), w.into()]);
    Policy::ALL.iter().for_each(|p| add("policy", p.name(), policy(*p)));
    Discipline::ALL.iter().for_each(|d| add("discipline", d.name(), discipline(*d)));
    Placement::ALL.iter().for_each(|p| add("placement", p.name(), placement(*p)));
    Predictor::ALL.iter().for_each(|p| add("predictor", p.name(), predictor(*p)));
    OPTIONS.iter().for_each(|(n, m, w)| add("option", n, (m, w)));
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_name_is_listed_once() {
        let t = table();
        let names = t.column("name").unwrap();
        let n = Policy::ALL.len() + Discipline::ALL.len() + Placement::ALL.len() + Predictor::ALL.len();
        assert_eq!(t.rows.len(), n + OPTIONS.len());
        for p in Policy::ALL {
            assert_eq!(names.iter().filter(|c| ***c == p.name().into()).count(), 1, "{p}");
        }
    }
}
