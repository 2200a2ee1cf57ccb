//! Query results for the presentation layer: Arrow record batches become a
//! neutral [`present::Table`] (typed columns; timestamps as instants, dates
//! as `YYYY-MM-DD`, durations and day-time intervals as seconds, lists as
//! JSON array text), which `tracelab_present` writes as a terminal table,
//! CSV, JSON or JSONL; and back, so any table (an analysis result, a
//! listing) can be written as Parquet, the only file a query writes.

use std::sync::Arc;

use chrono::{DateTime, NaiveDate};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{
    DataType, Field, Float64Type, Int64Type, IntervalUnit, Schema, SchemaRef, TimeUnit, UInt64Type,
};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::basic::{Compression, ZstdLevel};
use datafusion::parquet::file::properties::WriterProperties;

use tracelab_present::{self as present, Kind, Value};
use tracelab_schema::error::{Error, Result};

/// The batches of a result as a neutral table.
pub fn table(schema: &SchemaRef, batches: &[RecordBatch]) -> present::Table {
    let columns = schema.fields().iter().map(|f| column(f.name(), f.data_type())).collect();
    let mut t = present::Table::new(columns);
    for batch in batches {
        let cells: Vec<Vec<Value>> = batch.columns().iter().map(values).collect();
        for row in 0..batch.num_rows() {
            t.push(cells.iter().map(|c| c[row].clone()).collect());
        }
    }
    t
}

fn column(name: &str, dtype: &DataType) -> present::Column {
    let kind = match dtype {
        d if d.is_integer() => Kind::Int,
        d if d.is_floating() || matches!(d, DataType::Decimal128(..) | DataType::Decimal256(..)) => Kind::Float,
        DataType::Boolean => Kind::Bool,
        DataType::Timestamp(..) => Kind::Timestamp,
        DataType::Duration(_) | DataType::Interval(IntervalUnit::DayTime) => {
            return present::Column::float(name).with_unit("s")
        }
        DataType::Dictionary(_, value) => return column(name, value),
        _ => Kind::Text,
    };
    present::Column::new(name, kind)
}

/// One column's cells.
fn values(array: &ArrayRef) -> Vec<Value> {
    let nulls = |cells: Vec<Value>| -> Vec<Value> {
        cells.into_iter().enumerate().map(|(i, v)| if array.is_null(i) { Value::Null } else { v }).collect()
    };
    let len = array.len();
    match array.data_type() {
        DataType::Null => vec![Value::Null; len],
        DataType::Boolean => nulls(array.as_boolean().iter().map(|b| Value::Bool(b.unwrap_or(false))).collect()),
        DataType::UInt64 => {
            nulls(array.as_primitive::<UInt64Type>().values().iter().map(|&n| Value::UInt(n)).collect())
        }
        d if d.is_integer() => {
            let ints = cast(array, &DataType::Int64).expect("an integer fits 64 bits");
            nulls(ints.as_primitive::<Int64Type>().values().iter().map(|&n| Value::Int(n)).collect())
        }
        d if d.is_floating() || matches!(d, DataType::Decimal128(..) | DataType::Decimal256(..)) => {
            let floats = cast(array, &DataType::Float64).expect("a number casts to a double");
            nulls(floats.as_primitive::<Float64Type>().values().iter().map(|&x| Value::Float(x)).collect())
        }
        DataType::Timestamp(unit, _) => {
            // The stored number is the instant since 1970 UTC, whatever the
            // zone the type names (a zone is how it is shown).
            let raw = cast(array, &DataType::Int64).expect("a time is a number");
            let micros = |v: i64| match unit {
                TimeUnit::Second => v.saturating_mul(1_000_000),
                TimeUnit::Millisecond => v.saturating_mul(1000),
                TimeUnit::Microsecond => v,
                TimeUnit::Nanosecond => v.div_euclid(1000),
            };
            nulls(raw.as_primitive::<Int64Type>().values().iter().map(|&v| instant(micros(v))).collect())
        }
        DataType::Date32 | DataType::Date64 => {
            let days = cast(array, &DataType::Date32).expect("a date casts to days");
            let days = cast(&days, &DataType::Int32).expect("days are a number");
            let days = days.as_primitive::<datafusion::arrow::datatypes::Int32Type>();
            nulls(days.values().iter().map(|&d| Value::Text(date(d))).collect())
        }
        DataType::Duration(_) => {
            let micros = cast(array, &DataType::Duration(TimeUnit::Microsecond)).expect("a duration casts");
            let micros = cast(&micros, &DataType::Int64).expect("a duration is a number");
            nulls(micros.as_primitive::<Int64Type>().values().iter().map(|&v| Value::Float(v as f64 / 1e6)).collect())
        }
        DataType::Interval(IntervalUnit::DayTime) => {
            let days = array.as_primitive::<datafusion::arrow::datatypes::IntervalDayTimeType>();
            let secs = |v: &datafusion::arrow::datatypes::IntervalDayTime| {
                Value::Float(f64::from(v.days) * 86400.0 + f64::from(v.milliseconds) / 1e3)
            };
            nulls(days.values().iter().map(secs).collect())
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let strings = cast(array, &DataType::Utf8).expect("text casts to text");
            strings.as_string::<i32>().iter().map(|s| s.map_or(Value::Null, |s| Value::Text(s.to_string()))).collect()
        }
        DataType::List(_) | DataType::LargeList(_) | DataType::FixedSizeList(..) => {
            (0..len).map(|i| if array.is_null(i) { Value::Null } else { Value::Text(json_array(array, i)) }).collect()
        }
        DataType::Dictionary(_, value) => {
            let plain = cast(array, value).expect("a dictionary casts to its values");
            values(&plain)
        }
        _ => formatted(array),
    }
}

