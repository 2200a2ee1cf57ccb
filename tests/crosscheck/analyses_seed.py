#!/usr/bin/env python3
"""Recomputes the seed.* analyses (docs/definitions.md, seed.*) with pandas, DuckDB and scikit-learn over a
tracelab store, from the definitions, not from tracelab's code.

Usage: analyses_seed.py STORE_DIR

Prints one JSON object {"<analysis id>[?param=value&...]": {address: value}}; tests/it/analyze_seed.rs runs
`tracelab analyze` with the same parameters and compares. Addresses:
  <part>/<series>/<stat>         a distribution's n, mean, p50, p90 or max
  <key>                          a headline
  <part>/<k1>|<k2>../<column>    a table cell, the row named by its first cells
An address starting with "~" is compared within a tolerance (the decision tree: scikit-learn breaks ties
between equal splits differently), every other one to 1e-9 relative.

Where tracelab sweeps change events, this script explodes intervals into bins (DuckDB unnest); the PAI
worker frame is pandas' own sort_values + drop_duplicates(keep='last') as in the owners' utils.py; the
k-means start is recomputed from its definition (SplitMix64, k-means++) and handed to scikit-learn's
KMeans(init=..., n_init=1); the tree is scikit-learn's DecisionTreeRegressor with the same settings.
"""
import json
import math
import sys

import duckdb
import numpy as np
import pandas as pd
from scipy import stats as sps
from sklearn.cluster import KMeans
from sklearn.tree import DecisionTreeRegressor

STORE = sys.argv[1].rstrip("/")
con = duckdb.connect()
out = {}


def table(path):
    return f"read_parquet('{STORE}/{path}.parquet')"


def df(sql):
    return con.execute(sql).df()


def num(v):
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def dist_stats(prefix, values, into):
    v = np.sort(np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=float))
    into[f"{prefix}/n"] = len(v)
    if len(v):
        into[f"{prefix}/mean"] = float(v.mean())
        into[f"{prefix}/p50"] = float(np.quantile(v, 0.5))
        into[f"{prefix}/p90"] = float(np.quantile(v, 0.9))
        into[f"{prefix}/max"] = float(v.max())


# ---- the owners' PAI frames (utils.py), in pandas
inst = df(f"SELECT *, epoch_us(start_time) AS s_us, epoch_us(end_time) AS e_us FROM {table('pai/instance')}")
dfiw = (inst.sort_values(["status", "start_time", "end_time"], kind="mergesort", na_position="last")
        .drop_duplicates(subset=["worker_name"], keep="last").dropna(subset=["worker_name"]))
task = df(f"SELECT * FROM {table('pai/task')}")
tags = df(f"SELECT * FROM {table('pai/group_tag')}")
spec = df(f"SELECT * FROM {table('pai/machine_spec')}")
sensor = df(f"SELECT * FROM {table('pai/sensor')}")
dfw = dfiw.merge(task[["job_name", "task_name", "plan_gpu_pct", "plan_cpu_pct", "plan_mem_gib", "inst_num", "gpu_type"]],
                 on=["job_name", "task_name"], how="left")
dfw = dfw.merge(tags[["inst_id", "group", "user"]], on="inst_id", how="left")
dfw["group"] = dfw["group"].fillna(dfw["user"])
dfws = dfw.merge(sensor.drop(columns=["job_name", "task_name", "inst_id", "machine"]), on="worker_name")

# ---- seed.muxflow-gpu-util
MEM = {"V100M32": 32.0, "V100": 16.0, "P100": 16.0, "T4": 16.0}
g = dfws[dfws.machine.notna() & dfws.gpu_name.notna() & (dfws.run_s > 0)].merge(
    spec[["machine", "gpu_type"]].rename(columns={"gpu_type": "mtype"}), on="machine", how="left")
need = np.maximum(1.0, np.ceil(g.plan_gpu_pct / 100).fillna(1.0))
g = g.assign(u=g.gpu_wrk_util_pct / need, m=100 * g.avg_gpu_wrk_mem_gib / need / g.mtype.map(MEM).fillna(16.0))


def weighted(frame, col):
    ok = frame[col].notna()
    return (frame[col] * frame.run_s)[ok].sum() / frame.run_s[ok].sum() if ok.any() else np.nan


