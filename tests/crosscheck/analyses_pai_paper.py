#!/usr/bin/env python3
"""Independent DuckDB recomputation of the PAI paper-only analyses (pai.machine-util, pai.gpu-sharing,
pai.cpu-contention, pai.heavy-tails, pai.recurrence, pai.supply-demand, pai.allocation-by-gpu-type,
pai.workloads, pai.gang-and-constraints) with their default parameters.

Usage: analyses_pai_paper.py STORE_DIR
Prints one JSON object {analysis_id: {key: value}}; tests/it/analyze_pai_paper.rs compares it with
`tracelab analyze <id> --format json`. Written from the definitions in the analyses' outputs (and
docs/definitions.md#pai-vocabulary-and-the-owners-frames for the owners' frames dfiw/dfw/dfa), not
from tracelab's code: per-time values come from exploding each row over the bins it covers
(tracelab sweeps change events instead).
"""
import json
import math
import sys

import duckdb

store = sys.argv[1].rstrip("/") + "/pai/"
con = duckdb.connect()
for t in ["job", "task", "instance", "sensor", "group_tag", "machine_spec", "machine_metric"]:
    con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{store}{t}.parquet', file_row_number=true)")

# dfiw: sort by status, start, end (nulls last, stable) and keep the LAST row per worker_name.
con.execute("""
CREATE VIEW dfiw AS SELECT * EXCLUDE (rn) FROM (
  SELECT *, row_number() OVER (PARTITION BY worker_name ORDER BY status DESC NULLS FIRST,
      start_time DESC NULLS FIRST, end_time DESC NULLS FIRST, file_row_number DESC) AS rn
  FROM instance WHERE worker_name IS NOT NULL) WHERE rn = 1""")
con.execute("""
CREATE VIEW dfw AS SELECT i.worker_name, i.machine, i.start_time, i.end_time, i.run_s, t.inst_num,
  t.plan_cpu_pct, t.plan_gpu_pct, t.plan_mem_gib, g.user, g.workload, g.gpu_type_spec,
  coalesce(g."group", g.user) AS grp
FROM dfiw i LEFT JOIN task t USING (job_name, task_name) LEFT JOIN group_tag g ON g.inst_id = i.inst_id""")
con.execute("""
CREATE VIEW dfws AS SELECT w.*, s.gpu_name, s.cpu_usage_pct, s.gpu_wrk_util_pct, s.avg_mem_gib, s.avg_gpu_wrk_mem_gib
FROM dfw w JOIN sensor s USING (worker_name)""")
con.execute("""
CREATE VIEW dfa AS SELECT t.*, j.user, ia.runtime_i_s, g.workload, g.gpu_type_spec, coalesce(g."group", j.user) AS grp
FROM task t JOIN job j USING (job_name)
JOIN (SELECT job_name, task_name, avg(run_s) AS runtime_i_s FROM instance GROUP BY ALL) ia USING (job_name, task_name)
LEFT JOIN group_tag g ON g.inst_id = j.inst_id""")

out = {}


def one(sql):
    return con.execute(sql).fetchone()


def rows(sql):
    return con.execute(sql).fetchall()


def fnum(v):
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v


