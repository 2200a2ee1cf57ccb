//! Turns the engine's errors into messages that say where in the query the
//! problem is and what exists instead. Polars' SQL errors carry a position
//! only for syntax errors (from the parser: "at Line: l, Column: c"); for an
//! unknown table or column the name is found in the query text instead, and
//! the hint lists the tables of the store or the columns of the tables the
//! query reads. Two result columns with one name (the same column of two
//! joined tables; inside a subquery Polars names an expression without
//! `AS` after the column it reads, so `MIN(t), MAX(t)` collide) get the SQL
//! fix instead of Polars' Python one.

use polars::prelude::PolarsError;

use super::lex::{self, Kind};
use super::{QueryError, Span};
use tracelab_schema as schema;
use tracelab_store::StoredTable;

/// Explains an engine error on `sql` against the registered `tables`.
pub(super) fn explain(sql: &str, e: &PolarsError, tables: &[StoredTable]) -> QueryError {
    let message = first_paragraph(&e.to_string());
    if let Some(name) = between(&message, "relation '", "' was not found") {
        return unknown_table(sql, &message, name, tables);
    }
    if let Some(span) = parser_position(sql, &message) {
        return QueryError { message, at: Some(span), hint: None };
    }
    if let Some(name) = between(&message, "unsupported function '", "'") {
        return unsupported_function(sql, &message, name);
    }
    let duplicate = between(&message, "duplicate output name '", "'")
        .or_else(|| between(&message, "the name '", "' passed to `LazyFrame.with_columns` is duplicate"));
    if let Some(name) = duplicate {
        return duplicate_name(sql, name);
    }
    if let Some(err) = unsupported_expression(sql, &message) {
        return err;
    }
    if message.starts_with("HAVING clause not valid outside of GROUP BY") {
        // Polars' message goes on with the condition's parse tree.
        return underline_word(sql, "HAVING without GROUP BY is not supported", "HAVING").with_hint(
            "filter the aggregates in an outer query: SELECT * FROM (SELECT COUNT(*) AS n FROM jobs) AS s WHERE n > 5",
        );
    }
    if let Some(literal) = between(&message, "cannot parse literal: \"", "\"") {
        if literal.contains(['e', 'E']) {
            return QueryError::plain(message.clone()).with_hint(format!(
                "a whole number with an exponent ({literal}) does not parse here: write it out, or with a decimal \
                 point ({})",
                literal.replacen(['e', 'E'], ".0e", 1)
            ));
        }
    }
    if let Some((_, hint)) = KNOWN_FAILURES.iter().find(|(needles, _)| needles.iter().all(|n| message.contains(n))) {
        return QueryError::plain(message).with_hint(*hint);
    }
    if let Some(op) = between(&message, "subquery comparisons with '", "'") {
        let subquery = format!("run_s {op} (SELECT AVG(run_s) FROM jobs)");
        return QueryError::plain(message.clone()).with_hint(format!(
            "compute the subquery in a CTE and join it: instead of WHERE {subquery}, write \
             WITH s AS (SELECT AVG(run_s) AS avg_run_s FROM jobs) SELECT ... FROM jobs CROSS JOIN s \
             WHERE run_s {op} avg_run_s"
        ));
    }
    let column_error = ["not found", "no column named", "unable to find column"].iter().any(|m| message.contains(m));
    if matches!(e, PolarsError::ColumnNotFound(_)) || column_error {
        // Our hint lists the columns; Polars' own list repeats them unquoted.
        let message = message.split("; valid columns:").next().unwrap_or(&message).to_string();
        if let Some(name) = quoted_name(&message) {
            let err = underline_name(sql, &message, &name);
            if let Some(table) = read_table_with_column(sql, tables, &name) {
                // The column exists, but not where the query uses it.
                if lex::tokenize(sql).iter().any(|t| t.is_word(sql, "distinct")) {
                    return err.with_hint(format!(
                        "`{name}` is a column of {table}; after SELECT DISTINCT (or DISTINCT ON) the ORDER BY \
                         sorts the selected rows, so it can use only the SELECT list's columns: add {name} to it"
                    ));
                }
                return err.with_hint(format!(
                    "`{name}` is a column of {table}, but not of the rows at that point of the query: a subquery \
                     or CTE that does not select it, or a GROUP BY, after which only the grouping columns and the \
                     SELECT list's names exist (ORDER BY MAX({name}) needs MAX({name}) in the SELECT list)"
                ));
            }
            return err.with_hint(columns_hint(sql, tables));
        }
    }
    QueryError::plain(message)
}

