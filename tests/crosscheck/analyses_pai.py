#!/usr/bin/env python3
"""Recomputes the PAI notebook analyses (docs/definitions.md, cells A1-A18) with DuckDB SQL.

Usage: analyses_pai.py STORE_DIR

Written from the owners' definitions (utils.py get_dfa / get_dfiw / get_dfw, the notebook cells),
not from tracelab's code. Prints one JSON object {analysis_id: {address: value}} where an address
names a number in `tracelab analyze <id> --format json`:
  headline:<key>                     a headline's value
  dist:<part>/<series>/<stat>        stat = n, mean, p10..p99 of a distribution
  table:<part>/<col>=<val>/<column>  the cell of the row whose <col> equals <val>
  curve:<part>/<series>/<x>          the y of a curve at x
"""
import json
import sys
from pathlib import Path

import duckdb

store = Path(sys.argv[1]) / "pai"
con = duckdb.connect()
for t in ["job", "task", "instance", "sensor", "group_tag", "machine_spec", "machine_metric"]:
    con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{store / (t + '.parquet')}')")


def secs(ts):
    return f"(epoch_us({ts}) / 1e6)"


# dfa: task inner job inner per-task instance aggregates (over the raw instance table).
con.execute(f"""
CREATE VIEW dfa AS
WITH inst AS (
  SELECT job_name, task_name, min(start_time) AS st_i, avg(run_s) AS runtime_i
  FROM instance GROUP BY job_name, task_name),
first_task AS (SELECT job_name, min(start_time) AS ft FROM task GROUP BY job_name)
SELECT t.job_name, t.task_name, t.inst_num, t.status, t.gpu_type, t.plan_gpu_pct, t.start_time, j.user,
       {secs('t.end_time')} - {secs('t.start_time')} AS runtime,
       i.runtime_i,
       {secs('i.st_i')} - {secs('t.start_time')} AS wait,
       {secs('f.ft')} - {secs('j.start_time')} AS job_wait
FROM task t JOIN job j USING (job_name) JOIN inst i USING (job_name, task_name)
LEFT JOIN first_task f USING (job_name)
""")
# dfiw: the last row per worker after sorting by status, start, end (NULLs last, as pandas).
con.execute("""
CREATE VIEW dfiw AS
SELECT * EXCLUDE (rn) FROM (
  SELECT *, row_number() OVER (PARTITION BY worker_name
        ORDER BY status DESC, start_time DESC NULLS FIRST, end_time DESC NULLS FIRST) AS rn
  FROM instance WHERE worker_name IS NOT NULL) WHERE rn = 1
""")
# dfas: per task, sums over dfiw rows that have a sensor row, with task plans and machine capacities.
con.execute("""
CREATE VIEW dfas AS
SELECT w.job_name, w.task_name,
  sum(coalesce(t.plan_cpu_pct, 0)) AS plan_cpu, sum(coalesce(t.plan_gpu_pct, 0)) AS plan_gpu,
  sum(coalesce(t.plan_mem_gib, 0)) AS plan_mem,
  sum(coalesce(s.cpu_usage_pct, 0)) AS cpu_usage, sum(coalesce(s.gpu_wrk_util_pct, 0)) AS gpu_util,
  sum(coalesce(s.avg_mem_gib, 0)) AS avg_mem, sum(coalesce(s.avg_gpu_wrk_mem_gib, 0)) AS avg_gpu_mem,
  sum(coalesce(m.cap_cpu, 0)) AS cap_cpu, sum(coalesce(m.cap_gpu, 0)) AS cap_gpu,
  sum(coalesce(m.cap_mem_gib, 0)) AS cap_mem
FROM dfiw w JOIN sensor s USING (worker_name)
LEFT JOIN task t ON t.job_name = w.job_name AND t.task_name = w.task_name
LEFT JOIN machine_spec m ON m.machine = w.machine
GROUP BY w.job_name, w.task_name
""")
con.execute("CREATE VIEW dfas_t AS SELECT d.* FROM dfas d JOIN dfa USING (job_name, task_name)")

out = {}


def one(sql):
    return con.execute(sql).fetchone()[0]


def quantiles(sql, series, part, prefix, stats=(("p50", 0.5), ("p90", 0.9))):
    """sql yields a single column v; nulls are excluded."""
    res = {}
    n = one(f"SELECT count(v) FROM ({sql})")
    res[f"dist:{part}/{series}/n"] = n
    for name, q in stats:
        if n:
            res[f"dist:{part}/{series}/{name}"] = one(f"SELECT quantile_cont(v, {q}) FROM ({sql}) WHERE v IS NOT NULL")
    prefix.update(res)