# ---- pai.machine-util (bin 300 s, idle=zero, MISC 16 GiB) ----
B = 300 * 1_000_000
con.execute(f"""
CREATE TABLE mu_rows AS
SELECT machine, 'metric' AS src, machine_gpu_pct AS v0, machine_cpu_pct AS v1, start_time, end_time FROM machine_metric
UNION ALL
SELECT s.machine, 'sensor', s.avg_mem_gib, s.avg_gpu_wrk_mem_gib, w.start_time, w.end_time
FROM sensor s JOIN dfiw w USING (worker_name)""")
con.execute(f"""
CREATE TABLE mu_x AS SELECT r.machine, src, v0, v1, unnest(range(b0, b1 + 1)) AS bin FROM (
  SELECT *, floor(epoch_us(start_time) / {B})::BIGINT AS b0, floor((epoch_us(end_time) - 1) / {B})::BIGINT AS b1
  FROM mu_rows WHERE start_time IS NOT NULL AND end_time IS NOT NULL AND end_time > start_time) r
JOIN machine_spec p ON p.machine = r.machine AND p.cap_gpu IN (2, 8)""")
con.execute("""
CREATE TABLE mu_val AS SELECT machine, bin,
  avg(v0) FILTER (WHERE src = 'metric') AS gpu, avg(v1) FILTER (WHERE src = 'metric') AS cpu,
  sum(v0) FILTER (WHERE src = 'sensor') AS mem, sum(v1) FILTER (WHERE src = 'sensor') AS gmem
FROM mu_x GROUP BY ALL""")
con.execute("""
CREATE TABLE mu_grid AS
WITH active AS (SELECT DISTINCT machine FROM mu_x), bins AS (SELECT range AS bin FROM range((SELECT min(bin) FROM mu_x), (SELECT max(bin) + 1 FROM mu_x)))
SELECT a.machine, b.bin, p.cap_gpu AS cls,
  coalesce(v.gpu, 0) AS gpu, coalesce(v.cpu, 0) AS cpu,
  100 * coalesce(v.mem, 0) / p.cap_mem_gib AS mem,
  100 * coalesce(v.gmem, 0) / (p.cap_gpu * CASE p.gpu_type WHEN 'V100M32' THEN 32 ELSE 16 END) AS "gpu-mem"
FROM active a CROSS JOIN bins b JOIN machine_spec p ON p.machine = a.machine
LEFT JOIN mu_val v ON v.machine = a.machine AND v.bin = b.bin""")
mu = {}
for metric in ["gpu", "cpu", "mem", "gpu-mem"]:
    for cls in [2, 8]:
        r = one(f"""WITH per AS (SELECT bin, quantile_cont("{metric}", 0.5) AS p50, quantile_cont("{metric}", 0.9) AS p90
                    FROM mu_grid WHERE cls = {cls} GROUP BY bin)
                    SELECT count(*), quantile_cont(p50, 0.5), quantile_cont(p50, 0.9), quantile_cont(p90, 0.5),
                           quantile_cont(p90, 0.9), max(p90) FROM per""")
        label = f"{cls}-GPU"
        mu[f"{metric}/{label} P50/n"] = r[0]
        mu[f"{metric}/{label} P50/p50"] = r[1]
        mu[f"{metric}/{label} P50/p90"] = r[2]
        mu[f"{metric}/{label} P90/p50"] = r[3]
        mu[f"{metric}/{label} P90/p90"] = r[4]
        mu[f"{metric}/{label} P90/max"] = r[5]
out["pai.machine-util"] = mu

# ---- pai.gpu-sharing (bin 300 s, multi-gpu included, hot 95) ----
con.execute(f"""
CREATE TABLE gs AS SELECT machine, gpu_name, ceil(plan_gpu_pct / 100) AS need,
  coalesce(gpu_wrk_util_pct, 0) / ceil(plan_gpu_pct / 100) AS util,
  unnest(range(floor(epoch_us(start_time) / {B})::BIGINT, floor((epoch_us(end_time) - 1) / {B})::BIGINT + 1)) AS bin
FROM dfws WHERE start_time IS NOT NULL AND end_time IS NOT NULL AND end_time > start_time
  AND gpu_name IS NOT NULL AND machine IS NOT NULL AND plan_gpu_pct > 0""")
r = one("""WITH per AS (SELECT bin, count(DISTINCT (machine, gpu_name)) AS occ, sum(need) AS need FROM gs GROUP BY bin)
           SELECT count(*), 1 - sum(occ) / sum(need), quantile_cont(100 * occ / need, 0.5), quantile_cont(100 * occ / need, 0.1) FROM per""")
