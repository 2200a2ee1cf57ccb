#!/usr/bin/env python3
"""Runs the named queries on Apache Spark SQL (PySpark, local mode) and compares the results with tracelab's.

Usage: check_spark.py STORE RESULTS_DIR

RESULTS_DIR/cases.json lists the cases tracelab ran: [{"case": ..., "query": ..., "params": {...}}];
RESULTS_DIR/<case>.sql is the query's text with its parameters bound (`tracelab query NAME --param ...
--sql`), and RESULTS_DIR/<case>.csv what `tracelab query` printed for it (`--format csv`).

Spark side, written from the store layout in docs/schema.md, not from tracelab's code: one temporary view
per table over its Parquet file (the same names as in check_queries.py), and each bound text run as it
is with `spark.sql`: this is how a user who outgrows one machine runs the files. The session is set up
as the files' README says: time zone UTC (the store's times are UTC instants), ANSI mode with
double-quoted identifiers (the files quote the columns "user" and "group" as standard SQL does). The
Python process runs in UTC too, so the times Spark hands back are UTC.

Compared as check_queries.py compares DuckDB's results (numbers within 1e-9 relative, times as
instants, NULL = empty field, rows in order). Exits 1 listing the differences; prints the number of
cases on success.
"""
import json
import os
import sys
import time
from pathlib import Path

os.environ["TZ"] = "UTC"
time.tzset()

sys.path.insert(0, str(Path(__file__).parent))
import check_queries  # noqa: E402

from pyspark.sql import SparkSession  # noqa: E402


def session():
    spark = (SparkSession.builder.master("local[2]").appName("tracelab-named-queries")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.ansi.enabled", "true")
             .config("spark.sql.ansi.doubleQuotedIdentifiers", "true")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "4")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main():
    store, results = Path(sys.argv[1]), Path(sys.argv[2])
    spark = session()
    for name, rel in check_queries.TABLES.items():
        path = store / f"{rel}.parquet"
        if path.exists():
            spark.read.parquet(str(path)).createOrReplaceTempView(name)
    cases = json.loads((results / "cases.json").read_text())
    failures = []
    for c in cases:
        sql = (results / f"{c['case']}.sql").read_text()
        try:
            frame = spark.sql(sql)
            cols = frame.columns
            want = [tuple(row) for row in frame.collect()]
        except Exception as e:  # Spark raises many exception types; all are a failure of the case
            failures.append(f"{c['case']}: spark: {str(e).splitlines()[0]}")
            continue
        failures += check_queries.compare(c["case"], cols, want, results / f"{c['case']}.csv", True)
    version = spark.version
    spark.stop()
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"{len(cases)} cases agree with Spark {version}")


if __name__ == "__main__":
    main()
