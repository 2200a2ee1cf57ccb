//! A query as a user asks it, the one path every front end takes (`tracelab
//! query`, the Python package's `Store.query`): text that is a named query's
//! name or SQL, its parameters bound, the tables it declares checked against
//! the store, then run. Reading a `-f` file and printing stay with the caller.

use std::collections::BTreeMap;

use tracelab_schema::error::{Error, Result};
use tracelab_store::Store;

use crate::{catalog, params, Answer, Engine, Limits, NamedQuery};

/// `text` as a named query if it names one, else as ad hoc SQL. A single
/// word that names no query is a usage error listing the named queries
/// (it was meant as a name, not as SQL).
pub fn named_or_sql(text: &str) -> Result<NamedQuery> {
    if let Some(q) = catalog::find(text)? {
        return Ok(q);
    }
    if looks_like_a_name(text) {
        let names: Vec<String> = catalog::bundled()?.into_iter().map(|q| q.name).collect();
        return Err(Error::Usage(format!(
            "no named query `{text}`; the named queries are: {} (SQL text needs at least SELECT ... FROM ...)",
            names.join(", ")
        )));
    }
    NamedQuery::parse("query", "query", text)
}

/// Runs `query` with the parameters `given` over `store` under `limits`:
/// its rows as Arrow record batches and its notes.
pub fn answer(store: &Store, query: &NamedQuery, given: &BTreeMap<String, String>, limits: Limits) -> Result<Answer> {
    let sql = params::bind(query, given)?;
    require_tables(query, store)?;
    Engine::new(store)?.with_limits(limits).run(&query.source, &sql)
}

/// A word without spaces (`top-users`) is meant as a name, not as SQL.
fn looks_like_a_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A named query's declared tables must be in the store; say which trace
/// to ingest rather than fail inside the SQL.
fn require_tables(query: &NamedQuery, store: &Store) -> Result<()> {
    let present: Vec<&str> = store.tables().iter().map(|t| t.table.sql_name()).collect();
    let missing: Vec<&str> = query.tables.iter().map(String::as_str).filter(|t| !present.contains(t)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::input(
        &query.source,
        format!(
            "needs {} which {} does not hold; ingest the trace(s) first. Tables in this store: {}",
            missing.join(", "),
            store.root().display(),
            present.join(", ")
        ),
    ))
}
