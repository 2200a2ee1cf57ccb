#!/usr/bin/env python3
"""Recomputes `tracelab simulate` summaries from its per-job and series Parquet with DuckDB.

Usage: simulate.py OUT_DIR TOTAL_GPUS

OUT_DIR is a `tracelab simulate --out` folder (jobs.parquet: one row per job and run;
series.parquet: the step functions). Written from docs/simulate.md ("Results"), not from
tracelab's code:
  done = jobs with status 'done'; JCT = end - submit, wait = all time queued;
  percentiles linear between closest ranks (DuckDB quantile_cont = numpy's default);
  bounded slowdown = max(1, JCT / max(duration, 10 s)); makespan = last end - first submission;
  GPU utilisation = allocated GPU-time / (all GPUs x (last series time - first series time));
  Jain's index over users of each user's mean slowdown (JCT / max(duration, 1 ms)).
Also counts the rows that break an invariant: done jobs with JCT < duration, and done jobs never
preempted whose wait is not start - submit.
Prints {run: {column: value}} as JSON.
"""
import json
import sys

import duckdb

OUT, GPUS = sys.argv[1], float(sys.argv[2])
JOBS = f"read_parquet('{OUT}/jobs.parquet')"
SERIES = f"read_parquet('{OUT}/series.parquet')"
con = duckdb.connect()

summary = con.sql(f"""
    select run,
           count(*) as jobs,
           count(*) filter (where status = 'done') as done,
           avg(jct_s) filter (where status = 'done') as mean_jct_s,
           quantile_cont(jct_s, 0.5) filter (where status = 'done') as p50_jct_s,
           quantile_cont(jct_s, 0.9) filter (where status = 'done') as p90_jct_s,
           quantile_cont(jct_s, 0.99) filter (where status = 'done') as p99_jct_s,
           avg(wait_s) filter (where status = 'done') as mean_wait_s,
           quantile_cont(wait_s, 0.5) filter (where status = 'done') as p50_wait_s,
           quantile_cont(wait_s, 0.9) filter (where status = 'done') as p90_wait_s,
           quantile_cont(wait_s, 0.99) filter (where status = 'done') as p99_wait_s,
           avg(greatest(1.0, jct_s / greatest(duration_s, 10.0))) filter (where status = 'done')
               as mean_bounded_slowdown,
           max(end_s) filter (where status = 'done') - min(submit_s) as makespan_s,
           sum(preemptions) as preemptions,
           count(*) filter (where status = 'done' and jct_s < duration_s) as bad_jct,
           count(*) filter (where status = 'done' and preemptions = 0
                            and abs(wait_s - (start_s - submit_s)) > 1e-9) as bad_wait
    from {JOBS} group by run
""").fetchall()
cols = ["run", "jobs", "done", "mean_jct_s", "p50_jct_s", "p90_jct_s", "p99_jct_s", "mean_wait_s",
        "p50_wait_s", "p90_wait_s", "p99_wait_s", "mean_bounded_slowdown", "makespan_s", "preemptions",
        "bad_jct", "bad_wait"]
out = {r[0]: dict(zip(cols[1:], r[1:])) for r in summary}

for run, util in con.sql(f"""
    with s as (
        select run, time_s, allocated_gpus,
               lead(time_s) over (partition by run order by time_s) - time_s as dt
        from {SERIES}
    )
    select run, sum(allocated_gpus * dt) filter (where dt is not null) / ({GPUS} * (max(time_s) - min(time_s)))
    from s group by run
""").fetchall():
    out[run]["gpu_util"] = util

for run, jain in con.sql(f"""
    with u as (
        select run, "user", avg(jct_s / greatest(duration_s, 0.001)) as x
        from {JOBS} where status = 'done' group by run, "user"
    )
    select run, sum(x) * sum(x) / (count(*) * sum(x * x)) from u group by run
""").fetchall():
    out[run]["jain_fairness"] = jain

print(json.dumps(out, indent=1, sort_keys=True))