/// Engine messages of known causes (every piece must be in the message),
/// with what to write instead.
const KNOWN_FAILURES: &[(&[&str], &str)] = &[
    (&["operator BitwiseXor is not currently supported"], "`^` is not a power here: write POWER(x, y)"),
    (
        &["no function matches the given name and arguments: `LOG("],
        "write LN(x), LOG10(x) or LOG2(x); LN(x) / LN(base) for another base",
    ),
    // `HAVING ... AND trace <> 'pai'`: a plain column in HAVING is a list per group.
    (
        &["cannot cast List type (inner: 'Boolean'"],
        "HAVING takes conditions on aggregates (COUNT(*) > 10); a condition on a column goes in WHERE, \
         before the GROUP BY",
    ),
    (
        &["sort expressions must have same length as DataFrame"],
        "an ORDER BY over an aggregate the SELECT list does not have is not supported: add it to the \
         SELECT list (COUNT(*) AS n) and ORDER BY it (ORDER BY n DESC)",
    ),
    (
        &["OVER does not (yet) support mixed asc/desc directions"],
        "order the window in one direction: negate the numeric keys that sort the other way \
         (OVER (PARTITION BY vc ORDER BY -run_s, job_id) for run_s DESC, job_id ASC)",
    ),
    // EXTRACT(EPOCH FROM end_time - start_time).
    (
        &["`timestamp` operation not supported for dtype `duration"],
        "the difference of two times is a duration (printed in seconds); EXTRACT takes a time: write \
         EXTRACT(EPOCH FROM end_time) - EXTRACT(EPOCH FROM start_time) for the seconds as a number",
    ),
    // A TIMESTAMP literal (no zone) against the store's UTC timestamps.
    (
        &["comparison between", "'UTC')", "Datetime('μs')"],
        "the store's timestamps are UTC instants and a TIMESTAMP literal has no time zone; compare with a \
         string instead, read as UTC: submit_time >= '2017-10-01' or '2017-10-01 08:00:00'",
    ),
    // A string against a computed time (`submit_time + INTERVAL ...`), or a
    // zoned string against a column the rewrite does not know (a CTE's
    // renamed column): see utc_literals.
    (
        &["cannot compare 'date/datetime/time' to a string value"],
        "a string compares with a time only beside a column, read as UTC and without a zone unless the column \
         is the store's: s > '2017-10-01 08:00:00', not '2017-10-01T08:00:00Z'. For a computed time, move the \
         arithmetic to the string's side (submit_time > '2017-09-30 16:00:00' for submit_time + INTERVAL \
         '8 hours' > '2017-10-01') or compare text: strftime(submit_time + INTERVAL '8 hours', '%Y-%m-%d') \
         >= '2017-10-01'",
    ),
    (
        &["conversion from `str` to `datetime"],
        "compare the timestamp column with the string itself, read as UTC: submit_time >= '2017-10-01' \
         (a CAST of a string to TIMESTAMP has no time zone and fails for a date alone)",
    ),
];

/// Polars appends the plan it was resolving after a blank line; the first
/// paragraph is the message.
fn first_paragraph(s: &str) -> String {
    s.split("\n\n").next().unwrap_or(s).trim().to_string()
}

fn unknown_table(sql: &str, message: &str, name: &str, tables: &[StoredTable]) -> QueryError {
    underline_name(sql, message, name).with_hint(unknown_table_hint(name, tables))
}

/// What to say about a table name the store does not hold: which trace it
/// belongs to, if it is a known table, and the tables there are.
pub(super) fn unknown_table_hint(name: &str, tables: &[StoredTable]) -> String {
    let names: Vec<&str> = tables.iter().map(|t| t.table.sql_name()).collect();
    match schema::all_tables().into_iter().find(|t| t.sql_name() == name) {
        Some(t) => format!(
            "{name} is a table of the {} trace, which this store does not hold; ingest that trace first. Tables in this store: {}",
            t.trace.map_or("unified", |tr| tr.name()),
            names.join(", ")
        ),
        None => format!("tables in this store: {}", names.join(", ")),
    }
}

