#!/usr/bin/env python3
"""Calibration of a (synthetic) Alibaba spot-GPU trace against the published numbers.

Usage: python3 tests/calibration/spot.py DIR [--json] [--scale S]

Reads DIR/job_info_df.csv and DIR/node_info_df.csv with DuckDB SQL. Targets:
- the README's files: 466,867 jobs (x S); 4,278 nodes of six GPU models, 10,412 GPUs (their
  shares are kept at every scale, and every model keeps a node);
- GFS (ASPLOS'26) Sec 2: job durations P90 6.4 hours and P99 19.8 days;
- alibaba/clusterdata#260: replaying worker_num x gpu_request GPUs per job over [submit_time,
  submit_time + duration) asks 133 % of the A10 GPUs on average; GFS Sec 2: the high-end models
  stay below 80 % allocated (their offered load is targeted at 50-78 %). The offered load is
  averaged over [0, last submission];
- the README's rows: the trace starts with an HP job submitted at 0; durations end by the trace's
  last second (2024-08-31 23:59:59, 15,897,599 s).
Tolerances: counts exact (largest remainder); quantiles 10 % (P99 15 %: 1 % of a small sample);
loads 10 % relative; GPU shares 2 points (a node is kept per model).
"""
import sys

import duckdb

from calib import Report, one

JOBS_AT_SCALE_ONE = 466_867
NODES = {"A10": 2494, "GPU-series-1": 1558, "A100-SXM4-80GB": 3456, "H800": 1752, "GPU-series-2": 976,
         "A800-SXM4-80GB": 176}
PERIOD_END = 184 * 86_400 - 1


def main():
    args = sys.argv[1:]
    as_json = "--json" in args
    scale = None
    if "--scale" in args:
        i = args.index("--scale")
        scale = float(args[i + 1])
        del args[i:i + 2]
    d = [a for a in args if not a.startswith("--")][0]
    con = duckdb.connect()
    con.execute(f"create table jobs as select * from read_csv('{d}/job_info_df.csv', header=true)")
    con.execute(f"create table nodes as select * from read_csv('{d}/node_info_df.csv', header=true)")
    n = one(con, "select count(*) from jobs")
    scale = scale or n / JOBS_AT_SCALE_ONE
    r = Report()
    r.add("jobs", round(JOBS_AT_SCALE_ONE * scale), n, "exact", abs(n - round(JOBS_AT_SCALE_ONE * scale)) <= 1)
    caps = dict(con.execute("select gpu_model, sum(gpu_capacity_num) from nodes group by 1").fetchall())
    total = sum(caps.values())
    for model, gpus in NODES.items():
        share = caps.get(model, 0) / total * 100
        want = gpus / sum(NODES.values()) * 100
        r.add(f"{model} share of GPUs (%)", round(want, 2), round(share, 2), "±2 pts", abs(share - want) <= 2)
    p90, p99 = con.execute("select quantile_cont(duration, 0.9), quantile_cont(duration, 0.99) from jobs").fetchall()[0]
    r.rel("duration P90 (h), GFS Sec 2", 6.4, p90 / 3600, 0.1)
    r.rel("duration P99 (days), GFS Sec 2", 19.8, p99 / 86400, 0.15)
    last = one(con, "select max(submit_time) from jobs")
    loads = dict(con.execute(f"""select gpu_model,
        sum(worker_num * gpu_request * greatest(least(submit_time + duration, {last}) - submit_time, 0)) / {last}
        from jobs group by 1""").fetchall())
    a10 = loads.get("A10", 0) / caps["A10"] * 100
    r.rel("A10 offered load (% of its GPUs), #260", 133.0, a10, 0.1)
    for model in ("A100-SXM4-80GB", "H800", "A800-SXM4-80GB"):
        load = loads.get(model, 0) / caps[model] * 100
        r.add(f"{model} offered load (%)", "< 80 (GFS Sec 2)", round(load, 1), "< 80", load < 80)
    first = con.execute("select submit_time, job_type from jobs order by submit_time, job_name limit 1").fetchall()[0]
    r.add("first job: HP at 0 (README rows)", "(0, 'HP')", str(first), "exact", first == (0, "HP"))
    late = one(con, f"select count(*) from jobs where submit_time + duration > {PERIOD_END}")
    r.add("jobs ending after the trace's last second", 0, late, "exact", late == 0)
    r.finish(as_json, (46, 18, 14, 20))


if __name__ == "__main__":
    main()
