-- name: helios-failure-rate-by-gpus
-- question: Do bigger Helios jobs fail or get cancelled more often? Shares of
--   each final state by the job's GPU count (SC'21 Fig. 9 in spirit).
-- tables: helios_jobs
-- param: cluster all|Earth|Saturn|Uranus|Venus = all: one cluster, or all of them
-- note: FAILED, TIMEOUT and NODE_FAIL count as failed (as upstream); CANCELLED as killed.

-- Jobs are counted per (GPU count, state) first, so the state names are
-- compared once per pair instead of three times per job.
WITH per_state AS (
    SELECT gpus, state, COUNT(*) AS jobs
    FROM helios_jobs
    WHERE $cluster = 'all' OR cluster = $cluster
    GROUP BY gpus, state
)
SELECT
    gpus,
    SUM(jobs) AS jobs,
    CAST(SUM(CASE WHEN state = 'COMPLETED' THEN jobs ELSE 0 END) AS DOUBLE) / SUM(jobs) AS completed_rate,
    CAST(SUM(CASE WHEN state IN ('FAILED', 'TIMEOUT', 'NODE_FAIL') THEN jobs ELSE 0 END) AS DOUBLE) / SUM(jobs)
        AS failed_rate,
    CAST(SUM(CASE WHEN state = 'CANCELLED' THEN jobs ELSE 0 END) AS DOUBLE) / SUM(jobs) AS killed_rate
FROM per_state
GROUP BY gpus
ORDER BY gpus
