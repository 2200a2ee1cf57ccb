-- name: busiest-windows
-- question: In which hours was the most GPU demand submitted? Windows are UTC
--   calendar hours; demand is the sum of GPUs requested by the jobs submitted in it.
-- tables: jobs
-- param: trace pai|philly|helios = philly: the trace
-- param: top int = 10: how many windows to list
WITH submitted AS (
    SELECT
        CAST(submit_time AS DATE) AS day_utc,
        EXTRACT(HOUR FROM submit_time) AS hour_utc,
        gpus_requested
    FROM jobs
    WHERE trace = $trace AND submit_time IS NOT NULL
)
SELECT
    day_utc,
    hour_utc,
    COUNT(*) AS jobs,
    SUM(gpus_requested) AS gpus_submitted,
    MAX(gpus_requested) AS largest_job_gpus
FROM submitted
GROUP BY day_utc, hour_utc
ORDER BY gpus_submitted DESC NULLS LAST, jobs DESC, day_utc, hour_utc
LIMIT $top
