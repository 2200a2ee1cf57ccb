#!/usr/bin/env python3
"""Python package benchmark (issue 34): a policy written in Python on the full-scale PAI trace, and a
10 M-row query result reaching polars, each beside the same work done without Python, in the same run.

Usage:
  python3 bench/python.py --python PY [--store STORE] [--tracelab PATH] [--rows N] [--policy sjf]

--python: an interpreter with the tracelab wheel built in release (`maturin build --release`) and polars
installed, e.g. a venv under target/. --store: the full-scale synthetic PAI store bench/simulate.py makes
(default target/bench/sim-store-pai-1). --tracelab: a release build of the CLI (default target/tracelab-bench).

Cases, each one process measured with wait4 (bench/measure.py: wall time, peak RSS):
  * `tracelab simulate --trace pai --policy sjf --threads 1` (the CLI);
  * `store.simulate(trace="pai", policy="sjf", threads=1)` from Python (the built-in policy);
  * `store.simulate(trace="pai", policy=PySjf(), threads=1)`, PySjf a tracelab.Policy whose
    `key(self, job, now)` returns `job.duration`: the engine calls Python once per job (never re-keyed).
    Its schedule must be sjf's: the mean JCTs are printed side by side.
    Target: under 60 s on 2 cores.
  * `tracelab query SQL -o rows.parquet` for a query of N rows (default 10,000,000: the PAI instances
    table's numeric and text columns, repeated to N rows) against
    `polars.DataFrame(store.query(SQL))` in Python (Arrow C stream, numeric buffers not copied).
    Target: Python under 2x the CLI's time to write the file.
The Python cases also print the time inside the process (the work, without the interpreter's start and
imports). A benchmark, not a test: it asserts nothing, it reports.
"""
import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import measure  # noqa: E402  bench/measure.py: one process under wait4


def sql(rows):
    """N rows from pai_instances: its rows repeated as often as needed, then cut to N."""
    return (
        "SELECT i.job_name, i.task_name, i.inst_id, i.worker_name, i.status, i.start_time, i.end_time, "
        "i.machine, i.run_s, r.k FROM pai_instances i CROSS JOIN (VALUES (0), (1), (2), (3), (4), (5), (6), (7)) AS r(k) "
        f"LIMIT {rows}"
    )


def child(args):
    """One case inside the measured process; prints a JSON line."""
    import tracelab

    store = tracelab.open(args.store)
    started = time.perf_counter()
    if args.child in ("sim-builtin", "sim-python"):

        class PySjf(tracelab.Policy):
            name = "py-sjf"

            def key(self, job, now):
                return job.duration

        policy = PySjf() if args.child == "sim-python" else args.policy
        result = store.simulate(trace="pai", policy=policy, threads=1)
        part = result.part("summary")
        row = dict(zip(part["columns"], part["rows"][0]))
        out = {"jobs": row["jobs"], "mean_jct_s": row["mean_jct_s"]}
    else:
        import polars as pl

        df = pl.DataFrame(store.query(sql(args.rows)))
        out = {"rows": df.height}
    out["inside_s"] = time.perf_counter() - started
    print(json.dumps(out))


def measured(cmd):
    m = measure.run(cmd, capture=True)
    line = m.stdout.strip().splitlines()[-1] if m.stdout.strip() else "{}"
    try:
        extra = json.loads(line)
    except json.JSONDecodeError:
        extra = {}
    return m, extra


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", help="an interpreter with the release tracelab wheel and polars")
    ap.add_argument("--store", default=str(ROOT / "target" / "bench" / "sim-store-pai-1"))
    ap.add_argument("--tracelab", default=str(ROOT / "target" / "tracelab-bench"))
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--policy", default="sjf")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)
    if not args.python:
        sys.exit("--python PY: an interpreter with the release tracelab wheel and polars")
    me = [args.python, __file__, "--store", args.store, "--rows", str(args.rows), "--policy", args.policy]
    print(f"store {args.store}\n")

    cli = measure.run([args.tracelab, "simulate", "--store", args.store, "--trace", "pai", "--policy", args.policy,
                       "--format", "json", "--threads", "1"], capture=True)
    summary = json.loads(cli.stdout)["parts"]
    s = next(p for p in summary if p["name"] == "summary")
    cli_row = dict(zip(s["columns"], s["rows"][0]))
    builtin, b = measured(me + ["--child", "sim-builtin"])
    python, p = measured(me + ["--child", "sim-python"])
    print(f"PAI, {cli_row['jobs']:,} jobs, {args.policy} (one thread):")
    print(f"  {'':34} {'wall s':>8} {'inside s':>9} {'RSS MB':>8} {'mean JCT s':>14}")
    print(f"  {'tracelab simulate (CLI)':34} {cli.secs:8.2f} {'':>9} {cli.rss_mb:8.0f} {cli_row['mean_jct_s']:14.3f}")
    print(f"  {'Python, built-in ' + args.policy:34} {builtin.secs:8.2f} {b['inside_s']:9.2f} {builtin.rss_mb:8.0f} "
          f"{b['mean_jct_s']:14.3f}")
    print(f"  {'Python, tracelab.Policy key()':34} {python.secs:8.2f} {p['inside_s']:9.2f} {python.rss_mb:8.0f} "
          f"{p['mean_jct_s']:14.3f}")
    print(f"  Python policy / built-in (inside): {p['inside_s'] / b['inside_s']:.1f}x; same schedule: "
          f"{p['mean_jct_s'] == b['mean_jct_s'] == cli_row['mean_jct_s']}\n")

    with tempfile.TemporaryDirectory(dir=ROOT / "target") as tmp:
        out = Path(tmp) / "rows.parquet"
        write = measure.run([args.tracelab, "query", sql(args.rows), "--store", args.store, "-o", out])
        size = os.path.getsize(out) / 1e6
    polars, q = measured(me + ["--child", "query"])
    print(f"A {q['rows']:,}-row query result:")
    print(f"  tracelab query -o rows.parquet (CLI): {write.secs:8.2f} s, {write.rss_mb:6.0f} MB ({size:.0f} MB file)")
    print(f"  polars.DataFrame(store.query(...)):   {polars.secs:8.2f} s, {polars.rss_mb:6.0f} MB "
          f"(inside: {q['inside_s']:.2f} s)")
    print(f"  Python / CLI: {polars.secs / write.secs:.2f}x (target under 2x)")


if __name__ == "__main__":
    main()
