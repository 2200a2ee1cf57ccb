//! Rounding casts in one pass: `CAST(round(x) AS BIGINT)` over a double
//! column evaluated as one loop instead of two kernels and a cast.
//!
//! The named queries sum whole units (`CAST(ROUND(gpus_requested * 100) AS
//! BIGINT)`, see `top-users-by-gpu-hours.sql`), and every cast of a fraction
//! to an integer is a rounding cast after `semantics` (PostgreSQL rounds
//! there). DataFusion evaluates such an expression as `round` (a libm call
//! per value into a new array), then the cast (a checked conversion per
//! value into another array): a tenth of the CPU of
//! `top-users-by-gpu-hours` at full scale went to those two steps.
//! [`RoundCastExpr`] replaces the pair (the rule is `one_pass`'s); it reads
//! the argument once and writes the integers, with the same answer:
//!
//! - `round` rounds halves away from zero, `round_half_even` (the rounding
//!   of an implicit cast, see `semantics`) to even; both leave NaN, the
//!   infinities and magnitudes of 2^52 or more as they are;
//! - a rounded value outside the integer type's range, NaN included, stops
//!   the query with the cast's own error (`Can't cast value 1e30 to type
//!   Int64`), but only where the value is not NULL: a NULL stays NULL.
//!
//! Only `CAST` (not `TRY_CAST`) of a double to `BIGINT` or `INTEGER` is
//! rewritten, in projections and in aggregate arguments (where
//! `SUM(CAST(ROUND(...) AS BIGINT))` puts it); anything else keeps its plan.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray};
use datafusion::arrow::datatypes::{ArrowPrimitiveType, DataType, Float64Type, Int32Type, Int64Type, Schema};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode, TreeNodeRecursion};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::sort_properties::ExprProperties;
use datafusion::logical_expr::{ColumnarValue, Operator};
use datafusion::physical_expr::expressions::{BinaryExpr, CastExpr, Literal};
use datafusion::physical_expr::{PhysicalExpr, ScalarFunctionExpr};

use crate::semantics::round_ties_even;

/// How `round`-like functions round a half.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Halves {
    /// DataFusion's `round`: away from zero.
    AwayFromZero,
    /// `semantics`' `round_half_even`: to even.
    ToEven,
}

impl Halves {
    fn of(function: &str) -> Option<Halves> {
        match function {
            "round" => Some(Halves::AwayFromZero),
            "round_half_even" => Some(Halves::ToEven),
            _ => None,
        }
    }

    /// `x` rounded to a whole number. Rounding to even is exact for every
    /// double (see `round_ties_even`); a value exactly halfway is then
    /// moved away from zero for `round`: `x - r` is exact below 2^52, so
    /// it is ±0.5 just for those, and `x ± 0.5` is then the whole number
    /// away from zero. Both are a few instructions and selects, with no
    /// call per value as libm's `round` is.
    #[inline]
    fn apply(self, x: f64) -> f64 {
        let even = round_ties_even(x);
        match self {
            Halves::ToEven => even,
            Halves::AwayFromZero => {
                if (x - even).abs() == 0.5 {
                    x + 0.5f64.copysign(x)
                } else {
                    even
                }
            }
        }
    }
}

/// `CAST(round(arg * scale) AS <integer>)` of a double `arg`, in one pass.
#[derive(Debug)]
pub(crate) struct RoundCastExpr {
    arg: Arc<dyn PhysicalExpr>,
    /// A constant factor of the argument (`round(x * 100)`), taken into the
    /// loop: the product is the same double the multiplication gives, and
    /// one array fewer is written. 1 when there is none (`x * 1` is `x`).
    scale: f64,
    halves: Halves,
    to: DataType,
    /// The `CAST(round(...))` this replaces, for its name in plans and the
    /// sort properties it has.
    original: Arc<dyn PhysicalExpr>,
}

