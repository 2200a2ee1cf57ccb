//! PostgreSQL's meaning where DataFusion's differs and no setting gives it,
//! as one analyzer rule that rewrites the plan after DataFusion's type
//! coercion (so every expression's type is known):
//!
//! - **A fractional number cast to an integer** is rounded to the nearest
//!   integer, as PostgreSQL casts; DataFusion, like Spark, truncates toward
//!   zero (`CAST(2.7 AS BIGINT)` was 2). PostgreSQL rounds a `double
//!   precision` value's halves to even (`rint`: 2.5 to 2, 3.5 to 4), and a
//!   number written in the query, which it reads as `numeric`, away from
//!   zero (`CAST(2.5 AS BIGINT)` is 3); DuckDB does the same. DataFusion
//!   reads every number with a fraction as a double, so a cast of a literal
//!   rounds halves away from zero and a cast of anything else to even.
//!   Also the casts DataFusion inserts itself (a fraction given to an
//!   integer argument) round.
//! - **A time plus or minus an INTERVAL literal** without months, on a
//!   time in UTC or without a zone, adds a duration instead: the same
//!   instant, computed as one integer addition per value rather than
//!   through the zone's calendar ([`fixed_duration`]).
//! - **`a || b` on text** is computed by `strings`' bounded concatenation,
//!   so that no chain of concatenations builds a value past the ceiling.
//!   NULL on either side gives NULL, as before.
//!
//! And one rule that runs before DataFusion's type coercion:
//!
//! - **Arithmetic on an unsigned integer** (DataFusion's `ROW_NUMBER()`,
//!   `RANK()`, `DENSE_RANK()`, `NTILE` are unsigned) with a signed one gave a
//!   double (`ROW_NUMBER() OVER (...) - 2` printed `-1.0`); PostgreSQL's are
//!   `bigint`, so the unsigned operand is cast to BIGINT first.
//!
//! - **ROLLUP, CUBE and GROUPING SETS after a WHERE that fixes a grouped
//!   column** (`WHERE vc = 'x' GROUP BY ROLLUP (vc)`): DataFusion 55 carries
//!   "vc is constant" from the filter through the aggregate, although the
//!   total rows have NULL there, and then drops vc from an ORDER BY as if it
//!   could not change the order (the total row came first). The
//!   aggregate's input columns pass through an identity function the
//!   optimizer cannot see through ([`Opaque`]: DataFusion takes a function
//!   of constants for a constant, so it also reads a volatile value with no
//!   arguments, [`Barrier`]), so no such fact reaches the aggregate.
//!
//! Result column names are kept (a rewritten expression keeps the name of
//! the one it replaces).

use std::sync::Arc;

use datafusion::arrow::array::{AsArray, Float64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, TimeUnit};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, DFSchema, Result, ScalarValue};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::{
    lit, Aggregate, BinaryExpr, Cast, ColumnarValue, Expr, ExprSchemable, LogicalPlan, Operator, Projection,
    ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, TryCast, Volatility,
};
use datafusion::optimizer::AnalyzerRule;

use super::strings;

/// The rule, for `SessionStateBuilder::with_analyzer_rule`.
#[derive(Debug)]
pub(crate) struct PostgresSemantics {
    /// DataFusion's `round`: halves away from zero.
    round: Arc<ScalarUDF>,
    /// [`RoundEven`]: halves to even.
    round_even: Arc<ScalarUDF>,
    concat: Arc<ScalarUDF>,
}

impl PostgresSemantics {
    pub(crate) fn new() -> PostgresSemantics {
        PostgresSemantics {
            round: datafusion::functions::math::round(),
            round_even: Arc::new(ScalarUDF::from(RoundEven::new())),
            concat: strings::concat_operator(),
        }
    }

