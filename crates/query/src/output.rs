//! Query results for the presentation layer: a Polars frame becomes a
//! neutral [`present::Table`] (typed columns; timestamps as instants,
//! durations as seconds, lists as JSON array text), which
//! `tracelab_present` writes as a terminal table, CSV, JSON or JSONL; and
//! back, so any table (an analysis result, a listing) can be written as
//! Parquet, the only file a query writes.

use std::path::Path;

use chrono::{DateTime, NaiveDate};
use polars::prelude::*;

use tracelab_present::{self as present, Kind, Value};
use tracelab_schema::error::{Error, IoContext, Result};

/// `df` as a neutral table.
pub fn table(df: &DataFrame) -> present::Table {
    let columns = df.columns().iter().map(|c| column(c.name(), c.dtype())).collect();
    let mut t = present::Table::new(columns);
    for i in 0..df.height() {
        t.push(df.columns().iter().map(|c| c.get(i).map_or(Value::Null, |av| value(&av))).collect());
    }
    t
}

fn column(name: &str, dtype: &DataType) -> present::Column {
    let kind = match dtype {
        d if d.is_integer() => Kind::Int,
        d if d.is_float() => Kind::Float,
        DataType::Boolean => Kind::Bool,
        DataType::Datetime(..) => Kind::Timestamp,
        DataType::Duration(_) => return present::Column::float(name).with_unit("s"),
        _ => Kind::Text,
    };
    present::Column::new(name, kind)
}

fn value(av: &AnyValue) -> Value {
    match av {
        AnyValue::Null => Value::Null,
        AnyValue::Boolean(b) => Value::Bool(*b),
        AnyValue::Float32(x) => Value::Float(f64::from(*x)),
        AnyValue::Float64(x) => Value::Float(*x),
        AnyValue::String(s) => Value::Text(s.to_string()),
        AnyValue::StringOwned(s) => Value::Text(s.to_string()),
        AnyValue::Date(d) => Value::Text(date(*d)),
        AnyValue::Datetime(v, tu, _) | AnyValue::DatetimeOwned(v, tu, _) => instant(*v, *tu),
        AnyValue::Duration(v, tu) => Value::Float(*v as f64 / per_second(*tu)),
        AnyValue::UInt64(n) => Value::UInt(*n),
        AnyValue::List(items) | AnyValue::Array(items, _) => Value::Text(json_array(items)),
        av if av.is_integer() => av.extract::<i64>().map_or_else(|| Value::Text(av.to_string()), Value::Int),
        other => Value::Text(other.to_string()),
    }
}

/// A list cell (`ARRAY_AGG`, `STRING_TO_ARRAY`) as JSON array text, every
/// element written as its own cell would be (timestamps RFC 3339, durations
/// in seconds), nested lists as nested arrays. Polars' own rendering
/// elides the middle of a long list ("[1, 2, … 9]") and does not escape
/// quotes in strings, which would lose data in CSV, JSON and Parquet.
fn json_array(items: &Series) -> String {
    let elements: Vec<String> = items
        .iter()
        .map(|av| match av {
            AnyValue::List(inner) | AnyValue::Array(inner, _) => json_array(&inner),
            other => present::json::value(&value(&other)),
        })
        .collect();
    format!("[{}]", elements.join(","))
}

fn per_second(tu: TimeUnit) -> f64 {
    match tu {
        TimeUnit::Nanoseconds => 1e9,
        TimeUnit::Microseconds => 1e6,
        TimeUnit::Milliseconds => 1e3,
    }
}

/// An instant in UTC; out of chrono's range it stays the raw number.
fn instant(v: i64, tu: TimeUnit) -> Value {
    let dt = match tu {
        TimeUnit::Nanoseconds => Some(DateTime::from_timestamp_nanos(v)),
        TimeUnit::Microseconds => DateTime::from_timestamp_micros(v),
        TimeUnit::Milliseconds => DateTime::from_timestamp_millis(v),
    };
    dt.map_or(Value::Int(v), Value::Timestamp)
}

fn date(days: i32) -> String {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).expect("valid date");
    epoch.checked_add_signed(chrono::Duration::days(days.into())).map_or_else(|| days.to_string(), |d| d.to_string())
}

/// A neutral table as a frame (for Parquet): typed columns, timestamps in
/// microseconds UTC.
pub fn frame(t: &present::Table) -> Result<DataFrame> {
    let columns = t.columns.iter().enumerate().map(|(i, c)| series(c, t.rows.iter().map(|r| &r[i])).into()).collect();
    DataFrame::new_infer_height(columns).map_err(|e| Error::polars("result table", e))
}

