-- name: helios-failure-rate-by-gpus
-- question: Do bigger Helios jobs fail or get cancelled more often? Shares of
--   each final state by the job's GPU count (SC'21 Fig. 9 in spirit).
-- tables: helios_jobs
-- param: cluster all|Earth|Saturn|Uranus|Venus = all: one cluster, or all of them
-- note: FAILED, TIMEOUT and NODE_FAIL count as failed (as upstream); CANCELLED as killed.
SELECT
    gpus,
    COUNT(*) AS jobs,
    CAST(SUM(CASE WHEN state = 'COMPLETED' THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*) AS completed_rate,
    CAST(SUM(CASE WHEN state IN ('FAILED', 'TIMEOUT', 'NODE_FAIL') THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*) AS failed_rate,
    CAST(SUM(CASE WHEN state = 'CANCELLED' THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*) AS killed_rate
FROM helios_jobs
WHERE $cluster = 'all' OR cluster = $cluster
GROUP BY gpus
ORDER BY gpus
