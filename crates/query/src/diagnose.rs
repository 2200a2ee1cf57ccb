//! Turns the engine's errors into messages that say where in the query the
//! problem is and what to write instead. DataFusion gives the place of many
//! planning errors (its diagnostics carry a span of the query text); where
//! it does not, the name is found in the query text. The hint lists the
//! tables of the store or the columns of the tables the query reads, or
//! the form that works for a function tracelab's SQL does not have.

use datafusion::common::{Column, SchemaError};
use datafusion::error::DataFusionError;

use super::lex::{self, Kind};
use super::{QueryError, Span};
use tracelab_schema as schema;
use tracelab_store::StoredTable;

/// Explains an engine error on `sql` against the store's `tables`.
pub(super) fn explain(sql: &str, e: &DataFusionError, tables: &[StoredTable]) -> QueryError {
    let root = e.find_root();
    let span = e.diagnostic().and_then(|d| d.span).and_then(|s| located(sql, s));
    let message = first_paragraph(&root.message());
    if let DataFusionError::SchemaError(schema_error, _) = root {
        if let SchemaError::FieldNotFound { field, .. } = schema_error.as_ref() {
            return unknown_column(sql, field, span, tables);
        }
    }
    if let DataFusionError::SQL(..) = root {
        return syntax(sql, &message);
    }
    if let DataFusionError::ResourcesExhausted(_) = root {
        return QueryError::plain(format!("the query needs more memory than its limit: {message}")).with_hint(
            "raise the limit with --memory-limit (e.g. --memory-limit 8GiB), or aggregate before joining so that \
             fewer rows are held at once",
        );
    }
    if let Some(name) = between(&message, "Invalid function '", "'") {
        return unsupported_function(sql, &message, name, span);
    }
    if let Some(name) = between(&message, "table '", "' not found") {
        let name = name.rsplit('.').next().unwrap_or(name);
        return underline_name(sql, &format!("relation '{name}' was not found"), name)
            .with_hint(unknown_table_hint(name, tables));
    }
    if message.contains("Projections require unique expression names") {
        return duplicate_name(sql, &message);
    }
    if let Some((_, hint)) = KNOWN_FAILURES.iter().find(|(needles, _)| needles.iter().all(|n| message.contains(n))) {
        return with_span(QueryError::plain(message), span).with_hint(*hint);
    }
    if let Some(name) = between(&message, "`", "` would build") {
        // A string function over the text ceiling (`strings`).
        return underline_word(sql, &message, name);
    }
    with_span(QueryError::plain(message), span)
}

/// Engine messages of known causes (every piece must be in the message),
/// with what to write instead.
const KNOWN_FAILURES: &[(&[&str], &str)] = &[
    (
        &["Recursive CTEs are not enabled"],
        "WITH RECURSIVE is not supported: a recursive query has no bound on the rows it makes. Join the table \
         with itself a fixed number of times instead",
    ),
    (&["Divide by zero"], "division by zero: divide by NULLIF(y, 0) to get NULL where y is 0"),
    (
        &["Cannot cast", "to value of", "type"],
        "the value does not fit the type it is cast to; cast to BIGINT or DOUBLE instead",
    ),
    (
        &["HAVING clause references non-aggregate values"],
        "HAVING takes conditions on aggregates (COUNT(*) > 10); a condition on a column goes in WHERE, before \
         the GROUP BY",
    ),
    (
        &["must appear in the GROUP BY clause"],
        "add the column to the GROUP BY, or aggregate it (MIN(x), MAX(x), COUNT(DISTINCT x))",
    ),
];

/// The first paragraph of an engine message (DataFusion appends the plan
/// or a bug-report request after a blank line).
fn first_paragraph(s: &str) -> String {
    s.split("\n\n").next().unwrap_or(s).trim().to_string()
}

/// A DataFusion span as a place in `sql`.
fn located(sql: &str, s: datafusion::common::Span) -> Option<Span> {
    let (line, col) = (s.start.line as usize, s.start.column as usize);
    if line == 0 || col == 0 {
        return None;
    }
    let width = if s.end.line == s.start.line && s.end.column > s.start.column {
        (s.end.column - s.start.column) as usize
    } else {
        1
    };
    QueryError::at_line_col(sql, line, col, width, String::new()).at
}

