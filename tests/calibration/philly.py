#!/usr/bin/env python3
"""Calibration of a (synthetic) Microsoft Philly trace against the published numbers.

Usage: python3 tests/calibration/philly.py DIR [--json] [--scale S]

Reads the raw files of DIR (cluster_job_log, cluster_gpu_util, cluster_machine_list) with DuckDB SQL and
prints one line per target: name, published, measured, tolerance, ok. Exits 0 iff every target is within
tolerance. Definitions follow docs/definitions.md#philly-vocabulary (the owners' notebook):

- run time      = attempts[-1].end_time - attempts[0].start_time (seconds; all retries and the gaps between
                  them), only jobs where both are set (notebook `run_time`, in seconds instead of minutes);
- GPUs of a job = GPUs of the first attempt (notebook `num_gpus`);
- GPU time      = sum over jobs of GPUs x run time (Helios SC'21 Fig 1b applies this to Philly: 31.3/32.6/36.1);
- GPU util      = notebook P4: for every attempt with start and end, every minute m from floor(start) while
                  m < end, every (machine, GPU) of the attempt: the GPU's utilization at m unless NA. Unlike
                  the notebook (which matches naive job times against zone-stripped stamps, ambiguous in the
                  repeated 01:xx hour of 2017-11-05), both sides are converted to UTC first.

Job-log times are naive America/Los_Angeles: UTC-7 before 2017-11-05 02:00 local (the repeated hour is read
as PDT, as ingest does), UTC-8 after. Utilization stamps carry PDT/PST.

Scale: without --scale, s is inferred from the submission window, which the generator shrinks by sqrt(s)
around the DST change: s = (window / 137 days)^2; the job-count target then checks the job density.
"""
import math
import os
import sys

import duckdb

from calib import Report, one

HERE = os.path.dirname(os.path.abspath(__file__))
REAL_RUNTIMES = os.path.join(HERE, "..", "..", "data-samples", "pai", "philly_runtime.csv")
REAL_JOBS = 117_325
# 2017-08-07 00:00 PDT and 2017-12-23 00:00 PST in UTC epoch seconds.
JOBS_START, JOBS_END = 1_502_089_200, 1_514_016_000
DST_END_UTC = 1_509_872_400
GPU_TIME = {"Pass": 31.3, "Killed": 32.6, "Failed": 36.1}

# Naive LA time (VARCHAR) to UTC epoch seconds.
LA_EPOCH = """create macro la_epoch(s) as
    case when s is null or s in ('', 'None') then null
    else epoch(strptime(s, '%Y-%m-%d %H:%M:%S'))::bigint
         + case when s < '2017-11-05 02:00:00' then 7 else 8 end * 3600 end"""
UTIL_EPOCH = """create macro util_epoch(s) as
    epoch(strptime(substr(s, 1, 19), '%Y-%m-%d %H:%M:%S'))::bigint
    + case when s like '% PDT' then 7 else 8 end * 3600"""


def load(con, d):
    con.execute(LA_EPOCH)
    con.execute(UTIL_EPOCH)
    log = os.path.join(d, "cluster_job_log")
    attempt = "STRUCT(start_time VARCHAR, end_time VARCHAR, detail STRUCT(ip VARCHAR, gpus VARCHAR[])[])"
    con.execute(f"""create table jobs as select row_number() over () as j, * from read_json('{log}',
        format='array', columns={{'status': 'VARCHAR', 'vc': 'VARCHAR', 'jobid': 'VARCHAR',
        'attempts': '{attempt}[]', 'submitted_time': 'VARCHAR', 'user': 'VARCHAR'}})""")
    con.execute("""create table attempts as
        select j, a.i as k, la_epoch(a.x.start_time) as s, la_epoch(a.x.end_time) as e, a.x.detail as detail
        from (select j, unnest(list_zip(attempts, range(len(attempts)))) as z from jobs) t,
             lateral (select z[2] as i, z[1] as x) a""")
    con.execute("""create table placements as
        select j, k, s, e, d.ip as ip, cast(substr(g, 4) as integer) as gpu
        from (select j, k, s, e, unnest(detail) as d from attempts), lateral unnest(d.gpus) as t(g)""")
    con.execute("""create table job_view as
        select jobs.j, status, vc, la_epoch(submitted_time) as submit,
               (select s from attempts a where a.j = jobs.j and a.k = 0) as first_start,
               (select e from attempts a where a.j = jobs.j and a.k = len(jobs.attempts) - 1) as last_end,
               (select count(*) from placements p where p.j = jobs.j and p.k = 0) as gpus
        from jobs""")
    con.execute("alter table job_view add column run double")
    con.execute("update job_view set run = last_end - first_start")
    gpu = os.path.join(d, "cluster_gpu_util")
    cols = ", ".join([f"'g{i}': 'VARCHAR'" for i in range(8)])
    con.execute(f"""create view util_all as select time, machineId as ip,
        {", ".join(f"try_cast(nullif(g{i}, 'NA') as double) as g{i}" for i in range(8))}
        from read_csv('{gpu}', header=true, auto_detect=false,
             columns={{'time': 'VARCHAR', 'machineId': 'VARCHAR', {cols}, 'trail': 'VARCHAR'}})""")
    # Above ~300 MB (scale >= 0.1) the per-GPU-minute checks use 1 machine in 8 (unbiased for means).
    sample = os.path.getsize(gpu) > 300_000_000
    con.execute(f"""create table util as select util_epoch(time) // 60 as m, * exclude (time) from util_all
        {"where hash(ip) % 8 = 0" if sample else ""}""")
    con.execute("""create table util_stats as select
        count(*) filter (time like '% PDT') as pdt, count(*) filter (time like '% PST') as pst,
        count(distinct substr(time, 21)) filter (time like '2017-11-05 01:%') as repeated,
        min(util_epoch(time)) // 60 as m0, max(util_epoch(time)) // 60 as m1 from util_all""")
    ml = os.path.join(d, "cluster_machine_list")
    con.execute(f"""create table machines as select machineId as ip, cast(trim(c1) as integer) as gpus
        from read_csv('{ml}', header=true, auto_detect=false,
             columns={{'machineId': 'VARCHAR', 'c1': 'VARCHAR', 'c2': 'VARCHAR'}})""")
    return sample


