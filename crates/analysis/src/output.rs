//! The typed result of an analysis: distributions, curves, tables and
//! headline numbers, each part named, plus the definition that produced them.
//! The CLI prints these (text, CSV, JSON) and the report plots them; neither
//! recomputes anything.

use serde::Serialize;
use serde_json::{json, Value};

use tracelab_stats::{Dist, CDF_POINTS};

/// Quantiles printed for every distribution (and put in JSON).
pub const SUMMARY_QUANTILES: [(f64, &str); 7] =
    [(0.1, "p10"), (0.25, "p25"), (0.5, "p50"), (0.75, "p75"), (0.9, "p90"), (0.95, "p95"), (0.99, "p99")];

#[derive(Debug, Clone, Default)]
pub struct Output {
    /// The analysis id, e.g. `pai.wait-by-gpu-type`.
    pub id: String,
    pub title: String,
    /// Tables, filters, joins, units and upstream conventions used: enough to
    /// recompute the numbers with another engine.
    pub definition: String,
    /// The parameters the run used (defaults filled in), in declaration order.
    pub params: Vec<(String, String)>,
    pub parts: Vec<Part>,
}

/// One named piece of a result.
#[derive(Debug, Clone)]
pub struct Part {
    /// Short machine name, unique within the output (`by-type`, `summary`).
    pub name: String,
    pub body: Body,
}

