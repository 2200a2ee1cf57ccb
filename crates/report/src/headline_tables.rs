//! The headline numbers as tables: judged against their published values
//! (ours, the published value, the verdict of `calibration`) or plain, and
//! grouped per analysis. A spec figure of kind `headlines`, `index.html` and
//! `summary.md` show these.

use tracelab_analysis::Headline;
use tracelab_present::number::report_text;
use tracelab_schema::synthetic::Marker;

use super::calibration::judge;
use super::headline::HeadlineRow;
use super::tables::TextTable;

fn opt(x: Option<f64>) -> String {
    x.map(report_text).unwrap_or_default()
}

/// A headlines part as a table (a spec figure of kind `headlines`).
pub fn headline_table(headlines: &[Headline], markers: &[Marker], analysis: &str) -> TextTable {
    judged_table(&headlines.iter().map(|h| HeadlineRow::new(analysis, h)).collect::<Vec<_>>(), markers)
}

/// Headlines with a published value: ours, the published value (times the
/// scale for a synthetic count) and how they compare.
pub fn judged_table(rows: &[HeadlineRow], markers: &[Marker]) -> TextTable {
    let columns = ["headline", "ours", "published", "vs published", "unit", "published in"].map(String::from).to_vec();
    let rows = rows
        .iter()
        .map(|r| {
            let j = judge(r, markers);
            vec![
                r.label.clone(),
                opt(r.value),
                j.reference_text(r.published),
                j.mark(),
                r.unit.clone(),
                r.source.clone(),
            ]
        })
        .collect();
    TextTable { columns, rows }
}

/// Headlines without a published value, with the analysis id when
/// `with_analysis`.
pub fn rows_table(rows: &[HeadlineRow], with_analysis: bool) -> TextTable {
    let mut columns: Vec<String> = ["headline", "ours", "unit"].map(String::from).to_vec();
    if with_analysis {
        columns.insert(0, "analysis".into());
    }
    let rows = rows
        .iter()
        .map(|r| {
            let mut row = vec![r.label.clone(), opt(r.value), r.unit.clone()];
            if with_analysis {
                row.insert(0, r.analysis.clone());
            }
            row
        })
        .collect();
    TextTable { columns, rows }
}

/// The rows grouped per analysis, in order of first appearance.
pub fn by_analysis(rows: &[HeadlineRow]) -> Vec<(String, Vec<HeadlineRow>)> {
    let mut groups: Vec<(String, Vec<HeadlineRow>)> = Vec::new();
    for r in rows {
        match groups.iter_mut().find(|(a, _)| *a == r.analysis) {
            Some((_, g)) => g.push(r.clone()),
            None => groups.push((r.analysis.clone(), vec![r.clone()])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judged_rows_show_the_mark_not_a_wall_of_percentages() {
        let close = Headline::new("k", "share", 31.6, "%").published(30.0, "ATC'19");
        let off = Headline::new("p90", "P90 wait", 39694.0, "s").published(497.0, "NSDI'22");
        let t = headline_table(&[close, off], &[], "philly.x");
        assert_eq!(t.rows[0][..4], ["share", "31.6", "30", "≈"]);
        // (39694 - 497) / 497 = +7886.7 %.
        assert_eq!(t.rows[1][..4], ["P90 wait", "39694", "497", "▲ +7886.7 %"]);
    }

    #[test]
    fn rows_group_per_analysis_in_first_appearance_order() {
        let r = |a: &str| HeadlineRow::new(a, &Headline::new("k", "l", 1.0, ""));
        let g = by_analysis(&[r("b"), r("a"), r("b")]);
        assert_eq!(g.iter().map(|(a, rows)| (a.as_str(), rows.len())).collect::<Vec<_>>(), [("b", 2), ("a", 1)]);
    }
}
