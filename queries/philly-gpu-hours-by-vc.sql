-- name: philly-gpu-hours-by-vc
-- question: How are jobs and GPU-hours spread over Philly's virtual clusters?
--   GPU-hours sum every attempt's GPUs x its run time (retries count, the gaps
--   between them do not).
-- tables: philly_jobs, philly_attempts
WITH per_job AS (
    SELECT job_id, SUM(gpus * run_s) / 3600.0 AS gpu_hours
    FROM philly_attempts
    GROUP BY job_id
)
SELECT
    j.vc,
    COUNT(*) AS jobs,
    COUNT(DISTINCT j."user") AS users,
    SUM(CASE WHEN j.status = 'Pass' THEN 1 ELSE 0 END) AS passed,
    SUM(p.gpu_hours) AS gpu_hours
FROM philly_jobs AS j
LEFT JOIN per_job AS p ON p.job_id = j.job_id
GROUP BY j.vc
ORDER BY gpu_hours DESC NULLS LAST, j.vc
