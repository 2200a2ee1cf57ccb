#!/usr/bin/env python3
"""Recomputes the `sim.by-class` view of a spot-trace replay from `tracelab simulate`'s per-job
Parquet and the store's spot/jobs table, with DuckDB.

Usage: sim_by_class.py OUT_DIR STORE

Definitions (docs/simulate.md, policy `priority`; docs/definitions.md, sim.by-class), written from
the documents: a job's class is HP (priority 1) when its spot/jobs job_type is HP, else Spot
(priority 0); per class and run: jobs, done (status 'done'), mean and P99 (quantile_cont) wait and
mean JCT of done jobs, jobs evicted at least once (preemptions > 0), their share of the class's
jobs in percent, and evictions (the sum of preemptions). Prints {"<class>|<run>": {column: value}}.
"""
import json
import sys

import duckdb

OUT, STORE = sys.argv[1], sys.argv[2]
rows = duckdb.connect().sql(f"""
    select case when s.job_type = 'HP' then 'HP (priority 1)' else 'Spot (priority 0)' end as class,
           j.run,
           count(*) as jobs,
           count(*) filter (where j.status = 'done') as done,
           avg(j.wait_s) filter (where j.status = 'done') as mean_wait_s,
           quantile_cont(j.wait_s, 0.99) filter (where j.status = 'done') as p99_wait_s,
           avg(j.jct_s) filter (where j.status = 'done') as mean_jct_s,
           count(*) filter (where j.preemptions > 0) as evicted_jobs,
           100.0 * count(*) filter (where j.preemptions > 0) / count(*) as evicted_pct,
           sum(j.preemptions) as evictions
    from read_parquet('{OUT}/jobs.parquet') j
    join read_parquet('{STORE}/spot/jobs.parquet') s on s.job_name = j.job_id
    group by all order by all
""")
cols = rows.columns
out = {f"{r[0]}|{r[1]}": {c: v for c, v in zip(cols[2:], r[2:])} for r in rows.fetchall()}
print(json.dumps(out, indent=1, sort_keys=True))
