//! The ceilings of a query: what bounds the work a query text can ask for
//! before it is parsed, and the memory it may use while it runs.
//!
//! - **Text length** ([`Limits::max_text_bytes`], 1 MiB): a longer text is
//!   refused before it is read any further.
//! - **Expression depth** ([`Limits::max_depth`], 1,000): counted on the
//!   tokens, before the parser builds anything. A chain of operators
//!   (`1+1+1...`, `a OR b OR c ...`) parses into a tree as deep as the chain
//!   is long, and every later step of planning walks that tree recursively:
//!   10 KB of `1+1+...` overflowed the stack (the process aborted) under the
//!   previous engine. The count is the operators in a row at each level of
//!   parentheses, plus one per level, summed over the open levels; a comma
//!   or a clause keyword (WHERE, THEN, ...) starts a new chain. It is an
//!   upper bound of the tree's depth, so a query under it plans safely on
//!   [`PLANNER_STACK_BYTES`] of stack.
//! - **Text values** that string functions build ([`STRING_VALUE_BYTES`] per
//!   value, [`STRING_BATCH_BYTES`] per batch of rows): see `strings`.
//! - **Memory** ([`Limits::memory_limit`]): the pool of DataFusion's
//!   operators that hold rows (sorts, grouping, joins, windows). Past it a
//!   sort or a grouping spills to temporary files instead of failing; the
//!   default is half the memory of the machine (or of its cgroup).
//!
//! This module only measures and refuses; it does not change the query.

use super::lex::{self, Kind};
use super::QueryError;

/// The most bytes a text value built by a string function may have.
pub const STRING_VALUE_BYTES: u64 = 16 << 20;

/// The most bytes a string function may build for one batch of rows.
pub const STRING_BATCH_BYTES: u64 = 256 << 20;

/// Stack of the thread that plans and runs a query. Reserved, not used:
/// the kernel gives a stack page only when it is touched, and a query
/// under [`Limits::max_depth`] touches a small part of it.
pub const PLANNER_STACK_BYTES: usize = 256 << 20;

/// The ceilings of one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of query text.
    pub max_text_bytes: usize,
    /// Expression depth, counted as the module documentation says.
    pub max_depth: usize,
    /// Bytes of the memory pool of DataFusion's operators.
    pub memory_limit: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_text_bytes: 1 << 20, max_depth: 1000, memory_limit: default_memory_limit() }
    }
}

/// Half the machine's memory, or of the cgroup's limit when that is lower;
/// 4 GiB when neither can be read (not Linux).
pub fn default_memory_limit() -> u64 {
    let total = meminfo_total().unwrap_or(8 << 30);
    let cgroup = cgroup_limit().unwrap_or(u64::MAX);
    (total.min(cgroup) / 2).max(64 << 20)
}

fn meminfo_total() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn cgroup_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/sys/fs/cgroup/memory.max").ok()?;
    text.trim().parse().ok()
}

/// Parses a size such as `2GiB`, `512MB`, `1.5g` or `800000000` (bytes).
/// Units are binary whatever their spelling (k, KB, KiB are 1024).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().map_err(|_| format!("`{text}`: expected a size such as 2GiB or 512MiB"))?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => return Err(format!("`{text}`: unknown unit `{other}` (use KiB, MiB, GiB or TiB)")),
    };
    let bytes = value * scale as f64;
    if !(1.0..=u64::MAX as f64).contains(&bytes) {
        return Err(format!("`{text}`: expected a size of at least one byte"));
    }
    Ok(bytes as u64)
}

/// A size in the largest binary unit that keeps it at least 1, for messages.
pub fn show_bytes(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    match UNITS.iter().find(|(_, size)| bytes >= *size) {
        Some((unit, size)) => {
            let value = bytes as f64 / *size as f64;
            if value.fract() == 0.0 {
                format!("{value} {unit}")
            } else {
                format!("{value:.1} {unit}")
            }
        }
        None => format!("{bytes} bytes"),
    }
}

/// Refuses a text over the length or depth ceiling, underlining where the
/// depth passes it.
pub(crate) fn check_text(sql: &str, limits: &Limits) -> Result<(), QueryError> {
    if sql.len() > limits.max_text_bytes {
        return Err(QueryError::plain(format!(
            "the query is {} long; tracelab reads queries of at most {}",
            show_bytes(sql.len() as u64),
            show_bytes(limits.max_text_bytes as u64)
        ))
        .with_hint("filter with a join against a smaller query, or split the query into several"));
    }
    let tokens = lex::tokenize(sql);
    match deepest(sql, &tokens, limits.max_depth) {
        Some(i) => Err(QueryError::at(
            sql,
            &tokens[i],
            format!(
                "the expression is nested deeper than tracelab's ceiling of {} levels (operators in a row plus \
                 parentheses) at this point",
                limits.max_depth
            ),
        )
        .with_hint("write a long chain of OR-ed equalities as x IN (a, b, c), and a long sum with fewer terms")),
        None => Ok(()),
    }
}

/// Words that start a new expression: the operators before them do not
/// nest what follows.
const CLAUSES: &[&str] = &[
    "select",
    "from",
    "where",
    "group",
    "having",
    "order",
    "limit",
    "offset",
    "on",
    "using",
    "union",
    "intersect",
    "except",
    "with",
    "window",
    "qualify",
    "then",
    "else",
    "when",
    "end",
    "as",
    "by",
    "join",
    "case",
];

