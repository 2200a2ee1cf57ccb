//! Exact quantiles: `percentile_cont` / `quantile_cont` / `median` and
//! `percentile_disc` / `quantile_disc`, as PostgreSQL defines them.
//!
//! - `percentile_cont(q) WITHIN GROUP (ORDER BY x)` (also written
//!   `quantile_cont(x, q)`, DuckDB's spelling): the value at position
//!   q·(n−1) of the sorted non-NULL values, interpolated linearly between
//!   the two values around it: `lo + (hi − lo) · frac`, the formula of
//!   PostgreSQL, DuckDB and numpy's default (`linear`). DataFusion's own
//!   `percentile_cont` rounds `frac` to six decimals (about 1e-6 relative
//!   off) and keeps an integer input's type; this one computes in double
//!   precision and always returns a double, as PostgreSQL does.
//!   `median(x)` is `percentile_cont(0.5)`.
//! - `percentile_disc(q) WITHIN GROUP (ORDER BY x)`: the first value whose
//!   position in the ordering reaches the fraction q (0-based index
//!   ⌈q·n⌉ − 1, at least 0), of the input's type; any ordered type.
//!
//! `ORDER BY x DESC` takes the fraction from the other end. NULLs are left
//! out; no value gives NULL. NaN sorts above every number, as in
//! PostgreSQL. The fraction must be a constant between 0 and 1.

use std::fmt::Debug;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, Float64Array, ListArray, UInt32Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::{concat, sort_to_indices, take, SortOptions};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type};
use datafusion::common::{plan_err, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, TypeSignature, Volatility,
};
use datafusion::physical_expr::expressions::Literal;

use crate::quantile_values::Values;

/// The aggregates of this module, to register in a session (they replace
/// DataFusion's `percentile_cont` and `median` of the same names).
pub(crate) fn aggregates() -> Vec<Arc<AggregateUDF>> {
    vec![
        Arc::new(AggregateUDF::from(Continuous::percentile())),
        Arc::new(AggregateUDF::from(Continuous::median())),
        Arc::new(AggregateUDF::from(Discrete::new())),
    ]
}

/// `percentile_cont` (with its fraction as an argument) or `median`.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Continuous {
    name: &'static str,
    aliases: Vec<String>,
    /// `median`: the fraction 0.5, one argument.
    median: bool,
    signature: Signature,
}

impl Continuous {
    fn percentile() -> Continuous {
        Continuous {
            name: "percentile_cont",
            aliases: vec!["quantile_cont".into(), "quantile".into()],
            median: false,
            signature: Signature::one_of(
                numeric_types().into_iter().map(|t| TypeSignature::Exact(vec![t, DataType::Float64])).collect(),
                Volatility::Immutable,
            ),
        }
    }

    fn median() -> Continuous {
        Continuous {
            name: "median",
            aliases: vec![],
            median: true,
            signature: Signature::one_of(
                numeric_types().into_iter().map(|t| TypeSignature::Exact(vec![t])).collect(),
                Volatility::Immutable,
            ),
        }
    }

    /// The fraction this call asks for, from the ascending end.
    fn fraction(&self, args: &AccumulatorArgs) -> Result<f64> {
        let q = if self.median { 0.5 } else { constant_fraction(self.name, args)? };
        Ok(if descending(args) { 1.0 - q } else { q })
    }
}

/// The input types the continuous quantiles take (each computed in f64).
fn numeric_types() -> Vec<DataType> {
    use DataType::*;
    vec![Float64, Float32, Int64, Int32, Int16, Int8, UInt64, UInt32, UInt16, UInt8]
}

/// Whether the call's WITHIN GROUP ordering is descending.
fn descending(args: &AccumulatorArgs) -> bool {
    args.order_bys.first().is_some_and(|s| s.options.descending)
}

/// The fraction argument: a constant in [0, 1].
fn constant_fraction(name: &str, args: &AccumulatorArgs) -> Result<f64> {
    let value = args.exprs.get(1).and_then(|e| e.downcast_ref::<Literal>()).map(|l| l.value().clone());
    let q = match value {
        Some(ScalarValue::Float64(Some(q))) => q,
        Some(other) => match other.cast_to(&DataType::Float64) {
            Ok(ScalarValue::Float64(Some(q))) => q,
            _ => return plan_err!("{name}: the fraction must be a number between 0 and 1, not {other}"),
        },
        None => return plan_err!("{name}: the fraction must be a constant between 0 and 1"),
    };
    if !(0.0..=1.0).contains(&q) {
        return plan_err!("{name}: the fraction must be between 0 and 1, not {q}");
    }
    Ok(q)
}

/// The state of one group between phases: its values as a list.
fn list_state(args: &StateFieldsArgs, name: &str, item: DataType) -> Vec<FieldRef> {
    let list = DataType::List(Arc::new(Field::new_list_field(item, true)));
    vec![Arc::new(Field::new(format!("{}[{name}]", args.name), list, true))]
}