h = one("""WITH g AS (SELECT machine, gpu_name, bin, sum(util) AS u, count(*) AS c FROM gs GROUP BY ALL)
           SELECT count(*), count(*) FILTER (WHERE u > 95), count(*) FILTER (WHERE u > 95 AND c > 1) FROM g""")
out["pai.gpu-sharing"] = {
    "ratio/all bins/n": r[0], "saving": 100 * r[1], "ratio/all bins/p50": r[2], "ratio/all bins/p10": r[3],
    "hot": 100 * h[1] / h[0], "hot_shared_of_hot": (100 * h[2] / h[1]) if h[1] else None,
    "hot_shared_of_all": 100 * h[2] / h[0],
}

# ---- pai.cpu-contention (0.8 / 1.25 / 5 / 24 / all) ----
con.execute("""
CREATE TABLE cc AS WITH base AS (
  SELECT w.grp, w.run_s, m.machine_cpu_pct AS cpu, m.machine_gpu_pct AS gpu, m.machine_load_1 AS load1,
         m.machine_num_worker AS nw
  FROM dfw w JOIN machine_metric m USING (worker_name) WHERE w.run_s > 0),
g AS (SELECT grp, count(*) AS n, median(run_s) AS med FROM base GROUP BY grp HAVING count(*) >= 5)
SELECT b.*, b.run_s / g.med AS slowdown,
  CASE WHEN b.run_s / g.med < 0.8 THEN 'accelerated' WHEN b.run_s / g.med > 1.25 THEN 'delayed' ELSE 'normal' END AS cls
FROM base b JOIN g USING (grp)""")
cc = {}
for cls, n, busy in rows("SELECT cls, count(*), avg((cpu > 24)::DOUBLE) FROM cc WHERE cpu IS NOT NULL GROUP BY cls"):
    cc[f"{cls}/instances"] = n
    cc[f"{cls}/busy_share_pct"] = 100 * busy
for m in ["cpu", "gpu", "load1", "nw"]:
    name = {"cpu": "machine_cpu_pct", "gpu": "machine_gpu_pct", "load1": "machine_load_1", "nw": "machine_num_worker"}[m]
    r = one(f"""WITH p AS (SELECT slowdown AS x, {m} AS y FROM cc WHERE {m} IS NOT NULL AND isfinite({m}) AND isfinite(slowdown)),
                rk AS (SELECT rank() OVER (ORDER BY x) + (count(*) OVER (PARTITION BY x) - 1) / 2.0 AS rx,
                              rank() OVER (ORDER BY y) + (count(*) OVER (PARTITION BY y) - 1) / 2.0 AS ry FROM p)
                SELECT (SELECT count(*) FROM p), (SELECT corr(x, y) FROM p), (SELECT corr(rx, ry) FROM rk)""")
    cc[f"{name}/n"] = r[0]
    cc[f"{name}/pearson"] = r[1]
    cc[f"{name}/spearman"] = r[2]
for cls in ["accelerated", "normal", "delayed"]:
    r = one(f"SELECT quantile_cont(cpu, 0.5), quantile_cont(cpu, 0.9) FROM cc WHERE cls = '{cls}' AND cpu IS NOT NULL")
    cc[f"machine-cpu/{cls}/p50"], cc[f"machine-cpu/{cls}/p90"] = r
out["pai.cpu-contention"] = cc