/// A syntax error from the parser, with its position when it gives one.
pub(super) fn syntax(sql: &str, message: &str) -> QueryError {
    match parser_position(sql, message) {
        Some(span) => QueryError { message: message.to_string(), at: Some(span), hint: None },
        None => QueryError::plain(message),
    }
}

/// Columns of the traces that are also SQL keywords: written unquoted,
/// `user` parses as the function USER.
pub(super) const KEYWORD_COLUMNS: &[&str] = &["user", "group"];

/// What to write instead of functions other engines have and Polars' SQL
/// (0.55) does not, by lowercase name.
const ALTERNATIVES: &[(&[&str], &str)] = &[
    (
        &["date_trunc", "time_bucket", "datetrunc"],
        "truncate a timestamp with CAST(ts AS DATE) (to the day) or strftime(ts, '%Y-%m-%d %H:00') (to the hour, \
         as text); EXTRACT(HOUR FROM ts) is the hour of the day",
    ),
    (
        &["percentile_cont", "percentile_disc", "percentile", "quantile", "approx_quantile", "percentile_approx"],
        "write quantile_cont(x, q) (linear interpolation between ranks) or quantile_disc(x, q) (a value of x)",
    ),
    (&["count_if", "countif"], "write SUM(CASE WHEN condition THEN 1 ELSE 0 END)"),
    (&["bool_and", "every"], "write MIN(CASE WHEN condition THEN 1 ELSE 0 END) = 1"),
    (&["bool_or"], "write MAX(CASE WHEN condition THEN 1 ELSE 0 END) = 1"),
    (&["epoch", "unix_timestamp", "to_unixtime"], "write EXTRACT(EPOCH FROM ts) (seconds since 1970, UTC)"),
    (&["approx_count_distinct"], "write COUNT(DISTINCT x) (exact)"),
    (&["epoch_ms"], "write EXTRACT(EPOCH FROM ts) * 1000 (milliseconds since 1970, UTC)"),
    (
        &["date_diff", "datediff", "timestampdiff"],
        "subtract the times: end_time - start_time is a duration (printed in seconds), and \
         EXTRACT(EPOCH FROM end_time) - EXTRACT(EPOCH FROM start_time) the seconds as a number",
    ),
    (
        &["to_timestamp", "from_unixtime"],
        "write CAST(seconds * 1000000 AS TIMESTAMP) (microseconds since 1970 cast to a time, UTC)",
    ),
    (
        &["now", "current_timestamp", "current_date", "getdate"],
        "the store holds a past trace: compare with a time as a string (submit_time >= '2020-05-01'), or with \
         the trace's own MAX(submit_time) computed in a CTE",
    ),
    (&["regexp_matches", "regexp_match", "rlike"], "write regexp_like(x, 'pattern') or x ~ 'pattern'"),
    (&["regexp_replace"], "write REPLACE(x, 'old', 'new') to replace literal text (patterns are not supported)"),
    (
        &["arg_max", "max_by", "argmax", "arg_min", "min_by", "argmin"],
        "number the rows in a CTE, ROW_NUMBER() OVER (PARTITION BY g ORDER BY x DESC, id DESC) AS rn (ASC for \
         the least), then keep WHERE rn = 1",
    ),
    (&["any_value", "arbitrary"], "write FIRST(x), or MIN(x) for the same value on every run"),
    (&["var_pop"], "write VAR_SAMP(x) * (COUNT(x) - 1) / COUNT(x)"),
    (&["stddev_pop"], "write SQRT(VAR_SAMP(x) * (COUNT(x) - 1) / COUNT(x))"),
    (&["nvl"], "write COALESCE(x, value)"),
    (&["mode"], "count each value: SELECT x, COUNT(*) AS n ... GROUP BY x ORDER BY n DESC, x LIMIT 1"),
    (&["dayofweek", "weekday"], "write EXTRACT(DOW FROM ts) (0 is Sunday)"),
    (&["dayofyear"], "write EXTRACT(DOY FROM ts)"),
];

