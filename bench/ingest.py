#!/usr/bin/env python3
"""Ingest benchmark: tracelab vs DuckDB on the same raw CSV files, in the same run.

Usage:
  python3 bench/ingest.py [--raw DIR] [--scale S] [--tracelab PATH] [--work DIR]

Without --raw, a synthetic PAI trace is generated first (`tracelab synth pai --scale S`,
default 1.0 = full size, about 3.8 GB of CSV) under --work (default target/bench).
Both tools convert the seven PAI tables CSV -> Parquet (zstd):
  tracelab: `tracelab ingest DIR --out STORE --force --quiet` (also validates every record,
            writes rejects, the manifest and the unified jobs table)
  DuckDB:   COPY (SELECT * FROM read_csv(file, header=false, columns=...)) TO ... (FORMAT parquet,
            COMPRESSION zstd), one statement per table, in a separate Python process
Prints wall time, throughput over the CSV bytes, peak RSS (from wait4, per process tree
root) and the tracelab/DuckDB ratios. Build tracelab first: cargo build --release.
This is a benchmark, not a test: it asserts nothing, it reports.
"""
import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import measure  # bench/measure.py: one process under wait4

ROOT = Path(__file__).resolve().parent.parent
TABLES = {
    "pai_job_table": "job_name,inst_id,user,status,start_time,end_time",
    "pai_task_table": "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type",
    "pai_instance_table": "job_name,task_name,inst_name,worker_name,inst_id,status,start_time,end_time,machine",
    "pai_sensor_table": "job_name,task_name,worker_name,inst_id,machine,gpu_name,cpu_usage,gpu_wrk_util,avg_mem,max_mem,avg_gpu_wrk_mem,max_gpu_wrk_mem,read,write,read_count,write_count",
    "pai_group_tag_table": "inst_id,user,gpu_type_spec,group,workload",
    "pai_machine_spec": "machine,gpu_type,cap_cpu,cap_mem,cap_gpu",
    "pai_machine_metric": "worker_name,machine,start_time,end_time,machine_cpu_iowait,machine_cpu_kernel,machine_cpu_usr,machine_gpu,machine_load_1,machine_net_receive,machine_num_worker,machine_cpu",
}
TYPES = {"job_name": "VARCHAR", "task_name": "VARCHAR", "inst_name": "VARCHAR", "worker_name": "VARCHAR",
         "inst_id": "VARCHAR", "user": "VARCHAR", "status": "VARCHAR", "machine": "VARCHAR", "gpu_type": "VARCHAR",
         "gpu_name": "VARCHAR", "gpu_type_spec": "VARCHAR", "group": "VARCHAR", "workload": "VARCHAR",
         "inst_num": "DOUBLE", "cap_cpu": "BIGINT", "cap_mem": "BIGINT", "cap_gpu": "BIGINT"}

DUCK = r'''
import duckdb, json, sys
raw, out, tables = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
con = duckdb.connect()
for stem, cols in tables.items():
    spec = ", ".join(f"'{c}': '{t}'" for c, t in cols)
    con.execute(f"COPY (SELECT * FROM read_csv('{raw}/{stem}.csv', header=false, columns={{{spec}}})) "
                f"TO '{out}/{stem}.parquet' (FORMAT parquet, COMPRESSION zstd)")
'''


def run(cmd):
    """Runs cmd; returns (seconds, peak RSS in MB) of the process (bench/measure.py)."""
    m = measure.run(cmd)
    return m.secs, m.rss_mb


def du(path):
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file()) / 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", type=Path)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--tracelab", type=Path, default=ROOT / "target/release/tracelab")
    ap.add_argument("--work", type=Path, default=ROOT / "target/bench")
    args = ap.parse_args()
    if not args.tracelab.exists():
        sys.exit(f"{args.tracelab} not found: run `cargo build --release` first")
    raw = args.raw
    if raw is None:
        raw = args.work / f"pai-scale-{args.scale:g}"
        if not (raw / "pai_instance_table.csv").exists():
            print(f"generating {raw} ...", flush=True)
            secs, rss = run([args.tracelab, "synth", "pai", "--scale", str(args.scale), "--seed", "1", "--out", raw, "--quiet"])
            print(f"  synth: {secs:.1f} s, peak RSS {rss:.0f} MB", flush=True)
    csv_mb = sum((raw / f"{t}.csv").stat().st_size for t in TABLES) / 1e6
    work = Path(tempfile.mkdtemp(dir=args.work if args.work.exists() else None))
    try:
        store = work / "store"
        t_secs, t_rss = run([args.tracelab, "ingest", raw, "--out", store, "--force", "--quiet"])
        t_out = du(store)
        duck_out = work / "duckdb"
        duck_out.mkdir()
        import json
        tables = {t: [(c, TYPES.get(c, "DOUBLE")) for c in cols.split(",")] for t, cols in TABLES.items()}
        d_secs, d_rss = run([sys.executable, "-c", DUCK, str(raw), str(duck_out), json.dumps(tables)])
        d_out = du(duck_out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    import duckdb
    print(f"\nPAI CSV -> Parquet, {csv_mb:,.0f} MB of CSV in {raw}")
    print(f"{'tool':<12}{'seconds':>10}{'MB/s':>10}{'peak RSS MB':>14}{'Parquet MB':>12}")
    print(f"{'tracelab':<12}{t_secs:>10.1f}{csv_mb / t_secs:>10.1f}{t_rss:>14.0f}{t_out:>12.1f}")
    print(f"{'duckdb ' + duckdb.__version__:<12}{d_secs:>10.1f}{csv_mb / d_secs:>10.1f}{d_rss:>14.0f}{d_out:>12.1f}")
    print(f"tracelab/duckdb: throughput x{d_secs / t_secs:.2f}, peak RSS x{t_rss / d_rss:.2f}")


if __name__ == "__main__":
    main()