impl RoundCastExpr {
    /// The fused form of `e` if it is a `CAST` of `round(x)` or
    /// `round_half_even(x)` of a double to `BIGINT` or `INTEGER`, `x` being
    /// `y * c` or `c * y` for a constant double `c` or anything else.
    pub(crate) fn try_from_cast(e: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Result<Option<RoundCastExpr>> {
        let Some(cast) = e.downcast_ref::<CastExpr>() else { return Ok(None) };
        if cast.cast_options().safe || !matches!(cast.cast_type(), DataType::Int64 | DataType::Int32) {
            return Ok(None);
        }
        let Some(function) = cast.expr().downcast_ref::<ScalarFunctionExpr>() else { return Ok(None) };
        let (Some(halves), [arg]) = (Halves::of(function.name()), function.args()) else { return Ok(None) };
        if arg.data_type(schema)? != DataType::Float64 || cast.expr().data_type(schema)? != DataType::Float64 {
            return Ok(None);
        }
        let (arg, scale) = scaled(arg, schema)?.unwrap_or((Arc::clone(arg), 1.0));
        Ok(Some(RoundCastExpr { arg, scale, halves, to: cast.cast_type().clone(), original: Arc::clone(e) }))
    }

    fn convert(&self, values: &PrimitiveArray<Float64Type>) -> Result<ArrayRef> {
        match self.to {
            DataType::Int64 => Ok(Arc::new(round_into::<Int64Type>(values, self.scale, self.halves, I64_LIMIT)?)),
            _ => Ok(Arc::new(round_into::<Int32Type>(values, self.scale, self.halves, I32_LIMIT)?)),
        }
    }
}

/// 2^63 and 2^31: a whole double in [-limit, limit) fits the integer type.
const I64_LIMIT: f64 = (1u64 << 63) as f64;
const I32_LIMIT: f64 = (1u64 << 31) as f64;

/// `(y, c)` if `e` is `y * c` or `c * y` of a double `y` and a constant
/// double `c` that is not NULL.
fn scaled(e: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Result<Option<(Arc<dyn PhysicalExpr>, f64)>> {
    let Some(product) = e.downcast_ref::<BinaryExpr>() else { return Ok(None) };
    if *product.op() != Operator::Multiply {
        return Ok(None);
    }
    let constant = |side: &Arc<dyn PhysicalExpr>| match side.downcast_ref::<Literal>().map(Literal::value) {
        Some(ScalarValue::Float64(Some(c))) => Some(*c),
        _ => None,
    };
    let (y, c) = match (constant(product.left()), constant(product.right())) {
        (_, Some(c)) => (product.left(), c),
        (Some(c), None) => (product.right(), c),
        (None, None) => return Ok(None),
    };
    Ok((y.data_type(schema)? == DataType::Float64).then(|| (Arc::clone(y), c)))
}

/// The properties of `node`, an expression over `arg` whose properties
/// are `of_arg`.
fn properties_over(
    node: &Arc<dyn PhysicalExpr>,
    arg: &Arc<dyn PhysicalExpr>,
    of_arg: &ExprProperties,
) -> Result<ExprProperties> {
    if Arc::ptr_eq(node, arg) {
        return Ok(of_arg.clone());
    }
    let children = node.children().into_iter().map(|c| properties_over(c, arg, of_arg)).collect::<Result<Vec<_>>>()?;
    node.get_properties(&children)
}

/// Every value of `values` times `scale`, rounded and converted to `T`,
/// whose values are the whole numbers in [-limit, limit).
fn round_into<T>(
    values: &PrimitiveArray<Float64Type>,
    scale: f64,
    halves: Halves,
    limit: f64,
) -> Result<PrimitiveArray<T>>
where
    T: ArrowPrimitiveType,
    T::Native: FromF64,
{
    // One loop per rounding, so that neither the choice nor the scale is
    // decided again per value.
    match halves {
        Halves::AwayFromZero => convert(values, limit, |x| Halves::AwayFromZero.apply(x * scale)),
        Halves::ToEven => convert(values, limit, |x| Halves::ToEven.apply(x * scale)),
    }
}

/// `round(x)` of every value as `T`. The loop converts a whole double of
/// magnitude under 2^51 through its bits (`whole_to_i64`), which packs into
/// vector instructions where `as` does not on the x86-64 baseline, and only
/// notes whether a value was larger or out of range. A larger value (rare
/// in a trace) sends the batch through the `as` conversion (saturating,
/// never undefined) instead; an out-of-range one sends it to the slow path,
/// which finds the first such value that is not NULL, for the cast's error.
fn convert<T, F>(values: &PrimitiveArray<Float64Type>, limit: f64, round: F) -> Result<PrimitiveArray<T>>
where
    T: ArrowPrimitiveType,
    T::Native: FromF64,
    F: Fn(f64) -> f64,
{
    let xs = values.values();
    let mut converted = vec![T::Native::default(); xs.len()];
    let (out_of_range, large) = small_pass(xs, &mut converted, limit, &round);
    if large {
        for (out, &x) in converted.iter_mut().zip(xs.iter()) {
            *out = T::Native::from_f64(round(x));
        }
    }
    if out_of_range {
        let mut valid = (0..values.len()).filter(|&i| values.is_valid(i)).map(|i| round(values.value(i)));
        if let Some(r) = valid.find(|&r| !fits(r, limit)) {
            return Err(ArrowError::CastError(format!("Can't cast value {r:?} to type {}", T::DATA_TYPE)).into());
        }
    }
    Ok(PrimitiveArray::<T>::new(converted.into(), values.nulls().cloned()))
}

/// The first pass of `convert`: each value of `xs` rounded into `out`
/// through its bits, and whether a value was out of range and whether one
/// was large. Run with AVX2 where the CPU has it: the same IEEE operations
/// on four values at a time instead of two, and a rounding instruction
/// instead of a sequence (SSE4.1), so the results are the same bits.
fn small_pass<N: FromF64, F: Fn(f64) -> f64>(xs: &[f64], out: &mut [N], limit: f64, round: &F) -> (bool, bool) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2, all that `small_pass_avx2` enables, is there.
        return unsafe { small_pass_avx2(xs, out, limit, round) };
    }
    small_pass_here(xs, out, limit, round)
}

