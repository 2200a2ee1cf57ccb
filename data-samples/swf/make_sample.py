#!/usr/bin/env python3
"""Writes the synthetic SWF sample of data-samples/swf/ (a log in the Parallel Workloads Archive's
Standard Workload Format 2.2), deterministic for its seed.

Run from the repository root:  python3 data-samples/swf/make_sample.py
It rewrites data-samples/swf/synthetic-cluster.swf.gz (the committed file was made by this script;
it is not run by the tests).

The log: 30 days of a 256-processor machine, jobs submitted with a day/night cycle and a weekday
excess, processors in powers of two, log-normal run times, log-normal waits, longer for wider jobs and in the afternoon, users
drawn with a heavy head (a few users submit most jobs), and every field the format defines filled
or -1 as its archive logs do: status 1 (completed) for most jobs, 0 (failed) and 5 (cancelled,
some before they started, with run time 0) for the rest. Only Python's standard library is used.
"""
import gzip
import math
import random
from pathlib import Path

SEED = 20261124
DAYS = 30
PROCS = 256
# 2020-03-02 00:00:00 America/Los_Angeles (a Monday), as Unix seconds.
START = 1583136000
OUT = Path(__file__).resolve().parent / "synthetic-cluster.swf.gz"


def arrivals(rng):
    """Submit offsets (seconds): a Poisson process whose rate follows the hour of day and weekday."""
    t, out = 0.0, []
    while t < DAYS * 86400:
        hour = (t / 3600) % 24
        weekday = int(t // 86400) % 7 < 5
        rate = (0.6 + 0.9 * math.exp(-(((hour - 14) / 4.0) ** 2))) * (1.0 if weekday else 0.45)
        t += rng.expovariate(rate * 6 / 3600)  # about 6 jobs an hour at the daytime peak
        out.append(int(t))
    return [s for s in out if s < DAYS * 86400]


def job(rng, number, submit):
    procs = 2 ** min(int(rng.expovariate(0.55)), 7)
    run = max(1, int(rng.lognormvariate(6.5, 1.8)))
    requested_time = int(run * rng.uniform(1.1, 4.0)) + 60
    # A quarter of the jobs start at once; the others wait a log-normal time, longer for wider jobs
    # and in the afternoon peak, at most three days.
    busy = 1.0 + math.exp(-((((submit / 3600) % 24 - 15) / 3.0) ** 2))
    wait = 0 if rng.random() < 0.25 else min(3 * 86400, int(rng.lognormvariate(4.5, 1.6) * busy * procs ** 0.3))
    status = rng.choices([1, 0, 5], weights=[80, 12, 8])[0]
    if status == 5 and rng.random() < 0.3:
        run, cpu = 0, -1  # cancelled while waiting
    else:
        cpu = round(run * rng.uniform(0.5, 0.98), 1)
    user = min(int(rng.paretovariate(1.2)), 60)
    group = 1 + (user * 7) % 9
    memory = int(rng.lognormvariate(10, 1)) if rng.random() < 0.8 else -1
    return [
        number, submit, wait, run, procs, cpu, memory, procs, requested_time, -1, status,
        user, group, 1 + int(rng.expovariate(0.05)) % 200, rng.choice([1, 1, 2, 3]), 1, -1, -1,
    ]


def header(jobs):
    return [
        "; Version: 2.2",
        "; Computer: synthetic 256-processor cluster",
        "; Installation: tracelab synthetic sample (data-samples/swf/make_sample.py), not a real log",
        f"; MaxJobs: {len(jobs)}",
        f"; MaxRecords: {len(jobs)}",
        "; Preemption: No",
        f"; UnixStartTime: {START}",
        "; TimeZoneString: America/Los_Angeles",
        "; StartTime: Mon Mar 02 00:00:00 PST 2020",
        "; EndTime: Wed Apr 01 00:00:00 PDT 2020",
        f"; MaxNodes: {PROCS}",
        f"; MaxProcs: {PROCS}",
        "; Queues: 1 batch, 2 short, 3 debug",
        "; Partitions: 1 all processors",
        "; Note: synthetic; run times and waits log-normal, status 1 completed, 0 failed, 5 cancelled",
    ]


def main():
    rng = random.Random(SEED)
    jobs = [job(rng, i + 1, s) for i, s in enumerate(arrivals(rng))]
    lines = header(jobs) + [" ".join(str(f) for f in j) for j in jobs]
    OUT.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))
    print(f"{OUT}: {len(jobs)} jobs")


if __name__ == "__main__":
    main()
