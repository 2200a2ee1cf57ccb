//! Writers for query results: an aligned terminal table (comfy-table), CSV,
//! JSON and Parquet. Text output is deterministic: floats are rounded to a
//! fixed number of significant digits (12 in CSV and JSON, 6 in the terminal
//! table), so the last-bit noise of a parallel sum never shows, and
//! timestamps are RFC 3339 in UTC.

use std::fmt::Write as _;
use std::path::Path;

use chrono::{DateTime, NaiveDate};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};
use polars::prelude::*;

use tracelab_schema::error::{Error, IoContext, Result};

/// Significant digits of floats in CSV and JSON: far below any tolerance a
/// reader would compare with (1e-9), far above parallel-summation noise.
const DATA_DIGITS: usize = 12;
/// Significant digits of floats in the terminal table.
const TABLE_DIGITS: usize = 6;

/// One value of a result, formatted.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Null,
    Bool(bool),
    /// A number as text (integers exactly, floats rounded); `None` for NaN
    /// and infinities, which JSON cannot represent.
    Number(Option<String>, String),
    Text(String),
}

fn value(av: &AnyValue, digits: usize) -> Value {
    match av {
        AnyValue::Null => Value::Null,
        AnyValue::Boolean(b) => Value::Bool(*b),
        AnyValue::Float32(x) => float(f64::from(*x), digits),
        AnyValue::Float64(x) => float(*x, digits),
        AnyValue::String(s) => Value::Text(s.to_string()),
        AnyValue::StringOwned(s) => Value::Text(s.to_string()),
        AnyValue::Date(d) => Value::Text(date(*d)),
        AnyValue::Datetime(v, tu, _) => Value::Text(timestamp(*v, *tu)),
        AnyValue::DatetimeOwned(v, tu, _) => Value::Text(timestamp(*v, *tu)),
        AnyValue::Duration(v, tu) => float(duration_s(*v, *tu), digits),
        av if av.is_integer() => {
            let s = av.to_string();
            Value::Number(Some(s.clone()), s)
        }
        other => Value::Text(other.to_string()),
    }
}

/// A float rounded to `digits` significant digits, shortest round-trip text.
fn float(x: f64, digits: usize) -> Value {
    if !x.is_finite() {
        return Value::Number(None, x.to_string());
    }
    let rounded: f64 = format!("{:.*e}", digits - 1, x).parse().unwrap_or(x);
    let abs = rounded.abs();
    let s = if abs == 0.0 || (1e-6..1e15).contains(&abs) { format!("{rounded}") } else { format!("{rounded:e}") };
    // -0 after rounding a tiny negative number reads as noise.
    let s = if s == "-0" { "0".to_string() } else { s };
    Value::Number(Some(s.clone()), s)
}

fn duration_s(v: i64, tu: TimeUnit) -> f64 {
    match tu {
        TimeUnit::Nanoseconds => v as f64 / 1e9,
        TimeUnit::Microseconds => v as f64 / 1e6,
        TimeUnit::Milliseconds => v as f64 / 1e3,
    }
}

/// RFC 3339 in UTC, fractional seconds only when there are any.
fn timestamp(v: i64, tu: TimeUnit) -> String {
    let dt = match tu {
        TimeUnit::Nanoseconds => Some(DateTime::from_timestamp_nanos(v)),
        TimeUnit::Microseconds => DateTime::from_timestamp_micros(v),
        TimeUnit::Milliseconds => DateTime::from_timestamp_millis(v),
    };
    dt.map_or_else(|| v.to_string(), |d| d.format("%Y-%m-%dT%H:%M:%S%.fZ").to_string())
}

fn date(days: i32) -> String {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).expect("valid date");
    epoch.checked_add_signed(chrono::Duration::days(days.into())).map_or_else(|| days.to_string(), |d| d.to_string())
}

/// Rows of `df` as formatted values, row by row.
fn rows(df: &DataFrame, digits: usize) -> impl Iterator<Item = Vec<Value>> + '_ {
    (0..df.height())
        .map(move |i| df.columns().iter().map(|c| c.get(i).map_or(Value::Null, |av| value(&av, digits))).collect())
}

fn names(df: &DataFrame) -> Vec<String> {
    df.get_column_names().iter().map(|n| n.to_string()).collect()
}

