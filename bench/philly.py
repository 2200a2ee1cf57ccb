#!/usr/bin/env python3
"""Philly analysis benchmark: tracelab's P4 (the GPU-minute join) vs the same definition in DuckDB SQL,
on the same Parquet store, in the same run; plus the whole Philly analysis set.

Usage:
  python3 bench/philly.py [--scale S] [--tracelab PATH] [--work DIR] [--store STORE]

Without --store, a synthetic Philly trace is generated first (`tracelab synth philly --scale S`, default
1.0 = full size, about 6.6 GB of raw files) under --work (default target/bench/philly-raw unless S != 1)
and ingested (`tracelab ingest`, into <raw>/.tracelab; both steps are skipped when already done).
Then, one process each, timed with wait4 (wall time and peak RSS of the process):
  tracelab  `analyze philly.gpu-util-by-status --format json` (P4: every attempt's GPU-minutes joined to
            gpu_util, value counts per status and size), and each `philly.*` analysis in turn (the set);
  DuckDB    the P4 definition in SQL over the same Parquet: every held GPU of every attempt exploded into
            minutes with range() (kept within gpu_util's time span, as tracelab does), joined to gpu_util on
            (machine, minute), the held GPU's column picked, counts per (status, gpus, utilization); in a
            separate Python process, spilling to a folder under --work.
Prints seconds, peak RSS and the tracelab/DuckDB ratios, and the mean in-use GPU utilization each engine
found (they must agree). Build tracelab first: cargo build --release.
This is a benchmark, not a test: it asserts nothing, it reports.
"""
import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import measure  # bench/measure.py: one process under wait4

ROOT = Path(__file__).resolve().parent.parent
P4 = "philly.gpu-util-by-status"

DUCK = r'''
import duckdb, json, sys
store, tmp = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
con.execute("SET enable_progress_bar = false")
con.execute(f"SET temp_directory = '{tmp}'")
cols = " ".join(f"WHEN {i} THEN g.gpu{i}_util_pct" for i in range(8))
rows = con.execute(f"""
WITH span AS (SELECT epoch_us(min(time)) AS lo, epoch_us(max(time)) AS hi FROM '{store}/philly/gpu_util.parquet'),
att AS (  -- minutes m = floor(start), +1 min, ... while m < end, kept within gpu_util's span
  SELECT a.job_id, a.attempt, j.status, j.gpus,
         greatest(epoch_us(date_trunc('minute', a.start_time)), span.lo) AS s, least(epoch_us(a.end_time), span.hi + 1) AS e
  FROM '{store}/philly/attempts.parquet' a JOIN '{store}/philly/jobs.parquet' j USING (job_id), span
  WHERE j.attempts > 0 AND j.gpus IS NOT NULL AND a.start_time IS NOT NULL AND a.end_time IS NOT NULL
), held AS (
  SELECT att.status, att.gpus, p.machine, p.gpu, unnest(range(att.s, att.e, 60000000)) AS m
  FROM att JOIN '{store}/philly/placements.parquet' p ON p.job_id = att.job_id AND p.attempt = att.attempt
  WHERE att.s < att.e
), samples AS (
  SELECT h.status, h.gpus, CASE h.gpu {cols} END AS v
  FROM held h JOIN '{store}/philly/gpu_util.parquet' g ON g.machine = h.machine AND epoch_us(g.time) = h.m
)
SELECT status, gpus, v, count(*) FROM samples WHERE v IS NOT NULL GROUP BY ALL""").fetchall()
n = sum(r[3] for r in rows)
print(json.dumps({"samples": n, "mean": sum(r[2] * r[3] for r in rows) / n, "groups": len(rows)}))
'''


def run(cmd, capture=False):
    """Runs cmd; returns (seconds, peak RSS in MB, stdout) of the process (bench/measure.py)."""
    m = measure.run(cmd, capture)
    return m.secs, m.rss_mb, m.stdout