/// Cells as Arrow writes them (intervals with months, times of day,
/// binary, structs): text, NULL as NULL.
fn formatted(array: &ArrayRef) -> Vec<Value> {
    let options = FormatOptions::default().with_null("");
    match ArrayFormatter::try_new(array.as_ref(), &options) {
        Ok(f) => (0..array.len())
            .map(|i| if array.is_null(i) { Value::Null } else { Value::Text(f.value(i).to_string()) })
            .collect(),
        Err(_) => vec![Value::Null; array.len()],
    }
}

/// Element `i` of a list array as JSON array text, every element written
/// as its own cell would be (timestamps RFC 3339, durations in seconds),
/// nested lists as nested arrays.
fn json_array(list: &ArrayRef, i: usize) -> String {
    let items: ArrayRef = match list.data_type() {
        DataType::List(_) => list.as_list::<i32>().value(i),
        DataType::LargeList(_) => list.as_list::<i64>().value(i),
        _ => list.as_fixed_size_list().value(i),
    };
    let nested = matches!(items.data_type(), DataType::List(_) | DataType::LargeList(_) | DataType::FixedSizeList(..));
    let elements: Vec<String> = if nested {
        (0..items.len()).map(|j| if items.is_null(j) { "null".into() } else { json_array(&items, j) }).collect()
    } else {
        values(&items).iter().map(present::json::value).collect()
    };
    format!("[{}]", elements.join(","))
}

/// An instant in UTC from microseconds; out of chrono's range it stays the
/// raw number.
fn instant(micros: i64) -> Value {
    DateTime::from_timestamp_micros(micros).map_or(Value::Int(micros), Value::Timestamp)
}

fn date(days: i32) -> String {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).expect("valid date");
    epoch.checked_add_signed(chrono::Duration::days(days.into())).map_or_else(|| days.to_string(), |d| d.to_string())
}

/// A neutral table as one record batch (for Parquet): typed columns,
/// timestamps in microseconds UTC.
pub fn batch(t: &present::Table) -> Result<RecordBatch> {
    let arrays: Vec<ArrayRef> =
        t.columns.iter().enumerate().map(|(i, c)| array(c, t.rows.iter().map(|r| &r[i]))).collect();
    let fields: Vec<Field> =
        t.columns.iter().zip(&arrays).map(|(c, a)| Field::new(c.name.as_str(), a.data_type().clone(), true)).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
        .map_err(|e| Error::input("result table", format!("cannot build the table: {e}")))
}

