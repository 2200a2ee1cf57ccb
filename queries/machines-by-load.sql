-- name: machines-by-load
-- question: Which PAI machines were the most loaded? Average 1-minute load,
--   CPU and GPU utilization over the instances that ran on each machine, with
--   its GPU type and capacity.
-- tables: pai_machine_metrics, pai_machines
-- param: top int = 20: how many machines to list
WITH per_machine AS (
    SELECT
        machine,
        COUNT(*) AS instances,
        AVG(machine_load_1) AS avg_load_1,
        AVG(machine_cpu_pct) AS avg_cpu_pct,
        AVG(machine_gpu_pct) AS avg_gpu_pct
    FROM pai_machine_metrics
    GROUP BY machine
)
SELECT
    m.machine,
    s.gpu_type,
    s.cap_cpu,
    s.cap_gpu,
    m.instances,
    m.avg_load_1,
    m.avg_load_1 / s.cap_cpu AS load_per_vcpu,
    m.avg_cpu_pct,
    m.avg_gpu_pct
FROM per_machine AS m
LEFT JOIN pai_machines AS s ON s.machine = m.machine
ORDER BY m.avg_load_1 DESC NULLS LAST, m.machine
LIMIT $top
