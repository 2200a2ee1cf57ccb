//! Benchmark of the engine on synthetic workloads at trace scale, each run in
//! its own process so that its peak RSS (VmHWM) is its own.
//!
//! - PAI scale: 1,000,000 jobs over 48 days on 1,295 2-GPU + 519 8-GPU nodes
//!   (6,742 GPUs, two GPU types, 6 % of jobs pinned to a type), 40 % of jobs
//!   fractional (0.25 / 0.5 GPU), the rest 1-32 GPUs;
//! - Philly scale: 117,325 jobs over 24 days on 321 2-GPU + 231 8-GPU nodes.
//!
//! Offered load is about 95 % of the GPUs at both scales (mean 4.5 GPUs per
//! whole-GPU job, durations log-uniform from 10 s to one day).
//!
//! cargo run --release --example bench            # every configuration
//! cargo run --release --example bench -- one pai fifo greedy pack   # one run

// An example's job is to print its results.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

use std::process::Command;
use std::time::Instant;

use tracelab_sim::rng::Rng;
use tracelab_sim::{simulate, Cluster, Job, NodeGroup, SimConfig, Workload};

struct Scale {
    jobs: u32,
    days: f64,
    groups: [NodeGroup; 2],
    fractional: f64,
}

fn scale(name: &str) -> Scale {
    let g = |count, gpus, gpu_type| NodeGroup { count, gpus, cpu_milli: None, gpu_type };
    match name {
        "pai" => Scale { jobs: 1_000_000, days: 48.0, groups: [g(1295, 2, 0), g(519, 8, 1)], fractional: 0.4 },
        _ => Scale { jobs: 117_325, days: 24.0, groups: [g(321, 2, 0), g(231, 8, 1)], fractional: 0.0 },
    }
}

/// Poisson arrivals, log-uniform durations (10 s to 1 day), user/VC/group skew.
fn workload(s: &Scale, seed: u64) -> Workload {
    let mut rng = Rng::new(seed);
    let gap = s.days * 86_400_000.0 / s.jobs as f64;
    let mut t = 0.0;
    // 20 equally likely sizes: mean 4.5 GPUs.
    let whole = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 8, 8, 16, 32].map(|g| g * 1000);
    let jobs = (0..s.jobs)
        .map(|id| {
            t += -gap * (1.0 - rng.unit()).ln();
            let duration = (10_000.0 * (8640f64).powf(rng.unit())) as i64;
            let gpu_milli = if rng.unit() < s.fractional {
                [250, 500][rng.below(2) as usize]
            } else {
                whole[rng.below(whole.len() as u64) as usize]
            };
            let gpu_type = (rng.unit() < 0.06).then(|| rng.below(2) as u16).filter(|&ty| ty == 1 || gpu_milli <= 2000);
            let user = (rng.unit().powi(3) * 1000.0) as u32;
            Job {
                id,
                submit: t as i64,
                duration,
                gpu_milli,
                cpu_milli: None,
                user,
                vc: user % 40,
                group: user * 3 + rng.below(3) as u32,
                gpu_type,
                priority: 0,
            }
        })
        .collect();
    Workload::from_jobs(jobs)
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb =
        status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok());
    kb.unwrap_or(f64::NAN) / 1024.0
}

fn one(args: &[String]) {
    let s = scale(&args[0]);
    let w = workload(&s, 42);
    let cluster = Cluster::from_groups(&s.groups).unwrap();
    let mut cfg = SimConfig::new(args[1].parse().unwrap(), args[2].parse().unwrap(), args[3].parse().unwrap());
    cfg.record_series = true;
    if let Some(x) = args.get(4) {
        cfg.share_slowdown = x.parse().unwrap();
    }
    let t0 = Instant::now();
    let r = simulate(&w, &cluster, &cfg).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    let sm = &r.summary;
    println!(
        "| {} | {} | {} | {} | {:.2} | {:.0} | {:.0} | {:.1} | {:.1} | {:.3} | {} |",
        args[0],
        args[1],
        args[2],
        args[3..].join(" "),
        secs,
        s.jobs as f64 / secs,
        peak_rss_mb(),
        sm.jct_ms.mean / 1000.0,
        sm.queue_ms.mean / 1000.0,
        sm.gpu_utilisation,
        sm.preemptions
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("one") {
        return one(&args[1..]);
    }
    println!("| scale | policy | discipline | placement | wall s | jobs/s | peak RSS MB | mean JCT s | mean queue s | GPU util | preemptions |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for scale in ["pai", "philly"] {
        for policy in ["fifo", "sjf", "sjf-predicted", "qssf", "fair"] {
            runs.push(vec![scale, policy, "greedy", "pack"]);
        }
        runs.push(vec![scale, "fifo", "strict", "pack"]);
        runs.push(vec![scale, "qssf", "strict", "pack"]);
        runs.push(vec![scale, "fifo", "easy", "pack"]);
        for placement in ["spread", "first-fit", "random", "least-shared"] {
            runs.push(vec![scale, "fifo", "greedy", placement]);
        }
    }
    runs.push(vec!["pai", "fifo", "greedy", "pack", "2.5"]);
    runs.push(vec!["pai", "fifo", "greedy", "least-shared", "2.5"]);
    for policy in ["srtf", "las"] {
        runs.push(vec!["philly", policy, "greedy", "pack"]);
    }
    let exe = std::env::current_exe().unwrap();
    for run in runs {
        let out = Command::new(&exe).arg("one").args(&run).output().unwrap();
        print!("{}", String::from_utf8_lossy(&out.stdout));
        if !out.status.success() {
            println!(
                "| {} | failed: {} |",
                run.join(" "),
                String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("")
            );
        }
    }
}
