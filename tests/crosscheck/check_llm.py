#!/usr/bin/env python3
"""Cross-checks the AcmeTrace and spot-GPU rows of a tracelab store against the raw files.

Usage: check_llm.py RAW_DIR STORE_DIR   (also called by check_store.py)

Raw side: Python's standard library only (csv, datetime, gzip, tarfile), written from the owners'
READMEs, not from tracelab's code:
- AcmeTrace (InternLM/AcmeTrace README): `trace_seren.csv` / `trace_kalos.csv`, stamps ISO 8601
  with their own UTC offset; state COMPLETED -> completed, CANCELLED -> killed, FAILED / TIMEOUT /
  NODE_FAIL -> failed (README note 1); the unified queue and run are start - submit and
  end - start (Kalos' own `duration` column is end - submit).
- spot-GPU trace (alibaba/clusterdata cluster-trace-v2026-spot-gpu README): `job_info_df.csv`
  and `node_info_df.csv`; submit_time is seconds from the first submission, which tracelab dates
  at 2024-03-01 00:00 Asia/Shanghai (the owners' simulator's origin); a job asks
  worker_num x gpu_request GPUs and worker_num x cpu_request CPUs; no state is recorded.

Store side: DuckDB reading the Parquet files. Every column of every unified row of these traces,
and every column of acme/jobs, spot/jobs and spot/nodes, is compared with the value worked out
from its raw line; rows written + rows rejected = raw records. Exits 1 listing the mismatches.
"""
import csv
import gzip
import io
import sys
import tarfile
from datetime import datetime, timezone
from pathlib import Path

import duckdb

ORIGIN = datetime(2024, 2, 29, 16, 0, tzinfo=timezone.utc).timestamp()  # 2024-03-01 00:00 +08:00
ACME_FILES = {"trace_seren.csv": "Seren", "trace_kalos.csv": "Kalos"}
SPOT_FILES = ("job_info_df.csv", "node_info_df.csv")
STATUS = {"COMPLETED": "completed", "CANCELLED": "killed", "FAILED": "failed", "TIMEOUT": "failed",
          "NODE_FAIL": "failed"}
failures = []
checks = 0


def check(name, raw, store):
    global checks
    checks += 1
    same = raw == store or (isinstance(raw, float) and isinstance(store, float) and abs(raw - store) <= 1e-9 * max(1.0, abs(raw)))
    if not same:
        failures.append(f"{name}: raw {raw!r} != store {store!r}")


def raw_csvs(raw_dir, names):
    """{plain name: text} for the files named, plain, .gz or inside <stem>.tar.gz (plain wins)."""
    found = {}
    for p in sorted(raw_dir.rglob("*")):
        if not p.is_file() or any(part.startswith(".") for part in p.relative_to(raw_dir).parts):
            continue
        if p.name in names:
            found[p.name] = p.read_text()
        elif p.name.endswith(".gz") and p.name[:-3] in names and not p.name.endswith(".tar.gz"):
            found.setdefault(p.name[:-3], gzip.open(p).read().decode())
        elif p.name.endswith(".tar.gz") and p.name[:-7] + ".csv" in names:
            with tarfile.open(p) as t:
                for m in t.getmembers():
                    if m.isfile() and m.name.split("/")[-1] in names:
                        found.setdefault(m.name.split("/")[-1], t.extractfile(m).read().decode())
    return found


def epoch(text):
    return None if text == "" else datetime.fromisoformat(text).timestamp()


def num(text):
    return None if text == "" else float(text)


def rows_of(con, sql):
    cur = con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def rejects(con, store, trace, table):
    return con.execute(f"select count(*) from '{store / trace / 'rejects.parquet'}' where \"table\" = '{table}'").fetchone()[0]


def compare(label, want, got, key_cols):
    """want, got: lists of dicts; every stored row must equal its raw row."""
    raw = {tuple(r[k] for k in key_cols): r for r in want}
    for row in got:
        key = tuple(row[k] for k in key_cols)
        if key not in raw:
            failures.append(f"{label}: stored row {key} has no raw record")
            continue
        for col, value in raw[key].items():
            check(f"{label} {key} {col}", value, row[col])


TS = lambda c: f"epoch_us({c}) / 1e6 as {c}"


def acme_expected(cluster, r):
    submit, start, end = epoch(r["submit_time"]), epoch(r["start_time"]), epoch(r["end_time"])
    table = {
        "cluster": cluster, "job_id": r["job_id"], "user": r["user"], "nodes": int(float(r["node_num"])),
        "gpus": int(float(r["gpu_num"])), "cpus": int(float(r["cpu_num"])),
        "mem_per_pod_gb": num(r.get("mem_per_pod_GB", "")), "shared_mem_per_pod": num(r.get("shared_mem_per_pod", "")),
        "job_type": r["type"], "state": r["state"], "submit_time": submit, "start_time": start, "end_time": end,
        "fail_time": epoch(r.get("fail_time", "")), "stop_time": epoch(r.get("stop_time", "")),
        "run_s": num(r["duration"]), "queue_s": num(r["queue"]), "gpu_time_s": num(r["gpu_time"]),
    }
    unified = {
        "trace": "acme", "cluster": cluster, "job_id": r["job_id"], "user": r["user"], "group": None,
        "submit_time": submit, "start_time": start, "end_time": end,
        "queue_s": None if start is None else start - submit,
        "run_s": None if start is None or end is None else end - start,
        "gpus_requested": float(r["gpu_num"]), "cpus_requested": float(r["cpu_num"]),
        "instances": int(float(r["node_num"])), "status": STATUS[r["state"]], "status_raw": r["state"],
    }
    return table, unified


