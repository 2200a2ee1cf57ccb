#!/usr/bin/env python3
"""tracelab from Python, notebook style: one published figure reproduced,
and a scheduling policy written in Python compared with the built-in `sjf`.

1. Philly's job runtime CDF by GPU count (Jeon et al., "Analysis of
   Large-Scale Multi-Tenant GPU Clusters for DNN Training Workloads",
   USENIX ATC'19, Figure 2), through `Store.analyze("philly.runtime-by-size")`:
   the curves are written as a CSV table, and plotted to an SVG when
   matplotlib is installed.
2. A replay of the PAI trace under `fifo`, `sjf` and a Python policy that
   runs the job with the least GPU time (duration x GPUs) first, in one
   call: the summary rows side by side.

Usage: python examples/philly_runtimes_and_a_python_policy.py [--store STORE] [--out DIR]
(default: the bundled samples' store, and the folder `example-out/`).
"""

from __future__ import annotations

import argparse
import csv
import pathlib

import tracelab


class LeastGpuTime(tracelab.Policy):
    """Least GPU time first (duration x GPUs, as the trace recorded them):
    an oracle in the spirit of Tiresias' 2D view of a job's size."""

    name = "least-gpu-time"

    def key(self, job, now):
        return job.duration * job.gpus


def figure(store: tracelab.Store, out: pathlib.Path) -> pathlib.Path:
    """ATC'19 Fig 2: runtime CDF (minutes) per GPU-count bucket."""
    result = store.analyze("philly.runtime-by-size")
    part = result.part("by-size")
    table = out / "philly-runtime-by-size.csv"
    with table.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["gpus", "runtime_min", "cdf_pct"])
        for series in part["series"]:
            for x, pct in series["cdf"]:
                w.writerow([series["label"], x, pct])
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return table
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for series in part["series"]:
        xs, ys = zip(*series["cdf"]) if series["cdf"] else ((), ())
        ax.plot(xs, ys, label=series["label"])
    ax.set_xscale("log")
    ax.set_xlabel("job runtime (minutes)")
    ax.set_ylabel("CDF (%)")
    ax.set_title("Philly: runtime by GPU count (ATC'19 Fig 2)")
    ax.legend()
    fig.text(0.01, 0.01, result.definition[:110] + "...", fontsize=5)
    fig.savefig(out / "philly-runtime-by-size.svg")
    return table


def compare(store: tracelab.Store, out: pathlib.Path) -> list:
    """fifo, sjf and least-gpu-time on the PAI trace: one summary row each."""
    result = store.simulate(trace="pai", policy=["fifo", "sjf", LeastGpuTime()])
    summary = result.part("summary")
    keep = ["policy", "jobs", "done", "mean_jct_s", "p99_jct_s", "mean_wait_s", "mean_bounded_slowdown", "gpu_util"]
    at = [summary["columns"].index(c) for c in keep]
    rows = [[row[i] for i in at] for row in summary["rows"]]
    with (out / "pai-policies.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keep)
        w.writerows(rows)
    return [dict(zip(keep, r)) for r in rows]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", help="a store written by tracelab ingest (default: the bundled samples)")
    ap.add_argument("--out", default="example-out", help="folder for the table, the figure and the summary")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    store = tracelab.open(args.store)
    print("figure table:", figure(store, out))
    for row in compare(store, out):
        print(f"{row['policy']:>15}: mean JCT {row['mean_jct_s']:10.1f} s, mean wait {row['mean_wait_s']:10.1f} s")


if __name__ == "__main__":
    main()
