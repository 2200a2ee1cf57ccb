//! Header rows read by name, for files whose columns are known by name but
//! not reliably by position (AcmeTrace and the spot-GPU trace: their
//! READMEs list the node columns in another order than the file has, and
//! the job files could not be checked against a copy). The header must name
//! every expected column exactly once and nothing else; the parser then
//! finds each column through [`Columns::at`].

use super::csv::short;
use tracelab_schema::error::{Error, Result};

/// Where each expected column sits in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    /// The header's names, in file order (rejects name the column by these).
    pub names: Vec<String>,
    /// For expected column `i`, its position in the file.
    at: Vec<usize>,
}

impl Columns {
    /// Maps `header` (the file's first line) onto `expected`.
    pub fn map(label: &str, header: &str, expected: &[&str]) -> Result<Columns> {
        let names: Vec<String> = header.split(',').map(|n| n.trim().to_string()).collect();
        let layout = |problem: String| {
            Error::input(
                label,
                format!(
                    "unknown layout: {problem}; expected a header naming {} (any order), found `{}`",
                    expected.join(", "),
                    short(header)
                ),
            )
        };
        // A missing column first: a renamed one (`wait` for `queue`) is
        // then reported by the name the user must supply.
        let mut at = Vec::with_capacity(expected.len());
        for want in expected {
            let found: Vec<usize> = (0..names.len()).filter(|&i| names[i] == *want).collect();
            match found.as_slice() {
                [i] => at.push(*i),
                [] => return Err(layout(format!("no column `{want}`"))),
                _ => return Err(layout(format!("column `{want}` twice"))),
            }
        }
        if let Some(extra) = names.iter().find(|n| !expected.contains(&n.as_str())) {
            return Err(layout(format!("unknown column `{}`", short(extra))));
        }
        Ok(Columns { names, at })
    }

    /// The file position of expected column `i`.
    pub fn at(&self, i: usize) -> usize {
        self.at[i]
    }

    /// The header's names as the CSV layout takes them.
    pub fn name_refs(&self) -> Vec<&str> {
        self.names.iter().map(String::as_str).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WANT: [&str; 3] = ["a", "b", "c"];

    #[test]
    fn any_order_maps_by_name() {
        let c = Columns::map("f.csv", "c,a,b", &WANT).unwrap();
        assert_eq!((c.at(0), c.at(1), c.at(2)), (1, 2, 0));
        assert_eq!(c.name_refs(), ["c", "a", "b"]);
    }

    #[test]
    fn missing_unknown_and_repeated_columns_name_the_column() {
        let err = |h: &str| Columns::map("f.csv", h, &WANT).unwrap_err().to_string();
        assert!(err("a,b").contains("no column `c`"), "{}", err("a,b"));
        assert!(err("a,b,c,d").contains("unknown column `d`"));
        assert!(err("a,b,c,a").contains("column `a` twice"));
        assert!(err("a,d,c").contains("no column `b`"), "a renamed column is named by what is missing");
        assert!(err("a,b").starts_with("f.csv: unknown layout"));
    }
}
