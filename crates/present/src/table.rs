//! The neutral table model every writer takes: columns with a name, a kind
//! and an optional unit, and rows of typed cells. Producers (query results,
//! analysis parts, listings) build one; they never format numbers.

use chrono::{DateTime, Utc};

/// What a column holds; decides alignment and how cells are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Int,
    Float,
    Bool,
    Timestamp,
}

/// A named, typed column with an optional unit (`s`, `%`, `GPU-hours`).
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub kind: Kind,
    pub unit: Option<String>,
}

/// One cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Text(String),
    Int(i64),
    UInt(u64),
    Float(f64),
    Bool(bool),
    /// An instant, written as RFC 3339 in UTC.
    Timestamp(DateTime<Utc>),
}

/// Columns and rows; every row has one cell per column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
}

impl Column {
    pub fn new(name: impl Into<String>, kind: Kind) -> Column {
        Column { name: name.into(), kind, unit: None }
    }

    pub fn text(name: impl Into<String>) -> Column {
        Column::new(name, Kind::Text)
    }

    pub fn int(name: impl Into<String>) -> Column {
        Column::new(name, Kind::Int)
    }

    pub fn float(name: impl Into<String>) -> Column {
        Column::new(name, Kind::Float)
    }

    /// The same column with a unit; an empty unit is none.
    pub fn with_unit(mut self, unit: impl Into<String>) -> Column {
        let unit = unit.into();
        self.unit = (!unit.is_empty()).then_some(unit);
        self
    }

    /// Numbers are right-aligned in tables.
    pub fn is_numeric(&self) -> bool {
        matches!(self.kind, Kind::Int | Kind::Float)
    }
}

impl Table {
    pub fn new(columns: Vec<Column>) -> Table {
        Table { columns, rows: Vec::new() }
    }

    /// A table of text columns, for listings.
    pub fn of_text(names: &[&str]) -> Table {
        Table::new(names.iter().map(|n| Column::text(*n)).collect())
    }

    pub fn push(&mut self, row: Vec<Value>) {
        debug_assert_eq!(row.len(), self.columns.len(), "row width");
        self.rows.push(row);
    }

    pub fn names(&self) -> Vec<&str> {
        self.columns.iter().map(|c| c.name.as_str()).collect()
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(s)
    }
}

impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::Text(s.clone())
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

impl From<u64> for Value {
    fn from(i: u64) -> Value {
        Value::UInt(i)
    }
}

impl From<usize> for Value {
    fn from(i: usize) -> Value {
        Value::UInt(i as u64)
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Float(x)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(o: Option<T>) -> Value {
        o.map_or(Value::Null, Into::into)
    }
}

/// RFC 3339 in UTC, fractional seconds only when there are any.
pub fn rfc3339(t: &DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.fZ").to_string()
}
