-- name: helios-usage-by-vc
-- question: Per Helios cluster and virtual cluster: how many jobs and GPU jobs,
--   how many users, and how many GPU-hours (GPUs x duration)?
-- tables: helios_jobs
-- param: cluster all|Earth|Saturn|Uranus|Venus = all: one cluster, or all of them
-- engine: streaming

-- Two steps: one row per (cluster, VC, user) first, then per (cluster, VC).
-- Counting users is then counting rows, and the per-job CASE and product
-- are summed once per user instead of per VC. At full scale this takes
-- about a third less CPU and wall time than one GROUP BY with
-- COUNT(DISTINCT "user") on the in-memory engine.
-- The same bytes on every run, although the streaming engine's threads
-- take the rows in a different order each time: GPU-time is summed in whole
-- milliseconds (Helios records whole seconds, so nothing is rounded away; a
-- finer duration would be rounded to the millisecond), and integer sums are
-- exact in any order. The hours are the milliseconds times 1 / 3,600,000
-- rather than divided by 3,600,000: Polars divides a column by a constant
-- either exactly or as a product with the reciprocal, depending on how the
-- rows arrive in pieces, and the two can differ in the last bit.
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
    SUM(gpu_ms) * (1 / 3600000.0) AS gpu_hours
FROM per_user
GROUP BY cluster, vc
ORDER BY cluster, gpu_hours DESC NULLS LAST, vc
