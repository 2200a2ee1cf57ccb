-- name: helios-usage-by-vc
-- question: Per Helios cluster and virtual cluster: how many jobs and GPU jobs,
--   how many users, and how many GPU-hours (GPUs x duration)?
-- tables: helios_jobs
-- param: cluster all|Earth|Saturn|Uranus|Venus = all: one cluster, or all of them

-- Two steps: one row per (cluster, VC, user) first, then per (cluster, VC).
-- Counting users is then counting rows, and the per-job CASE and product
-- are summed once per user instead of per VC. GPU-time is summed in whole
-- milliseconds (Helios records whole seconds, so nothing is rounded away; a
-- finer duration would be rounded to the millisecond): integer sums are
-- exact in any order, so every engine that runs this file (DuckDB and Spark
-- on many threads) gives the same hours to the last bit.
WITH per_user AS (
    SELECT
        cluster,
        vc,
        "user",
        COUNT(*) AS jobs,
        SUM(CASE WHEN gpus > 0 THEN 1 ELSE 0 END) AS gpu_jobs,
        SUM(gpus * CAST(ROUND(run_s * 1000) AS BIGINT)) AS gpu_ms
    FROM helios_jobs
    WHERE $cluster = 'all' OR cluster = $cluster
    GROUP BY cluster, vc, "user"
)
SELECT
    cluster,
    vc,
    SUM(jobs) AS jobs,
    SUM(gpu_jobs) AS gpu_jobs,
    COUNT("user") AS users,
    CAST(SUM(gpu_ms) AS DOUBLE) / 3.6e6 AS gpu_hours
FROM per_user
GROUP BY cluster, vc
ORDER BY cluster, gpu_hours DESC NULLS LAST, vc
