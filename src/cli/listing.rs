//! The `--list` table of `analyze`, `query` (and later `simulate`): one row
//! per named thing with the same columns everywhere, written in any
//! `--format` like every other result. Columns no entry fills are left out.

use tracelab_present::{Table, Value};

/// A declared parameter, as every listing spells it.
pub struct ParamDoc {
    pub name: String,
    /// `int`, `a|b|c`, `duration`, ...
    pub kind: String,
    pub default: String,
}

/// One listed thing.
pub struct Entry {
    pub name: String,
    /// The trace it reads (`pai`, `cross`, ...), when it has one.
    pub scope: String,
    /// The paper figure or notebook cell it mirrors.
    pub mirrors: String,
    /// The store tables it reads.
    pub tables: Vec<String>,
    pub params: Vec<ParamDoc>,
    /// One line: what it computes or answers.
    pub summary: String,
}

impl ParamDoc {
    /// `trace (pai|philly|helios, default helios)`.
    pub fn spelled(&self) -> String {
        format!("{} ({}, default {})", self.name, self.kind, self.default)
    }
}

/// How a column's text is taken from an entry.
type Getter = fn(&Entry) -> String;

/// The entries as a table: name, scope, mirrors, tables, params, summary.
pub fn table(entries: &[Entry]) -> Table {
    let columns: [(&str, Getter); 6] = [
        ("name", |e| e.name.clone()),
        ("scope", |e| e.scope.clone()),
        ("mirrors", |e| e.mirrors.clone()),
        ("tables", |e| e.tables.join(", ")),
        ("params", |e| e.params.iter().map(ParamDoc::spelled).collect::<Vec<_>>().join("; ")),
        ("summary", |e| e.summary.clone()),
    ];
    let used: Vec<_> = columns.iter().filter(|(_, get)| entries.iter().any(|e| !get(e).is_empty())).collect();
    let mut t = Table::of_text(&used.iter().map(|c| c.0).collect::<Vec<_>>());
    for e in entries {
        t.push(used.iter().map(|(_, get)| Value::Text(get(e))).collect());
    }
    t
}
