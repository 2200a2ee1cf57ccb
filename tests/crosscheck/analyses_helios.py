#!/usr/bin/env python3
"""Recomputes the Helios analyses (docs/definitions.md, helios.*) with DuckDB SQL over a tracelab store.

Usage: analyses_helios.py STORE_DIR

Written from the definitions (HeliosArtifact trace_parser.py and notebooks), not from
tracelab's code. In particular the per-minute sequence is an interval join (every grid
minute t joined to the GPU jobs with floor(start) <= t <= floor(end)), not a sweep.
Prints one JSON object {"<analysis id>[?param=value&...]": {selector: value}}, where a
selector is one of
  headline:<key>                       a headline value
  curve:<part>:<series>:<x>            the y of the point at x
  points:<part>:<series>               the number of points of a series
  row:<part>:<v1>|<v2>..:<column>      the cell of the row whose first cells are v1, v2..
  row:<part>:#<i>:<column>             the cell of row i
"""
import json
import math
import sys

import duckdb

STORE = sys.argv[1]
JOBS = f"read_parquet('{STORE}/helios/jobs.parquet')"
VCG = f"read_parquet('{STORE}/helios/vc_gpus.parquet')"
PJOBS = f"read_parquet('{STORE}/philly/jobs.parquet')"
CLUSTERS = ["Venus", "Earth", "Saturn", "Uranus"]
FIRST_DAY, END_DAY = 18353, 18534  # 2020-04-01, 2020-09-29 (local days since the epoch)
con = duckdb.connect()
out = {}


def q(sql):
    return con.execute(sql).fetchall()


def present():
    got = {r[0] for r in q(f"SELECT DISTINCT cluster FROM {JOBS}")}
    return [c for c in CLUSTERS if c in got]


def lmin(col):
    """Local (UTC+8) minute since the epoch, floored."""
    return f"(floor(epoch_us({col}) / 60000000)::BIGINT + 480)"


def round3(x):
    """pandas/numpy round(3): half to even on x*1000."""
    return round(x * 1000) / 1000


def sequence_sql(clusters, by_vc=False, vcs=None, first=FIRST_DAY, end=END_DAY):
    """Per (cluster[, vc], minute): running jobs/GPUs and the capacity, by interval join."""
    keys = "cluster, vc" if by_vc else "cluster"
    cl = ",".join(f"'{c}'" for c in clusters)
    vc_filter = f"AND vc IN ({','.join(repr(v) for v in vcs)})" if vcs else ""
    return f"""
    WITH cap AS (
      SELECT {keys}, (date - DATE '1970-01-01') AS day, sum(gpus) AS total FROM {VCG}
      WHERE cluster IN ({cl}) {vc_filter} AND (date - DATE '1970-01-01') >= {first} AND (date - DATE '1970-01-01') < {end}
      GROUP BY ALL),
    grid AS (SELECT {keys}, day * 1440 + o AS minute, total FROM cap, range(1440) t(o)),
    j AS (SELECT {keys}, gpus, {lmin('start_time')} AS s, {lmin('end_time')} AS e FROM {JOBS}
          WHERE gpus > 0 AND cluster IN ({cl}) {vc_filter} AND start_time IS NOT NULL AND end_time IS NOT NULL),
    run AS (
      SELECT {', '.join('g.' + k.strip() for k in keys.split(','))}, g.minute, any_value(g.total) AS total,
             count(j.gpus) AS jobs, coalesce(sum(j.gpus), 0) AS gpus,
             coalesce(sum(j.gpus) FILTER (WHERE j.gpus > 1), 0) AS multi,
             coalesce(sum(j.gpus) FILTER (WHERE j.gpus = 1), 0) AS single
      FROM grid g LEFT JOIN j ON {' AND '.join(f'j.{k.strip()} = g.{k.strip()}' for k in keys.split(','))}
        AND j.s <= g.minute AND g.minute <= j.e
      GROUP BY ALL)
    SELECT *, least(gpus, total) AS capped,
      CASE WHEN total > 0 THEN least(gpus, total)::DOUBLE / total END AS util_raw,
      CASE WHEN total > 0 THEN multi::DOUBLE / total END AS multi_raw,
      CASE WHEN total > 0 THEN single::DOUBLE / total END AS single_raw
    FROM run"""


