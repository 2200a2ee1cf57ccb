//! Small bridges between Polars frames and the typed results: collecting
//! with context, reading columns as plain vectors, and reducing a column to
//! a [`Dist`] inside the engine (value counts), so millions of samples never
//! travel as a Rust vector.

use polars::prelude::*;

use tracelab_schema::error::{Error, Result};
use tracelab_stats::Dist;

/// Collects a lazy frame; errors name the analysis step.
pub fn collect(lf: LazyFrame, what: &str) -> Result<DataFrame> {
    lf.collect().map_err(|e| Error::polars(what.to_string(), e))
}

/// Collects `plans` in order on a second thread, one ahead of `f`, which
/// gets each frame with its columns' chunks aligned. Row loops over large
/// tables (the Philly utilization windows) then overlap the reading and
/// decoding of the next window, which runs on one core, with their own
/// work on the other. The first error, from either side, stops both.
pub fn for_each_collected(plans: Vec<LazyFrame>, what: &str, mut f: impl FnMut(DataFrame) -> Result<()>) -> Result<()> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<DataFrame>>(1);
        scope.spawn(move || {
            for lf in plans {
                let df = collect(lf, what).map(|mut df| {
                    df.align_chunks_par();
                    df
                });
                let failed = df.is_err();
                if tx.send(df).is_err() || failed {
                    break;
                }
            }
        });
        // Returning early drops `rx`, so the reader stops at its next send.
        for df in rx {
            f(df?)?;
        }
        Ok(())
    })
}

/// A column of type Float64, borrowed (no copy, no cast).
pub fn f64_col<'a>(df: &'a DataFrame, name: &str) -> Result<&'a Float64Chunked> {
    df.column(name).and_then(|c| c.f64()).map_err(|e| Error::polars(format!("column {name}"), e))
}

/// A column of type Int64, borrowed (no copy, no cast).
pub fn i64_col<'a>(df: &'a DataFrame, name: &str) -> Result<&'a Int64Chunked> {
    df.column(name).and_then(|c| c.i64()).map_err(|e| Error::polars(format!("column {name}"), e))
}

/// A column of type String, borrowed (no copy, no cast).
pub fn str_col<'a>(df: &'a DataFrame, name: &str) -> Result<&'a StringChunked> {
    df.column(name).and_then(|c| c.str()).map_err(|e| Error::polars(format!("column {name}"), e))
}

/// A column as f64 values (nulls as None).
pub fn f64s(df: &DataFrame, name: &str) -> Result<Vec<Option<f64>>> {
    let s = df
        .column(name)
        .and_then(|c| c.cast(&DataType::Float64))
        .map_err(|e| Error::polars(format!("column {name}"), e))?;
    let ca = s.f64().map_err(|e| Error::polars(format!("column {name}"), e))?;
    Ok(ca.iter().collect())
}

/// A column as strings (nulls as None).
pub fn strs(df: &DataFrame, name: &str) -> Result<Vec<Option<String>>> {
    let s = df
        .column(name)
        .and_then(|c| c.cast(&DataType::String))
        .map_err(|e| Error::polars(format!("column {name}"), e))?;
    let ca = s.str().map_err(|e| Error::polars(format!("column {name}"), e))?;
    Ok(ca.iter().map(|o| o.map(str::to_string)).collect())
}

/// A column as i64 values (nulls as None).
pub fn i64s(df: &DataFrame, name: &str) -> Result<Vec<Option<i64>>> {
    let s = df
        .column(name)
        .and_then(|c| c.cast(&DataType::Int64))
        .map_err(|e| Error::polars(format!("column {name}"), e))?;
    let ca = s.i64().map_err(|e| Error::polars(format!("column {name}"), e))?;
    Ok(ca.iter().collect())
}

/// The distribution of expression `value` over `lf`, nulls, NaN and
/// infinities excluded (every caller states that in its definition),
/// counted in the engine.
pub fn dist(lf: LazyFrame, value: Expr, what: &str) -> Result<Dist> {
    let counted = lf
        .select([value.cast(DataType::Float64).alias("v")])
        .filter(col("v").is_not_null().and(col("v").is_finite()))
        .group_by([col("v")])
        .agg([len().alias("n")])
        // Sorted in the engine (parallel): Dist then merges a sorted run in
        // one pass instead of sorting millions of pairs itself.
        .sort(["v"], SortMultipleOptions::default());
    let df = collect(counted, what)?;
    let values = f64s(&df, "v")?;
    let counts = i64s(&df, "n")?;
    Ok(Dist::from_counts(values.into_iter().zip(counts).map(|(v, n)| (v.unwrap_or(0.0), n.unwrap_or(0) as u64))))
}

/// [`dist`] for values that are mostly distinct (per-instance usages,
/// runtimes, byte counts): sorted in the engine, runs of equal values
/// counted in one pass. Hash value counts over millions of distinct values
/// cost about twice as much; the sorted values (8 bytes each) are held in
/// memory meanwhile, so this is for frames of a few million rows.
pub fn dist_by_sort(lf: LazyFrame, value: Expr, what: &str) -> Result<Dist> {
    let sorted = lf
        .select([value.cast(DataType::Float64).alias("v")])
        .filter(col("v").is_not_null().and(col("v").is_finite()))
        .sort(["v"], SortMultipleOptions::default());
    let df = collect(sorted, what)?;
    let values = df.column("v").and_then(|c| c.f64()).map_err(|e| Error::polars(what.to_string(), e))?;
    // Counted straight into the distribution: the sorted column is the only
    // other copy held (42 M values each for Philly's host utilization).
    let mut dist = Dist::sorted_builder(values.len());
    values.into_no_null_iter().for_each(|v| dist.push(v));
    Ok(dist.finish())
}

