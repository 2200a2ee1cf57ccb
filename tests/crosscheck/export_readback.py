#!/usr/bin/env python3
"""Reads a `tracelab export` file back with its own parser and checks every column against the store.

Usage: export_readback.py --format {swf,pai-sim,helios-sim,pollux} --file FILE --store STORE
                          --trace {pai,philly,helios,helios:CLUSTER} [--window all|busiest:DURATION]
                          [--sample N] [--ids IDS.csv]

Written from docs/export.md and the store's documented columns, not from tracelab's code. The
file side uses only Python's standard library (split on whitespace for SWF, the csv module for
the CSV formats); the store side is DuckDB over the Parquet files: the unified `jobs` table for
Philly and Helios jobs (plus Philly's attempts for the replayed duration), the PAI task,
instance, job and group_tag tables for PAI tasks. It recomputes independently:

- which units qualify (finished, dated, asking for a GPU) and, per reason, how many do not;
- the window (`all`: from the first qualifying submission; `busiest:D`: its own sweep over
  GPU-seconds submitted in [t, t+D), earliest on ties) and the selected set: equal to the file's
  jobs, or with --sample a subset of the window of the sample's size;
- the order (submission, then trace id) and every column of every row, per format;
- for pai-sim the four predicted durations, with a DuckDB range join over the whole trace.

Prints a JSON summary {"rows", "written", "left_out": {reason: n}, "checks"}; exits 1 listing
the mismatches.
"""
import argparse
import csv
import json
import math
import re
import sys
from bisect import bisect_left
from datetime import datetime
from zoneinfo import ZoneInfo

import duckdb

failures = []
checks = 0


def check(what, got, want, tol=0.0):
    global checks
    checks += 1
    if isinstance(want, float) or isinstance(got, float):
        ok = got is not None and want is not None and abs(float(got) - float(want)) <= tol
    else:
        ok = got == want
    if not ok and len(failures) < 50:
        failures.append(f"{what}: file {got!r}, expected {want!r}")


# ---------------------------------------------------------------- the store side

REASONS = {
    "unfinished": "not finished when the trace ended",
    "undated": "no submission, start or run time",
    "no_gpu": "asks for no GPU",
    "outside": "submitted outside the window",
    "not_sampled": "not drawn by the sample",
}
ZONES = {"pai": "Asia/Shanghai", "helios": "Asia/Shanghai", "philly": "America/Los_Angeles"}


def pai_units(con, store):
    for table, key in (("job", "job_name"), ("group_tag", "inst_id")):
        n, distinct = con.execute(f"select count(*), count(distinct {key}) from '{store}/pai/{table}.parquet'").fetchone()
        if n != distinct:
            sys.exit(f"pai/{table}: {key} is not unique; the readback's join would be ambiguous")
    return con.execute(f"""
        with j as (select job_name, inst_id, "user" from '{store}/pai/job.parquet'),
             g as (select inst_id, gpu_type_spec, "group" from '{store}/pai/group_tag.parquet'),
             i as (select job_name, task_name, avg(run_s) as run_s, min(start_time) as first_inst
                   from '{store}/pai/instance.parquet' group by all)
        select t.job_name || '/' || t.task_name as id,
               epoch_ms(t.start_time) as submit_ms,
               i.run_s,
               coalesce(t.inst_num, 1) * t.plan_gpu_pct / 100 as gpus,
               j."user" as usr,
               case when g."group" is null or g."group" = '' then j."user" else g."group" end as grp,
               'pai' as vc, 'pai' as raw_vc, 'pai' as cluster,
               t.status,
               epoch_ms(i.first_inst) - epoch_ms(t.start_time) as wait_ms,
               epoch_ms(t.end_time) as end_ms,
               t.inst_num as instances,
               t.plan_gpu_pct / 100 as inst_gpus,
               t.plan_cpu_pct / 100 as inst_cpus,
               t.gpu_type,
               coalesce(t.status not in ('Running', 'Waiting', 'Ready'), true) as finished
        from '{store}/pai/task.parquet' t
        left join j using (job_name) left join g on g.inst_id = j.inst_id
        left join i on i.job_name = t.job_name and i.task_name = t.task_name
    """).fetchall()