fn series<'a>(c: &present::Column, cells: impl Iterator<Item = &'a Value>) -> Series {
    let name = c.name.as_str().into();
    match c.kind {
        Kind::Int => Series::new(name, cells.map(as_i64).collect::<Vec<_>>()),
        Kind::Float => Series::new(name, cells.map(as_f64).collect::<Vec<_>>()),
        Kind::Bool => {
            Series::new(name, cells.map(|v| if let Value::Bool(b) = v { Some(*b) } else { None }).collect::<Vec<_>>())
        }
        Kind::Timestamp => {
            let micros: Vec<Option<i64>> =
                cells.map(|v| if let Value::Timestamp(t) = v { Some(t.timestamp_micros()) } else { None }).collect();
            Series::new(name, micros)
                .cast(&DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC)))
                .expect("i64 casts to a datetime")
        }
        Kind::Text => Series::new(name, cells.map(as_text).collect::<Vec<_>>()),
    }
}

fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::UInt(u) => i64::try_from(*u).ok(),
        _ => None,
    }
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Float(x) => Some(*x),
        Value::Int(i) => Some(*i as f64),
        Value::UInt(u) => Some(*u as f64),
        _ => None,
    }
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Text(s) => Some(s.clone()),
        other => Some(present::json::value(other).trim_matches('"').to_string()),
    }
}

/// Writes `df` to a Parquet file (zstd), the only file a query writes.
pub fn write_parquet(df: &mut DataFrame, path: &Path) -> Result<()> {
    let file = std::fs::File::create(path).at(path)?;
    parquet_to(df, file).map_err(|e| Error::polars(format!("{}: cannot write Parquet", path.display()), e))
}

/// `df` as the bytes of a Parquet file, as [`write_parquet`] writes it
/// (`-o -`: Parquet to stdout).
pub fn parquet_bytes(df: &mut DataFrame) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    parquet_to(df, &mut bytes).map_err(|e| Error::polars("cannot write Parquet to stdout".to_string(), e))?;
    Ok(bytes)
}

fn parquet_to(df: &mut DataFrame, to: impl std::io::Write) -> PolarsResult<()> {
    ParquetWriter::new(to).with_compression(ParquetCompression::Zstd(None)).finish(df).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_of_everything() -> DataFrame {
        df!(
            "name" => [Some("a,b"), None, Some("")],
            "n" => [1i64, 2, 3],
            "x" => [0.1 + 0.2, f64::NAN, -1e-20],
        )
        .unwrap()
    }

    #[test]
    fn a_frame_becomes_typed_columns_and_cells() {
        let t = table(&frame_of_everything());
        let kinds: Vec<Kind> = t.columns.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [Kind::Text, Kind::Int, Kind::Float]);
        assert_eq!(t.rows[1][..2], [Value::Null, Value::Int(2)]);
        assert!(matches!(t.rows[1][2], Value::Float(x) if x.is_nan()));
        assert_eq!(present::csv::render(&t), "name,n,x\n\"a,b\",1,0.3\n,2,NaN\n\"\",3,-1e-20\n");
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let at = |v, tu| present::json::value(&instant(v, tu));
        assert_eq!(at(1_500_000, TimeUnit::Microseconds), "\"1970-01-01T00:00:01.500Z\"");
        assert_eq!(at(4_550_879_000_000, TimeUnit::Microseconds), "\"1970-02-22T16:07:59Z\"");
        assert_eq!(date(18_000), "2019-04-14");
    }

    #[test]
    fn lists_are_whole_json_arrays() {
        // Twelve strings: Polars' display of the same list elides all but
        // the first two and the last ("[\"s0\", \"s1\", … \"s11\"]").
        let strings: Vec<String> = (0..12).map(|i| format!("s{i}")).collect();
        let mut quoted = strings.clone();
        quoted[3] = "say \"hi\"".into();
        let texts = Series::new("t".into(), quoted);
        let nested = Series::new("n".into(), [Series::new("".into(), [1i64, 2]), Series::new("".into(), [3i64])]);
        let secs = Series::new("d".into(), [1_500_000i64, 2_000_000])
            .cast(&DataType::Duration(TimeUnit::Microseconds))
            .unwrap();
        let floats = Series::new("f".into(), [Some(0.5), None, Some(f64::NAN)]);
        let cells: Vec<Value> =
            [texts, nested, secs, floats].into_iter().map(|items| value(&AnyValue::List(items))).collect();
        let want = [
            r#"["s0","s1","s2","say \"hi\"","s4","s5","s6","s7","s8","s9","s10","s11"]"#,
            "[[1,2],[3]]",
            "[1.5,2.0]",
            "[0.5,null,null]",
        ];
        for (cell, want) in cells.iter().zip(want) {
            assert_eq!(cell, &Value::Text(want.to_string()));
        }
        assert_eq!(column("l", &DataType::List(Box::new(DataType::String))).kind, Kind::Text);
    }

    #[test]
    fn a_table_round_trips_through_a_frame() {
        let df = frame_of_everything();
        let back = frame(&table(&df)).unwrap();
        assert!(back.equals_missing(&df), "{back}\n{df}");
    }
}