/// CSV (RFC 4180): a header row; nulls are empty fields.
pub fn csv(df: &DataFrame) -> String {
    let mut out = String::new();
    let header: Vec<String> = names(df).iter().map(|n| csv_field(n)).collect();
    out.push_str(&header.join(","));
    out.push('\n');
    for row in rows(df, DATA_DIGITS) {
        let fields: Vec<String> = row
            .iter()
            .map(|v| match v {
                Value::Null => String::new(),
                Value::Bool(b) => b.to_string(),
                Value::Number(_, s) => s.clone(),
                Value::Text(s) => csv_field(s),
            })
            .collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.is_empty() {
        // An empty string is quoted so that it differs from a null.
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A JSON array with one object per row, one row per line; NaN and
/// infinities are null.
pub fn json(df: &DataFrame) -> String {
    let keys: Vec<String> = names(df).iter().map(|n| serde_json::to_string(n).expect("string")).collect();
    let mut out = String::from("[\n");
    for (i, row) in rows(df, DATA_DIGITS).enumerate() {
        out.push_str(if i == 0 { "{" } else { ",\n{" });
        for (j, v) in row.iter().enumerate() {
            let text = match v {
                Value::Null | Value::Number(None, _) => "null".to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Number(Some(s), _) => s.clone(),
                Value::Text(s) => serde_json::to_string(s).expect("string"),
            };
            let _ = write!(out, "{}{}:{}", if j == 0 { "" } else { "," }, keys[j], text);
        }
        out.push('}');
    }
    out.push_str(if df.height() == 0 { "]\n" } else { "\n]\n" });
    out
}

/// An aligned table for the terminal; numbers right-aligned, nulls blank.
/// With `wrap`, long cells wrap to the terminal's width; without, lines are
/// as long as the data (the same output wherever it is written).
pub fn table(df: &DataFrame, wrap: bool) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_content_arrangement(if wrap { ContentArrangement::Dynamic } else { ContentArrangement::Disabled });
    t.set_header(names(df));
    for row in rows(df, TABLE_DIGITS) {
        t.add_row(row.into_iter().map(|v| match v {
            Value::Null => Cell::new(""),
            Value::Bool(b) => Cell::new(b),
            Value::Number(_, s) => Cell::new(s).set_alignment(CellAlignment::Right),
            Value::Text(s) => Cell::new(s),
        }));
    }
    let rows = df.height();
    format!("{t}\n{rows} row{}\n", if rows == 1 { "" } else { "s" })
}

/// Writes `df` to a Parquet file (zstd), the only file a query writes.
pub fn write_parquet(df: &mut DataFrame, path: &Path) -> Result<()> {
    let file = std::fs::File::create(path).at(path)?;
    ParquetWriter::new(file)
        .with_compression(ParquetCompression::Zstd(None))
        .finish(df)
        .map_err(|e| Error::polars(format!("{}: cannot write Parquet", path.display()), e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame() -> DataFrame {
        df!(
            "name" => [Some("a,b"), None, Some("")],
            "n" => [1i64, 2, 3],
            "x" => [0.1 + 0.2, f64::NAN, -1e-20],
        )
        .unwrap()
    }

    #[test]
    fn csv_rounds_floats_and_quotes_what_needs_quoting() {
        assert_eq!(csv(&frame()), "name,n,x\n\"a,b\",1,0.3\n,2,NaN\n\"\",3,-1e-20\n");
    }

    #[test]
    fn json_is_one_object_per_line_and_nan_is_null() {
        let out = json(&frame());
        assert_eq!(out, "[\n{\"name\":\"a,b\",\"n\":1,\"x\":0.3},\n{\"name\":null,\"n\":2,\"x\":null},\n{\"name\":\"\",\"n\":3,\"x\":-1e-20}\n]\n");
        let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed.as_array().unwrap().len(), 3);
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(timestamp(1_500_000, TimeUnit::Microseconds), "1970-01-01T00:00:01.500Z");
        assert_eq!(timestamp(4_550_879_000_000, TimeUnit::Microseconds), "1970-02-22T16:07:59Z");
        assert_eq!(date(18_000), "2019-04-14");
    }
}
