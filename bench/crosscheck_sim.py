#!/usr/bin/env python3
"""Cross-check of the tracelab-sim engine against the trace owners' simulators.

Development script, not run by CI. It builds one seeded synthetic job list,
runs it through

  * the PAI simulator (alibaba/clusterdata, cluster-trace-gpu-v2020/simulator):
    greedy allocation, FIFO (policy 8) and SJF (policy 0), with its packing
    (sort_node_policy 0, nodes by id) and balancing (3, lowest utilisation)
    node orders, on its default one big node and on 8-GPU nodes;
  * HeliosArtifact's QSSF framework (framework/QSSF Service): strict
    (head-of-line blocking), each VC simulated separately on 8-GPU nodes with
    the consolidating placer, FIFO, SJF and QSSF;

and through our engine (crates/sim/examples/replay.rs), then prints mean JCT
and mean wait of both sides and their difference.

Usage (the peers' checkouts stay outside this repository):
  python3 -m venv target/venv
  target/venv/bin/pip install numpy pandas matplotlib
  cargo build --release -p tracelab-sim --example replay
  target/venv/bin/python bench/crosscheck_sim.py PAI_SIMULATOR_DIR HELIOS_QSSF_DIR

Mappings (documented in docs/simulate.md):
  PAI packing   (nodes by id, first that fits)     -> our `first-fit`
  PAI balancing (lowest util first, ties by id)    -> our `spread` (jobs ask no CPU)
  Helios consolidate (fewest free GPUs that fit)   -> our `pack`
  Helios fifo/sjf/qssf `else: break`               -> our `strict` discipline
  Helios QSSF estimator without job names: mean duration of the user's finished
  jobs, else of all finished jobs (here 0 before any job finished) -> our `qssf`.
"""

import argparse
import csv
import importlib
import json
import logging
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REPLAY = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "release/examples/replay"


def synth_jobs(n, seed, mean_gap, gpu_choices, users=20, vcs=None):
    """Poisson arrivals in whole seconds, log-uniform durations, ids in submission order."""
    rng = random.Random(seed)
    t, jobs = 0, []
    for i in range(n):
        t += int(rng.expovariate(1.0 / mean_gap))
        dur = int(math.exp(rng.uniform(math.log(10), math.log(20000))))
        vc = vcs[rng.randrange(len(vcs))] if vcs else "vc0"
        gpus = rng.choice(gpu_choices[vc] if isinstance(gpu_choices, dict) else gpu_choices)
        jobs.append({"job_id": i, "submit": t, "duration": dur, "gpus": gpus, "user": f"u{rng.randrange(users)}", "vc": vc})
    return jobs


def write_ours(jobs, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["job_id", "submit_s", "duration_s", "gpus", "user", "vc"])
        for j in jobs:
            w.writerow([j["job_id"], j["submit"], j["duration"], j["gpus"], j["user"], j["vc"]])


def ours(csv_path, nodes, gpus, policy, discipline, placement):
    args = [str(REPLAY), str(csv_path), "--nodes", str(nodes), "--gpus", str(gpus), "--policy", policy,
            "--discipline", discipline, "--placement", placement]
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return out["mean_jct_s"], out["mean_queue_s"], out["jobs_done"]


# ---------------------------------------------------------------- PAI simulator

def run_pai(sim_dir, jobs, tmp, alloc_policy, sort_node_policy, num_nodes, num_gpus):
    use_dir(sim_dir)
    simulator = importlib.import_module("simulator")
    path = Path(tmp) / "pai_jobs.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["job_id", "user", "submit_time", "duration", "num_gpu", "num_inst"])
        for j in jobs:
            w.writerow([j["job_id"], j["user"], j["submit"], j["duration"], j["gpus"], 1])
    sim = simulator.Simulator(
        csv_file=path, alloc_policy=alloc_policy, preempt_policy=2, sort_node_policy=sort_node_policy,
        num_nodes=num_nodes, random_seed=42, max_time=int(1e9), num_spare_node=0, pattern=0, hetero=False,
        num_gpus=num_gpus, num_cpus=round(23.22 * num_gpus), describe_file=None, log_file=Path(tmp) / "pai.log",
        export_job_stats=False, export_cluster_util=False, arrival_rate=-1, num_jobs_limit=len(jobs),
        gpu_type_matching=0, verbose=0)
    (done, jct, wait, _makespan), = sim.simulator_go(repeat=1)
    return jct, wait, done


# ---------------------------------------------------------------- Helios QSSF framework

class UserMeanHistory:
    """The QSSF estimator's branch for jobs without a name match: the user's mean
    duration of finished jobs, else the mean of all finished jobs, times GPUs."""
    name = "UserMeanHistory"

    def __init__(self):
        self.by_user, self.all = {}, []

    def update_train_data(self, job):
        self.by_user.setdefault(job["user"], []).append(job["duration"])
        self.all.append(job["duration"])

    def inference(self, job):
        hist = self.by_user.get(job["user"]) or self.all
        return (sum(hist) / len(hist) if hist else 0.0) * job["gpu_num"]


class Row:
    def __init__(self, d):
        self.d = d

    def to_dict(self):
        return dict(self.d)


def use_dir(path):
    """Imports from `path` first; both simulators have modules named cluster and utils."""
    for name in ["cluster", "job", "utils", "policies", "node", "scheduler", "simulator", "job_history"]:
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]
    sys.path.insert(0, str(path))