/// [`dists_by`] for mostly distinct values, as [`dist_by_sort`] does it:
/// the (label, value) pairs sorted by value in the engine, each label's
/// runs counted in one pass.
pub fn dists_by_sort(lf: LazyFrame, by: Expr, value: Expr, labels: &[&str], what: &str) -> Result<Vec<(String, Dist)>> {
    let sorted = lf
        .select([by.cast(DataType::String).alias("k"), value.cast(DataType::Float64).alias("v")])
        .filter(col("v").is_not_null().and(col("v").is_finite()).and(col("k").is_not_null()))
        .sort(["v"], SortMultipleOptions::default());
    let df = collect(sorted, what)?;
    let keys = df.column("k").and_then(|c| c.str().cloned()).map_err(|e| Error::polars(what.to_string(), e))?;
    let values = df.column("v").and_then(|c| c.f64().cloned()).map_err(|e| Error::polars(what.to_string(), e))?;
    let mut dists: Vec<_> = labels.iter().map(|_| Dist::sorted_builder(0)).collect();
    for (k, v) in keys.iter().zip(values.into_no_null_iter()) {
        if let Some(i) = labels.iter().position(|l| Some(*l) == k) {
            dists[i].push(v);
        }
    }
    Ok(labels.iter().zip(dists).map(|(l, d)| (l.to_string(), d.finish())).collect())
}

/// Distributions of `value` per distinct `by` label (string), in the order
/// given by `labels` (labels with no rows give an empty distribution).
pub fn dists_by(lf: LazyFrame, by: Expr, value: Expr, labels: &[&str], what: &str) -> Result<Vec<(String, Dist)>> {
    let counted = lf
        .select([by.cast(DataType::String).alias("k"), value.cast(DataType::Float64).alias("v")])
        .filter(col("v").is_not_null().and(col("v").is_finite()).and(col("k").is_not_null()))
        .group_by([col("k"), col("v")])
        .agg([len().alias("n")])
        .sort(["v"], SortMultipleOptions::default());
    let df = collect(counted, what)?;
    let (keys, values, counts) = (strs(&df, "k")?, f64s(&df, "v")?, i64s(&df, "n")?);
    let mut out: Vec<(String, Vec<(f64, u64)>)> = labels.iter().map(|l| (l.to_string(), Vec::new())).collect();
    for ((k, v), n) in keys.into_iter().zip(values).zip(counts) {
        if let Some(slot) = out.iter_mut().find(|(l, _)| Some(l.as_str()) == k.as_deref()) {
            slot.1.push((v.unwrap_or(0.0), n.unwrap_or(0) as u64));
        }
    }
    Ok(out.into_iter().map(|(l, pairs)| (l, Dist::from_counts(pairs))).collect())
}

/// Seconds between two timestamp expressions, as f64.
pub fn seconds_between(later: Expr, earlier: Expr) -> Expr {
    (later - earlier).dt().total_microseconds(false).cast(DataType::Float64) / lit(1e6)
}

/// A scalar f64 from a one-row frame.
pub fn scalar(df: &DataFrame, name: &str) -> Result<f64> {
    Ok(f64s(df, name)?.first().copied().flatten().unwrap_or(f64::NAN))
}

/// A UTC timestamp expression converted to the trace's local wall clock
/// ([`tracelab_schema::Trace::local_tz`]), for hour-of-day, weekday and date binning.
pub fn local(ts: Expr, trace: tracelab_schema::Trace) -> Expr {
    let tz: chrono_tz::Tz = trace.local_tz().parse().expect("the zones of Trace::local_tz are valid IANA names");
    ts.dt().convert_time_zone(TimeZone::from_chrono(&tz))
}

#[cfg(test)]
mod tests {
    use polars::df;

    use super::*;

    /// Values 3, 1, 3, 2 with a null, a NaN and an infinity (all dropped):
    /// distinct 1, 2, 3 with counts 1, 1, 2, by either method; per label
    /// a = {3, 1, 3}, b = {2}, c none.
    #[test]
    fn sorted_and_hashed_distributions_agree_by_hand() {
        let df = df!(
            "k" => [Some("a"), Some("a"), Some("a"), Some("b"), Some("b"), Some("b"), None],
            "v" => [Some(3.0), Some(1.0), Some(3.0), Some(2.0), None, Some(f64::NAN), Some(f64::INFINITY)]
        )
        .unwrap();
        let sorted = dist_by_sort(df.clone().lazy(), col("v"), "test").unwrap();
        assert_eq!(sorted.values(), &[1.0, 2.0, 3.0]);
        assert_eq!(sorted.counts(), &[1, 1, 2]);
        assert_eq!(sorted, dist(df.clone().lazy(), col("v"), "test").unwrap());
        let by = dists_by_sort(df.clone().lazy(), col("k"), col("v"), &["a", "b", "c"], "test").unwrap();
        assert_eq!((by[0].1.values(), by[0].1.counts()), (&[1.0, 3.0][..], &[1, 2][..]));
        assert_eq!((by[1].1.n(), by[2].1.n()), (1, 0));
        assert_eq!(by, dists_by(df.lazy(), col("k"), col("v"), &["a", "b", "c"], "test").unwrap());
    }
}