/// [`small_pass_here`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn small_pass_avx2<N: FromF64, F: Fn(f64) -> f64>(xs: &[f64], out: &mut [N], limit: f64, round: &F) -> (bool, bool) {
    small_pass_here(xs, out, limit, round)
}

/// [`small_pass`] for the CPU features it is inlined into.
#[inline(always)]
fn small_pass_here<N: FromF64, F: Fn(f64) -> f64>(xs: &[f64], out: &mut [N], limit: f64, round: &F) -> (bool, bool) {
    // Written so that NaN is not small.
    let small = |r: f64| r.abs() < TWO_51;
    let (mut out_of_range, mut large) = (false, false);
    for (out, &x) in out.iter_mut().zip(xs.iter()) {
        let r = round(x);
        out_of_range |= !fits(r, limit);
        large |= !small(r);
        *out = N::from_small(whole_to_i64(r));
    }
    (out_of_range, large)
}

/// Whether the whole number `r` is in [-limit, limit): written so that NaN
/// is not.
#[inline(always)]
fn fits(r: f64, limit: f64) -> bool {
    r >= -limit && r < limit
}

/// 2^51: a whole double under it in magnitude converts through its bits.
const TWO_51: f64 = 2_251_799_813_685_248.0;

/// 1.5 * 2^52: added to a whole double of magnitude under 2^51, it gives a
/// double in [2^52, 2^53), where the step is 1, so the sum is exact and its
/// low bits, less this constant's, are the whole number.
const SHIFTER: f64 = 6_755_399_441_055_744.0;

/// A whole double of magnitude under 2^51 as an `i64` (any other value
/// gives a meaningless number, which `convert` does not keep).
#[inline]
fn whole_to_i64(r: f64) -> i64 {
    ((r + SHIFTER).to_bits() as i64).wrapping_sub(SHIFTER.to_bits() as i64)
}