def run_helios(qssf_dir, jobs, tmp, policy, vc_nodes):
    use_dir(qssf_dir)
    hcluster, hjob, policies = (importlib.import_module(m) for m in ("cluster", "job", "policies"))
    logger = logging.getLogger("helios")
    jct, queue, done = 0.0, 0.0, 0
    for vc_name, nodes in vc_nodes.items():
        trace = hjob.Trace()
        for j in jobs:
            trace.append_job(hjob.Job(Row({
                "job_id": j["job_id"], "user": j["user"], "vc": j["vc"], "gpu_num": j["gpus"],
                "submit_time": j["submit"], "duration": j["duration"], "remain": j["duration"],
                "start_time": sys.maxsize, "end_time": sys.maxsize, "ckpt_times": 0, "queue": 0, "jct": 0,
                "status": None})))
        vc = hcluster.VC(vc_name, nodes, 8, 96)
        log_dir = Path(tmp) / f"helios_{policy}"
        log_dir.mkdir(exist_ok=True)
        cls = {"fifo": policies.FirstInFirstOut, "sjf": policies.ShortestJobFirst,
               "qssf": policies.QuasiShortestServiceFirst, "srtf": policies.ShortestRemainingTimeFirst}[policy]
        extra = (UserMeanHistory(),) if policy == "qssf" else ()
        sched = cls(trace, vc, "consolidate", str(log_dir), logger, 0, *extra)
        sched.simulate()
        for j in sched.trace.job_list:
            jct += j["end_time"] - j["submit_time"]
            queue += j["queue"]
            done += 1
    return jct / done, queue / done, done


def ours_per_vc(jobs, tmp, policy, vc_nodes):
    jct, queue, done = 0.0, 0.0, 0
    for vc_name, nodes in vc_nodes.items():
        sub = [j for j in jobs if j["vc"] == vc_name]
        path = Path(tmp) / f"ours_{vc_name}.csv"
        write_ours(sub, path)
        m_jct, m_queue, n = ours(path, nodes, 8, policy, "strict", "pack")
        jct, queue, done = jct + m_jct * n, queue + m_queue * n, done + n
    return jct / done, queue / done, done


def pct(a, b):
    return 100.0 * (a - b) / b if b else 0.0


def row(name, theirs, mine, secs):
    print(f"| {name} | {theirs[0]:.2f} | {mine[0]:.2f} | {pct(mine[0], theirs[0]):+.3f} % | "
          f"{theirs[1]:.2f} | {mine[1]:.2f} | {pct(mine[1], theirs[1]):+.3f} % | {theirs[2]}/{mine[2]} | {secs:.1f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pai_simulator_dir")
    ap.add_argument("helios_qssf_dir")
    ap.add_argument("--jobs", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pai-gap", type=float, default=30.0, help="mean seconds between PAI submissions")
    a = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if not REPLAY.exists():
        sys.exit(f"build the replay example first: {REPLAY}")
    header = ("| setup | owner JCT s | ours JCT s | diff | owner wait s | ours wait s | diff | jobs | owner wall s |\n"
              "|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        # PAI: one big node (the simulator's default topology) and 32 nodes of 8 GPUs (gap 30 s: about 95 % load).
        jobs = synth_jobs(a.jobs, a.seed, mean_gap=a.pai_gap, gpu_choices=[1, 1, 1, 2, 2, 4, 8])
        path = Path(tmp) / "ours_pai.csv"
        write_ours(jobs, path)
        print(f"PAI simulator, {len(jobs)} jobs, greedy\n{header}")
        for label, num_nodes, gpus, our_nodes, our_gpus in [("1 node x 256 GPUs", 1, 256, 1, 256), ("32 nodes x 8 GPUs", 32, 256, 32, 8)]:
            for pname, pid, ours_policy in [("FIFO", 8, "fifo"), ("SJF", 0, "sjf")]:
                for nname, nid, ours_place in [("pack", 0, "first-fit"), ("balance", 3, "spread")]:
                    t0 = time.time()
                    theirs = run_pai(a.pai_simulator_dir, jobs, tmp, pid, nid, num_nodes, gpus)
                    secs = time.time() - t0
                    mine = ours(path, our_nodes, our_gpus, ours_policy, "greedy", ours_place)
                    row(f"{label}, {pname}, {nname} vs {ours_place}", theirs, mine, secs)
                if num_nodes > 1:
                    theirs = run_pai(a.pai_simulator_dir, jobs, tmp, pid, 0, num_nodes, gpus)
                    mine = ours(path, our_nodes, our_gpus, ours_policy, "greedy", "pack")
                    row(f"{label}, {pname}, pack vs pack (best fit)", theirs, mine, 0.0)
        # Helios: three VCs of 8-GPU nodes (40-80 % load), strict, consolidate.
        vc_nodes = {"vcA": 24, "vcB": 12, "vcC": 8}
        choices = {"vcA": [1, 1, 2, 4, 8, 16], "vcB": [1, 1, 2, 4, 8], "vcC": [1, 2, 2, 4, 8]}
        hjobs = synth_jobs(a.jobs, a.seed + 1, mean_gap=60, gpu_choices=choices, vcs=list(vc_nodes))
        print(f"\nHelios QSSF framework, {len(hjobs)} jobs in {len(vc_nodes)} VCs, strict, consolidate\n{header}")
        for policy in ["fifo", "sjf", "qssf"]:
            t0 = time.time()
            theirs = run_helios(a.helios_qssf_dir, hjobs, tmp, policy, vc_nodes)
            secs = time.time() - t0
            mine = ours_per_vc(hjobs, tmp, policy, vc_nodes)
            row(f"per VC, {policy}, consolidate vs pack", theirs, mine, secs)


if __name__ == "__main__":
    main()