# A8: wait over completion, split at the median mean-instance runtime.
med = one("SELECT quantile_cont(runtime_i, 0.5) FROM dfa")
r = {}
for cls, cond in [("short", f"runtime_i <= {med}"), ("long", f"runtime_i > {med}")]:
    valid = f"wait IS NOT NULL AND runtime IS NOT NULL AND NOT (runtime = 0 AND wait = 0) AND {cond}"
    over = f"((runtime <> 0 AND 100 * wait / runtime > 50) OR (runtime = 0 AND wait > 0))"
    share = one(f"SELECT 100.0 * count(*) FILTER (WHERE {over}) / count(*) FROM dfa WHERE {valid}")
    r[f"headline:{cls}_over_half"] = share
    quantiles(f"SELECT 100 * wait / runtime AS v FROM dfa WHERE {valid} AND runtime <> 0", cls, "ratio", r)
# All tasks, the notebook's middle curve: every task with a ratio (runtime_i null or not).
valid = "wait IS NOT NULL AND runtime IS NOT NULL AND NOT (runtime = 0 AND wait = 0)"
r["headline:all_over_half"] = one(f"SELECT 100.0 * count(*) FILTER (WHERE {over}) / count(*) FROM dfa WHERE {valid}")
quantiles(f"SELECT 100 * wait / runtime AS v FROM dfa WHERE {valid} AND runtime <> 0", "all", "ratio", r)
out["pai.wait-over-completion"] = r

# A9: wait by GPU request bin, sharing vs whole GPU.
bins = {"<25%": "plan_gpu_pct < 25", "25-50%": "plan_gpu_pct >= 25 AND plan_gpu_pct < 50",
        "50-100%": "plan_gpu_pct >= 50 AND plan_gpu_pct < 100", "1 GPU": "plan_gpu_pct = 100",
        ">1 GPU": "plan_gpu_pct > 100"}
r = {}
for label, cond in bins.items():
    quantiles(f"SELECT wait AS v FROM dfa WHERE {cond}", label, "by-bin", r)
r["headline:sharing_p90"] = one("SELECT quantile_cont(wait, 0.9) FROM dfa WHERE plan_gpu_pct < 100")
r["headline:whole_over_1000"] = one(
    "SELECT 100.0 * count(*) FILTER (WHERE wait > 1000) / count(*) FROM dfa WHERE plan_gpu_pct >= 100 AND wait IS NOT NULL")
out["pai.wait-by-gpu-request"] = r

# A10: wait by assigned GPU type; low-end = T4, P100, MISC.
r = {}
for t in ["T4", "MISC", "P100", "V100", "V100M32"]:
    quantiles(f"SELECT wait AS v FROM dfa WHERE gpu_type = '{t}'", t, "by-type", r)
r["headline:low_end_p90"] = one("SELECT quantile_cont(wait, 0.9) FROM dfa WHERE gpu_type IN ('T4', 'P100', 'MISC')")
out["pai.wait-by-gpu-type"] = r
r = {}
quantiles("SELECT job_wait AS v FROM dfa WHERE gpu_type = 'MISC'", "MISC", "by-type", r)
out["pai.wait-by-gpu-type?wait=job-to-task"] = r

# A11: shares of tasks with a plan_gpu.
total = one("SELECT count(*) FROM dfa WHERE plan_gpu_pct IS NOT NULL")
r = {}
for label, cond in bins.items():
    r[f"table:shares/label={label}/share_pct"] = 100.0 * one(f"SELECT count(*) FROM dfa WHERE {cond}") / total
for t in ["T4", "MISC", "P100", "V100", "V100M32"]:
    r[f"table:shares/label={t}/tasks"] = one(
        f"SELECT count(*) FROM dfa WHERE gpu_type = '{t}' AND plan_gpu_pct IS NOT NULL")
out["pai.task-share-by-gpu"] = r

# A1, A2, A7, A12.
r = {}
quantiles("SELECT count(*) AS v FROM dfa GROUP BY user", "users", "per-user", r, (("p50", 0.5), ("p99", 0.99)))
out["pai.tasks-per-user"] = r
tot = one("SELECT sum(inst_num) FROM dfa")
out["pai.gang-size"] = {f"curve:share/instances/{n}": 100.0 * one(f"SELECT coalesce(sum(inst_num), 0) FROM dfa WHERE inst_num >= {n}") / tot
                        for n in [2, 8, 100, 300, 600]}
r = {}
quantiles("SELECT runtime_i AS v FROM dfa", "PAI", "runtime", r, (("p10", 0.1), ("p50", 0.5), ("p90", 0.9)))
out["pai.runtime-vs-philly"] = r
r = {}
for t in ["T4", "MISC", "V100"]:
    quantiles(f"SELECT runtime_i AS v FROM dfa WHERE status = 'Terminated' AND gpu_type = '{t}'", t, "by-type", r)
out["pai.runtime-by-gpu-type"] = r

