#!/usr/bin/env python3
"""The Philly notebook's job-level numbers (P1-P3) from the raw job log, on its naive clock.

Usage: philly_notebook.py STORE_DIR   (the store is not read: the numbers come from the raw
`cluster_job_log` inside data-samples/philly/trace-data.tar.gz)

Re-implements, in a few lines of plain Python, what the owners' notebook
(`analysis/Philly Trace Analysis.ipynb`, msr-fiddle/philly-traces) computes per job: times parsed
as naive datetimes with '%Y-%m-%d %H:%M:%S', GPUs of the first attempt, runtime = last attempt end
- first attempt start, first-attempt queueing delay, and the per-attempt queueing loop, all in
minutes. Naive datetimes subtract as wall-clock times, so these are the numbers of
`tracelab analyze ... --param clock=wall`. Prints {run: {key: value}} in the key grammar of
analyses_philly.py ("part|series|stat", "part|row id|column").
"""
import json
import tarfile
from datetime import datetime
from pathlib import Path

LOG = Path(__file__).resolve().parents[2] / "data-samples/philly/trace-data.tar.gz"


def parse(text):
    return None if text in (None, "", "None") else datetime.strptime(text, "%Y-%m-%d %H:%M:%S")


def minutes(later, earlier):
    return (later - earlier).total_seconds() / 60


def bucket(gpus):
    if gpus == 1:
        return "1 GPU"
    if gpus is not None and 2 <= gpus <= 4:
        return "2-4 GPU"
    if gpus is not None and 5 <= gpus <= 8:
        return "5-8 GPU"
    if gpus is not None and gpus > 8:
        return ">8 GPU"
    return None


def quantile(values, q):
    """numpy's linear interpolation."""
    s = sorted(values)
    h = (len(s) - 1) * q
    lo = int(h)
    return s[lo] if lo + 1 >= len(s) else s[lo] + (h - lo) * (s[lo + 1] - s[lo])


def stats(res, part, groups, names=("n", "mean", "p50", "p90", "p99")):
    for label, xs in groups.items():
        values = {"n": len(xs), "mean": sum(xs) / len(xs), "p50": quantile(xs, 0.5), "p90": quantile(xs, 0.9),
                  "p99": quantile(xs, 0.99)}
        for name in names:
            res[f"{part}|{label}|{name}"] = values[name]


with tarfile.open(LOG) as tar:
    log = json.load(tar.extractfile("trace-data/cluster_job_log"))

jobs = []
for raw in log:
    attempts = [(parse(a["start_time"]), parse(a["end_time"]), len(a["detail"])) for a in raw["attempts"]]
    gpus = sum(len(d["gpus"]) for d in raw["attempts"][0]["detail"]) if attempts else None
    first = attempts[0][0] if attempts else None
    last = attempts[-1][1] if attempts else None
    jobs.append({
        "vc": raw["vc"], "bucket": bucket(gpus), "gpus": gpus, "submit": parse(raw["submitted_time"]),
        "attempts": attempts,
        "run": minutes(last, first) if first and last else None,
        "queue": minutes(first, parse(raw["submitted_time"])) if first else None,
    })
out = {}

# P1: runtime by bucket, every status.
runs = {}
for j in jobs:
    if j["bucket"] and j["run"] is not None:
        runs.setdefault(j["bucket"], []).append(j["run"])
res = {}
stats(res, "by-size", runs)
out["philly.runtime-by-size?clock=wall"] = res

# P2, per attempt: the delay since submission or the previous attempt's end; the current value is
# appended for every attempt (stale when times are missing); exact zeros then dropped.
per_attempt = []
for j in (j for j in jobs if j["bucket"]):
    queue_time, delay = j["submit"], 0.0
    for start, end, _ in j["attempts"]:
        if queue_time is not None and start is not None:
            delay, queue_time = minutes(start, queue_time), end
        per_attempt.append((j["vc"], j["bucket"], delay))
per_attempt = [d for d in per_attempt if d[2] != 0]
first_attempt = [(j["vc"], j["bucket"], j["queue"]) for j in jobs if j["bucket"] and j["queue"] is not None]
for run, samples in [("", per_attempt), ("&definition=first-attempt", first_attempt)]:
    res = {}
    for part, keep in [("all", None)] + [(f"vc-{vc}", vc) for vc in sorted({s[0] for s in samples})]:
        groups = {}
        for vc, b, d in samples:
            if keep is None or vc == keep:
                groups.setdefault(b, []).append(d)
        stats(res, part, groups, ("n", "p50", "p90"))
    out[f"philly.queueing-by-vc?clock=wall{run}"] = res

# P3: jobs with attempts and >= 5 GPUs, first-attempt delay against the first attempt's servers.
groups = {}
for j in jobs:
    if j["attempts"] and j["gpus"] >= 5 and j["queue"] is not None:
        groups.setdefault(f"{j['bucket']},{j['attempts'][0][2]}", []).append(j["queue"])
res = {}
for key, xs in groups.items():
    res[f"by-servers|{key}|jobs"] = len(xs)
    res[f"by-servers|{key}|p50_delay_min"] = quantile(xs, 0.5)
    res[f"by-servers|{key}|p90_delay_min"] = quantile(xs, 0.9)
out["philly.locality?clock=wall"] = res

print(json.dumps(out, sort_keys=True))