def with_rounding(rows):
    return [(r, round3(r[-3]) if r[-3] is not None else None) for r in rows]


def sequences(clusters):
    con.execute(f"CREATE OR REPLACE TABLE seq AS {sequence_sql(clusters)}")
    # numpy round(3): half-even on x*1000 (DuckDB round_even with 0 digits is rint).
    con.execute("CREATE OR REPLACE MACRO r3(x) AS round_even(x * 1000, 0) / 1000")
    con.execute("CREATE OR REPLACE TABLE seq2 AS SELECT *, r3(util_raw) AS util, r3(multi_raw) AS umulti, r3(single_raw) AS usingle FROM seq")


def check_sequence(clusters):
    g0 = FIRST_DAY * 1440
    for column, expr in [("gpu_utilization", "util"), ("running_gpu_num", "capped"), ("running_gpujob_num", "jobs")]:
        key = f"helios.sequence?column={column}"
        o = out.setdefault(key, {})
        for c in clusters:
            (mean, n), = q(f"SELECT avg({expr}), count(*) FROM seq2 WHERE cluster = '{c}'")
            o[f"headline:{c}.mean"] = mean
            o[f"headline:{c}.minutes"] = n
            o[f"points:sequence:{c}"] = n
            for minute, v in q(f"SELECT minute, {expr} FROM seq2 WHERE cluster = '{c}' ORDER BY {expr} DESC, minute LIMIT 3"):
                o[f"curve:sequence:{c}:{minute - g0}"] = v


def check_cluster_time(clusters):
    o = out.setdefault("helios.diurnal-utilization", {})
    for c, h, v in q("SELECT cluster, (minute % 1440) // 60, avg(util) * 100 FROM seq2 GROUP BY ALL"):
        o[f"curve:by-hour:{c}:{h}"] = v
    o = out.setdefault("helios.monthly", {})
    for c, m, u, um, us in q("SELECT cluster, month(make_timestamp(minute * 60000000)), avg(util), avg(umulti), avg(usingle) FROM seq2 GROUP BY ALL"):
        o[f"curve:utilization:{c}:{m}"] = u * 100
        o[f"curve:utilization-split:{c} multi-GPU:{m}"] = um * 100
        o[f"curve:utilization-split:{c} single-GPU:{m}"] = us * 100
    local_month = "month(timezone('Asia/Shanghai', submit_time))"
    for c, m, n, cpu, gpu, one, multi in q(f"""SELECT cluster, {local_month} AS m, count(*), count(*) FILTER (gpus = 0),
            count(*) FILTER (gpus > 0), count(*) FILTER (gpus = 1), count(*) FILTER (gpus > 1)
            FROM {JOBS} WHERE m BETWEEN 4 AND 9 GROUP BY ALL"""):
        for col, v in [("jobs", n), ("cpu_jobs", cpu), ("gpu_jobs", gpu), ("single_gpu_jobs", one), ("multi_gpu_jobs", multi)]:
            o[f"row:jobs:{c}|{m}:{col}"] = v
    # Diurnal submissions: GPU jobs submitted in the throughput grid per local hour / 181 days.
    o = out.setdefault("helios.diurnal-submissions", {})
    local_s = "(epoch_us(submit_time) // 1000000 + 28800)"
    for c, h, n in q(f"""SELECT cluster, ({local_s} // 3600) % 24, count(*) FROM {JOBS}
            WHERE gpus <> 0 AND {local_s} >= {FIRST_DAY * 86400} AND {local_s} < {END_DAY * 86400} GROUP BY ALL"""):
        o[f"curve:by-hour:{c}:{h}"] = n / (END_DAY - FIRST_DAY)
    for kind in ["submit", "end"]:
        o = out.setdefault(f"helios.throughput?column={kind}_gpu_num", {})
        local_s = f"(epoch_us({kind}_time) // 1000000 + 28800)"
        for c, b, n in q(f"""SELECT cluster, {local_s} // 600 - {FIRST_DAY * 144}, sum(gpus) FROM {JOBS}
                WHERE {local_s} >= {FIRST_DAY * 86400} AND {local_s} < {END_DAY * 86400} GROUP BY ALL"""):
            o[f"curve:throughput:{c}:{b * 10}"] = n
        for c in clusters:
            o[f"points:throughput:{c}"] = (END_DAY - FIRST_DAY) * 144


