//! P4-P6 of the Philly notebook: GPU utilization per GPU-minute by final
//! status and job size (Fig 5), the same for large jobs on dedicated servers
//! (Fig 6), and host CPU/memory utilization (Fig 7); plus the paper's
//! average utilization of in-use GPUs (about 52 %).

use polars::prelude::*;

use super::gpu_minutes::{samples, Filter, Samples};
use crate::frame::dist_by_sort;
use crate::{Args, Cell, Ctx, Headline, Output, ResultTable};
use tracelab_schema::error::Result;
use tracelab_schema::philly::{CPU_UTIL, MEM_UTIL};
use tracelab_stats::Dist;

const STATUSES: [&str; 3] = ["Pass", "Killed", "Failed"];
/// `get_utilization_data` keeps jobs of exactly these first-attempt sizes.
const P4_SIZES: [i64; 4] = [1, 4, 8, 16];
const SAMPLE_RULE: &str = "For every attempt with a start and an end (philly/attempts), minute m runs from the start \
     floored to the minute while m < end; at each m, every GPU the attempt holds (philly/placements: machine, GPU \
     index) gives one sample, the gpu<i>_util_pct of that machine's philly/gpu_util row at m, when the row exists \
     and the value is not NA. One sample = one GPU-minute; every attempt counts, with the job's FIRST-attempt GPU \
     count and final status. Times are UTC on both sides (the notebook matched naive job times to PDT/PST-stripped \
     utilization times, ambiguous in the hour after the 2017-11-05 DST change).";

fn size_label(g: i64) -> String {
    format!("{g} GPU")
}

/// P4 (Fig 5) and the average in-use GPU utilization.
pub fn gpu_util_by_status(ctx: &Ctx, _: &Args) -> Result<Output> {
    let all = samples(ctx, Filter::All)?;
    let mut out = Output::new(
        "philly.gpu-util-by-status",
        "GPU utilization by final status and job size (ATC'19 Fig 5)",
        format!(
            "{SAMPLE_RULE} Figure parts (pass, killed, failed): jobs with attempts and first-attempt GPUs in {{1, 4, \
             8, 16}}, grouped by final status then GPUs (the notebook's filter). Headline `mean-in-use`: mean over \
             EVERY GPU-minute sample of every job with attempts (all sizes, all statuses), our reading of the paper's \
             'average utilization of in-use GPUs'; `mean-fig5` over the figure's samples only. Utilization in %."
        ),
    );
    for status in STATUSES {
        let series = P4_SIZES
            .iter()
            .map(|&g| (size_label(g), all.get(&(status.to_string(), g)).cloned().unwrap_or_default()))
            .collect();
        out.dists(&status.to_lowercase(), "GPU utilization (%)", series);
    }
    out.table("by-status-size", size_table(&all));
    let every = Dist::pooled(all.values());
    let fig5 = Dist::pooled(
        all.iter().filter(|((s, g), _)| STATUSES.contains(&s.as_str()) && P4_SIZES.contains(g)).map(|(_, d)| d),
    );
    out.headlines(
        "summary",
        vec![
            Headline::new("mean-in-use", "Average utilization of in-use GPUs (all GPU-minutes)", every.mean(), "%")
                .published(52.0, "ATC'19 Sec 4 (about 52 %)"),
            Headline::new("mean-fig5", "Average utilization, Fig 5 samples (1/4/8/16-GPU jobs)", fig5.mean(), "%"),
            Headline::new("gpu-minutes", "GPU-minute samples (all jobs)", every.n() as f64, "GPU-minutes"),
        ],
    );
    Ok(out)
}

/// Samples, mean and median per (status, GPUs), every size.
fn size_table(all: &Samples) -> ResultTable {
    let mut t = ResultTable::new(&["status", "gpus", "gpu_minutes", "mean_pct", "p50_pct"]);
    for ((status, g), d) in all {
        t.push(vec![
            Cell::from(status.as_str()),
            Cell::Int(*g),
            Cell::from(d.n()),
            d.mean().into(),
            d.quantile(0.5).into(),
        ]);
    }
    t
}