def q(con, sql):
    return con.execute(sql).fetchall()


def quantile(sorted_v, p):
    """numpy's default (linear) quantile."""
    i = p * (len(sorted_v) - 1)
    lo = math.floor(i)
    hi = min(lo + 1, len(sorted_v) - 1)
    return sorted_v[lo] + (sorted_v[hi] - sorted_v[lo]) * (i - lo)


def ks(a, b):
    """Two-sample Kolmogorov-Smirnov distance of sorted lists."""
    i = j = 0
    d = 0.0
    while i < len(a) and j < len(b):
        x = min(a[i], b[j])
        while i < len(a) and a[i] <= x:
            i += 1
        while j < len(b) and b[j] <= x:
            j += 1
        d = max(d, abs(i / len(a) - j / len(b)))
    return d


def check_counts(con, r, scale):
    n = one(con, "select count(*) from job_view")
    lo, hi = q(con, "select min(submit), max(submit) from job_view")[0]
    span = (JOBS_END - JOBS_START)
    if scale is None:
        # The generator's window is sqrt(s) x 137 days; submissions fill it up to the gaps at its edges.
        scale = min(1.0, ((hi - lo) / span) ** 2)
    r.rel("jobs (117,325 x scale)", round(REAL_JOBS * scale), n, 0.05 if n < 5000 else 0.01, digits=4)
    first, last = q(con, """select min(submitted_time[1:10]), max(submitted_time[1:10]) from jobs""")[0]
    inside = first >= "2017-08-07" and last <= "2017-12-22" and lo < DST_END_UTC < hi
    exact = scale < 0.999 or (first, last) == ("2017-08-07", "2017-12-22")
    r.add("submission dates within 2017-08-07..2017-12-22 (across the DST change)", "2017-08-07..2017-12-22",
          f"{first}..{last}", "inside; equal at scale 1", inside and exact)
    vcs = one(con, "select count(distinct vc) from jobs")
    r.add("virtual clusters", 15, vcs, "<= 15 (15 at scale >= 0.01)", vcs <= 15 and (vcs == 15 or n < 1200))
    return n


def check_status(con, r, n):
    bad = one(con, "select count(*) from job_view where status in ('Killed', 'Failed')") / n * 100
    r.abs("jobs killed or failed (%)", 30.0, bad, 3.0, " pts")
    rows = q(con, """select status, sum(gpus * run), max(gpus * run) from job_view
                     where run is not null group by status""")
    total = sum(x[1] for x in rows)
    biggest = max(x[2] for x in rows) / total * 100
    # A share cannot be trusted closer than the largest single job allows (heavy tails make a small sample
    # lumpy: below ~1,000 jobs one job can hold a third of the GPU time): 3 points plus that job's share.
    tol = round(3.0 + biggest, 1)
    got = {s: g / total * 100 for s, g, _ in rows}
    for status, want in GPU_TIME.items():
        r.abs(f"GPU-time share {status} (%)", want, got.get(status, 0.0), tol, " pts (3 + largest job)")