/// `user` and `group` are SQL keywords that are also column names here:
/// unquoted, `user` parses as a function call. Functions other engines
/// have get what to write instead ([`ALTERNATIVES`]).
fn unsupported_function(sql: &str, message: &str, name: &str) -> QueryError {
    let err = underline_word(sql, message, name);
    let lower = name.to_ascii_lowercase();
    if KEYWORD_COLUMNS.contains(&lower.as_str()) {
        return err.with_hint(format!("`{name}` is a SQL keyword; write the column as \"{name}\""));
    }
    match ALTERNATIVES.iter().find(|(names, _)| names.contains(&lower.as_str())) {
        Some((_, instead)) => err.with_hint(format!("`{name}` is not in tracelab's SQL: {instead}")),
        None => err,
    }
}

/// SQL constructs the engine does not support and reports with a dump of
/// its parse tree ("expression Rollup([[Identifier(Ident { value: ...")
/// (the dump's name, how SQL spells it, the word to underline, what to
/// write instead).
const UNSUPPORTED_EXPRESSIONS: &[(&str, &str, &str, &str)] = &[
    ("Rollup(", "GROUP BY ROLLUP", "ROLLUP", GROUPING_HINT),
    ("Cube(", "GROUP BY CUBE", "CUBE", GROUPING_HINT),
    ("GroupingSets(", "GROUP BY GROUPING SETS", "GROUPING", GROUPING_HINT),
    ("IsUnknown(", "IS UNKNOWN", "UNKNOWN", "write (condition) IS NULL"),
    ("IsNotUnknown(", "IS NOT UNKNOWN", "UNKNOWN", "write (condition) IS NOT NULL"),
];

const GROUPING_HINT: &str = "group by each set of columns in its own SELECT and UNION ALL them, with NULL AS \
                             <column> for the columns a level leaves out";

/// An unsupported construct said in SQL and underlined, instead of the
/// engine's parse-tree dump; one it does not know is named without the dump.
fn unsupported_expression(sql: &str, message: &str) -> Option<QueryError> {
    let rest = message.strip_prefix("expression ")?;
    if !message.ends_with("is not currently supported") {
        return None;
    }
    let Some(&(_, spelled, word, instead)) = UNSUPPORTED_EXPRESSIONS.iter().find(|(dump, ..)| rest.starts_with(dump))
    else {
        let name: String = rest.chars().take_while(char::is_ascii_alphanumeric).collect();
        return Some(QueryError::plain(format!(
            "this SQL construct ({name}) is not supported by tracelab's SQL engine"
        )));
    };
    Some(underline_word(sql, &format!("{spelled} is not supported"), word).with_hint(instead))
}

/// Two result columns named `name`: the second expression that reads it is
/// underlined (the one to rename), with how to name it in SQL. Polars'
/// own message suggests `.alias(...)`, its Python and Rust API.
fn duplicate_name(sql: &str, name: &str) -> QueryError {
    let message = format!("two columns of the result are named '{name}'");
    if !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return duplicate_expression(sql, name, message);
    }
    // COUNT(*) in a subquery is named `len`, a name the query does not spell.
    let spelled = |t: &&lex::Token| {
        if name == "len" {
            t.is_word(sql, "count")
        } else {
            t.ident(sql).as_deref() == Some(name)
        }
    };
    let tokens = lex::tokenize(sql);
    let hits: Vec<&lex::Token> = tokens.iter().filter(spelled).collect();
    let err = at_token(sql, hits.get(1).or(hits.first()).copied(), message);
    let example = match name {
        "len" => "COUNT(*) AS jobs".to_string(),
        _ => format!("... AS {name}_2"),
    };
    err.with_hint(format!(
        "a column keeps its name, and inside a subquery or CTE an expression without AS is named after the \
         column it reads (COUNT(*) is named len); give the underlined one a name of its own: {example}"
    ))
}

/// Two result columns named after one expression's text (the result names
/// a computed column as written, [`super::result_names`]): the second
/// place the text is spelled so is underlined.
fn duplicate_expression(sql: &str, name: &str, message: String) -> QueryError {
    let hint = format!(
        "a computed column without AS is named as written; give the underlined one a name of its own: {name} AS \
         another_name"
    );
    let Some(second) = sql.match_indices(name).nth(1) else {
        return QueryError::plain(message).with_hint(hint);
    };
    let width = name.chars().count();
    QueryError { message, at: Some(Span::of(sql, second.0, width)), hint: None }.with_hint(hint)
}

