//! Philly machine utilization over time, in the shape of the PAI NSDI'22
//! Fig 7 method so both traces plot side by side: per minute, each machine's
//! GPU utilization (mean of its non-null GPU columns), CPU and memory
//! utilization; per minute and machine class, the P50 and P90 across
//! machines; then the distribution of those per-minute values over minutes.
//!
//! The class (2-GPU vs 8-GPU) is the number of GPU columns that are ever
//! non-null for the machine in `philly/gpu_util`, not the published machine
//! list, which upstream issue #8 found wrong; the machines where the two
//! disagree are listed. Everything runs in time windows (the tables are
//! time-sorted, so each window reads only its row groups).

use std::collections::BTreeMap;

use polars::prelude::*;

use crate::analysis::frame::{collect, f64s, i64s, strs};
use crate::analysis::{Args, Cell, Ctx, Output, ResultTable};
use crate::error::{Error, Result};
use crate::schema::philly::{CPU_UTIL, GPU_UTIL, MACHINES, MEM_UTIL, PLACEMENTS};
use crate::schema::Table;
use crate::stats::Dist;

const MINUTE_US: i64 = 60_000_000;
const WINDOW_US: i64 = 2 * 1440 * MINUTE_US;
const GPU_COLUMNS: usize = 8;
/// The metrics (part names), in output order.
const METRICS: [&str; 3] = ["gpu", "cpu", "mem"];

fn utc_us() -> DataType {
    DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC))
}

fn gpu_cols() -> Vec<Expr> {
    (0..GPU_COLUMNS).map(|i| col(format!("gpu{i}_util_pct"))).collect()
}

/// Rows of `table` with `w0 <= time < w1`.
fn window(ctx: &Ctx, table: &Table, w0: i64, w1: i64) -> Result<LazyFrame> {
    let t = col("time");
    Ok(ctx.store.scan(table)?.filter(t.clone().gt_eq(lit(w0).cast(utc_us())).and(t.lt(lit(w1).cast(utc_us())))))
}

/// [first, last] time of a table in microseconds, None when empty.
fn span(ctx: &Ctx, table: &Table) -> Result<Option<(i64, i64)>> {
    let t = col("time").cast(DataType::Int64);
    let df = collect(ctx.store.scan(table)?.select([t.clone().min().alias("lo"), t.max().alias("hi")]), "time span")?;
    Ok(i64s(&df, "lo")?[0].zip(i64s(&df, "hi")?[0]))
}

/// Windows `[w0, w0 + WINDOW)` covering every table's times.
fn windows(ctx: &Ctx) -> Result<Vec<i64>> {
    let spans: Vec<(i64, i64)> = [&GPU_UTIL, &CPU_UTIL, &MEM_UTIL]
        .iter()
        .map(|t| span(ctx, t))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();
    let (Some(lo), Some(hi)) = (spans.iter().map(|s| s.0).min(), spans.iter().map(|s| s.1).max()) else {
        return Ok(vec![]);
    };
    let first = lo.div_euclid(MINUTE_US) * MINUTE_US;
    Ok((0..).map(|k| first + k * WINDOW_US).take_while(|w| *w <= hi).collect())
}

/// Machine -> GPU columns ever non-null in `gpu_util` (its class).
fn classes(ctx: &Ctx, wins: &[i64]) -> Result<BTreeMap<String, usize>> {
    let mut seen: BTreeMap<String, [bool; GPU_COLUMNS]> = BTreeMap::new();
    for &w0 in wins {
        let aggs: Vec<Expr> =
            gpu_cols().into_iter().enumerate().map(|(i, c)| c.is_not_null().any(true).alias(format!("g{i}"))).collect();
        let df = collect(
            window(ctx, &GPU_UTIL, w0, w0 + WINDOW_US)?.group_by([col("machine")]).agg(aggs),
            "machine classes",
        )?;
        let machines = strs(&df, "machine")?;
        for i in 0..GPU_COLUMNS {
            let any = df
                .column(&format!("g{i}"))
                .and_then(|c| c.bool().cloned())
                .map_err(|e| Error::polars("machine classes".to_string(), e))?;
            for (m, a) in machines.iter().zip(any.iter()) {
                seen.entry(m.clone().unwrap_or_default()).or_default()[i] |= a.unwrap_or(false);
            }
        }
    }
    Ok(seen.into_iter().map(|(m, s)| (m, s.iter().filter(|b| **b).count())).collect())
}

