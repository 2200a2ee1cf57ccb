-- name: top-users-by-gpu-hours
-- question: Which users consumed the most GPU-hours in a trace, and how many jobs
--   did they run? GPU-hours = requested GPUs x run time, over finished and running jobs.
-- tables: jobs
-- param: trace pai|philly|helios = helios: the trace whose users are ranked
-- param: top int = 10: how many users to list
-- note: PAI requests may be fractional GPUs (GPU sharing); Philly run time spans retries.

-- Every sum is of whole numbers, exact in any order, so every engine that
-- runs this file (DuckDB and Spark on many threads) gives the same hours to
-- the last bit. GPUs are counted in hundredths (PAI requests whole
-- percents of a GPU, Philly and Helios whole GPUs) and run time in whole
-- milliseconds (the traces record whole seconds), so nothing is rounded away
-- until the hours and the mean are computed from the exact totals. A finer
-- request or duration would be rounded to those units; a 64-bit total holds
-- about 2.9 million GPU-years of them.
WITH units AS (
    SELECT
        "user",
        CASE WHEN gpus_requested > 0 THEN 1 ELSE 0 END AS gpu_job,
        CAST(ROUND(gpus_requested * 100) AS BIGINT) AS centi_gpus,
        CAST(ROUND(run_s * 1000) AS BIGINT) AS run_ms
    FROM jobs
    WHERE trace = $trace
),
per_user AS (
    SELECT
        "user",
        COUNT(*) AS jobs,
        SUM(gpu_job) AS gpu_jobs,
        SUM(centi_gpus * run_ms) AS centi_gpu_ms,
        SUM(centi_gpus) AS centi_gpus,
        COUNT(centi_gpus) AS requests
    FROM units
    GROUP BY "user"
)
SELECT
    "user",
    jobs,
    gpu_jobs,
    CAST(centi_gpu_ms AS DOUBLE) / 3.6e8 AS gpu_hours,
    CAST(centi_gpus AS DOUBLE) / 100 / NULLIF(requests, 0) AS mean_gpus
FROM per_user
ORDER BY gpu_hours DESC NULLS LAST, jobs DESC, "user"
LIMIT $top