def check_acme(con, raw_dir, store):
    files = raw_csvs(raw_dir, ACME_FILES)
    tables, unified, total = [], [], 0
    for name, text in files.items():
        for r in csv.DictReader(io.StringIO(text)):
            total += 1
            t, u = acme_expected(ACME_FILES[name], r)
            tables.append(t)
            unified.append(u)
    jobs = store / "acme" / "jobs.parquet"
    stored = rows_of(con, f"select * exclude (submit_time, start_time, end_time, fail_time, stop_time), "
                          f"{TS('submit_time')}, {TS('start_time')}, {TS('end_time')}, {TS('fail_time')}, "
                          f"{TS('stop_time')} from '{jobs}'")
    check("acme/jobs rows + rejects", total, len(stored) + rejects(con, store, "acme", "jobs"))
    compare("acme/jobs", tables, stored, ("cluster", "job_id"))
    got = rows_of(con, f"select * exclude (submit_time, start_time, end_time), {TS('submit_time')}, "
                       f"{TS('start_time')}, {TS('end_time')} from '{store / 'jobs.parquet'}' where trace = 'acme'")
    check("unified acme rows", len(stored), len(got))
    compare("unified acme", unified, got, ("cluster", "job_id"))


def spot_expected(r):
    workers, gpu, cpu = int(float(r["worker_num"])), float(r["gpu_request"]), float(r["cpu_request"])
    submit = ORIGIN + float(r["submit_time"])
    table = {
        "job_name": r["job_name"], "organization": r["organization"], "gpu_model": r["gpu_model"],
        "cpu_request": cpu, "gpu_request": gpu, "workers": workers, "gpus": workers * gpu,
        "submit_s": float(r["submit_time"]), "submit_time": submit, "duration_s": float(r["duration"]),
        "job_type": r["job_type"],
    }
    unified = {
        "trace": "spot", "cluster": "spot", "job_id": r["job_name"], "user": None, "group": r["organization"],
        "submit_time": submit, "start_time": None, "end_time": None, "queue_s": None,
        "run_s": float(r["duration"]), "gpus_requested": workers * gpu, "cpus_requested": workers * cpu,
        "instances": workers, "status": "unknown", "status_raw": "unrecorded",
    }
    return table, unified


def check_spot(con, raw_dir, store):
    files = raw_csvs(raw_dir, SPOT_FILES)
    jobs = list(csv.DictReader(io.StringIO(files["job_info_df.csv"])))
    expected = [spot_expected(r) for r in jobs]
    pq = store / "spot" / "jobs.parquet"
    stored = rows_of(con, f"select * exclude (submit_time), {TS('submit_time')} from '{pq}'")
    check("spot/jobs rows + rejects", len(jobs), len(stored) + rejects(con, store, "spot", "jobs"))
    compare("spot/jobs", [e[0] for e in expected], stored, ("job_name",))
    got = rows_of(con, f"select * exclude (submit_time, start_time, end_time), {TS('submit_time')}, "
                       f"{TS('start_time')}, {TS('end_time')} from '{store / 'jobs.parquet'}' where trace = 'spot'")
    check("unified spot rows", len(stored), len(got))
    compare("unified spot", [e[1] for e in expected], got, ("job_id",))
    if "node_info_df.csv" in files:
        nodes = list(csv.DictReader(io.StringIO(files["node_info_df.csv"])))
        want = [{"node_name": r["node_name"], "gpu_model": r["gpu_model"], "gpus": int(float(r["gpu_capacity_num"])),
                 "cpus": int(float(r["cpu_num"]))} for r in nodes]
        stored = rows_of(con, f"select * from '{store / 'spot' / 'nodes.parquet'}'")
        check("spot/nodes rows + rejects", len(nodes), len(stored) + rejects(con, store, "spot", "nodes"))
        compare("spot/nodes", want, stored, ("node_name",))


def run(raw_dir, store):
    """Runs the checks of the traces the store holds; returns (checks, failures)."""
    con = duckdb.connect()
    if (store / "acme" / "manifest.json").exists():
        check_acme(con, raw_dir, store)
    if (store / "spot" / "manifest.json").exists():
        check_spot(con, raw_dir, store)
    return checks, failures


def main():
    n, bad = run(Path(sys.argv[1]), Path(sys.argv[2]))
    if bad:
        print("\n".join(bad[:50]))
        sys.exit(1)
    print(f"{n} checks passed")


if __name__ == "__main__":
    main()
