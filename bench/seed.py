#!/usr/bin/env python3
"""Scheduler-motivation (`seed.*`) analysis benchmark: every seed analysis on an ingested store, one process
each, against the targets of issue 17, and independent twins of the heaviest ones (DuckDB, scikit-learn) on
the same Parquet files.

Usage:
  python3 bench/seed.py --store DIR [--tracelab PATH] [--no-second-tool]

--store is a store written by `tracelab ingest` (for the issue's targets: the full-scale synthetic PAI,
Philly and Helios traces in one store). The ids are the first column of `tracelab analyze --list --format
csv` that start with `seed.`; each runs as `tracelab analyze ID --store STORE --format json` in its own
process (default binary target/release/tracelab; build it with cargo build --release). Prints per analysis
wall time (perf_counter), CPU time (user + system) and peak RSS (wait4), then the sum of the wall and CPU
times and the largest peak beside the targets of issue 17: all seed analyses together under 60 s and
under 4 GB on the full-scale synthetic traces. CPU time is the steadier figure on a shared machine.

Second tool (skip with --no-second-tool): twins written from docs/definitions.md, each run as its own
process (`python -c TWIN STORE`) and measured the same way:
  seed.muxflow-gpu-util        DuckDB: Philly per-GPU (machine, gpuN column) mean of the non-null readings
                               of philly/gpu_util; PAI per-GPU (machine, gpu_name of dfws) run_s-weighted
                               means of per-GPU utilization and GPU-memory; % of GPUs below 60 and
                               the count, mean, median and max of the per-GPU values.
  seed.muxflow-predictability  DuckDB: the Philly series (mean of every non-null GPU reading per 5-minute
                               epoch-aligned bin, first to last bin, empty bins NaN); bins, autocorrelation
                               at 1 h and 1 day (Pearson r over finite pairs), diurnal peak / trough
                               (America/Los_Angeles hour). Compared with `--param trace=philly` of tracelab,
                               run for the purpose (the default run also builds the PAI and Helios series).
  seed.horus-classes           DuckDB for the task features, scikit-learn KMeans(k=3) with its own k-means++
                               start (random_state=42): a timing twin; the task count checks the inputs, the class
                               sizes and inertia are shown beside tracelab's but need not agree.
  seed.duration-prediction     DuckDB for the PAI rows and features, scikit-learn DecisionTreeRegressor
                               (max_depth=8, min_samples_leaf=5, min_samples_split=2) on ln(1 + duration)
                               with the training-mean category encoding, and the user / group median
                               baselines; RMSLE and median APE of the three models.
For each twin it prints wall, CPU, peak RSS, the tracelab / twin wall ratio, and the largest relative
difference between the twin's numbers and tracelab's headline values (or "timing only" where the twin does
not reproduce them by construction). This is a benchmark, not a test: it asserts nothing, it reports.
"""
import argparse
import csv
import io
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from pai import rel  # noqa: E402  (the relative difference the PAI bench compares with)
import measure  # noqa: E402  (bench/measure.py: one process under wait4)

# Targets of issue 17 for all seed analyses together on the full-scale synthetic traces.
TARGET_S, TARGET_MB = 60.0, 4096.0

# Shared by the PAI twins: the owners' frames as docs/definitions.md#pai-vocabulary-and-the-owners-frames
# defines them (dfiw keeps the last row per worker after a stable sort by status, start, end; dfws = dfiw
# left-joined to its task and machine_spec, inner-joined to the sensor on worker_name).
PRELUDE = r'''
import duckdb, json, math, sys
store = sys.argv[1].rstrip("/")
s = store + "/pai/"
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
con.execute("SET enable_progress_bar = false")
def view(t, path):
    con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{path}', file_row_number=true)")
for t in ["job", "task", "instance", "sensor", "group_tag", "machine_spec"]:
    view(t, f"{s}{t}.parquet")
con.execute("""CREATE VIEW dfiw AS SELECT * EXCLUDE (rn) FROM (
  SELECT *, row_number() OVER (PARTITION BY worker_name ORDER BY status DESC NULLS FIRST,
      start_time DESC NULLS FIRST, end_time DESC NULLS FIRST, file_row_number DESC) AS rn
  FROM instance WHERE worker_name IS NOT NULL) WHERE rn = 1""")
con.execute("""CREATE VIEW dfws AS SELECT w.job_name, w.task_name, w.worker_name, w.machine, w.run_s,
    t.plan_gpu_pct, m.gpu_type AS machine_gpu_type, x.gpu_name, x.gpu_wrk_util_pct, x.avg_gpu_wrk_mem_gib,
    x.cpu_usage_pct
  FROM dfiw w LEFT JOIN task t ON t.job_name = w.job_name AND t.task_name = w.task_name
  LEFT JOIN machine_spec m ON m.machine = w.machine JOIN sensor x ON x.worker_name = w.worker_name""")
out = {}
'''

