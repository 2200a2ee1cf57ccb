#!/usr/bin/env python3
"""Cross-checks a tracelab store against the raw trace files with a second engine.

Usage: check_store.py RAW_DIR STORE_DIR

Raw side: Python's standard library only (csv, json, zoneinfo, tarfile, zipfile), written
from the owners' README semantics, not from tracelab's code. Store side: DuckDB reading the
Parquet files. Every count, sum and converted time must agree (rows written + rows rejected =
raw records). Exits 1 listing the mismatches; prints the number of checks on success.
"""
import csv
import io
import json
import sys
import tarfile
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_llm  # noqa: E402

LA = ZoneInfo("America/Los_Angeles")
failures = []
checks = 0


def check(name, raw, store, tol=0.0):
    global checks
    checks += 1
    ok = raw == store if tol == 0 else abs(raw - store) <= tol * max(1.0, abs(raw))
    if not ok:
        failures.append(f"{name}: raw {raw!r} != store {store!r}")


def raw_files(raw_dir):
    """(relative name, bytes) of every file, looking inside .tar.gz and .zip archives."""
    for p in sorted(raw_dir.rglob("*")):
        if not p.is_file() or any(part.startswith(".") for part in p.relative_to(raw_dir).parts):
            continue
        if p.name.endswith(".tar.gz"):
            with tarfile.open(p) as t:
                for m in t.getmembers():
                    if m.isfile():
                        yield m.name, t.extractfile(m).read()
        elif p.name.endswith(".zip"):
            with zipfile.ZipFile(p) as z:
                for n in z.namelist():
                    if not n.endswith("/"):
                        yield n, z.read(n)
        else:
            yield str(p.relative_to(raw_dir)), p.read_bytes()


def find(raw_dir, predicate):
    """The first file whose path satisfies predicate; plain files win over archive members."""
    found = [(n, b) for n, b in raw_files(raw_dir) if predicate(n)]
    return found


def lines(data):
    return [l for l in data.decode().split("\n") if l != ""]


def q(con, sql):
    return con.execute(sql).fetchone()[0]


def rejected(con, store, trace, table):
    p = store / trace / "rejects.parquet"
    return q(con, f"select count(*) from '{p}' where \"table\" = '{table}'")


def epoch_or_none(v):
    return None if v in ("", None) else float(v)


def check_pai(con, raw_dir, store):
    tables = {"job": "pai_job_table", "task": "pai_task_table", "instance": "pai_instance_table",
              "sensor": "pai_sensor_table", "group_tag": "pai_group_tag_table",
              "machine_spec": "pai_machine_spec", "machine_metric": "pai_machine_metric"}
    for table, stem in tables.items():
        files = find(raw_dir, lambda n, s=stem: n.rsplit("/", 1)[-1] == f"{s}.csv")
        if not files:
            continue
        rows = list(csv.reader(io.StringIO(files[0][1].decode())))
        pq = store / "pai" / f"{table}.parquet"
        check(f"pai/{table} rows", len(rows), q(con, f"select count(*) from '{pq}'") + rejected(con, store, "pai", table))
        if rejected(con, store, "pai", table):
            continue
        if table == "task":
            want = sum(float(r[6]) for r in rows if r[6] != "")
            check("pai/task sum(plan_cpu)", want, q(con, f"select coalesce(sum(plan_cpu_pct), 0) from '{pq}'"), 1e-9)
            want = sum(float(r[2]) * float(r[8]) / 100 for r in rows if r[8] != "")
            check("pai/task sum(inst_num*plan_gpu/100)", want,
                  q(con, f"select coalesce(sum(inst_num * plan_gpu_pct / 100), 0) from '{pq}'"), 1e-9)
        if table in ("job", "task", "instance"):
            col = 6 if table == "instance" else 4
            starts = [float(r[col]) for r in rows if r[col] != ""]
            starts = [s for s in starts if s > 0]
            if starts:
                check(f"pai/{table} min(start_time) epoch", min(starts), q(con, f"select epoch(min(start_time)) from '{pq}'"))
                # Offsets are shown in Asia/Shanghai with their true time of day (README).
                local = datetime.fromtimestamp(min(starts), ZoneInfo("Asia/Shanghai"))
                hour = q(con, f"select hour(timezone('Asia/Shanghai', min(start_time))) from '{pq}'")
                check(f"pai/{table} hour of day of first start (UTC+8)", local.hour, hour)
        if table == "instance":
            want = sum(float(r[7]) - float(r[6]) for r in rows if r[6] not in ("", "0", "0.0") and r[7] not in ("", "0", "0.0"))
            check("pai/instance sum(run_s)", want, q(con, f"select coalesce(sum(run_s), 0) from '{pq}'"), 1e-9)
        if table == "machine_spec":
            check("pai/machine_spec sum(cap_gpu)", sum(int(r[4]) for r in rows), q(con, f"select sum(cap_gpu) from '{pq}'"))