/// `x as` an integer type (saturating; NaN gives 0), and a whole number of
/// magnitude under 2^51 as the type (wrapping: only a value that fits is
/// kept).
trait FromF64 {
    fn from_f64(x: f64) -> Self;
    fn from_small(x: i64) -> Self;
}

impl FromF64 for i64 {
    #[inline]
    fn from_f64(x: f64) -> i64 {
        x as i64
    }

    #[inline]
    fn from_small(x: i64) -> i64 {
        x
    }
}

impl FromF64 for i32 {
    #[inline]
    fn from_f64(x: f64) -> i32 {
        x as i32
    }

    #[inline]
    fn from_small(x: i64) -> i32 {
        x as i32
    }
}

impl PhysicalExpr for RoundCastExpr {
    fn data_type(&self, _: &Schema) -> Result<DataType> {
        Ok(self.to.clone())
    }

    fn nullable(&self, schema: &Schema) -> Result<bool> {
        self.arg.nullable(schema)
    }

    fn evaluate(&self, batch: &RecordBatch) -> Result<ColumnarValue> {
        match self.arg.evaluate(batch)? {
            ColumnarValue::Array(a) => Ok(ColumnarValue::Array(self.convert(a.as_primitive::<Float64Type>())?)),
            ColumnarValue::Scalar(s) => {
                let converted = self.convert(s.to_array_of_size(1)?.as_primitive::<Float64Type>())?;
                Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&converted, 0)?))
            }
        }
    }

    fn children(&self) -> Vec<&Arc<dyn PhysicalExpr>> {
        vec![&self.arg]
    }

    fn with_new_children(self: Arc<Self>, children: Vec<Arc<dyn PhysicalExpr>>) -> Result<Arc<dyn PhysicalExpr>> {
        let [arg] = <[_; 1]>::try_from(children).map_err(|c| {
            datafusion::common::internal_datafusion_err!("RoundCastExpr takes 1 child, got {}", c.len())
        })?;
        // The original is rebuilt over the new argument so that its name
        // and properties stay those of this expression.
        let original = Arc::clone(&self.original)
            .transform_down(|node| {
                Ok(if Arc::ptr_eq(&node, &self.arg) {
                    Transformed::new(Arc::clone(&arg), true, TreeNodeRecursion::Jump)
                } else {
                    Transformed::no(node)
                })
            })
            .data()?;
        Ok(Arc::new(RoundCastExpr { arg, scale: self.scale, halves: self.halves, to: self.to.clone(), original }))
    }

    /// The properties of the original expression over those of `arg`:
    /// the cast, the round and the multiplication by a constant each keep
    /// or reverse the order of their argument, and this is their
    /// composition.
    fn get_properties(&self, children: &[ExprProperties]) -> Result<ExprProperties> {
        properties_over(&self.original, &self.arg, &children[0])
    }

    fn fmt_sql(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.original.fmt_sql(f)
    }
}

impl fmt::Display for RoundCastExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (one pass)", self.original)
    }
}

impl PartialEq for RoundCastExpr {
    fn eq(&self, other: &RoundCastExpr) -> bool {
        self.original.as_ref() == other.original.as_ref()
    }
}

impl Eq for RoundCastExpr {}

