//! Two-way CASE in one pass: `CASE WHEN c THEN a ELSE b END` whose `a` and
//! `b` are columns or constants of one number type, evaluated as one loop
//! over the condition's bits.
//!
//! The named queries count and sum with such CASEs (`CASE WHEN
//! gpus_requested > 0 THEN 1 ELSE 0 END` in `top-users-by-gpu-hours.sql`,
//! `CASE WHEN status = 'failed' THEN jobs ELSE 0 END` in
//! `outcomes-by-gpus.sql`). DataFusion 55 evaluates the condition, then
//! builds the result with arrow's general `zip`, about 4.5 ns per row of
//! which the comparison is a tenth. [`CaseSelectExpr`] evaluates the
//! condition with DataFusion's own expression (so its semantics, the total
//! order of doubles among them, are DataFusion's) and picks each row's value
//! from its bit. A NULL condition picks `b`, as CASE does; a row is NULL
//! where the value picked is. `a` and `b` being columns or constants, both
//! can be read for every row without an error or a cost that CASE's lazy
//! evaluation would have avoided.
//!
//! Only a CASE without an operand, with one WHEN, whose THEN and ELSE (none
//! is NULL) are columns or literals of the CASE's own type, a 32- or 64-bit
//! integer or a double, is rewritten (by the `one_pass` rule), in
//! projections and aggregate arguments; anything else keeps DataFusion's
//! CASE.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, PrimitiveArray};
use datafusion::arrow::buffer::{BooleanBuffer, NullBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{ArrowPrimitiveType, DataType, Float64Type, Int32Type, Int64Type, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{internal_datafusion_err, Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Operator};
use datafusion::physical_expr::expressions::{CaseExpr, Column, Literal};
use datafusion::physical_expr::PhysicalExpr;

use crate::plan_rewrite::column_compared;

/// `CASE WHEN when THEN then ELSE otherwise END` evaluated in one pass.
#[derive(Debug)]
pub(crate) struct CaseSelectExpr {
    when: Arc<dyn PhysicalExpr>,
    then: Arc<dyn PhysicalExpr>,
    otherwise: Arc<dyn PhysicalExpr>,
    to: DataType,
    /// DataFusion's CASE, for its name.
    original: Arc<dyn PhysicalExpr>,
}

impl CaseSelectExpr {
    /// `e` as a one-pass CASE, if it is a CASE this module takes.
    pub(crate) fn try_from_case(e: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Result<Option<CaseSelectExpr>> {
        let Some(case) = e.downcast_ref::<CaseExpr>() else { return Ok(None) };
        let ([(when, then)], None) = (case.when_then_expr(), case.expr()) else { return Ok(None) };
        let to = e.data_type(schema)?;
        if !matches!(to, DataType::Int64 | DataType::Int32 | DataType::Float64) {
            return Ok(None);
        }
        // No ELSE is ELSE NULL (DataFusion drops an ELSE NULL).
        let otherwise = match case.else_expr() {
            Some(otherwise) => Arc::clone(otherwise),
            None => Arc::new(Literal::new(ScalarValue::try_from(&to)?)) as Arc<dyn PhysicalExpr>,
        };
        let otherwise = &otherwise;
        let plain = |side: &Arc<dyn PhysicalExpr>| -> Result<bool> {
            let simple = side.downcast_ref::<Column>().is_some() || side.downcast_ref::<Literal>().is_some();
            Ok(simple && side.data_type(schema)? == to)
        };
        if !plain(then)? || !plain(otherwise)? || when.data_type(schema)? != DataType::Boolean {
            return Ok(None);
        }
        Ok(Some(CaseSelectExpr {
            when: Arc::clone(when),
            then: Arc::clone(then),
            otherwise: Arc::clone(otherwise),
            to,
            original: Arc::clone(e),
        }))
    }

    /// The rows where the condition is true (NULL is not).
    fn true_rows(&self, batch: &RecordBatch) -> Result<BooleanBuffer> {
        if let Some(pick) = over_comparison(&self.when, batch, TrueRows)? {
            return Ok(pick);
        }
        let when = self.when.evaluate(batch)?.into_array(batch.num_rows())?;
        let when: &BooleanArray =
            when.as_boolean_opt().ok_or_else(|| internal_datafusion_err!("a WHEN that is not a boolean"))?;
        Ok(match when.nulls() {
            Some(n) => when.values() & n.inner(),
            None => when.values().clone(),
        })
    }

    /// The CASE's values for `batch`, of type `T`. With THEN and ELSE both
    /// constants other than NULL and a WHEN that compares a column with a
    /// constant, chosen in one loop over the column; otherwise picked by
    /// the condition's bits.
    fn values<T: ArrowPrimitiveType>(&self, batch: &RecordBatch) -> Result<ArrayRef> {
        let (then, otherwise) = (self.then.evaluate(batch)?, self.otherwise.evaluate(batch)?);
        let (a, b) = (Side::<T>::of(&then)?, Side::<T>::of(&otherwise)?);
        if let (Side::Constant(Some(then)), Side::Constant(Some(otherwise))) = (&a, &b) {
            let choose = Choose { then: *then, otherwise: *otherwise };
            if let Some(chosen) = over_comparison(&self.when, batch, choose)? {
                return Ok(Arc::new(PrimitiveArray::<T>::new(ScalarBuffer::from(chosen), None)));
            }
        }
        let pick = self.true_rows(batch)?;
        let values: Vec<T::Native> = match (&a, &b) {
            (Side::Constant(x), Side::Constant(y)) => {
                let (x, y) = (x.unwrap_or_default(), y.unwrap_or_default());
                picked(&pick, |_| x, |_| y)
            }
            (Side::Column(x), Side::Constant(y)) => {
                let y = y.unwrap_or_default();
                picked(&pick, |i| x.values()[i], |_| y)
            }
            (Side::Constant(x), Side::Column(y)) => {
                let x = x.unwrap_or_default();
                picked(&pick, |_| x, |i| y.values()[i])
            }
            (Side::Column(x), Side::Column(y)) => picked(&pick, |i| x.values()[i], |i| y.values()[i]),
        };
        let nulls = match (a.valid(pick.len()), b.valid(pick.len())) {
            (None, None) => None,
            (a_valid, b_valid) => {
                let all = || BooleanBuffer::new_set(pick.len());
                let valid = &(&pick & &a_valid.unwrap_or_else(all)) | &(&!&pick & &b_valid.unwrap_or_else(all));
                Some(NullBuffer::new(valid))
            }
        };
        Ok(Arc::new(PrimitiveArray::<T>::new(ScalarBuffer::from(values), nulls)))
    }
}

/// A THEN or ELSE value as evaluated for a batch.
enum Side<'a, T: ArrowPrimitiveType> {
    /// A constant (None: NULL).
    Constant(Option<T::Native>),
    Column(&'a PrimitiveArray<T>),
}

impl<'a, T: ArrowPrimitiveType> Side<'a, T> {
    fn of(value: &'a ColumnarValue) -> Result<Side<'a, T>> {
        Ok(match value {
            ColumnarValue::Array(a) => Side::Column(a.as_primitive::<T>()),
            ColumnarValue::Scalar(s) => {
                let array = s.to_array_of_size(1)?;
                let one = array.as_primitive::<T>();
                Side::Constant(one.is_valid(0).then(|| one.value(0)))
            }
        })
    }

    /// Which of `rows` rows are not NULL, None when all are not.
    fn valid(&self, rows: usize) -> Option<BooleanBuffer> {
        match self {
            Side::Constant(None) => Some(BooleanBuffer::new_unset(rows)),
            Side::Constant(Some(_)) => None,
            Side::Column(a) => a.nulls().filter(|n| n.null_count() > 0).map(|n| n.inner().clone()),
        }
    }
}

/// Per row of `pick`: `a(i)` where its bit is set, `b(i)` where not.
fn picked<N: Copy>(pick: &BooleanBuffer, a: impl Fn(usize) -> N, b: impl Fn(usize) -> N) -> Vec<N> {
    let words: Vec<u64> = pick.inner().bit_chunks(pick.offset(), pick.len()).iter_padded().collect();
    // A mapped range has a known length: collected without a capacity
    // check per row (extending 64 rows at a time took twice as long).
    (0..pick.len()).map(|i| if (words[i / 64] >> (i % 64)) & 1 == 1 { a(i) } else { b(i) }).collect()
}

/// A loop over the values of a number column compared with a constant:
/// `key` gives each value's place in the order (`k` the constant's), `op`
/// the comparison.
trait OverKeys {
    type Out;
    fn run<T: ArrowPrimitiveType, K: Ord + Copy>(
        self,
        values: &PrimitiveArray<T>,
        key: impl Fn(T::Native) -> K + Copy,
        op: Operator,
        k: K,
    ) -> Option<Self::Out>;
}

/// `over` run on `when` for `batch`, when `when` compares a number column
/// with a constant of the column's type (the usual condition:
/// `gpus_requested > 0`), in one loop without DataFusion's copy of a double
/// column that has a -0 in it. The order is DataFusion's: doubles compare
/// as arrow compares them, in IEEE 754's total order (NaN above every
/// number, a NaN with its sign bit set below every number), after
/// DataFusion's comparison has made -0 into 0. None for any other
/// condition.
fn over_comparison<V: OverKeys>(when: &Arc<dyn PhysicalExpr>, batch: &RecordBatch, over: V) -> Result<Option<V::Out>> {
    let Some((column, op, constant)) = column_compared(when) else { return Ok(None) };
    let values = column.evaluate(batch)?.into_array(batch.num_rows())?;
    Ok(match (values.data_type(), constant) {
        (DataType::Float64, ScalarValue::Float64(Some(k))) => {
            over.run(values.as_primitive::<Float64Type>(), total_order_key, op, total_order_key(*k))
        }
        (DataType::Int64, ScalarValue::Int64(Some(k))) => over.run(values.as_primitive::<Int64Type>(), |v| v, op, *k),
        (DataType::Int32, ScalarValue::Int32(Some(k))) => over.run(values.as_primitive::<Int32Type>(), |v| v, op, *k),
        _ => None,
    })
}

/// A double as an integer that orders as IEEE 754's total order, -0 first
/// made into 0.
fn total_order_key(v: f64) -> i64 {
    let bits = if v.to_bits() << 1 == 0 { 0 } else { v.to_bits() as i64 };
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

/// `body` with `holds` the comparison `op` of two keys, expanded once per
/// operator so that each loop has its comparison inlined, without a
/// branch on the operator. None for an operator that is not a comparison.
macro_rules! by_operator {
    ($op:expr, $holds:ident => $body:expr) => {
        match $op {
            Operator::Eq => {
                let $holds = |x, k| x == k;
                Some($body)
            }
            Operator::NotEq => {
                let $holds = |x, k| x != k;
                Some($body)
            }
            Operator::Lt => {
                let $holds = |x, k| x < k;
                Some($body)
            }
            Operator::LtEq => {
                let $holds = |x, k| x <= k;
                Some($body)
            }
            Operator::Gt => {
                let $holds = |x, k| x > k;
                Some($body)
            }
            Operator::GtEq => {
                let $holds = |x, k| x >= k;
                Some($body)
            }
            _ => None,
        }
    };
}

/// The rows where the comparison is true (NULL is not).
struct TrueRows;

impl OverKeys for TrueRows {
    type Out = BooleanBuffer;

    fn run<T: ArrowPrimitiveType, K: Ord + Copy>(
        self,
        values: &PrimitiveArray<T>,
        key: impl Fn(T::Native) -> K + Copy,
        op: Operator,
        k: K,
    ) -> Option<BooleanBuffer> {
        let v = values.values();
        let true_rows = by_operator!(op, holds => BooleanBuffer::collect_bool(v.len(), |i| holds(key(v[i]), k)))?;
        Some(match values.nulls() {
            Some(n) => &true_rows & n.inner(),
            None => true_rows,
        })
    }
}

/// Per row, `then` where the comparison is true, `otherwise` where it is
/// false or NULL: written in one loop over the column, no bits between.
struct Choose<N> {
    then: N,
    otherwise: N,
}

impl<N: Copy> OverKeys for Choose<N> {
    type Out = Vec<N>;

    fn run<T: ArrowPrimitiveType, K: Ord + Copy>(
        self,
        values: &PrimitiveArray<T>,
        key: impl Fn(T::Native) -> K + Copy,
        op: Operator,
        k: K,
    ) -> Option<Vec<N>> {
        let Choose { then, otherwise } = self;
        let v = values.values();
        let mut chosen: Vec<N> =
            by_operator!(op, holds => v.iter().map(|&x| if holds(key(x), k) { then } else { otherwise }).collect())?;
        if let Some(nulls) = values.nulls().filter(|n| n.null_count() > 0) {
            (!nulls.inner()).set_indices().for_each(|i| chosen[i] = otherwise);
        }
        Some(chosen)
    }
}

impl PhysicalExpr for CaseSelectExpr {
    fn data_type(&self, _: &Schema) -> Result<DataType> {
        Ok(self.to.clone())
    }

    /// DataFusion's answer for the CASE, which sees more than its branches
    /// (`CASE WHEN j IS NOT NULL THEN j ELSE 0 END` is never NULL): the
    /// values are the same, and so must the schema be.
    fn nullable(&self, schema: &Schema) -> Result<bool> {
        self.original.nullable(schema)
    }

    fn evaluate(&self, batch: &RecordBatch) -> Result<ColumnarValue> {
        let values = match self.to {
            DataType::Int64 => self.values::<Int64Type>(batch)?,
            DataType::Int32 => self.values::<Int32Type>(batch)?,
            DataType::Float64 => self.values::<Float64Type>(batch)?,
            ref other => return Err(internal_datafusion_err!("a one-pass CASE of {other}")),
        };
        Ok(ColumnarValue::Array(values))
    }

    fn children(&self) -> Vec<&Arc<dyn PhysicalExpr>> {
        vec![&self.when, &self.then, &self.otherwise]
    }

    fn with_new_children(self: Arc<Self>, children: Vec<Arc<dyn PhysicalExpr>>) -> Result<Arc<dyn PhysicalExpr>> {
        let [when, then, otherwise] = <[_; 3]>::try_from(children)
            .map_err(|c| internal_datafusion_err!("CaseSelectExpr takes 3 children, got {}", c.len()))?;
        let original: Arc<dyn PhysicalExpr> = Arc::new(CaseExpr::try_new(
            None,
            vec![(Arc::clone(&when), Arc::clone(&then))],
            Some(Arc::clone(&otherwise)),
        )?);
        Ok(Arc::new(CaseSelectExpr { when, then, otherwise, to: self.to.clone(), original }))
    }

    fn fmt_sql(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.original.fmt_sql(f)
    }
}

impl fmt::Display for CaseSelectExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (one pass)", self.original)
    }
}

impl PartialEq for CaseSelectExpr {
    fn eq(&self, other: &CaseSelectExpr) -> bool {
        self.original.as_ref() == other.original.as_ref()
    }
}

impl Eq for CaseSelectExpr {}

impl Hash for CaseSelectExpr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.original.hash(state);
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{Float64Array, Int32Array, Int64Array, StringArray};
    use datafusion::arrow::datatypes::Field;
    use datafusion::common::ScalarValue;
    use datafusion::logical_expr::Operator;
    use datafusion::physical_expr::expressions::{binary, col, is_null, lit};
    use datafusion::physical_plan::displayable;

    use super::*;
    use crate::plan_tests::{fused, run_in_session as run};

    /// Worked by hand: x is 1.5, 0, NaN, NULL, -2, 3 and j is 10, 20, 40,
    /// 50, NULL, NULL. NaN is above every number for DataFusion (and
    /// PostgreSQL); a NULL condition takes ELSE; a NULL picked from j is
    /// NULL (shown as nothing).
    #[test]
    fn cases_worked_by_hand() {
        // DataFusion works out that this CASE is never NULL; the rewritten
        // one must say the same, or the projection's schema changes.
        let (rows, plan) =
            run("SELECT CASE WHEN j IS NOT NULL THEN j ELSE 0 END AS c FROM (VALUES (1), (NULL)) AS t(j)").unwrap();
        assert_eq!((rows, fused::<CaseSelectExpr>(&plan)), (vec!["1".to_string(), "0".to_string()], 1));
        assert!(!plan.schema().field(0).is_nullable());
        let values = "(VALUES (1.5, 10, 1), (0.0, 20, 2), ('NaN'::double, 40, 3), (NULL, 50, 4), (-2.0, NULL, 5), \
                      (3.0, NULL, 6)) AS t(x, j, r)";
        let check = |case: &str, expected: &[&str]| {
            let (rows, plan) = run(&format!("SELECT {case} FROM {values} ORDER BY r")).unwrap();
            assert_eq!(rows, expected, "{case}");
            assert_eq!(fused::<CaseSelectExpr>(&plan), 1, "{}", displayable(plan.as_ref()).indent(true));
        };
        check("CASE WHEN x > 0 THEN 1 ELSE 0 END", &["1", "0", "1", "0", "0", "1"]);
        check("CASE WHEN x > 0 THEN j ELSE -1 END", &["10", "-1", "40", "-1", "-1", ""]);
        check("CASE WHEN j >= 20 THEN x ELSE 0.5 END", &["0.5", "0.0", "NaN", "", "0.5", "0.5"]);
        check("CASE WHEN j < 40 THEN x END", &["1.5", "0.0", "", "", "", ""]);
        let (sum, plan) = run(&format!("SELECT SUM(CASE WHEN x < 1 THEN j ELSE 0 END) FROM {values}")).unwrap();
        assert_eq!((sum, fused::<CaseSelectExpr>(&plan)), (vec!["20".to_string()], 1));
    }

    /// Random batches (doubles with -0, NaN and NULL, integers of both
    /// widths with NULL, text with NULL; arrays at odd offsets; 0 to 200
    /// rows) and CASEs of every form this module takes: the same array as
    /// DataFusion's CASE, to the bit.
    #[test]
    fn the_same_values_as_datafusions_case() {
        let mut next = crate::plan_tests::draws(0x2545_f491_4f6c_dd1du64);
        let schema = Arc::new(Schema::new(vec![
            Field::new("x", DataType::Float64, true),
            Field::new("y", DataType::Float64, true),
            Field::new("i", DataType::Int64, true),
            Field::new("k", DataType::Int64, false),
            Field::new("n", DataType::Int32, true),
            Field::new("m", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
        ]));
        let negative_nan = f64::from_bits(f64::NAN.to_bits() | 1 << 63);
        let doubles = [
            Some(0.0),
            Some(-0.0),
            Some(1.5),
            Some(-2.0),
            Some(f64::NAN),
            Some(negative_nan),
            None,
            Some(f64::NEG_INFINITY),
            Some(1e300),
        ];
        let constants = [0.0, -0.0, 1.5, f64::NAN, negative_nan, f64::NEG_INFINITY];
        let mut rewritten = 0;
        for round in 0..300 {
            let rows = [0, 1, 63, 64, 65, 200][round % 6];
            let offset = next(70);
            let total = rows + offset;
            let x: Float64Array = (0..total).map(|_| doubles[next(doubles.len())]).collect();
            let y: Float64Array = (0..total).map(|_| doubles[next(doubles.len())]).collect();
            let i: Int64Array = (0..total).map(|_| [Some(-1), Some(7), None, Some(i64::MAX)][next(4)]).collect();
            let k: Int64Array = (0..total).map(|_| Some(next(5) as i64 - 2)).collect();
            let n: Int32Array = (0..total).map(|_| [Some(-1), Some(3), None][next(3)]).collect();
            let m: Int32Array = (0..total).map(|_| [Some(i32::MIN), Some(0), None][next(3)]).collect();
            let s: StringArray = (0..total).map(|_| [Some("a"), Some("b"), None][next(3)]).collect();
            let columns: Vec<ArrayRef> =
                vec![Arc::new(x), Arc::new(y), Arc::new(i), Arc::new(k), Arc::new(n), Arc::new(m), Arc::new(s)];
            // Slices at an offset, as a filter or a slice of a batch hands them over.
            let columns = columns.into_iter().map(|c| c.slice(offset, rows)).collect();
            let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
            let c = |name: &str| col(name, &schema).unwrap();
            let cmp =
                |l: Arc<dyn PhysicalExpr>, op: Operator, r: Arc<dyn PhysicalExpr>| binary(l, op, r, &schema).unwrap();
            let ops = [Operator::Gt, Operator::GtEq, Operator::Lt, Operator::LtEq, Operator::Eq, Operator::NotEq];
            let op = ops[next(ops.len())];
            let when = match next(5) {
                0 => cmp(c("x"), op, lit(constants[next(constants.len())])),
                1 => cmp(c("x"), op, c("y")),
                2 if next(2) == 0 => cmp(c("i"), op, lit(7i64)),
                2 => cmp(lit(7i64), op, c("i")),
                3 => cmp(cmp(c("s"), Operator::Eq, lit("a")), Operator::Or, is_null(c("n")).unwrap()),
                _ => cmp(c("n"), op, lit(ScalarValue::Int32(Some(0)))),
            };
            let (then, otherwise): (Arc<dyn PhysicalExpr>, Arc<dyn PhysicalExpr>) = match next(7) {
                0 => (lit(1i64), lit(0i64)),
                1 => (c("i"), lit(0i64)),
                2 => (lit(ScalarValue::Int64(None)), c("k")),
                3 => (c("x"), c("y")),
                4 => (lit(-0.0), c("x")),
                5 => (c("n"), c("m")),
                _ => (lit(ScalarValue::Int32(Some(5))), lit(ScalarValue::Int32(None))),
            };
            let case: Arc<dyn PhysicalExpr> =
                Arc::new(CaseExpr::try_new(None, vec![(when, then)], Some(otherwise)).unwrap());
            let ours = CaseSelectExpr::try_from_case(&case, &schema)
                .unwrap()
                .unwrap_or_else(|| panic!("{case} not taken: {:?}", case.data_type(&schema)));
            let expected = case.evaluate(&batch).unwrap().into_array(rows).unwrap();
            let got = ours.evaluate(&batch).unwrap().into_array(rows).unwrap();
            assert_eq!(got.to_data(), expected.to_data(), "{case} at offset {offset}, {rows} rows");
            rewritten += 1;
        }
        assert_eq!(rewritten, 300);
    }

    /// CASEs this module leaves to DataFusion: with an operand, two WHENs,
    /// a computed THEN (which CASE evaluates only where chosen), text
    /// values.
    #[test]
    fn other_cases_are_left_alone() {
        let schema = Schema::new(vec![Field::new("i", DataType::Int64, true), Field::new("s", DataType::Utf8, true)]);
        let i = col("i", &schema).unwrap();
        let when = binary(Arc::clone(&i), Operator::Gt, lit(0i64), &schema).unwrap();
        let divided = binary(lit(10i64), Operator::Divide, Arc::clone(&i), &schema).unwrap();
        let cases: Vec<Arc<dyn PhysicalExpr>> = vec![
            Arc::new(CaseExpr::try_new(Some(Arc::clone(&i)), vec![(lit(1i64), lit(2i64))], Some(lit(0i64))).unwrap()),
            Arc::new(
                CaseExpr::try_new(
                    None,
                    vec![(Arc::clone(&when), lit(1i64)), (Arc::clone(&when), lit(2i64))],
                    Some(lit(0i64)),
                )
                .unwrap(),
            ),
            Arc::new(CaseExpr::try_new(None, vec![(Arc::clone(&when), divided)], Some(lit(0i64))).unwrap()),
            Arc::new(CaseExpr::try_new(None, vec![(when, col("s", &schema).unwrap())], Some(lit("z"))).unwrap()),
        ];
        for case in cases {
            assert!(CaseSelectExpr::try_from_case(&case, &schema).unwrap().is_none(), "{case}");
        }
    }
}
