-- name: trace-overview
-- question: The traces side by side: jobs, users, GPU jobs, outcome shares,
--   median queueing delay and run time, and total GPU-hours.
-- tables: jobs

-- Jobs are counted per (trace, user, status) first: the status names are then
-- compared once per group instead of three times per job, and the users are
-- counted over those groups. GPU-time is summed in hundredths of a GPU times
-- whole milliseconds (see top-users-by-gpu-hours), so every sum is of whole
-- numbers, exact in any order.
WITH per_user AS (
    SELECT
        trace,
        "user",
        status,
        COUNT(*) AS jobs,
        SUM(CASE WHEN gpus_requested > 0 THEN 1 ELSE 0 END) AS gpu_jobs,
        SUM(CAST(ROUND(gpus_requested * 100) AS BIGINT) * CAST(ROUND(run_s * 1000) AS BIGINT)) AS centi_gpu_ms
    FROM jobs
    GROUP BY trace, "user", status
),
per_trace AS (
    SELECT
        trace,
        SUM(jobs) AS jobs,
        COUNT(DISTINCT "user") AS users,
        SUM(gpu_jobs) AS gpu_jobs,
        SUM(CASE WHEN status = 'completed' THEN jobs ELSE 0 END) AS completed,
        SUM(CASE WHEN status = 'failed' THEN jobs ELSE 0 END) AS failed,
        SUM(CASE WHEN status = 'killed' THEN jobs ELSE 0 END) AS killed,
        SUM(centi_gpu_ms) AS centi_gpu_ms
    FROM per_user
    GROUP BY trace
),
medians AS (
    SELECT
        trace,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY queue_s) AS p50_queue_s,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY run_s) AS p50_run_s
    FROM jobs
    GROUP BY trace
)
SELECT
    t.trace,
    t.jobs,
    t.users,
    t.gpu_jobs,
    CAST(t.completed AS DOUBLE) / t.jobs AS completed_rate,
    CAST(t.failed AS DOUBLE) / t.jobs AS failed_rate,
    CAST(t.killed AS DOUBLE) / t.jobs AS killed_rate,
    m.p50_queue_s,
    m.p50_run_s,
    CAST(t.centi_gpu_ms AS DOUBLE) / 3.6e8 AS gpu_hours
FROM per_trace AS t
JOIN medians AS m ON m.trace = t.trace
ORDER BY t.trace