def check_runtimes(con, r):
    mine = sorted(x[0] for x in q(con, "select run from job_view where run is not null"))
    with open(REAL_RUNTIMES) as f:
        real = sorted(float(x) for x in f.read().split()[1:])
    for p, tol in ((0.5, 0.15), (0.9, 0.2), (0.99, 0.5)):
        name = f"runtime P{int(p * 100)} (s)"
        r.rel(name, round(quantile(real, p), 1), quantile(mine, p), tol if len(mine) > 2000 else tol * 2, digits=4)
    d = ks(mine, real)
    crit = 1.36 * math.sqrt((len(mine) + len(real)) / (len(mine) * len(real)))
    r.add("runtime KS distance to philly_runtime.csv", 0.0, round(d, 4), f"<= {crit:.4f} (5% critical)", d <= crit)
    pos = [x for x in mine if x > 0]
    span = math.log10(quantile(pos, 0.99) / max(quantile(pos, 0.01), 1))
    r.add("runtime span log10(P99/P1) (orders)", 4.23, round(span, 2), ">= 4", span >= 4)


def check_sizes(con, r, n):
    rows = dict(q(con, """select case when gpus = 1 then '1' when gpus <= 4 then '2-4'
        when gpus <= 8 then '5-8' else '>8' end, count(*) from job_view where gpus > 0 group by 1"""))
    started = sum(rows.values())
    one_gpu = rows.get("1", 0) / started
    r.add("1-GPU share of jobs (first attempt)", "mostly 1-GPU", round(one_gpu, 3), "0.5..0.9", 0.5 <= one_gpu <= 0.9)
    for b in ("2-4", "5-8", ">8"):
        share = rows.get(b, 0) / started
        need = n >= 1000 or b == "2-4"
        r.add(f"{b}-GPU share of jobs", "present", round(share, 3), "> 0", share > 0 or not need)


def check_util(con, r, sample):
    con.execute(f"""create table busy as
        select p.ip, p.gpu, m from (select * from placements {"where hash(ip) % 8 = 0" if sample else ""}) p,
             lateral unnest(range(p.s // 60, (p.e + 59) // 60)) as t(m)
        where p.s is not null and p.e is not null""")
    cases = " ".join(f"when {i} then u.g{i}" for i in range(8))
    mean = one(con, f"""select avg(case b.gpu {cases} end) from busy b join util u on u.ip = b.ip and u.m = b.m""")
    note = " (1/8 of machines)" if sample else ""
    r.abs(f"mean util of allocated GPU-minutes, P4 (%){note}", 52.0, mean or 0.0, 5.0, " pts")
    idle = one(con, f"""with cells as (
            select u.ip, u.m, g.i as gpu, case g.i {cases} end as v
            from util u, (select unnest(range(8)) as i) g)
        select avg(v) from cells c where v is not null
          and not exists (select 1 from busy b where b.ip = c.ip and b.m = c.m and b.gpu = c.gpu)""")
    r.add(f"mean util of idle GPU-minutes (%){note}", "low/zero", round(idle or 0.0, 3), "<= 5", (idle or 0) <= 5)


def check_placements(con, r):
    unknown = one(con, """select count(*) from placements p left join machines m using (ip)
                          where m.ip is null or p.gpu >= m.gpus""")
    r.add("placements on unknown machines or GPU slots", 0, unknown, "0", unknown == 0)
    clash = one(con, """select count(*) from (
        select s // 60 as a, coalesce((e + 59) // 60, 9e12) as b,
               lead(s // 60) over (partition by ip, gpu order by s, j, k) as next_a
        from placements where s is not null) where next_a < b""")
    r.add("GPU-minutes served by two attempts", 0, clash, "0", clash == 0)
    lost = one(con, """select count(*) from busy b left join util u on u.ip = b.ip and u.m = b.m
        where u.m is null and b.m between (select m0 from util_stats) and (select m1 from util_stats)""")
    r.add("allocated GPU-minutes without a utilization row", 0, lost, "0", lost == 0)


def check_dst(con, r):
    pdt, pst, rep = q(con, "select pdt, pst, repeated from util_stats")[0]
    r.add("utilization rows with PDT / PST", "both", f"{pdt} / {pst}", "> 0 each", pdt > 0 and pst > 0)
    r.add("repeated 01:xx hour on 2017-11-05 as PDT and PST", 2, rep, "2", rep == 2)


def main():
    args = sys.argv[1:]
    as_json = "--json" in args
    scale = None
    if "--scale" in args:
        scale = float(args[args.index("--scale") + 1])
    d = [a for a in args if not a.startswith("--") and a != (str(scale) if scale else None)][0]
    con = duckdb.connect()
    con.execute("set preserve_insertion_order = false")
    sample = load(con, d)
    r = Report()
    n = check_counts(con, r, scale)
    check_status(con, r, n)
    check_runtimes(con, r)
    check_sizes(con, r, n)
    check_util(con, r, sample)
    check_placements(con, r)
    check_dst(con, r)
    r.finish(as_json, (72, 22, 22, 28))


if __name__ == "__main__":
    main()
