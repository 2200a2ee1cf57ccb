//! The Philly job tables (`philly/jobs`, `philly/attempts`) as the notebook's
//! P1-P3 read them: distributions per GPU bucket, in minutes, the
//! notebook's unit (`timedelta_to_minutes`).

use std::collections::BTreeMap;

use polars::prelude::*;

use crate::frame::{f64s, strs};
use tracelab_schema::error::Result;
use tracelab_stats::Dist;

pub const MINUTE_US: f64 = 60e6;

/// Groups (label, value) samples into one Dist per label of `order`.
pub fn dists_in_order(samples: impl IntoIterator<Item = (String, f64)>, order: &[&str]) -> Vec<(String, Dist)> {
    let mut by: BTreeMap<String, Vec<f64>> = order.iter().map(|l| (l.to_string(), Vec::new())).collect();
    for (label, v) in samples {
        by.entry(label).or_default().push(v);
    }
    order.iter().map(|l| (l.to_string(), Dist::from_samples(by.remove(*l).unwrap_or_default()))).collect()
}

/// (label, value) rows of two columns, nulls and non-finite values dropped.
pub fn labelled(df: &DataFrame, label: &str, value: &str) -> Result<Vec<(String, f64)>> {
    let (labels, values) = (strs(df, label)?, f64s(df, value)?);
    Ok(labels.into_iter().zip(values).filter_map(|(l, v)| Some((l?, v.filter(|v| v.is_finite())?))).collect())
}
