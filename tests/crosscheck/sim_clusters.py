#!/usr/bin/env python3
"""The clusters `tracelab simulate --cluster from-trace` should build, counted with DuckDB from
the raw trace files (not from the store, not from tracelab's code).

Usage: sim_clusters.py DATA_SAMPLES_DIR

Definitions (docs/simulate.md, "Clusters"):
  pai: pai_machine_spec.csv machines with cap_gpu > 0, grouped by (gpu_type, cap_gpu, cap_cpu);
  philly: cluster_machine_list grouped by number of GPUs (untyped);
  helios:Venus: cluster_gpu_number.csv on the last date at or before the local date of the first
    submission in cluster_log.csv (else the first date), one partition per VC with GPUs // 8 > 0
    nodes of 8 GPUs, named Venus/<vc>;
  spot: node_info_df.csv nodes with gpu_capacity_num > 0, grouped by (gpu_model,
    gpu_capacity_num, cpu_num), typed by the model;
  acme:Seren: 286 nodes of 8 GPUs (NSDI'24; the trace has no node list), named Seren.
Prints {trace: [[partition, nodes, gpus_per_node, gpu_type], ...]} as JSON, rows in tracelab's order.
"""
import json
import sys

import duckdb

D = sys.argv[1]
con = duckdb.connect()
out = {}

out["pai"] = [["pai", n, g, t] for t, g, c, n in con.sql(f"""
    select gpu_type, cap_gpu, cap_cpu, count(*) from read_csv('{D}/pai/pai_machine_spec.csv', header = false,
        names = ['machine', 'gpu_type', 'cap_cpu', 'cap_mem', 'cap_gpu'])
    where cap_gpu > 0 group by all order by gpu_type, cap_gpu, cap_cpu
""").fetchall()]

out["philly"] = [["philly", n, g, ""] for g, n in con.sql(f"""
    select "number of GPUs"::int as g, count(*) from read_csv('{D}/philly/cluster_machine_list', header = true)
    group by g order by g
""").fetchall()]

venus = f"{D}/helios/Venus"
first = con.sql(f"select min(submit_time)::date from read_csv('{venus}/cluster_log.csv', header = true)").fetchall()[0][0]
gpus = con.sql(f"""
    unpivot (select * exclude (total) from read_csv('{venus}/cluster_gpu_number.csv', header = true))
    on columns(* exclude (date)) into name vc value gpus
""")
day = con.sql(f"""
    select coalesce(max(date) filter (where date <= '{first}'::date), min(date)) from gpus
""").fetchall()[0][0]
out["helios:Venus"] = [[f"Venus/{vc}", g // 8, 8, ""] for vc, g in con.sql(f"""
    select vc, gpus from gpus where date = '{day}'::date and gpus // 8 > 0 order by vc
""").fetchall()]

out["spot"] = [["spot", n, g, t] for t, g, c, n in con.sql(f"""
    select gpu_model, gpu_capacity_num, cpu_num, count(*) from read_csv('{D}/spot/node_info_df.csv', header = true)
    where gpu_capacity_num > 0 group by all order by gpu_model, gpu_capacity_num, cpu_num
""").fetchall()]
out["acme:Seren"] = [["Seren", 286, 8, ""]]

print(json.dumps(out, indent=1))
