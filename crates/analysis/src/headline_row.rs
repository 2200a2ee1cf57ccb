//! One headline number of one analysis run as the report keeps it: ours,
//! the published value and where it was published. The report's run cache
//! stores these, [`crate::calibration`] judges them, the report's pages and
//! `tracelab analyze` show them; it is the record they all share, so it
//! sits below them.

use serde::{Deserialize, Serialize};

use crate::Headline;

/// One headline number of one analysis run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeadlineRow {
    pub analysis: String,
    pub key: String,
    pub label: String,
    /// None when the analysis had no value (NaN).
    pub value: Option<f64>,
    pub unit: String,
    pub published: Option<f64>,
    pub source: String,
}

impl HeadlineRow {
    pub fn new(analysis: &str, h: &Headline) -> HeadlineRow {
        HeadlineRow {
            analysis: analysis.into(),
            key: h.key.clone(),
            label: h.label.clone(),
            value: Some(h.value).filter(|v| v.is_finite()),
            unit: h.unit.clone(),
            published: h.published.filter(|v| v.is_finite()),
            source: h.source.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_that_is_not_a_number_is_none() {
        let none = HeadlineRow::new("a", &Headline::new("k", "l", f64::NAN, "").published(f64::INFINITY, "x"));
        assert_eq!((none.value, none.published), (None, None));
    }
}
