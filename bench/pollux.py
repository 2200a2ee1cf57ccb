#!/usr/bin/env python3
"""Elastic replay benchmark: `tracelab simulate --policy pollux|optimus|tiresias` beside the Pollux
artifact's own simulator (petuum/adaptdl, branch osdi21-artifact, simulator/) on the same workloads.

Usage:
  python3 bench/pollux.py [--tracelab PATH] [--artifact DIR --python PY] [--workloads LIST]
                          [--policies LIST] [--artifact-timeout S] [--scale-only]

For each of the artifact's workloads named (default 6) and each policy (default tiresias,optimus,pollux):
    tracelab simulate --jobs artifact:N --policy P --format json
and, with --artifact DIR (a checkout's simulator/ folder, kept outside this repository) and --python PY (a
Python with the artifact's simulator/requirements.txt, e.g. a venv under target/):
    PY simulator.py workloads/workload-N.csv --policy P
run from DIR. Prints both wall times, the ratio and both average JCTs (ours from the summary, the
artifact's from the "Average JCT" line it prints last). A run of the artifact that passes
--artifact-timeout (default 3,600 s) is reported as such. tracelab defaults to target/tracelab-bench (the
release build copied out of the shared release directory), else target/release or target/debug.

Scale case: a workload ten times Pollux's, the rows of workload N repeated ten times (1,600 jobs over the
same 8 hours) on 160 nodes of 4 GPUs (640 GPUs), under each policy; target: pollux under 10 s on 2 cores
(release build). The artifact is not run on it (its pollux takes more than 27 minutes on one 160-job workload).

--artifact-workloads limits the artifact's runs to some of --workloads (each of its runs takes minutes); a run
past --artifact-timeout prints "did not finish in N s" and a lower bound of the ratio.

Build tracelab first (release, see COMMON.md's shared release directory). A benchmark, not a test: it
asserts nothing, it reports. Nothing of the artifact is copied: it is run where it lies.
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd, cwd=None, timeout=None):
    """(wall seconds, stdout) of a command; stdout None on timeout."""
    start = time.monotonic()
    try:
        out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=True).stdout
    except subprocess.TimeoutExpired:
        return time.monotonic() - start, None
    return time.monotonic() - start, out


def ours(tracelab, jobs, policy, cluster="16x4"):
    """Wall time and average JCT of one tracelab replay."""
    wall, out = timed([tracelab, "simulate", "--jobs", jobs, "--policy", policy, "--cluster", cluster,
                       "--format", "json"])
    summary = json.loads(out)["parts"][0]
    row = summary["rows"][0]
    return wall, row[summary["columns"].index("mean_jct_s")]


def theirs(artifact, python, n, policy, timeout):
    """Wall time and average JCT of one artifact run (JCT None on timeout)."""
    with tempfile.TemporaryDirectory() as out_dir:
        cmd = [python, "simulator.py", f"workloads/workload-{n}.csv", "--policy", policy,
               "--output", os.path.join(out_dir, "out")]
        wall, out = timed(cmd, cwd=artifact, timeout=timeout)
    if out is None:
        return wall, None
    lines = [l for l in out.splitlines() if l.startswith("Average JCT:")]
    return wall, float(lines[-1].split(":")[1]) if lines else None


def ten_times(n):
    """Workload n's rows repeated ten times (names made unique), as a CSV file."""
    path = os.path.join(ROOT, "crates", "sim", "data", "pollux", "workloads", f"workload-{n}.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["name", "time", "application", "num_replicas", "batch_size"])
    for copy in range(10):
        for r in rows:
            w.writerow([f"{r['name']}-x{copy}", r["time"], r["application"], r["num_replicas"], r["batch_size"]])
    dest = os.path.join(ROOT, "target", "bench", f"pollux-10x-workload-{n}.csv")
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "w") as f:
        f.write(out.getvalue())
    return dest


def default_tracelab():
    """The benchmark copy of the release build (COMMON.md's flock command), else the dev build."""
    for path in [os.path.join(ROOT, "target", "tracelab-bench"), os.path.join(ROOT, "target", "release", "tracelab"),
                 os.path.join(ROOT, "target", "debug", "tracelab")]:
        if os.path.exists(path):
            return path
    return "tracelab"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tracelab", default=default_tracelab())
    p.add_argument("--artifact", help="the artifact checkout's simulator/ folder")
    p.add_argument("--python", default="python3", help="a Python with the artifact's requirements")
    p.add_argument("--workloads", default="6")
    p.add_argument("--policies", default="tiresias,optimus,pollux")
    p.add_argument("--artifact-workloads", help="workloads the artifact runs (default: all of --workloads)")
    p.add_argument("--artifact-timeout", type=float, default=3600)
    p.add_argument("--scale-only", action="store_true")
    a = p.parse_args()
    numbers = [int(x) for x in a.workloads.split(",")]
    policies = a.policies.split(",")
    theirs_on = set(int(x) for x in a.artifact_workloads.split(",")) if a.artifact_workloads else set(numbers)
    print(f"tracelab: {a.tracelab}")
    if not a.scale_only:
        # Ours first (seconds), then the artifact's (minutes each), so both are measured in this run.
        mine = {(n, policy): ours(a.tracelab, f"artifact:{n}", policy) for n in numbers for policy in policies}
        print("workload,policy,tracelab_s,artifact_s,ratio,tracelab_avg_jct_s,artifact_avg_jct_s,jct_diff_pct")
        for n in numbers:
            for policy in policies:
                t_ours, jct_ours = mine[(n, policy)]
                t_theirs, jct_theirs = (None, None)
                if a.artifact and n in theirs_on:
                    t_theirs, jct_theirs = theirs(a.artifact, a.python, n, policy, a.artifact_timeout)
                if t_theirs is None:
                    shown, ratio = "not run", ""
                elif jct_theirs is None:
                    shown, ratio = f"did not finish in {t_theirs:.0f} s", f">{t_theirs / t_ours:.0f}"
                else:
                    shown, ratio = f"{t_theirs:.1f}", f"{t_theirs / t_ours:.0f}"
                diff = f"{100 * (jct_ours / jct_theirs - 1):+.1f}" if jct_theirs else ""
                print(f"{n},{policy},{t_ours:.2f},{shown},{ratio},{jct_ours:.1f},"
                      f"{jct_theirs if jct_theirs is not None else ''},{diff}", flush=True)
    path = ten_times(numbers[0])
    print(f"scale: 1,600 jobs (workload {numbers[0]} x 10) on 160x4 GPUs (target: pollux under 10 s on 2 cores)")
    print("policy,tracelab_s,tracelab_avg_jct_s")
    for policy in policies:
        wall, jct = ours(a.tracelab, path, policy, cluster="160x4")
        print(f"{policy},{wall:.2f},{jct:.1f}", flush=True)


if __name__ == "__main__":
    main()
