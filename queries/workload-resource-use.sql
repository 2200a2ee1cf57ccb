-- name: workload-resource-use
-- question: What do PAI's tagged workloads (bert, ctr, graphlearn, ...) use per
--   instance: GPU, CPU, memory and GPU memory, on average and at the 90th percentile?
-- tables: pai_group_tags, pai_sensors
-- note: only about 9 % of jobs carry a workload tag; untagged jobs are left out.
SELECT
    g.workload,
    COUNT(DISTINCT g.inst_id) AS jobs,
    COUNT(*) AS instances,
    AVG(s.gpu_wrk_util_pct) AS avg_gpu_pct,
    percentile_cont(0.9) WITHIN GROUP (ORDER BY s.gpu_wrk_util_pct) AS p90_gpu_pct,
    AVG(s.cpu_usage_pct) AS avg_cpu_pct,
    AVG(s.avg_mem_gib) AS avg_mem_gib,
    AVG(s.avg_gpu_wrk_mem_gib) AS avg_gpu_mem_gib,
    MAX(s.max_gpu_wrk_mem_gib) AS max_gpu_mem_gib
FROM pai_group_tags AS g
JOIN pai_sensors AS s ON s.inst_id = g.inst_id
WHERE g.workload IS NOT NULL
GROUP BY g.workload
ORDER BY instances DESC, g.workload
