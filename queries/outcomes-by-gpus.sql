-- name: outcomes-by-gpus
-- question: Across traces, how do failure and kill rates grow with the GPUs a job
--   asks for? Jobs are binned by requested GPUs (0, 1, 2-4, 5-8, 9-16, >16);
--   status is the unified one (completed, failed, killed, running, unknown).
-- tables: jobs
-- param: trace all|pai|philly|helios|swf = all: one trace, or each of them

-- Jobs are counted per (trace, GPUs requested, status) first: requests
-- take far fewer values than there are jobs, so the bin's CASE, the status
-- names' comparisons and the bin's label run once per group, not per job.
WITH per_request AS (
    SELECT trace, gpus_requested, status, COUNT(*) AS jobs
    FROM jobs
    WHERE $trace = 'all' OR trace = $trace
    GROUP BY 1, 2, 3
), per_status AS (
    SELECT
        trace,
        CASE
            WHEN gpus_requested IS NULL THEN 99
            WHEN gpus_requested = 0 THEN 0
            WHEN gpus_requested <= 1 THEN 1
            WHEN gpus_requested <= 4 THEN 2
            WHEN gpus_requested <= 8 THEN 3
            WHEN gpus_requested <= 16 THEN 4
            ELSE 5
        END AS bin,
        status,
        jobs
    FROM per_request
)
SELECT
    trace,
    CASE bin
        WHEN 99 THEN 'unknown'
        WHEN 0 THEN '0'
        WHEN 1 THEN '1'
        WHEN 2 THEN '2-4'
        WHEN 3 THEN '5-8'
        WHEN 4 THEN '9-16'
        ELSE '>16'
    END AS gpus,
    SUM(jobs) AS jobs,
    CAST(SUM(CASE WHEN status = 'failed' THEN jobs ELSE 0 END) AS DOUBLE) / SUM(jobs) AS failed_rate,
    CAST(SUM(CASE WHEN status = 'killed' THEN jobs ELSE 0 END) AS DOUBLE) / SUM(jobs) AS killed_rate,
    CAST(SUM(CASE WHEN status = 'completed' THEN jobs ELSE 0 END) AS DOUBLE) / SUM(jobs) AS completed_rate
FROM per_status
GROUP BY trace, bin
ORDER BY trace, bin
