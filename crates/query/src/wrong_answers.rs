//! SQL that Polars' SQL front end (0.55) accepts and answers differently
//! from standard SQL without an error, refused before it runs, each with
//! the form that gives the right answer.
//!
//! **A window function in a SELECT that aggregates** (one with GROUP BY,
//! HAVING or an aggregate such as COUNT). In SQL the window runs over the
//! aggregated rows: `COUNT(*) * 100.0 / SUM(COUNT(*)) OVER ()` is each
//! group's share of all rows. Polars evaluates the window inside each group
//! instead. On the bundled samples:
//! - `SUM(COUNT(*)) OVER ()` beside `GROUP BY vc` is each group's own count,
//!   so every share is 100 %;
//! - `ROW_NUMBER() OVER (ORDER BY vc)` beside `GROUP BY vc` is a list per
//!   group;
//! - `SELECT COUNT(*), ROW_NUMBER() OVER ()` without GROUP BY gives one row
//!   per input row instead of one.
//!
//! Other shapes fail in the engine with a length error. So every window
//! function in an aggregating SELECT is refused; the fix is to aggregate in
//! a CTE and apply the window to the CTE's rows. Subqueries are SELECTs of
//! their own and are judged on their own.
//!
//! **A window with an ORDER BY**, where Polars differs from SQL in three
//! ways. (1) `AVG(x) OVER (ORDER BY t)` should be a running mean; Polars
//! gives every row the mean of its whole partition (likewise MEDIAN,
//! STDDEV, VARIANCE and the other aggregates). SUM, COUNT, MIN and MAX
//! accumulate as they should, so those pass. (2) `NULLS FIRST` / `NULLS
//! LAST` in a window's ORDER BY is ignored: Polars puts NULL keys first (and
//! gives them a NULL `RANK`). Both are refused. (3) It also counts rows, not
//! peers, where SQL's default frame includes every row tied with the current
//! one: `COUNT(*) OVER (ORDER BY gpus)` is 4, 5, 6, ... over the sample's
//! one-GPU jobs where SQL says 82 for each. That depends on the data (ties,
//! NULL keys), not on the text, so it is documented instead
//! (queries/README.md: order a window by a unique key, keep NULL keys out).
//!
//! **A named window** (`OVER w ... WINDOW w AS (ORDER BY job_id)`): Polars
//! drops its ORDER BY for some functions (`COUNT(gpus) OVER w` was the
//! partition's count, 114, on every row). Refused; write the window out.
//!
//! **An outer, semi or anti join whose ON is more than column equalities**
//! (`LEFT JOIN b ON a.vc = b.vc AND b.gpus > 4`). In SQL the extra condition
//! decides which rows match and every left row stays; Polars applies it as
//! a filter after the join (240 rows where SQL keeps 268), and a SEMI or
//! ANTI join ignores it (240 rows where SQL says 89 and 28). Inner joins
//! get it right and pass.
//!
//! **`IS NOT TRUE` and `IS NOT FALSE`.** In SQL, NULL IS NOT TRUE is true.
//! Polars evaluates `x IS NOT TRUE` as `x = false`, which drops the NULLs:
//! `(queue_s > 100) IS NOT TRUE` counted 7,146 sample jobs where SQL counts
//! 7,244. (`IS TRUE` and `IS FALSE`, which Polars gets wrong on NULL too,
//! are rewritten to their standard form: [`super::standard_results`].)
//!
//! **An INTERVAL string Polars cannot read** (`INTERVAL '1.5 hours'`,
//! `'01:30:00'`, `'2 hrs'`, `'P1D'`) stopped the process with a panic, and
//! `INTERVAL ''` was silently zero. Each literal is read here the way the
//! engine will read it, and refused with the reason.
//!
//! **`LOG(a, b)`**: Polars takes the base second (`LOG(10, 100)` is 0.5),
//! DuckDB, PostgreSQL, MySQL and Spark first (2). Refused; `LN(x) / LN(base)`
//! means the same everywhere.
//!
//! **A window frame other than the running one** (`LAST_VALUE(x) OVER
//! (PARTITION BY p ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED
//! FOLLOWING)`): Polars supports only `ROWS BETWEEN UNBOUNDED PRECEDING AND
//! CURRENT ROW` and refuses other frames for most functions, but
//! `LAST_VALUE` ignores the frame and gives the current row's value.
//! Refused for every function.
//!
//! **A RIGHT or FULL join with USING**: the joined column should be
//! `COALESCE(a.k, b.k)`; Polars gives the left side's, NULL on every row
//! only the right side has (a FULL JOIN of two count CTEs USING (vc) lost
//! the names of the VCs only the second had).
//!
//! **A number cast to INTERVAL** (`CAST(run_s AS INTERVAL)`, `run_s::INTERVAL`):
//! Polars reads the number as microseconds, so `start_time + CAST(run_s AS
//! INTERVAL)` adds 9 µs for a 9-second job; DuckDB and PostgreSQL refuse
//! the cast. Refused unless the cast is of a string literal;
//! `run_s * INTERVAL '1 second'` is 9 seconds in every engine.
//!
//! **An aggregate over a constant** (`SUM(1)`, `SUM(CASE WHEN 1 = 1 THEN 1
//! ELSE 0 END)`, `STRING_AGG('x', ',')`): Polars aggregates the constant
//! once, not once per row, so `SUM(1)` over the 10,783 sample jobs is 1 (and
//! `SUM(1) OVER (PARTITION BY trace)` is 1 on every row), `STDDEV(1)` is
//! NULL, `CORR(1, 2)` is a column of NaN. Refused when no argument reads a
//! column and no FILTER clause is given (`SUM(1) FILTER (WHERE ...)` is
//! right); COUNT, MIN, MAX, AVG, MEDIAN and the quantiles of a constant are
//! right and pass.

