//! A number times an interval: `run_s * INTERVAL '1 second'`, the way
//! PostgreSQL and DuckDB turn a duration in seconds into an interval to add
//! to a time (`start_time + run_s * INTERVAL '1 second'`). DataFusion has no
//! such product (it refuses `Int64 * Interval` while planning), so a product
//! of an INTERVAL literal and anything else is rewritten, on the parsed
//! statement before it is planned, as a call of [`interval_times`]. The
//! result column keeps the name the query wrote (`result_names` runs
//! first).
//!
//! The product is PostgreSQL's (`interval_mul`): the months and days are
//! multiplied, and what a fraction of a month leaves goes to days (30 days
//! a month) and a fraction of a day to the nanoseconds (86,400 seconds a
//! day): `INTERVAL '1 month' * 1.5` is 1 month 15 days. A NULL factor
//! gives NULL.

use std::ops::ControlFlow;
use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, IntervalMonthDayNanoArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, IntervalMonthDayNano, IntervalUnit};
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
    ObjectName, ObjectNamePart, Query, VisitMut, VisitorMut,
};

/// The name of the product function.
const NAME: &str = "interval_times";

/// Rewrites every `x * INTERVAL '...'` and `INTERVAL '...' * x` in `query`.
pub(crate) fn rewrite(query: &mut Query) {
    let _ = query.visit(&mut Products);
}

struct Products;

impl VisitorMut for Products {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        let Expr::BinaryOp { left, op: BinaryOperator::Multiply, right } = e else { return ControlFlow::Continue(()) };
        let (factor, interval) = match (left.as_ref(), right.as_ref()) {
            (_, Expr::Interval(_)) => (left.as_ref().clone(), right.as_ref().clone()),
            (Expr::Interval(_), _) => (right.as_ref().clone(), left.as_ref().clone()),
            _ => return ControlFlow::Continue(()),
        };
        *e = call(factor, interval);
        ControlFlow::Continue(())
    }
}

fn call(factor: Expr, interval: Expr) -> Expr {
    let arg = |e: Expr| FunctionArg::Unnamed(FunctionArgExpr::Expr(e));
    Expr::Function(Function {
        name: ObjectName(vec![ObjectNamePart::Identifier(Ident::new(NAME))]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![arg(factor), arg(interval)],
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

/// The function the products are planned as.
pub(crate) fn interval_times() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::from(IntervalTimes {
        signature: Signature::exact(
            vec![DataType::Float64, DataType::Interval(IntervalUnit::MonthDayNano)],
            Volatility::Immutable,
        ),
    }))
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct IntervalTimes {
    signature: Signature,
}

impl ScalarUDFImpl for IntervalTimes {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Interval(IntervalUnit::MonthDayNano))
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if !arg_types[0].is_numeric() && !arg_types[0].is_null() {
            return exec_err!("an interval can be multiplied by a number, not by {}", arg_types[0]);
        }
        Ok(vec![DataType::Float64, DataType::Interval(IntervalUnit::MonthDayNano)])
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let scalars = args.args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let factors = cast(&args.args[0].to_array(rows)?, &DataType::Float64)?;
        let factors = factors.as_primitive::<Float64Type>();
        let intervals = args.args[1].to_array(rows)?;
        let intervals = intervals.as_primitive::<datafusion::arrow::datatypes::IntervalMonthDayNanoType>();
        let product: IntervalMonthDayNanoArray = (0..rows)
            .map(|i| {
                (factors.is_valid(i) && intervals.is_valid(i)).then(|| times(intervals.value(i), factors.value(i)))
            })
            .collect();
        if scalars {
            return Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&product, 0)?));
        }
        Ok(ColumnarValue::Array(Arc::new(product)))
    }
}

/// `interval * factor` as PostgreSQL computes it: fractions of months
/// cascade into days (30 a month), fractions of days into nanoseconds.
fn times(interval: IntervalMonthDayNano, factor: f64) -> IntervalMonthDayNano {
    const DAY_NANOS: f64 = 86_400e9;
    let months = f64::from(interval.months) * factor;
    let days = f64::from(interval.days) * factor + months.fract() * 30.0;
    let nanos = interval.nanoseconds as f64 * factor + days.fract() * DAY_NANOS;
    IntervalMonthDayNano { months: months.trunc() as i32, days: days.trunc() as i32, nanoseconds: nanos.round() as i64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fraction_of_a_month_goes_to_days_and_of_a_day_to_nanoseconds() {
        let month = IntervalMonthDayNano { months: 1, days: 0, nanoseconds: 0 };
        assert_eq!(times(month, 1.5), IntervalMonthDayNano { months: 1, days: 15, nanoseconds: 0 });
        let second = IntervalMonthDayNano { months: 0, days: 0, nanoseconds: 1_000_000_000 };
        assert_eq!(times(second, 9.25), IntervalMonthDayNano { months: 0, days: 0, nanoseconds: 9_250_000_000 });
        // Half a day is 43,200 s.
        let day = IntervalMonthDayNano { months: 0, days: 1, nanoseconds: 0 };
        assert_eq!(times(day, 0.5), IntervalMonthDayNano { months: 0, days: 0, nanoseconds: 43_200_000_000_000 });
    }

    #[test]
    fn both_orders_of_the_product_become_the_call() {
        let tables = crate::every_schema_table();
        for sql in [
            "SELECT start_time + run_s * INTERVAL '1 second' AS e FROM jobs",
            "SELECT start_time + INTERVAL '1 second' * run_s AS e FROM jobs",
        ] {
            let mut query = crate::guard::check(sql, &tables).unwrap().query;
            rewrite(&mut query);
            assert_eq!(
                query.to_string(),
                "SELECT start_time + interval_times(run_s, INTERVAL '1 second') AS e FROM jobs",
                "{sql}"
            );
        }
    }
}