# ---- pai.heavy-tails (hill-k 1 %) ----
def tail_stats(values_sql):
    con.execute(f"CREATE OR REPLACE TEMP TABLE tv AS SELECT v::DOUBLE AS v FROM ({values_sql}) WHERE v IS NOT NULL AND isfinite(v)")
    n, p50, p99, total = one("SELECT count(*), quantile_cont(v, 0.5), quantile_cont(v, 0.99), sum(v) FROM tv")
    k5 = math.ceil(0.05 * n)
    top5 = one(f"SELECT sum(v) FROM (SELECT v FROM tv ORDER BY v DESC LIMIT {k5})")[0]
    gini = one(f"SELECT sum((2 * r - {n} - 1) * v) / ({n} * sum(v)) FROM (SELECT v, row_number() OVER (ORDER BY v) AS r FROM tv)")[0]
    k = max(1, math.floor(n * 0.01))
    xk = one(f"SELECT v FROM tv ORDER BY v DESC LIMIT 1 OFFSET {k}")[0]
    s = one(f"SELECT sum(ln(v / {xk})) FROM (SELECT v FROM tv ORDER BY v DESC LIMIT {k})")[0]
    return {"n": n, "p50": p50, "p99": p99, "top5_share_pct": 100 * top5 / total, "gini": gini,
            "hill_alpha": fnum(k / s if s else math.inf)}


ht = {}
for label, sql in [
    ("gpu request per instance", "SELECT plan_gpu_pct / 100 AS v FROM dfw"),
    ("cpu usage per instance", "SELECT cpu_usage_pct / 100 AS v FROM dfws"),
    ("instance runtime", "SELECT run_s AS v FROM dfw"),
    ("task runtime (mean instance)", "SELECT runtime_i_s AS v FROM dfa"),
    ("instances per user", "SELECT count(*) AS v FROM dfw GROUP BY user"),
    ("gang size (inst_num)", "SELECT inst_num AS v FROM dfa"),
]:
    for key, v in tail_stats(sql).items():
        ht[f"{label}/{key}"] = v
out["pai.heavy-tails"] = ht

# ---- pai.recurrence (min-group 5, untagged = user) ----
tasks, rec, groups = one("""WITH g AS (SELECT grp, count(*) AS n FROM dfa GROUP BY grp)
                            SELECT sum(n), sum(n) FILTER (WHERE n >= 5), count(*) FROM g""")
out["pai.recurrence"] = {"recurring_tasks": 100 * rec / tasks, "tasks": tasks, "groups": groups}

# ---- pai.gang-and-constraints ----
r = one("""SELECT sum(inst_num) FILTER (WHERE inst_num >= 2) / sum(inst_num),
                  sum(inst_num * coalesce(plan_gpu_pct, 0)) FILTER (WHERE inst_num >= 2) / sum(inst_num * coalesce(plan_gpu_pct, 0)),
                  avg((gpu_type_spec IS NOT NULL)::DOUBLE) FROM dfa""")
out["pai.gang-and-constraints"] = {"gang_instances": 100 * r[0], "gang_gpu_demand": 100 * r[1], "gpu_type_spec": 100 * r[2]}

# ---- pai.supply-demand ----
sd = {}
cls_sql = "CASE cap_gpu WHEN 8 THEN '8-GPU' WHEN 2 THEN '2-GPU' ELSE 'CPU' END"
con.execute(f"""CREATE VIEW placed AS SELECT w.*, p.gpu_type AS machine_type, p.cap_cpu, p.cap_gpu, {cls_sql} AS cls
                FROM dfw w JOIN machine_spec p USING (machine)""")
for label, where in [("8-GPU", "cls = '8-GPU'"), ("2-GPU", "cls = '2-GPU'"), ("cluster", "true")]:
    s = one(f"SELECT sum(cap_cpu) / sum(cap_gpu) FROM (SELECT *, {cls_sql} AS cls FROM machine_spec) WHERE {where}")[0]
    d = one(f"""SELECT count(*), sum(coalesce(plan_cpu_pct, 0)) / sum(coalesce(plan_gpu_pct, 0)),
                sum(coalesce(plan_cpu_pct, 0) * run_s) / sum(coalesce(plan_gpu_pct, 0) * run_s) FROM placed WHERE {where}""")
    sd[f"{label}/supply_vcpu_per_gpu"], sd[f"{label}/instances"] = s, d[0]
    sd[f"{label}/demand_plain"], sd[f"{label}/demand_time_weighted"] = d[1], d[2]
out["pai.supply-demand"] = sd

