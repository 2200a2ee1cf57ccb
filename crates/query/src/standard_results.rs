//! Rewrites under which Polars' SQL engine (0.55) computes what standard
//! SQL defines, where it would otherwise answer differently without an
//! error. Each was found by running the same query in DuckDB and checked
//! against PostgreSQL's documented behaviour.
//!
//! **Narrow integers.** Polars types `EXTRACT(HOUR ...)`, `MINUTE`, `MONTH`,
//! `WEEK` and `DOW` as 8-bit integers (`DOY` 16-bit) and keeps that width
//! in arithmetic with a literal that fits: `EXTRACT(HOUR FROM t) * 3600`
//! wraps to -15136 at 14:00, and an hour of the week, `EXTRACT(DOW ...) * 24
//! + EXTRACT(HOUR ...)`, merges groups. `COUNT`, `ROW_NUMBER`, `RANK`,
//! `DENSE_RANK`, `LENGTH`, `OCTET_LENGTH`, `STRPOS`, `POSITION` and
//! `ARRAY_LENGTH` are unsigned 32-bit, so `COUNT(x) - COUNT(*)` (the NULLs,
//! negated) is 4294967292 instead of -4. A column cast to `INTEGER` is
//! summed in 32 bits. PostgreSQL returns numeric or 64-bit results for all
//! of these (`sum(int4)` is bigint), DuckDB too. Each becomes a 64-bit
//! integer: `CAST(... AS BIGINT)` around the call, `BIGINT` for the cast.
//! Fractional fields (`EXTRACT(EPOCH ...)`, `MILLISECOND`) are left alone.
//!
//! **`POWER` of integers** is computed in 32-bit integers: `POWER(2, 40)` is
//! 0, and `POWER(10, -2)` fails. PostgreSQL computes it in double precision;
//! so does tracelab, with the base cast to `DOUBLE`.
//!
//! **`RIGHT(s, n)` with n beyond the length** counts the offset from the
//! end again: `RIGHT('abc', 5)` is `bc`, where SQL gives the whole string.
//! It becomes `REVERSE(LEFT(REVERSE(s), n))`, which Polars gets right for
//! every n (a negative n too: all but the first |n| characters).
//!
//! **`COVAR_SAMP` of a single pair** is 0 in Polars; it divides by n - 1 =
//! 0, and SQL gives NULL (as Polars does for `VAR_SAMP`). It becomes
//! `CASE WHEN COUNT(x * y) > 1 THEN COVAR_SAMP(x, y) END` (the product is
//! NULL where either is, so the count is of the pairs).
//!
//! **`x IS TRUE` and `x IS FALSE`** are NULL where x is NULL in Polars (it
//! compares x with TRUE), where SQL says FALSE: `NOT ((gpus > 4) IS TRUE)`
//! dropped the jobs without a GPU count. They become `(COALESCE(x, FALSE))`
//! and `(NOT COALESCE(x, TRUE))`.
//!
//! **EXCEPT and INTERSECT inside another set operation** (`A EXCEPT B UNION
//! C`): Polars picks the operation of the outermost one for every level, so
//! that query computed (A INTERSECT B) UNION C. Each nested EXCEPT or
//! INTERSECT is put in parentheses, which Polars evaluates on its own:
//! `(A EXCEPT B) UNION C`, as SQL reads the text (left to right, INTERSECT
//! binding tighter).
//!
//! **A computation that reads no column** (`SELECT UPPER('a') AS a,
//! UPPER('a') AS b`, or `SELECT EXTRACT(DOW FROM DATE '2017-11-05')`, whose
//! DOW Polars computes from one subexpression used twice) gives no row at
//! all when Polars' common-subexpression elimination factors it out; SQL
//! gives one. [`reads_no_column`] finds such a SELECT item, and the engine
//! then runs the query without that optimization (it only saves work when
//! the same computation over columns repeats).
//!
//! The rewrites run after the result columns are named, so the names are
//! the expressions as written.

use std::ops::ControlFlow;

use sqlparser::ast::{
    visit_expressions, CastKind, DataType, DateTimeField, Expr, Function, FunctionArg, FunctionArgExpr,
    FunctionArguments, Query, Select, SelectItem, SetExpr, SetOperator, Value, Visit, VisitMut, Visitor, VisitorMut,
};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

use super::wrong_answers::one_part_name;

/// Functions whose Polars result is an unsigned 32-bit integer. Lowercase.
const UNSIGNED_32: &[&str] = &[
    "count",
    "row_number",
    "rank",
    "dense_rank",
    "length",
    "char_length",
    "character_length",
    "octet_length",
    "bit_length",
    "strpos",
    "array_length",
];