def philly_units(con, store):
    return con.execute(f"""
        with a as (select job_id, sum(run_s) as run_s from '{store}/philly/attempts.parquet' group by job_id)
        select u.job_id as id, epoch_ms(u.submit_time) as submit_ms,
               case when u.start_time is null then null else a.run_s end as run_s,
               u.gpus_requested as gpus, u."user" as usr, u."group" as grp, u."group" as vc, u."group" as raw_vc,
               'philly' as cluster, u.status_raw as status,
               round(u.queue_s * 1000) as wait_ms, epoch_ms(u.end_time) as end_ms,
               null as instances, null as inst_gpus, null as inst_cpus, null as gpu_type,
               (u.start_time is null or u.end_time is not null) as finished
        from '{store}/jobs.parquet' u left join a using (job_id)
        where u.trace = 'philly'
    """).fetchall()


def helios_units(con, store, cluster):
    where = f"and u.cluster = '{cluster}'" if cluster else ""
    return con.execute(f"""
        select u.cluster || '/' || u.job_id as id, epoch_ms(u.submit_time) as submit_ms, u.run_s,
               u.gpus_requested as gpus, u."user" as usr, u.cluster || '/' || u."group" as grp,
               u.cluster || '/' || u."group" as vc, u."group" as raw_vc, u.cluster, u.status_raw as status,
               round(u.queue_s * 1000) as wait_ms, epoch_ms(u.end_time) as end_ms,
               u.instances, null as inst_gpus, u.cpus_requested as inst_cpus, null as gpu_type,
               u.end_time is not null as finished
        from '{store}/jobs.parquet' u where u.trace = 'helios' {where}
    """).fetchall()


FIELDS = ["id", "submit_ms", "run_s", "gpus", "usr", "grp", "vc", "raw_vc", "cluster", "status", "wait_ms",
          "end_ms", "instances", "inst_gpus", "inst_cpus", "gpu_type", "finished"]


def half_away(x):
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def units(con, store, trace):
    name, _, cluster = trace.partition(":")
    rows = {"pai": lambda: pai_units(con, store), "philly": lambda: philly_units(con, store),
            "helios": lambda: helios_units(con, store, cluster)}[name]()
    out = [dict(zip(FIELDS, r)) for r in rows]
    for u in out:
        u["dur_ms"] = None if u["run_s"] is None else half_away(u["run_s"] * 1000)
        u["gpu_milli"] = None if u["gpus"] is None else half_away(u["gpus"] * 1000)
    return name, out


def qualify(all_units):
    """The candidate units and the count of the others by reason (checked in this order)."""
    left = {}
    keep = []
    for u in all_units:
        if not u["finished"]:
            reason = "unfinished"
        elif u["submit_ms"] is None or u["dur_ms"] is None or u["dur_ms"] < 0:
            reason = "undated"
        elif u["gpu_milli"] is None or u["gpu_milli"] < 1:
            reason = "no_gpu"
        else:
            keep.append(u)
            continue
        left[REASONS[reason]] = left.get(REASONS[reason], 0) + 1
    return keep, left


def span_ms(text):
    total, rest = 0, text
    for n, unit in re.findall(r"(\d+)(ms|s|min|m|h|d)", text):
        total += int(n) * {"ms": 1, "s": 1000, "m": 60000, "min": 60000, "h": 3600000, "d": 86400000}[unit]
        rest = rest.replace(n + unit, "", 1)
    assert rest == "", f"unsupported duration {text}"
    return total


def window(cands, spec):
    """(origin, end) in epoch ms: the whole trace, or the busiest span by GPU-seconds submitted."""
    cands = sorted(cands, key=lambda u: (u["submit_ms"], u["id"]))
    first = cands[0]["submit_ms"]
    if spec == "all":
        return first, None
    span = span_ms(spec.removeprefix("busiest:"))
    times = [u["submit_ms"] for u in cands]
    prefix = [0]
    for u in cands:
        prefix.append(prefix[-1] + u["gpu_milli"] * max(u["dur_ms"], 0))
    best, best_at = -1, first
    for t in sorted(set(times)):
        demand = prefix[bisect_left(times, t + span)] - prefix[bisect_left(times, t)]
        if demand > best:
            best, best_at = demand, t
    return best_at, best_at + span


# ---------------------------------------------------------------- the file side

def read_swf(path):
    header, records = [], []
    with open(path) as f:
        for line in f:
            if line.startswith(";"):
                m = re.match(r";\s*(\w+):\s?(.*)$", line.rstrip("\n"))
                assert m, f"bad header line {line!r}"
                header.append((m.group(1), m.group(2)))
            elif line.strip():
                fields = line.split()
                assert len(fields) == 18, f"SWF record with {len(fields)} fields: {line!r}"
                records.append([int(x) for x in fields])
    return header, records


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]


