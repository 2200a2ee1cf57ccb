#!/usr/bin/env python3
"""Recomputes the Philly (philly.*) and cross-trace (cross.*) analyses with DuckDB.

Usage: analyses_philly.py STORE_DIR

Written from the definitions in docs/definitions.md (the philly.* sections) and each analysis's
stated definition, not from tracelab's code: DuckDB SQL over the store's Parquet files (the
notebook's per-attempt queueing scan is a plain Python loop over DuckDB rows). Prints one JSON
object {analysis_id: {key: value}}; keys name where tracelab's JSON holds the same number:
  "part|series label|stat"  (dists: n, mean, p50, p90, p99)
  "part|row id|column"      (tables; the row id is the first cell, or the first two joined by ",")
  "part|key"                (headlines)
  "part|series label|@x"    (curves: y at x)
NaN is printed as null. Quantiles: quantile_cont, numpy's linear interpolation.
"""
import json
import math
import sys

import duckdb

STORE = sys.argv[1]
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
for t in ["jobs", "attempts", "placements", "gpu_util", "cpu_util", "mem_util", "machines"]:
    con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{STORE}/philly/{t}.parquet')")
con.execute(f"CREATE VIEW unified AS SELECT * FROM read_parquet('{STORE}/jobs.parquet')")



def bucket(g="gpus"):
    return f"""CASE WHEN {g} = 1 THEN '1 GPU' WHEN {g} BETWEEN 2 AND 4 THEN '2-4 GPU'
               WHEN {g} BETWEEN 5 AND 8 THEN '5-8 GPU' WHEN {g} > 8 THEN '>8 GPU' END"""


BUCKET = bucket()
GPU_COLS = [f"gpu{i}_util_pct" for i in range(8)]
out = {}


def one(sql):
    """The single row of a query."""
    return con.execute(sql).fetchone()