# seed.muxflow-gpu-util: Philly GPU = (machine, gpuN column), mean over its non-null minutes; PAI GPU =
# (machine, gpu_name) of dfws rows with run_s > 0, value = run_s-weighted mean over instances with a value of
# util / max(1, ceil(plan_gpu/100)) (missing plan: 1), GPU memory in % of the machine's gpu_type memory.
TWIN_MUX_UTIL = PRELUDE + r'''
T = 60.0
cols = ", ".join(f"gpu{i}_util_pct" for i in range(8))
con.execute(f"""CREATE TABLE philly AS SELECT machine, gpu, avg(v) AS u FROM (
  UNPIVOT (SELECT machine, {cols} FROM read_parquet('{store}/philly/gpu_util.parquet')) ON {cols} INTO NAME gpu VALUE v)
  WHERE v IS NOT NULL GROUP BY ALL""")
out["philly_util_below"] = con.execute(f"SELECT 100.0 * count(*) FILTER (WHERE u < {T}) / count(*) FROM philly").fetchone()[0]
def dist(prefix, table, c):
    q = f"SELECT count({c}), avg({c}), quantile_cont({c}, 0.5), max({c}) FROM {table}"
    out.update(zip([f"{prefix}_{x}" for x in ("n", "mean", "p50", "max")], con.execute(q).fetchone()))
dist("philly_gpu-util", "philly", "u")
con.execute("""CREATE TABLE inst AS SELECT machine, gpu_name, run_s,
    greatest(1, coalesce(ceil(plan_gpu_pct / 100), 1)) AS n,
    CASE machine_gpu_type WHEN 'V100M32' THEN 32 ELSE 16 END AS gib,  -- V100, P100, T4 16; MISC misc-gpu-mem = 16
    gpu_wrk_util_pct, avg_gpu_wrk_mem_gib
  FROM dfws WHERE machine IS NOT NULL AND gpu_name IS NOT NULL AND run_s > 0""")
con.execute("""CREATE TABLE pai AS SELECT machine, gpu_name,
    sum(run_s * gpu_wrk_util_pct / n) / sum(run_s) FILTER (WHERE gpu_wrk_util_pct IS NOT NULL) AS u,
    sum(run_s * 100 * avg_gpu_wrk_mem_gib / n / gib) / sum(run_s) FILTER (WHERE avg_gpu_wrk_mem_gib IS NOT NULL) AS m
  FROM inst GROUP BY ALL""")
for key, c in [("pai_util_below", "u"), ("pai_mem_below", "m")]:
    out[key] = con.execute(f"SELECT 100.0 * count(*) FILTER (WHERE {c} < {T}) / count({c}) FROM pai").fetchone()[0]
dist("pai_gpu-util", "pai", "u")
dist("pai_gpu-mem", "pai", "m")
print(json.dumps(out))
'''

