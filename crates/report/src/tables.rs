//! The table kinds of a spec figure (`table`, `quantiles`) as text tables,
//! and the column lookups the chart kinds share: find a column by name
//! (the error lists the ones there are), keep the rows a `rows` filter
//! names, read a cell as a number.

use serde::{Deserialize, Serialize};

use tracelab_analysis::{Cell, ResultTable};
use tracelab_present::number::report_text;
use tracelab_schema::error::{Error, Result};
use tracelab_stats::Dist;

use super::selection::{label_of, pick, Env};
use super::spec::FigureSpec;

/// A table of display strings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TextTable {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// The index of column `name`; the error names the figure and the columns.
pub fn column(fig: &FigureSpec, t: &ResultTable, name: &str) -> Result<usize> {
    t.columns.iter().position(|c| c == name).ok_or_else(|| {
        Error::Usage(format!(
            "figure `{}`: the table has no column `{name}` (it has: {})",
            fig.id,
            t.columns.join(", ")
        ))
    })
}

/// A cell as a number; text and nulls are NaN (no data).
pub fn cell_f64(c: &Cell) -> f64 {
    match c {
        Cell::Int(i) => *i as f64,
        Cell::Float(f) => *f,
        _ => f64::NAN,
    }
}

/// A cell as display text (numbers by the report's rule).
pub fn cell_text(c: &Cell) -> String {
    match c {
        Cell::Str(s) => s.clone(),
        Cell::Int(i) => i.to_string(),
        Cell::Float(f) => report_text(*f),
        Cell::Null => String::new(),
    }
}

/// The table's rows that match the figure's `rows` filter.
pub fn filter_rows(fig: &FigureSpec, t: &ResultTable) -> Result<ResultTable> {
    let mut keep = Vec::new();
    for (col, want) in &fig.rows {
        keep.push((column(fig, t, col)?, want));
    }
    let rows = t.rows.iter().filter(|r| keep.iter().all(|(i, want)| cell_text(&r[*i]) == **want)).cloned().collect();
    Ok(ResultTable { columns: t.columns.clone(), rows })
}

/// A `table` part's chosen columns as text.
pub fn text_table(fig: &FigureSpec, t: &ResultTable) -> Result<TextTable> {
    let names: Vec<String> = fig.columns.clone().unwrap_or_else(|| t.columns.clone());
    let idx: Vec<usize> = names.iter().map(|n| column(fig, t, n)).collect::<Result<_>>()?;
    let rows = t.rows.iter().map(|r| idx.iter().map(|&i| cell_text(&r[i])).collect()).collect();
    Ok(TextTable { columns: names, rows })
}

/// A `dists` part as n, mean and quantiles per series (None: every series
/// asked for belongs to an absent trace).
pub fn quantile_table(
    fig: &FigureSpec,
    series: &[(String, Dist)],
    env: &Env,
    notes: &mut Vec<String>,
) -> Result<Option<TextTable>> {
    let Some(picked) = pick(fig, series, env, notes)? else { return Ok(None) };
    let columns = ["series", "n", "mean", "p10", "p50", "p90", "p99", "max"].map(String::from).to_vec();
    let div = fig.x_div.unwrap_or(1.0);
    let rows = picked
        .into_iter()
        .map(|(label, d)| {
            let q = |p: f64| report_text(d.quantile(p) / div);
            vec![
                label_of(fig, label),
                d.n().to_string(),
                report_text(d.mean() / div),
                q(0.1),
                q(0.5),
                q(0.9),
                q(0.99),
                q(1.0),
            ]
        })
        .collect();
    Ok(Some(TextTable { columns, rows }))
}
