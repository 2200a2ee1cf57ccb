-- name: top-users-by-gpu-hours
-- question: Which users consumed the most GPU-hours in a trace, and how many jobs
--   did they run? GPU-hours = requested GPUs x run time, over finished and running jobs.
-- tables: jobs
-- param: trace pai|philly|helios = helios: the trace whose users are ranked
-- param: top int = 10: how many users to list
-- note: PAI requests may be fractional GPUs (GPU sharing); Philly run time spans retries.
SELECT
    "user",
    COUNT(*) AS jobs,
    SUM(CASE WHEN gpus_requested > 0 THEN 1 ELSE 0 END) AS gpu_jobs,
    SUM(gpus_requested * run_s) / 3600.0 AS gpu_hours,
    AVG(gpus_requested) AS mean_gpus
FROM jobs
WHERE trace = $trace
GROUP BY "user"
ORDER BY gpu_hours DESC NULLS LAST, jobs DESC, "user"
LIMIT $top