    /// `e` rewritten where it is one of the module's cases.
    fn rewrite(&self, e: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
        match e {
            Expr::Cast(Cast { expr, field }) if field.data_type().is_integer() && is_fractional(&expr, schema)? => {
                Ok(Transformed::yes(Expr::Cast(Cast::new_from_field(Box::new(self.rounded(*expr)), field))))
            }
            Expr::TryCast(TryCast { expr, field })
                if field.data_type().is_integer() && is_fractional(&expr, schema)? =>
            {
                Ok(Transformed::yes(Expr::TryCast(TryCast::new_from_field(Box::new(self.rounded(*expr)), field))))
            }
            Expr::BinaryExpr(BinaryExpr { left, op: Operator::StringConcat, right })
                if is_text(&left, schema)? && is_text(&right, schema)? =>
            {
                let call = ScalarFunction::new_udf(Arc::clone(&self.concat), vec![*left, *right]);
                Ok(Transformed::yes(Expr::ScalarFunction(call)))
            }
            Expr::BinaryExpr(BinaryExpr { left, op: op @ (Operator::Plus | Operator::Minus), right }) => {
                match fixed_duration(&left.get_type(schema)?, &right) {
                    Some(duration) => {
                        Ok(Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(left, op, Box::new(lit(duration))))))
                    }
                    None => Ok(Transformed::no(Expr::BinaryExpr(BinaryExpr { left, op, right }))),
                }
            }
            other => Ok(Transformed::no(other)),
        }
    }

    /// `e` rounded as PostgreSQL rounds it for an integer cast. A value
    /// that is already whole (`round(x)`, `floor(x)`, ...) is left as it
    /// is: rounding it again changes nothing and cost a sixth of
    /// `top-users-by-gpu-hours` (`CAST(ROUND(run_s * 1000) AS BIGINT)`).
    fn rounded(&self, e: Expr) -> Expr {
        if is_whole(&e) {
            return e;
        }
        let round = if matches!(e, Expr::Literal(..)) { &self.round } else { &self.round_even };
        Expr::ScalarFunction(ScalarFunction::new_udf(Arc::clone(round), vec![e]))
    }
}

/// The INTERVAL literal `e` as a duration in the unit of `time`, where
/// adding it to a time of that type is adding a number: the interval has no
/// months (whose length varies) and the time is in UTC or has no zone, where
/// a day is always 86,400 seconds. DataFusion adds an interval value by
/// value through the calendar of the column's zone: `submit_time + INTERVAL
/// '8 hours'` was a third of the CPU time of `queue-delay-by-hour`. `None`
/// where the interval does not divide into the time's unit or overflows it.
fn fixed_duration(time: &DataType, e: &Expr) -> Option<ScalarValue> {
    const DAY_NS: i128 = 86_400_000_000_000;
    let DataType::Timestamp(unit, zone) = time else { return None };
    if zone.as_deref().is_some_and(|z| !matches!(z, "UTC" | "+00:00" | "Z" | "+00")) {
        return None;
    }
    let Expr::Literal(value, _) = e else { return None };
    let nanos = match value {
        ScalarValue::IntervalMonthDayNano(Some(i)) if i.months == 0 => {
            i128::from(i.days) * DAY_NS + i128::from(i.nanoseconds)
        }
        ScalarValue::IntervalDayTime(Some(i)) => i128::from(i.days) * DAY_NS + i128::from(i.milliseconds) * 1_000_000,
        _ => return None,
    };
    let per_unit = match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    };
    if nanos % per_unit != 0 {
        return None;
    }
    let n = Some(i64::try_from(nanos / per_unit).ok()?);
    Some(match unit {
        TimeUnit::Second => ScalarValue::DurationSecond(n),
        TimeUnit::Millisecond => ScalarValue::DurationMillisecond(n),
        TimeUnit::Microsecond => ScalarValue::DurationMicrosecond(n),
        TimeUnit::Nanosecond => ScalarValue::DurationNanosecond(n),
    })
}

/// Whether `e` is a float that holds a whole number or NaN or an infinity
/// whatever its argument: one of SQL's one-argument rounding functions.
fn is_whole(e: &Expr) -> bool {
    matches!(e, Expr::ScalarFunction(f) if f.args.len() == 1 && matches!(f.name(), "round" | "floor" | "ceil" | "trunc"))
}

fn is_fractional(e: &Expr, schema: &DFSchema) -> Result<bool> {
    Ok(matches!(e.get_type(schema)?, DataType::Float16 | DataType::Float32 | DataType::Float64))
}

fn is_text(e: &Expr, schema: &DFSchema) -> Result<bool> {
    Ok(matches!(e.get_type(schema)?, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View))
}

/// The columns a plan node's expressions read: its inputs' (its own for a
/// scan or VALUES).
pub(crate) fn input_schema(plan: &LogicalPlan) -> Result<DFSchema> {
    let inputs = plan.inputs();
    if inputs.is_empty() {
        return Ok(plan.schema().as_ref().clone());
    }
    let mut schema = DFSchema::empty();
    for input in inputs {
        schema.merge(input.schema());
    }
    Ok(schema)
}

