#!/usr/bin/env python3
"""Runs the named queries with DuckDB and compares the results with tracelab's.

Usage: check_queries.py STORE QUERIES_DIR RESULTS_DIR

RESULTS_DIR/cases.json lists the cases tracelab ran: [{"case": ..., "query": ..., "params": {...}}];
RESULTS_DIR/<case>.csv is `tracelab query <query> --param ... --format csv` for each.

DuckDB side, written from the store layout in docs/schema.md and the header grammar in
queries/README.md, not from tracelab's code: one view per table over its Parquet file, the
session set up to answer as PostgreSQL does where DuckDB's defaults differ (time zone UTC, since
timestamps are UTC instants; NULLs last ascending and first descending; `/` between integers an
integer division), each `.sql` file run as it is with its `$parameters` bound as DuckDB named
parameters (header defaults, overridden per case).

Compared: column names, row count, then cell by cell: numbers within a relative tolerance of
1e-9, text exactly, timestamps as instants, null = empty field. Rows are compared in order when
the query's final SELECT has an ORDER BY (every named query's ORDER BY is total), otherwise as
sorted multisets. Exits 1 listing the differences; prints the number of cases on success.
"""
import csv
import datetime as dt
import decimal
import json
import re
import sys
from pathlib import Path

import duckdb

# SQL name -> file under the store (docs/schema.md).
TABLES = {
    "pai_jobs": "pai/job", "pai_tasks": "pai/task", "pai_instances": "pai/instance",
    "pai_sensors": "pai/sensor", "pai_group_tags": "pai/group_tag", "pai_machines": "pai/machine_spec",
    "pai_machine_metrics": "pai/machine_metric", "pai_rejects": "pai/rejects",
    "philly_jobs": "philly/jobs", "philly_attempts": "philly/attempts", "philly_placements": "philly/placements",
    "philly_gpu_util": "philly/gpu_util", "philly_cpu_util": "philly/cpu_util", "philly_mem_util": "philly/mem_util",
    "philly_machines": "philly/machines", "philly_rejects": "philly/rejects",
    "helios_jobs": "helios/jobs", "helios_vc_gpus": "helios/vc_gpus", "helios_rejects": "helios/rejects",
    "jobs": "jobs",
}
TOL = 1e-9


def connect(store):
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET default_null_order = 'nulls_last_on_asc_first_on_desc'")
    con.execute("SET integer_division = true")
    for name, rel in TABLES.items():
        path = store / f"{rel}.parquet"
        if path.exists():
            con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    return con


def params_of(sql):
    """{name: (kind, default)} from `-- param: <name> <kind> = <default>: <doc>` header lines."""
    out = {}
    for line in sql.splitlines():
        if not line.startswith("--"):
            break
        m = re.match(r"--\s*param:\s*(\w+)\s+(\S+)\s*=\s*([^:]*):", line)
        if m:
            out[m.group(1)] = (m.group(2), m.group(3).strip())
    return out


def typed(kind, value):
    return int(value) if kind == "int" else float(value) if kind == "float" else value


def ordered(sql):
    """Whether the outermost SELECT has an ORDER BY: drop comments, strings and every
    parenthesized group (CTE bodies, subqueries, function calls), then look."""
    body = re.sub(r"--[^\n]*|'[^']*'", "", sql)
    while True:
        inner = re.sub(r"\([^()]*\)", "", body)
        if inner == body:
            break
        body = inner
    return re.search(r"\border\s+by\b", body, re.I) is not None


def same(want, got):
    """want: a DuckDB value; got: a CSV field from tracelab."""
    if want is None or (isinstance(want, str) and want == ""):
        return got == ""
    if isinstance(want, bool):
        return got == str(want).lower()
    if isinstance(want, (int, float, decimal.Decimal)):
        try:
            g, w = float(got), float(want)
        except ValueError:
            return False
        if w != w:
            return g != g
        return abs(g - w) <= TOL * max(1.0, abs(w))
    if isinstance(want, dt.datetime):
        try:
            g = dt.datetime.fromisoformat(got)
        except ValueError:
            return False
        if want.tzinfo is None:
            want = want.replace(tzinfo=dt.timezone.utc)
        return g == want
    if isinstance(want, dt.date):
        return got == want.isoformat()
    return got == str(want)


def sort_key(row):
    return [("" if v is None else str(v)) for v in row]


def compare(case, cols, want_rows, csv_path, in_order):
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    problems = []
    if not rows or rows[0] != cols:
        return [f"{case}: columns: tracelab {rows[:1]} != duckdb {cols}"]
    got = rows[1:]
    if len(got) != len(want_rows):
        return [f"{case}: rows: tracelab {len(got)} != duckdb {len(want_rows)}"]
    if not in_order:
        want_rows = sorted(want_rows, key=sort_key)
        got = sorted(got, key=lambda r: r)
    for i, (w, g) in enumerate(zip(want_rows, got)):
        for c, wv, gv in zip(cols, w, g):
            if not same(wv, gv):
                problems.append(f"{case}: row {i + 1} column {c}: tracelab {gv!r} != duckdb {wv!r}")
    return problems[:10]


def main():
    store, queries, results = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    con = connect(store)
    cases = json.loads((results / "cases.json").read_text())
    failures = []
    for c in cases:
        sql = (queries / f"{c['query']}.sql").read_text()
        declared = params_of(sql)
        values = {n: typed(k, c["params"].get(n, d)) for n, (k, d) in declared.items()}
        try:
            cur = con.execute(sql, values) if values else con.execute(sql)
            cols = [d[0] for d in cur.description]
            want = cur.fetchall()
        except duckdb.Error as e:
            failures.append(f"{c['case']}: duckdb: {e}")
            continue
        failures += compare(c["case"], cols, want, results / f"{c['case']}.csv", ordered(sql))
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"{len(cases)} cases agree")


if __name__ == "__main__":
    main()