fn array<'a>(c: &present::Column, cells: impl Iterator<Item = &'a Value>) -> ArrayRef {
    match c.kind {
        Kind::Int => Arc::new(cells.map(as_i64).collect::<Int64Array>()),
        Kind::Float => Arc::new(cells.map(as_f64).collect::<Float64Array>()),
        Kind::Bool => {
            Arc::new(cells.map(|v| if let Value::Bool(b) = v { Some(*b) } else { None }).collect::<BooleanArray>())
        }
        Kind::Timestamp => {
            let micros: TimestampMicrosecondArray =
                cells.map(|v| if let Value::Timestamp(t) = v { Some(t.timestamp_micros()) } else { None }).collect();
            Arc::new(micros.with_timezone("UTC"))
        }
        Kind::Text => Arc::new(cells.map(as_text).collect::<StringArray>()),
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

/// `t` as the bytes of a Parquet file (zstd), which the CLI writes to `-o`'s
/// file or to stdout (`-o -`).
pub fn parquet_bytes(t: &present::Table) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    parquet_to(t, &mut bytes).map_err(|e| Error::input("stdout", format!("cannot write Parquet: {e}")))?;
    Ok(bytes)
}

fn parquet_to(
    t: &present::Table,
    to: impl std::io::Write + Send,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let batch = batch(t)?;
    let props = WriterProperties::builder().set_compression(Compression::ZSTD(ZstdLevel::default())).build();
    let mut writer = ArrowWriter::try_new(to, batch.schema(), Some(props))?;
    writer.write(&batch)?;
    writer.close()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use datafusion::arrow::array::{DurationMicrosecondArray, ListArray};
    use datafusion::arrow::datatypes::Int32Type;

    fn batch_of_everything() -> RecordBatch {
        let name: ArrayRef = Arc::new(StringArray::from(vec![Some("a,b"), None, Some("")]));
        let n: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
        let x: ArrayRef = Arc::new(Float64Array::from(vec![0.1 + 0.2, f64::NAN, -1e-20]));
        RecordBatch::try_from_iter([("name", name), ("n", n), ("x", x)]).unwrap()
    }

    #[test]
    fn a_batch_becomes_typed_columns_and_cells() {
        let b = batch_of_everything();
        let t = table(&b.schema(), &[b]);
        let kinds: Vec<Kind> = t.columns.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [Kind::Text, Kind::Int, Kind::Float]);
        assert_eq!(t.rows[1][..2], [Value::Null, Value::Int(2)]);
        assert!(matches!(t.rows[1][2], Value::Float(x) if x.is_nan()));
        assert_eq!(present::csv::render(&t), "name,n,x\n\"a,b\",1,0.3\n,2,NaN\n\"\",3,-1e-20\n");
    }

    #[test]
    fn timestamps_are_rfc3339_utc_and_durations_seconds() {
        let at = |v| present::json::value(&instant(v));
        assert_eq!(at(1_500_000), "\"1970-01-01T00:00:01.500Z\"");
        assert_eq!(at(4_550_879_000_000), "\"1970-02-22T16:07:59Z\"");
        assert_eq!(date(18_000), "2019-04-14");
        let d: ArrayRef = Arc::new(DurationMicrosecondArray::from(vec![1_500_000]));
        assert_eq!(values(&d), [Value::Float(1.5)]);
    }

    #[test]
    fn lists_are_whole_json_arrays() {
        // Twelve strings, one with quotes: every element, escaped.
        let strings: Vec<Option<Vec<Option<i32>>>> = vec![Some((0..12).map(Some).collect()), None, Some(vec![])];
        let list: ArrayRef = Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(strings));
        assert_eq!(
            values(&list),
            [Value::Text("[0,1,2,3,4,5,6,7,8,9,10,11]".into()), Value::Null, Value::Text("[]".into())]
        );
        let quoted: ArrayRef = Arc::new(StringArray::from(vec!["say \"hi\""]));
        let offsets = datafusion::arrow::buffer::OffsetBuffer::from_lengths([1]);
        let field = Arc::new(Field::new_list_field(DataType::Utf8, true));
        let list: ArrayRef = Arc::new(ListArray::new(field, offsets, quoted, None));
        assert_eq!(values(&list), [Value::Text(r#"["say \"hi\""]"#.into())]);
    }

    #[test]
    fn a_table_round_trips_through_a_batch() {
        let b = batch_of_everything();
        let t = table(&b.schema(), std::slice::from_ref(&b));
        let back = batch(&t).unwrap();
        // NaN is not equal to itself: compare the tables as CSV.
        assert_eq!(present::csv::render(&table(&back.schema(), &[back])), present::csv::render(&t));
    }
}