def prepare(args):
    """The store to benchmark on, generating and ingesting the raw trace when needed."""
    if args.store:
        return args.store
    name = "philly-raw" if args.scale == 1 else f"philly-raw-{args.scale:g}"
    raw = args.work / name
    if not (raw / "cluster_gpu_util").exists():
        print(f"generating {raw} ...", flush=True)
        secs, rss, _ = run([args.tracelab, "synth", "philly", "--scale", str(args.scale), "--out", raw, "--quiet"])
        print(f"  synth: {secs:.1f} s, peak RSS {rss:.0f} MB", flush=True)
    store = raw / ".tracelab"
    print(f"ingesting into {store} (skipped when up to date) ...", flush=True)
    secs, rss, _ = run([args.tracelab, "ingest", raw, "--quiet"])
    print(f"  ingest: {secs:.1f} s, peak RSS {rss:.0f} MB", flush=True)
    return store


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--tracelab", type=Path, default=ROOT / "target/release/tracelab")
    ap.add_argument("--work", type=Path, default=ROOT / "target/bench")
    ap.add_argument("--store", type=Path)
    args = ap.parse_args()
    if not args.tracelab.exists():
        sys.exit(f"{args.tracelab} not found: run `cargo build --release` first")
    store = prepare(args)
    gpu_util_mb = (store / "philly/gpu_util.parquet").stat().st_size / 1e6

    t_secs, t_rss, t_out = run([args.tracelab, "analyze", P4, "--store", store, "--format", "json"], capture=True)
    heads = [h for p in json.loads(t_out)["parts"] if p["kind"] == "headlines" for h in p["headlines"]]
    t_mean = next(h["value"] for h in heads if h["key"] == "mean-in-use")
    t_n = next(h["value"] for h in heads if h["key"] == "gpu-minutes")
    duck_tmp = tempfile.mkdtemp(dir=args.work, prefix="duckdb-spill-")
    try:
        d_secs, d_rss, d_out = run([sys.executable, "-c", DUCK, str(store), duck_tmp], capture=True)
    finally:
        shutil.rmtree(duck_tmp, ignore_errors=True)
    duck = json.loads(d_out.strip().splitlines()[-1])

    ids = philly_ids(args.tracelab)
    per = [(i, *run([args.tracelab, "analyze", i, "--store", store, "--format", "json"])[:2]) for i in ids]

    import duckdb
    print(f"\nPhilly P4 ({P4}) on {store} (gpu_util.parquet {gpu_util_mb:,.0f} MB)")
    print(f"{'engine':<16}{'seconds':>10}{'peak RSS MB':>14}{'GPU-minutes':>14}{'mean util %':>14}")
    print(f"{'tracelab':<16}{t_secs:>10.1f}{t_rss:>14.0f}{t_n:>14,.0f}{t_mean:>14.6f}")
    print(f"{'duckdb ' + duckdb.__version__:<16}{d_secs:>10.1f}{d_rss:>14.0f}{duck['samples']:>14,}{duck['mean']:>14.6f}")
    print(f"tracelab/duckdb: time x{t_secs / d_secs:.2f}, peak RSS x{t_rss / d_rss:.2f}")
    print("\nevery philly.* analysis, one process each")
    print(f"{'analysis':<32}{'seconds':>10}{'peak RSS MB':>14}")
    for i, secs, rss in per:
        print(f"{i:<32}{secs:>10.1f}{rss:>14.0f}")
    print(f"{'total':<32}{sum(p[1] for p in per):>10.1f}{max(p[2] for p in per):>14.0f} (max)")


def philly_ids(tracelab):
    """The registered philly.* analysis ids, from `analyze --list` (CSV when piped: the leading id)."""
    text = subprocess.run([tracelab, "analyze", "--list"], capture_output=True, text=True).stdout
    return sorted(set(re.findall(r"^\W*(philly\.[a-z0-9-]+)", text, flags=re.M)))


if __name__ == "__main__":
    main()