def la_epoch(s):
    if s in (None, "", "None"):
        return None
    dt = datetime.strptime(s, "%Y-%m-%d %H:%M:%S").replace(tzinfo=LA, fold=0)
    return dt.timestamp()


def util_epoch(s):
    naive, zone = s[:19], s[20:]
    offset = {"PDT": 7, "PST": 8}[zone]
    return datetime.strptime(naive, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc).timestamp() + offset * 3600


def check_philly(con, raw_dir, store):
    d = store / "philly"
    logs = find(raw_dir, lambda n: n.rsplit("/", 1)[-1] == "cluster_job_log")
    jobs = json.loads(logs[0][1])
    bad = rejected(con, store, "philly", "jobs")
    check("philly/jobs rows", len(jobs), q(con, f"select count(*) from '{d}/jobs.parquet'") + bad)
    if bad == 0:
        attempts = sum(len(j.get("attempts") or []) for j in jobs)
        gpus = sum(len(m["gpus"]) for j in jobs for a in (j.get("attempts") or []) for m in (a.get("detail") or []))
        check("philly/attempts rows", attempts, q(con, f"select count(*) from '{d}/attempts.parquet'"))
        check("philly/placements rows", gpus, q(con, f"select count(*) from '{d}/placements.parquet'"))
        check("philly/jobs sum(submit epoch)", sum(la_epoch(j["submitted_time"]) for j in jobs),
              q(con, f"select sum(epoch(submit_time)) from '{d}/jobs.parquet'"), 1e-12)
        starts = [la_epoch((j.get("attempts") or [{}])[0].get("start_time")) for j in jobs if j.get("attempts")]
        starts = [s for s in starts if s is not None]
        check("philly/jobs count(first_start)", len(starts), q(con, f"select count(first_start_time) from '{d}/jobs.parquet'"))
        ones = sum(1 for j in jobs if j.get("attempts") and
                   sum(len(m["gpus"]) for m in (j["attempts"][0].get("detail") or [])) == 1)
        check("philly/jobs 1-GPU jobs (first attempt)", ones, q(con, f"select count(*) from '{d}/jobs.parquet' where gpus = 1"))
    for stem, table, ncols in (("cluster_gpu_util", "gpu_util", 8), ("cluster_cpu_util", "cpu_util", 1),
                               ("cluster_mem_util", "mem_util", 2)):
        files = find(raw_dir, lambda n, s=stem: n.rsplit("/", 1)[-1] == s)
        if not files:
            continue
        rows = lines(files[0][1])[1:]
        pq = d / f"{table}.parquet"
        nrej = rejected(con, store, "philly", table)
        check(f"philly/{table} rows", len(rows), q(con, f"select count(*) from '{pq}'") + nrej)
        if nrej:
            continue
        fields = [r.split(",") for r in rows]
        epochs = [util_epoch(f[0]) for f in fields]
        check(f"philly/{table} sum(time epoch)", sum(epochs), q(con, f"select coalesce(sum(epoch(time)), 0) from '{pq}'"), 1e-12)
        check(f"philly/{table} PST rows", sum(1 for f in fields if f[0].endswith("PST")),
              q(con, f"select count(*) from '{pq}' where time >= TIMESTAMPTZ '2017-11-05 09:00:00+00'"))
        na = sum(1 for f in fields for v in f[2:2 + ncols] if v in ("NA", ""))
        cols = [c for c in q(con, f"select string_agg(column_name, ',') from (describe select * from '{pq}')").split(",")
                if c.endswith("_pct") or c.endswith("_kib")]
        nulls = q(con, "select " + " + ".join(f"count(*) - count({c})" for c in cols) + f" from '{pq}'")
        check(f"philly/{table} NA cells", na, nulls)
    machines = find(raw_dir, lambda n: n.rsplit("/", 1)[-1] == "cluster_machine_list")
    if machines:
        rows = lines(machines[0][1])[1:]
        check("philly/machines sum(gpus)", sum(int(r.split(",")[1]) for r in rows),
              q(con, f"select sum(gpus) from '{d}/machines.parquet'"))