fn class_frame(classes: &BTreeMap<String, usize>) -> Result<DataFrame> {
    let (m, c): (Vec<&str>, Vec<i64>) =
        classes.iter().filter(|(_, c)| **c > 0).map(|(m, c)| (m.as_str(), *c as i64)).unzip();
    df!("machine" => m, "class" => c).map_err(|e| Error::polars("class frame".to_string(), e))
}

/// Mean of the non-null GPU columns (null when all are null), summed left
/// to right.
fn gpu_mean() -> Expr {
    let cols = gpu_cols();
    let sum =
        cols.iter().skip(1).fold(cols[0].clone().fill_null(lit(0.0)), |acc, c| acc + c.clone().fill_null(lit(0.0)));
    let n = cols.iter().skip(1).fold(cols[0].clone().is_not_null().cast(DataType::Float64), |acc, c| {
        acc + c.clone().is_not_null().cast(DataType::Float64)
    });
    when(n.clone().gt(lit(0.0))).then(sum / n).otherwise(lit(NULL).cast(DataType::Float64))
}

/// One window of a metric: (time, machine, v) rows.
fn metric_rows(ctx: &Ctx, metric: &str, w0: i64, w1: i64) -> Result<LazyFrame> {
    let (table, value) = match metric {
        "gpu" => (&GPU_UTIL, gpu_mean()),
        "cpu" => (&CPU_UTIL, col("cpu_util_pct")),
        _ => (
            &MEM_UTIL,
            when(col("mem_total_kib").neq(lit(0.0)))
                .then(lit(100.0) * (col("mem_total_kib") - col("mem_free_kib")) / col("mem_total_kib"))
                .otherwise(lit(NULL).cast(DataType::Float64)),
        ),
    };
    Ok(window(ctx, table, w0, w1)?.select([col("time"), col("machine"), value.cast(DataType::Float64).alias("v")]))
}

/// Per-minute P50/P90 across the machines of each class, for one window.
fn window_quantiles(ctx: &Ctx, metric: &str, classes: &DataFrame, w0: i64) -> Result<DataFrame> {
    let lf = metric_rows(ctx, metric, w0, w0 + WINDOW_US)?
        .filter(col("v").is_not_null().and(col("v").is_finite()))
        .join(classes.clone().lazy(), [col("machine")], [col("machine")], JoinArgs::new(JoinType::Inner))
        .group_by([col("time"), col("class")])
        .agg([
            col("v").quantile(lit(0.5), QuantileMethod::Linear).alias("p50"),
            col("v").quantile(lit(0.9), QuantileMethod::Linear).alias("p90"),
        ]);
    collect(lf, "philly.machine-util quantiles")
}