def read_ids(path):
    ids = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            ids.setdefault(r["kind"], {})[int(r["number"])] = r["name"]
    return ids


# ---------------------------------------------------------------- per-format checks

def secs(ms):
    return math.floor(ms / 1000 + 0.5)


def whole_gpus(gpu_milli):
    return max(1, -(-gpu_milli // 1000))


def status_norm(trace, raw):
    table = {"pai": {"Terminated": "completed", "Failed": "failed", "Interrupted": "killed"},
             "philly": {"Pass": "completed", "Failed": "failed", "Killed": "killed"},
             "helios": {"COMPLETED": "completed", "FAILED": "failed", "TIMEOUT": "failed", "NODE_FAIL": "failed",
                        "CANCELLED": "killed"}}
    return table[trace].get(raw)


def decimal(x):
    """The shortest decimal of x as tracelab writes it (no trailing .0)."""
    return "0" if x == 0 else repr(float(x)).removesuffix(".0")


def first_appearance(values, numbers, what):
    """Numbers must be 1.. in order of first appearance, one per distinct value."""
    seen = {}
    for v, n in zip(values, numbers):
        seen.setdefault(v, len(seen) + 1)
        check(f"{what} number of {v!r}", n, seen[v])


def check_swf(trace, jobs, origin, args):
    header, recs = read_swf(args.file)
    ids = read_ids(args.ids)
    keys = dict(header)
    check("rows", len(recs), len(jobs))
    check("Version", keys.get("Version"), "2.2")
    for k in ("MaxJobs", "MaxRecords"):
        check(k, keys.get(k), str(len(jobs)))
    check("UnixStartTime", keys.get("UnixStartTime"), str(secs(origin)))
    check("TimeZoneString", keys.get("TimeZoneString"), ZONES[trace])
    queues = {int(v.split(" ", 1)[0]): v.split(" ", 1)[1] for k, v in header if k == "Queue"}
    check("header Queue lines = --ids queues", queues, ids.get("queue", {}))
    parts = {int(v.split(" ", 1)[0]): v.split(" ", 1)[1] for k, v in header if k == "Partition"}
    check("header Partition lines = --ids partitions", parts, ids.get("partition", {}))
    for i, (r, u) in enumerate(zip(recs, jobs)):
        w = f"record {i + 1} ({u['id']})"
        check(f"{w} job number", r[0], i + 1)
        check(f"{w} --ids job", ids["job"].get(r[0]), u["id"])
        check(f"{w} submit", r[1], secs(u["submit_ms"] - origin))
        check(f"{w} wait", r[2], -1 if u["wait_ms"] is None else secs(u["wait_ms"]))
        check(f"{w} run time", r[3], secs(u["dur_ms"]))
        check(f"{w} allocated processors (GPUs)", r[4], whole_gpus(u["gpu_milli"]))
        check(f"{w} requested processors", r[7], whole_gpus(u["gpu_milli"]))
        for f in (5, 6, 8, 9, 13, 16, 17):
            check(f"{w} field {f + 1}", r[f], -1)
        code = {"completed": 1, "failed": 0, "killed": 5}.get(status_norm(trace, u["status"]), -1)
        check(f"{w} status", r[10], code)
        check(f"{w} user", ids["user"].get(r[11]), u["usr"])
        check(f"{w} group", ids["group"].get(r[12]), u["grp"])
        check(f"{w} queue", ids.get("queue", {}).get(r[14]) if trace != "pai" else r[14],
              u["vc"] if trace != "pai" else -1)
        check(f"{w} partition", ids.get("partition", {}).get(r[15]) if trace == "helios" else r[15],
              u["cluster"] if trace == "helios" else -1)
    first_appearance([u["usr"] for u in jobs], [r[11] for r in recs], "user")
    first_appearance([u["grp"] for u in jobs], [r[12] for r in recs], "group")


def predictions(con, all_cands, jobs):
    """user, user+gpu, group+user, group+user+gpu means of ended jobs' durations (s), else global, else 0."""
    pool = [(u["end_ms"], u["dur_ms"], u["usr"], u["grp"], u["gpu_type"] or "") for u in all_cands
            if u["end_ms"] is not None]
    queries = [(i, u["submit_ms"], u["usr"], u["grp"], u["gpu_type"] or "") for i, u in enumerate(jobs)]
    con.execute("create or replace temp table pool(end_ms bigint, dur_ms bigint, usr varchar, grp varchar, gpu varchar)")
    con.executemany("insert into pool values (?, ?, ?, ?, ?)", pool)
    con.execute("create or replace temp table q(i bigint, at_ms bigint, usr varchar, grp varchar, gpu varchar)")
    con.executemany("insert into q values (?, ?, ?, ?, ?)", queries)
    rows = con.execute("""
        select q.i,
               avg(p.dur_ms) filter (where p.usr = q.usr),
               avg(p.dur_ms) filter (where p.usr = q.usr and p.gpu = q.gpu),
               avg(p.dur_ms) filter (where p.usr = q.usr and p.grp = q.grp),
               avg(p.dur_ms) filter (where p.usr = q.usr and p.grp = q.grp and p.gpu = q.gpu),
               avg(p.dur_ms)
        from q left join pool p on p.end_ms <= q.at_ms group by q.i order by q.i
    """).fetchall()
    out = []
    for _, *keyed, everything in rows:
        out.append([0.0 if everything is None else (k if k is not None else everything) / 1000 for k in keyed])
    return out


def check_pai_sim(trace, jobs, origin, args, con, all_cands):
    head, rows = read_csv(args.file)
    check("header", head, ["job_id", "jobid", "user", "gpu_type", "num_inst", "num_gpu", "num_cpu", "submit_time",
                           "duration", "wait_time", "user_dur", "user_gpu_dur", "group_dur", "group_gpu_dur"])
    check("rows", len(rows), len(jobs))
    preds = predictions(con, all_cands, jobs)
    for i, (r, u, p) in enumerate(zip(rows, jobs, preds)):
        w = f"row {i + 1} ({u['id']})"
        check(f"{w} job_id", r["job_id"], str(i + 1))
        check(f"{w} jobid", r["jobid"], u["id"])
        check(f"{w} user", r["user"], u["usr"])
        check(f"{w} gpu_type", r["gpu_type"], u["gpu_type"] or "")
        pai = trace == "pai"
        check(f"{w} num_inst", r["num_inst"], str(u["instances"] if pai else 1))
        check(f"{w} num_gpu", r["num_gpu"], decimal(u["inst_gpus"] if pai else u["gpu_milli"] / 1000))
        check(f"{w} num_cpu", r["num_cpu"], "" if u["inst_cpus"] is None else decimal(u["inst_cpus"]))
        check(f"{w} submit_time", r["submit_time"], str(secs(u["submit_ms"] - origin)))
        check(f"{w} duration", r["duration"], str(secs(u["dur_ms"])))
        check(f"{w} wait_time", r["wait_time"], "" if u["wait_ms"] is None else str(secs(u["wait_ms"])))
        for col, want in zip(("user_dur", "user_gpu_dur", "group_dur", "group_gpu_dur"), p):
            check(f"{w} {col}", float(r[col]), want, 5e-4 + 1e-9 * abs(want))


def check_helios_sim(trace, jobs, origin, args):
    head, rows = read_csv(args.file)
    check("header", head, ["job_id", "user", "vc", "jobname", "gpu_num", "cpu_num", "state", "submit_time", "duration"])
    check("rows", len(rows), len(jobs))
    zone = ZoneInfo(ZONES[trace])
    names = {"completed": "COMPLETED", "failed": "FAILED", "killed": "CANCELLED"}
    for i, (r, u) in enumerate(zip(rows, jobs)):
        w = f"row {i + 1} ({u['id']})"
        check(f"{w} job_id", r["job_id"], str(i + 1))
        check(f"{w} user", r["user"], u["usr"])
        check(f"{w} vc", r["vc"], u["raw_vc"])
        check(f"{w} jobname", r["jobname"], u["id"])
        check(f"{w} gpu_num", r["gpu_num"], str(whole_gpus(u["gpu_milli"])))
        cpus = u["inst_cpus"]
        if cpus is not None and trace == "pai":
            cpus = cpus * u["instances"]
        check(f"{w} cpu_num", r["cpu_num"], "" if cpus is None else decimal(cpus))
        state = u["status"] if trace == "helios" else names.get(status_norm(trace, u["status"]), u["status"])
        check(f"{w} state", r["state"], state)
        local = datetime.fromtimestamp(u["submit_ms"] / 1000, zone).strftime("%Y-%m-%d %H:%M:%S")
        check(f"{w} submit_time", r["submit_time"], local)
        check(f"{w} duration", r["duration"], str(secs(u["dur_ms"])))


def check_pollux(trace, jobs, origin, args):
    head, rows = read_csv(args.file)
    check("header", head, ["name", "time", "application", "num_replicas", "batch_size", "trace_job_id", "trace_gpus",
                           "trace_duration_s"])
    check("rows", len(rows), len(jobs))
    # Pollux's classes by GPU-hours, two applications alternating where the generator draws one.
    classes = [(1, ("cifar10", "ncf")), (10, ("deepspeech2", "bert")), (100, ("yolov3",)), (None, ("imagenet",))]
    batches = {"cifar10": (128, 4096), "ncf": (256, 32768), "deepspeech2": (20, 640), "bert": (12, 384),
               "yolov3": (8, 512), "imagenet": (200, 12800)}
    seen = [0] * 4
    for i, (r, u) in enumerate(zip(rows, jobs)):
        w = f"row {i + 1} ({u['id']})"
        milli_ms = u["gpu_milli"] * max(u["dur_ms"], 0)
        c = next(k for k, (upper, _) in enumerate(classes) if upper is None or milli_ms < upper * 1000 * 3600000)
        apps = classes[c][1]
        app = apps[seen[c] % len(apps)]
        seen[c] += 1
        replicas = min(whole_gpus(u["gpu_milli"]), 64)
        lo, hi = batches[app]
        check(f"{w} name", r["name"], f"{app}-{i}")
        check(f"{w} time", r["time"], str(secs(u["submit_ms"] - origin)))
        check(f"{w} application", r["application"], app)
        check(f"{w} num_replicas", r["num_replicas"], str(replicas))
        check(f"{w} batch_size", r["batch_size"], str(min(lo * replicas, hi)))
        check(f"{w} trace_job_id", r["trace_job_id"], u["id"])
        check(f"{w} trace_gpus", r["trace_gpus"], decimal(u["gpu_milli"] / 1000))
        check(f"{w} trace_duration_s", r["trace_duration_s"], str(secs(u["dur_ms"])))


def file_ids(args):
    if args.format == "swf":
        return [n for _, n in sorted(read_ids(args.ids)["job"].items())]
    col = {"pai-sim": "jobid", "helios-sim": "jobname", "pollux": "trace_job_id"}[args.format]
    return [r[col] for r in read_csv(args.file)[1]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", required=True)
    ap.add_argument("--file", required=True)
    ap.add_argument("--store", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--window", default="all")
    ap.add_argument("--sample", type=int)
    ap.add_argument("--ids")
    args = ap.parse_args()
    con = duckdb.connect()
    trace, all_units = units(con, args.store, args.trace)
    cands, left = qualify(all_units)
    origin, end = window(cands, args.window)
    in_window = {u["id"]: u for u in cands if u["submit_ms"] >= origin and (end is None or u["submit_ms"] < end)}
    if len(cands) > len(in_window):
        left[REASONS["outside"]] = len(cands) - len(in_window)
    ids = file_ids(args)
    check("no job twice", len(set(ids)), len(ids))
    missing = [i for i in ids if i not in in_window]
    check("jobs of the file outside the qualifying window", missing[:5], [])
    if args.sample is None:
        check("the file's jobs = the window's qualifying jobs", sorted(ids), sorted(in_window))
    else:
        check("sample size", len(ids), min(args.sample, len(in_window)))
        if len(in_window) > len(ids):
            left[REASONS["not_sampled"]] = len(in_window) - len(ids)
    jobs = sorted((in_window[i] for i in ids if i in in_window), key=lambda u: (u["submit_ms"], u["id"]))
    check("order: submission, then trace id", [u["id"] for u in jobs], [i for i in ids if i in in_window])
    if args.format == "swf":
        check_swf(trace, jobs, origin, args)
    elif args.format == "pai-sim":
        check_pai_sim(trace, jobs, origin, args, con, cands)
    elif args.format == "helios-sim":
        check_helios_sim(trace, jobs, origin, args)
    else:
        check_pollux(trace, jobs, origin, args)
    print(json.dumps({"rows": len(all_units), "written": len(ids), "left_out": left, "checks": checks}))
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
