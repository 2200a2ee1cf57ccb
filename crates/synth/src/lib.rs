//! `tracelab synth`: synthetic traces in the owners' exact raw formats,
//! calibrated to the published numbers, at any scale, from a seed.
//!
//! Each trace module writes its plain files into the output folder and, with
//! `--archive`, packs them as the owners ship them. Every file is written
//! whole through a temporary file ([`tracelab_schema::outfile`]): a regular
//! file of the same name is replaced, a link or device refused, and other
//! files in the folder are left alone. Generation streams to
//! disk in bounded memory. The same (trace, scale, seed, effects,
//! corruption) always gives byte-identical files: all randomness comes from
//! [`rng::Rng`] streams derived from the seed.
//!
//! Scale: `--scale s` keeps the load per machine realistic, so calibration
//! targets (queueing, utilization) hold at every scale; each trace module
//! documents how (fewer machines receive work, or a shorter window).

mod acme;
pub mod archive;
mod helios;
pub mod inventory;
pub mod out;
mod pai;
mod philly;
pub mod pyfmt;
pub mod rng;
mod spot;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use out::{Corruption, FileReport, Injected};
use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::outfile::{self, Replace};
use tracelab_schema::synthetic::{Marker, MARKER_FILE};
use tracelab_schema::Trace;

/// The effects the papers report, planted so analyses have something to
/// find; each can be switched off to check an analysis does not find it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effects {
    /// PAI: instances of recurring groups run slower on machines with high
    /// CPU use; delayed instances concentrate on machines above 24 % CPU
    /// (NSDI'22 CPU-contention finding).
    pub cpu_contention: bool,
    /// PAI: slowdown rises with the number of co-located instances.
    pub colocation: bool,
}

impl Default for Effects {
    fn default() -> Self {
        Effects { cpu_contention: true, colocation: true }
    }
}

/// A validated synth request.
#[derive(Clone, Debug)]
pub struct Plan {
    pub traces: Vec<Trace>,
    /// 1.0 is the size of the real trace.
    pub scale: f64,
    pub seed: u64,
    /// Output folder; with several traces each gets `<out>/<trace>/`.
    pub out: PathBuf,
    /// Also pack the files as the owners ship them.
    pub archive: bool,
    /// Fraction of rows to corrupt (`--corrupt`).
    pub corrupt: Option<f64>,
    pub effects: Effects,
}

/// Settings every trace generator receives.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub scale: f64,
    pub seed: u64,
    pub effects: Effects,
    pub corruption: Option<Corruption>,
    pub archive: bool,
}

/// What one trace's generation wrote.
#[derive(Debug)]
pub struct TraceReport {
    pub trace: Trace,
    pub dir: PathBuf,
    pub files: Vec<FileReport>,
}

#[derive(Debug)]
pub struct Report {
    pub traces: Vec<TraceReport>,
    /// `corruptions.csv` files written, one per trace folder, with counts.
    pub corruptions: Vec<(PathBuf, usize)>,
}

impl Plan {
    pub fn validate(&self) -> Result<()> {
        if !(self.scale > 0.0 && self.scale <= 10.0) {
            return Err(Error::Usage(format!("--scale {}: expected a number in (0, 10]", self.scale)));
        }
        if let Some(rate) = self.corrupt {
            if !(0.0..=1.0).contains(&rate) {
                return Err(Error::Usage(format!("--corrupt {rate}: expected a fraction in [0, 1]")));
            }
        }
        Ok(())
    }

    /// The folder a trace is written to.
    pub fn dir_of(&self, trace: Trace) -> PathBuf {
        if self.traces.len() == 1 {
            self.out.clone()
        } else {
            self.out.join(trace.name())
        }
    }
}

pub fn run(plan: &Plan) -> Result<Report> {
    plan.validate()?;
    let mut report = Report { traces: Vec::new(), corruptions: Vec::new() };
    for &trace in &plan.traces {
        let dir = plan.dir_of(trace);
        if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::Usage(format!("--out {}: is a symbolic link; give the folder itself", dir.display())));
        }
        std::fs::create_dir_all(&dir).at(&dir)?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let ctx = Ctx {
            scale: plan.scale,
            seed: plan.seed,
            effects: plan.effects,
            corruption: plan.corrupt.map(|rate| Corruption { rate, seed: plan.seed, log: Arc::clone(&log) }),
            archive: plan.archive,
        };
        let mut files = match trace {
            Trace::Pai => pai::generate(&ctx, &dir)?,
            Trace::Philly => philly::generate(&ctx, &dir)?,
            Trace::Helios => helios::generate(&ctx, &dir)?,
            Trace::Acme => acme::generate(&ctx, &dir)?,
            Trace::Spot => spot::generate(&ctx, &dir)?,
            Trace::Swf => {
                return Err(Error::Usage("synth generates pai, philly, helios, acme and spot; not SWF logs".into()))
            }
        };
        files.push(write_marker(plan, trace, &dir)?);
        if plan.corrupt.is_some() {
            let faults = log.lock().expect("fault log").clone();
            report.corruptions.push((write_faults(&dir, faults.clone())?, faults.len()));
        }
        report.traces.push(TraceReport { trace, dir, files });
    }
    Ok(report)
}

/// The files each generator copies verbatim from the owners' public data
/// (`inventory`): the real part of a synthetic folder.
fn real_files(trace: Trace) -> &'static [&'static str] {
    match trace {
        Trace::Pai => &["pai_machine_spec.csv"],
        Trace::Philly => &["cluster_machine_list"],
        Trace::Helios => &["Earth/cluster_gpu_number.csv", "Venus/cluster_gpu_number.csv"],
        Trace::Swf | Trace::Acme | Trace::Spot => &[],
    }
}

/// `SYNTHETIC.json` beside the trace's files, so that what is made from
/// them (a store's manifest, a report) can say they are synthetic.
fn write_marker(plan: &Plan, trace: Trace, dir: &Path) -> Result<FileReport> {
    // The planted effects are PAI's (NSDI'22 Sec 4.2); the other traces have none.
    let pai = trace == Trace::Pai;
    let on = [("cpu-contention", pai && plan.effects.cpu_contention), ("colocation", pai && plan.effects.colocation)];
    let marker = Marker {
        trace,
        version: env!("CARGO_PKG_VERSION").to_string(),
        scale: plan.scale,
        seed: plan.seed,
        corrupt: plan.corrupt,
        effects: on.iter().filter(|(_, on)| *on).map(|(name, _)| name.to_string()).collect(),
        real_files: real_files(trace).iter().map(std::string::ToString::to_string).collect(),
    };
    let text = marker.to_json();
    let path = dir.join(MARKER_FILE);
    outfile::write(&path, text.as_bytes(), Replace::Regular)?;
    Ok(FileReport { file: MARKER_FILE.to_string(), bytes: text.len() as u64, rows: 0 })
}

/// Name of the list of injected faults in a trace folder.
pub const FAULTS_FILE: &str = "corruptions.csv";

fn write_faults(dir: &Path, mut faults: Vec<Injected>) -> Result<PathBuf> {
    faults.sort();
    let mut text = String::from("file,line,kind,column\n");
    for f in faults {
        text.push_str(&format!("{},{},{},{}\n", f.file, f.line, f.kind, f.column));
    }
    let path = dir.join(FAULTS_FILE);
    outfile::write(&path, text.as_bytes(), Replace::Regular)?;
    Ok(path)
}
