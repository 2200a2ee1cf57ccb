"""Loads `tracelab analyze helios.cluster-summary --format csv` (the tidy
long table) with pandas, as a user would, and checks it against DuckDB over
the same store: the columns, and per cluster the job counts (all, CPU-only,
GPU) and the GPU-hours split by final status. Prints "tidy table agrees".

Usage: check_tidy.py STORE CSV
"""
import sys

import duckdb
import pandas as pd

store, path = sys.argv[1], sys.argv[2]
df = pd.read_csv(path)
cols = list(df.columns)
assert cols[:4] == ["part", "id", "gpu_num", "job_num"], cols
assert not any(" " in c or "(" in c for c in cols), cols
assert set(df["part"]) == {"summary", "vs-published"}, set(df["part"])
summary = df[df["part"] == "summary"].set_index("id")

want = duckdb.sql(
    f"""SELECT cluster, count(*) AS jobs, count(*) FILTER (WHERE gpus = 0) AS cpu_jobs,
               count(*) FILTER (WHERE gpus > 0) AS gpu_jobs,
               sum(gpus * run_s) FILTER (WHERE state = 'COMPLETED') AS complete_gpu_time
        FROM '{store}/helios/jobs.parquet' GROUP BY cluster"""
).df().set_index("cluster")
assert len(want) >= 2, want
for cluster, row in want.iterrows():
    got = summary.loc[cluster]
    assert int(got["job_num"]) == row["jobs"], (cluster, got["job_num"], row["jobs"])
    assert int(got["cpu_job_num"]) == row["cpu_jobs"], cluster
    assert int(got["gpu_job_num"]) == row["gpu_jobs"], cluster
    assert abs(float(got["complete_gpu_time"]) - float(row["complete_gpu_time"] or 0)) <= 1e-6 * max(1, abs(float(row["complete_gpu_time"] or 0))), cluster
assert int(summary.loc["total", "job_num"]) == int(want["jobs"].sum())
published = df[df["part"] == "vs-published"]
assert published["key"].str.contains(r"\.job_num$").any(), published["key"].head()
assert published["value"].dtype == float and published["published"].notna().all()
print(f"tidy table agrees ({len(want)} clusters, {len(df)} rows)")
