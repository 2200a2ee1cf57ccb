#!/usr/bin/env python3
"""The PAI owners' definitions for notebook cells A8-A11 and A13-A16, in pandas, from the raw CSV files.

Usage:
  python3 bench/pai_pandas.py RAW_DIR [--as-published]

RAW_DIR holds the cluster-trace-gpu-v2020 files as published (or as `tracelab synth pai` writes them):
pai_<table>.csv without a header row, with the column names in pai_<table>.header beside it. Prints one
JSON object on stdout, {analysis id: {headline key: value}}, keyed as tracelab's `analyze ... --format json`
headlines (and the `quantiles` tables of A9 and A10, keyed "<series> <column>"), so bench/pai.py can put the
two side by side. This is the baseline of `bench/pai.py --pandas`, which times this script as a process.

The frames are the owners' (docs/definitions.md#pai-vocabulary-and-the-owners-frames), built the way a
pandas user of the notebook builds them: every needed table read whole with read_csv's default types, then
merges and group-bys. Written for this benchmark from the published definitions, not copied from upstream.
Kept as upstream has them, and therefore possibly unlike tracelab on real data (docs/definitions.md lists
the differences): a raw time of 0 is missing for instance aggregates and task starts, but a task end of 0
stays 0; the per-worker instance row is chosen over the raw values (0 sorts first, an empty field last);
A11's GPU-type shares count every task of the type over the tasks that have a plan_gpu.
Big intermediates are dropped as soon as they are used, which favours pandas' peak memory.

Two ways to get there:
  lean (the default)  only the five tables the cells read, only the columns they use, every frame freed
                      once used: the least a careful pandas user needs, so the hardest baseline to beat.
  --as-published      the notebook's own path, as its set-up cells and helper functions run it (read from
                      the published notebook and utils.py, not copied): the set-up cell reads all seven
                      tables and keeps them; the task frame (dfa) and the worker frame (dfw) each get a
                      start_date column, built one row at a time as a tz-aware Timestamp in Asia/Shanghai;
                      dfa also gets duration_min, the worker rows get their runtime and a 0 start as
                      missing; dfa, dfw, dfws and dfas all stay alive, as notebook variables do. None of
                      the extra columns feeds A8-A16, so both ways print the same numbers; the difference
                      is what a user of the notebook pays to reach them.
"""
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

KEY = ["job_name", "task_name"]
GPU_BINS = [("<25%", lambda g: g < 25), ("25-50%", lambda g: (g >= 25) & (g < 50)),
            ("50-100%", lambda g: (g >= 50) & (g < 100)), ("1 GPU", lambda g: g == 100), (">1 GPU", lambda g: g > 100)]
GPU_TYPES = ["T4", "MISC", "P100", "V100", "V100M32"]


def table(raw, name):
    """One raw table, named columns from its .header file; no header row in the CSV itself."""
    names = (raw / f"pai_{name}.header").read_text().strip().split(",")
    return pd.read_csv(raw / f"pai_{name}.csv", header=None, names=names)


def instance_aggregates(inst):
    """Per task: earliest positive instance start, latest positive end, mean runtime over instances with
    both, and the largest distinct status in string order."""
    starts = inst.loc[inst.start_time > 0, KEY + ["start_time"]].groupby(KEY).min()
    ends = inst.loc[inst.end_time > 0, KEY + ["end_time"]].groupby(KEY).max()
    both = inst.loc[(inst.start_time > 0) & (inst.end_time > 0), KEY]
    both = both.assign(runtime=inst.end_time - inst.start_time).groupby(KEY)[["runtime"]].mean()
    agg = inst[KEY + ["status"]].drop_duplicates().groupby(KEY).max()
    for part in (starts, ends, both):
        agg = agg.merge(part, on=KEY, how="left")
    return agg


def shanghai_dates(seconds):
    """The notebook's start_date: one tz-aware pd.Timestamp per row (Series.apply), not a vectorized
    conversion, because that is how its helpers build the column and what it costs them."""
    return seconds.apply(pd.Timestamp, unit="s", tz="Asia/Shanghai")


