//! Text and CSV renderings of an [`Output`] for the terminal and scripts.
//! Deterministic: fixed number formatting, parts in their output order.
//! (JSON is [`Output::to_json`].)

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell as TCell, CellAlignment, Table};

use super::output::SUMMARY_QUANTILES;
use super::{Body, Cell, Headline, Output, ResultTable};
use tracelab_stats::{Dist, CDF_POINTS};

/// Curves longer than this are summarized in text output (use CSV or JSON
/// for every point).
const MAX_TEXT_POINTS: usize = 60;

/// Human-readable rendering: definition, then every part as a table.
pub fn text(out: &Output) -> String {
    let mut s = format!("{} -- {}\n", out.id, out.title);
    if !out.params.is_empty() {
        let p: Vec<String> = out.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        s.push_str(&format!("parameters: {}\n", p.join(", ")));
    }
    s.push_str(&format!("definition: {}\n", out.definition));
    for part in &out.parts {
        s.push_str(&format!("\n[{}]\n", part.name));
        let table = match &part.body {
            Body::Dists { x_label, series } => dist_summary(x_label, series),
            Body::Curves { x_label, y_label, series } => curves_text(x_label, y_label, series),
            Body::Table(t) => result_table(t),
            Body::Headlines(h) => headlines_text(h),
        };
        s.push_str(&table.to_string());
        s.push('\n');
    }
    s
}

/// CSV: every part as its own block preceded by `# part: <name>`, or only
/// the part named `only` without the marker (for piping into other tools).
/// Distributions become their CDF curve (series, value, percent).
pub fn csv(out: &Output, only: Option<&str>) -> String {
    let mut s = String::new();
    for part in out.parts.iter().filter(|p| only.is_none_or(|o| o == p.name)) {
        if only.is_none() {
            if !s.is_empty() {
                s.push('\n');
            }
            s.push_str(&format!("# part: {}\n", part.name));
        }
        s.push_str(&part_csv(&part.body));
    }
    s
}

fn part_csv(body: &Body) -> String {
    let mut s = String::new();
    match body {
        Body::Dists { x_label, series } => {
            s.push_str(&format!("series,{},percent\n", csv_field(x_label)));
            for (label, d) in series {
                for (x, y) in d.cdf_curve(CDF_POINTS) {
                    s.push_str(&format!("{},{},{}\n", csv_field(label), num_csv(x), num_csv(y)));
                }
            }
        }
        Body::Curves { x_label, y_label, series } => {
            s.push_str(&format!("series,{},{}\n", csv_field(x_label), csv_field(y_label)));
            for (label, pts) in series {
                for (x, y) in pts {
                    s.push_str(&format!("{},{},{}\n", csv_field(label), num_csv(*x), num_csv(*y)));
                }
            }
        }
        Body::Table(t) => {
            let header: Vec<String> = t.columns.iter().map(|c| csv_field(c)).collect();
            s.push_str(&(header.join(",") + "\n"));
            for row in &t.rows {
                let cells: Vec<String> = row.iter().map(cell_csv).collect();
                s.push_str(&(cells.join(",") + "\n"));
            }
        }
        Body::Headlines(hs) => {
            s.push_str("key,label,value,unit,published,source\n");
            for h in hs {
                let published = h.published.map_or(String::new(), num_csv);
                s.push_str(&format!(
                    "{},{},{},{},{},{}\n",
                    csv_field(&h.key),
                    csv_field(&h.label),
                    num_csv(h.value),
                    csv_field(&h.unit),
                    published,
                    csv_field(&h.source)
                ));
            }
        }
    }
    s
}

fn new_table(header: Vec<String>) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(header);
    t
}

fn right(s: String) -> TCell {
    TCell::new(s).set_alignment(CellAlignment::Right)
}

fn dist_summary(x_label: &str, series: &[(String, Dist)]) -> Table {
    let mut header = vec![format!("series ({x_label})"), "n".into(), "mean".into()];
    header.extend(SUMMARY_QUANTILES.iter().map(|q| q.1.to_string()));
    header.push("max".into());
    let mut t = new_table(header);
    for (label, d) in series {
        let mut row = vec![TCell::new(label), right(d.n().to_string()), right(num_text(d.mean()))];
        row.extend(SUMMARY_QUANTILES.iter().map(|(q, _)| right(num_text(d.quantile(*q)))));
        row.push(right(num_text(d.max())));
        t.add_row(row);
    }
    t
}

