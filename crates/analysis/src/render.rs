//! An [`Output`] as neutral tables for `tracelab_present` to write:
//!
//! - [`display`]: what a person reads (distributions summarized as n, mean
//!   and quantiles, long curves as ranges, headlines beside the published
//!   value, judged as the report judges them ([`crate::calibration`]: for
//!   a synthetic count the published value times the scale), one table
//!   per part, with [`preamble`];
//! - [`tidy`]: one long table for scripts (CSV, JSONL, Parquet) with the
//!   part as a column, every distribution as its CDF curve and every curve
//!   as points, so pandas or DuckDB load it directly. Its columns are
//!   `part`, then the union of the parts' columns in order of first
//!   appearance: `series`, `x`, `y` for distributions (x the value, y the
//!   percent of the CDF) and curves (the axis labels, with their units, are
//!   in the JSON output and the terminal view), a table's own columns, and
//!   `key`, `label`, `value`, `unit`, `published`, `source` for headlines.
//!   A part only fills its own columns; the rest are null.
//!
//! Deterministic: parts in their output order, numbers written by the
//! presentation layer's rules. (The full JSON document is
//! [`Output::to_json`].)

use tracelab_present::{number, Column, Kind, Table, Value};
use tracelab_schema::synthetic::Marker;
use tracelab_stats::{Dist, CDF_POINTS};

use super::calibration::judge;
use super::headline_row::HeadlineRow;

use super::output::SUMMARY_QUANTILES;
use super::{Body, Cell, Headline, Output, Part, ResultTable};

/// Curves longer than this are summarized in the display view (the tidy
/// table has every point).
const MAX_TEXT_POINTS: usize = 60;

/// Significant digits of the display view.
pub const DISPLAY_DIGITS: usize = 4;

/// The lines above the tables: id, title, parameters, definition.
pub fn preamble(out: &Output) -> String {
    let mut s = format!("{} -- {}\n", out.id, out.title);
    if !out.params.is_empty() {
        let p: Vec<String> = out.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        s.push_str(&format!("parameters: {}\n", p.join(", ")));
    }
    s.push_str(&format!("definition: {}\n", out.definition));
    s
}