/// Applies every rewrite to `query` (subqueries and CTEs included); true
/// when anything changed.
pub(crate) fn rewrite(query: &mut Query) -> bool {
    let mut r = Rewriter { changed: false };
    let _ = query.visit(&mut r);
    r.changed
}

struct Rewriter {
    changed: bool,
}

impl VisitorMut for Rewriter {
    type Break = ();

    fn post_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        self.changed |= parenthesize_nested_set_operations(&mut q.body);
        ControlFlow::Continue(())
    }

    /// Bottom-up: an expression is replaced after its arguments were, and
    /// the replacement is not visited again.
    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if let Some(standard) = standard_form(e) {
            *e = standard;
            self.changed = true;
        }
        ControlFlow::Continue(())
    }
}

/// Whether some SELECT of `query` (subqueries and CTEs included) has an
/// item that computes something (a call, an operator, a cast) without
/// reading a column.
pub(crate) fn reads_no_column(query: &Query) -> bool {
    struct Finder;
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_select(&mut self, s: &Select) -> ControlFlow<()> {
            let items = s.projection.iter().filter_map(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
                _ => None,
            });
            for e in items {
                let computes = !matches!(e, Expr::Value(_) | Expr::Identifier(_) | Expr::CompoundIdentifier(_));
                let reads = visit_expressions(e, |x| match x {
                    Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Subquery(_) => ControlFlow::Break(()),
                    Expr::Function(f) if f.args == FunctionArguments::None || is_star_count(f) => {
                        ControlFlow::Break(())
                    }
                    _ => ControlFlow::Continue(()),
                });
                if computes && reads.is_continue() {
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        }
    }
    query.visit(&mut Finder).is_break()
}

/// `COUNT(*)`, which reads the rows though it names no column.
fn is_star_count(f: &Function) -> bool {
    let FunctionArguments::List(list) = &f.args else { return false };
    list.args.iter().any(|a| matches!(a, FunctionArg::Unnamed(FunctionArgExpr::Wildcard)))
}

/// Puts every EXCEPT or INTERSECT that is an operand of another set
/// operation in parentheses; true when any was.
fn parenthesize_nested_set_operations(body: &mut SetExpr) -> bool {
    let SetExpr::SetOperation { left, right, .. } = body else { return false };
    let mut changed = false;
    for side in [left, right] {
        changed |= parenthesize_nested_set_operations(side);
        if matches!(**side, SetExpr::SetOperation { op: SetOperator::Except | SetOperator::Intersect, .. }) {
            let query = Parser::new(&GenericDialect).try_with_sql(&side.to_string()).and_then(|mut p| p.parse_query());
            if let Ok(query) = query {
                **side = SetExpr::Query(query);
                changed = true;
            }
        }
    }
    changed
}

