//! JSON: an array with one object per row, one row per line (so `grep` and
//! line-based diffs work), and JSONL: one object per line, nothing else.
//! Keys are the column names; floats follow [`number::data`] and NaN and
//! infinities are null; text is escaped by serde_json (control characters
//! as `\u001b`), so it is exact and safe.

use std::fmt::Write as _;

use serde_json::Value as Json;

use crate::number;
use crate::table::{rfc3339, Table, Value};

/// `[\n{...},\n{...}\n]\n`; an empty table is `[]\n`.
pub fn array(t: &Table) -> String {
    if t.rows.is_empty() {
        return "[]\n".into();
    }
    let objects: Vec<String> = objects(t).collect();
    format!("[\n{}\n]\n", objects.join(",\n"))
}

/// One object per line.
pub fn lines(t: &Table) -> String {
    objects(t).map(|o| o + "\n").collect()
}

fn objects(t: &Table) -> impl Iterator<Item = String> + '_ {
    let keys: Vec<String> = t.columns.iter().map(|c| string(&c.name)).collect();
    t.rows.iter().map(move |row| {
        let mut o = String::from("{");
        for (i, (k, v)) in keys.iter().zip(row).enumerate() {
            let _ = write!(o, "{}{k}:{}", if i == 0 { "" } else { "," }, value(v));
        }
        o.push('}');
        o
    })
}

/// A cell as JSON text.
pub fn value(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Text(s) => string(s),
        Value::Int(i) => i.to_string(),
        Value::UInt(i) => i.to_string(),
        Value::Float(x) => number::data(*x).unwrap_or_else(|| "null".into()),
        Value::Bool(b) => b.to_string(),
        Value::Timestamp(t) => string(&rfc3339(t)),
    }
}

/// A cell as a JSON value (for callers that build documents).
pub fn to_json(v: &Value) -> Json {
    serde_json::from_str(&value(v)).unwrap_or(Json::Null)
}

fn string(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Column;

    fn table() -> Table {
        let mut t = Table::new(vec![Column::text("name"), Column::int("n"), Column::float("x")]);
        t.push(vec!["a,\"b\"\u{1b}".into(), 1i64.into(), (0.1 + 0.2).into()]);
        t.push(vec![Value::Null, 2i64.into(), f64::NAN.into()]);
        t
    }

    #[test]
    fn an_array_has_one_object_per_line_and_nan_is_null() {
        let out = array(&table());
        assert_eq!(
            out,
            "[\n{\"name\":\"a,\\\"b\\\"\\u001b\",\"n\":1,\"x\":0.3},\n{\"name\":null,\"n\":2,\"x\":null}\n]\n"
        );
        let parsed: Json = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed[0]["name"], "a,\"b\"\u{1b}");
        assert_eq!(array(&Table::of_text(&["a"])), "[]\n");
    }

    #[test]
    fn jsonl_is_one_object_per_line() {
        let out = lines(&table());
        assert_eq!(out.lines().count(), 2);
        for l in out.lines() {
            assert!(serde_json::from_str::<Json>(l).unwrap().is_object());
        }
    }
}