def num(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def dist_stats(res, part, sql):
    """sql yields (label, v) rows; records n, mean, p50, p90, p99 per label."""
    rows = con.execute(f"""SELECT label, count(v), avg(v), quantile_cont(v, 0.5), quantile_cont(v, 0.9),
                       quantile_cont(v, 0.99) FROM ({sql}) WHERE v IS NOT NULL AND isfinite(v) GROUP BY label""").fetchall()
    for label, n, mean, p50, p90, p99 in rows:
        for k, v in [("n", n), ("mean", mean), ("p50", p50), ("p90", p90), ("p99", p99)]:
            res[f"{part}|{label}|{k}"] = num(v)


def quantiles_of(values, q):
    s = sorted(values)
    h = (len(s) - 1) * q
    lo = math.floor(h)
    return s[lo] if lo + 1 >= len(s) else s[lo] + (h - lo) * (s[lo + 1] - s[lo])


# P1: runtime (minutes) by first-attempt GPU bucket.
res = {}
dist_stats(res, "by-size", f"SELECT {BUCKET} AS label, run_s / 60 AS v FROM jobs WHERE {BUCKET} IS NOT NULL")
out["philly.runtime-by-size"] = res

# P2: the notebook's per-attempt scan, pooled over VCs (part `all`) and for each VC.
rows = con.execute(f"""SELECT j.job_id, j.vc, {bucket('j.gpus')} AS b, epoch_us(j.submit_time), epoch_us(a.start_time),
                   epoch_us(a.end_time) FROM jobs j JOIN attempts a USING (job_id)
                   WHERE {bucket('j.gpus')} IS NOT NULL ORDER BY j.job_id, a.attempt""").fetchall()
delays, state = [], {}
for job, vc, b, submit, start, end in rows:
    if state.get("job") != job:
        state = {"job": job, "queue_time": submit, "delay": 0.0}
    if state["queue_time"] is not None and start is not None:
        state["delay"] = (start - state["queue_time"]) / 60e6
        state["queue_time"] = end
    delays.append((vc, b, state["delay"]))
delays = [d for d in delays if d[2]]  # filter(None, ...): drops exact zeros
res = {}
for part, keep in [("all", lambda vc: True)] + [(f"vc-{v}", (lambda v: lambda vc: vc == v)(v)) for v in {d[0] for d in delays}]:
    by = {}
    for vc, b, d in delays:
        if keep(vc):
            by.setdefault(b, []).append(d)
    for b, xs in by.items():
        res[f"{part}|{b}|n"] = len(xs)
        res[f"{part}|{b}|p50"] = quantiles_of(xs, 0.5)
        res[f"{part}|{b}|p90"] = quantiles_of(xs, 0.9)
out["philly.queueing-by-vc"] = res

# P3: first-attempt servers vs first-attempt delay, jobs with attempts and >= 5 GPUs.
res = {}
for b, servers, n, p50, p90 in con.execute(f"""SELECT {bucket('j.gpus')}, a.machines, count(*), quantile_cont(j.queue_s / 60, 0.5),
        quantile_cont(j.queue_s / 60, 0.9) FROM jobs j JOIN attempts a ON a.job_id = j.job_id AND a.attempt = 0
        WHERE j.attempts > 0 AND j.gpus >= 5 AND j.queue_s IS NOT NULL GROUP BY ALL""").fetchall():
    res[f"by-servers|{b},{servers}|jobs"] = n
    res[f"by-servers|{b},{servers}|p50_delay_min"] = p50
    res[f"by-servers|{b},{servers}|p90_delay_min"] = p90
out["philly.locality"] = res

# P4/P5: one sample per (attempt, held GPU, minute m from floor(start) while m < end) with a non-NA value.
SAMPLES = f"""
WITH att AS (
  SELECT a.job_id, a.attempt, a.machines, j.status, j.gpus,
         unnest(range(epoch_us(date_trunc('minute', a.start_time)), epoch_us(a.end_time), 60000000)) AS m
  FROM attempts a JOIN jobs j USING (job_id)
  WHERE j.attempts > 0 AND j.gpus IS NOT NULL AND a.start_time IS NOT NULL AND a.end_time IS NOT NULL {{where}}
)
SELECT att.status, att.gpus,
       CASE p.gpu {' '.join(f'WHEN {i} THEN g.{c}' for i, c in enumerate(GPU_COLS))} END AS v
FROM att JOIN placements p ON p.job_id = att.job_id AND p.attempt = att.attempt
JOIN gpu_util g ON g.machine = p.machine AND epoch_us(g.time) = att.m
"""
P4 = SAMPLES.format(where="")
con.execute(f"CREATE TEMP TABLE p4 AS {P4}")
res = {}
for status, gpus, n, mean, p50, p90 in con.execute("""SELECT status, gpus, count(v), avg(v), quantile_cont(v, 0.5),
        quantile_cont(v, 0.9) FROM p4 WHERE v IS NOT NULL GROUP BY ALL""").fetchall():
    res[f"by-status-size|{status},{gpus}|gpu_minutes"] = n
    res[f"by-status-size|{status},{gpus}|mean_pct"] = mean
    if gpus in (1, 4, 8, 16) and status in ("Pass", "Killed", "Failed"):
        for k, v in [("n", n), ("mean", mean), ("p50", p50), ("p90", p90)]:
            res[f"{status.lower()}|{gpus} GPU|{k}"] = v
n_all, mean_all = con.execute("SELECT count(v), avg(v) FROM p4 WHERE v IS NOT NULL").fetchone()
res["summary|mean-in-use"] = num(mean_all)
res["summary|gpu-minutes"] = n_all
res["summary|mean-fig5"] = num(con.execute("""SELECT avg(v) FROM p4 WHERE v IS NOT NULL AND gpus IN (1, 4, 8, 16)
        AND status IN ('Pass', 'Killed', 'Failed')""").fetchone()[0])
out["philly.gpu-util-by-status"] = res

res = {}
P5 = SAMPLES.format(where="AND j.gpus IN (8, 16) AND a.machines <= j.gpus / 8")
for gpus, n, mean, p50 in con.execute(f"SELECT gpus, count(v), avg(v), quantile_cont(v, 0.5) FROM ({P5}) WHERE v IS NOT NULL GROUP BY gpus").fetchall():
    res[f"by-size|{gpus} GPU|n"], res[f"by-size|{gpus} GPU|mean"], res[f"by-size|{gpus} GPU|p50"] = n, mean, p50
out["philly.gpu-util-dedicated"] = res

# P6: host CPU and memory.
res = {}
dist_stats(res, "host", """SELECT 'CPU' AS label, cpu_util_pct AS v FROM cpu_util UNION ALL
    SELECT 'Memory', 100 * (mem_total_kib - mem_free_kib) / mem_total_kib FROM mem_util WHERE mem_total_kib != 0""")
out["philly.host-util"] = res

# Machine utilization: class = GPU columns ever non-null; per minute P50/P90 across machines of a class.
CLASS = " + ".join(f"max(({c} IS NOT NULL)::INT)" for c in GPU_COLS)
con.execute(f"CREATE TEMP TABLE cls AS SELECT machine, {CLASS} AS class FROM gpu_util GROUP BY machine")
GSUM = " + ".join(f"coalesce({c}, 0)" for c in GPU_COLS)
GCNT = " + ".join(f"({c} IS NOT NULL)::INT" for c in GPU_COLS)
METRIC = {
    "gpu": f"SELECT time, machine, ({GSUM}) / nullif({GCNT}, 0) AS v FROM gpu_util",
    "cpu": "SELECT time, machine, cpu_util_pct AS v FROM cpu_util",
    "mem": "SELECT time, machine, 100 * (mem_total_kib - mem_free_kib) / mem_total_kib AS v FROM mem_util WHERE mem_total_kib != 0",
}
res = {}
for part, sql in METRIC.items():
    per_min = f"""SELECT time, class, quantile_cont(v, 0.5) AS p50, quantile_cont(v, 0.9) AS p90
                  FROM ({sql}) JOIN cls USING (machine) WHERE class > 0 AND v IS NOT NULL GROUP BY ALL"""
    for stat in ["p50", "p90"]:
        dist_stats(res, part, f"SELECT class || '-GPU {stat.upper()}' AS label, {stat} AS v FROM ({per_min})")
for g, n in con.execute("SELECT class, count(*) FROM cls WHERE class > 0 GROUP BY class").fetchall():
    res[f"classes|{g}|machines_in_gpu_util"] = n
for g, n in con.execute("SELECT gpus, count(*) FROM machines GROUP BY gpus").fetchall():
    res[f"classes|{g}|machines_in_list"] = n
res["list-disagrees|rows"] = one("""SELECT count(*) FROM cls LEFT JOIN machines USING (machine)
    WHERE class > 0 AND (gpus IS NULL OR gpus != class)""")[0]
out["philly.machine-util"] = res

# Paper numbers.
res = {}
total_jobs = one("SELECT count(*) FROM jobs")[0]
res["summary|killed-or-failed"] = 100 * one("SELECT count(*) FROM jobs WHERE status IN ('Killed', 'Failed')")[0] / total_jobs
total_gpu = one("SELECT sum(gpus * run_s) FROM jobs")[0]
for s in ["Pass", "Killed", "Failed"]:
    v = one(f"SELECT coalesce(sum(gpus * run_s), 0) FROM jobs WHERE status = '{s}'")[0]
    res[f"summary|gpu-time-{s.lower()}"] = 100 * v / total_gpu
res["summary|attempts-per-job"] = one("SELECT avg(attempts) FROM jobs")[0]
res["summary|retries-per-job"] = one("SELECT avg(attempts - 1) FROM jobs WHERE attempts > 0")[0]
res["summary|no-attempts"] = one("SELECT count(*) FROM jobs WHERE attempts = 0")[0]
out["philly.paper-numbers"] = res

# Cross views: GPU jobs (default jobs=gpu), one series per trace and per Helios cluster.
SERIES = """SELECT trace AS label, * FROM unified WHERE gpus_requested > 0 UNION ALL
            SELECT 'helios/' || cluster AS label, * FROM unified WHERE gpus_requested > 0 AND trace = 'helios'"""
for aid, expr in [("cross.runtime", "run_s"), ("cross.queueing", "queue_s"), ("cross.gpus-per-job", "gpus_requested"),
                  ("cross.wait-fraction", "CASE WHEN queue_s + run_s > 0 THEN 100 * queue_s / (queue_s + run_s) END")]:
    res = {}
    dist_stats(res, "cdf", f"SELECT label, {expr} AS v FROM ({SERIES})")
    out[aid] = res

res = {}
for label, status, share, gshare in con.execute(f"""SELECT label, status,
        100 * count(*) / sum(count(*)) OVER (PARTITION BY label),
        100 * coalesce(sum(gpus_requested * run_s), 0) / sum(sum(gpus_requested * run_s)) OVER (PARTITION BY label)
        FROM ({SERIES}) GROUP BY label, status""").fetchall():
    res[f"job-shares|{label}|{status}"] = share
    res[f"gpu-time-shares|{label}|{status}"] = num(gshare)
out["cross.status"] = res

res = {}
per_user = {}
for label, total in con.execute(f"""SELECT label, coalesce(sum(gpus_requested * run_s), 0) FROM ({SERIES})
        WHERE "user" IS NOT NULL GROUP BY label, "user" """).fetchall():
    per_user.setdefault(label, []).append(float(total))
for label, xs in per_user.items():
    xs.sort()
    n, tot = len(xs), sum(xs)
    res[f"gini|{label}|users"] = n
    res[f"gini|{label}|gini"] = sum((2 * (i + 1) - n - 1) * x for i, x in enumerate(xs)) / (n * tot) if tot > 0 else None
    k = math.ceil(0.05 * n)
    res[f"gini|{label}|top5_share_pct"] = 100 * sum(sorted(xs, reverse=True)[:k]) / tot if tot > 0 else None
out["cross.user-concentration"] = res

res = {}
for label, hour, share in con.execute(f"""SELECT label, h, 100 * count(*) / sum(count(*)) OVER (PARTITION BY label)
        FROM (SELECT label, hour(timezone(CASE trace WHEN 'philly' THEN 'America/Los_Angeles' ELSE 'Asia/Shanghai' END,
              submit_time)) AS h FROM ({SERIES}) WHERE submit_time IS NOT NULL) GROUP BY label, h""").fetchall():
    res[f"by-hour|{label}|@{hour}"] = share
out["cross.diurnal"] = res

print(json.dumps(out, sort_keys=True))