/// What `e` is rewritten to, if anything.
fn standard_form(e: &Expr) -> Option<Expr> {
    match e {
        Expr::Extract { field, .. } if integral(field) => Some(as_bigint(e.clone())),
        Expr::Position { .. } => Some(as_bigint(e.clone())),
        Expr::IsTrue(x) => parse(&format!("(COALESCE({x}, FALSE))")),
        Expr::IsFalse(x) => parse(&format!("(NOT COALESCE({x}, TRUE))")),
        Expr::Cast { kind, expr, data_type, format, array } if narrow_integer(data_type) => Some(Expr::Cast {
            kind: kind.clone(),
            expr: expr.clone(),
            data_type: DataType::BigInt(None),
            format: format.clone(),
            array: *array,
        }),
        Expr::Function(f) => {
            let name = one_part_name(f)?.value.to_lowercase();
            if UNSIGNED_32.contains(&name.as_str()) || (name == "date_part" && date_part_integral(f)) {
                return Some(as_bigint(e.clone()));
            }
            let [first, second] = unnamed_args(f)?;
            match name.as_str() {
                "pow" | "power" => {
                    let mut double = f.clone();
                    set_first_arg(&mut double, as_double(first.clone()));
                    Some(Expr::Function(double))
                }
                "right" => parse(&format!("REVERSE(LEFT(REVERSE({first}), {second}))")),
                "covar_samp" | "covar" if f.over.is_none() && f.filter.is_none() => {
                    parse(&format!("CASE WHEN COUNT(({first}) * ({second})) > 1 THEN {e} END"))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether Polars computes `EXTRACT(field ...)` as an integer (the
/// fractional ones, EPOCH and the sub-second fields, are floats; TIME and
/// TIMEZONE are not numbers to widen). Mirrors polars-sql 0.55.2's
/// `process_extract` and its aliases for custom field names.
fn integral(field: &DateTimeField) -> bool {
    use DateTimeField::*;
    match field {
        Millennium | Century | Decade | Isoyear | Year | Years | Quarter | Month | Months | Week(None) | IsoWeek
        | Weeks | DayOfYear | Doy | DayOfWeek | Dow | Isodow | Day | Days | Hour | Hours | Minute | Minutes
        | Second | Seconds => true,
        Custom(ident) => integral_name(&ident.value),
        _ => false,
    }
}

/// The names polars-sql accepts for the integral fields (lowercase).
fn integral_name(name: &str) -> bool {
    matches!(
        name.to_lowercase().as_str(),
        "millennium"
            | "millennia"
            | "century"
            | "centuries"
            | "c"
            | "decade"
            | "decades"
            | "isoyear"
            | "year"
            | "years"
            | "y"
            | "quarter"
            | "quarters"
            | "month"
            | "months"
            | "mon"
            | "mons"
            | "dayofyear"
            | "doy"
            | "dayofweek"
            | "dow"
            | "isoweek"
            | "week"
            | "weeks"
            | "isodow"
            | "day"
            | "days"
            | "dayofmonth"
            | "d"
            | "hour"
            | "hours"
            | "h"
            | "minute"
            | "minutes"
            | "mins"
            | "min"
            | "m"
            | "second"
            | "seconds"
            | "sec"
            | "secs"
            | "s"
    )
}

/// `DATE_PART('hour', t)`: the first argument a string naming an integral
/// field.
fn date_part_integral(f: &Function) -> bool {
    match unnamed_args(f) {
        Some([Expr::Value(v), _]) => matches!(&v.value, Value::SingleQuotedString(s) if integral_name(s)),
        _ => false,
    }
}

fn narrow_integer(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int(_)
            | DataType::Integer(_)
            | DataType::SmallInt(_)
            | DataType::TinyInt(_)
            | DataType::MediumInt(_)
            | DataType::Int2(_)
            | DataType::Int4(_)
            | DataType::Int16
            | DataType::Int32
    )
}

fn as_bigint(e: Expr) -> Expr {
    cast(e, DataType::BigInt(None))
}

fn as_double(e: Expr) -> Expr {
    cast(e, DataType::Double(sqlparser::ast::ExactNumberInfo::None))
}

fn cast(e: Expr, data_type: DataType) -> Expr {
    Expr::Cast { kind: CastKind::Cast, expr: Box::new(e), data_type, format: None, array: false }
}

/// The two arguments of a call with exactly two plain arguments.
fn unnamed_args(f: &Function) -> Option<[&Expr; 2]> {
    let FunctionArguments::List(list) = &f.args else { return None };
    match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(a)), FunctionArg::Unnamed(FunctionArgExpr::Expr(b))] => {
            Some([a, b])
        }
        _ => None,
    }
}

fn set_first_arg(f: &mut Function, e: Expr) {
    if let FunctionArguments::List(list) = &mut f.args {
        list.args[0] = FunctionArg::Unnamed(FunctionArgExpr::Expr(e));
    }
}

/// An expression printed from the parsed query, parsed back (sqlparser
/// prints what it parses to the same tree).
fn parse(text: &str) -> Option<Expr> {
    Parser::new(&GenericDialect).try_with_sql(text).ok()?.parse_expr().ok()
}

#[cfg(test)]
mod tests {
    use sqlparser::ast::Statement;

    use super::*;

    /// `sql` after the rewrites, printed.
    fn rewritten(sql: &str) -> String {
        let mut statements = Parser::parse_sql(&GenericDialect, sql).unwrap();
        let Statement::Query(query) = &mut statements[0] else { panic!("not a query: {sql}") };
        rewrite(query);
        query.to_string()
    }

    #[test]
    fn narrow_integer_results_become_bigint() {
        for (sql, want) in [
            (
                "SELECT EXTRACT(DOW FROM t) * 24 + EXTRACT(HOUR FROM t) AS h FROM x",
                "SELECT CAST(EXTRACT(DOW FROM t) AS BIGINT) * 24 + CAST(EXTRACT(HOUR FROM t) AS BIGINT) AS h FROM x",
            ),
            (
                "SELECT COUNT(x) - COUNT(*) AS d FROM x",
                "SELECT CAST(COUNT(x) AS BIGINT) - CAST(COUNT(*) AS BIGINT) AS d FROM x",
            ),
            (
                "SELECT ROW_NUMBER() OVER (ORDER BY a) - 1 AS r FROM x",
                "SELECT CAST(ROW_NUMBER() OVER (ORDER BY a) AS BIGINT) - 1 AS r FROM x",
            ),
            ("SELECT length(v) - 10 AS l FROM x", "SELECT CAST(length(v) AS BIGINT) - 10 AS l FROM x"),
            ("SELECT POSITION('z' IN v) AS p FROM x", "SELECT CAST(POSITION('z' IN v) AS BIGINT) AS p FROM x"),
            ("SELECT SUM(CAST(q AS INTEGER)) AS s FROM x", "SELECT SUM(CAST(q AS BIGINT)) AS s FROM x"),
            ("SELECT DATE_PART('hour', t) AS h FROM x", "SELECT CAST(DATE_PART('hour', t) AS BIGINT) AS h FROM x"),
        ] {
            assert_eq!(rewritten(sql), want);
        }
    }

    #[test]
    fn fractional_fields_and_other_calls_stay() {
        for sql in [
            "SELECT EXTRACT(EPOCH FROM t) AS e, EXTRACT(MILLISECOND FROM t) AS m FROM x",
            "SELECT DATE_PART('epoch', t) AS e, SUM(n) AS s, CAST(q AS DOUBLE) AS d FROM x",
            "SELECT LEFT(v, 2) AS l, POWER(2, 3, 4) AS p FROM x",
        ] {
            assert_eq!(rewritten(sql), sql);
        }
    }

    #[test]
    fn a_computation_without_a_column_is_found() {
        let parsed = |sql: &str| {
            let mut statements = Parser::parse_sql(&GenericDialect, sql).unwrap();
            let Statement::Query(query) = statements.remove(0) else { panic!("not a query: {sql}") };
            reads_no_column(&query)
        };
        for sql in [
            "SELECT UPPER('a') AS a, UPPER('a') AS b",
            "SELECT EXTRACT(DOW FROM DATE '2017-11-05') AS dow",
            "SELECT n FROM (SELECT 1 + 1 AS n) AS t",
            "SELECT vc, 2 * 3 AS six FROM philly_jobs",
        ] {
            assert!(parsed(sql), "{sql}");
        }
        for sql in [
            "SELECT 1 AS one, 'x' AS label, vc FROM philly_jobs",
            "SELECT COUNT(*) AS n, UPPER(vc) AS v FROM philly_jobs GROUP BY vc",
            "SELECT ROW_NUMBER() OVER (ORDER BY job_id) AS r FROM philly_jobs",
            "SELECT (SELECT MAX(gpus) FROM philly_jobs) + 1 AS m",
        ] {
            assert!(!parsed(sql), "{sql}");
        }
    }

    #[test]
    fn is_true_and_is_false_are_false_on_null_and_nested_set_operations_get_parentheses() {
        assert_eq!(
            rewritten("SELECT COUNT(*) AS n FROM x WHERE NOT ((g > 4) IS TRUE) AND h IS FALSE"),
            "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM x WHERE NOT ((COALESCE((g > 4), false))) AND (NOT COALESCE(h, true))"
        );
        assert_eq!(
            rewritten("SELECT a FROM x EXCEPT SELECT a FROM y UNION SELECT a FROM z ORDER BY a"),
            "(SELECT a FROM x EXCEPT SELECT a FROM y) UNION SELECT a FROM z ORDER BY a"
        );
        assert_eq!(
            rewritten("SELECT a FROM x EXCEPT SELECT a FROM y INTERSECT SELECT a FROM z"),
            "SELECT a FROM x EXCEPT (SELECT a FROM y INTERSECT SELECT a FROM z)"
        );
        for plain in
            ["SELECT a FROM x EXCEPT SELECT a FROM y", "SELECT a FROM x UNION SELECT a FROM y UNION SELECT a FROM z"]
        {
            assert_eq!(rewritten(plain), plain);
        }
    }

    #[test]
    fn a_sample_covariance_needs_two_pairs() {
        assert_eq!(
            rewritten("SELECT COVAR_SAMP(a, b + 1) AS c FROM x GROUP BY g"),
            "SELECT CASE WHEN COUNT((a) * (b + 1)) > 1 THEN COVAR_SAMP(a, b + 1) END AS c FROM x GROUP BY g"
        );
        let window = "SELECT COVAR_SAMP(a, b) OVER (PARTITION BY g) AS c FROM x";
        assert_eq!(rewritten(window), window);
    }

    #[test]
    fn power_is_taken_in_doubles_and_right_through_left() {
        assert_eq!(rewritten("SELECT POWER(2, 40) AS p FROM x"), "SELECT POWER(CAST(2 AS DOUBLE), 40) AS p FROM x");
        assert_eq!(
            rewritten("SELECT right(vc || 'x', n - 1) AS r FROM x"),
            "SELECT REVERSE(LEFT(REVERSE(vc || 'x'), n - 1)) AS r FROM x"
        );
    }
}
