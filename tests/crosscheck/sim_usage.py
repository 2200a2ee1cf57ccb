#!/usr/bin/env python3
"""Recomputes the GPU usage `tracelab simulate` reads per job, with DuckDB from the store's
canonical tables, and compares it with the per-job table a run wrote.

Usage: sim_usage.py STORE TRACE OUT_DIR      (TRACE: pai or philly)

Definitions (docs/sharing.md, "What a job uses"), written from the document, not from the code:
  pai:    per task (job_name/task_name), over its pai/sensor rows (keyed by their own job and task
          names): utilization = mean gpu_wrk_util_pct / greatest(1, ceil(plan_gpu_pct / 100)),
          at most 100; memory = mean avg_gpu_wrk_mem_gib / the same; nulls skipped.
  philly: per job, the mean over its GPU-minutes: for every attempt with a start and an end, every
          minute m from the start floored to the minute while m < end, every GPU the attempt holds
          (philly/placements) gives the gpu<i>_util_pct of its machine's philly/gpu_util row at m
          when there is one and it is not null.
Prints JSON: how many of the per-job table's rows (first run) have usage, how many DuckDB gives
usage to, and how many differ (utilization or memory beyond 1e-3, or present on one side only).
"""
import json
import sys

import duckdb

STORE, TRACE, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
T = lambda t: f"read_parquet('{STORE}/{t}.parquet')"  # noqa: E731
con = duckdb.connect()

if TRACE == "pai":
    usage = f"""
        with s as (
            select job_name || '/' || task_name as id, avg(gpu_wrk_util_pct) as u,
                   avg(avg_gpu_wrk_mem_gib) as m
            from {T('pai/sensor')} group by all
        )
        select s.id, least(100, s.u / greatest(1, ceil(t.plan_gpu_pct / 100))) as u,
               s.m / greatest(1, ceil(t.plan_gpu_pct / 100)) as m
        from s join {T('pai/task')} t on s.id = t.job_name || '/' || t.task_name
    """
else:
    gpu_cols = ", ".join(f"gpu{i}_util_pct" for i in range(8))
    usage = f"""
        with a as (
            select job_id, attempt, time_bucket(interval 1 minute, start_time) as lo, end_time as hi
            from {T('philly/attempts')} where start_time is not null and end_time is not null
        ), minutes as (
            select job_id, attempt, unnest(range(lo, hi, interval 1 minute)) as m from a
        ), held as (
            select distinct job_id, attempt, machine, gpu from {T('philly/placements')}
        ), util as (
            unpivot (select time, machine, {gpu_cols} from {T('philly/gpu_util')})
            on {gpu_cols} into name col value v
        )
        select minutes.job_id as id, avg(util.v) as u, null::double as m
        from minutes join held using (job_id, attempt)
        join util on util.machine = held.machine and util.time = minutes.m
                 and util.col = 'gpu' || held.gpu || '_util_pct'
        where util.v is not null
        group by all
    """

con.sql(f"create table want as {usage}")
con.sql(f"""create table got as select job_id as id, gpu_util as u, gpu_mem_gib as m
            from read_parquet('{OUT}/jobs.parquet')
            where run = (select min(run) from read_parquet('{OUT}/jobs.parquet')) and class = 'offline'""")
(with_usage,) = con.sql("select count(*) from got where u is not null").fetchall()[0]
(expected,) = con.sql("select count(*) from want join got using (id)").fetchall()[0]
(differ,) = con.sql("""
    select count(*) from got left join want using (id)
    where (got.u is null) != (want.u is null)
       or abs(got.u - want.u) > 1e-3
       or (got.m is null) != (want.m is null)
       or abs(got.m - want.m) > 1e-3
""").fetchall()[0]
print(json.dumps({"with_usage": with_usage, "expected": expected, "differ": differ}))
