//! Microsoft Philly (ATC'19): the owners' notebook analyses P1-P6
//! (`analysis/Philly Trace Analysis.ipynb`,
//! `docs/definitions.md#philly-vocabulary`), the paper's headline numbers (§4), and per-minute machine
//! utilization by machine class (the PAI Fig 7 shape, for side-by-side
//! plots).
//!
//! Themes: [`jobs`] (runtime, queueing, locality: the small job tables),
//! [`gpu_minutes`] (the GPU-minute join of attempts with `gpu_util`, the
//! heaviest query), [`util`] (P4-P6 on top of it), [`machine_util`] (per
//! minute P50/P90 across machines), [`paper`] (headline numbers).

mod gpu_minutes;
mod jobs;
mod machine_util;
mod paper;
mod util;

use polars::prelude::*;

use super::frame::{collect, i64s};
use super::{Analysis, Ctx, Param};
use tracelab_schema::error::Result;
use tracelab_schema::Table;

/// Rows of a utilization table (`time` in UTC) with `w0 <= time < w1`
/// (epoch microseconds): the tables are time-sorted, so a window reads only
/// its row groups.
fn time_window(ctx: &Ctx, table: &Table, w0: i64, w1: i64) -> Result<LazyFrame> {
    let utc_us = || DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC));
    let t = col("time");
    Ok(ctx.store.scan(table)?.filter(t.clone().gt_eq(lit(w0).cast(utc_us())).and(t.lt(lit(w1).cast(utc_us())))))
}

/// [first, last] `time` of a table in epoch microseconds, None when empty.
fn time_span(ctx: &Ctx, table: &Table) -> Result<Option<(i64, i64)>> {
    let t = col("time").cast(DataType::Int64);
    let df = collect(ctx.store.scan(table)?.select([t.clone().min().alias("lo"), t.max().alias("hi")]), "time span")?;
    Ok(i64s(&df, "lo")?[0].zip(i64s(&df, "hi")?[0]))
}

/// The notebook's GPU-count buckets (`get_bucket_from_num_gpus`), in plot
/// order, with its legend labels (`'%s GPU'`).
pub const BUCKETS: [&str; 4] = ["1 GPU", "2-4 GPU", "5-8 GPU", ">8 GPU"];

/// The bucket label of a GPU-count expression; null for null or 0 GPUs,
/// which the notebook skips.
pub fn bucket(gpus: Expr) -> Expr {
    when(gpus.clone().eq(lit(1i64)))
        .then(lit(BUCKETS[0]))
        .when(gpus.clone().gt_eq(lit(2i64)).and(gpus.clone().lt_eq(lit(4i64))))
        .then(lit(BUCKETS[1]))
        .when(gpus.clone().gt_eq(lit(5i64)).and(gpus.clone().lt_eq(lit(8i64))))
        .then(lit(BUCKETS[2]))
        .when(gpus.gt(lit(8i64)))
        .then(lit(BUCKETS[3]))
        .otherwise(lit(NULL).cast(DataType::String))
}

/// The bucket label of a GPU count (same rule as [`bucket`]).
pub fn bucket_of(gpus: i64) -> Option<&'static str> {
    match gpus {
        1 => Some(BUCKETS[0]),
        2..=4 => Some(BUCKETS[1]),
        5..=8 => Some(BUCKETS[2]),
        g if g > 8 => Some(BUCKETS[3]),
        _ => None,
    }
}

const QUEUE_DEFINITION: Param = Param {
    name: "definition",
    default: "per-attempt",
    doc: "per-attempt: the notebook's Fig 3 cell (one delay per attempt, from submission or the previous \
          attempt's end; stale values re-appended, exact zeros dropped); first-attempt: one delay per job, \
          first attempt start - submission (the notebook's Job.queueing_delay)",
    choices: &["per-attempt", "first-attempt"],
};

/// This group's analyses, in `--list` order.
pub static ANALYSES: &[Analysis] = &[
    Analysis {
        id: "philly.runtime-by-size",
        scope: super::Scope::Philly,
        mirrors: "ATC'19 Fig 2 (notebook 'Job Runtimes')",
        summary: "Job runtime CDF (minutes) per GPU-count bucket 1, 2-4, 5-8, >8",
        params: &[],
        run: jobs::runtime_by_size,
    },
    Analysis {
        id: "philly.queueing-by-vc",
        scope: super::Scope::Philly,
        mirrors: "ATC'19 Fig 3 (notebook 'Queueing Delay')",
        summary: "Queueing delay CDF (minutes) per virtual cluster and GPU bucket; per-attempt or first-attempt",
        params: &[QUEUE_DEFINITION],
        run: jobs::queueing_by_vc,
    },
    Analysis {
        id: "philly.locality",
        scope: super::Scope::Philly,
        mirrors: "ATC'19 Fig 4 (notebook 'Locality Constraints')",
        summary: "Servers of the first attempt vs first-attempt queueing delay, jobs with 5+ GPUs",
        params: &[],
        run: jobs::locality,
    },
    Analysis {
        id: "philly.gpu-util-by-status",
        scope: super::Scope::Philly,
        mirrors: "ATC'19 Fig 5 (notebook 'GPU Utilization', get_utilization_data)",
        summary: "Per-GPU-minute utilization CDF by final status and job size (1, 4, 8, 16 GPUs); mean in-use GPU util",
        params: &[],
        run: util::gpu_util_by_status,
    },
    Analysis {
        id: "philly.gpu-util-dedicated",
        scope: super::Scope::Philly,
        mirrors: "ATC'19 Fig 6 (notebook get_utilization_data(only_large_jobs, only_dedicated_servers))",
        summary: "Per-GPU-minute utilization CDF of 8- and 16-GPU jobs on dedicated servers",
        params: &[],
        run: util::gpu_util_dedicated,
    },
    Analysis {
        id: "philly.host-util",
        scope: super::Scope::Philly,
        mirrors: "ATC'19 Fig 7 (notebook 'Host Resource Utilization')",
        summary: "Host CPU and memory utilization CDF over all per-minute machine samples",
        params: &[],
        run: util::host_util,
    },
    Analysis {
        id: "philly.machine-util",
        scope: super::Scope::Philly,
        mirrors: "tracelab (the PAI NSDI'22 Fig 7 method applied to Philly; upstream issue #8)",
        summary: "Per-minute P50/P90 across 2-GPU and 8-GPU machines of GPU, CPU, memory util; CDF over minutes",
        params: &[],
        run: machine_util::machine_util,
    },
    Analysis {
        id: "philly.paper-numbers",
        scope: super::Scope::Philly,
        mirrors: "ATC'19 Sec 4-5 headline numbers; Helios SC'21 Fig 1b (Philly GPU time by status)",
        summary: "Share of jobs killed or failed, GPU time by final status, attempts and retries per job",
        params: &[],
        run: paper::paper_numbers,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_the_notebook() {
        // get_bucket_from_num_gpus: 1 -> 0, 2..4 -> 1, 5..8 -> 2, >8 -> 3, else None.
        let got: Vec<Option<&str>> = [0, 1, 2, 4, 5, 8, 9, 64].iter().map(|&g| bucket_of(g)).collect();
        assert_eq!(
            got,
            vec![
                None,
                Some("1 GPU"),
                Some("2-4 GPU"),
                Some("2-4 GPU"),
                Some("5-8 GPU"),
                Some("5-8 GPU"),
                Some(">8 GPU"),
                Some(">8 GPU")
            ]
        );
    }
}