def task_frame(job, task, inst, tags, as_published=False):
    """dfa: every task with its job and at least one instance row, with completion time and the wait."""
    dfa = task.merge(job, on="job_name", suffixes=("", "_j"))
    dfa.loc[dfa.start_time == 0, "start_time"] = np.nan  # only the start; a 0 end stays 0 upstream
    dfa["runtime"] = dfa.end_time - dfa.start_time
    dfa = dfa.merge(instance_aggregates(inst), on=KEY, suffixes=("", "_i"))
    dfa["wait_time"] = dfa.start_time_i - dfa.start_time
    if as_published:
        dfa["duration_min"] = dfa.runtime_i / 60
        dfa["start_date"] = shanghai_dates(dfa.start_time)
    dfa = dfa.merge(tags.drop(columns=["user"]), on="inst_id", how="left")
    dfa["group"] = dfa["group"].fillna(dfa["user"])
    return dfa


def worker_frame(inst, as_published=False):
    """dfiw: one instance row per worker, the last after sorting by status, start and end."""
    w = inst.sort_values(["status", "start_time", "end_time"]).drop_duplicates(subset=["worker_name"], keep="last")
    w = w.dropna(subset=["worker_name"])
    if as_published:
        both = (w.start_time > 0) & (w.end_time > 0)
        w["runtime"] = w.end_time[both] - w.start_time[both]
        w.loc[w.start_time == 0, "start_time"] = np.nan
        w["start_date"] = shanghai_dates(w.start_time)
    return w


def task_sums(dfa, inst, task, tags, spec, sensor, frames=None):
    """dfas: per task, requests, usages and capacities summed over its workers that have a sensor row.
    With `frames` (a dict), the as-published path: dfw and dfws are built as the notebook builds them and
    kept in `frames`, as notebook variables stay alive."""
    dfw = worker_frame(inst, frames is not None).merge(task, on=KEY, how="left", suffixes=("", "_t"))
    dfw = dfw.merge(tags, on="inst_id", how="left")
    if frames is not None:
        dfw["group"] = dfw["group"].fillna(dfw["user"])
        frames["dfw"] = dfw
    dfws = dfw.merge(spec.drop(columns=["gpu_type"]), on="machine", how="left")
    del dfw
    dfws = dfws.merge(sensor.drop(columns=["job_name", "task_name", "inst_id", "machine"]), on="worker_name")
    cols = ["cpu_usage", "gpu_wrk_util", "avg_mem", "avg_gpu_wrk_mem", "plan_cpu", "plan_gpu", "plan_mem",
            "cap_cpu", "cap_gpu", "cap_mem"]
    sums = dfws.groupby(KEY)[cols].sum()
    if frames is not None:
        frames["dfws"] = dfws
    del dfws
    return dfa.drop(columns=["plan_cpu", "plan_mem", "plan_gpu"]).merge(sums, on=KEY)


def share(mask, among):
    return 100.0 * int(mask.sum()) / len(among) if len(among) else None


def quantile(s, q):
    return float(s.quantile(q)) if len(s) else None


def a8(dfa):
    median = dfa.runtime_i.median()
    ratio = 100 * dfa.wait_time / dfa.runtime  # x / 0 is +-inf, 0 / 0 NaN
    out = {}
    for name, rows in [("short", dfa.runtime_i <= median), ("long", dfa.runtime_i > median), ("all", None)]:
        r = (ratio if rows is None else ratio[rows]).dropna()
        out[f"{name}_over_half"] = share(r > 50, r)
    return out


def quantile_rows(out, label, waits):
    out[f"{label} tasks"] = len(waits)
    for q, col in [(0.5, "p50_s"), (0.9, "p90_s"), (0.99, "p99_s")]:
        out[f"{label} {col}"] = quantile(waits, q)


def a9(dfa):
    out = {}
    g = dfa.plan_gpu
    for label, rows in GPU_BINS:
        quantile_rows(out, label, dfa.wait_time[rows(g)].dropna())
    sharing, whole = dfa.wait_time[g < 100].dropna(), dfa.wait_time[g >= 100].dropna()
    quantile_rows(out, "sharing (<1 GPU)", sharing)
    quantile_rows(out, "whole GPU (>=1)", whole)
    out["sharing_p90"] = quantile(sharing, 0.9)
    out["whole_over_1000"] = share(whole > 1000, whole)
    return out


