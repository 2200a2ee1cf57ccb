//! Parameters of named queries: `--param name=value` checked against the
//! declaration in the header and substituted for `$name` as a SQL literal.
//! Text is always quoted (a value can never become SQL), numbers are parsed
//! first, and a value outside a declared list is refused before the query
//! runs.

use std::collections::BTreeMap;

use super::catalog::{NamedQuery, Param};
use super::lex::{self, Kind};
use tracelab_schema::error::{Error, Result};

/// The query's SQL with every `$name` replaced by the literal of the given
/// value, or the declared default.
pub fn bind(q: &NamedQuery, given: &BTreeMap<String, String>) -> Result<String> {
    for name in given.keys() {
        if q.param(name).is_none() {
            return Err(Error::Usage(format!("{}: unknown parameter `{name}`; {}", q.name, takes(q))));
        }
    }
    let counts = row_counts(&q.sql);
    let mut literals = BTreeMap::new();
    for p in &q.params {
        let value = given.get(&p.name).unwrap_or(&p.default);
        let bad = |e: String| Error::Usage(format!("{}: --param {}={value}: {e}", q.name, p.name));
        let lit = p.literal(value).map_err(bad)?;
        if counts.contains(&p.name) && lit.starts_with('-') {
            return Err(bad("expected a whole number, 0 or more (it is a row count: LIMIT/OFFSET)".into()));
        }
        literals.insert(p.name.as_str(), lit);
    }
    substitute(q, &literals)
}

/// What `q` takes, for error messages.
fn takes(q: &NamedQuery) -> String {
    if q.params.is_empty() {
        return "it takes no parameters".into();
    }
    let list: Vec<String> = q.params.iter().map(Param::summary).collect();
    format!("it takes: {}", list.join(", "))
}

fn substitute(q: &NamedQuery, literals: &BTreeMap<&str, String>) -> Result<String> {
    let sql = &q.sql;
    let mut out = String::with_capacity(sql.len());
    let mut copied = 0;
    for t in lex::tokenize(sql).iter().filter(|t| t.kind == Kind::Param) {
        let name = &t.text(sql)[1..];
        let lit = literals.get(name).ok_or_else(|| {
            Error::input(&q.source, format!("uses ${name} but its header declares no such parameter; {}", takes(q)))
        })?;
        out.push_str(&sql[copied..t.start]);
        out.push_str(lit);
        copied = t.end;
    }
    out.push_str(&sql[copied..]);
    Ok(out)
}

/// The `$parameters` used as a row count (`LIMIT $top`, `OFFSET $skip`),
/// where the engine would refuse a negative value with a message about
/// the SQL rather than about the parameter.
fn row_counts(sql: &str) -> Vec<String> {
    let tokens = lex::tokenize(sql);
    tokens
        .windows(2)
        .filter(|w| w[1].kind == Kind::Param && (w[0].is_word(sql, "limit") || w[0].is_word(sql, "offset")))
        .map(|w| w[1].text(sql)[1..].to_string())
        .collect()
}

/// The distinct `$parameters` a query text uses, sorted.
pub fn used(sql: &str) -> Vec<String> {
    let mut names: Vec<String> =
        lex::tokenize(sql).iter().filter(|t| t.kind == Kind::Param).map(|t| t.text(sql)[1..].to_string()).collect();
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::catalog::ParamKind;

    fn given(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn query() -> NamedQuery {
        let text = "-- name: q\n-- param: trace pai|philly = pai: t\n-- param: top int = 5: n\n\
            SELECT '$trace' AS s, $trace AS t FROM jobs LIMIT $top";
        NamedQuery::parse("q.sql", "q", text).unwrap()
    }

    #[test]
    fn values_become_literals_and_strings_are_left_alone() {
        let given = given(&[("top", "3")]);
        let sql = bind(&query(), &given).unwrap();
        assert!(sql.ends_with("SELECT '$trace' AS s, 'pai' AS t FROM jobs LIMIT 3"), "{sql}");
    }

    #[test]
    fn bad_values_and_unknown_names_are_usage_errors_that_list_what_is_allowed() {
        let err = bind(&query(), &given(&[("trace", "x'; drop")])).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("expected one of pai, philly"), "{err}");
        let err = bind(&query(), &given(&[("cluster", "Earth")])).unwrap_err();
        assert!(err
            .to_string()
            .contains("unknown parameter `cluster`; it takes: trace (pai|philly, default pai), top"));
        assert!(bind(&query(), &given(&[("top", "1; drop")])).is_err());
        let err = bind(&query(), &given(&[("top", "-1")])).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("q: --param top=-1: expected a whole number, 0 or more"), "{err}");
        assert!(bind(&query(), &given(&[("top", "0")])).is_ok());
    }

    #[test]
    fn text_is_quoted_with_quotes_doubled() {
        let p = Param { name: "u".into(), kind: ParamKind::Text, default: String::new(), doc: String::new() };
        assert_eq!(p.literal("o'brien").unwrap(), "'o''brien'");
    }
}
