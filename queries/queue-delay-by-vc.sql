-- name: queue-delay-by-vc
-- question: How long do jobs wait before they start, per virtual cluster?
--   Median, 90th and 99th percentile of the queueing delay (first start - submit).
-- tables: jobs
-- param: trace philly|helios = philly: the trace (the unified group is the VC for both)
-- param: min_jobs int = 5: leave out VCs with fewer jobs that started
SELECT
    "group" AS vc,
    COUNT(queue_s) AS started_jobs,
    percentile_cont(0.5) WITHIN GROUP (ORDER BY queue_s) AS p50_queue_s,
    percentile_cont(0.9) WITHIN GROUP (ORDER BY queue_s) AS p90_queue_s,
    percentile_cont(0.99) WITHIN GROUP (ORDER BY queue_s) AS p99_queue_s,
    AVG(queue_s) AS mean_queue_s
FROM jobs
WHERE trace = $trace AND queue_s IS NOT NULL
GROUP BY "group"
HAVING COUNT(queue_s) >= $min_jobs
ORDER BY p90_queue_s DESC, vc
