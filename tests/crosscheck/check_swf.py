#!/usr/bin/env python3
"""Cross-checks the SWF rows of a tracelab store against the SWF logs, with a second engine.

Usage: check_swf.py RAW_DIR STORE_DIR

Raw side: Python's standard library only (gzip), reading every `*.swf` / `*.swf.gz` of RAW_DIR
from the format document (Feitelson et al., "The Standard Workload Format", v2.2): `;` lines are
comments (`; UnixStartTime: N` is the log's start in Unix time), data lines are 18
whitespace-separated fields, -1 means unknown; a job is its summary record (status other than
the partial-execution codes 2, 3, 4). Not written from tracelab's code.

Store side: DuckDB reading `jobs.parquet` (the unified table) and `swf/jobs.parquet`. Every
column of every SWF row of the unified table is compared with the value worked out from the raw
line. Exits 1 listing the mismatches; prints the number of checks on success.
"""
import gzip
import sys
from pathlib import Path

import duckdb

STATUS = {1: "completed", 0: "failed", 5: "killed"}
failures = []
checks = 0


def check(name, raw, store):
    global checks
    checks += 1
    if raw != store:
        failures.append(f"{name}: raw {raw!r} != store {store!r}")


def read_log(path):
    """(UnixStartTime or 0, [(line number, 18 numbers with None for -1)])."""
    data = gzip.open(path).read() if path.name.endswith(".gz") else path.read_bytes()
    start, records = 0, []
    for no, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        text = line.strip()
        if text.startswith(";"):
            key, _, value = text[1:].partition(":")
            if key.strip() == "UnixStartTime" and value.strip().lstrip("-").isdigit():
                start = max(int(value.strip()), 0)
        elif text:
            fields = [float(f) for f in text.split()]
            assert len(fields) == 18, f"{path.name}:{no}: {len(fields)} fields"
            records.append((no, [None if f == -1 else f for f in fields]))
    return start, records


def expected_row(stem, start, f):
    """The unified row of a summary record, worked out from the format's definitions."""
    submit = None if f[1] is None else start + int(f[1])
    begin = None if submit is None or f[2] is None else submit + int(f[2])
    end = None if begin is None or f[3] is None else begin + int(f[3])
    procs = f[7] if f[7] is not None else f[4]
    status = -1 if f[10] is None else int(f[10])
    text = lambda v: None if v is None else str(int(v))
    return {
        "trace": "swf", "cluster": stem, "job_id": str(int(f[0])), "user": text(f[11]),
        "group": text(f[12]), "submit": submit, "start": begin, "end": end,
        "queue_s": f[2], "run_s": f[3], "gpus_requested": None, "cpus_requested": procs,
        "instances": None, "status": STATUS.get(status, "unknown"), "status_raw": str(status),
    }


def main():
    raw_dir, store = Path(sys.argv[1]), Path(sys.argv[2])
    con = duckdb.connect()
    logs = sorted(p for p in raw_dir.rglob("*") if p.name.endswith((".swf", ".swf.gz")))
    assert logs, f"no SWF log in {raw_dir}"
    columns = ("trace, cluster, job_id, \"user\", \"group\", epoch(submit_time)::bigint, "
               "epoch(start_time)::bigint, epoch(end_time)::bigint, queue_s, run_s, gpus_requested, "
               "cpus_requested, instances, status, status_raw")
    names = ["trace", "cluster", "job_id", "user", "group", "submit", "start", "end", "queue_s", "run_s",
             "gpus_requested", "cpus_requested", "instances", "status", "status_raw"]
    for log in logs:
        stem = log.name.removesuffix(".gz").removesuffix(".swf")
        start, records = read_log(log)
        summaries = [f for _, f in records if f[10] not in (2.0, 3.0, 4.0)]
        got = con.execute(
            f"select {columns} from '{store}/jobs.parquet' where trace = 'swf' and cluster = ? "
            "order by cast(job_id as bigint)", [stem]).fetchall()
        check(f"{stem}: unified rows", len(summaries), len(got))
        check(f"{stem}: swf/jobs rows", len(records),
              con.execute(f"select count(*) from '{store}/swf/jobs.parquet' where cluster = ?", [stem]).fetchone()[0])
        for f, row in zip(sorted(summaries, key=lambda f: f[0]), got):
            want = expected_row(stem, start, f)
            for name, value in zip(names, row):
                check(f"{stem} job {want['job_id']} {name}", want[name], value)
    if failures:
        print(f"{len(failures)} of {checks} checks failed:", *failures[:50], sep="\n")
        sys.exit(1)
    print(f"{checks} checks passed")


if __name__ == "__main__":
    main()
