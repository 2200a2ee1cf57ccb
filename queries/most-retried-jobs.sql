-- name: most-retried-jobs
-- question: Which Philly jobs were retried most, how did they end, and how much
--   GPU time did all their attempts take?
-- tables: philly_jobs, philly_attempts
-- param: top int = 10: how many jobs to list
WITH per_job AS (
    SELECT job_id, SUM(gpus * run_s) / 3600.0 AS gpu_hours, MAX(gpus) AS max_gpus
    FROM philly_attempts
    GROUP BY job_id
)
SELECT
    j.job_id,
    j.vc,
    j."user",
    j.status,
    j.attempts,
    j.gpus AS first_attempt_gpus,
    p.max_gpus,
    p.gpu_hours
FROM philly_jobs AS j
LEFT JOIN per_job AS p ON p.job_id = j.job_id
ORDER BY j.attempts DESC, j.job_id
LIMIT $top
