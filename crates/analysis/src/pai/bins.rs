//! Time bins for the paper-only per-time reconstructions (Fig 7 machine
//! utilization, Fig 9 GPU sharing, the V100 load matrix). The public trace
//! has no time series (`docs/definitions.md#paimachine-util`, upstream #226): a row "covers" a
//! bin when its `[start_time, end_time)` interval overlaps the bin, i.e. bins
//! `floor(start / bin) ..= floor((end - 1 us) / bin)` on epoch microseconds.
//! Rows with a null time or `end_time <= start_time` cover no bin.
//!
//! Sweeps work on change events, never on the rows x bins product: a row adds
//! its value at its first bin and removes it at the bin after its last, so a
//! running sum per key gives every bin's total (sort-and-sweep).

use polars::prelude::*;

use crate::params::{Param, Seconds};

/// The time bin of the per-time reconstructions (Fig 7, Fig 9).
pub const BIN: Param<Seconds> = Param::duration("bin", "5m", "time bin (sampling interval), e.g. 5m, 1h");

/// The first bin a row covers.
pub fn first_bin(start: Expr, bin_s: i64) -> Expr {
    start.cast(DataType::Int64).floor_div(lit(bin_s * 1_000_000))
}

/// The bin after the last one a row covers (exclusive end).
pub fn end_bin(end: Expr, bin_s: i64) -> Expr {
    (end.cast(DataType::Int64) - lit(1i64)).floor_div(lit(bin_s * 1_000_000)) + lit(1i64)
}

/// Keeps rows that cover at least one bin.
pub fn covers_time() -> Expr {
    col("start_time").is_not_null().and(col("end_time").is_not_null()).and(col("end_time").gt(col("start_time")))
}

/// `e.over(by)` (a window expression; fallible in this Polars version).
pub fn over(e: Expr, by: &[&str]) -> tracelab_schema::error::Result<Expr> {
    e.over(by.iter().map(|c| col(*c)).collect::<Vec<_>>())
        .map_err(|err| tracelab_schema::error::Error::polars("window expression", err))
}