#[derive(Debug, Clone)]
pub enum Body {
    /// Empirical distributions, one per series (CDF/CCDF figures).
    Dists { x_label: String, series: Vec<(String, Dist)> },
    /// Explicit x-y series (time series, threshold curves, Lorenz curves).
    Curves { x_label: String, y_label: String, series: Vec<(String, Vec<(f64, f64)>)> },
    /// A table of typed cells.
    Table(ResultTable),
    /// Headline numbers, with the published value where there is one.
    Headlines(Vec<Headline>),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultTable {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Str(String),
    Int(i64),
    Float(f64),
    Null,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Headline {
    /// Machine key, unique within the output.
    pub key: String,
    pub label: String,
    pub value: f64,
    pub unit: String,
    /// The number the paper or notebook printed, in the same unit.
    pub published: Option<f64>,
    /// Where the published number comes from.
    pub source: String,
}

impl Output {
    pub fn new(id: &str, title: &str, definition: impl Into<String>) -> Output {
        Output { id: id.into(), title: title.into(), definition: definition.into(), ..Output::default() }
    }

    pub fn dists(&mut self, name: &str, x_label: &str, series: Vec<(String, Dist)>) -> &mut Self {
        self.push(name, Body::Dists { x_label: x_label.into(), series })
    }

    pub fn curves(&mut self, name: &str, x: &str, y: &str, series: Vec<(String, Vec<(f64, f64)>)>) -> &mut Self {
        self.push(name, Body::Curves { x_label: x.into(), y_label: y.into(), series })
    }

    pub fn table(&mut self, name: &str, table: ResultTable) -> &mut Self {
        self.push(name, Body::Table(table))
    }

    pub fn headlines(&mut self, name: &str, headlines: Vec<Headline>) -> &mut Self {
        self.push(name, Body::Headlines(headlines))
    }

    fn push(&mut self, name: &str, body: Body) -> &mut Self {
        debug_assert!(self.part(name).is_none(), "duplicate part {name}");
        self.parts.push(Part { name: name.into(), body });
        self
    }

    /// Puts `value` where the definition says `{name}`: the few numbers a
    /// definition states that come from the data (a median, a window).
    pub fn fill(&mut self, name: &str, value: impl std::fmt::Display) -> &mut Self {
        let hole = format!("{{{name}}}");
        debug_assert!(self.definition.contains(&hole), "{}: the definition has no {hole}", self.id);
        self.definition = self.definition.replace(&hole, &value.to_string());
        self
    }

    pub fn part(&self, name: &str) -> Option<&Part> {
        self.parts.iter().find(|p| p.name == name)
    }

    /// Every headline of every part.
    pub fn all_headlines(&self) -> impl Iterator<Item = &Headline> {
        self.parts.iter().flat_map(|p| match &p.body {
            Body::Headlines(h) => h.as_slice(),
            _ => &[],
        })
    }

    /// The whole result as JSON: distributions as n, mean, quantiles and a
    /// CDF curve reduced to [`CDF_POINTS`] points.
    pub fn to_json(&self) -> Value {
        let parts: Vec<Value> = self.parts.iter().map(Part::to_json).collect();
        let params: serde_json::Map<String, Value> =
            self.params.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        json!({ "id": self.id, "title": self.title, "definition": self.definition, "params": params, "parts": parts })
    }
}

impl Part {
    fn to_json(&self) -> Value {
        let body = match &self.body {
            Body::Dists { x_label, series } => {
                let s: Vec<Value> = series.iter().map(|(label, d)| dist_json(label, d)).collect();
                json!({ "kind": "dists", "x_label": x_label, "series": s })
            }
            Body::Curves { x_label, y_label, series } => {
                let s: Vec<Value> =
                    series.iter().map(|(label, pts)| json!({ "label": label, "points": points_json(pts) })).collect();
                json!({ "kind": "curves", "x_label": x_label, "y_label": y_label, "series": s })
            }
            Body::Table(t) => json!({ "kind": "table", "columns": t.columns, "rows": t.rows_json() }),
            Body::Headlines(h) => json!({ "kind": "headlines", "headlines": h }),
        };
        let mut v = body;
        v["name"] = Value::String(self.name.clone());
        v
    }
}

impl ResultTable {
    pub fn new(columns: &[&str]) -> ResultTable {
        ResultTable { columns: columns.iter().map(ToString::to_string).collect(), rows: Vec::new() }
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        debug_assert_eq!(row.len(), self.columns.len(), "row width");
        self.rows.push(row);
    }

    /// The column's cells, by name.
    pub fn column(&self, name: &str) -> Option<Vec<&Cell>> {
        let i = self.columns.iter().position(|c| c == name)?;
        Some(self.rows.iter().map(|r| &r[i]).collect())
    }

    fn rows_json(&self) -> Vec<Value> {
        self.rows.iter().map(|r| Value::Array(r.iter().map(Cell::to_json).collect())).collect()
    }
}

impl Cell {
    pub fn to_json(&self) -> Value {
        match self {
            Cell::Str(s) => Value::String(s.clone()),
            Cell::Int(i) => json!(i),
            Cell::Float(f) => float_json(*f),
            Cell::Null => Value::Null,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Float(f) => Some(*f),
            _ => None,
        }
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Str(s.to_string())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Str(s)
    }
}

impl From<f64> for Cell {
    fn from(f: f64) -> Cell {
        Cell::Float(f)
    }
}

impl From<i64> for Cell {
    fn from(i: i64) -> Cell {
        Cell::Int(i)
    }
}

impl From<u64> for Cell {
    fn from(i: u64) -> Cell {
        Cell::Int(i as i64)
    }
}

impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(o: Option<T>) -> Cell {
        o.map_or(Cell::Null, Into::into)
    }
}

/// NaN and infinities have no JSON number; they become null.
pub fn float_json(f: f64) -> Value {
    if f.is_finite() {
        json!(f)
    } else {
        Value::Null
    }
}

fn points_json(points: &[(f64, f64)]) -> Vec<Value> {
    points.iter().map(|(x, y)| Value::Array(vec![float_json(*x), float_json(*y)])).collect()
}

fn dist_json(label: &str, d: &Dist) -> Value {
    let mut q = serde_json::Map::new();
    for (p, name) in SUMMARY_QUANTILES {
        q.insert(name.to_string(), float_json(d.quantile(p)));
    }
    json!({
        "label": label,
        "n": d.n(),
        "mean": float_json(d.mean()),
        "min": float_json(d.min()),
        "max": float_json(d.max()),
        "quantiles": q,
        "cdf": points_json(&d.cdf_curve(CDF_POINTS)),
    })
}

impl Headline {
    pub fn new(key: &str, label: &str, value: f64, unit: &str) -> Headline {
        Headline {
            key: key.into(),
            label: label.into(),
            value,
            unit: unit.into(),
            published: None,
            source: String::new(),
        }
    }

    /// Adds the published value and where it comes from. Analyses do not
    /// call this: they declare their published values, and every run
    /// attaches them to the headlines by key (`crate::declare`).
    pub fn published(mut self, value: f64, source: &str) -> Headline {
        self.published = Some(value);
        self.source = source.into();
        self
    }
}
