//! Read-only enforcement: a query may only read the store's registered
//! tables. Polars' SQL engine never writes files, but it does execute a few
//! statements that are not queries (CREATE TABLE, DROP TABLE, DELETE,
//! TRUNCATE act on its in-memory catalog) and table functions that read any
//! file on disk (`read_csv`, `read_parquet`, `read_ipc`, `read_json`). So the
//! text is checked before it reaches the engine:
//!
//! - one statement, starting with `SELECT`, `WITH` or `(`;
//! - none of the data-changing or session keywords below as a bare word
//!   (quoted identifiers and string literals are fine: `"update"`, `'drop'`);
//! - no call of a file-reading table function (`read_*`, `scan_*` and the
//!   DuckDB spellings), so FROM can only name tables, CTEs and subqueries.

use super::lex::{self, Kind, Token};
use super::QueryError;

/// Keywords that only occur in statements that change data, the catalog or
/// the session. A SELECT never needs them unquoted.
const WRITE_KEYWORDS: &[&str] = &[
    "insert", "update", "delete", "merge", "upsert", "create", "drop", "alter", "truncate", "copy", "into", "attach",
    "detach", "install", "load", "pragma", "export", "import", "call", "grant", "revoke", "set", "vacuum",
];

/// Table functions (Polars' and DuckDB's) that read files named in the query.
const FILE_FUNCTIONS: &[&str] = &["parquet_scan", "csv_scan", "glob", "sniff_csv", "query_table"];

/// Checks that `sql` is a single read-only query; the error points at the
/// offending token.
pub fn check(sql: &str) -> Result<(), QueryError> {
    let tokens = lex::tokenize(sql);
    let Some(first) = tokens.first() else {
        return Err(QueryError::plain("the query is empty"));
    };
    if !(first.is_word(sql, "select") || first.is_word(sql, "with") || first.text(sql) == "(") {
        return Err(QueryError::at(
            sql,
            first,
            format!("only SELECT (or WITH ... SELECT) queries are allowed; found `{}`", first.text(sql)),
        ));
    }
    check_single_statement(sql, &tokens)?;
    for (i, t) in tokens.iter().enumerate() {
        if t.kind != Kind::Word {
            continue;
        }
        let word = t.text(sql).to_ascii_lowercase();
        if WRITE_KEYWORDS.contains(&word.as_str()) {
            return Err(QueryError::at(
                sql,
                t,
                format!("queries are read-only: `{}` is not allowed (quote it if it is a column name)", t.text(sql)),
            ));
        }
        let called = tokens.get(i + 1).is_some_and(|n| n.text(sql) == "(");
        if called && reads_files(&word) {
            return Err(QueryError::at(
                sql,
                t,
                format!("`{}` reads files; a query can only read the store's tables", t.text(sql)),
            ));
        }
    }
    Ok(())
}

fn reads_files(function: &str) -> bool {
    function.starts_with("read_") || function.starts_with("scan_") || FILE_FUNCTIONS.contains(&function)
}

/// Trailing semicolons are fine; anything after one is a second statement.
fn check_single_statement(sql: &str, tokens: &[Token]) -> Result<(), QueryError> {
    let semi = tokens.iter().position(|t| t.text(sql) == ";");
    match semi.and_then(|p| tokens[p..].iter().find(|t| t.text(sql) != ";")) {
        Some(extra) => Err(QueryError::at(sql, extra, "one statement at a time: remove the text after `;`".into())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(sql: &str) -> String {
        check(sql).expect_err(sql).to_string()
    }

    #[test]
    fn selects_and_ctes_pass() {
        check("SELECT 1").unwrap();
        check("  with t as (select * from jobs) select count(*) from t;\n").unwrap();
        check("(select 1) union all (select 2)").unwrap();
        check("select \"update\", 'drop table x' from jobs -- delete\n").unwrap();
        check("select replace(\"group\", 'a', 'b') from jobs").unwrap();
    }

    #[test]
    fn statements_that_change_anything_are_refused() {
        assert!(refused("COPY jobs TO 'x.parquet'").contains("only SELECT"));
        assert!(refused("create table t as select 1").contains("only SELECT"));
        assert!(refused("DROP TABLE jobs").contains("only SELECT"));
        assert!(refused("with t as (select 1) delete from jobs").contains("`delete` is not allowed"));
        assert!(refused("select * into t2 from jobs").contains("`into`"));
        assert!(refused("select 1; drop table jobs").contains("one statement"));
    }

    #[test]
    fn file_reading_table_functions_are_refused() {
        assert!(refused("select * from read_parquet('/etc/x.parquet')").contains("reads files"));
        assert!(refused("select * from READ_CSV ('/etc/passwd')").contains("reads files"));
        assert!(refused("select * from jobs, scan_ndjson('x')").contains("reads files"));
    }
}