# seed.muxflow-predictability, Philly series: mean of every non-null GPU reading per 5-minute epoch-aligned
# bin, every bin from the first to the last (NaN where none); autocorrelation at lag k = Pearson r over the
# pairs with both finite; diurnal = mean per America/Los_Angeles hour of the bins' start, peak / trough.
TWIN_MUX_PRED = r'''
import duckdb, json, sys
store = sys.argv[1].rstrip("/")
con = duckdb.connect()
con.execute("SET TimeZone = 'America/Los_Angeles'")
con.execute("SET enable_progress_bar = false")
B = 300 * 1000000
cols = ", ".join(f"gpu{i}_util_pct" for i in range(8))
con.execute(f"""CREATE TABLE v AS SELECT b, sum(v) AS s, count(v) AS n FROM (
  SELECT floor(epoch_us(time) / {B})::BIGINT AS b, v FROM (
    UNPIVOT (SELECT time, {cols} FROM read_parquet('{store}/philly/gpu_util.parquet')) ON {cols} INTO NAME gpu VALUE v))
  GROUP BY b""")
con.execute("""CREATE TABLE x AS SELECT r.range AS b, v.s / v.n AS x FROM
  range((SELECT min(b) FROM v), (SELECT max(b) + 1 FROM v)) r LEFT JOIN v ON v.b = r.range""")
out = {"philly_bins": con.execute("SELECT count(*) FROM x").fetchone()[0]}
for key, lag in [("philly_acf_1h", 12), ("philly_acf_1d", 288)]:
    out[key] = con.execute(f"SELECT corr(a.x, c.x) FROM x a JOIN x c ON c.b = a.b + {lag} "
                           "WHERE a.x IS NOT NULL AND c.x IS NOT NULL").fetchone()[0]
out["philly_peak_trough"] = con.execute("""SELECT max(m) / min(m) FROM (
  SELECT hour(make_timestamptz(b * 300000000)) AS h, avg(x) AS m FROM x WHERE x IS NOT NULL GROUP BY h)""").fetchone()[0]
print(json.dumps(out))
'''

# seed.horus-classes: dfws instances with plan_gpu > 0 per (job, task): mean util, GPU memory and CPU (nulls
# skipped; tasks missing a mean left out), min-max scaled; scikit-learn's own k-means++ start (the analysis's
# SplitMix64 draw is not reproduced), Lloyd's iterations.
TWIN_HORUS = PRELUDE + r'''
import numpy as np
from sklearn.cluster import KMeans
X = con.execute("""SELECT avg(gpu_wrk_util_pct), avg(avg_gpu_wrk_mem_gib), avg(cpu_usage_pct),
    sum(plan_gpu_pct / 100 * run_s) / 3600
  FROM dfws WHERE plan_gpu_pct > 0 GROUP BY job_name, task_name
  HAVING avg(gpu_wrk_util_pct) IS NOT NULL AND avg(avg_gpu_wrk_mem_gib) IS NOT NULL AND avg(cpu_usage_pct) IS NOT NULL
  ORDER BY job_name, task_name""").fetchnumpy()
F = np.column_stack([np.asarray(v, dtype=float) for v in list(X.values())[:3]])
lo, span = F.min(axis=0), F.max(axis=0) - F.min(axis=0)
Z = np.where(span > 0, (F - lo) / np.where(span > 0, span, 1), 0.0)
km = KMeans(n_clusters=3, init="k-means++", n_init=1, random_state=42, algorithm="lloyd", max_iter=300, tol=0).fit(Z)
order = np.argsort(km.cluster_centers_[:, 0], kind="stable")
sizes = np.bincount(km.labels_, minlength=3)[order]
out = {"tasks": float(len(Z)), "inertia": float(km.inertia_), "iterations": float(km.n_iter_)}
out.update({f"c{i + 1}_tasks": float(n) for i, n in enumerate(sizes)})
print(json.dumps(out))
'''

