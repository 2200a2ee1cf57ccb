//! A small SQL tokenizer: just enough to see where identifiers, string
//! literals, comments and `$parameters` are. The read-only guard, parameter
//! substitution and error positions all need to tell `'drop'` (a string) from
//! `drop` (a keyword) and `"group"` (an identifier); the engine parses the query
//! itself, so this never has to understand grammar.

/// What a token is; text and position are in [`Token`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An unquoted word: a keyword or an identifier.
    Word,
    /// A `"double-quoted"` or `` `backquoted` `` identifier.
    QuotedIdent,
    /// A `'single-quoted'` string literal.
    Str,
    Number,
    /// `$name`: a named-query parameter.
    Param,
    /// Any other single character (`(`, `;`, `,`, `.`, operators).
    Punct,
}

/// One token with its byte range in the query text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn text<'a>(&self, sql: &'a str) -> &'a str {
        &sql[self.start..self.end]
    }

    /// The identifier or keyword this token names, without quotes; `None`
    /// for literals and punctuation.
    pub fn ident(&self, sql: &str) -> Option<String> {
        let t = self.text(sql);
        match self.kind {
            Kind::Word => Some(t.to_string()),
            Kind::QuotedIdent => {
                let q = &t[..1];
                let inner = t.strip_prefix(q).map_or(t, |s| s.strip_suffix(q).unwrap_or(s));
                Some(inner.replace(&format!("{q}{q}"), q))
            }
            _ => None,
        }
    }

    /// Whether this is the keyword `kw` (case-insensitive, unquoted).
    pub fn is_word(&self, sql: &str, kw: &str) -> bool {
        self.kind == Kind::Word && self.text(sql).eq_ignore_ascii_case(kw)
    }
}

/// Splits `sql` into tokens, skipping whitespace and comments. An
/// unterminated literal or comment runs to the end of the text (the engine
/// reports it).
pub fn tokenize(sql: &str) -> Vec<Token> {
    let b = sql.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = match c {
            _ if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = find_from(b, i, b"\n").map_or(b.len(), |p| p + 1);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = find_from(b, i + 2, b"*/").map_or(b.len(), |p| p + 2);
                continue;
            }
            b'\'' => {
                i = quoted_end(b, i, b'\'');
                Kind::Str
            }
            b'"' | b'`' => {
                i = quoted_end(b, i, c);
                Kind::QuotedIdent
            }
            b'$' if b.get(i + 1).is_some_and(|&n| is_word_start(n)) => {
                i = word_end(b, i + 1);
                Kind::Param
            }
            _ if is_word_start(c) => {
                i = word_end(b, i);
                Kind::Word
            }
            _ if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) => {
                i = number_end(b, i);
                Kind::Number
            }
            _ => {
                // One whole character, even when it is multi-byte UTF-8.
                i += sql[i..].chars().next().map_or(1, char::len_utf8);
                Kind::Punct
            }
        };
        tokens.push(Token { kind, start, end: i });
    }
    tokens
}

fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

fn word_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (is_word_start(b[i]) || b[i].is_ascii_digit()) {
        i += 1;
    }
    i
}

fn number_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
        // An exponent sign belongs to the number: 1e-9.
        let exp_sign = matches!(b[i], b'e' | b'E') && matches!(b.get(i + 1), Some(b'+' | b'-'));
        i += if exp_sign { 2 } else { 1 };
    }
    i
}

/// End (exclusive) of a literal opened by `q` at `i`; a doubled quote is an
/// escaped quote.
fn quoted_end(b: &[u8], mut i: usize, q: u8) -> usize {
    i += 1;
    while i < b.len() {
        if b[i] == q {
            if b.get(i + 1) == Some(&q) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    b.len()
}

fn find_from(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

/// 1-based line and column (in characters) of byte offset `at`, and the text
/// of that line: for error messages with a caret.
pub fn line_col(sql: &str, at: usize) -> (usize, usize, &str) {
    let before = &sql[..at];
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let line_end = sql[at..].find('\n').map_or(sql.len(), |p| at + p);
    let line = before.matches('\n').count() + 1;
    let col = sql[line_start..at].chars().count() + 1;
    (line, col, sql[line_start..line_end].trim_end_matches('\r'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(sql: &str) -> Vec<(Kind, String)> {
        tokenize(sql).iter().map(|t| (t.kind, t.text(sql).to_string())).collect()
    }

    #[test]
    fn strings_comments_and_quoted_identifiers_are_not_words() {
        let sql = "select 'drop ''x''', \"group\" -- delete\n/* insert */ from t where a = $trace;";
        let k = kinds(sql);
        assert_eq!(k[0], (Kind::Word, "select".into()));
        assert_eq!(k[1], (Kind::Str, "'drop ''x'''".into()));
        assert_eq!(k[3], (Kind::QuotedIdent, "\"group\"".into()));
        assert_eq!(k[4], (Kind::Word, "from".into()));
        assert!(k.contains(&(Kind::Param, "$trace".into())));
        assert!(!k.iter().any(|(_, t)| t == "delete" || t == "insert"));
        assert_eq!(tokenize(sql)[3].ident(sql).as_deref(), Some("group"));
    }

    #[test]
    fn numbers_keep_their_exponent_and_casts_are_punctuation() {
        assert_eq!(kinds("1e-9 + x::int")[0], (Kind::Number, "1e-9".into()));
        assert_eq!(kinds("x::int")[1], (Kind::Punct, ":".into()));
    }

    #[test]
    fn line_and_column_of_an_offset() {
        let sql = "select a\nfrom  bad";
        assert_eq!(line_col(sql, sql.find("bad").unwrap()), (2, 7, "from  bad"));
    }
}
