//! Requests vs usage (NSDI'22 Fig 6, notebook A13-A16) and the I/O panels
//! (Fig 8, notebook A17-A18).
//!
//! Fig 6 reads `dfas`: per task, sums over the task's instances that have
//! sensor rows (the `dfws` inner join), so requests and usages are task
//! totals. Upstream quirk kept by default: the memory panel (A15) plots GPU
//! memory (`avg_gpu_wrk_mem`) as "Mem Usage"; `mem-usage=main` compares main
//! memory (`avg_mem`) with the main-memory request instead.

use polars::prelude::*;

use super::super::frame::{collect, dist_by_sort, f64s};
use super::super::{Analysis, Args, Ctx, Headline, Output, Param, Scope};
use super::frames;
use tracelab_schema::error::Result;
use tracelab_schema::pai::MACHINE_METRIC;

const MEM_PARAM: Param = Param {
    name: "mem-usage",
    default: "gpu",
    doc: "memory usage compared with plan_mem: gpu (upstream: avg_gpu_wrk_mem) or main (corrected: avg_mem)",
    choices: &["gpu", "main"],
};

pub static ANALYSES: [Analysis; 4] = [
    Analysis {
        id: "pai.request-vs-usage",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 6a-c (notebook A13-A15)",
        summary: "CDFs of requested vs used CPU, GPU and memory per task (sums over instances with sensor rows)",
        params: &[MEM_PARAM],
        run: request_vs_usage,
    },
    Analysis {
        id: "pai.usage-minus-request",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 6d (notebook A16)",
        summary: "(usage - request) / capacity per task, with the plan > usage and plan < usage shares",
        params: &[],
        run: usage_minus_request,
    },
    Analysis {
        id: "pai.network-input",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 8a (notebook A17)",
        summary: "instance network input, 8 * read / 1024^3 (Gbps as the notebook labels it)",
        params: &[],
        run: network_input,
    },
    Analysis {
        id: "pai.cpu-time-split",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 8b (notebook A18)",
        summary: "machine CPU iowait, usr and kernel shares over all machine_metric rows",
        params: &[],
        run: cpu_time_split,
    },
];

