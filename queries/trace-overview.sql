-- name: trace-overview
-- question: The traces side by side: jobs, users, GPU jobs, outcome shares,
--   median queueing delay and run time, and total GPU-hours.
-- tables: jobs
SELECT
    trace,
    COUNT(*) AS jobs,
    COUNT(DISTINCT "user") AS users,
    SUM(CASE WHEN gpus_requested > 0 THEN 1 ELSE 0 END) AS gpu_jobs,
    CAST(SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*) AS completed_rate,
    CAST(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*) AS failed_rate,
    CAST(SUM(CASE WHEN status = 'killed' THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*) AS killed_rate,
    quantile_cont(queue_s, 0.5) AS p50_queue_s,
    quantile_cont(run_s, 0.5) AS p50_run_s,
    SUM(gpus_requested * run_s) / 3600.0 AS gpu_hours
FROM jobs
GROUP BY trace
ORDER BY trace