per_gpu = g.groupby(["machine", "gpu_name"]).apply(lambda f: pd.Series({"u": weighted(f, "u"), "m": weighted(f, "m")}),
                                                 include_groups=False)
mux = {}
dist_stats("gpu-util/pai", per_gpu.u, mux)
dist_stats("gpu-mem/pai", per_gpu.m, mux)
mux["pai_util_below"] = 100 * float((per_gpu.u.dropna() < 60).mean())
mux["pai_mem_below"] = 100 * float((per_gpu.m.dropna() < 60).mean())
pg = df(f"SELECT * FROM {table('philly/gpu_util')}")
philly_gpu = [pg[pg.machine == m][f"gpu{i}_util_pct"].mean() for m in sorted(pg.machine.unique()) for i in range(8)
              if pg[pg.machine == m][f"gpu{i}_util_pct"].notna().any()]
dist_stats("gpu-util/philly", philly_gpu, mux)
mux["philly_util_below"] = 100 * float((np.asarray(philly_gpu) < 60).mean())
out["seed.muxflow-gpu-util"] = mux

# ---- seed.muxflow-predictability (bin 5m, horizons 5m and 1h, alpha 0.3)
B = 300
con.register("dfiw_times", dfiw[["worker_name", "s_us", "e_us"]])


def exploded(rows_sql):
    """Per bin (covering [start, end) intervals), the summed weight; every bin from the first to the last."""
    d = df(f"""WITH r AS ({rows_sql}), x AS (
                 SELECT w, unnest(range(floor(s_us / {B * 1_000_000})::BIGINT,
                                        floor((e_us - 1) / {B * 1_000_000})::BIGINT + 1)) AS bin
                 FROM r WHERE s_us IS NOT NULL AND e_us IS NOT NULL AND e_us > s_us)
               SELECT bin, sum(w) AS w FROM x GROUP BY bin ORDER BY bin""")
    full = pd.RangeIndex(d.bin.min(), d.bin.max() + 1)
    return d.set_index("bin").w.reindex(full, fill_value=0.0)


total_gpus = float(spec.cap_gpu.sum())
pai = 100 * exploded(f"SELECT coalesce(s.gpu_wrk_util_pct, 0) / 100 AS w, t.s_us, t.e_us FROM {table('pai/sensor')} s "
                     f"JOIN dfiw_times t USING (worker_name)") / total_gpus
ph = df(f"""SELECT floor(epoch_us(time) / {B * 1_000_000})::BIGINT AS bin,
              {' + '.join(f'coalesce(gpu{i}_util_pct, 0)' for i in range(8))} AS s,
              {' + '.join(f'(gpu{i}_util_pct IS NOT NULL)::INT' for i in range(8))} AS n
            FROM {table('philly/gpu_util')}""").groupby("bin")[["s", "n"]].sum()
philly = (ph.s / ph.n.where(ph.n > 0)).reindex(pd.RangeIndex(ph.index.min(), ph.index.max() + 1))
running = exploded(f"SELECT gpus AS w, epoch_us(start_time) AS s_us, epoch_us(end_time) AS e_us "
                   f"FROM {table('helios/jobs')} WHERE gpus > 0")
cap = df(f"SELECT date::DATE - DATE '1970-01-01' AS day, sum(gpus) AS g FROM {table('helios/vc_gpus')} GROUP BY 1"
         ).set_index("day").g
day = (running.index.to_numpy() * B + 8 * 3600) // 86400
capacity = pd.Series(day).map(cap).to_numpy(dtype=float)
helios = pd.Series(np.minimum(100.0, 100 * running.to_numpy() / np.where(capacity > 0, capacity, np.nan)),
                   index=running.index)
