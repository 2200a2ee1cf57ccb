//! The Pollux artifact's eight evaluation workloads and their variants
//! (`crates/sim/data/pollux/workloads*/`, Apache-2.0, see the NOTICE), and
//! the average JCTs the artifact's own simulator published for them
//! (`published.csv`: `simulator/results-*/*/summary.json`, one row per
//! experiment, run and workload), so replays can be compared with the
//! artifact without it.

/// A workload set: the base workloads, the job-load variants of Fig 8a
/// (0.5x, 1.5x, 2x as many jobs in the same hours) and the "realistic"
/// ones (the users' own GPU counts and batch sizes).
pub const SETS: [&str; 5] = ["workloads", "workloads-0.5", "workloads-1.5", "workloads-2.0", "workloads-realistic"];

macro_rules! sets {
    ($($set:literal),+) => {
        &[$(($set, [
            include_str!(concat!("../../data/pollux/", $set, "/workload-1.csv")),
            include_str!(concat!("../../data/pollux/", $set, "/workload-2.csv")),
            include_str!(concat!("../../data/pollux/", $set, "/workload-3.csv")),
            include_str!(concat!("../../data/pollux/", $set, "/workload-4.csv")),
            include_str!(concat!("../../data/pollux/", $set, "/workload-5.csv")),
            include_str!(concat!("../../data/pollux/", $set, "/workload-6.csv")),
            include_str!(concat!("../../data/pollux/", $set, "/workload-7.csv")),
            include_str!(concat!("../../data/pollux/", $set, "/workload-8.csv")),
        ])),+]
    };
}

const WORKLOADS: &[(&str, [&str; 8])] =
    sets!("workloads", "workloads-0.5", "workloads-1.5", "workloads-2.0", "workloads-realistic");

/// The CSV text of workload `number` (1-8) of `set`.
pub fn workload(set: &str, number: usize) -> Option<&'static str> {
    let (_, files) = WORKLOADS.iter().find(|(s, _)| *s == set)?;
    files.get(number.checked_sub(1)?).copied()
}

/// One published average: experiment (`jobload`, `period`, `inter`), run
/// (`pollux-1.0`, `optimus-0.5`, `pollux-2m`, `avoid`, `inter25`, ...),
/// workload (`workload-6`), jobs done and average JCT in seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Published {
    pub experiment: &'static str,
    pub run: &'static str,
    pub workload: &'static str,
    pub jobs: usize,
    pub avg_jct_s: f64,
}

/// Every published average.
pub fn published() -> Vec<Published> {
    include_str!("../../data/pollux/published.csv")
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&'static str> = l.split(',').collect();
            Published {
                experiment: f[0],
                run: f[1],
                workload: f[2],
                jobs: f[3].parse().expect("published.csv: jobs"),
                avg_jct_s: f[4].parse().expect("published.csv: avg_jct_s"),
            }
        })
        .collect()
}

/// The published average of `run` in `experiment` on `workload`.
pub fn published_jct(experiment: &str, run: &str, workload: &str) -> Option<f64> {
    published()
        .into_iter()
        .find(|p| p.experiment == experiment && p.run == run && p.workload == workload)
        .map(|p| p.avg_jct_s)
}