fn with_span(mut err: QueryError, span: Option<Span>) -> QueryError {
    if err.at.is_none() {
        err.at = span;
    }
    err
}

/// An unknown column, underlined, with the columns there are.
fn unknown_column(sql: &str, field: &Column, span: Option<Span>, tables: &[StoredTable]) -> QueryError {
    let name = field.name.as_str();
    let written = match &field.relation {
        Some(r) => format!("{}.{name}", r.table()),
        None => name.to_string(),
    };
    let message = format!("column '{written}' was not found");
    let err = match span {
        Some(span) => QueryError { message, at: Some(span), hint: None },
        None => underline_name(sql, &message, name),
    };
    if let Some(table) = read_table_with_column(sql, tables, name) {
        // The column exists, but not where the query uses it.
        return err.with_hint(format!(
            "`{name}` is a column of {table}, but not of the rows at that point of the query: a subquery or CTE \
             that does not select it, a table alias that names another table, or a GROUP BY or SELECT DISTINCT, \
             after which only the grouping columns and the SELECT list's names exist"
        ));
    }
    if KEYWORD_COLUMNS.contains(&name.to_ascii_lowercase().as_str()) {
        return err.with_hint(format!("`{name}` is a SQL keyword; write the column as \"{name}\""));
    }
    err.with_hint(columns_hint(sql, tables))
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
    let message = message.strip_prefix("SQL error: ").unwrap_or(message);
    let inner = between(message, "ParserError(\"", "\")").or_else(|| between(message, "TokenizerError(\"", "\")"));
    let message = match inner {
        Some(inner) => format!("syntax error: {}", inner.replace("\\\"", "\"")),
        None if message.contains("RecursionLimitExceeded") => {
            "the query nests parentheses or subqueries more than 50 deep".to_string()
        }
        None => message.to_string(),
    };
    match parser_position(sql, &message) {
        Some(span) => QueryError { message, at: Some(span), hint: None },
        None => QueryError::plain(message),
    }
}

/// Columns of the traces that are also SQL keywords: written unquoted,
/// `user` parses as the function USER.
pub(super) const KEYWORD_COLUMNS: &[&str] = &["user", "group"];

/// What to write instead of functions other engines have and tracelab's
/// SQL does not, by lowercase name; each form checked against DuckDB.
const ALTERNATIVES: &[(&[&str], &str)] = &[
    (
        &["count_if", "countif"],
        "write COUNT(*) FILTER (WHERE condition), or SUM(CASE WHEN condition THEN 1 ELSE 0 END)",
    ),
    (&["every"], "write BOOL_AND(condition)"),
    (&["epoch", "unix_timestamp"], "write EXTRACT(EPOCH FROM ts) (seconds since 1970, UTC)"),
    (&["epoch_ms"], "write EXTRACT(EPOCH FROM ts) * 1000 (milliseconds since 1970, UTC)"),
    (&["approx_count_distinct"], "write COUNT(DISTINCT x) (exact) or approx_distinct(x)"),
    (
        &["date_diff", "datediff", "timestampdiff"],
        "subtract the times: EXTRACT(EPOCH FROM end_time) - EXTRACT(EPOCH FROM start_time) is the seconds \
         between them",
    ),
    (&["from_unixtime"], "write to_timestamp(seconds) (seconds since 1970, UTC)"),
    (&["getdate"], "write now(), or compare with a time as a string (submit_time >= '2020-05-01')"),
    (&["regexp_matches", "rlike"], "write regexp_like(x, 'pattern') or x ~ 'pattern'"),
    (
        &["arg_max", "max_by", "argmax", "arg_min", "min_by", "argmin"],
        "number the rows in a CTE, ROW_NUMBER() OVER (PARTITION BY g ORDER BY x DESC, id DESC) AS rn (ASC for \
         the least), then keep WHERE rn = 1; or first_value(id ORDER BY x DESC)",
    ),
    (&["any_value", "arbitrary"], "write MIN(x), the same value on every run"),
    (&["mode"], "count each value: SELECT x, COUNT(*) AS n ... GROUP BY x ORDER BY n DESC, x LIMIT 1"),
    (&["dayofweek", "weekday"], "write EXTRACT(DOW FROM ts) (0 is Sunday)"),
    (&["dayofyear"], "write EXTRACT(DOY FROM ts)"),
    (&["time_bucket", "datetrunc"], "write date_trunc('hour', ts) (or 'day', 'week', 'month')"),
    (&["percentile", "approx_quantile", "percentile_approx"], "write percentile_cont(q) WITHIN GROUP (ORDER BY x)"),
];