# ---- pai.allocation-by-gpu-type (bin 1 h) ----
al = {}
con.execute("CREATE VIEW placed_t AS SELECT * FROM placed WHERE start_time IS NOT NULL AND end_time IS NOT NULL AND end_time > start_time")
window = one("SELECT (epoch_us(max(end_time)) - epoch_us(min(start_time))) / 1e6 FROM placed_t")[0]
con.execute(f"""CREATE TABLE alloc AS SELECT machine, machine_type, 
  100 * sum(coalesce(plan_cpu_pct, 0) / 100 * (epoch_us(end_time) - epoch_us(start_time)) / 1e6) / (any_value(cap_cpu) * {window}) AS cpu,
  100 * sum(coalesce(plan_gpu_pct, 0) / 100 * (epoch_us(end_time) - epoch_us(start_time)) / 1e6) / (any_value(cap_gpu) * {window}) AS gpu
  FROM placed_t GROUP BY ALL""")
for t, n, c, g in rows("SELECT machine_type, count(*), avg(cpu), avg(CASE WHEN isfinite(gpu) THEN gpu END) FROM alloc GROUP BY ALL"):
    al[f"{t}/machines"], al[f"{t}/cpu_alloc_pct"], al[f"{t}/gpu_alloc_pct"] = n, c, (g if t != "CPU" else None)
for tier, types in [("weak", "('MISC','P100','T4')"), ("high-end", "('V100','V100M32')")]:
    c, g = one(f"SELECT avg(cpu), avg(gpu) FROM alloc WHERE machine_type IN {types}")
    al[f"{tier} cpu"], al[f"{tier} gpu"] = c, g
H = 3600 * 1_000_000
r = one(f"""WITH v AS (SELECT * FROM placed_t WHERE machine_type = 'V100'),
  x AS (SELECT machine, cap_gpu, plan_gpu_pct, epoch_us(start_time) AS s, epoch_us(end_time) AS e,
        unnest(range(floor(epoch_us(start_time) / {H})::BIGINT, floor((epoch_us(end_time) - 1) / {H})::BIGINT + 1)) AS bin FROM v),
  c AS (SELECT machine, bin, sum(coalesce(plan_gpu_pct, 0) / 100 * (least(e, (bin + 1) * {H}) - greatest(s, bin * {H})) / {H})
        / any_value(cap_gpu) * 100 AS val FROM x GROUP BY ALL)
  SELECT (SELECT count(DISTINCT machine) FROM v) * ((SELECT floor((epoch_us(max(end_time)) - 1) / {H}) + 1 - floor(epoch_us(min(start_time)) / {H}) FROM v)),
         (SELECT sum(val) FROM c), (SELECT max(val) FROM c)""")
al["v100-load/rows"], al["v100-load/sum"], al["v100-load/max"] = r[0], r[1], r[2]
out["pai.allocation-by-gpu-type"] = al

# ---- pai.workloads ----
wl = {}
all_t = one("SELECT count(*) FROM dfa")[0]
for w, n in rows("SELECT coalesce(workload, '(untagged)'), count(*) FROM dfa GROUP BY ALL"):
    wl[f"{w}/tasks"], wl[f"{w}/task_share_pct"] = n, 100 * n / all_t
for w, n, g, c in rows("SELECT coalesce(workload, '(untagged)'), count(*), avg(plan_gpu_pct / 100), avg(plan_cpu_pct / 100) FROM dfw GROUP BY ALL"):
    wl[f"{w}/instances"], wl[f"{w}/gpu_request_mean"], wl[f"{w}/cpu_request_mean"] = n, g, c
for w, g, c in rows("SELECT coalesce(workload, '(untagged)'), avg(gpu_wrk_util_pct / 100), avg(cpu_usage_pct / 100) FROM dfws GROUP BY ALL"):
    wl[f"{w}/gpu_used_mean"], wl[f"{w}/cpu_used_mean"] = g, c
out["pai.workloads"] = wl

print(json.dumps(out, sort_keys=True, default=float))