fn curves_text(x_label: &str, y_label: &str, series: &[(String, Vec<(f64, f64)>)]) -> Table {
    let total: usize = series.iter().map(|s| s.1.len()).sum();
    if total > MAX_TEXT_POINTS {
        let mut t =
            new_table(vec!["series".into(), "points".into(), format!("{x_label} range"), format!("{y_label} range")]);
        for (label, pts) in series {
            let (x0, x1) = range(pts.iter().map(|p| p.0));
            let (y0, y1) = range(pts.iter().map(|p| p.1));
            t.add_row(vec![
                TCell::new(label),
                right(pts.len().to_string()),
                right(format!("{} .. {}", num_text(x0), num_text(x1))),
                right(format!("{} .. {}", num_text(y0), num_text(y1))),
            ]);
        }
        return t;
    }
    let mut t = new_table(vec!["series".into(), x_label.into(), y_label.into()]);
    for (label, pts) in series {
        for (x, y) in pts {
            t.add_row(vec![TCell::new(label), right(num_text(*x)), right(num_text(*y))]);
        }
    }
    t
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::NAN, f64::NAN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

fn result_table(rt: &ResultTable) -> Table {
    let mut t = new_table(rt.columns.clone());
    for row in &rt.rows {
        t.add_row(row.iter().map(cell_text).collect::<Vec<_>>());
    }
    t
}

fn headlines_text(hs: &[Headline]) -> Table {
    let mut t =
        new_table(vec!["number".into(), "ours".into(), "published".into(), "difference".into(), "source".into()]);
    for h in hs {
        let unit = if h.unit.is_empty() { String::new() } else { format!(" {}", h.unit) };
        let published = h.published.map_or("-".to_string(), |p| format!("{}{unit}", num_text(p)));
        let diff = h.published.map_or("-".to_string(), |p| format!("{:+}{unit}", Signed(h.value - p)));
        t.add_row(vec![
            TCell::new(&h.label),
            right(format!("{}{unit}", num_text(h.value))),
            right(published),
            right(diff),
            TCell::new(&h.source),
        ]);
    }
    t
}

/// Formats a difference with the same rules as [`num_text`] and a sign.
struct Signed(f64);

impl std::fmt::Display for Signed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.0 >= 0.0 { "+" } else { "-" };
        if f.sign_plus() {
            write!(f, "{sign}{}", num_text(self.0.abs()))
        } else {
            write!(f, "{}", num_text(self.0))
        }
    }
}

fn cell_text(c: &Cell) -> TCell {
    match c {
        Cell::Str(s) => TCell::new(s),
        Cell::Int(i) => right(i.to_string()),
        Cell::Float(f) => right(num_text(*f)),
        Cell::Null => right("-".into()),
    }
}

fn cell_csv(c: &Cell) -> String {
    match c {
        Cell::Str(s) => csv_field(s),
        Cell::Int(i) => i.to_string(),
        Cell::Float(f) => num_csv(*f),
        Cell::Null => String::new(),
    }
}

/// Four significant digits, no exponent below 1e9: readable and stable.
pub fn num_text(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-4..1e9).contains(&a) {
        return format!("{v:.3e}");
    }
    let decimals = (3 - a.log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Full precision (Rust's shortest round-trip form); empty for NaN.
/// Shortest round-trip text that keeps a float a float (`21.0`, not `21`),
/// as pandas writes it: the Helios cluster summary then matches the
/// published `helios_cluster_summary.csv` cell for cell.
fn num_csv(v: f64) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else if v.is_nan() {
        String::new()
    } else if v > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

/// Quotes a CSV field when it needs it (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_with_four_significant_digits() {
        assert_eq!(num_text(13709.0), "13709");
        assert_eq!(num_text(0.041666), "0.04167");
        assert_eq!(num_text(84.4567), "84.46");
        assert_eq!(num_text(1.5e10), "1.500e10");
        assert_eq!(num_text(-2.0), "-2");
    }

    #[test]
    fn csv_floats_stay_floats_like_pandas_writes_them() {
        // The published helios_cluster_summary.csv writes 21.0 and 6373315670.0.
        assert_eq!(num_csv(21.0), "21.0");
        assert_eq!(num_csv(6373315670.0), "6373315670.0");
        assert_eq!(num_csv(0.186), "0.186");
        assert_eq!(num_csv(f64::NAN), "");
    }

    #[test]
    fn csv_quotes_only_when_needed() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }

    #[test]
    fn csv_blocks_are_marked_and_a_single_part_is_plain() {
        let mut out = Output::new("t.x", "T", "def");
        let mut table = ResultTable::new(&["k", "v"]);
        table.push(vec!["a".into(), 1.5.into()]);
        out.table("tab", table);
        out.headlines("nums", vec![Headline::new("h", "H", 2.0, "%").published(3.0, "paper")]);
        assert_eq!(csv(&out, Some("tab")), "k,v\na,1.5\n");
        let all = csv(&out, None);
        assert!(all.starts_with("# part: tab\nk,v\n"), "{all}");
        assert!(all.contains("# part: nums\nkey,label,value,unit,published,source\nh,H,2.0,%,3.0,paper\n"), "{all}");
    }
}