/// `rint(x)`: the nearest integer, halves to even, as a double; the
/// rounding of PostgreSQL's double-to-integer casts.
#[derive(Debug, PartialEq, Eq, Hash)]
struct RoundEven {
    signature: Signature,
}

impl RoundEven {
    fn new() -> RoundEven {
        RoundEven { signature: Signature::exact(vec![DataType::Float64], Volatility::Immutable) }
    }
}

impl ScalarUDFImpl for RoundEven {
    fn name(&self) -> &str {
        "round_half_even"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn coerce_types(&self, _: &[DataType]) -> Result<Vec<DataType>> {
        Ok(vec![DataType::Float64])
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        match &args.args[0] {
            ColumnarValue::Scalar(v) => match v.cast_to(&DataType::Float64)? {
                ScalarValue::Float64(x) => Ok(ColumnarValue::Scalar(ScalarValue::Float64(x.map(round_ties_even)))),
                other => Ok(ColumnarValue::Scalar(other)),
            },
            ColumnarValue::Array(a) => {
                let floats = cast(a, &DataType::Float64)?;
                let rounded: Float64Array = floats.as_primitive::<Float64Type>().unary(round_ties_even);
                Ok(ColumnarValue::Array(Arc::new(rounded)))
            }
        }
    }
}

/// `x.round_ties_even()` in arithmetic the compiler can vectorize: without
/// SSE4.1 in the x86-64 baseline, the standard one is a call to libm's
/// `rint` per value. Adding and taking away 2^52 leaves no bits for a
/// fraction, so the sum is rounded to a whole number by the processor's
/// default rounding, to nearest with halves to even; a magnitude of 2^52 or
/// more (and NaN) is whole already and kept as it is.
#[inline]
pub(crate) fn round_ties_even(x: f64) -> f64 {
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    let magnitude = x.abs();
    if magnitude < TWO_52 {
        ((magnitude + TWO_52) - TWO_52).copysign(x)
    } else {
        x
    }
}

/// The rule that runs before type coercion (see the module documentation).
#[derive(Debug)]
pub(crate) struct SignedArithmetic;

impl SignedArithmetic {
    fn rewrite(e: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
        let Expr::BinaryExpr(BinaryExpr { left, op, right }) = e else { return Ok(Transformed::no(e)) };
        let arithmetic =
            matches!(op, Operator::Plus | Operator::Minus | Operator::Multiply | Operator::Divide | Operator::Modulo);
        let (l, r) = (left.get_type(schema)?, right.get_type(schema)?);
        if !arithmetic || !(is_unsigned(&l) || is_unsigned(&r)) || !(l.is_integer() && r.is_integer()) {
            return Ok(Transformed::no(Expr::BinaryExpr(BinaryExpr { left, op, right })));
        }
        let signed = |e: Box<Expr>, t: &DataType| {
            if is_unsigned(t) {
                Box::new(Expr::Cast(Cast::new(e, DataType::Int64)))
            } else {
                e
            }
        };
        Ok(Transformed::yes(Expr::BinaryExpr(BinaryExpr { left: signed(left, &l), op, right: signed(right, &r) })))
    }
}

fn is_unsigned(t: &DataType) -> bool {
    matches!(t, DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64)
}

impl AnalyzerRule for SignedArithmetic {
    fn analyze(&self, plan: LogicalPlan, _: &ConfigOptions) -> Result<LogicalPlan> {
        let rewritten = plan.transform_up_with_subqueries(|node| {
            let schema = input_schema(&node)?;
            let names = NamePreserver::new(&node);
            let done = node.map_expressions(|expr| {
                let name = names.save(&expr);
                let done = expr.transform_up(|e| Self::rewrite(e, &schema))?;
                Ok(done.update_data(|e| name.restore(e)))
            })?;
            // A changed type changes the node's schema, which its parent reads.
            if done.transformed {
                return Ok(Transformed::yes(done.data.recompute_schema()?));
            }
            Ok(done)
        })?;
        Ok(rewritten.data)
    }

    fn name(&self) -> &str {
        "tracelab_signed_arithmetic"
    }
}

/// `opaque(x, barrier())` is `x` itself, volatile: what the optimizer knows
/// of `x` (that a filter fixed it) does not pass through it.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Opaque {
    signature: Signature,
}

