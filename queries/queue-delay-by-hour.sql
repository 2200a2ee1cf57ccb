-- name: queue-delay-by-hour
-- question: Does queueing delay depend on the hour of day a job is submitted?
--   Jobs and queueing-delay percentiles per local hour of submission.
-- tables: jobs
-- param: trace pai|helios = helios: the trace (both are in Asia/Shanghai, UTC+8 all year)
-- note: the local hour is the UTC hour shifted by 8; Philly is left out because
--   Pacific time has daylight saving (use the analyses for it). Run DuckDB with
--   SET TimeZone = 'UTC' (Spark: spark.sql.session.timeZone=UTC) so EXTRACT works on UTC.
WITH submitted AS (
    SELECT EXTRACT(HOUR FROM submit_time + INTERVAL '8 hours') AS local_hour, queue_s
    FROM jobs
    WHERE trace = $trace AND submit_time IS NOT NULL
)
SELECT
    local_hour,
    COUNT(*) AS jobs,
    percentile_cont(0.5) WITHIN GROUP (ORDER BY queue_s) AS p50_queue_s,
    percentile_cont(0.9) WITHIN GROUP (ORDER BY queue_s) AS p90_queue_s,
    AVG(queue_s) AS mean_queue_s
FROM submitted
GROUP BY local_hour
ORDER BY local_hour