/// (part, x label, request expr, usage expr, divisor to units, unit,
/// published request median, published usage median).
type Panel = (&'static str, &'static str, Expr, Expr, f64, &'static str, f64, f64);

fn panels(mem_main: bool) -> [Panel; 3] {
    let mem_use = if mem_main { col("avg_mem_gib") } else { col("avg_gpu_wrk_mem_gib") };
    [
        ("cpu", "CPU (% of one vCPU, task total)", col("plan_cpu_pct"), col("cpu_usage_pct"), 100.0, "vCPU", 6.0, 1.4),
        (
            "gpu",
            "GPU (% of one GPU, task total)",
            col("plan_gpu_pct"),
            col("gpu_wrk_util_pct"),
            100.0,
            "GPU",
            0.5,
            0.042,
        ),
        ("mem", "memory (GiB, task total)", col("plan_mem_gib"), mem_use, 1.0, "GiB", 29.0, 3.5),
    ]
}

fn request_vs_usage(ctx: &Ctx, args: &Args) -> Result<Output> {
    let mem_main = args.str("mem-usage") == "main";
    let dfas = frames::task_usage(&ctx.store, &frames::USAGE_SUMS[..7])?;
    let mem_def = if mem_main {
        "memory usage = avg_mem (main memory; corrects the upstream panel)"
    } else {
        "memory usage = avg_gpu_wrk_mem (GPU memory, as the upstream panel plots under the label 'Mem Usage')"
    };
    let definition = format!(
        "dfas: per task, sums over its instances that have sensor rows (dfw inner-joined to pai/sensor on \
         worker_name) of the per-instance plans and the sensor usages; {mem_def}; null values dropped; the \
         published medians are per instance (NSDI'22 Sec 4.1), ours are of the plotted task totals"
    );
    let mut out = Output::new("pai.request-vs-usage", "Requested vs used resources per task", definition);
    let mut headlines = Vec::new();
    for (part, x_label, request, usage, div, unit, pub_req, pub_use) in panels(mem_main) {
        let req = dist_by_sort(dfas.clone(), request, "request")?;
        let used = dist_by_sort(dfas.clone(), usage, "usage")?;
        headlines.push(
            Headline::new(
                &format!("{part}_request_p50"),
                &format!("median {part} request"),
                req.quantile(0.5) / div,
                unit,
            )
            .published(pub_req, "NSDI'22 Sec 4.1 (per instance)"),
        );
        headlines.push(
            Headline::new(
                &format!("{part}_usage_p50"),
                &format!("median {part} usage"),
                used.quantile(0.5) / div,
                unit,
            )
            .published(pub_use, "NSDI'22 Sec 4.1 (per instance)"),
        );
        out.dists(part, x_label, vec![("request".into(), req), ("usage".into(), used)]);
    }
    out.headlines("medians", headlines);
    Ok(out)
}

fn usage_minus_request(ctx: &Ctx, _: &Args) -> Result<Output> {
    let dfas = frames::task_usage(&ctx.store, &frames::USAGE_SUMS)?;
    // The notebook's three normalized gaps, plan - usage over the summed
    // capacities of the machines the instances ran on.
    let gaps = [
        ("cpu", (col("plan_cpu_pct") - col("cpu_usage_pct")) / (lit(100.0) * col("cap_cpu")), 84.46, 15.51),
        ("gpu", (col("plan_gpu_pct") - col("gpu_wrk_util_pct")) / (lit(100.0) * col("cap_gpu")), 98.02, 1.97),
        ("mem", (col("plan_mem_gib") - col("avg_mem_gib")) / col("cap_mem_gib"), 95.88, 4.12),
    ];
    let exprs: Vec<Expr> = gaps.iter().map(|(n, e, _, _)| e.clone().alias(*n)).collect();
    let frame = dfas.select(exprs);
    let mut series = Vec::new();
    let mut headlines = Vec::new();
    for (name, _, pub_over, pub_under) in gaps {
        let valid = col(name).is_not_null().and(col(name).is_not_nan());
        let shares = collect(
            frame
                .clone()
                .filter(valid)
                .select([col(name).gt(lit(0.0)).mean().alias("over"), col(name).lt(lit(0.0)).mean().alias("under")]),
            "plan vs usage shares",
        )?;
        let over = f64s(&shares, "over")?[0].unwrap_or(f64::NAN) * 100.0;
        let under = f64s(&shares, "under")?[0].unwrap_or(f64::NAN) * 100.0;
        let src = "notebook A16 printed output";
        headlines.push(
            Headline::new(&format!("{name}_plan_over_usage"), &format!("{name}: plan > usage"), over, "%")
                .published(pub_over, src),
        );
        headlines.push(
            Headline::new(&format!("{name}_plan_under_usage"), &format!("{name}: plan < usage"), under, "%")
                .published(pub_under, src),
        );
        series.push((name.to_string(), dist_by_sort(frame.clone(), lit(-100.0) * col(name), "usage minus request")?));
    }
    let definition =
        "dfas (task sums over instances with sensor rows, incl. the summed capacities cap_* of the machines \
                      they ran on); gap = (plan - usage) / capacity with capacity 100*cap_cpu, 100*cap_gpu, cap_mem \
                      and usage cpu_usage, gpu_wrk_util, avg_mem; shares among non-null, non-NaN gaps, exact zeros in \
                      neither share, +-inf (cap_gpu = 0 on CPU machines) counted as upstream; curves plot \
                      100*(usage - plan)/capacity on a symlog axis upstream, finite values only";
    let mut out = Output::new("pai.usage-minus-request", "Usage minus request, normalized by capacity", definition);
    out.dists("gap", "(usage - request) / capacity (%)", series).headlines("shares", headlines);
    Ok(out)
}

fn network_input(ctx: &Ctx, _: &Args) -> Result<Output> {
    let dfws = frames::instances_with_sensor(&ctx.store, &["read_bytes"])?;
    let gbps = dist_by_sort(dfws, lit(8.0) * col("read_bytes") / lit(1024f64.powi(3)), "network input")?;
    let definition = "dfws (one row per worker with a sensor row); 8 * read / 1024^3, which the notebook labels \
                      'Machine network receive (Gbps)': it treats the instance-level `read` as bytes per second \
                      (it is not machine_net_receive); nulls dropped";
    let mut out = Output::new("pai.network-input", "Network input per instance", definition);
    out.dists("read", "network input (Gbps, as labelled upstream)", vec![("instances".into(), gbps)]);
    Ok(out)
}

fn cpu_time_split(ctx: &Ctx, _: &Args) -> Result<Output> {
    let dfm = ctx.store.scan(&MACHINE_METRIC)?;
    let mut series = Vec::new();
    for (label, c) in
        [("iowait", "machine_cpu_iowait_pct"), ("usr", "machine_cpu_usr_pct"), ("kernel", "machine_cpu_kernel_pct")]
    {
        series.push((label.to_string(), dist_by_sort(dfm.clone(), col(c), "machine cpu split")?));
    }
    let ratio = series[0].1.mean() / (series[1].1.mean() + series[2].1.mean());
    let definition = "pai/machine_metric, every row (one per instance; machine-level values averaged over the \
                      instance's lifetime); nulls dropped; iowait share = mean iowait / (mean usr + mean kernel)";
    let mut out = Output::new("pai.cpu-time-split", "Machine CPU iowait, usr and kernel", definition);
    out.dists("cpu", "machine CPU (%)", series).headlines(
        "iowait",
        vec![Headline::new("iowait_over_cpu", "mean iowait / mean (usr + kernel)", ratio, "")
            .published(0.001, "NSDI'22 Sec 4.2 (about 1/1000 of CPU time)")],
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use polars::df;

    use super::super::super::testkit;
    use super::*;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, MACHINE_SPEC, SENSOR, TASK};

    /// Task a/t: 2 instances (plans 600 % CPU, 50 % GPU, 10 GiB each) on m1
    /// (96 vCPU, 2 GPUs, 512 GiB) and m2 (CPU machine: 96, 0, 512); usages
    /// w1 100/20/4, w2 300/0/30. Sums: plan 1200/100/20, use 400/20/34, cap
    /// 192/2/1024. Gaps: cpu 800/19200 > 0, gpu 80/200 > 0, mem -14/1024 < 0.
    /// Task b/t: 1 instance on m2, plans 100/0/8, use 100/0/2: cpu gap 0
    /// (neither share), gpu 0/0 = NaN (excluded), mem 6/512 > 0.
    /// Shares: cpu over 1/2, under 0/2; gpu over 1/1; mem over 1/2, under 1/2.
    #[test]
    fn usage_minus_request_shares_by_hand() {
        let t = testkit::store(vec![
            (&JOB, df!("job_name" => ["a", "b"], "inst_id" => ["i", "j"], "user" => ["u", "u"], "status" => ["Terminated"; 2]).unwrap()),
            (
                &TASK,
                df!("job_name" => ["a", "b"], "task_name" => ["t", "t"], "inst_num" => [2i64, 1], "status" => ["Terminated"; 2],
                    "start_time" => [1i64, 1], "plan_cpu_pct" => [600.0, 100.0], "plan_gpu_pct" => [50.0, 0.0],
                    "plan_mem_gib" => [10.0, 8.0])
                .unwrap(),
            ),
            (
                &INSTANCE,
                df!("job_name" => ["a", "a", "b"], "task_name" => ["t"; 3], "inst_name" => ["x", "y", "z"],
                    "worker_name" => ["w1", "w2", "w3"], "inst_id" => ["i", "i", "j"], "status" => ["Terminated"; 3],
                    "machine" => ["m1", "m2", "m2"])
                .unwrap(),
            ),
            (
                &SENSOR,
                df!("job_name" => ["a", "a", "b"], "task_name" => ["t"; 3], "worker_name" => ["w1", "w2", "w3"],
                    "inst_id" => ["i", "i", "j"], "cpu_usage_pct" => [100.0, 300.0, 100.0],
                    "gpu_wrk_util_pct" => [20.0, 0.0, 0.0], "avg_mem_gib" => [4.0, 30.0, 2.0])
                .unwrap(),
            ),
            (&GROUP_TAG, df!("inst_id" => ["i"], "user" => ["u"]).unwrap()),
            (
                &MACHINE_SPEC,
                df!("machine" => ["m1", "m2"], "gpu_type" => ["T4", "CPU"], "cap_cpu" => [96i64, 96],
                    "cap_mem_gib" => [512i64, 512], "cap_gpu" => [2i64, 0])
                .unwrap(),
            ),
        ]);
        let out = ANALYSES[1].run(&t.ctx, &[]).unwrap();
        let got: Vec<(String, f64)> = out.all_headlines().map(|h| (h.key.clone(), h.value)).collect();
        let want = [50.0, 0.0, 100.0, 0.0, 50.0, 50.0];
        for ((key, value), w) in got.iter().zip(want) {
            assert_eq!(*value, w, "{key}");
        }
        let crate::Body::Dists { series, .. } = &out.part("gap").unwrap().body else { panic!() };
        assert!((series[0].1.max() - 0.0).abs() < 1e-12 && (series[0].1.min() + 100.0 * 800.0 / 19200.0).abs() < 1e-9);
    }
}