/// A volatile NULL with no arguments, which DataFusion cannot take for a
/// constant (it has no arguments that are).
#[derive(Debug, PartialEq, Eq, Hash)]
struct Barrier {
    signature: Signature,
}

impl ScalarUDFImpl for Barrier {
    fn name(&self) -> &str {
        "grouping_barrier"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, _: ScalarFunctionArgs) -> Result<ColumnarValue> {
        Ok(ColumnarValue::Scalar(ScalarValue::Boolean(None)))
    }
}

impl ScalarUDFImpl for Opaque {
    fn name(&self) -> &str {
        "grouping_input"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types[0].clone())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        Ok(args.args[0].clone())
    }
}

/// `node` with, for an aggregate over grouping sets, its input's columns
/// passed through [`Opaque`] under their own names.
fn hide_constants(
    node: LogicalPlan,
    opaque: &Arc<ScalarUDF>,
    barrier: &Arc<ScalarUDF>,
) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Aggregate(aggregate) = node else { return Ok(Transformed::no(node)) };
    if !aggregate.group_expr.iter().any(|e| matches!(e, Expr::GroupingSet(_))) {
        return Ok(Transformed::no(LogicalPlan::Aggregate(aggregate)));
    }
    let input = Arc::clone(&aggregate.input);
    let columns = input.schema().iter().map(|(qualifier, field)| {
        let column = Expr::Column(Column::new(qualifier.cloned(), field.name()));
        let unknown = Expr::ScalarFunction(ScalarFunction::new_udf(Arc::clone(barrier), vec![]));
        let call = Expr::ScalarFunction(ScalarFunction::new_udf(Arc::clone(opaque), vec![column, unknown]));
        call.alias_qualified(qualifier.cloned(), field.name())
    });
    let hidden = LogicalPlan::Projection(Projection::try_new(columns.collect(), input)?);
    let rebuilt = Aggregate::try_new(Arc::new(hidden), aggregate.group_expr, aggregate.aggr_expr)?;
    Ok(Transformed::yes(LogicalPlan::Aggregate(rebuilt)))
}

impl AnalyzerRule for PostgresSemantics {
    fn analyze(&self, plan: LogicalPlan, _: &ConfigOptions) -> Result<LogicalPlan> {
        let opaque = Arc::new(ScalarUDF::from(Opaque { signature: Signature::any(2, Volatility::Volatile) }));
        let barrier = Arc::new(ScalarUDF::from(Barrier { signature: Signature::nullary(Volatility::Volatile) }));
        let plan = plan.transform_up_with_subqueries(|node| hide_constants(node, &opaque, &barrier))?.data;
        let rewritten = plan.transform_up_with_subqueries(|node| {
            let schema = input_schema(&node)?;
            let names = NamePreserver::new(&node);
            node.map_expressions(|expr| {
                let name = names.save(&expr);
                let done = expr.transform_up(|e| self.rewrite(e, &schema))?;
                Ok(done.update_data(|e| name.restore(e)))
            })
        })?;
        Ok(rewritten.data)
    }

    fn name(&self) -> &str {
        "tracelab_postgres_semantics"
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::round_ties_even;

    /// Doubles any rounding must get right: halves on both sides of every
    /// parity, signed zeros, the edges of 2^52 and 2^53, non-finite values,
    /// and a seeded spread of magnitudes.
    pub(crate) fn doubles_to_round() -> Vec<f64> {
        let mut cases = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.49999999999999994,
            -0.49999999999999994,
            1e-300,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            4_503_599_627_370_497.0,
            9_007_199_254_740_993.0,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let scale = 10f64.powi((state % 40) as i32 - 20);
            cases.push((state >> 11) as f64 / (1u64 << 53) as f64 * scale * if state & 1 == 0 { 1.0 } else { -1.0 });
            cases.push(((state >> 20) as f64 + 0.5) * if state & 2 == 0 { 1.0 } else { -1.0 });
        }
        cases
    }

    /// Against the standard library's `round_ties_even` (libm's `rint`).
    #[test]
    fn rounds_as_rint_does() {
        for x in doubles_to_round() {
            assert_eq!(round_ties_even(x).to_bits(), x.round_ties_even().to_bits(), "{x:e}");
        }
        assert!(round_ties_even(f64::NAN).is_nan());
    }
}