# seed.duration-prediction, trace=pai: dfa tasks (task JOIN job JOIN per-task instance aggregates), submission
# = task start_time, duration = runtime_i (mean instance run_s), both present and duration >= 0; sorted by
# submission, then (job, task); first floor(0.8 n) train. Categories (user, group, gpu_type; null a category)
# -> training mean of ln(1 + duration) (unseen: the training mean); numbers (missing -1) and the
# Asia/Shanghai hour of submission.
TWIN_DURATION = PRELUDE + r'''
import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeRegressor
d = con.execute("""WITH inst AS (SELECT job_name, task_name, avg(run_s) AS runtime_i FROM instance GROUP BY ALL)
  SELECT j.user, coalesce(g."group", j.user) AS grp, t.gpu_type,
    coalesce(t.plan_gpu_pct, -1) AS plan_gpu, coalesce(t.plan_cpu_pct, -1) AS plan_cpu,
    coalesce(t.plan_mem_gib, -1) AS plan_mem, coalesce(t.inst_num, -1)::DOUBLE AS inst_num,
    ((epoch_us(t.start_time) // 1000000 + 8 * 3600) // 3600 % 24)::DOUBLE AS hour, i.runtime_i AS y
  FROM task t JOIN job j USING (job_name) JOIN inst i USING (job_name, task_name)
  LEFT JOIN group_tag g ON g.inst_id = j.inst_id
  WHERE t.start_time IS NOT NULL AND i.runtime_i IS NOT NULL AND i.runtime_i >= 0
  ORDER BY t.start_time, t.job_name, t.task_name""").df()
n = len(d); ntr = int(0.8 * n)
tr, te = d.iloc[:ntr], d.iloc[ntr:]
ly = np.log1p(d["y"].to_numpy(float)); mean = ly[:ntr].mean()
def encode(col):
    key = d[col].fillna("\x00null")
    means = pd.Series(ly[:ntr]).groupby(key.iloc[:ntr].to_numpy()).mean()
    return key.map(means).fillna(mean).to_numpy(float)
X = np.column_stack([encode("user"), encode("grp"), encode("gpu_type")]
                    + [d[c].to_numpy(float) for c in ["plan_gpu", "plan_cpu", "plan_mem", "inst_num", "hour"]])
tree = DecisionTreeRegressor(max_depth=8, min_samples_leaf=5, min_samples_split=2, random_state=0).fit(X[:ntr], ly[:ntr])
actual = te["y"].to_numpy(float)
def errors(pred):
    rmsle = float(np.sqrt(np.mean((np.log1p(pred) - np.log1p(actual)) ** 2)))
    pos = actual > 0
    return rmsle, float(np.median(100 * np.abs(pred[pos] - actual[pos]) / actual[pos]))
out["tree_rmsle"], out["tree_mdape"] = errors(np.expm1(tree.predict(X[ntr:])))
med = float(np.median(tr["y"]))
for name, col in [("user_median", "user"), ("group_median", "grp")]:
    m = tr.assign(k=tr[col].fillna("\x00null")).groupby("k")["y"].median()
    pred = te[col].fillna("\x00null").map(m).fillna(med).to_numpy(float)
    out[f"{name}_rmsle"], out[f"{name}_mdape"] = errors(pred)
print(json.dumps(out))
'''

# id -> (twin code, extra tracelab params for a like-for-like run or None, exact: the twin reproduces the
# definition, so its numbers are compared; otherwise timing only, numbers shown side by side).
TWINS = {
    "seed.muxflow-gpu-util": ("DuckDB", TWIN_MUX_UTIL, None, True),
    "seed.muxflow-predictability": ("DuckDB", TWIN_MUX_PRED, ["--param", "trace=philly"], True),
    "seed.horus-classes": ("scikit-learn", TWIN_HORUS, None, False),
    "seed.duration-prediction": ("scikit-learn", TWIN_DURATION, None, True),
}


def run(cmd):
    """Runs cmd; returns (wall seconds, CPU seconds, peak RSS in MB, stdout) (bench/measure.py)."""
    m = measure.run(cmd, capture=True)
    return m.secs, m.cpu, m.rss_mb, m.stdout