use std::ops::ControlFlow;

use sqlparser::ast::{
    visit_expressions, BinaryOperator, DataType, Expr, Function, FunctionArguments, Ident, Interval, Join,
    JoinConstraint, JoinOperator, ObjectNamePart, Query, Select, Spanned, TableFactor, TableWithJoins, Value, Visit,
    Visitor, WindowFrame, WindowFrameBound, WindowType,
};
use sqlparser::tokenizer::Span as SqlSpan;

use super::guard::at_span;
use super::QueryError;

/// Aggregates Polars gets right over a constant argument; every other one
/// of [`AGGREGATES`] (SUM, STRING_AGG, STDDEV, CORR, ...) aggregates the
/// constant once (see the module documentation). Lowercase.
const RIGHT_OVER_A_CONSTANT: &[&str] =
    &["avg", "count", "first", "last", "max", "median", "min", "quantile_cont", "quantile_disc"];

/// Aggregates that accumulate correctly over a window's ORDER BY (a
/// running sum, count, minimum, maximum); the others give the partition's
/// whole value.
const RUNNING: &[&str] = &["sum", "count", "min", "max"];

/// Polars SQL's aggregate functions (polars-sql 0.55.2 `PolarsSQLFunctions`,
/// the "Aggregate functions" group, plus `array_agg`).
const AGGREGATES: &[&str] = &[
    "avg",
    "corr",
    "count",
    "covar_pop",
    "covar_samp",
    "covar",
    "first",
    "last",
    "max",
    "median",
    "min",
    "quantile_cont",
    "quantile_disc",
    "stdev",
    "stddev",
    "stdev_samp",
    "stddev_samp",
    "string_agg",
    "listagg",
    "group_concat",
    "sum",
    "total",
    "var",
    "variance",
    "var_samp",
    "array_agg",
];