impl AggregateUDFImpl for Continuous {
    fn name(&self) -> &str {
        self.name
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(list_state(&args, self.name, DataType::Float64))
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        if args.is_distinct {
            return plan_err!("{}(DISTINCT ...) is not supported: take the quantile of a DISTINCT subquery", self.name);
        }
        Ok(Box::new(ContinuousOne { values: Values::default(), q: self.fraction(&args)? }))
    }

    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        !args.is_distinct
    }

    fn create_groups_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(ContinuousGroups { groups: Vec::new(), q: self.fraction(&args)? }))
    }

    fn supports_within_group_clause(&self) -> bool {
        !self.median
    }
}

/// `array` cast to f64 (NULLs stay NULL).
fn floats(array: &ArrayRef) -> Result<Float64Array> {
    let cast = datafusion::arrow::compute::cast(array, &DataType::Float64)?;
    Ok(cast.as_primitive::<Float64Type>().clone())
}

/// One group's values (the accumulator of a query without GROUP BY, and of
/// windows).
#[derive(Debug)]
struct ContinuousOne {
    values: Values,
    q: f64,
}

impl Accumulator for ContinuousOne {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.values.extend(floats(&values[0])?.iter().flatten());
        Ok(())
    }

    /// A sliding window frame's rows that leave it: DataFusion retracts
    /// the rows from the frame's old start to its new one, which it added
    /// first (a frame only moves forward), so their values, NULLs left out
    /// as `update_batch` leaves them out, are the oldest held.
    fn retract_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let leaving = values[0].len() - values[0].null_count();
        self.values.drop_front(leaving).map_err(datafusion::common::DataFusionError::Internal)
    }

    fn supports_retract_batch(&self) -> bool {
        true
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        for list in states[0].as_list::<i32>().iter().flatten() {
            self.values.extend(floats(&list)?.iter().flatten());
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let list = ScalarValue::new_list_nullable(
            &self.values.iter().map(|v| ScalarValue::Float64(Some(v))).collect::<Vec<_>>(),
            &DataType::Float64,
        );
        Ok(vec![ScalarValue::List(list)])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        // The values are left as they are: a window frame evaluates again
        // after more rows.
        Ok(ScalarValue::Float64(self.values.quantile(self.q)))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.values.bytes()
    }
}

/// Every group's values, by group index.
#[derive(Debug)]
struct ContinuousGroups {
    groups: Vec<Values>,
    q: f64,
}

impl ContinuousGroups {
    fn grow(&mut self, total: usize) {
        if self.groups.len() < total {
            self.groups.resize_with(total, Values::default);
        }
    }
}

impl GroupsAccumulator for ContinuousGroups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.grow(total_num_groups);
        let values = floats(&values[0])?;
        if opt_filter.is_none() && values.null_count() == 0 {
            // The usual case, without a check per row: `trace-overview`
            // takes two medians of 6.1 M jobs.
            for (&g, &v) in group_indices.iter().zip(values.values()) {
                self.groups[g].push(v);
            }
            return Ok(());
        }
        for (row, &g) in group_indices.iter().enumerate() {
            let kept = opt_filter.is_none_or(|f| f.is_valid(row) && f.value(row));
            if kept && values.is_valid(row) {
                self.groups[g].push(values.value(row));
            }
        }
        Ok(())
    }

    fn merge_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], total_num_groups: usize) -> Result<()> {
        self.grow(total_num_groups);
        let lists = values[0].as_list::<i32>();
        for (row, &g) in group_indices.iter().enumerate() {
            if lists.is_valid(row) {
                self.groups[g].extend(floats(&lists.value(row))?.iter().flatten());
            }
        }
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let groups = emit_to.take_needed(&mut self.groups);
        let q = self.q;
        Ok(Arc::new(groups.iter().map(|v| v.quantile(q)).collect::<Float64Array>()))
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let groups = emit_to.take_needed(&mut self.groups);
        let offsets = OffsetBuffer::from_lengths(groups.iter().map(Values::len));
        let values: Float64Array = groups.iter().flat_map(Values::iter).map(Some).collect();
        let item = Arc::new(Field::new_list_field(DataType::Float64, true));
        Ok(vec![Arc::new(ListArray::try_new(item, offsets, Arc::new(values), None)?)])
    }

    /// Rows passed through unaggregated: a one-value list each (none where
    /// the value is NULL or filtered out).
    fn convert_to_state(&self, values: &[ArrayRef], opt_filter: Option<&BooleanArray>) -> Result<Vec<ArrayRef>> {
        let values = floats(&values[0])?;
        let kept = |row: usize| values.is_valid(row) && opt_filter.is_none_or(|f| f.is_valid(row) && f.value(row));
        let offsets = OffsetBuffer::from_lengths((0..values.len()).map(|row| usize::from(kept(row))));
        let items: Float64Array =
            (0..values.len()).filter(|&row| kept(row)).map(|row| Some(values.value(row))).collect();
        let item = Arc::new(Field::new_list_field(DataType::Float64, true));
        Ok(vec![Arc::new(ListArray::try_new(item, offsets, Arc::new(items), None)?)])
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self.groups.capacity() * std::mem::size_of::<Values>()
            + self.groups.iter().map(Values::bytes).sum::<usize>()
    }
}

