//! Replays Pollux workload CSVs (e.g. the artifact's eight, shipped under
//! `crates/sim/data/pollux/workloads*/`) under the elastic policies on
//! Pollux's cluster (16 nodes x 4 GPUs) and prints each run's average JCT
//! and wall time as JSON lines, for cross-checks and `bench/pollux.py`.
//!
//! `cargo run --release -p tracelab-sim --example pollux -- [--policy P]
//!  [--interval S] [--interference X] [--no-avoid] [--nodes N] FILE.csv...`

// An example's job is to print its results.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

use std::io::BufReader;
use std::time::Instant;

use tracelab_sim::elastic::workload::read_workload;
use tracelab_sim::elastic::{simulate_elastic, ElasticConfig, ElasticPolicyName};

fn main() {
    let mut config = ElasticConfig::default();
    let mut policies = vec![ElasticPolicyName::Pollux];
    let mut nodes = 16;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().expect("option needs a value");
        match a.as_str() {
            "--policy" => policies = value().split(',').map(|p| p.parse().expect("policy")).collect(),
            "--interval" => config.interval = value().parse::<i64>().expect("seconds") * 1000,
            "--interference" => config.interference = value().parse().expect("number"),
            "--no-avoid" => config.avoid_interference = false,
            "--nodes" => nodes = value().parse().expect("count"),
            _ => files.push(a),
        }
    }
    for file in &files {
        let jobs = read_workload(BufReader::new(std::fs::File::open(file).expect("open")), file).expect("workload");
        for &p in &policies {
            let c = ElasticConfig { policy: p, ..config.clone() };
            let start = Instant::now();
            let r = simulate_elastic(&jobs, &vec![4; nodes], &c).expect("replay");
            let secs = start.elapsed().as_secs_f64();
            println!(
                "{{\"file\": \"{file}\", \"policy\": \"{p}\", \"jobs\": {}, \"avg_jct_s\": {:.3}, \"p99_jct_s\": {:.1}, \"makespan_s\": {:.0}, \"restarts\": {:.3}, \"wall_s\": {secs:.3}}}",
                r.summary.jobs_done,
                r.summary.jct_ms.mean / 1000.0,
                r.summary.jct_ms.p99 / 1000.0,
                r.summary.makespan_ms as f64 / 1000.0,
                r.summary.mean_restarts
            );
            if std::env::var("JOBS").is_ok() {
                for j in &r.jobs {
                    eprintln!(
                        "JOB {} {} {:?} restarts {}",
                        j.name,
                        j.jct.map_or(-1.0, |x| x as f64 / 1000.0),
                        j.first_start,
                        j.restarts
                    );
                }
            }
        }
    }
}
