//! The named-query catalog: the `.sql` files of `queries/`, compiled into
//! the binary so `tracelab query <name>` works wherever it is installed, and
//! their header comments parsed into name, question, tables and parameters.
//!
//! Header grammar (leading `--` lines; an indented `--   ...` line continues
//! the field above it):
//!
//! ```sql
//! -- name: top-users-by-gpu-hours   (bundled queries: must equal the file stem)
//! -- question: Which users used the most GPU-hours?
//! -- tables: jobs                               (the tables it reads)
//! -- param: trace pai|philly|helios = helios: the trace to rank users of
//! -- param: top int = 10: how many users
//! -- note: anything else a reader should know (caveats)
//! ```
//!
//! A parameter's kind is `int`, `float`, `text` or a `|`-separated list of
//! allowed values; the query refers to it as `$name` (DuckDB's named
//! parameter syntax, so the files also run there with parameters bound).

use tracelab_schema::error::{Error, Result};

/// The bundled named queries: (file stem, text).
macro_rules! bundled {
    ($($stem:literal),* $(,)?) => {
        &[$(($stem, include_str!(concat!("../../../queries/", $stem, ".sql")))),*]
    };
}

/// Every file of `queries/`; a test checks this list against the folder.
pub const BUNDLED: &[(&str, &str)] = bundled!(
    "top-users-by-gpu-hours",
    "philly-gpu-hours-by-vc",
    "helios-usage-by-vc",
    "helios-failure-rate-by-gpus",
    "outcomes-by-gpus",
    "queue-delay-by-vc",
    "queue-delay-by-hour",
    "busiest-windows",
    "most-retried-jobs",
    "instances-over-request",
    "machines-by-load",
    "workload-resource-use",
    "trace-overview",
);

/// A query with its header parsed.
#[derive(Debug, Clone)]
pub struct NamedQuery {
    pub name: String,
    /// Where the text came from, for messages: `queries/<name>.sql` or a path.
    pub source: String,
    pub question: String,
    pub tables: Vec<String>,
    pub params: Vec<Param>,
    pub note: String,
    /// The whole file, header included (comments are valid SQL).
    pub sql: String,
}

/// A declared parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    pub default: String,
    pub doc: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamKind {
    Int,
    Float,
    Text,
    OneOf(Vec<String>),
}

impl ParamKind {
    fn parse(s: &str) -> ParamKind {
        match s {
            "int" => ParamKind::Int,
            "float" => ParamKind::Float,
            "text" => ParamKind::Text,
            _ => ParamKind::OneOf(s.split('|').map(str::to_string).collect()),
        }
    }
}

impl std::fmt::Display for ParamKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamKind::Int => f.write_str("int"),
            ParamKind::Float => f.write_str("float"),
            ParamKind::Text => f.write_str("text"),
            ParamKind::OneOf(v) => f.write_str(&v.join("|")),
        }
    }
}

impl Param {
    /// `trace (pai|philly|helios, default helios)`, for listings and errors.
    pub fn summary(&self) -> String {
        format!("{} ({}, default {})", self.name, self.kind, self.default)
    }

    /// The SQL literal for `value` of this parameter, or why the value is
    /// not allowed.
    pub fn literal(&self, value: &str) -> std::result::Result<String, String> {
        match &self.kind {
            ParamKind::Int => {
                value.trim().parse::<i64>().map(|n| n.to_string()).map_err(|_| "expected an integer".into())
            }
            ParamKind::Float => match value.trim().parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(format!("{x:?}")),
                _ => Err("expected a number".into()),
            },
            ParamKind::Text => Ok(quote(value)),
            ParamKind::OneOf(allowed) if allowed.iter().any(|a| a == value) => Ok(quote(value)),
            ParamKind::OneOf(allowed) => Err(format!("expected one of {}", allowed.join(", "))),
        }
    }
}

/// A SQL string literal: single quotes, embedded quotes doubled.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The bundled queries, sorted by name.
pub fn bundled() -> Result<Vec<NamedQuery>> {
    let mut all = BUNDLED
        .iter()
        .map(|(stem, text)| {
            let source = format!("queries/{stem}.sql");
            let q = NamedQuery::parse(&source, stem, text)?;
            if q.name != *stem {
                // `tracelab query <name>` finds the file by its stem.
                return Err(Error::input(source, format!("the header names `{}`; it must be the file stem", q.name)));
            }
            Ok(q)
        })
        .collect::<Result<Vec<_>>>()?;
    all.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(all)
}