def a10(dfa):
    out = {}
    for t in GPU_TYPES:
        quantile_rows(out, t, dfa.wait_time[dfa.gpu_type == t].dropna())
    out["v100_p90"] = quantile(dfa.wait_time[dfa.gpu_type == "V100"].dropna(), 0.9)
    out["low_end_p90"] = quantile(dfa.wait_time[dfa.gpu_type.isin(["T4", "P100", "MISC"])].dropna(), 0.9)
    return out


def a11(dfa):
    n = len(dfa.plan_gpu.dropna())
    out = {f"GPU request: {label}": 100.0 * int(rows(dfa.plan_gpu).sum()) / n for label, rows in GPU_BINS}
    out.update({f"GPU type: {t}": 100.0 * int((dfa.gpu_type == t).sum()) / n for t in GPU_TYPES})
    return out


def a13(dfas):
    out = {}
    for part, request, usage, unit in [("cpu", "plan_cpu", "cpu_usage", 100), ("gpu", "plan_gpu", "gpu_wrk_util", 100),
                                       ("mem", "plan_mem", "avg_gpu_wrk_mem", 1)]:
        out[f"{part}_request_p50"] = float(dfas[request].dropna().median()) / unit
        out[f"{part}_usage_p50"] = float(dfas[usage].dropna().median()) / unit
    return out


def a16(dfas):
    gaps = pd.DataFrame({
        "cpu": (dfas.plan_cpu - dfas.cpu_usage) / (100 * dfas.cap_cpu),
        "gpu": (dfas.plan_gpu - dfas.gpu_wrk_util) / (100 * dfas.cap_gpu),
        "mem": (dfas.plan_mem - dfas.avg_mem) / dfas.cap_mem,
    })
    gaps[KEY] = dfas[KEY]
    per_task = gaps.groupby(KEY)[["cpu", "gpu", "mem"]].mean()
    out = {}
    for r in ["cpu", "gpu", "mem"]:
        valid = per_task[r][per_task[r].notna()]  # +-inf stays in, as upstream
        out[f"{r}_plan_over_usage"] = share(valid > 0, valid)
        out[f"{r}_plan_under_usage"] = share(valid < 0, valid)
    return out


def task_cells(dfa):
    """The numbers of cells A8-A11, from dfa."""
    return {"pai.wait-over-completion": a8(dfa), "pai.wait-by-gpu-request": a9(dfa),
            "pai.wait-by-gpu-type": a10(dfa), "pai.task-share-by-gpu": a11(dfa)}


def usage_cells(dfas):
    """The numbers of cells A13-A16, from dfas."""
    return {"pai.request-vs-usage": a13(dfas), "pai.usage-minus-request": a16(dfas)}


def lean(raw):
    job, task, inst, tags = (table(raw, t) for t in ["job_table", "task_table", "instance_table", "group_tag_table"])
    dfa = task_frame(job, task, inst, tags)
    del job
    out = task_cells(dfa)
    spec, sensor = table(raw, "machine_spec"), table(raw, "sensor_table")
    dfas = task_sums(dfa, inst, task, tags, spec, sensor)
    del dfa, inst, sensor
    return out | usage_cells(dfas)


def as_published(raw):
    # The set-up cell: all seven tables, kept for the session (machine_metric is for later cells).
    job, task, inst, sensor, tags, spec, _metric = (table(raw, t) for t in [
        "job_table", "task_table", "instance_table", "sensor_table", "group_tag_table", "machine_spec",
        "machine_metric"])
    dfa = task_frame(job, task, inst, tags, as_published=True)
    frames = {}
    dfas = task_sums(dfa, inst, task, tags, spec, sensor, frames)
    out = task_cells(dfa) | usage_cells(dfas)
    return out


def main():
    args = sys.argv[1:]
    if len(args) not in (1, 2) or (len(args) == 2 and args[1] != "--as-published"):
        sys.exit(__doc__)
    out = (as_published if len(args) == 2 else lean)(Path(args[0]))
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