def grid_cdf(where, table=JOBS):
    rows = q(f"SELECT run_s FROM {table} WHERE {where} AND run_s IS NOT NULL")
    vals = [r[0] for r in rows]
    return {2 ** i: 100 * sum(v <= 2 ** i for v in vals) / len(vals) for i in range(22)} if vals else {}


def check_jobs(clusters):
    o = out.setdefault("helios.duration-vs-philly", {})
    for t, y in grid_cdf("gpus > 0").items():
        o[f"curve:cdf:Helios:{t}"] = y
    for t, y in grid_cdf("gpus > 0", PJOBS).items():
        o[f"curve:cdf:Philly:{t}"] = y
    o = out.setdefault("helios.duration-gpu-cpu", {})
    for c in clusters:
        for part, w in [("gpu", "gpus > 0"), ("cpu", "gpus = 0")]:
            for t, y in grid_cdf(f"{w} AND cluster = '{c}'").items():
                o[f"curve:{part}:{c}:{t}"] = y
    o = out.setdefault("helios.gpu-time-by-status", {})
    gt = dict(q(f"""SELECT CASE WHEN state IN ('FAILED','TIMEOUT','NODE_FAIL') THEN 'failed' ELSE lower(state) END,
            sum(gpus * run_s) FROM {JOBS} WHERE gpus > 0 AND state <> 'SUSPENDED' GROUP BY ALL"""))
    tot = sum(v for v in gt.values() if v)
    o["headline:helios.completed"] = 100 * gt.get("completed", 0) / tot
    o["headline:helios.canceled"] = 100 * gt.get("cancelled", 0) / tot
    o["headline:helios.failed"] = 100 * gt.get("failed", 0) / tot
    pt = dict(q(f"SELECT status, sum(gpus * run_s) FROM {PJOBS} WHERE gpus > 0 GROUP BY ALL"))
    ptot = sum(v for v in pt.values() if v)
    for s, k in [("Pass", "completed"), ("Killed", "canceled"), ("Failed", "failed")]:
        o[f"headline:philly.{k}"] = 100 * (pt.get(s) or 0) / ptot
    o = out.setdefault("helios.job-size", {})
    for c in clusters:
        rows = q(f"SELECT gpus, run_s FROM {JOBS} WHERE gpus > 0 AND cluster = '{c}'")
        n = len(rows)
        tot = sum(g * r for g, r in rows if r is not None)
        for p in [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 80]:
            lim = 2048 if p == 80 else p
            o[f"curve:jobs:{c}:{p}"] = 100 * sum(g <= lim for g, _ in rows) / n
            o[f"curve:gpu-time:{c}:{p}"] = 100 * sum(g * r for g, r in rows if g <= lim and r is not None) / tot
    o = out.setdefault("helios.final-status", {})
    for kind, w in [("cpu", "gpus = 0"), ("gpu", "gpus > 0")]:
        (n, c_, k_, f_), = q(f"""SELECT count(*), count(*) FILTER (state = 'COMPLETED'), count(*) FILTER (state = 'CANCELLED'),
                count(*) FILTER (state IN ('FAILED','TIMEOUT','NODE_FAIL')) FROM {JOBS} WHERE {w}""")
        o[f"headline:{kind}.completed"] = 100 * c_ / n
        o[f"headline:{kind}.cancelled"] = 100 * k_ / n
        o[f"headline:{kind}.failed"] = 100 * f_ / n
    for label, w in [("1", "gpus = 1"), ("2", "gpus = 2"), ("4", "gpus = 4"), ("8", "gpus = 8"), ("16", "gpus = 16"), ("32", "gpus = 32"), (">=64", "gpus >= 64")]:
        (n, c_, k_), = q(f"SELECT count(*), count(*) FILTER (state = 'COMPLETED'), count(*) FILTER (state = 'CANCELLED') FROM {JOBS} WHERE {w}")
        o[f"row:by-size:{label}:jobs"] = n
        if n:
            o[f"row:by-size:{label}:completed_pct"] = 100 * c_ / n
            o[f"row:by-size:{label}:failed_pct"] = 100 * (n - c_ - k_) / n


