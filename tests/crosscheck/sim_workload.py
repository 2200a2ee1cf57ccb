#!/usr/bin/env python3
"""Rebuilds `tracelab simulate`'s workload (one job per trace unit) with DuckDB from the store's
canonical tables, and compares it with the per-job table a run wrote.

Usage: sim_workload.py STORE TRACE OUT_DIR
       (TRACE: pai, philly, helios:CLUSTER, acme, acme:CLUSTER or spot)

Definitions (docs/simulate.md, "What one job is"), written from the document, not from the code:
  pai:    one row per pai/task; submit = task start_time; duration = mean run_s of the task's
          instance rows; GPUs = coalesce(inst_num, 1) x plan_gpu / 100; id job_name/task_name.
  philly: one row per philly/jobs; duration = sum of the attempts' run_s (null without a first
          attempt start); GPUs = the job's (first attempt's) gpus; id job_id.
  helios: one row per helios/jobs of the cluster; duration = run_s; GPUs = gpus; id Cluster/job_id.
  acme:   one row per acme/jobs (of the cluster, if named); duration = end_time - start_time (not
          the raw duration: Kalos' is end - submit); GPUs = gpus; id Cluster/job_id; unfinished
          without an end.
  spot:   one row per spot/jobs; duration = duration_s; GPUs = workers x gpu_request (the `gpus`
          column); id job_name; every job finished (no state is recorded).
Reasons, checked in this order: not finished (PAI status Running/Waiting/Ready; Philly a first
start without a last end; Helios no end), no duration (no submit, no or negative duration), no GPU
(GPUs x 1000 rounds below 1). Replay time starts at the first submission of the jobs kept.
Prints JSON: the count per reason, the replayed count, and how many replayed jobs are missing from
or extra in OUT_DIR/jobs.parquet (first run only) or differ in submit_s, duration_s or gpus
(times compared at the millisecond the engine rounds to).
"""
import json
import sys

import duckdb

STORE, TRACE, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
T = lambda t: f"read_parquet('{STORE}/{t}.parquet')"  # noqa: E731
con = duckdb.connect()

if TRACE == "pai":
    units = f"""
        with runs as (
            select job_name, task_name, avg(run_s) as r
            from {T('pai/instance')} where isfinite(run_s) group by all
        )
        select t.job_name || '/' || t.task_name as id, epoch(t.start_time) as submit, runs.r as dur,
               coalesce(t.inst_num, 1) * t.plan_gpu_pct / 100 as gpus,
               coalesce(t.status in ('Running', 'Waiting', 'Ready'), false) as unfinished
        from {T('pai/task')} t left join runs using (job_name, task_name)
    """
elif TRACE == "philly":
    units = f"""
        with a as (select job_id, sum(run_s) as s from {T('philly/attempts')} group by all)
        select j.job_id as id, epoch(j.submit_time) as submit,
               case when j.first_start_time is null then null else a.s end as dur,
               j.gpus::double as gpus,
               j.first_start_time is not null and j.last_end_time is null as unfinished
        from {T('philly/jobs')} j left join a using (job_id)
    """
elif TRACE.split(":")[0] == "acme":
    where = f"where cluster = '{TRACE.split(':')[1]}'" if ":" in TRACE else ""
    units = f"""
        select cluster || '/' || job_id as id, epoch(submit_time) as submit,
               epoch(end_time) - epoch(start_time) as dur,
               gpus::double as gpus, end_time is null as unfinished
        from {T('acme/jobs')} {where}
    """
elif TRACE == "spot":
    units = f"""
        select job_name as id, epoch(submit_time) as submit, duration_s as dur,
               workers * gpu_request as gpus, false as unfinished
        from {T('spot/jobs')}
    """
else:
    cluster = TRACE.split(":")[1]
    units = f"""
        select cluster || '/' || job_id as id, epoch(submit_time) as submit, run_s as dur,
               gpus::double as gpus, end_time is null as unfinished
        from {T('helios/jobs')} where cluster = '{cluster}'
    """

con.sql(f"""
    create table u as
    select *, case
        when unfinished then 'not finished when the trace ended'
        when submit is null or dur is null or not isfinite(dur) or round(dur * 1000) < 0
            then 'no submission, start or run time'
        when gpus is null or not isfinite(gpus) or round(gpus * 1000) < 1 then 'asks for no GPU'
        else 'replayed' end as reason
    from ({units})
""")
out = {"reasons": dict(con.sql("select reason, count(*) from u group by all order by all").fetchall())}
jobs = f"(select * from read_parquet('{OUT}/jobs.parquet') where run = (select min(run) from read_parquet('{OUT}/jobs.parquet')))"
origin = con.sql("select min(round(submit * 1000)) from u where reason = 'replayed'").fetchall()[0][0]
out["missing"], out["extra"], out["bad_submit"], out["bad_duration"], out["bad_gpus"] = con.sql(f"""
    select count(*) filter (where j.job_id is null),
           count(*) filter (where k.id is null),
           count(*) filter (where round(j.submit_s * 1000) != round(k.submit * 1000) - {origin}),
           count(*) filter (where round(j.duration_s * 1000) != round(k.dur * 1000)),
           count(*) filter (where round(j.gpus * 1000) != round(k.gpus * 1000))
    from (select * from u where reason = 'replayed') k full join {jobs} j on j.job_id = k.id
""").fetchall()[0]
print(json.dumps(out, indent=1, sort_keys=True))
