-- name: helios-usage-by-vc
-- question: Per Helios cluster and virtual cluster: how many jobs and GPU jobs,
--   how many users, and how many GPU-hours (GPUs x duration)?
-- tables: helios_jobs
-- param: cluster all|Earth|Saturn|Uranus|Venus = all: one cluster, or all of them
SELECT
    cluster,
    vc,
    COUNT(*) AS jobs,
    SUM(CASE WHEN gpus > 0 THEN 1 ELSE 0 END) AS gpu_jobs,
    COUNT(DISTINCT "user") AS users,
    SUM(gpus * run_s) / 3600.0 AS gpu_hours
FROM helios_jobs
WHERE $cluster = 'all' OR cluster = $cluster
GROUP BY cluster, vc
ORDER BY cluster, gpu_hours DESC NULLS LAST, vc