/// The error underlining the first identifier of `sql` spelled `name`.
fn underline_name(sql: &str, message: &str, name: &str) -> QueryError {
    let tokens = lex::tokenize(sql);
    let hit = tokens.iter().find(|t| t.ident(sql).as_deref() == Some(name)).or_else(|| {
        // A table alias or qualified column (`j.nope`): match the last part.
        tokens.iter().find(|t| t.ident(sql).is_some_and(|i| name.ends_with(&format!(".{i}"))))
    });
    at_token(sql, hit, message)
}

/// The error underlining the first word of `sql` spelled `word` (any case).
fn underline_word(sql: &str, message: &str, word: &str) -> QueryError {
    at_token(sql, lex::tokenize(sql).iter().find(|t| t.is_word(sql, word)), message)
}

/// The error at `token`, or without a position when there is none.
fn at_token(sql: &str, token: Option<&lex::Token>, message: impl Into<String>) -> QueryError {
    match token {
        Some(t) => QueryError::at(sql, t, message.into()),
        None => QueryError::plain(message),
    }
}

/// The first registered table the query names that has a column `name`.
fn read_table_with_column<'a>(sql: &str, tables: &'a [StoredTable], name: &str) -> Option<&'a str> {
    named_tables(sql, tables).into_iter().find(|t| t.table.column_names().contains(&name)).map(|t| t.table.sql_name())
}

/// The registered tables whose names the query spells (outside strings).
fn named_tables<'a>(sql: &str, tables: &'a [StoredTable]) -> Vec<&'a StoredTable> {
    let tokens = lex::tokenize(sql);
    tables
        .iter()
        .filter(|t| tokens.iter().any(|k| k.kind != Kind::Str && k.ident(sql).as_deref() == Some(t.table.sql_name())))
        .collect()
}

/// Columns of each registered table the query names, for an unknown column.
fn columns_hint(sql: &str, tables: &[StoredTable]) -> String {
    let used = named_tables(sql, tables);
    if used.is_empty() {
        return "see `tracelab tables` for the columns of each table".into();
    }
    used.iter()
        .map(|t| format!("columns of {}: {}", t.table.sql_name(), t.table.column_names().join(", ")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The position sqlparser puts in its messages: "... at Line: 2, Column: 7".
fn parser_position(sql: &str, message: &str) -> Option<Span> {
    let rest = &message[message.rfind(" at Line: ")? + " at Line: ".len()..];
    let (line, rest) = rest.split_once(", Column: ")?;
    let line: usize = line.trim().parse().ok()?;
    let col: usize = rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()?;
    let text = sql.lines().nth(line.checked_sub(1)?)?;
    let col = col.clamp(1, text.chars().count() + 1);
    Some(Span { line, col, width: 1, text: text.trim_end_matches('\r').to_string() })
}

/// The first name quoted in an engine message: `"x"`, `'x'` or `` `x` ``.
fn quoted_name(message: &str) -> Option<String> {
    ['"', '\'', '`']
        .iter()
        .filter_map(|&q| {
            let start = message.find(q)?;
            let len = message[start + 1..].find(q)?;
            Some((start, message[start + 1..start + 1 + len].to_string()))
        })
        .min_by_key(|(start, _)| *start)
        .map(|(_, name)| name)
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = s.find(open)? + open.len();
    let len = s[start..].find(close)?;
    Some(&s[start..start + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parser_positions_become_a_caret() {
        let span =
            parser_position("select\nfrom from x", "sql parser error: Expected: x, found: from at Line: 2, Column: 6")
                .unwrap();
        assert_eq!((span.line, span.col, span.text.as_str()), (2, 6, "from from x"));
    }

    #[test]
    fn the_first_quoted_name_is_the_culprit() {
        assert_eq!(quoted_name("unable to find column \"nope\"; valid columns: [\"a\"]").as_deref(), Some("nope"));
        assert_eq!(quoted_name("no table or struct column named 'j' found").as_deref(), Some("j"));
    }
}