ZONES = {"pai": "Asia/Shanghai", "philly": "America/Los_Angeles", "helios": "Asia/Shanghai"}
pred = {}
for name, binned in [("pai", pai), ("philly", philly), ("helios", helios)]:
    x, first_bin = pd.Series(binned.to_numpy(dtype=float)), binned.index[0]
    hours = pd.to_datetime((first_bin + np.arange(len(x))) * B, unit="s", utc=True).tz_convert(ZONES[name]).hour
    hourly = x.groupby(np.asarray(hours)).mean()
    D = 86400 // B
    pred[f"summary/{name}/bins"] = len(x)
    pred[f"summary/{name}/acf_1h"] = num(x.autocorr(3600 // B))
    pred[f"summary/{name}/acf_1d"] = num(x.autocorr(D))
    pred[f"{name}_peak_trough"] = num(hourly.max() / hourly.min()) if hourly.min() > 0 else None
    ewm = x.ewm(alpha=0.3, adjust=False, ignore_na=True).mean()
    for label, h in [("5m", 1), ("1h", 12)]:
        fc = {"last value": x.shift(h), "same time yesterday": x.shift(D), "ewma": ewm.shift(h)}
        ok = (x.index >= D) & x.notna() & (x != 0)
        for f in fc.values():
            ok &= f.notna()
        for fname, f in fc.items():
            ape = (100 * (f[ok] - x[ok]).abs() / x[ok].abs())
            pred[f"forecast-errors/{name}|{label}|{fname}/mape_pct"] = num(ape.mean()) if ok.any() else None
            pred[f"forecast-errors/{name}|{label}|{fname}/targets"] = int(ok.sum())
out["seed.muxflow-predictability"] = pred

# ---- seed.horus-interference (min-group 5, buckets 0, 1, 2, 3+)
h = dfws[dfws.machine.notna() & dfws.gpu_name.notna() & (dfws.e_us > dfws.s_us)].reset_index(drop=True)
h["rid"] = np.arange(len(h))
con.register("hpop", h[["rid", "machine", "gpu_name", "s_us", "e_us"]])
counts = df("""SELECT a.rid, count(b.rid) AS c FROM hpop a LEFT JOIN hpop b
               ON a.machine = b.machine AND a.gpu_name = b.gpu_name AND a.rid <> b.rid AND b.s_us < a.e_us AND b.e_us > a.s_us
               GROUP BY a.rid""").set_index("rid").c
h["count"] = counts.reindex(h.rid).to_numpy()
h["n_group"] = h.groupby("group", dropna=False).run_s.transform("size")
h["slowdown"] = h.run_s / h.groupby("group", dropna=False).run_s.transform("median")
rec = h[(h.n_group >= 5) & (h.run_s > 0)]
hi = {}
for label, sel in [("0", rec["count"] == 0), ("1", rec["count"] == 1), ("2", rec["count"] == 2), ("3+", rec["count"] >= 3)]:
    v = rec.slowdown[sel].to_numpy()
    hi[f"by-colocation/{label}/instances"] = len(v)
    if len(v) > 1:
        half = sps.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
        hi[f"by-colocation/{label}/mean_slowdown"] = float(v.mean())
        hi[f"by-colocation/{label}/ci_low"] = float(v.mean() - half)
        hi[f"by-colocation/{label}/median_slowdown"] = float(np.quantile(v, 0.5))
        hi[f"by-colocation/{label}/p90_slowdown"] = float(np.quantile(v, 0.9))
for method, fn in [("pearson", sps.pearsonr), ("spearman", sps.spearmanr)]:
    r = fn(rec["count"].astype(float), rec.slowdown)
    hi[f"correlations/{method}/n"] = len(rec)
    hi[f"correlations/{method}/r"] = float(r[0])
    hi[f"correlations/{method}/p_value"] = float(r[1])
hi["shared"] = 100 * float((rec["count"] >= 1).mean())
out["seed.horus-interference"] = hi


# ---- seed.horus-classes (k 3, seed 42): the start from its definition, then scikit-learn's Lloyd
class SplitMix64:
    def __init__(self, seed):
        self.s = seed

    def next(self):
        m = (1 << 64) - 1
        self.s = (self.s + 0x9E3779B97F4A7C15) & m
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        return z ^ (z >> 31)

    def unit(self):
        return (self.next() >> 11) / float(1 << 53)

    def below(self, n):
        return (self.next() * n) >> 64


def sq(a, b):
    acc = 0.0
    for x, y in zip(a, b):
        acc += (x - y) * (x - y)
    return acc


def kmeanspp(points, k, seed):
    rng = SplitMix64(seed)
    cs = [points[rng.below(len(points))]]
    d2 = [sq(p, cs[0]) for p in points]
    while len(cs) < k:
        total = 0.0
        for d in d2:
            total += d
        if total > 0:
            target, acc, pick = rng.unit() * total, 0.0, None
            for i, d in enumerate(d2):
                acc += d
                if acc > target:
                    pick = i
                    break
            if pick is None:
                pick = max(i for i, d in enumerate(d2) if d > 0)
        else:
            pick = rng.below(len(points))
        cs.append(points[pick])
        d2 = [min(d, sq(p, cs[-1])) for d, p in zip(d2, points)]
    return cs


gt = dfws[dfws.plan_gpu_pct > 0].assign(gpu_s=lambda f: f.plan_gpu_pct / 100 * f.run_s)
tasks = gt.groupby(["job_name", "task_name"]).agg(
    gpu_util_pct=("gpu_wrk_util_pct", "mean"), gpu_mem_gib=("avg_gpu_wrk_mem_gib", "mean"),
    cpu_pct=("cpu_usage_pct", "mean"), gpu_s=("gpu_s", "sum")).dropna(
    subset=["gpu_util_pct", "gpu_mem_gib", "cpu_pct"]).sort_index()
raw = tasks[["gpu_util_pct", "gpu_mem_gib", "cpu_pct"]].to_numpy()
span = raw.max(axis=0) - raw.min(axis=0)
scaled = np.where(span > 0, (raw - raw.min(axis=0)) / np.where(span > 0, span, 1), 0.0)
init = np.asarray(kmeanspp([list(r) for r in scaled], 3, 42))
km = KMeans(n_clusters=3, init=init, n_init=1, max_iter=300, tol=0, algorithm="lloyd").fit(scaled)
hc = {"tasks": len(tasks), "inertia": float(km.inertia_)}
order = np.argsort(km.cluster_centers_[:, 0], kind="stable")
for rank, k in enumerate(order):
    members = km.labels_ == k
    c = f"classes/c{rank + 1}"
    hc[f"{c}/kmeans_index"] = int(k)
    hc[f"{c}/tasks"] = int(members.sum())
    hc[f"{c}/gpu_time_pct"] = 100 * float(tasks.gpu_s[members].sum() / tasks.gpu_s.sum())
    for j, name in enumerate(["gpu_util_pct", "gpu_mem_gib", "cpu_pct"]):
        hc[f"{c}/{name}"] = float(raw[members, j].mean())
for i, row in enumerate(init):
    for j, name in enumerate(["scaled_gpu_util", "scaled_gpu_mem", "scaled_cpu"]):
        hc[f"initial-centroids/{i}/{name}"] = float(row[j])
out["seed.horus-classes"] = hc

# ---- seed.pollux-classes and seed.pollux-busiest-window (bounds 1, 10, 100)
jobs = df(f"""SELECT trace, job_id, epoch_us(submit_time) / 1e6 AS t, gpus_requested * run_s / 3600 AS h
              FROM {table('jobs')} WHERE gpus_requested > 0 AND run_s IS NOT NULL AND submit_time IS NOT NULL
              AND trace IN ('pai', 'philly', 'helios')""")  # the seed views' traces
jobs["cls"] = pd.cut(jobs.h, [-np.inf, 1, 10, 100, np.inf], right=False, labels=["small", "medium", "large", "xlarge"])
pc = {}
for trace, f in jobs.groupby("trace"):
    for cls, part in f.groupby("cls", observed=False):
        pc[f"classes/{trace}|{cls}/jobs"] = len(part)
        pc[f"classes/{trace}|{cls}/jobs_pct"] = 100 * len(part) / len(f)
        pc[f"classes/{trace}|{cls}/gpu_hours_pct"] = 100 * float(part.h.sum() / f.h.sum())
out["seed.pollux-classes"] = pc
for trace in ["philly", "pai", "helios"]:
    f = jobs[jobs.trace == trace].sort_values(["t", "job_id"], kind="mergesort")
    t, w = f.t.to_numpy(), f.h.to_numpy()
    ends = np.searchsorted(t, t + 8 * 3600, side="left")
    starts = np.searchsorted(t, t, side="left")
    weights = np.array([w[a:b].sum() for a, b in zip(starts, ends)])
    best = int(np.argmax(weights))  # the first maximum: the earliest start
    a, b = starts[best], ends[best]
    win = f.iloc[a:b]
    pw = {"window_jobs": b - a, "window_gpu_hours": float(w[a:b].sum()),
          "window_share": 100 * float(w[a:b].sum() / w.sum())}
    for cls in ["small", "medium", "large", "xlarge"]:
        pw[f"mix/{cls}/window_jobs"] = int((win.cls == cls).sum())
        pw[f"mix/{cls}/trace_jobs"] = int((f.cls == cls).sum())
    out[f"seed.pollux-busiest-window?trace={trace}"] = pw


# ---- seed.duration-prediction (train 0.8, depth 8, leaf 5, split 2)
def pai_rows():
    j = df(f"SELECT job_name, inst_id, user FROM {table('pai/job')}")
    ia = inst.groupby(["job_name", "task_name"]).run_s.mean().rename("y").reset_index()
    d = task.merge(j, on="job_name").merge(ia, on=["job_name", "task_name"])
    d = d.merge(tags[["inst_id", "group"]], on="inst_id", how="left")
    d["group"] = d["group"].fillna(d["user"])
    d["id"] = d.job_name + "/" + d.task_name
    d["t"] = d.start_time
    return d, ["gpu_type"], ["plan_gpu_pct", "plan_cpu_pct", "plan_mem_gib", "inst_num"]


def unified_rows(trace, numeric):
    d = df(f"SELECT job_id AS id, submit_time AS t, \"user\", \"group\", run_s AS y, {', '.join(numeric)} "
           f"FROM {table('jobs')} WHERE trace = '{trace}'")
    return d, [], numeric


def encode(values, z, n):
    means = pd.Series(z[:n]).groupby(values[:n].to_numpy()).mean()
    return values.map(means).fillna(z[:n].mean()).to_numpy()


def medians(keys, y, n):
    m = pd.Series(y[:n]).groupby(keys[:n].to_numpy()).median()
    return keys.map(m).fillna(float(np.median(y[:n]))).to_numpy()


def errors(y, p):
    rmsle = math.sqrt(float(np.mean((np.log1p(p) - np.log1p(y)) ** 2)))
    pos = y > 0
    return rmsle, float(np.median(100 * np.abs(p[pos] - y[pos]) / y[pos]))


for trace, (d, cats, numeric) in [("pai", pai_rows()), ("philly", unified_rows("philly", ["gpus_requested"])),
                                  ("helios", unified_rows("helios", ["gpus_requested", "cpus_requested", "instances"]))]:
    d = d[d.t.notna() & d.y.notna() & (d.y >= 0)].sort_values(["t", "id"], kind="mergesort").reset_index(drop=True)
    d["hour"] = pd.to_datetime(d.t, utc=True).dt.tz_convert(ZONES[trace]).dt.hour
    for c in ["user", "group"] + cats:
        d[c] = d[c].fillna("")
    n = int(math.floor(0.8 * len(d)))
    y = d.y.to_numpy(dtype=float)
    z = np.log1p(y)
    cols = [encode(d[c], z, n) for c in ["user", "group"] + cats]
    cols += [d[c].astype(float).fillna(-1.0).to_numpy() for c in numeric + ["hour"]]
    X = np.column_stack(cols)
    tree = DecisionTreeRegressor(max_depth=8, min_samples_leaf=5, min_samples_split=2, random_state=0)
    p = np.maximum(np.expm1(tree.fit(X[:n], z[:n]).predict(X)), 0.0)
    res = {"split/" + trace + "/train": n, "split/" + trace + "/test": len(d) - n}
    for model, pr in [("user median", medians(d.user, y, n)), ("group median", medians(d.group, y, n))]:
        r, m = errors(y[n:], pr[n:])
        res[f"errors/{model}/rmsle"], res[f"errors/{model}/median_ape_pct"] = r, m
    r, m = errors(y[n:], p[n:])
    res["~errors/tree/rmsle"], res["~errors/tree/median_ape_pct"] = r, m
    out[f"seed.duration-prediction?trace={trace}"] = res

print(json.dumps(out, indent=1, sort_keys=True, default=lambda v: v.item()))
