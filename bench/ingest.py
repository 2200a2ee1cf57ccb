#!/usr/bin/env python3
"""Ingest benchmark: tracelab vs DuckDB on the same raw CSV files, in the same run.

Usage:
  python3 bench/ingest.py [--trace pai|acme|spot|all] [--raw DIR] [--scale S] [--repeat N]
                          [--tracelab PATH] [--work DIR]

Without --raw, a synthetic trace is generated first (`tracelab synth TRACE --scale S`, default
1.0 = full size: PAI about 3.8 GB of CSV, AcmeTrace 1.09 M jobs, the spot-GPU trace 467 k jobs and
4,278 nodes) under --work (default target/bench). Both tools convert the trace's CSV files ->
Parquet (zstd):
  tracelab: `tracelab ingest DIR --out STORE --force --quiet` (also validates every record,
            writes rejects, the manifest and the unified jobs table)
  DuckDB:   COPY (SELECT * FROM read_csv(file, header=..., columns=...)) TO ... (FORMAT parquet,
            COMPRESSION zstd), one statement per file, in a separate Python process, with the
            columns typed as tracelab types them (AcmeTrace's stamps as TIMESTAMPTZ, offsets
            honoured)
Prints wall time, throughput over the CSV bytes, CPU time (user + system: steadier than wall time on a
shared machine), peak RSS (from wait4, per process tree
root) and the tracelab/DuckDB ratios; with --repeat N, each tool runs N times alternately and
the medians are printed. Build tracelab first: cargo build --release.
This is a benchmark, not a test: it asserts nothing, it reports.
"""
import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import measure  # bench/measure.py: one process under wait4

ROOT = Path(__file__).resolve().parent.parent
PAI_TABLES = {
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

ACME_TS = ["submit_time", "start_time", "end_time", "fail_time", "stop_time"]
ACME_TYPES = {"job_id": "VARCHAR", "user": "VARCHAR", "type": "VARCHAR", "state": "VARCHAR",
              "node_num": "BIGINT", "gpu_num": "BIGINT", "cpu_num": "BIGINT", **{c: "TIMESTAMPTZ" for c in ACME_TS}}
SPOT_TYPES = {"job_name": "VARCHAR", "organization": "VARCHAR", "gpu_model": "VARCHAR", "job_type": "VARCHAR",
              "node_name": "VARCHAR", "worker_num": "BIGINT", "gpu_capacity_num": "BIGINT", "cpu_num": "BIGINT"}
# Per trace: {file: (header row?, columns, types)}, the file whose presence marks a generated trace.
TRACES = {
    "pai": ({f"{t}.csv": (False, c, TYPES) for t, c in PAI_TABLES.items()}, "pai_instance_table.csv"),
    "acme": ({
        "trace_seren.csv": (True, "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,"
                                  "duration,queue,gpu_time", ACME_TYPES),
        "trace_kalos.csv": (True, "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,"
                                  "submit_time,start_time,end_time,fail_time,stop_time,duration,queue,gpu_time", ACME_TYPES),
    }, "trace_kalos.csv"),
    "spot": ({
        "job_info_df.csv": (True, "job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,submit_time,"
                                  "duration,job_type", SPOT_TYPES),
        "node_info_df.csv": (True, "gpu_model,gpu_capacity_num,cpu_num,node_name", SPOT_TYPES),
    }, "job_info_df.csv"),
}

DUCK = r'''
import duckdb, json, sys
raw, out, tables = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
con = duckdb.connect()
for name, (header, cols) in tables.items():
    spec = ", ".join(f"'{c}': '{t}'" for c, t in cols)
    h = "true" if header else "false"
    con.execute(f"COPY (SELECT * FROM read_csv('{raw}/{name}', header={h}, columns={{{spec}}})) "
                f"TO '{out}/{name[:-4]}.parquet' (FORMAT parquet, COMPRESSION zstd)")
'''


def run(cmd):
    """Runs cmd; returns (seconds, peak RSS in MB, CPU seconds) of the process (bench/measure.py)."""
    m = measure.run(cmd)
    return m.secs, m.rss_mb, m.cpu


def du(path):
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file()) / 1e6


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def bench(trace, args):
    import json
    files, marker = TRACES[trace]
    raw = args.raw
    if raw is None:
        raw = args.work / f"{trace}-scale-{args.scale:g}"
        if not (raw / marker).exists():
            print(f"generating {raw} ...", flush=True)
            secs, rss, _ = run([args.tracelab, "synth", trace, "--scale", str(args.scale), "--seed", "1", "--out", raw, "--quiet"])
            print(f"  synth: {secs:.1f} s, peak RSS {rss:.0f} MB", flush=True)
    csv_mb = sum((raw / f).stat().st_size for f in files) / 1e6
    tables = {f: (h, [(c, types.get(c, "DOUBLE")) for c in cols.split(",")]) for f, (h, cols, types) in files.items()}
    ts, ds = [], []
    for _ in range(args.repeat):
        work = Path(tempfile.mkdtemp(dir=args.work if args.work.exists() else None))
        try:
            store = work / "store"
            t_secs, t_rss, t_cpu = run([args.tracelab, "ingest", raw, "--out", store, "--force", "--quiet"])
            t_out = du(store)
            duck_out = work / "duckdb"
            duck_out.mkdir()
            d_secs, d_rss, d_cpu = run([sys.executable, "-c", DUCK, str(raw), str(duck_out), json.dumps(tables)])
            d_out = du(duck_out)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        ts.append((t_secs, t_rss, t_cpu))
        ds.append((d_secs, d_rss, d_cpu))
    t_secs, t_rss, t_cpu = (median([x[i] for x in ts]) for i in range(3))
    d_secs, d_rss, d_cpu = (median([x[i] for x in ds]) for i in range(3))
    import duckdb
    runs = f", median of {args.repeat} runs" if args.repeat > 1 else ""
    print(f"\n{trace} CSV -> Parquet, {csv_mb:,.0f} MB of CSV in {raw}{runs}")
    print(f"{'tool':<12}{'seconds':>10}{'MB/s':>10}{'CPU s':>10}{'peak RSS MB':>14}{'Parquet MB':>12}")
    print(f"{'tracelab':<12}{t_secs:>10.2f}{csv_mb / t_secs:>10.1f}{t_cpu:>10.2f}{t_rss:>14.0f}{t_out:>12.1f}")
    print(f"{'duckdb ' + duckdb.__version__:<12}{d_secs:>10.2f}{csv_mb / d_secs:>10.1f}{d_cpu:>10.2f}{d_rss:>14.0f}{d_out:>12.1f}")
    print(f"tracelab/duckdb: throughput x{d_secs / t_secs:.2f}, CPU time x{t_cpu / d_cpu:.2f}, "
          f"peak RSS x{t_rss / d_rss:.2f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trace", choices=[*TRACES, "all"], default="pai")
    ap.add_argument("--raw", type=Path)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--tracelab", type=Path, default=ROOT / "target/release/tracelab")
    ap.add_argument("--work", type=Path, default=ROOT / "target/bench")
    args = ap.parse_args()
    if not args.tracelab.exists():
        sys.exit(f"{args.tracelab} not found: run `cargo build --release` first")
    traces = list(TRACES) if args.trace == "all" else [args.trace]
    if args.raw is not None and len(traces) > 1:
        sys.exit("--raw takes one trace: give --trace too")
    for trace in traces:
        bench(trace, args)


if __name__ == "__main__":
    main()