STATE = {"COMPLETED": "completed", "CANCELLED": "killed", "FAILED": "failed", "TIMEOUT": "failed",
         "NODE_FAIL": "failed"}


def check_helios(con, raw_dir, store):
    d = store / "helios"
    bad = rejected(con, store, "helios", "jobs")
    total, states = 0, {}
    for name, data in find(raw_dir, lambda n: n.endswith("/cluster_log.csv")):
        cluster = name.split("/")[-2]
        rows = list(csv.DictReader(io.StringIO(data.decode())))
        total += len(rows)
        if bad == 0:
            check(f"helios/jobs {cluster} rows", len(rows),
                  q(con, f"select count(*) from '{d}/jobs.parquet' where cluster = '{cluster}'"))
            check(f"helios/jobs {cluster} sum(gpu_num)", sum(int(r["gpu_num"]) for r in rows),
                  q(con, f"select coalesce(sum(gpus), 0) from '{d}/jobs.parquet' where cluster = '{cluster}'"))
            # Naive times are Asia/Shanghai wall clock (UTC+8).
            want = sum(datetime.strptime(r["submit_time"], "%Y-%m-%d %H:%M:%S")
                       .replace(tzinfo=ZoneInfo("Asia/Shanghai")).timestamp() for r in rows)
            check(f"helios/jobs {cluster} sum(submit epoch)", want,
                  q(con, f"select coalesce(sum(epoch(submit_time)), 0) from '{d}/jobs.parquet' where cluster = '{cluster}'"), 1e-12)
            for r in rows:
                s = STATE.get(r["state"], "unknown")
                states[s] = states.get(s, 0) + 1
    check("helios/jobs rows", total, q(con, f"select count(*) from '{d}/jobs.parquet'") + bad)
    for name, data in find(raw_dir, lambda n: n.endswith("/cluster_gpu_number.csv")):
        cluster = name.split("/")[-2]
        rows = list(csv.reader(io.StringIO(data.decode())))
        want = sum(int(v) for r in rows[1:] for v in r[1:-1])
        check(f"helios/vc_gpus {cluster} sum(gpus)", want,
              q(con, f"select coalesce(sum(gpus), 0) from '{d}/vc_gpus.parquet' where cluster = '{cluster}'"))
    return states if bad == 0 else None


def main():
    raw_dir, store = Path(sys.argv[1]), Path(sys.argv[2])
    con = duckdb.connect()
    helios_states = None
    if (store / "pai" / "manifest.json").exists():
        check_pai(con, raw_dir, store)
    if (store / "philly" / "manifest.json").exists():
        check_philly(con, raw_dir, store)
    if (store / "helios" / "manifest.json").exists():
        helios_states = check_helios(con, raw_dir, store)
    unified = store / "jobs.parquet"
    for trace, table in (("pai", "job"), ("philly", "jobs"), ("helios", "jobs")):
        pq = store / trace / f"{table}.parquet"
        if pq.exists():
            check(f"unified rows of {trace}", q(con, f"select count(*) from '{pq}'"),
                  q(con, f"select count(*) from '{unified}' where trace = '{trace}'"))
    if helios_states:
        for status, n in sorted(helios_states.items()):
            check(f"unified helios status {status}", n,
                  q(con, f"select count(*) from '{unified}' where trace = 'helios' and status = '{status}'"))
    # AcmeTrace and the spot-GPU trace: every column of every row (check_llm.py).
    global checks
    llm_checks, llm_failures = check_llm.run(raw_dir, store)
    checks += llm_checks
    failures.extend(llm_failures)
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"{checks} checks passed")


if __name__ == "__main__":
    main()