/// P5 (Fig 6): 8- and 16-GPU jobs, attempts on dedicated servers, pooled
/// over statuses.
pub fn gpu_util_dedicated(ctx: &Ctx, _: &Args) -> Result<Output> {
    let all = samples(ctx, Filter::Dedicated)?;
    let mut out = Output::new(
        "philly.gpu-util-dedicated",
        "GPU utilization of large jobs on dedicated servers (ATC'19 Fig 6)",
        format!(
            "{SAMPLE_RULE} Only jobs with first-attempt GPUs 8 or 16 (only_large_jobs), and only attempts with \
             len(detail) <= num_gpus / 8 servers (only_dedicated_servers: 1 server for 8 GPUs, 2 for 16); samples \
             pooled over final statuses. Utilization in %."
        ),
    );
    let series = [8i64, 16]
        .iter()
        .map(|&g| (size_label(g), Dist::pooled(all.iter().filter(|((_, s), _)| *s == g).map(|(_, d)| d))))
        .collect();
    out.dists("by-size", "GPU utilization (%)", series);
    Ok(out)
}

/// P6 (Fig 7): every non-NA CPU sample and every memory sample with a
/// non-zero total.
/// Both distributions are sorted ([`dist_by_sort`]): memory utilization is
/// a ratio with almost every value distinct, where hashed value counts
/// needed over 4 GB on the full trace.
pub fn host_util(ctx: &Ctx, _: &Args) -> Result<Output> {
    let cpu = dist_by_sort(ctx.store.scan(&CPU_UTIL)?, col("cpu_util_pct"), "philly.host-util cpu")?;
    let mem_lf = ctx.store.scan(&MEM_UTIL)?.filter(col("mem_total_kib").neq(lit(0.0)));
    let mem_expr = lit(100.0) * (col("mem_total_kib") - col("mem_free_kib")) / col("mem_total_kib");
    let mem = dist_by_sort(mem_lf, mem_expr, "philly.host-util mem")?;
    let mut out = Output::new(
        "philly.host-util",
        "Host CPU and memory utilization (ATC'19 Fig 7)",
        "CPU: every philly/cpu_util row with a value (NA rows skipped), cpu_util_pct. Memory: every philly/mem_util \
         row with both values and mem_total != 0: 100 * (mem_total - mem_free) / mem_total. One sample per \
         machine-minute; utilization in %.",
    );
    out.dists("host", "Utilization (%)", vec![("CPU".into(), cpu), ("Memory".into(), mem)]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{find, testkit, Body};

    #[test]
    fn host_util_skips_na_and_zero_totals() {
        let cpu = df!("time" => [0i64, 0, 60], "machine" => ["m1", "m2", "m1"], "cpu_util_pct" => [Some(10.0), None, Some(30.0)]).unwrap();
        let mem = df!(
            "time" => [0i64, 0, 60],
            "machine" => ["m1", "m2", "m1"],
            "mem_total_kib" => [Some(200.0), Some(0.0), None],
            "mem_free_kib" => [Some(150.0), Some(0.0), Some(1.0)],
        )
        .unwrap();
        let tiny = testkit::store(vec![(&CPU_UTIL, cpu), (&MEM_UTIL, mem)]);
        let out = find("philly.host-util").unwrap().run(&tiny.ctx, &[]).unwrap();
        let Body::Dists { series, .. } = &out.part("host").unwrap().body else { unreachable!() };
        // CPU: 10 and 30 (NA skipped). Memory: 100 * (200 - 150) / 200 = 25; total 0 and NA skipped.
        assert_eq!(series[0].1.values(), &[10.0, 30.0]);
        assert_eq!(series[1].1.values(), &[25.0]);
    }
}