/// Refuses what the engine would answer wrongly in `query`; the error
/// underlines the construct and the hint gives the form that works.
pub(super) fn check(sql: &str, query: &Query) -> Result<(), QueryError> {
    let mut walk = Walk { frames: Vec::new() };
    match query.visit(&mut walk) {
        ControlFlow::Break(trap) => Err(trap.error(sql)),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// What the walk refuses, and where.
enum Trap {
    GroupedWindow(SqlSpan),
    /// `LOG` with two arguments.
    TwoArgumentLog(SqlSpan),
    /// An aggregate not in `RIGHT_OVER_A_CONSTANT` whose arguments read no column.
    ConstantAggregate {
        span: SqlSpan,
        name: String,
    },
    /// An aggregate other than `RUNNING` over a window with an ORDER BY.
    OrderedWindowAggregate {
        span: SqlSpan,
        name: String,
    },
    /// `NULLS FIRST` or `NULLS LAST` in a window's ORDER BY.
    WindowNulls(SqlSpan),
    /// `OVER w`, a window named in a WINDOW clause.
    NamedWindow(SqlSpan),
    /// A condition other than a column equality in an outer, semi or anti
    /// join's ON.
    JoinCondition(SqlSpan),
    /// `IS NOT TRUE` (`truth`) or `IS NOT FALSE`.
    IsNot {
        span: SqlSpan,
        truth: bool,
    },
    /// A cast to INTERVAL of anything but a string literal (where: what is cast).
    CastToInterval(SqlSpan),
    /// A window frame other than ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
    WindowFrame(SqlSpan),
    /// An INTERVAL literal the engine cannot read, and why.
    BadInterval {
        span: SqlSpan,
        why: String,
    },
    /// USING in a RIGHT or FULL join (where: the first USING column).
    OuterUsing(SqlSpan),
}

impl Trap {
    /// The error in `sql`, with the form that works as its hint.
    fn error(self, sql: &str) -> QueryError {
        let (span, message, hint) = self.said();
        at_span(sql, span, message).with_hint(hint)
    }

    /// Where, what is wrong, and what to write instead.
    fn said(self) -> (SqlSpan, String, String) {
        const ENGINE: &str = "tracelab's SQL engine";
        match self {
            Trap::GroupedWindow(span) => (
                span,
                format!(
                    "a window function (OVER) in a SELECT that aggregates: {ENGINE} would evaluate it inside each \
                     group instead of over the grouped rows, and give wrong numbers"
                ),
                "aggregate in a CTE, then apply the window to its rows, e.g. WITH g AS (SELECT vc, COUNT(*) AS n \
                 FROM philly_jobs GROUP BY vc) SELECT vc, n, n * 100.0 / SUM(n) OVER () AS pct FROM g"
                    .into(),
            ),
            Trap::ConstantAggregate { span, name } => (
                span,
                format!(
                    "`{name}` over a constant: {ENGINE} would aggregate the constant once instead of once per \
                     row, and give a wrong number"
                ),
                "count rows with COUNT(*) (SUM(1) is COUNT(*), SUM(c) is c * COUNT(*)), or give the aggregate an \
                 expression that reads a column, or add FILTER (WHERE ...)"
                    .into(),
            ),
            Trap::OrderedWindowAggregate { span, name } => (
                span,
                format!(
                    "`{name}` over a window with ORDER BY: {ENGINE} would give every row the value of the whole \
                     partition, not the running value up to the row"
                ),
                "a running mean is SUM(x) OVER (...) * 1.0 / COUNT(x) OVER (...) with the same window; without \
                 ORDER BY the window is the whole partition, which the engine gets right"
                    .into(),
            ),
            Trap::WindowNulls(span) => (
                span,
                format!(
                    "NULLS FIRST / NULLS LAST in a window's ORDER BY: {ENGINE} ignores it and puts NULL keys first \
                     (with a NULL rank)"
                ),
                "keep the NULL keys out of the window (WHERE key IS NOT NULL), or COALESCE the key".into(),
            ),
            Trap::NamedWindow(span) => (
                span,
                format!("a named window: {ENGINE} drops its ORDER BY for some functions, and gives wrong numbers"),
                "write the window out in each OVER (...)".into(),
            ),
            Trap::JoinCondition(span) => (
                span,
                format!(
                    "a condition beyond column equalities in an outer, semi or anti join's ON: {ENGINE} would \
                     apply it after the join (or not at all) instead of while matching rows"
                ),
                "put a condition on the joined table in a subquery: LEFT JOIN (SELECT * FROM philly_jobs WHERE \
                 gpus > 4) AS b ON a.vc = b.vc; for one on the kept table, make its key NULL where the condition \
                 fails: ON CASE WHEN a.gpus > 4 THEN a.vc END = b.vc"
                    .into(),
            ),
            Trap::TwoArgumentLog(span) => (
                span,
                format!(
                    "`LOG(a, b)` is the logarithm of a to base b in {ENGINE}, and of b to base a in DuckDB and \
                     PostgreSQL"
                ),
                "write LN(x) / LN(base), which means the same in every engine (or LOG10(x), LOG2(x), LN(x))".into(),
            ),
            Trap::CastToInterval(span) => (
                span,
                format!(
                    "a number cast to INTERVAL: {ENGINE} would read it as microseconds (a 9-second run_s becomes \
                     9 µs); DuckDB and PostgreSQL refuse the cast"
                ),
                "multiply by an interval: run_s * INTERVAL '1 second' (or '1 minute', '1 hour'), e.g. start_time + \
                 run_s * INTERVAL '1 second'"
                    .into(),
            ),
            Trap::WindowFrame(span) => (
                span,
                format!(
                    "a window frame other than ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW: {ENGINE} \
                     supports only that one, and LAST_VALUE would silently give the current row's value"
                ),
                "for a partition's last value write FIRST_VALUE(x) OVER (PARTITION BY p ORDER BY t DESC); for an \
                 aggregate of the whole partition leave out the ORDER BY and the frame"
                    .into(),
            ),
            Trap::BadInterval { span, why } => (
                span,
                format!("an INTERVAL {ENGINE} cannot read: {why}"),
                "write whole numbers with units: INTERVAL '90 minutes' (not '1.5 hours'), '1 day 2 hours', \
                 '30 s'; units are ns, us, ms, s, m, h, d, w, mo, q, y or their names (seconds, minutes, ...)"
                    .into(),
            ),
            Trap::OuterUsing(span) => (
                span,
                format!(
                    "USING in a RIGHT or FULL join: {ENGINE} would give the left table's key, NULL on the rows \
                     only the right table has"
                ),
                "join ON a.k = b.k and select COALESCE(a.k, b.k) AS k".into(),
            ),
            Trap::IsNot { span, truth } => {
                let (is_not, instead) = if truth {
                    ("IS NOT TRUE", "NOT COALESCE(condition, FALSE)")
                } else {
                    ("IS NOT FALSE", "COALESCE(condition, TRUE)")
                };
                (
                    span,
                    format!(
                        "`{is_not}` would be false where the condition is NULL in {ENGINE}; in SQL it is true there"
                    ),
                    format!("write {instead}, which is true where the condition is NULL"),
                )
            }
        }
    }
}

/// What the walk knows of the innermost SELECT (or query) it is in.
enum Frame {
    /// A query's own clauses (ORDER BY, LIMIT): not a SELECT list.
    Query,
    Select {
        aggregates: bool,
        window: Option<SqlSpan>,
    },
}

struct Walk {
    frames: Vec<Frame>,
}

impl Visitor for Walk {
    type Break = Trap;

    fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<Trap> {
        self.frames.push(Frame::Query);
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<Trap> {
        self.frames.pop();
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, s: &Select) -> ControlFlow<Trap> {
        if let Some(span) = s.from.iter().find_map(|f| find_in_joins(f, &wrong_join_condition)) {
            return ControlFlow::Break(Trap::JoinCondition(span));
        }
        if let Some(span) = s.from.iter().find_map(|f| find_in_joins(f, &outer_using)) {
            return ControlFlow::Break(Trap::OuterUsing(span));
        }
        let aggregates = groups(s) || s.having.is_some();
        self.frames.push(Frame::Select { aggregates, window: None });
        ControlFlow::Continue(())
    }

    fn post_visit_select(&mut self, _: &Select) -> ControlFlow<Trap> {
        match self.frames.pop() {
            Some(Frame::Select { aggregates: true, window: Some(span) }) => {
                ControlFlow::Break(Trap::GroupedWindow(span))
            }
            _ => ControlFlow::Continue(()),
        }
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<Trap> {
        if let Some(trap) = expression_trap(e) {
            return ControlFlow::Break(trap);
        }
        // What the enclosing SELECT holds: a window, an aggregate.
        if let (Expr::Function(f), Some(Frame::Select { aggregates, window })) = (e, self.frames.last_mut()) {
            if f.over.is_some() {
                window.get_or_insert(f.name.span());
            } else if is_aggregate(f) {
                *aggregates = true;
            }
        }
        ControlFlow::Continue(())
    }
}

/// What is wrong with `e` on its own, whatever SELECT it is in.
fn expression_trap(e: &Expr) -> Option<Trap> {
    match e {
        Expr::IsNotTrue(_) => Some(Trap::IsNot { span: e.span(), truth: true }),
        Expr::IsNotFalse(_) => Some(Trap::IsNot { span: e.span(), truth: false }),
        Expr::Interval(i) => unreadable_interval(i).map(|why| Trap::BadInterval { span: e.span(), why }),
        Expr::Cast { expr, data_type: DataType::Interval { .. }, .. } if !is_string_literal(expr) => {
            Some(Trap::CastToInterval(expr.span()))
        }
        Expr::Function(f) => {
            if let Some(name) = constant_aggregate(f) {
                return Some(Trap::ConstantAggregate { span: f.name.span(), name });
            }
            if is_two_argument_log(f) {
                return Some(Trap::TwoArgumentLog(f.name.span()));
            }
            ordered_window(f)
        }
        _ => None,
    }
}

fn groups(s: &Select) -> bool {
    match &s.group_by {
        sqlparser::ast::GroupByExpr::All(_) => true,
        sqlparser::ast::GroupByExpr::Expressions(exprs, _) => !exprs.is_empty(),
    }
}

/// The name of `f` when it is an aggregate Polars gets wrong over a
/// constant and none of its arguments reads a column (without FILTER).
fn constant_aggregate(f: &Function) -> Option<String> {
    let ident = one_part_name(f)?;
    let wrong = is_aggregate(f) && !RIGHT_OVER_A_CONSTANT.contains(&ident.value.to_lowercase().as_str());
    if !wrong || f.filter.is_some() {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else { return None };
    // An aggregate inside (`SUM(COUNT(*)) OVER ()`) reads the rows too.
    let reads_a_column = visit_expressions(&list.args, |e| match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Subquery(_) => ControlFlow::Break(()),
        Expr::Function(inner) if is_aggregate(inner) => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    });
    reads_a_column.is_continue().then(|| ident.value.clone())
}

/// What is wrong with `f`'s window, when it has an ORDER BY: explicit
/// NULLS FIRST/LAST, or an aggregate that does not accumulate.
fn ordered_window(f: &Function) -> Option<Trap> {
    let spec = match &f.over {
        Some(WindowType::WindowSpec(spec)) => spec,
        Some(WindowType::NamedWindow(name)) => return Some(Trap::NamedWindow(name.span)),
        None => return None,
    };
    if let Some(item) = spec.order_by.iter().find(|o| o.options.nulls_first.is_some()) {
        return Some(Trap::WindowNulls(item.span()));
    }
    if spec.window_frame.as_ref().is_some_and(|frame| !is_running(frame)) {
        return Some(Trap::WindowFrame(f.name.span()));
    }
    let ident = one_part_name(f)?;
    let running = RUNNING.contains(&ident.value.to_lowercase().as_str());
    let wrong = !spec.order_by.is_empty() && is_aggregate(f) && !running;
    wrong.then(|| Trap::OrderedWindowAggregate { span: f.name.span(), name: ident.value.clone() })
}

/// `UNBOUNDED PRECEDING` to the current row, the one frame Polars has.
fn is_running(frame: &WindowFrame) -> bool {
    matches!(frame.start_bound, WindowFrameBound::Preceding(None))
        && matches!(frame.end_bound, None | Some(WindowFrameBound::CurrentRow))
}

/// Where `join`, a RIGHT or FULL join, has USING (its first column).
fn outer_using(join: &Join) -> Option<SqlSpan> {
    match &join.join_operator {
        JoinOperator::Right(JoinConstraint::Using(names))
        | JoinOperator::RightOuter(JoinConstraint::Using(names))
        | JoinOperator::FullOuter(JoinConstraint::Using(names)) => {
            Some(names.first().map_or_else(|| join.relation.span(), |n| n.span()))
        }
        _ => None,
    }
}

/// The first place `each` finds in the joins of `from`, nested joins
/// (`(a JOIN b ON ...)`) included.
fn find_in_joins(from: &TableWithJoins, each: &impl Fn(&Join) -> Option<SqlSpan>) -> Option<SqlSpan> {
    let nested = |t: &TableFactor| match t {
        TableFactor::NestedJoin { table_with_joins, .. } => find_in_joins(table_with_joins, each),
        _ => None,
    };
    nested(&from.relation).or_else(|| from.joins.iter().find_map(|j| nested(&j.relation).or_else(|| each(j))))
}

/// Where `join`, an outer, semi or anti join, has an ON conjunct that is
/// not `column = column`.
fn wrong_join_condition(join: &Join) -> Option<SqlSpan> {
    match &join.join_operator {
        JoinOperator::Left(JoinConstraint::On(on))
        | JoinOperator::LeftOuter(JoinConstraint::On(on))
        | JoinOperator::Right(JoinConstraint::On(on))
        | JoinOperator::RightOuter(JoinConstraint::On(on))
        | JoinOperator::FullOuter(JoinConstraint::On(on))
        | JoinOperator::Semi(JoinConstraint::On(on))
        | JoinOperator::LeftSemi(JoinConstraint::On(on))
        | JoinOperator::RightSemi(JoinConstraint::On(on))
        | JoinOperator::Anti(JoinConstraint::On(on))
        | JoinOperator::LeftAnti(JoinConstraint::On(on))
        | JoinOperator::RightAnti(JoinConstraint::On(on)) => not_a_column_equality(on),
        _ => None,
    }
}

/// The first conjunct of `on` (split at AND) that is not an equality of
/// two sides that each read a column (`a.vc = b.vc`, `a.id = CAST(b.id AS
/// VARCHAR)`, `CASE WHEN ... THEN a.vc END = b.vc`: join keys, which the
/// engine matches on).
fn not_a_column_equality(on: &Expr) -> Option<SqlSpan> {
    match on {
        Expr::BinaryOp { left, op: BinaryOperator::And, right } => {
            not_a_column_equality(left).or_else(|| not_a_column_equality(right))
        }
        Expr::BinaryOp { left, op: BinaryOperator::Eq, right } if reads_a_column(left) && reads_a_column(right) => None,
        other => Some(other.span()),
    }
}

fn reads_a_column(e: &Expr) -> bool {
    visit_expressions(e, |e| match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// Why the engine cannot read interval literal `i` (polars-sql reads a
/// string without a unit field with polars-time's interval parser, which
/// panics where it cannot), or None. Other forms (`INTERVAL '2' HOUR`) the
/// engine refuses with an error of its own.
fn unreadable_interval(i: &Interval) -> Option<String> {
    let Expr::Value(v) = i.value.as_ref() else { return None };
    let Value::SingleQuotedString(text) = &v.value else { return None };
    if i.leading_field.is_some() || i.last_field.is_some() {
        return None;
    }
    if text.trim().is_empty() {
        return Some("the string is empty".into());
    }
    polars::prelude::Duration::try_parse_interval(text).err().map(|e| e.to_string())
}

fn is_string_literal(e: &Expr) -> bool {
    matches!(e, Expr::Value(v) if matches!(v.value, Value::SingleQuotedString(_)))
}

fn is_two_argument_log(f: &Function) -> bool {
    let log = one_part_name(f).is_some_and(|i| i.value.eq_ignore_ascii_case("log"));
    log && matches!(&f.args, FunctionArguments::List(list) if list.args.len() == 2)
}

fn is_aggregate(f: &Function) -> bool {
    one_part_name(f).is_some_and(|i| AGGREGATES.contains(&i.value.to_lowercase().as_str()))
}

/// The name of `f` when it is one plain identifier (as Polars resolves
/// functions; the guard refuses qualified ones).
/// The name of a function called by a one-part name.
pub(crate) fn one_part_name(f: &Function) -> Option<&Ident> {
    match f.name.0.as_slice() {
        [ObjectNamePart::Identifier(ident)] => Some(ident),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(sql: &str) -> Result<(), QueryError> {
        let statements = crate::guard::parse(sql).unwrap();
        let [sqlparser::ast::Statement::Query(q)] = statements.as_slice() else { panic!("{sql}: not one query") };
        check(sql, q)
    }

    /// The error on `sql`, which must underline the first `at` in it
    /// (`at` ending in `(` underlines the name before it).
    fn refused_at(sql: &str, at: &str) -> String {
        let err = verdict(sql).expect_err(sql).to_string();
        let col = sql.find(at).unwrap() + 1;
        let caret = format!("{}^", " ".repeat(col - 1));
        assert!(err.contains(&format!("line 1, column {col}")) && err.contains(&caret), "{sql}: {err}");
        err
    }

    fn pass(sqls: &[&str]) {
        for sql in sqls {
            if let Err(e) = verdict(sql) {
                panic!("{sql}: {e}");
            }
        }
    }

    #[test]
    fn windows_beside_an_aggregate_are_refused_at_the_window() {
        for (sql, window) in [
            ("SELECT vc, COUNT(*) * 100.0 / SUM(COUNT(*)) OVER () AS pct FROM philly_jobs GROUP BY vc", "SUM("),
            ("SELECT vc, ROW_NUMBER() OVER (ORDER BY vc) AS r FROM philly_jobs GROUP BY vc", "ROW_NUMBER"),
            ("SELECT COUNT(*) AS n, ROW_NUMBER() OVER () AS r FROM philly_jobs", "ROW_NUMBER"),
            ("SELECT vc, RANK() OVER (ORDER BY vc) AS r FROM philly_jobs GROUP BY ALL", "RANK"),
            ("SELECT vc, RANK() OVER (ORDER BY vc) AS r FROM philly_jobs HAVING COUNT(*) > 1", "RANK"),
            // In a subquery, judged as its own SELECT.
            (
                "SELECT * FROM (SELECT vc, MAX(gpus) AS g, LAG(vc) OVER () AS p FROM philly_jobs GROUP BY vc) AS s",
                "LAG",
            ),
        ] {
            let err = refused_at(sql, window);
            let name = window.trim_end_matches('(');
            assert!(err.contains(&"^".repeat(name.len())), "the whole name is underlined: {err}");
            assert!(err.contains("WITH g AS (SELECT vc, COUNT(*) AS n"), "{err}");
        }
    }

    #[test]
    fn windows_over_plain_rows_or_a_cte_pass() {
        pass(&[
            "SELECT vc, SUM(gpus) OVER (PARTITION BY vc) AS s FROM philly_jobs",
            "WITH g AS (SELECT vc, COUNT(*) AS n FROM philly_jobs GROUP BY vc) \
             SELECT vc, n, n * 100.0 / SUM(n) OVER () AS pct FROM g",
            // The aggregate is the subquery's; the outer SELECT does not aggregate.
            "SELECT vc, (SELECT COUNT(*) FROM philly_jobs) AS n, ROW_NUMBER() OVER (ORDER BY vc) AS r FROM philly_jobs",
            // The window is the subquery's, over plain rows; the outer SELECT aggregates only.
            "SELECT vc, COUNT(*) AS n FROM (SELECT vc, LAG(gpus) OVER (ORDER BY job_id) AS g FROM philly_jobs) AS s \
             GROUP BY vc",
            "SELECT vc, COUNT(*) AS n FROM philly_jobs GROUP BY vc ORDER BY n DESC",
        ]);
    }

    #[test]
    fn is_not_true_and_is_not_false_are_refused_at_the_condition() {
        for (sql, instead) in [
            ("SELECT COUNT(*) AS n FROM jobs WHERE (queue_s > 100) IS NOT TRUE", "NOT COALESCE(condition, FALSE)"),
            ("SELECT (queue_s > 100) IS NOT FALSE AS b FROM jobs", "COALESCE(condition, TRUE)"),
        ] {
            assert!(refused_at(sql, "queue_s").contains(instead), "{sql}");
        }
        pass(&["SELECT COUNT(*) AS n FROM jobs WHERE (queue_s > 100) IS TRUE OR queue_s IS NOT NULL"]);
    }

    #[test]
    fn an_aggregate_over_a_constant_is_refused() {
        for (sql, name) in [
            ("SELECT SUM(1) AS n FROM jobs", "SUM"),
            ("SELECT trace, SUM(CASE WHEN 1 = 1 THEN 1 ELSE 0 END) AS n FROM jobs GROUP BY trace", "SUM"),
            ("SELECT trace, sum(2.5) OVER (PARTITION BY trace) AS n FROM jobs", "sum"),
            ("SELECT STRING_AGG('x', ',') AS s FROM jobs", "STRING_AGG"),
            ("SELECT CORR(1, 2) AS c FROM jobs", "CORR"),
            ("SELECT n FROM (SELECT STDDEV(1) AS n FROM jobs) AS t", "STDDEV"),
        ] {
            let err = refused_at(sql, &format!("{name}("));
            assert!(err.contains(&format!("`{name}` over a constant")) && err.contains("SUM(1) is COUNT(*)"), "{err}");
        }
        pass(&[
            "SELECT SUM(1) FILTER (WHERE run_s > 10) AS n FROM jobs",
            "SELECT SUM(1 + 0 * run_s) AS n, SUM(j.run_s) AS m FROM jobs AS j",
            "SELECT COUNT(1) AS n, AVG(1) AS a, MAX(2) AS m, MEDIAN(3) AS d FROM jobs",
            "SELECT CORR(run_s, 2) AS c FROM jobs",
        ]);
    }

    #[test]
    fn outer_semi_and_anti_joins_take_only_column_equalities() {
        for (sql, at) in [
            ("SELECT COUNT(*) AS n FROM philly_jobs a LEFT JOIN philly_jobs b ON a.vc = b.vc AND b.gpus > 4", "b.gpus"),
            (
                "SELECT COUNT(*) AS n FROM philly_jobs a FULL JOIN philly_jobs b ON a.vc = b.vc AND b.status = 'Pass'",
                "b.status",
            ),
            ("SELECT COUNT(*) AS n FROM philly_jobs a SEMI JOIN philly_jobs b ON a.gpus > 4 AND a.vc = b.vc", "a.gpus"),
            (
                "SELECT COUNT(*) AS n FROM (philly_jobs a ANTI JOIN philly_jobs b ON a.vc = b.vc AND b.gpus > 4)",
                "b.gpus",
            ),
        ] {
            assert!(refused_at(sql, at).contains("ON CASE WHEN a.gpus > 4 THEN a.vc END = b.vc"), "{sql}");
        }
        pass(&[
            "SELECT COUNT(*) AS n FROM philly_jobs a JOIN philly_jobs b ON a.vc = b.vc AND b.gpus > 4",
            "SELECT COUNT(*) AS n FROM philly_jobs a LEFT JOIN philly_jobs b ON a.vc = b.vc AND a.status = b.status",
            "SELECT COUNT(*) AS n FROM philly_jobs a LEFT JOIN (SELECT * FROM philly_jobs WHERE gpus > 4) b \
             ON a.vc = b.vc",
            "SELECT COUNT(*) AS n FROM philly_jobs a LEFT JOIN philly_jobs b USING (vc)",
            "SELECT COUNT(*) AS n FROM jobs a LEFT JOIN philly_jobs b ON a.job_id = CAST(b.job_id AS VARCHAR)",
            "SELECT COUNT(*) AS n FROM philly_jobs a LEFT JOIN philly_jobs b \
             ON (CASE WHEN a.gpus > 4 THEN a.vc END) = b.vc",
        ]);
    }

    #[test]
    fn a_named_window_is_refused() {
        let sql = "SELECT COUNT(gpus) OVER w AS c FROM philly_jobs WINDOW w AS (ORDER BY job_id)";
        assert!(refused_at(sql, "w AS c").contains("write the window out"));
    }

    #[test]
    fn log_with_two_arguments_is_refused() {
        let sql = "SELECT LN(run_s) AS a, LOG10(run_s) AS b, log(10, run_s) AS c FROM jobs";
        assert!(refused_at(sql, "log(").contains("LN(x) / LN(base)"));
        pass(&["SELECT LN(run_s) / LN(10) AS a, LOG10(run_s) AS b, LOG2(run_s) AS c FROM jobs"]);
    }

    #[test]
    fn an_interval_the_engine_cannot_read_is_refused() {
        for (sql, at, said) in [
            ("SELECT submit_time + INTERVAL '1.5 hours' AS t FROM jobs", "'1.5", "to follow integer"),
            ("SELECT submit_time - INTERVAL '01:30:00' AS t FROM jobs", "'01", "interval"),
            ("SELECT COUNT(*) AS n FROM jobs WHERE end_time > start_time + INTERVAL '2 hrs'", "'2 hrs", "hrs"),
            ("SELECT submit_time + INTERVAL '' AS t FROM jobs", "''", "the string is empty"),
        ] {
            let err = refused_at(sql, at);
            assert!(err.contains(said) && err.contains("INTERVAL '90 minutes'"), "{sql}: {err}");
        }
        pass(&[
            "SELECT submit_time + INTERVAL '90 minutes' AS t, submit_time - INTERVAL '1 day 2 hours' AS u FROM jobs",
            "SELECT submit_time + INTERVAL '2h' AS t, INTERVAL '5 mins' AS m, INTERVAL '2 weeks' AS w FROM jobs",
        ]);
    }

    #[test]
    fn a_frame_other_than_the_running_one_is_refused() {
        for (sql, at) in [
            (
                "SELECT LAST_VALUE(job_id) OVER (PARTITION BY vc ORDER BY job_id ROWS BETWEEN UNBOUNDED PRECEDING \
                 AND UNBOUNDED FOLLOWING) AS l FROM philly_jobs",
                "LAST_VALUE",
            ),
            ("SELECT SUM(gpus) OVER (ORDER BY job_id ROWS 2 PRECEDING) AS s FROM philly_jobs", "SUM"),
            (
                "SELECT last_value(gpus) OVER (ORDER BY job_id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS l \
                 FROM philly_jobs",
                "last_value",
            ),
        ] {
            assert!(refused_at(sql, at).contains("FIRST_VALUE(x) OVER (PARTITION BY p ORDER BY t DESC)"), "{sql}");
        }
        pass(&[
            "SELECT SUM(gpus) OVER (ORDER BY job_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s \
             FROM philly_jobs",
            "SELECT LAST_VALUE(gpus) OVER (ORDER BY job_id ROWS UNBOUNDED PRECEDING) AS l FROM philly_jobs",
            "SELECT FIRST_VALUE(job_id) OVER (PARTITION BY vc ORDER BY job_id DESC) AS l FROM philly_jobs",
        ]);
    }

    #[test]
    fn using_in_a_right_or_full_join_is_refused() {
        for (sql, at) in [
            ("SELECT vc FROM philly_jobs a FULL JOIN philly_jobs b USING (vc)", "vc)"),
            ("SELECT vc FROM philly_jobs a RIGHT JOIN philly_jobs b USING (vc, status)", "vc, status"),
            ("SELECT COUNT(*) AS n FROM (philly_jobs a RIGHT OUTER JOIN philly_jobs b USING (job_id))", "job_id))"),
        ] {
            assert!(refused_at(sql, at).contains("COALESCE(a.k, b.k) AS k"), "{sql}");
        }
        pass(&[
            "SELECT vc FROM philly_jobs a LEFT JOIN philly_jobs b USING (vc)",
            "SELECT vc FROM philly_jobs a JOIN philly_jobs b USING (vc)",
            "SELECT COALESCE(a.vc, b.vc) AS vc FROM philly_jobs a FULL JOIN philly_jobs b ON a.vc = b.vc",
        ]);
    }

    #[test]
    fn a_number_cast_to_interval_is_refused() {
        for (sql, at) in [
            ("SELECT start_time + CAST(run_s AS INTERVAL) AS e FROM jobs", "run_s AS"),
            ("SELECT TRY_CAST(gpus_requested AS INTERVAL) AS d FROM jobs", "gpus_requested"),
            ("SELECT COUNT(*) AS n FROM jobs WHERE run_s::INTERVAL > INTERVAL '1 hour'", "run_s::"),
            ("SELECT CAST(3600 AS INTERVAL) AS d", "3600"),
        ] {
            assert!(refused_at(sql, at).contains("run_s * INTERVAL '1 second'"), "{sql}");
        }
        pass(&[
            "SELECT start_time + run_s * INTERVAL '1 second' AS e FROM jobs",
            "SELECT CAST('1 hour' AS INTERVAL) AS d, INTERVAL '2 hours' AS e",
            "SELECT CAST(run_s AS DOUBLE) AS r FROM jobs",
        ]);
    }

    #[test]
    fn a_window_ordered_for_a_running_mean_or_with_explicit_nulls_is_refused() {
        for (sql, at, said) in [
            (
                "SELECT AVG(gpus) OVER (ORDER BY job_id) AS a FROM philly_jobs",
                "AVG",
                "`AVG` over a window with ORDER BY",
            ),
            ("SELECT STDDEV(gpus) OVER (PARTITION BY vc ORDER BY job_id) AS a FROM philly_jobs", "STDDEV", "running"),
            ("SELECT ROW_NUMBER() OVER (ORDER BY run_s NULLS LAST) AS n FROM philly_jobs", "run_s NULLS", "ignores it"),
        ] {
            assert!(refused_at(sql, at).contains(said), "{sql}");
        }
        pass(&[
            "SELECT SUM(gpus) OVER (ORDER BY job_id) * 1.0 / COUNT(gpus) OVER (ORDER BY job_id) AS a FROM philly_jobs",
            "SELECT MIN(gpus) OVER (ORDER BY job_id) AS a, MAX(gpus) OVER (ORDER BY job_id) AS b FROM philly_jobs",
            "SELECT AVG(gpus) OVER (PARTITION BY vc) AS a, MEDIAN(gpus) OVER (PARTITION BY vc) AS m FROM philly_jobs",
            "SELECT RANK() OVER (ORDER BY gpus DESC) AS r FROM philly_jobs WHERE gpus IS NOT NULL",
        ]);
    }
}