def values(output):
    """{key: value} of a tracelab JSON output's headlines, plus `<trace>_bins` of a `summary` table, `<class>_tasks`
    of a `classes` table and `<trace>_<part>_{n,mean,p50,max}` of the distributions."""
    res = json.loads(output)
    out = {h["key"]: h["value"] for p in res["parts"] if p["kind"] == "headlines" for h in p["headlines"]}
    for p in res["parts"]:
        if p["kind"] == "table" and p.get("name") == "summary" and "bins" in p["columns"]:
            out.update({f"{r[0]}_bins": r[p["columns"].index("bins")] for r in p["rows"]})
        if p["kind"] == "dists":
            for d in p["series"]:
                pre = f"{d['label']}_{p['name']}_"
                out.update({pre + "n": d["n"], pre + "mean": d["mean"], pre + "max": d["max"]})
                out[pre + "p50"] = d["quantiles"]["p50"]
        if p["kind"] == "table" and p.get("name") == "classes" and "tasks" in p["columns"]:
            out.update({f"{r[0]}_tasks": r[p["columns"].index("tasks")] for r in p["rows"]})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", required=True, help="a store written by `tracelab ingest`")
    ap.add_argument("--tracelab", default=str(ROOT / "target/release/tracelab"))
    ap.add_argument("--no-second-tool", action="store_true", help="skip the DuckDB / scikit-learn twins")
    a = ap.parse_args()
    tl, store = a.tracelab, Path(a.store)
    if not Path(tl).exists():
        sys.exit(f"{tl} not found: run `cargo build --release` first")
    if not (store / "manifest.json").exists():
        sys.exit(f"{store} is not a tracelab store (no manifest.json): run `tracelab ingest` first")
    listing = run([tl, "analyze", "--list", "--format", "csv"])[3]
    ids = [r[0] for r in list(csv.reader(io.StringIO(listing)))[1:] if r and r[0].startswith("seed.")]

    print(f"seed analyses on {store}, {os.cpu_count()} cores, {tl}")
    print(f"{'analysis':32}{'wall s':>9}{'CPU s':>9}{'peak RSS MB':>13}")
    res = {}
    for i in ids:
        res[i] = run([tl, "analyze", i, "--store", store, "--format", "json"])
        secs, cpu, rss, _ = res[i]
        print(f"{i:32}{secs:>9.2f}{cpu:>9.2f}{rss:>13.0f}", flush=True)
    wall, cpu, peak = (sum(r[0] for r in res.values()), sum(r[1] for r in res.values()),
                       max((r[2] for r in res.values()), default=0.0))
    print(f"{'total (sum; peak = max)':32}{wall:>9.2f}{cpu:>9.2f}{peak:>13.0f}")
    print(f"issue 17 target (full-scale synthetic traces): all together under {TARGET_S:.0f} s and "
          f"{TARGET_MB / 1024:.0f} GB: wall {wall:.1f} s ({'within' if wall < TARGET_S else 'OVER'}), "
          f"peak {peak / 1024:.2f} GB ({'within' if peak < TARGET_MB else 'OVER'})")
    if a.no_second_tool:
        return

    import duckdb
    import sklearn
    print(f"\nsecond tool (DuckDB {duckdb.__version__}, scikit-learn {sklearn.__version__}), one process per twin:")
    print(f"{'analysis':30}{'twin':>13}{'tl s':>8}{'twin s':>8}{'tl CPU':>8}{'twin CPU':>9}{'tl MB':>7}"
          f"{'twin MB':>8}{'tl/twin':>8}  numbers")
    notes = []
    for i, (tool, code, params, exact) in TWINS.items():
        if i not in res:
            continue
        ours = res[i]
        if params:  # the twin covers part of the default run: time tracelab on the same part
            ours = run([tl, "analyze", i, "--store", store, "--format", "json", *params])
        tw = run([sys.executable, "-c", code, store])
        mine, theirs = values(ours[3]), json.loads(tw[3])
        keys = [k for k in theirs if k in mine]
        line = (f"{i:30}{tool:>13}{ours[0]:>8.2f}{tw[0]:>8.2f}{ours[1]:>8.2f}{tw[1]:>9.2f}{ours[2]:>7.0f}"
                f"{tw[2]:>8.0f}{ours[0] / tw[0]:>8.2f}  ")
        if exact:
            worst = max(((rel(mine[k], theirs[k]), k) for k in keys), default=(0.0, ""))
            line += f"{len(keys)} compared, max rel diff {worst[0]:.1e}" + (f" ({worst[1]})" if worst[0] else "")
        else:
            line += "timing only"
        print(line, flush=True)
        if params:
            notes.append(f"  {i}: tracelab run with {' '.join(params)} (the twin's scope)")
        for k in keys:
            notes.append(f"  {i} {k}: tracelab {mine[k]!r}, {tool} {theirs[k]!r}")
        notes += [f"  {i} {k}: {tool} {theirs[k]!r} (not in tracelab's output)" for k in theirs if k not in mine]
    print("\nside by side:")
    print("\n".join(notes))


if __name__ == "__main__":
    main()