/// Words that are binary operators of a chain.
const WORD_OPERATORS: &[&str] = &["and", "or", "is", "like", "ilike"];

/// The index of the first token where the depth estimate passes `max`.
fn deepest(sql: &str, tokens: &[lex::Token], max: usize) -> Option<usize> {
    // Operators in a row at each open level of parentheses.
    let mut levels: Vec<usize> = vec![0];
    let mut depth = 1;
    let mut previous_operand = false;
    for (i, t) in tokens.iter().enumerate() {
        let text = t.text(sql);
        let word = (t.kind == Kind::Word).then(|| text.to_ascii_lowercase());
        match (t.kind, text) {
            (Kind::Punct, "(") => {
                levels.push(0);
                depth += 1;
                previous_operand = false;
            }
            (Kind::Punct, ")") => {
                if levels.len() > 1 {
                    depth -= 1 + levels.pop().unwrap_or(0);
                }
                previous_operand = true;
            }
            (Kind::Punct, "," | ";") => {
                depth -= std::mem::take(levels.last_mut().expect("one level at least"));
                previous_operand = false;
            }
            (Kind::Punct, _) => {
                // A binary operator follows an operand; the second character
                // of `<=`, `||` or `::` and a unary minus do not.
                if previous_operand {
                    *levels.last_mut().expect("one level at least") += 1;
                    depth += 1;
                }
                previous_operand = false;
            }
            _ if word.as_deref().is_some_and(|w| CLAUSES.contains(&w)) => {
                depth -= std::mem::take(levels.last_mut().expect("one level at least"));
                previous_operand = false;
            }
            _ if word.as_deref().is_some_and(|w| WORD_OPERATORS.contains(&w)) => {
                *levels.last_mut().expect("one level at least") += 1;
                depth += 1;
                previous_operand = false;
            }
            _ => previous_operand = true,
        }
        if depth > max {
            return Some(i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_error(sql: &str, max: usize) -> Option<String> {
        let limits = Limits { max_depth: max, ..Limits::default() };
        check_text(sql, &limits).err().map(|e| e.to_string())
    }

    #[test]
    fn a_chain_of_operators_counts_each_operator() {
        // 1 + 1 + 1: two operators at the top level, depth 1 + 2 = 3.
        assert_eq!(depth_error("SELECT 1 + 1 + 1", 3), None);
        assert!(depth_error("SELECT 1 + 1 + 1", 2).is_some());
        // Each parenthesis opens a level: ((1)) is depth 3.
        assert_eq!(depth_error("SELECT ((1))", 3), None);
        assert!(depth_error("SELECT ((1))", 2).is_some());
        // a = 1 OR a = 2: `=`, OR, `=`, three operators in a row.
        assert_eq!(depth_error("SELECT 1 FROM t WHERE a = 1 OR a = 2", 4), None);
        assert!(depth_error("SELECT 1 FROM t WHERE a = 1 OR a = 2", 3).is_some());
    }

    #[test]
    fn lists_and_clauses_start_new_chains() {
        let list = format!("SELECT 1 FROM t WHERE a IN ({})", vec!["1"; 5000].join(", "));
        assert_eq!(depth_error(&list, 10), None);
        let clauses = "SELECT a + b + c FROM t WHERE a + b + c > 0 ORDER BY a + b + c";
        assert_eq!(depth_error(clauses, 5), None);
        // `<=`, `||` and `::` are one operator each, a unary minus none.
        assert_eq!(depth_error("SELECT -a <= b || c::text", 4), None);
    }

    #[test]
    fn the_ten_kilobyte_chain_of_the_issue_is_refused_where_it_passes_the_ceiling() {
        let sql = format!("SELECT 1{}", "+1".repeat(5000));
        let err = depth_error(&sql, 1000).unwrap();
        assert!(err.contains("deeper than tracelab's ceiling of 1000 levels"), "{err}");
        // The 1000th `+` is where the depth reaches 1001; the first is at
        // column 9, each next one 2 columns on.
        assert!(err.contains(&format!("column {}", 9 + 2 * 999)), "{err}");
        let ors = format!("SELECT 1 FROM jobs WHERE {}", vec!["job_id = 'x'"; 2000].join(" OR "));
        assert!(depth_error(&ors, 1000).unwrap().contains("x IN (a, b, c)"));
    }

    #[test]
    fn a_long_text_is_refused_before_it_is_read() {
        let limits = Limits { max_text_bytes: 100, ..Limits::default() };
        let err = check_text(&format!("SELECT '{}'", "x".repeat(200)), &limits).unwrap_err().to_string();
        assert!(err.contains("the query is 209 bytes long; tracelab reads queries of at most 100 bytes"), "{err}");
    }

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_bytes("2GiB"), Ok(2 << 30));
        assert_eq!(parse_bytes("512 MB"), Ok(512 << 20));
        assert_eq!(parse_bytes("1.5g"), Ok(3 << 29));
        assert_eq!(parse_bytes("800"), Ok(800));
        assert!(parse_bytes("lots").is_err() && parse_bytes("2 PB").is_err() && parse_bytes("0").is_err());
        assert_eq!(show_bytes(16 << 20), "16 MiB");
        assert_eq!(show_bytes(3 << 29), "1.5 GiB");
        assert_eq!(show_bytes(210), "210 bytes");
    }
}
