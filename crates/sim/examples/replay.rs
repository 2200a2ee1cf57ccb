//! Replays a CSV job list (format in `tracelab_sim::csv`) on a cluster of
//! identical nodes and prints the run summary as one JSON object. Used by
//! `bench/crosscheck_sim.py`; the `tracelab simulate` CLI accepts the same
//! job lists.
//!
//! cargo run --example replay -- JOBS.csv --nodes 8 --gpus 8 \
//!     [--policy fifo] [--discipline greedy] [--placement pack] [--seed 0] \
//!     [--overhead helios|none] [--slowdown 1.0] [--predictor group]

// An example's job is to print its results.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

use std::fs::File;
use std::io::BufReader;
use std::process::ExitCode;
use std::time::Instant;

use tracelab_sim::csv::read_jobs;
use tracelab_sim::{simulate, Cluster, PreemptOverhead, SimConfig, SimError};

struct Args {
    path: String,
    nodes: u32,
    gpus: u32,
    cfg: SimConfig,
}

fn value(args: &[String], i: usize) -> Result<&str, String> {
    args.get(i + 1).map(String::as_str).ok_or_else(|| format!("{} needs a value", args[i]))
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        path: String::new(),
        nodes: 1,
        gpus: 8,
        cfg: SimConfig { record_series: false, ..SimConfig::default() },
    };
    let mut i = 0;
    let e = |x: SimError| x.to_string();
    while i < args.len() {
        let v = || value(args, i);
        match args[i].as_str() {
            "--nodes" => a.nodes = v()?.parse().map_err(|_| "bad --nodes")?,
            "--gpus" => a.gpus = v()?.parse().map_err(|_| "bad --gpus")?,
            "--policy" => a.cfg.policy = v()?.parse().map_err(e)?,
            "--discipline" => a.cfg.discipline = v()?.parse().map_err(e)?,
            "--placement" => a.cfg.placement = v()?.parse().map_err(e)?,
            "--predictor" => a.cfg.predictor = v()?.parse().map_err(e)?,
            "--seed" => a.cfg.seed = v()?.parse().map_err(|_| "bad --seed")?,
            "--slowdown" => a.cfg.share_slowdown = v()?.parse().map_err(|_| "bad --slowdown")?,
            "--overhead" => {
                a.cfg.preempt_overhead = if v()? == "none" { PreemptOverhead::None } else { PreemptOverhead::Helios }
            }
            path if a.path.is_empty() && !path.starts_with("--") => {
                a.path = path.to_string();
                i += 1;
                continue;
            }
            other => return Err(format!("unexpected argument `{other}`")),
        }
        i += 2;
    }
    if a.path.is_empty() {
        return Err("usage: replay JOBS.csv --nodes N --gpus G [--policy P] [--discipline D] [--placement X]".into());
    }
    Ok(a)
}

fn run(a: Args) -> Result<String, String> {
    let list = read_jobs(BufReader::new(File::open(&a.path).map_err(|e| format!("{}: {e}", a.path))?))
        .map_err(|e| e.to_string())?;
    let cluster = Cluster::homogeneous(a.nodes, a.gpus).map_err(|e| e.to_string())?;
    let t0 = Instant::now();
    let r = simulate(&list.workload, &cluster, &a.cfg).map_err(|e| e.to_string())?;
    let wall = t0.elapsed().as_secs_f64();
    let s = &r.summary;
    let out = serde_json::json!({
        "jobs_done": s.jobs_done,
        "mean_jct_s": s.jct_ms.mean / 1000.0,
        "mean_queue_s": s.queue_ms.mean / 1000.0,
        "makespan_s": s.makespan_ms as f64 / 1000.0,
        "wall_s": wall,
        "summary": s,
    });
    Ok(out.to_string())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match parse(&args).and_then(run) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("replay: {e}");
            ExitCode::from(2)
        }
    }
}