/// `percentile_disc`.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Discrete {
    aliases: Vec<String>,
    signature: Signature,
}

impl Discrete {
    fn new() -> Discrete {
        Discrete { aliases: vec!["quantile_disc".into()], signature: Signature::any(2, Volatility::Immutable) }
    }
}

impl AggregateUDFImpl for Discrete {
    fn name(&self) -> &str {
        "percentile_disc"
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types[0].clone())
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(list_state(&args, "percentile_disc", args.input_fields[0].data_type().clone()))
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        if args.is_distinct {
            return plan_err!("percentile_disc(DISTINCT ...) is not supported: take it of a DISTINCT subquery");
        }
        let q = constant_fraction("percentile_disc", &args)?;
        let data_type = args.expr_fields[0].data_type().clone();
        Ok(Box::new(DiscreteOne { chunks: Vec::new(), q, descending: descending(&args), data_type }))
    }

    fn supports_within_group_clause(&self) -> bool {
        true
    }
}

/// One group's values, as the arrays they came in.
#[derive(Debug)]
struct DiscreteOne {
    chunks: Vec<ArrayRef>,
    q: f64,
    descending: bool,
    data_type: DataType,
}

impl DiscreteOne {
    fn all(&self) -> Result<ArrayRef> {
        let arrays: Vec<&dyn Array> = self.chunks.iter().map(std::convert::AsRef::as_ref).collect();
        if arrays.is_empty() {
            return Ok(datafusion::arrow::array::new_empty_array(&self.data_type));
        }
        Ok(concat(&arrays)?)
    }
}

impl Accumulator for DiscreteOne {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        if values[0].len() > values[0].null_count() {
            self.chunks.push(Arc::clone(&values[0]));
        }
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        for list in states[0].as_list::<i32>().iter().flatten() {
            self.update_batch(&[list])?;
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let all = self.all()?;
        let offsets = OffsetBuffer::from_lengths([all.len()]);
        let item = Arc::new(Field::new_list_field(self.data_type.clone(), true));
        let list = ListArray::try_new(item, offsets, all, None)?;
        Ok(vec![ScalarValue::List(Arc::new(list))])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let all = self.all()?;
        let options = SortOptions { descending: self.descending, nulls_first: false };
        let order = sort_to_indices(&all, Some(options), None)?;
        let n = all.len() - all.null_count();
        if n == 0 {
            return ScalarValue::try_from(&self.data_type);
        }
        // PostgreSQL: the first value whose position reaches q of the way.
        let index = ((self.q * n as f64).ceil() as usize).saturating_sub(1).min(n - 1);
        let picked = take(&all, &UInt32Array::from(vec![order.value(index)]), None)?;
        ScalarValue::try_from_array(&picked, 0)
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self.chunks.iter().map(datafusion::arrow::array::Array::get_array_memory_size).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A median and a 0.75 quantile over a sliding frame of the row and the
    /// two before it, NULLs left out, worked by hand:
    /// x = 4, NULL, 1, 9, 3, 3, 8 gives the frames {4}, {4}, {4, 1},
    /// {1, 9}, {1, 9, 3}, {9, 3, 3}, {3, 3, 8}.
    #[test]
    fn quantiles_over_a_sliding_frame() {
        let sql = "SELECT i, median(x) OVER w, quantile_cont(x, 0.75) OVER w \
                   FROM (VALUES (1, 4.0), (2, NULL), (3, 1.0), (4, 9.0), (5, 3.0), (6, 3.0), (7, 8.0)) AS t(i, x) \
                   WINDOW w AS (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) ORDER BY i";
        let (rows, plan) = crate::plan_tests::run_in_session(sql).unwrap();
        let plan = datafusion::physical_plan::displayable(plan.as_ref()).indent(true).to_string();
        // 0.75 of {1, 9}: 1 + 8 * 0.75 = 7; of {1, 3, 9}: position 1.5, 3 + 6 * 0.5 = 6;
        // of {3, 3, 9}: 3 + 6 * 0.5 = 6; of {3, 3, 8}: 3 + 5 * 0.5 = 5.5.
        let want = ["1|4.0|4.0", "2|4.0|4.0", "3|2.5|3.25", "4|5.0|7.0", "5|3.0|6.0", "6|3.0|6.0", "7|3.0|5.5"];
        assert_eq!(rows, want, "{plan}");
        assert!(plan.contains("BoundedWindowAggExec"), "a sliding frame: {plan}");
    }

    /// 0.1 + (0.3 - 0.1) * frac, the fraction not rounded: DataFusion's own
    /// percentile_cont rounds frac = 1/3 to 0.333333 here.
    #[test]
    fn the_fraction_is_not_rounded() {
        let mut values = Values::default();
        values.extend([0.1, 0.3, 0.5, 0.7]);
        let got = values.quantile(1.0 / 9.0).unwrap();
        let want = 0.1 + (0.3 - 0.1) * (1.0 / 3.0);
        assert!((got - want).abs() < 1e-15, "{got} vs {want}");
    }
}