/// The keys of a query file's header (`-- key: value` lines at the top).
const HEADER_KEYS: &[&str] = &["name", "question", "tables", "param", "note"];

/// The bundled query called `name`, if any.
pub fn find(name: &str) -> Result<Option<NamedQuery>> {
    Ok(bundled()?.into_iter().find(|q| q.name == name))
}

impl NamedQuery {
    /// Parses a query file; `stem` is its file name without `.sql`. A file
    /// without a header is a query without parameters. In the leading
    /// comment lines, a line that starts with a header key (`-- name:`,
    /// `question:`, `tables:`, `param:`, `note:`) is a field and
    /// an indented one continues it; any other comment is a comment, so an
    /// ad hoc file may start with `-- jobs per VC` or `-- TODO: ...`.
    pub fn parse(source: &str, stem: &str, text: &str) -> Result<NamedQuery> {
        let mut q = NamedQuery {
            name: stem.to_string(),
            source: source.to_string(),
            question: String::new(),
            tables: Vec::new(),
            params: Vec::new(),
            note: String::new(),
            sql: text.to_string(),
        };
        let bad = |line: usize, what: String| Error::input(source, format!("header line {line}: {what}"));
        let mut last: Option<&str> = None;
        for (i, line) in text.lines().enumerate().take_while(|(_, l)| l.trim_start().starts_with("--")) {
            let body = line.trim_start().trim_start_matches('-');
            if body.trim().is_empty() {
                continue;
            }
            if body.starts_with("  ") {
                if let Some(field) = last {
                    q.append(field, body.trim());
                }
                continue;
            }
            let (key, value) = body.trim().split_once(':').unwrap_or(("", ""));
            let key = key.trim();
            if !HEADER_KEYS.contains(&key) {
                last = None; // a comment; an indented line after it is one too
                continue;
            }
            q.set(key, value.trim()).map_err(|e| bad(i + 1, e))?;
            last = Some(match key {
                "question" => "question",
                "note" => "note",
                "param" => "param",
                _ => "other",
            });
        }
        Ok(q)
    }

    fn set(&mut self, key: &str, value: &str) -> std::result::Result<(), String> {
        match key {
            "name" => self.name = value.to_string(),
            "question" => self.question = value.to_string(),
            "note" => self.note = value.to_string(),
            "tables" => {
                self.tables = value.split(',').map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect()
            }
            "param" => self.params.push(parse_param(value)?),
            _ => unreachable!("parse passes only HEADER_KEYS"),
        }
        Ok(())
    }

