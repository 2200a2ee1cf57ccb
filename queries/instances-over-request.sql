-- name: instances-over-request
-- question: Which PAI instances used more than their task requested per instance
--   (GPU, CPU or memory), and by how much? Sensor averages over the instance's
--   lifetime against the task's plan_* (requests are per instance, upstream #129).
-- tables: pai_sensors, pai_tasks
-- param: resource gpu|cpu|mem = gpu: which resource to compare
-- param: top int = 20: how many instances to list

-- Each resource is its own branch, gated by the parameter: only the chosen
-- branch's columns are read and carried through the join (a CASE on the
-- parameter after the join read all three of both tables and carried them
-- through it: 0.3 GB more for gpu at full scale).
-- The final sort on (ratio, job, task, worker) orders every row.
WITH requested AS (
    SELECT job_name, task_name, plan_gpu_pct AS requested
    FROM pai_tasks WHERE $resource = 'gpu' AND plan_gpu_pct > 0
    UNION ALL
    SELECT job_name, task_name, plan_cpu_pct
    FROM pai_tasks WHERE $resource = 'cpu' AND plan_cpu_pct > 0
    UNION ALL
    SELECT job_name, task_name, plan_mem_gib
    FROM pai_tasks WHERE $resource = 'mem' AND plan_mem_gib > 0
), used AS (
    SELECT job_name, task_name, worker_name, gpu_wrk_util_pct AS used
    FROM pai_sensors WHERE $resource = 'gpu' AND gpu_wrk_util_pct IS NOT NULL
    UNION ALL
    SELECT job_name, task_name, worker_name, cpu_usage_pct
    FROM pai_sensors WHERE $resource = 'cpu' AND cpu_usage_pct IS NOT NULL
    UNION ALL
    SELECT job_name, task_name, worker_name, avg_mem_gib
    FROM pai_sensors WHERE $resource = 'mem' AND avg_mem_gib IS NOT NULL
)
SELECT u.job_name, u.task_name, u.worker_name, u.used, r.requested, u.used / r.requested AS ratio
FROM used AS u
JOIN requested AS r ON r.job_name = u.job_name AND r.task_name = u.task_name
WHERE u.used > r.requested
ORDER BY ratio DESC, job_name, task_name, worker_name
LIMIT $top
