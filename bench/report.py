#!/usr/bin/env python3
"""Report benchmark: `tracelab report` over full-scale synthetic PAI + Philly + Helios, from the raw files.

Usage:
  python3 bench/report.py [--scale S] [--tracelab PATH] [--work DIR] [--no-duckdb]

Generates (once, under --work, default target/bench) the three synthetic traces at --scale (default 1.0 =
full size: about 4 GB of PAI CSV, 7 GB of Philly, 0.2 GB of Helios) and links them into one trace folder.
Then, each as one process measured with wait4 (wall time, peak RSS):
  1. cold:   `tracelab report DIR --store STORE --out OUT` with no store (ingest included, no cache);
  2. cached: the same command again (store and result cache reused: the re-render);
  3. rerun:  `--no-cache` over the ingested store (every analysis again, no ingest).
Targets (issue 6): cold < 180 s and < 4 GB peak RSS on 2 cores; cached < 60 s.
Second tool in the same run (unless --no-duckdb): DuckDB converting the same PAI CSV files to Parquet
(bench/ingest.py's statements), the floor for anything that must read the raw trace once.
Build tracelab first: cargo build --release. This is a benchmark, not a test: it asserts nothing, it reports.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def run(cmd):
    """Runs cmd; returns (seconds, peak RSS in MB, stderr) of the process, via wait4."""
    start = time.perf_counter()
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    secs = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{err[-2000:]}")
    return secs, usage.ru_maxrss / 1024, err


def traces(tracelab, work, scale):
    """The three raw traces under work, generated when missing, linked into one folder."""
    both = work / f"report-traces-{scale:g}"
    both.mkdir(parents=True, exist_ok=True)
    for trace, probe in [("pai", "pai_instance_table.csv"), ("philly", "cluster_job_log"), ("helios", "Venus")]:
        raw = work / f"{trace}-raw-{scale:g}"
        if not (raw / probe).exists():
            print(f"generating {raw} ...", flush=True)
            secs, rss, _ = run([tracelab, "synth", trace, "--scale", scale, "--out", raw, "--quiet"])
            print(f"  {secs:.0f} s, peak RSS {rss:.0f} MB", flush=True)
        for entry in (e for e in raw.iterdir() if not e.name.startswith(".")):
            link = both / entry.name
            if not link.exists():
                link.symlink_to(entry.resolve())
    return both


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--tracelab", type=Path, default=ROOT / "target/release/tracelab")
    ap.add_argument("--work", type=Path, default=ROOT / "target/bench")
    ap.add_argument("--no-duckdb", action="store_true")
    args = ap.parse_args()
    if not args.tracelab.exists():
        sys.exit(f"{args.tracelab} not found: run `cargo build --release` first")
    dirs = traces(args.tracelab, args.work, args.scale)
    csv_mb = sum(p.stat().st_size for p in dirs.rglob("*") if p.is_file()) / 1e6
    store, out = args.work / "report-store", args.work / "report-out"
    shutil.rmtree(store, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [args.tracelab, "report", dirs, "--store", store, "--out", out]
    rows = []
    for name, extra in [("cold (ingest + report)", []), ("cached re-render", []), ("rerun --no-cache", ["--no-cache"])]:
        print(f"{name} ...", flush=True)
        secs, rss, err = run(cmd + extra)
        rows.append((name, secs, rss))
        if name.startswith("cold"):
            slowest = sorted((l for l in err.splitlines() if l.startswith("[")), key=lambda l: -seconds_of(l))[:8]
            print("  slowest analyses:\n    " + "\n    ".join(slowest), flush=True)
    print(f"\nreport over {dirs} ({csv_mb:,.0f} MB of raw files), {os.cpu_count()} cores")
    print(f"{'run':<26}{'seconds':>10}{'peak RSS MB':>14}")
    for name, secs, rss in rows:
        print(f"{name:<26}{secs:>10.1f}{rss:>14.0f}")
    print("targets: cold < 180 s and < 4096 MB; cached < 60 s")
    if not args.no_duckdb:
        duck(dirs, args.work, rows[0][1])


def seconds_of(line):
    try:
        return float(line.rsplit("(", 1)[1].split()[0])
    except (IndexError, ValueError):
        return 0.0


def duck(dirs, work, report_secs):
    import ingest  # bench/ingest.py: the DuckDB CSV -> Parquet statements for PAI
    out = work / "report-duckdb"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    tables = {t: [(c, ingest.TYPES.get(c, "DOUBLE")) for c in cols.split(",")] for t, cols in ingest.TABLES.items()}
    secs, rss, _ = run([sys.executable, "-c", ingest.DUCK, dirs, out, json.dumps(tables)])
    shutil.rmtree(out, ignore_errors=True)
    print(f"duckdb: PAI CSV -> Parquet alone {secs:.1f} s, peak RSS {rss:.0f} MB; "
          f"tracelab's whole cold report = x{report_secs / secs:.2f} that time")


if __name__ == "__main__":
    main()
