#!/usr/bin/env python3
"""PAI analysis benchmark: every `pai.*` analysis on a (full-scale synthetic) PAI store, and the Fig 7
machine-utilization query (pai.machine-util) against the same definition in DuckDB SQL on the same Parquet.

Usage:
  python3 bench/pai.py [--store DIR] [--scale S] [--tracelab PATH] [--work DIR]

Without --store, a synthetic PAI trace is generated (`tracelab synth pai --scale S`, default 1.0 = full
size, about 3.8 GB of CSV) and ingested under --work (default target/bench). Each analysis runs as
`tracelab analyze ID --store STORE --format json` in its own process; prints wall time and peak RSS (wait4)
per analysis, the total, and the tracelab/DuckDB ratio for Fig 7. Build first: cargo build --release.
This is a benchmark, not a test: it asserts nothing, it reports.
"""
import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Fig 7 in DuckDB: explode machine_metric and sensor rows over the 5-minute bins they cover, mean / sum per
# machine and bin, every active 2/8-GPU machine in every bin (idle = 0), P50/P90 per class and bin.
DUCK_FIG7 = r'''
import duckdb, sys
s = sys.argv[1].rstrip("/") + "/pai/"
con = duckdb.connect()
B = 300 * 1000000
con.execute(f"""
CREATE TABLE x AS WITH w AS (
  SELECT * EXCLUDE (rn) FROM (SELECT worker_name, start_time, end_time, row_number() OVER (PARTITION BY worker_name
    ORDER BY status DESC, start_time DESC NULLS FIRST, end_time DESC NULLS FIRST, file_row_number DESC) AS rn
    FROM read_parquet('{s}instance.parquet', file_row_number=true) WHERE worker_name IS NOT NULL) WHERE rn = 1),
r AS (SELECT machine, 0 AS src, machine_gpu_pct AS v0, machine_cpu_pct AS v1, start_time, end_time FROM '{s}machine_metric.parquet'
  UNION ALL SELECT s.machine, 1, avg_mem_gib, avg_gpu_wrk_mem_gib, w.start_time, w.end_time FROM '{s}sensor.parquet' s JOIN w USING (worker_name))
SELECT r.machine, src, v0, v1, unnest(range(floor(epoch_us(start_time) / {B})::BIGINT, floor((epoch_us(end_time) - 1) / {B})::BIGINT + 1)) AS bin
FROM r JOIN '{s}machine_spec.parquet' p ON p.machine = r.machine AND p.cap_gpu IN (2, 8)
WHERE start_time IS NOT NULL AND end_time IS NOT NULL AND end_time > start_time""")
con.execute("""CREATE TABLE v AS SELECT machine, bin, avg(v0) FILTER (WHERE src = 0) AS gpu, avg(v1) FILTER (WHERE src = 0) AS cpu,
  sum(v0) FILTER (WHERE src = 1) AS mem, sum(v1) FILTER (WHERE src = 1) AS gmem FROM x GROUP BY ALL""")
con.execute(f"""
CREATE TABLE per AS WITH a AS (SELECT DISTINCT machine FROM x), b AS (SELECT range AS bin FROM range((SELECT min(bin) FROM x), (SELECT max(bin) + 1 FROM x))),
g AS (SELECT p.cap_gpu AS cls, b.bin, coalesce(v.gpu, 0) AS gpu, coalesce(v.cpu, 0) AS cpu, 100 * coalesce(v.mem, 0) / p.cap_mem_gib AS mem,
  100 * coalesce(v.gmem, 0) / (p.cap_gpu * CASE p.gpu_type WHEN 'V100M32' THEN 32 ELSE 16 END) AS gmem
  FROM a CROSS JOIN b JOIN '{s}machine_spec.parquet' p ON p.machine = a.machine LEFT JOIN v ON v.machine = a.machine AND v.bin = b.bin)
SELECT cls, bin, quantile_cont(gpu, [0.5, 0.9]) AS gpu, quantile_cont(cpu, [0.5, 0.9]) AS cpu, quantile_cont(mem, [0.5, 0.9]) AS mem,
  quantile_cont(gmem, [0.5, 0.9]) AS gmem FROM g GROUP BY ALL""")
print(con.execute("SELECT cls, count(*), quantile_cont(gpu[2], 0.5) FROM per GROUP BY cls ORDER BY cls").fetchall())
'''


def run(cmd, out=subprocess.DEVNULL):
    """Runs cmd; returns (seconds, peak RSS in MB, stdout) of the process, via wait4."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE if out is None else out)
    stdout = proc.stdout.read() if out is None else b""
    _, status, usage = os.wait4(proc.pid, 0)
    secs = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}")
    return secs, usage.ru_maxrss / 1024, stdout.decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--store")
    ap.add_argument("--scale", default="1")
    ap.add_argument("--tracelab", default=str(ROOT / "target/release/tracelab"))
    ap.add_argument("--work", default=str(ROOT / "target/bench"))
    a = ap.parse_args()
    tl = a.tracelab
    store = a.store
    if store is None:
        raw, store = Path(a.work) / "pai-raw", Path(a.work) / "pai-store"
        if not (raw / "pai").exists():
            print(f"synth pai --scale {a.scale}: {run([tl, 'synth', 'pai', '--scale', a.scale, '--out', str(raw)])[0]:.1f} s")
        if not (Path(store) / "pai").exists():
            print(f"ingest: {run([tl, 'ingest', str(raw), '--out', str(store)])[0]:.1f} s")
    _, _, listing = run([tl, "analyze", "--list"], out=None)
    ids = sorted({w for line in listing.splitlines() for w in line.split() if w.startswith("pai.")})
    total = 0.0
    print(f"{'analysis':32} {'wall s':>8} {'peak RSS MB':>12}")
    times = {}
    for i in ids:
        secs, rss, _ = run([tl, "analyze", i, "--store", str(store), "--format", "json"])
        total += secs
        times[i] = secs
        print(f"{i:32} {secs:8.2f} {rss:12.0f}")
    print(f"{'total (sequential)':32} {total:8.2f}")
    secs, rss, res = run([sys.executable, "-c", DUCK_FIG7, str(store)], out=None)
    print(f"{'duckdb fig7 (same definition)':32} {secs:8.2f} {rss:12.0f}   {res.strip()}")
    if "pai.machine-util" in times:
        print(f"pai.machine-util tracelab/duckdb wall ratio: {times['pai.machine-util'] / secs:.2f}")


if __name__ == "__main__":
    main()