/// An unknown function, underlined: `user` and `group` are keywords that
/// are also columns; functions other engines have get the form to write
/// ([`ALTERNATIVES`]); otherwise DataFusion's nearest name.
fn unsupported_function(sql: &str, message: &str, name: &str, span: Option<Span>) -> QueryError {
    let lower = name.to_ascii_lowercase();
    let said = format!("function '{name}' does not exist");
    let err = match span {
        Some(span) => QueryError { message: said.clone(), at: Some(span), hint: None },
        None => underline_word(sql, &said, name),
    };
    if KEYWORD_COLUMNS.contains(&lower.as_str()) {
        return err.with_hint(format!("`{name}` is a SQL keyword; write the column as \"{name}\""));
    }
    match ALTERNATIVES.iter().find(|(names, _)| names.contains(&lower.as_str())) {
        Some((_, instead)) => err.with_hint(format!("`{name}` is not in tracelab's SQL: {instead}")),
        None => match message.split_once("Did you mean ") {
            Some((_, suggestion)) => err.with_hint(format!("did you mean {}", suggestion.trim_end_matches('?'))),
            None => err,
        },
    }
}

/// Two result columns with one name: the second place the name is spelled
/// is underlined (the one to rename), with how to name it in SQL.
fn duplicate_name(sql: &str, message: &str) -> QueryError {
    // DataFusion names the expression with its aliases: `count(Int64(1)) AS
    // count(*) AS COUNT(*)`; the last one is the column's name.
    let expression = between(message, "the expression \"", "\" at position").unwrap_or_default();
    let name = expression.rsplit(" AS ").next().unwrap_or(expression);
    let name = if name.contains('(') { name } else { name.rsplit('.').next().unwrap_or(name) }.trim_matches('"');
    let said = format!("two columns of the result are named '{name}'");
    let hint = format!(
        "give each column of the result a name of its own, with AS: {} AS another_name",
        if name.is_empty() { "..." } else { name }
    );
    let tokens = lex::tokenize(sql);
    let hits: Vec<&lex::Token> = tokens.iter().filter(|t| t.ident(sql).as_deref() == Some(name)).collect();
    if let Some(second) = hits.get(1).or(hits.first()) {
        return QueryError::at(sql, second, said).with_hint(hint);
    }
    match sql.match_indices(name).nth(1).filter(|_| !name.is_empty()) {
        Some((at, _)) => {
            QueryError { message: said, at: Some(Span::of(sql, at, name.chars().count())), hint: None }.with_hint(hint)
        }
        None => QueryError::plain(said).with_hint(hint),
    }
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

/// The first store table the query names that has a column `name`.
fn read_table_with_column<'a>(sql: &str, tables: &'a [StoredTable], name: &str) -> Option<&'a str> {
    named_tables(sql, tables).into_iter().find(|t| t.table.column_names().contains(&name)).map(|t| t.table.sql_name())
}

/// The store tables whose names the query spells (outside strings).
fn named_tables<'a>(sql: &str, tables: &'a [StoredTable]) -> Vec<&'a StoredTable> {
    let tokens = lex::tokenize(sql);
    tables
        .iter()
        .filter(|t| tokens.iter().any(|k| k.kind != Kind::Str && k.ident(sql).as_deref() == Some(t.table.sql_name())))
        .collect()
}

/// Columns of each store table the query names, for an unknown column.
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

fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = s.find(open)? + open.len();
    if close.is_empty() {
        return Some(&s[start..]);
    }
    let len = s[start..].find(close)?;
    Some(&s[start..start + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parser_positions_become_a_caret() {
        let span =
            parser_position("select\nfrom from x", "syntax error: Expected: x, found: from at Line: 2, Column: 6")
                .unwrap();
        assert_eq!((span.line, span.col, span.text.as_str()), (2, 6, "from from x"));
    }
}
