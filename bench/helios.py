#!/usr/bin/env python3
"""Helios analysis benchmark: tracelab vs DuckDB on the same Parquet store.

Usage:
  python3 bench/helios.py [--scale S] [--tracelab PATH] [--work DIR]

Generates a synthetic Helios trace (`tracelab synth helios --scale S`, default 1.0 = the
published 3.36 M jobs, 4 clusters) under --work (default target/bench/helios-raw), ingests
it, then times with the release binary:
  - `tracelab analyze helios.sequence` (all clusters, every per-minute point as CSV),
  - every Helios analysis one after the other (sum of wall times, max peak RSS),
and the same per-minute sequence in DuckDB SQL over the same Parquet (sort-and-sweep:
+gpus at floor(start), -gpus at floor(end)+1 min, window cumulative sum over the minute
grid, capped share of the day's GPUs rounded half-even to 3 decimals), in a separate
process. Prints wall time, peak RSS (wait4) and the ratios, and the per-cluster mean
allocation of both engines side by side. Build first: cargo build --release.
This is a benchmark, not a test: it asserts nothing, it reports.
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import measure  # bench/measure.py: one process under wait4

ROOT = Path(__file__).resolve().parent.parent

DUCK = r'''
import duckdb, json, sys
store = sys.argv[1]
con = duckdb.connect()
jobs = f"read_parquet('{store}/helios/jobs.parquet')"
vcg = f"read_parquet('{store}/helios/vc_gpus.parquet')"
lmin = lambda c: f"(floor(epoch_us({c}) / 60000000)::BIGINT + 480)"
g0, g1 = 18353 * 1440, 18534 * 1440
sql = f"""
WITH cap AS (SELECT cluster, (date - DATE '1970-01-01') AS day, sum(gpus) AS total FROM {vcg}
             WHERE date >= DATE '2020-04-01' AND date < DATE '2020-09-29' GROUP BY ALL),
grid AS (SELECT cluster, day * 1440 + o AS minute, total FROM cap, range(1440) t(o)),
j AS (SELECT cluster, gpus, greatest({lmin('start_time')}, {g0}) AS s, greatest({lmin('end_time')} + 1, {g0}) AS e
      FROM {jobs} WHERE gpus > 0 AND start_time IS NOT NULL AND end_time IS NOT NULL),
ev AS (SELECT cluster, minute, sum(dj) AS dj, sum(dg) AS dg FROM (
         SELECT cluster, s AS minute, 1 AS dj, gpus AS dg FROM j UNION ALL
         SELECT cluster, e AS minute, -1, -gpus FROM j) WHERE minute < {g1} GROUP BY ALL),
allrows AS (SELECT cluster, minute, max(total) AS total, sum(dj) AS dj, sum(dg) AS dg FROM (
         SELECT cluster, minute, total, 0 AS dj, 0 AS dg FROM grid UNION ALL
         SELECT cluster, minute, NULL, dj, dg FROM ev) GROUP BY ALL),
swept AS (SELECT cluster, minute, total,
            sum(dj) OVER (PARTITION BY cluster ORDER BY minute) AS jobs,
            sum(dg) OVER (PARTITION BY cluster ORDER BY minute) AS gpus FROM allrows)
SELECT cluster, count(*) AS minutes,
       avg(CASE WHEN total > 0 THEN round_even(least(gpus, total)::DOUBLE / total * 1000, 0) / 1000 END) AS mean_util,
       avg(jobs) AS mean_jobs
FROM swept WHERE total IS NOT NULL GROUP BY cluster ORDER BY cluster
"""
print(json.dumps({c: [n, u, j] for c, n, u, j in con.execute(sql).fetchall()}))
'''


def run(cmd, capture=False):
    """Runs cmd; returns (seconds, peak RSS in MB, stdout) (bench/measure.py)."""
    m = measure.run(cmd, capture)
    return m.secs, m.rss_mb, m.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--tracelab", type=Path, default=ROOT / "target/release/tracelab")
    ap.add_argument("--work", type=Path, default=ROOT / "target/bench")
    args = ap.parse_args()
    tl = args.tracelab
    if not tl.exists():
        sys.exit(f"{tl} not found: run `cargo build --release` first")
    raw = args.work / ("helios-raw" if args.scale == 1.0 else f"helios-raw-{args.scale:g}")
    store = args.work / (raw.name + "-store")
    if not (raw / "Venus").exists():
        print(f"generating {raw} ...", flush=True)
        secs, rss, _ = run([tl, "synth", "helios", "--scale", str(args.scale), "--out", raw, "--quiet"])
        print(f"  synth: {secs:.1f} s, peak RSS {rss:.0f} MB", flush=True)
    secs, rss, _ = run([tl, "ingest", raw, "--out", store, "--force", "--quiet"])
    print(f"  ingest: {secs:.1f} s, peak RSS {rss:.0f} MB", flush=True)

    seq = [tl, "analyze", "helios.sequence", "--store", store]
    s_secs, s_rss, _ = run(seq + ["--format", "csv", "--part", "sequence"])
    _, _, js = run(seq + ["--format", "json"], capture=True)
    heads = {h["key"]: h["value"] for p in json.loads(js)["parts"] for h in p.get("headlines", [])}
    _, _, js = run(seq + ["--format", "json", "--param", "column=running_gpujob_num"], capture=True)
    jobs_heads = {h["key"]: h["value"] for p in json.loads(js)["parts"] for h in p.get("headlines", [])}

    listing = subprocess.run([tl, "analyze", "--list"], capture_output=True, text=True).stdout
    ids = sorted(set(re.findall(r"^\W*(helios\.[a-z0-9-]+)", listing, flags=re.M)))
    per = []
    for i in ids:
        secs, rss, _ = run([tl, "analyze", i, "--store", store, "--format", "json"])
        per.append((i, secs, rss))

    d_secs, d_rss, out = run([sys.executable, "-c", DUCK, str(store)], capture=True)
    duck = json.loads(out)

    import duckdb
    jobs_n = duckdb.sql(f"SELECT count(*) FROM read_parquet('{store}/helios/jobs.parquet')").fetchall()[0][0]
    print(f"\nHelios per-minute sequence, {jobs_n:,} jobs, store {store}")
    print(f"{'tool':<16}{'seconds':>10}{'peak RSS MB':>14}")
    print(f"{'tracelab':<16}{s_secs:>10.1f}{s_rss:>14.0f}")
    print(f"{'duckdb ' + duckdb.__version__:<16}{d_secs:>10.1f}{d_rss:>14.0f}")
    print(f"tracelab/duckdb: time x{s_secs / d_secs:.2f}, peak RSS x{s_rss / d_rss:.2f}")
    print(f"\n{'cluster':<9}{'minutes':>9}{'mean alloc (tl)':>17}{'(duckdb)':>12}{'mean jobs (tl)':>16}{'(duckdb)':>12}")
    for c in sorted(duck):
        n, u, j = duck[c]
        print(f"{c:<9}{n:>9}{heads.get(c + '.mean', float('nan')):>17.9f}{u:>12.9f}"
              f"{jobs_heads.get(c + '.mean', float('nan')):>16.6f}{j:>12.6f}")
    print(f"\nevery Helios analysis, one process each ({len(per)}):")
    for i, secs, rss in per:
        print(f"  {i:<32}{secs:>8.1f} s{rss:>8.0f} MB")
    print(f"  {'total':<32}{sum(p[1] for p in per):>8.1f} s{max(p[2] for p in per):>8.0f} MB (max)")


if __name__ == "__main__":
    main()