    fn append(&mut self, field: &str, more: &str) {
        let target = match field {
            "question" => &mut self.question,
            "note" => &mut self.note,
            "param" => match self.params.last_mut() {
                Some(p) => &mut p.doc,
                None => return,
            },
            _ => return,
        };
        target.push(' ');
        target.push_str(more);
    }

    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// `trace pai|philly|helios = helios: the trace to rank`.
fn parse_param(value: &str) -> std::result::Result<Param, String> {
    let expected = "expected `param: <name> <int|float|text|a|b|c> = <default>: <what it is>`";
    let (decl, doc) = value.split_once(':').ok_or(expected)?;
    let (lhs, default) = decl.split_once('=').ok_or(expected)?;
    let mut words = lhs.split_whitespace();
    let (Some(name), Some(kind), None) = (words.next(), words.next(), words.next()) else {
        return Err(expected.into());
    };
    let param = Param {
        name: name.to_string(),
        kind: ParamKind::parse(kind),
        default: default.trim().to_string(),
        doc: doc.trim().to_string(),
    };
    param.literal(&param.default).map_err(|e| format!("default of `{name}`: {e}"))?;
    Ok(param)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "-- name: q\n-- question: Which\n--   users?\n-- tables: jobs, pai_jobs\n\
        -- param: trace pai|philly = pai: the trace\n--   to rank\n-- param: top int = 5: how many\nSELECT 1\n";

    #[test]
    fn the_header_gives_name_question_tables_and_params() {
        let q = NamedQuery::parse("q.sql", "q", HEADER).unwrap();
        assert_eq!(q.question, "Which users?");
        assert_eq!(q.tables, ["jobs", "pai_jobs"]);
        assert_eq!(q.params[0].kind, ParamKind::OneOf(vec!["pai".into(), "philly".into()]));
        assert_eq!(q.params[0].doc, "the trace to rank");
        assert_eq!(q.params[1].summary(), "top (int, default 5)");
    }

    #[test]
    fn a_bad_header_names_the_line() {
        let err = NamedQuery::parse("q.sql", "q", "-- name: q\n-- param: top int = many: n\nSELECT 1").unwrap_err();
        assert!(err.to_string().contains("header line 2: default of `top`"), "{err}");
    }

    /// `-- engine:` chose a Polars engine before DataFusion; it is an
    /// ordinary comment now, so an old file still runs.
    #[test]
    fn an_engine_line_is_a_comment() {
        let q = NamedQuery::parse("q.sql", "q", "-- name: q\n-- engine: streaming\nSELECT 1").unwrap();
        assert_eq!((q.name.as_str(), q.note.as_str()), ("q", ""));
    }

    #[test]
    fn other_leading_comments_are_comments() {
        let text = "-- jobs per VC\n--   (a quick look)\n-- TODO: by cluster too\n-- param: top int = 3: n\n\
                    --   rows\nSELECT 1";
        let q = NamedQuery::parse("q.sql", "q", text).unwrap();
        assert_eq!(q.params.len(), 1);
        assert_eq!((q.params[0].name.as_str(), q.params[0].doc.as_str()), ("top", "n rows"));
        assert_eq!(q.question, "");
    }

    /// With free comments allowed, a misspelt key (`-- parm:`) would pass as
    /// a comment: the bundled files' headers hold only keys, continuations
    /// and blank comment lines.
    #[test]
    fn the_bundled_headers_hold_only_their_keys() {
        for (stem, text) in BUNDLED {
            for line in text.lines().take_while(|l| l.starts_with("--")) {
                let body = line.trim_start_matches('-');
                let keyed = HEADER_KEYS.iter().any(|k| body.trim_start().starts_with(&format!("{k}:")));
                assert!(keyed || body.starts_with("  ") || body.trim().is_empty(), "{stem}.sql: {line}");
            }
        }
    }

    #[test]
    fn the_bundled_list_is_exactly_the_files_of_queries() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../queries");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.unwrap().file_name().to_str()?.strip_suffix(".sql").map(str::to_string))
            .collect();
        let mut listed: Vec<String> = BUNDLED.iter().map(|(s, _)| s.to_string()).collect();
        files.sort();
        listed.sort();
        assert_eq!(files, listed, "add the new file to catalog::BUNDLED");
    }

    #[test]
    fn every_bundled_query_has_a_question_and_tables_and_uses_only_its_params() {
        for q in bundled().unwrap() {
            assert!(!q.question.is_empty() && !q.tables.is_empty(), "{}", q.name);
            let used = super::super::params::used(&q.sql);
            let mut declared: Vec<String> = q.params.iter().map(|p| p.name.clone()).collect();
            declared.sort();
            assert_eq!(used, declared, "{}: $parameters used vs declared", q.name);
        }
    }

    #[test]
    fn every_bundled_query_declares_exactly_the_store_tables_it_reads() {
        let known: Vec<&str> = tracelab_schema::all_tables().iter().map(|t| t.sql_name()).collect();
        for q in bundled().unwrap() {
            let sql = super::super::params::bind(&q, &Default::default()).unwrap();
            let tables = crate::every_schema_table();
            let checked = crate::guard::check(&sql, &tables).unwrap_or_else(|e| panic!("{}: {e}", q.name));
            let mut read: Vec<String> = checked
                .reads
                .iter()
                .map(|t| t.table.sql_name().to_string())
                .filter(|t| known.contains(&t.as_str()))
                .collect();
            let mut declared = q.tables.clone();
            read.sort();
            declared.sort();
            assert_eq!(read, declared, "{}: `-- tables:` vs the tables in its SQL", q.name);
        }
    }
}