impl Hash for RoundCastExpr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.original.hash(state);
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{Float64Array, Int32Array};
    use datafusion::physical_plan::displayable;

    use super::*;
    use crate::plan_tests::{fused, fused_exprs, run_in_session as run};
    use crate::semantics::tests::doubles_to_round;

    /// Against the standard library: `f64::round` (halves away from zero,
    /// DataFusion's `round`) and `f64::round_ties_even`.
    #[test]
    fn rounds_as_the_standard_library_does() {
        for x in doubles_to_round() {
            assert_eq!(Halves::AwayFromZero.apply(x).to_bits(), x.round().to_bits(), "{x:e}");
            assert_eq!(Halves::ToEven.apply(x).to_bits(), x.round_ties_even().to_bits(), "{x:e}");
        }
        assert!(Halves::AwayFromZero.apply(f64::NAN).is_nan());
    }

    /// Both compilations of the first pass, the baseline's and (on a CPU
    /// that has it) AVX2's, against the standard library in batches of 64:
    /// the whole numbers of magnitude under 2^51, and whether a value was
    /// out of range or larger (NaN is both).
    #[test]
    fn both_compilations_of_the_first_pass_round_as_the_standard_library_does() {
        let values = doubles_to_round();
        let two_51 = 2f64.powi(51);
        type Reference = fn(f64) -> f64;
        let references: [(Halves, Reference); 2] =
            [(Halves::AwayFromZero, f64::round), (Halves::ToEven, f64::round_ties_even)];
        let (mut large_batches, mut small_batches) = (0, 0);
        for chunk in values.chunks(64) {
            for (halves, reference) in references {
                let round = |x: f64| halves.apply(x);
                let expected: Vec<f64> = chunk.iter().map(|&x| reference(x)).collect();
                // NaN is neither in range nor small.
                let out_of_range = expected.iter().any(|r| r.is_nan() || *r < -I64_LIMIT || *r >= I64_LIMIT);
                let large = expected.iter().any(|r| r.is_nan() || r.abs() >= two_51);
                let mut baseline = vec![0i64; chunk.len()];
                let mut dispatched = vec![0i64; chunk.len()];
                assert_eq!(small_pass_here(chunk, &mut baseline, I64_LIMIT, &round), (out_of_range, large));
                assert_eq!(small_pass(chunk, &mut dispatched, I64_LIMIT, &round), (out_of_range, large));
                for (i, r) in expected.iter().enumerate().filter(|(_, r)| r.abs() < two_51) {
                    assert_eq!((baseline[i], dispatched[i]), (*r as i64, *r as i64), "{:e}", chunk[i]);
                }
                large_batches += usize::from(large);
                small_batches += usize::from(!large);
            }
        }
        assert!(large_batches > 10 && small_batches > 100, "{large_batches} {small_batches}");
    }

    /// The integers are those of a checked conversion of the rounded value
    /// (`i64::try_from` of the whole number, exact below 2^63): every value
    /// of the spread that fits, and the cast's error for the first that
    /// does not.
    #[test]
    fn converts_as_a_checked_cast_does() {
        let fits: Vec<f64> = doubles_to_round().into_iter().filter(|x| x.round().abs() < 9.2e18).collect();
        let out =
            round_into::<Int64Type>(&Float64Array::from(fits.clone()), 1.0, Halves::AwayFromZero, I64_LIMIT).unwrap();
        for (x, got) in fits.iter().zip(out.values()) {
            assert_eq!(*got, i64::try_from(x.round() as i128).unwrap(), "{x:e}");
        }
        // The same in batches of 64, most of them of magnitudes under 2^51
        // alone (which convert through the bits), and the magnitudes about
        // 2^51 worked by hand: 2^51 - 0.5 rounds to 2^51 both ways (2^51 is
        // even), which is not under 2^51 and takes the `as` conversion;
        // 2^51 - 1.5 to 2^51 - 1 away from zero and to 2^51 - 2 to even.
        let two_51 = 2f64.powi(51);
        let edges = vec![two_51 - 1.0, -(two_51 - 1.0), two_51 - 0.5, -(two_51 - 0.5), two_51 - 1.5];
        let top = 1i64 << 51;
        for (halves, last) in [(Halves::AwayFromZero, top - 1), (Halves::ToEven, top - 2)] {
            let out = round_into::<Int64Type>(&Float64Array::from(edges.clone()), 1.0, halves, I64_LIMIT).unwrap();
            assert_eq!(out.values()[..], [top - 1, 1 - top, top, -top, last]);
            let small = Float64Array::from(vec![edges[0], edges[1], edges[4]]);
            let out = round_into::<Int64Type>(&small, 1.0, halves, I64_LIMIT).unwrap();
            assert_eq!(out.values()[..], [top - 1, 1 - top, last]);
        }
        let mut small_only = 0;
        for chunk in fits.chunks(64) {
            small_only += usize::from(chunk.iter().all(|x| x.round().abs() < two_51));
            let out =
                round_into::<Int64Type>(&Float64Array::from(chunk.to_vec()), 1.0, Halves::AwayFromZero, I64_LIMIT);
            for (x, got) in chunk.iter().zip(out.unwrap().values()) {
                assert_eq!(*got, i64::try_from(x.round() as i128).unwrap(), "{x:e}");
            }
            let out = round_into::<Int32Type>(&Float64Array::from(chunk.to_vec()), 1.0, Halves::ToEven, I32_LIMIT);
            if let Ok(out) = out {
                for (x, got) in chunk.iter().zip(out.values()) {
                    assert_eq!(i64::from(*got), x.round_ties_even() as i64, "{x:e}");
                }
            } else {
                assert!(chunk.iter().any(|x| x.round_ties_even().abs() >= 2f64.powi(31) - 1.0), "{chunk:?}");
            }
        }
        assert!(small_only > 100, "{small_only} batches of small magnitudes only");
    }

    /// The edges of both types worked out by hand, NaN, and a value out of
    /// range under a NULL, which must not stop the query.
    #[test]
    fn the_range_is_the_integer_types_and_nulls_are_not_checked() {
        let int32 = |x: f64, halves| {
            round_into::<Int32Type>(&Float64Array::from(vec![x]), 1.0, halves, I32_LIMIT)
                .map(|a| a.value(0))
                .map_err(|e| e.to_string())
        };
        assert_eq!(int32(2_147_483_647.4, Halves::AwayFromZero), Ok(2_147_483_647));
        assert_eq!(
            int32(2_147_483_647.5, Halves::AwayFromZero),
            Err("Arrow error: Cast error: Can't cast value 2147483648.0 to type Int32".to_string())
        );
        assert_eq!(int32(-2_147_483_648.5, Halves::ToEven), Ok(-2_147_483_648));
        assert!(int32(-2_147_483_648.5, Halves::AwayFromZero).is_err());
        assert!(int32(f64::NAN, Halves::ToEven).unwrap_err().contains("Can't cast value NaN to type Int32"));

        let int64 = |x: f64| {
            round_into::<Int64Type>(&Float64Array::from(vec![x]), 1.0, Halves::AwayFromZero, I64_LIMIT)
                .map(|a| a.value(0))
                .map_err(|e| e.to_string())
        };
        // The largest double below 2^63 is 2^63 - 1024.
        assert_eq!(int64(9_223_372_036_854_774_784.0), Ok(9_223_372_036_854_774_784));
        assert_eq!(int64(-9_223_372_036_854_775_808.0), Ok(i64::MIN));
        assert!(int64(9_223_372_036_854_775_808.0)
            .unwrap_err()
            .contains("Can't cast value 9.223372036854776e18 to type Int64"));
        assert!(int64(f64::INFINITY).is_err());

        let under_null = Float64Array::new(vec![1e30, 2.5].into(), Some(vec![false, true].into()));
        let out: Int32Array = round_into::<Int32Type>(&under_null, 1.0, Halves::AwayFromZero, I32_LIMIT).unwrap();
        assert!(out.is_null(0));
        assert_eq!(out.value(1), 3);
    }

    const VALUES: &str = "(VALUES (0.125), (-0.125), (2.5), (-2.5), (0.005), (NULL), (1e15)) AS t(x)";

    /// Worked by hand: x * 100 rounded half away from zero (0.005 * 100 is
    /// 0.5 in doubles), and x rounded half to even by the implicit rounding
    /// of a cast.
    #[test]
    fn a_projection_is_fused_with_the_same_answers() {
        let (rows, plan) =
            run(&format!("SELECT CAST(ROUND(x * 100) AS BIGINT) AS c, CAST(x AS BIGINT) AS i FROM {VALUES}")).unwrap();
        let expected = ["13|0", "-13|0", "250|2", "-250|-2", "1|0", "|", "100000000000000000|1000000000000000"];
        assert_eq!(rows, expected);
        assert_eq!(fused::<RoundCastExpr>(&plan), 2, "{}", displayable(plan.as_ref()).indent(true));
    }

    /// 1 - 1 + 25 - 25 + 0 + 10^16, by hand: x * 10 rounded inside a sum.
    #[test]
    fn an_aggregate_argument_is_fused_with_the_same_answer() {
        let (rows, plan) = run(&format!("SELECT SUM(CAST(ROUND(x * 10) AS BIGINT)) FROM {VALUES}")).unwrap();
        assert_eq!(rows, ["10000000000000000"]);
        assert_eq!(fused::<RoundCastExpr>(&plan), 1, "{}", displayable(plan.as_ref()).indent(true));
    }

    /// A value out of range stops the query with the cast's error; TRY_CAST
    /// keeps DataFusion's kernels and gives NULL.
    #[test]
    fn out_of_range_is_the_casts_error_and_try_cast_is_left_alone() {
        let err = run("SELECT CAST(ROUND(x) AS BIGINT) FROM (VALUES (2.5), (1e30)) AS t(x)").unwrap_err();
        assert!(err.contains("Can't cast value 1e30 to type Int64"), "{err}");
        let (rows, plan) = run("SELECT TRY_CAST(ROUND(x) AS BIGINT) FROM (VALUES (2.5), (1e30)) AS t(x)").unwrap();
        assert_eq!(rows, ["3", ""]);
        assert_eq!(fused::<RoundCastExpr>(&plan), 0);
    }

    /// A constant factor on either side is taken into the loop, and a
    /// product of two columns is the argument as it is; worked by hand.
    #[test]
    fn a_constant_factor_is_taken_into_the_loop() {
        let sql = "SELECT CAST(ROUND(x * 10) AS BIGINT), CAST(ROUND(100 * x) AS BIGINT), CAST(ROUND(x * y) AS BIGINT) \
                   FROM (VALUES (0.25, 2.0), (-0.35, 3.0), (NULL, 1.0)) AS t(x, y)";
        let (rows, plan) = run(sql).unwrap();
        // 2.5 -> 3, 25, 0.5 -> 1; -3.5 -> -4 (-0.35 * 10 is -3.5 in doubles), -35, -1.05 -> -1.
        assert_eq!(rows, ["3|25|1", "-4|-35|-1", "||"]);
        let scales: Vec<f64> = fused_exprs::<RoundCastExpr>(&plan)
            .iter()
            .map(|e| e.downcast_ref::<RoundCastExpr>().unwrap().scale)
            .collect();
        assert_eq!(scales, [10.0, 100.0, 1.0], "{}", displayable(plan.as_ref()).indent(true));
    }

    /// A new child replaces the argument in the expression and in its name,
    /// the constant factor kept.
    #[test]
    fn new_children_replace_the_argument() {
        let (_, plan) = run("SELECT CAST(ROUND(x * 10) AS BIGINT) FROM (VALUES (0.25)) AS t(x)").unwrap();
        let fused = fused_exprs::<RoundCastExpr>(&plan).remove(0);
        let five: Arc<dyn PhysicalExpr> = Arc::new(Literal::new(ScalarValue::Float64(Some(0.45))));
        let rebuilt = Arc::clone(&fused).with_new_children(vec![five]).unwrap();
        assert!(rebuilt.to_string().contains("0.45 * 10"), "{rebuilt}");
        let batch = RecordBatch::new_empty(Arc::new(Schema::empty()));
        let ColumnarValue::Scalar(v) = rebuilt.evaluate(&batch).unwrap() else { panic!("not a scalar") };
        // 0.45 * 10 is 4.5 in doubles, away from zero 5.
        assert_eq!(v, ScalarValue::Int64(Some(5)));
    }
}
