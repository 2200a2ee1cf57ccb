-- name: instances-over-request
-- question: Which PAI instances used more than their task requested per instance
--   (GPU, CPU or memory), and by how much? Sensor averages over the instance's
--   lifetime against the task's plan_* (requests are per instance, upstream #129).
-- tables: pai_sensors, pai_tasks
-- param: resource gpu|cpu|mem = gpu: which resource to compare
-- param: top int = 20: how many instances to list
WITH used AS (
    SELECT
        s.job_name,
        s.task_name,
        s.worker_name,
        CASE $resource
            WHEN 'gpu' THEN s.gpu_wrk_util_pct
            WHEN 'cpu' THEN s.cpu_usage_pct
            ELSE s.avg_mem_gib
        END AS used,
        CASE $resource
            WHEN 'gpu' THEN t.plan_gpu_pct
            WHEN 'cpu' THEN t.plan_cpu_pct
            ELSE t.plan_mem_gib
        END AS requested
    FROM pai_sensors AS s
    JOIN pai_tasks AS t ON t.job_name = s.job_name AND t.task_name = s.task_name
)
SELECT job_name, task_name, worker_name, used, requested, used / requested AS ratio
FROM used
WHERE requested > 0 AND used > requested
ORDER BY ratio DESC, job_name, task_name, worker_name
LIMIT $top
