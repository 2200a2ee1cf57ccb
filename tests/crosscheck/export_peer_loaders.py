#!/usr/bin/env python3
"""Development only (not run by the tests or CI): loads `tracelab export` files with the peers'
own loaders and runs their simulators on them.

Usage: export_peer_loaders.py --tracelab BIN --store STORE --work DIR
                              --pai-sim PAI_SIMULATOR_DIR --helios-sim QSSF_SERVICE_DIR

Needs the peers' checkouts (alibaba/clusterdata `cluster-trace-gpu-v2020/simulator`,
S-Lab-System-Group/HeliosArtifact `framework/QSSF Service`) and a Python with pandas, numpy and
matplotlib (their imports). Nothing of theirs is copied here: their modules are imported from
the given folders.

- PAI simulator: `Simulator.add_job` reads the pai-sim CSV; every row must load with the columns
  the scheduler uses as numbers; then `Simulator(...).simulator_go()` runs every allocation
  policy (SJF, SJU, SJG, SJGG, FIFO) with `arrival_rate=-1` (the exported submission times) on one node of 64 GPUs.
- HeliosArtifact: `utils.trace_process` (Helios) and `utils.trace_philly_process` (Philly) read
  the helios-sim `cluster_log.csv` with a `vc_dict_homo.pkl` written here (VC GPUs // 8 nodes,
  as its `vc_dict_generator.py`, grown where a job needs more: the framework never ends while a
  job larger than its VC waits); then fifo, sjf and srtf run on every VC with the consolidate
  placer.
"""
import argparse
import csv
import logging
import os
import pickle
import subprocess
import sys
from pathlib import Path

import duckdb


def export(args, trace, fmt, out, *extra):
    cmd = [args.tracelab, "export", "--store", args.store, "--trace", trace, "--to", fmt, "-o", str(out), "--force",
           *extra]
    subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)


def pai(args, work):
    sys.path.insert(0, args.pai_sim)
    from simulator import Simulator  # the peer's module

    csv_path = work / "pai_jobs.csv"
    export(args, "pai", "pai-sim", csv_path, "--window", "busiest:6h", "--sample", "100", "--seed", "1")
    rows = sum(1 for _ in open(csv_path)) - 1
    jobs = Simulator.add_job(csv_path, None)
    assert len(jobs) == rows, (len(jobs), rows)
    for j in jobs:
        for key in ("job_id", "num_gpu", "num_cpu", "num_inst", "submit_time", "duration"):
            assert isinstance(j[key], int), (key, j)
        for key in ("user_dur", "user_gpu_dur", "group_dur", "group_gpu_dur"):
            assert isinstance(j[key], (int, float)), (key, j)
    print(f"PAI simulator: add_job loaded {len(jobs)} of {rows} rows")
    for policy, name in ((0, "SJF"), (1, "SJU"), (2, "SJG"), (4, "SJGG"), (8, "FIFO")):
        sim = Simulator(csv_file=csv_path, alloc_policy=policy, preempt_policy=2, sort_node_policy=0, num_nodes=1,
                        random_seed=42, max_time=int(1e9), num_spare_node=0, pattern=0, hetero=False, num_gpus=64,
                        num_cpus=round(23.22 * 64), describe_file=None, log_file=work / "pai.log",
                        export_job_stats=False, export_cluster_util=False, arrival_rate=-1, num_jobs_limit=rows,
                        gpu_type_matching=0, verbose=0)
        done, jct, wait, makespan = sim.simulator_go(repeat=1)[0]
        print(f"  {name:4s}: {done} jobs done, mean JCT {jct:.1f} s, mean wait {wait:.1f} s, makespan {makespan} s")
        # Multi-instance tasks run as one simulator job per instance.
        assert done == sum(j["num_inst"] for j in jobs), (done, rows)


def helios_dir(args, work, trace, name):
    folder = work / name
    folder.mkdir(exist_ok=True)
    # Two busy days: the framework ticks every second, so months would take hours.
    export(args, trace, "helios-sim", folder / "cluster_log.csv", "--window", "busiest:2d")
    con = duckdb.connect()
    if name == "Philly":
        # Philly has no per-VC GPU table: every VC gets 2 nodes of 8 GPUs for the check.
        vcs = con.execute(f"select distinct vc from '{args.store}/philly/jobs.parquet'").fetchall()
        vc_dict = {v: 2 for (v,) in vcs}
    else:
        rows = con.execute(f"""select vc, max(gpus) // 8 from '{args.store}/helios/vc_gpus.parquet'
                               where cluster = '{name}' group by vc having max(gpus) >= 8""").fetchall()
        vc_dict = dict(rows)
    # The framework never ends while a job larger than its VC waits: grow such VCs to hold it.
    with open(folder / "cluster_log.csv") as f:
        for job in csv.DictReader(f):
            if job["vc"] in vc_dict:
                vc_dict[job["vc"]] = max(vc_dict[job["vc"]], -(-int(job["gpu_num"]) // 8))
    with open(folder / "vc_dict_homo.pkl", "wb") as f:
        pickle.dump(vc_dict, f)
    return folder, vc_dict


def helios(args, work):
    os.environ["TZ"] = "UTC"
    for name in ("utils", "cluster", "job", "node", "scheduler", "simulator", "job_history"):
        sys.modules.pop(name, None)  # the PAI simulator's modules of the same names
    sys.path.insert(0, args.helios_sim)
    import cluster
    import utils  # the peer's modules

    logger = logging.getLogger("peer")
    for trace, name, loader, date_range in (
        ("helios:Venus", "Venus", utils.trace_process, ("2020-04-01 00:00:00", "2020-09-30 23:59:00")),
        ("philly", "Philly", utils.trace_philly_process, ("2017-10-01 00:00:00", "2017-12-31 23:59:00")),
    ):
        folder, vc_dict = helios_dir(args, work, trace, name)
        df, start_ts = loader(str(folder), date_range)
        rows = sum(1 for _ in open(folder / "cluster_log.csv")) - 1
        print(f"HeliosArtifact {loader.__name__}: {len(df)} of {rows} rows in its window and VCs")
        for policy in ("fifo", "sjf", "srtf"):
            # A fresh parse per policy: the policies mutate the job dicts (the framework runs each
            # in its own process).
            trace_obj = utils.trace_parser(df.copy())
            c = cluster.Cluster(vc_dict, 8, 96)
            log_dir = work / f"{name}-{policy}"
            log_dir.mkdir(exist_ok=True)
            for vc in c.vc_list:
                if trace_obj.vc_trace(vc.vc_name).job_num() > 0:
                    utils.simulate_vc(trace_obj, vc, "consolidate", str(log_dir), policy, logger, start_ts)
            logs = sorted(log_dir.rglob("*_log.csv"))
            done = sum(sum(1 for _ in open(p)) - 1 for p in logs)
            print(f"  {policy}: {len(logs)} VCs simulated, {done} jobs in their logs")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracelab", required=True)
    ap.add_argument("--store", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--pai-sim", required=True)
    ap.add_argument("--helios-sim", required=True)
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    pai(args, work)
    helios(args, work)


if __name__ == "__main__":
    main()
