//! The Pollux artifact's measured tables, compiled into the crate
//! (`crates/sim/data/pollux/traces/<application>/`, Apache-2.0, see the
//! NOTICE there) and parsed once: per-placement step times
//! (`placements.csv`), the 6-16 node measurements (`scalability.csv`) and
//! the per-epoch training curves at each total batch size
//! (`validation-<B>.csv`).
//!
//! Owns parsing only; what the numbers mean is [`super::throughput`] and
//! [`super::training`]. The tables ship with the crate and are checked by
//! its tests, so a malformed shipped row is a build defect and panics with
//! the file and line.

/// One measured step: `step_time` is the whole iteration, `sync_time` the
/// part spent synchronising gradients (seconds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub local_bsz: f64,
    pub step_time: f64,
    pub sync_time: f64,
}

/// One row of `placements.csv`: GPUs per node (the placement's digits) and
/// the step measured at one per-GPU batch size.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacementRow {
    pub placement: Vec<u32>,
    pub step: Step,
}

/// One row of `scalability.csv`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalabilityRow {
    pub num_nodes: u32,
    pub num_replicas: u32,
    pub step: Step,
}

/// One epoch of a `validation-<B>.csv` training run at total batch size B:
/// cumulative progress (training examples scaled by statistical efficiency
/// relative to the smallest batch size) and iterations at the epoch's end,
/// the validation metric, and the gradient's squared norm and variance
/// measured during the epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochRow {
    pub progress: f64,
    pub iteration: f64,
    pub metric: f64,
    pub grad_sqr: f64,
    pub grad_var: f64,
}

/// The raw text of one application's tables.
pub struct Sources {
    pub name: &'static str,
    pub placements: &'static str,
    pub scalability: &'static str,
    /// (total batch size, text), any order.
    pub validation: &'static [(u32, &'static str)],
}

macro_rules! table {
    ($app:literal, $($file:tt)+) => {
        include_str!(concat!("../../../data/pollux/traces/", $app, "/", $($file)+))
    };
}

macro_rules! sources {
    ($app:literal, [$($b:literal),+]) => {
        Sources {
            name: $app,
            placements: table!($app, "placements.csv"),
            scalability: table!($app, "scalability.csv"),
            validation: &[$(($b, table!($app, "validation-", stringify!($b), ".csv"))),+],
        }
    };
}

/// The six applications of the artifact, in alphabetical order.
pub const SOURCES: [Sources; 6] = [
    sources!("bert", [12, 24, 48, 96, 192, 384]),
    sources!("cifar10", [128, 256, 512, 1024, 2048, 4096]),
    sources!("deepspeech2", [20, 40, 80, 160, 320, 640]),
    sources!("imagenet", [200, 400, 800, 1600, 3200, 6400, 12800]),
    sources!("ncf", [256, 512, 1024, 2048, 4096, 8192, 16384, 32768]),
    sources!("yolov3", [8, 16, 32, 64, 128, 256, 512]),
];

/// Rows of a shipped CSV with the expected header, as numbers.
fn rows(app: &str, file: &str, text: &str, header: &str) -> Vec<Vec<f64>> {
    let mut lines = text.lines().enumerate();
    let head = lines.next().map(|(_, h)| h.trim());
    assert_eq!(head, Some(header), "{app}/{file}: unexpected header");
    let width = header.split(',').count();
    lines
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let row: Vec<f64> = l
                .split(',')
                .map(|f| f.trim().parse::<f64>().unwrap_or_else(|_| panic!("{app}/{file} line {}: `{f}`", i + 1)))
                .collect();
            assert_eq!(row.len(), width, "{app}/{file} line {}: {} fields", i + 1, row.len());
            row
        })
        .collect()
}

fn step(r: &[f64]) -> Step {
    Step { local_bsz: r[0], step_time: r[1], sync_time: r[2] }
}

pub fn placements(s: &Sources) -> Vec<PlacementRow> {
    rows(s.name, "placements.csv", s.placements, "placement,local_bsz,step_time,sync_time")
        .into_iter()
        .map(|r| PlacementRow { placement: digits(r[0]), step: step(&r[1..]) })
        .collect()
}

/// `1124` -> `[1, 1, 2, 4]`: the artifact writes a placement as the GPU
/// count of each node, one digit per node.
fn digits(x: f64) -> Vec<u32> {
    let text = format!("{}", x as u64);
    text.bytes().map(|b| (b - b'0') as u32).collect()
}

pub fn scalability(s: &Sources) -> Vec<ScalabilityRow> {
    rows(s.name, "scalability.csv", s.scalability, "num_nodes,num_replicas,local_bsz,step_time,sync_time")
        .into_iter()
        .map(|r| ScalabilityRow { num_nodes: r[0] as u32, num_replicas: r[1] as u32, step: step(&r[2..]) })
        .collect()
}

/// The training runs by ascending total batch size.
pub fn validation(s: &Sources) -> Vec<(u32, Vec<EpochRow>)> {
    let mut out: Vec<(u32, Vec<EpochRow>)> = s
        .validation
        .iter()
        .map(|(b, text)| {
            let file = format!("validation-{b}.csv");
            let epochs = rows(s.name, &file, text, "progress,iteration,metric,grad_sqr,grad_var")
                .into_iter()
                .map(|r| EpochRow { progress: r[0], iteration: r[1], metric: r[2], grad_sqr: r[3], grad_var: r[4] })
                .collect();
            (*b, epochs)
        })
        .collect();
    out.sort_by_key(|(b, _)| *b);
    out
}