# A13-A15 medians (task totals), A16 shares.
r = {}
for part, req, use, div in [("cpu", "plan_cpu", "cpu_usage", 100), ("gpu", "plan_gpu", "gpu_util", 100),
                            ("mem", "plan_mem", "avg_gpu_mem", 1)]:
    r[f"headline:{part}_request_p50"] = one(f"SELECT quantile_cont({req}, 0.5) FROM dfas_t") / div
    r[f"headline:{part}_usage_p50"] = one(f"SELECT quantile_cont({use}, 0.5) FROM dfas_t") / div
out["pai.request-vs-usage"] = r
out["pai.request-vs-usage?mem-usage=main"] = {
    "headline:mem_usage_p50": one("SELECT quantile_cont(avg_mem, 0.5) FROM dfas_t")}
r = {}
for name, num, cap in [("cpu", "plan_cpu - cpu_usage", "100 * cap_cpu"), ("gpu", "plan_gpu - gpu_util", "100 * cap_gpu"),
                       ("mem", "plan_mem - avg_mem", "cap_mem")]:
    # x / 0 is +-inf for x != 0 (counted, as numpy does) and NaN for 0 (excluded).
    valid = f"NOT ({cap} = 0 AND ({num}) = 0)"
    over = f"count(*) FILTER (WHERE ({num}) > 0)"
    under = f"count(*) FILTER (WHERE ({num}) < 0)"
    n = one(f"SELECT count(*) FROM dfas_t WHERE {valid}")
    r[f"headline:{name}_plan_over_usage"] = 100.0 * one(f"SELECT {over} FROM dfas_t WHERE {valid}") / n
    r[f"headline:{name}_plan_under_usage"] = 100.0 * one(f"SELECT {under} FROM dfas_t WHERE {valid}") / n
    # The curve: the gaps > 0 and < 0 only (the notebook's pgu and ugp subsets), finite (capacity not 0),
    # plotted as 100 * (usage - plan) / capacity.
    curve = f"SELECT -100 * ({num}) / ({cap}) AS v FROM dfas_t WHERE ({cap}) <> 0 AND ({num}) <> 0"
    quantiles(curve, name, "gap", r, (("p10", 0.1), ("p50", 0.5), ("p90", 0.9)))
out["pai.usage-minus-request"] = r

# A17, A18.
r = {}
quantiles("SELECT 8 * s.read_bytes / 1073741824.0 AS v FROM dfiw w JOIN sensor s USING (worker_name)", "instances", "read", r)
out["pai.network-input"] = r
r = {}
for label, c in [("iowait", "machine_cpu_iowait_pct"), ("usr", "machine_cpu_usr_pct")]:
    quantiles(f"SELECT {c} AS v FROM machine_metric", label, "cpu", r)
out["pai.cpu-time-split"] = r

# A3 and A4 in UTC+8 (no DST in China): hour and date from the epoch plus 8 h.
local = f"({secs('start_time')} + 28800)"
hoy = f"((floor({local} / 86400) + 1) * 24 + floor({local} / 3600) % 24)"
r = {}
for h in [0, 9, 30, 100, 168]:
    n = one(f"SELECT count(*) FROM dfa WHERE {hoy} - 600 = {h}")
    if n:  # hours without tasks are absent from the curve, as upstream
        r[f"curve:tasks/tasks/{h}"] = n
out["pai.hourly-submissions"] = r
# A5: per hour of the week by INSTANCE start (dfw: dfiw with its task's per-instance plans), hours 0..167.
ilocal = f"({secs('w.start_time')} + 28800)"
ihoy = f"((floor({ilocal} / 86400) + 1) * 24 + floor({ilocal} / 3600) % 24)"
r = {}
for h in [0, 9, 100, 167]:
    gpus = one(f"""SELECT sum(t.plan_gpu_pct) / 100 FROM dfiw w
                   LEFT JOIN task t ON t.job_name = w.job_name AND t.task_name = w.task_name WHERE {ihoy} - 600 = {h}""")
    if gpus is not None:  # hours without instances are absent from the curve
        r[f"curve:requests/GPU (GPUs)/{h}"] = gpus
out["pai.hourly-requests"] = r
per = f"""SELECT floor({local} / 86400) AS d, floor({local} / 3600) % 24 AS h, count(*) AS n
          FROM dfa WHERE start_time IS NOT NULL GROUP BY d, h"""
complete = f"SELECT d FROM ({per}) GROUP BY d HAVING count(DISTINCT h) = 24"
r = {}
for h in [0, 10, 23]:
    r[f"table:boxes/hour={h}/median"] = one(f"SELECT quantile_cont(n, 0.5) FROM ({per}) WHERE h = {h} AND d IN ({complete})")
    r[f"table:boxes/hour={h}/days"] = one(f"SELECT count(*) FROM ({per}) WHERE h = {h} AND d IN ({complete})")
out["pai.submissions-by-hour"] = r

# Drop checks whose value does not exist (an empty series has no quantile).
print(json.dumps({k: {a: v for a, v in r.items() if v is not None} for k, r in out.items()}, sort_keys=True))