def lorenz(vals):
    v = sorted(vals, reverse=True)
    tot, acc, pts = sum(v), 0.0, []
    for i, x in enumerate(v):
        acc += x
        pts.append((100 * i / (len(v) - 1) if len(v) > 1 else 0.0, 100 * acc / tot))
    return pts


def gini(vals):
    v = sorted(vals)
    n, tot = len(v), sum(v)
    return sum((2 * (i + 1) - n - 1) * x for i, x in enumerate(v)) / (n * tot)


def check_users(clusters):
    per = {}
    for c, u, g, cpu, pend in q(f"""SELECT cluster, "user",
            coalesce(sum(gpus * run_s) FILTER (gpus > 0), 0), coalesce(sum(cpus * run_s) FILTER (gpus = 0), 0),
            coalesce(sum(queue_s) FILTER (gpus > 0), 0) FROM {JOBS} GROUP BY ALL"""):
        per.setdefault(c, []).append((g, cpu, pend))
    for aid, parts in [("helios.user-time", [("gpu-time", 0, "total_gpu_time"), ("cpu-time", 1, "total_cpu_only_time")]),
                       ("helios.user-queue", [("gpu-queue", 2, "total_gpu_pend_time")])]:
        o = out.setdefault(aid, {})
        for c in clusters:
            o[f"headline:{c}.users"] = len(per[c])
            for part, i, name in parts:
                vals = [r[i] for r in per[c]]
                o[f"headline:{c}.{name}.gini"] = gini(vals)
                pts = lorenz(vals)
                o[f"points:{part}:{c}"] = len(pts)
                for k in {0, len(pts) // 2, len(pts) - 1}:
                    o[f"curve:{part}:{c}:{pts[k][0]!r}"] = pts[k][1]
    for include in ["true", "false"]:
        o = out.setdefault(f"helios.user-completion?include-cpu-only-users={include}", {})
        rates = []
        for g, c_ in q(f"""SELECT count(*) FILTER (gpus > 0), count(*) FILTER (gpus > 0 AND state = 'COMPLETED')
                FROM {JOBS} GROUP BY "user" """):
            if g > 0:
                rates.append(100 * c_ / g)
            elif include == "true":
                rates.append(0.0)
        lo, hi = min(rates), max(rates)
        edges = [lo + (hi - lo) * i / 10 for i in range(11)]
        counts = [0] * 10
        for r in rates:
            k = sum(1 for e in edges[1:10] if e <= r)
            counts[k] += 1
        for i, n in enumerate(counts):
            o[f"row:histogram:#{i}:users"] = n
        o["headline:users"] = len(rates)
        o["headline:mean"] = sum(rates) / len(rates)


def check_vc(month_first, month_end, month, exclude):
    """helios.vc-utilization for Earth with top=25 (every VC with GPUs on the first day)."""
    vcs = [r[0] for r in q(f"""SELECT vc FROM {VCG} WHERE cluster = 'Earth' AND (date - DATE '1970-01-01') = {month_first} AND gpus > 0""")]
    if not vcs:
        return
    key = f"helios.vc-utilization?month={month}&top=25&exclude-day={exclude}"
    o = out.setdefault(key, {})
    con.execute(f"CREATE OR REPLACE TABLE vseq AS {sequence_sql(['Earth'], True, vcs, month_first, month_end)}")
    day_filter = "" if exclude == "none" else f"AND minute // 1440 - {month_first - 1} <> {exclude}"
    for vc, n, q1, med, q3, mean in q(f"""SELECT vc, count(v), quantile_cont(v, 0.25), quantile_cont(v, 0.5), quantile_cont(v, 0.75), avg(v)
            FROM (SELECT vc, minute, r3(util_raw) * 100 AS v FROM vseq) WHERE v IS NOT NULL {day_filter} GROUP BY vc"""):
        o[f"row:box:{vc}:minutes"] = n
        o[f"row:box:{vc}:q1_pct"] = q1
        o[f"row:box:{vc}:median_pct"] = med
        o[f"row:box:{vc}:q3_pct"] = q3
        o[f"row:box:{vc}:mean_pct"] = mean
    for vc, g, d in q(f"SELECT vc, avg(gpus), avg(run_s) FROM {JOBS} WHERE cluster = 'Earth' AND gpus > 0 GROUP BY vc"):
        if vc in vcs:
            o[f"row:box:{vc}:avg_gpus_per_gpu_job"] = g
            o[f"row:box:{vc}:mean_duration_s"] = d


def check_summary(clusters):
    o = out.setdefault("helios.cluster-summary", {})
    sel = """count(*), count(*) FILTER (gpus = 0), count(*) FILTER (gpus > 0),
      avg(run_s) FILTER (gpus = 0), avg(run_s) FILTER (gpus > 0), avg(queue_s) FILTER (gpus = 0), avg(queue_s) FILTER (gpus > 0),
      avg(gpus) FILTER (gpus > 0), quantile_cont(run_s, 0.5) FILTER (gpus = 0), quantile_cont(run_s, 0.5) FILTER (gpus > 0),
      quantile_cont(queue_s, 0.5) FILTER (gpus = 0), quantile_cont(queue_s, 0.5) FILTER (gpus > 0), quantile_cont(gpus, 0.5) FILTER (gpus > 0),
      avg((state = 'COMPLETED')::INT), avg((state = 'CANCELLED')::INT), avg((state IN ('FAILED','TIMEOUT','NODE_FAIL'))::INT),
      avg((state = 'COMPLETED')::INT) FILTER (gpus = 0), avg((state = 'CANCELLED')::INT) FILTER (gpus = 0),
      avg((state IN ('FAILED','TIMEOUT','NODE_FAIL'))::INT) FILTER (gpus = 0),
      avg((state = 'COMPLETED')::INT) FILTER (gpus > 0), avg((state = 'CANCELLED')::INT) FILTER (gpus > 0),
      avg((state IN ('FAILED','TIMEOUT','NODE_FAIL'))::INT) FILTER (gpus > 0),
      sum(gpus * run_s) FILTER (gpus > 0 AND state = 'COMPLETED'), sum(gpus * run_s) FILTER (gpus > 0 AND state = 'CANCELLED'),
      sum(gpus * run_s) FILTER (gpus > 0 AND state IN ('FAILED','TIMEOUT','NODE_FAIL'))"""
    cols = ["job_num", "cpu_job_num", "gpu_job_num", "avg_run_time_cpu", "avg_run_time_gpu", "avg_que_time_cpu",
            "avg_que_time_gpu", "avg_gpu_num", "med_run_time_cpu", "med_run_time_gpu", "med_que_time_cpu", "med_que_time_gpu",
            "med_gpu_num", "complete_rate", "cancel_rate", "fail_rate", "complete_rate_cpu", "cancel_rate_cpu", "fail_rate_cpu",
            "complete_rate_gpu", "cancel_rate_gpu", "fail_rate_gpu", "complete_gpu_time", "cancel_gpu_time", "fail_gpu_time"]
    rows = {r[0]: r[1:] for r in q(f"SELECT cluster, {sel} FROM {JOBS} GROUP BY cluster")}
    rows["total"] = q(f"SELECT {sel} FROM {JOBS}")[0]
    daily = f"SELECT cluster, date, sum(gpus) AS t FROM {VCG} GROUP BY ALL"
    gnum = {c: math.floor(m) for c, m in q(f"SELECT cluster, avg(t) FROM ({daily}) GROUP BY cluster")}
    gnum["total"] = math.floor(q(f"SELECT avg(t) FROM (SELECT date, sum(t) AS t FROM ({daily}) GROUP BY date)")[0][0])
    for rid in clusters + ["total"]:
        o[f"row:summary:{rid}:gpu_num"] = gnum[rid]
        for col, v in zip(cols, rows[rid]):
            o[f"row:summary:{rid}:{col}"] = v if col.endswith("job_num") else round3(v)


clusters = present()
sequences(clusters)
check_sequence(clusters)
check_cluster_time(clusters)
check_jobs(clusters)
check_users(clusters)
check_summary(clusters)
check_vc(18444, 18475, "2020-07", "10")    # July 2020: the sample's jobs run 2020-06-27..07-06
check_vc(18414, 18444, "2020-06", "none")
print(json.dumps(out, sort_keys=True))
