//! How every Parquet file of a store is written: the canonical column types
//! and the compression. Ingest, the derived-frame cache and the report cache
//! take these settings from here, so one store is written one way.

use polars::prelude::*;
use tracelab_schema::{ColType, Table};

/// Compression of every Parquet file tracelab writes: zstd level 1. Level
/// 3 (the default) spent a third of ingest time in the compressor for files
/// only a few percent smaller; level 1 keeps ingest I/O-bound.
pub fn compression() -> ParquetCompression {
    ParquetCompression::Zstd(Some(
        polars::polars_utils::compression::ZstdLevel::try_new(1).expect("1 is a valid zstd level"),
    ))
}

/// The Polars data type a canonical column is stored as.
pub fn dtype(ty: ColType) -> DataType {
    match ty {
        ColType::Str => DataType::String,
        ColType::I64 => DataType::Int64,
        ColType::F64 => DataType::Float64,
        ColType::Timestamp => DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC)),
        ColType::Date => DataType::Date,
    }
}

/// The Polars schema of a canonical table.
pub fn polars_schema(table: &Table) -> Schema {
    table.columns.iter().map(|c| Field::new(PlSmallStr::from_str(c.name), dtype(c.ty))).collect()
}
