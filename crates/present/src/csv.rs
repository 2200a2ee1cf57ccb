//! CSV (RFC 4180): a header row, then one line per row. A field is quoted
//! when it holds a comma, a quote, a line break or leading/trailing space,
//! or is empty text (so an empty string differs from a null, which is an
//! empty field); quotes inside are doubled. Text is kept exact: a reader
//! gets back the bytes the trace held. Floats follow [`number::data_csv`].
//!
//! One exception: a row of one column whose value is null is written `""`,
//! as Python's `csv` module writes it, not as an empty line, which pandas
//! and most readers skip (a listing of five values with four nulls read
//! back as one row). pandas reads that `""` as a missing value.

use std::borrow::Cow;

use crate::number;
use crate::table::{rfc3339, Table, Value};

/// The whole table as CSV.
pub fn render(t: &Table) -> String {
    let mut out = String::new();
    let header: Vec<Cow<str>> = t.columns.iter().map(|c| field(&c.name)).collect();
    out.push_str(&header.join(","));
    out.push('\n');
    for row in &t.rows {
        let fields: Vec<Cow<str>> = row.iter().map(value).collect();
        let line = fields.join(",");
        out.push_str(if line.is_empty() { "\"\"" } else { &line });
        out.push('\n');
    }
    out
}

fn value(v: &Value) -> Cow<'_, str> {
    match v {
        Value::Null => Cow::Borrowed(""),
        Value::Text(s) => field(s),
        Value::Int(i) => Cow::Owned(i.to_string()),
        Value::UInt(i) => Cow::Owned(i.to_string()),
        Value::Float(x) => Cow::Owned(number::data_csv(*x)),
        Value::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Value::Timestamp(t) => Cow::Owned(rfc3339(t)),
    }
}

/// One text field, quoted when it needs to be.
pub fn field(s: &str) -> Cow<'_, str> {
    let edge_space = s.starts_with([' ', '\t']) || s.ends_with([' ', '\t']);
    if s.is_empty() || edge_space || s.contains([',', '"', '\n', '\r']) {
        Cow::Owned(format!("\"{}\"", s.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Column;

    #[test]
    fn a_null_alone_on_its_row_is_not_an_empty_line() {
        let mut t = Table::new(vec![Column::float("run_s")]);
        for v in [Value::Null, 15.0.into(), Value::Null] {
            t.push(vec![v]);
        }
        assert_eq!(render(&t), "run_s\n\"\"\n15.0\n\"\"\n");
        // With two columns, a null stays an empty field.
        let mut t = Table::new(vec![Column::float("a"), Column::float("b")]);
        t.push(vec![Value::Null, Value::Null]);
        assert_eq!(render(&t), "a,b\n,\n");
    }

    #[test]
    fn fields_are_quoted_when_needed_and_nulls_are_empty() {
        let mut t = Table::new(vec![Column::text("name, full"), Column::int("n"), Column::float("x")]);
        t.push(vec!["a,b".into(), 1i64.into(), (0.1 + 0.2).into()]);
        t.push(vec![Value::Null, 2i64.into(), f64::NAN.into()]);
        t.push(vec!["".into(), 3i64.into(), (-1e-20).into()]);
        t.push(vec!["say \"hi\"\nbye".into(), Value::Null, 21.0.into()]);
        t.push(vec![" pad".into(), 5i64.into(), Value::Null]);
        assert_eq!(
            render(&t),
            "\"name, full\",n,x\n\"a,b\",1,0.3\n,2,NaN\n\"\",3,-1e-20\n\"say \"\"hi\"\"\nbye\",,21.0\n\" pad\",5,\n"
        );
    }
}