type Series_ = BTreeMap<(i64, &'static str), Vec<f64>>;

/// (class, P50|P90) -> per-minute values of one metric.
fn per_minute(ctx: &Ctx, metric: &str, classes: &DataFrame, wins: &[i64]) -> Result<Series_> {
    let mut acc: Series_ = BTreeMap::new();
    for &w0 in wins {
        let df = window_quantiles(ctx, metric, classes, w0)?;
        let class = i64s(&df, "class")?;
        for stat in ["P50", "P90"] {
            let vals = f64s(&df, &stat.to_lowercase())?;
            for (c, v) in class.iter().zip(vals) {
                if let (Some(c), Some(v)) = (c, v.filter(|v| v.is_finite())) {
                    acc.entry((*c, stat)).or_default().push(v);
                }
            }
        }
    }
    Ok(acc)
}

pub fn machine_util(ctx: &Ctx, _: &Args) -> Result<Output> {
    let wins = windows(ctx)?;
    let classes = classes(ctx, &wins)?;
    let frame = class_frame(&classes)?;
    let mut out = Output::new(
        "philly.machine-util",
        "Machine utilization over time by machine class (PAI Fig 7 method on Philly)",
        "tracelab's own reconstruction (the PAI NSDI'22 Fig 7 method; the Philly notebook has no such figure). Per \
         minute and machine: GPU = mean of the machine's non-null gpu<i>_util_pct columns in philly/gpu_util; CPU = \
         philly/cpu_util.cpu_util_pct; memory = 100 * (mem_total - mem_free) / mem_total (philly/mem_util, total != 0). \
         Machine class = the number of GPU columns ever non-null for that machine in philly/gpu_util (2 or 8; \
         machines never reporting a GPU, or absent from gpu_util, are excluded), NOT the published machine list \
         (upstream issue #8; table `list-disagrees` lists the machines where they differ). Per minute (UTC) and \
         class: P50 and P90 across machines (linear interpolation, numpy default); parts gpu, cpu, mem give the \
         distribution of those per-minute values over minutes. Utilization in %.",
    );
    for metric in METRICS {
        let series = per_minute(ctx, metric, &frame, &wins)?
            .into_iter()
            .map(|((c, stat), v)| (format!("{c}-GPU {stat}"), Dist::from_samples(v)))
            .collect();
        let x_label = match metric {
            "gpu" => "GPU utilization (%)",
            "cpu" => "CPU utilization (%)",
            _ => "Memory utilization (%)",
        };
        out.dists(metric, x_label, series);
    }
    let (counts, disagree) = list_tables(ctx, &classes)?;
    out.table("classes", counts);
    out.table("list-disagrees", disagree);
    Ok(out)
}

/// Machines per class (utilization file vs machine list) and the machines
/// where they disagree, with the GPUs jobs were placed on there.
fn list_tables(ctx: &Ctx, classes: &BTreeMap<String, usize>) -> Result<(ResultTable, ResultTable)> {
    let list = collect(ctx.store.scan(&MACHINES)?.select([col("machine"), col("gpus")]), "machine list")?;
    let listed: BTreeMap<String, i64> =
        strs(&list, "machine")?.into_iter().zip(i64s(&list, "gpus")?).filter_map(|(m, g)| Some((m?, g?))).collect();
    let placed_lf =
        ctx.store.scan(&PLACEMENTS)?.group_by([col("machine")]).agg([(col("gpu").max() + lit(1i64)).alias("n")]);
    let placed = collect(placed_lf, "placed GPUs")?;
    let placed: BTreeMap<String, i64> =
        strs(&placed, "machine")?.into_iter().zip(i64s(&placed, "n")?).filter_map(|(m, g)| Some((m?, g?))).collect();
    let mut counts: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
    for c in classes.values() {
        counts.entry(*c as i64).or_default().0 += 1;
    }
    for g in listed.values() {
        counts.entry(*g).or_default().1 += 1;
    }
    let mut t = ResultTable::new(&["gpus", "machines_in_gpu_util", "machines_in_list"]);
    for (g, (u, l)) in counts {
        t.push(vec![Cell::Int(g), Cell::Int(u), Cell::Int(l)]);
    }
    let mut d = ResultTable::new(&["machine", "gpus_in_gpu_util", "gpus_in_list", "highest_placed_gpu_plus_1"]);
    for (m, c) in classes {
        let l = listed.get(m).copied();
        if l != Some(*c as i64) {
            d.push(vec![Cell::from(m.as_str()), Cell::Int(*c as i64), l.into(), placed.get(m).copied().into()]);
        }
    }
    Ok((t, d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testkit;
    use crate::analysis::Body;

    #[test]
    fn per_minute_class_quantiles_and_list_disagreements() {
        let e = None::<f64>;
        let gpu = df!(
            "time" => [0i64, 0, 0, 0],
            "machine" => ["m1", "m2", "m3", "m4"],
            "gpu0_util_pct" => [Some(10.0), Some(0.0), Some(30.0), Some(0.0)],
            "gpu1_util_pct" => [Some(20.0), Some(40.0), e, Some(10.0)],
            "gpu2_util_pct" => [e, e, e, Some(20.0)],
            "gpu3_util_pct" => [e, e, e, Some(30.0)],
            "gpu4_util_pct" => [e, e, e, Some(40.0)],
            "gpu5_util_pct" => [e, e, e, Some(50.0)],
            "gpu6_util_pct" => [e, e, e, Some(60.0)],
            "gpu7_util_pct" => [e, e, e, Some(70.0)],
        )
        .unwrap();
        // m3's gpu1 is non-null in a later minute, so m3 is a 2-GPU machine.
        let gpu = gpu.vstack(&df!("time" => [60i64], "machine" => ["m3"], "gpu0_util_pct" => [e], "gpu1_util_pct" => [Some(1.0)], "gpu2_util_pct" => [e], "gpu3_util_pct" => [e], "gpu4_util_pct" => [e], "gpu5_util_pct" => [e], "gpu6_util_pct" => [e], "gpu7_util_pct" => [e]).unwrap()).unwrap();
        let cpu =
            df!("time" => [0i64, 0, 0], "machine" => ["m1", "m2", "m3"], "cpu_util_pct" => [10.0, 20.0, 40.0]).unwrap();
        let mem = df!("time" => [0i64, 0, 0, 0], "machine" => ["m1", "m2", "m3", "m4"], "mem_total_kib" => [100.0, 100.0, 100.0, 0.0], "mem_free_kib" => [90.0, 80.0, 70.0, 0.0]).unwrap();
        let list = df!("machine" => ["m1", "m2", "m4"], "gpus" => [8i64, 2, 8]).unwrap();
        let tiny = testkit::store(vec![
            (&GPU_UTIL, gpu),
            (&CPU_UTIL, cpu),
            (&MEM_UTIL, mem),
            (&MACHINES, list),
            (&PLACEMENTS, df!("job_id" => ["j"], "attempt" => [0i64], "machine" => ["m1"], "gpu" => [1i64]).unwrap()),
        ]);
        let out = machine_util(
            &tiny.ctx,
            &Args::validate(crate::analysis::find("philly.machine-util").unwrap(), &[]).unwrap(),
        )
        .unwrap();
        let q = |part: &str, label: &str, p: f64| match &out.part(part).unwrap().body {
            Body::Dists { series, .. } => series.iter().find(|s| s.0 == label).unwrap().1.quantile(p),
            _ => unreachable!(),
        };
        // Minute 0, 2-GPU machines m1, m2, m3: GPU means 15, 20, 30 (m3: only gpu0 non-null);
        // P50 = 20, P90 = 20 + 0.8 * (30 - 20) = 28. Minute 1: m3 alone, 1.0.
        assert_eq!((q("gpu", "2-GPU P50", 1.0), q("gpu", "2-GPU P90", 1.0)), (20.0, 28.0));
        assert_eq!(q("gpu", "2-GPU P50", 0.0), 1.0);
        // m4: mean of 0..70 step 10 = 35.
        assert_eq!(q("gpu", "8-GPU P90", 0.5), 35.0);
        // CPU 10, 20, 40: P50 20, P90 20 + 0.8 * 20 = 36.
        assert_eq!((q("cpu", "2-GPU P50", 0.5), q("cpu", "2-GPU P90", 0.5)), (20.0, 36.0));
        // Memory 10, 20, 30 % (m4 total 0 skipped): P90 28.
        assert_eq!(q("mem", "2-GPU P90", 0.5), 28.0);
        let Body::Table(t) = &out.part("list-disagrees").unwrap().body else { unreachable!() };
        // m1 is 2-GPU in gpu_util, 8 in the list; m3 is missing from the list.
        assert_eq!(t.column("machine").unwrap(), vec![&Cell::from("m1"), &Cell::from("m3")]);
        assert_eq!(t.column("highest_placed_gpu_plus_1").unwrap(), vec![&Cell::Int(2), &Cell::Null]);
    }
}