/// Each part (or only the part named `only`) as a table for people;
/// `markers` are the store's synthetic markers
/// ([`crate::calibration::markers`]), which decide how headlines compare.
pub fn display<'a>(
    out: &'a Output,
    only: Option<&'a str>,
    markers: &'a [Marker],
) -> impl Iterator<Item = (&'a str, Table)> + 'a {
    let parts = out.parts.iter().filter(move |p| only.is_none_or(|o| o == p.name));
    parts.map(move |p| (p.name.as_str(), display_part(&out.id, &p.body, markers)))
}

fn display_part(id: &str, body: &Body, markers: &[Marker]) -> Table {
    match body {
        Body::Dists { x_label, series } => dist_summary(x_label, series),
        Body::Curves { x_label, y_label, series } => curves_display(x_label, y_label, series),
        Body::Table(t) => result_table(t),
        Body::Headlines(h) => headlines_display(id, h, markers),
    }
}

fn dist_summary(x_label: &str, series: &[(String, Dist)]) -> Table {
    let mut cols = vec![Column::text(format!("series ({x_label})")), Column::int("n"), Column::float("mean")];
    cols.extend(SUMMARY_QUANTILES.iter().map(|q| Column::float(q.1)));
    cols.push(Column::float("max"));
    let mut t = Table::new(cols);
    for (label, d) in series {
        let mut row: Vec<Value> = vec![label.into(), d.n().into(), d.mean().into()];
        row.extend(SUMMARY_QUANTILES.iter().map(|(q, _)| Value::Float(d.quantile(*q))));
        row.push(d.max().into());
        t.push(row);
    }
    t
}

fn curves_display(x_label: &str, y_label: &str, series: &[(String, Vec<(f64, f64)>)]) -> Table {
    let total: usize = series.iter().map(|s| s.1.len()).sum();
    if total <= MAX_TEXT_POINTS {
        let mut t = Table::new(vec![Column::text("series"), Column::float(x_label), Column::float(y_label)]);
        for (label, pts) in series {
            t.rows.extend(pts.iter().map(|(x, y)| vec![label.into(), Value::Float(*x), Value::Float(*y)]));
        }
        return t;
    }
    let names = ["series".to_string(), "points".into(), format!("{x_label} range"), format!("{y_label} range")];
    let mut t = Table::new(names.into_iter().map(Column::text).collect());
    for (label, pts) in series {
        let (x0, x1) = range(pts.iter().map(|p| p.0));
        let (y0, y1) = range(pts.iter().map(|p| p.1));
        t.push(vec![label.into(), pts.len().to_string().into(), span(x0, x1).into(), span(y0, y1).into()]);
    }
    t
}

fn span(lo: f64, hi: f64) -> String {
    format!("{} .. {}", number::display(lo, DISPLAY_DIGITS), number::display(hi, DISPLAY_DIGITS))
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::NAN, f64::NAN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

fn result_table(rt: &ResultTable) -> Table {
    let columns: Vec<Column> =
        rt.columns.iter().enumerate().map(|(i, name)| Column::new(name, kind_of(rt, i))).collect();
    let row = |r: &Vec<Cell>| r.iter().zip(&columns).map(|(c, col)| value(c, col.kind)).collect();
    Table { rows: rt.rows.iter().map(row).collect(), columns }
}

/// A result column's kind: integers, else numbers, else text.
fn kind_of(rt: &ResultTable, i: usize) -> Kind {
    let cells = || rt.rows.iter().map(|r| &r[i]);
    if cells().all(|c| matches!(c, Cell::Int(_) | Cell::Null)) {
        Kind::Int
    } else if cells().all(|c| matches!(c, Cell::Int(_) | Cell::Float(_) | Cell::Null)) {
        Kind::Float
    } else {
        Kind::Text
    }
}

/// A cell as a value of its column's kind (an integer in a float column
/// is written as a float).
fn value(c: &Cell, kind: Kind) -> Value {
    match c {
        Cell::Str(s) => s.into(),
        Cell::Int(i) if kind == Kind::Float => Value::Float(*i as f64),
        Cell::Int(i) => Value::Int(*i),
        Cell::Float(x) => Value::Float(*x),
        Cell::Null => Value::Null,
    }
}

/// Headlines beside the value they are compared with: the published one,
/// or for a count of a synthetic sample the published one times its scale
/// (`246708 (× 0.001 = 246.7)`), the difference from it and the report's
/// verdict (`≈`, `▲ +16.7 %`, `not calibrated`).
fn headlines_display(id: &str, hs: &[Headline], markers: &[Marker]) -> Table {
    let mut t = Table::of_text(&["number", "ours", "published", "difference", "vs published", "source"]);
    for h in hs {
        let unit = if h.unit.is_empty() { String::new() } else { format!(" {}", h.unit) };
        let with_unit = |s: String| format!("{s}{unit}");
        let row = HeadlineRow::new(id, h);
        let judged = judge(&row, markers);
        let published = match row.published {
            Some(_) => with_unit(judged.reference_text(row.published)),
            None => "-".into(),
        };
        let diff = match (row.published, judged.reference) {
            (Some(_), Some(r)) => with_unit(number::display_signed(h.value - r, DISPLAY_DIGITS)),
            _ => "-".into(),
        };
        let ours = with_unit(number::display(h.value, DISPLAY_DIGITS));
        let cells = [h.label.clone(), ours, published, diff, judged.mark(), h.source.clone()];
        t.push(cells.into_iter().map(Value::Text).collect());
    }
    t
}

/// The long table of every part (or only `only`, then without the `part`
/// column), as described in the module documentation.
pub fn tidy(out: &Output, only: Option<&str>) -> Table {
    let parts: Vec<(&str, Table)> = out
        .parts
        .iter()
        .filter(|p| only.is_none_or(|o| o == p.name))
        .map(|p| (p.name.as_str(), part_table(p)))
        .collect();
    if only.is_some() {
        return parts.into_iter().next().map(|p| p.1).unwrap_or_default();
    }
    union(parts)
}

/// One part as a tidy table.
fn part_table(part: &Part) -> Table {
    match &part.body {
        Body::Dists { series, .. } => {
            let curves: Vec<(String, Vec<(f64, f64)>)> =
                series.iter().map(|(label, d)| (label.clone(), d.cdf_curve(CDF_POINTS))).collect();
            points(&curves)
        }
        Body::Curves { series, .. } => points(series),
        Body::Table(t) => {
            let mut table = result_table(t);
            table.columns.iter_mut().for_each(|c| c.name = column_name(&c.name));
            table
        }
        Body::Headlines(hs) => headlines_tidy(hs),
    }
}

fn points(series: &[(String, Vec<(f64, f64)>)]) -> Table {
    let mut t = Table::new(vec![Column::text("series"), Column::float("x"), Column::float("y")]);
    for (label, pts) in series {
        t.rows.extend(pts.iter().map(|(x, y)| vec![label.into(), Value::Float(*x), Value::Float(*y)]));
    }
    t
}

fn headlines_tidy(hs: &[Headline]) -> Table {
    let mut t = Table::new(vec![
        Column::text("key"),
        Column::text("label"),
        Column::float("value"),
        Column::text("unit"),
        Column::float("published"),
        Column::text("source"),
    ]);
    for h in hs {
        let published = h.published.map_or(Value::Null, Value::Float);
        let source = if h.source.is_empty() { Value::Null } else { h.source.as_str().into() };
        t.push(vec![
            h.key.as_str().into(),
            h.label.as_str().into(),
            h.value.into(),
            h.unit.as_str().into(),
            published,
            source,
        ]);
    }
    t
}

/// A column name a script can use: no spaces or punctuation (`gpu type` ->
/// `gpu_type`, `share (%)` -> `share_pct`); `part` is taken by the long
/// table.
fn column_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.replace('%', " pct ").chars() {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_string();
    match out.as_str() {
        "" => "column".into(),
        "part" => "part_".into(),
        _ => out,
    }
}

/// The parts stacked into one table: `part`, then the union of their
/// columns; a column's kind is shared when the parts agree, numbers mix
/// into floats, anything else is text.
fn union(parts: Vec<(&str, Table)>) -> Table {
    let mut columns = vec![Column::text("part")];
    for (_, t) in &parts {
        for c in &t.columns {
            match columns.iter_mut().find(|u| u.name == c.name) {
                Some(u) => u.kind = merged(u.kind, c.kind),
                None => columns.push(c.clone()),
            }
        }
    }
    let mut out = Table::new(columns);
    for (name, t) in parts {
        let at: Vec<usize> = t
            .columns
            .iter()
            .map(|c| {
                out.columns.iter().position(|u| u.name == c.name).expect("the merged table has every part's columns")
            })
            .collect();
        for row in t.rows {
            let mut full = vec![Value::Null; out.columns.len()];
            full[0] = name.into();
            for (v, &i) in row.into_iter().zip(&at) {
                full[i] = v;
            }
            out.rows.push(full);
        }
    }
    out
}

fn merged(a: Kind, b: Kind) -> Kind {
    match (a, b) {
        _ if a == b => a,
        (Kind::Int | Kind::Float, Kind::Int | Kind::Float) => Kind::Float,
        _ => Kind::Text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracelab_present::csv;

    fn output() -> Output {
        let mut out = Output::new("t.x", "T", "def");
        let mut table = ResultTable::new(&["gpu type", "share (%)"]);
        table.push(vec!["a".into(), 1.5.into()]);
        table.push(vec!["b, \"c\"".into(), Cell::Int(2)]);
        out.table("tab", table);
        out.curves("curve", "hour (h)", "jobs", vec![("s\n1".into(), vec![(0.0, 1.0), (1.0, 21.0)])]);
        out.headlines("nums", vec![Headline::new("h", "H", 2.0, "%").published(3.0, "paper")]);
        out
    }

    #[test]
    fn the_tidy_table_stacks_every_part_with_the_part_as_a_column() {
        let want = "part,gpu_type,share_pct,series,x,y,key,label,value,unit,published,source\n\
            tab,a,1.5,,,,,,,,,\n\
            tab,\"b, \"\"c\"\"\",2.0,,,,,,,,,\n\
            curve,,,\"s\n1\",0.0,1.0,,,,,,\n\
            curve,,,\"s\n1\",1.0,21.0,,,,,,\n\
            nums,,,,,,h,H,2.0,%,3.0,paper\n";
        assert_eq!(csv::render(&tidy(&output(), None)), want);
    }

    #[test]
    fn one_part_is_its_own_table() {
        assert_eq!(csv::render(&tidy(&output(), Some("tab"))), "gpu_type,share_pct\na,1.5\n\"b, \"\"c\"\"\",2.0\n");
    }

    #[test]
    fn headlines_show_the_difference_with_a_sign() {
        let (_, t) = display(&output(), Some("nums"), &[]).next().unwrap();
        // 2 % against 3 %: one point off, within the 2 points of a share.
        assert_eq!(t.rows[0][1..5], [Value::from("2 %"), "3 %".into(), "-1 %".into(), "≈".into()]);
    }

    #[test]
    fn a_synthetic_count_is_compared_with_the_published_value_times_the_scale() {
        use tracelab_schema::Trace;
        let mut out = Output::new("helios.cluster-summary", "t", "d");
        out.headlines(
            "summary",
            vec![Headline::new("Venus.job_num", "Venus jobs", 247.0, "").published(246708.0, "p")],
        );
        let marker = Marker {
            trace: Trace::Helios,
            version: "0".into(),
            scale: 0.001,
            seed: 7,
            corrupt: None,
            effects: vec![],
            real_files: vec![],
        };
        // 246708 x 0.001 = 246.708; 247 - 246.708 = +0.292, within 10 %.
        let (_, t) = display(&out, None, std::slice::from_ref(&marker)).next().unwrap();
        let want = [Value::from("247"), "246708 (× 0.001 = 246.7)".into(), "+0.292".into(), "≈".into()];
        assert_eq!(t.rows[0][1..5], want);
        // Official data: the published value itself, 247 / 246708 - 1 = -99.9 %.
        let (_, t) = display(&out, None, &[]).next().unwrap();
        assert_eq!((&t.rows[0][2], &t.rows[0][4]), (&Value::from("246708"), &Value::from("▼ -99.9 %")));
    }
}
