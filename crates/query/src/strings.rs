//! Text values under a ceiling: the string functions that can build a value
//! larger than their inputs, wrapped so that they refuse before they build
//! one over [`STRING_VALUE_BYTES`], or a batch of rows over
//! [`STRING_BATCH_BYTES`].
//!
//! `lpad(x, 300000000, 'y')` asks for 300 MB per row from a short query:
//! the previous engine reached 21 GB on it before the kernel stopped it.
//! Each wrapped function first computes an upper bound of what it will
//! build from its arguments (a pad's target length, a repetition count, the
//! occurrences a replacement can multiply, the inputs a concatenation
//! joins), per row and per batch, and refuses over the ceiling without
//! computing anything; after computing, it checks the values it built as
//! well. `a || b` is planned as the same bounded concatenation
//! (`semantics`), so that no chain of concatenations can double a value
//! past the ceiling either. Functions whose result is never longer than
//! their input (substr, trim, left, ...) are not wrapped; aggregates
//! (string_agg) hold their values in the memory pool, which the memory limit
//! bounds.
//!
//! The wrappers keep the names, signatures and results of DataFusion's
//! functions; they only refuse.

use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, FieldRef, Int64Type};
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

use super::limits::{show_bytes, STRING_BATCH_BYTES, STRING_VALUE_BYTES};

/// How a function's result can grow, for its upper bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Growth {
    /// `lpad(s, n, fill)`, `rpad`: n characters of s or fill.
    Pad,
    /// `repeat(s, n)`: s n times.
    Repeat,
    /// `replace(s, from, to)`: every occurrence of from becomes to.
    Replace,
    /// `regexp_replace(s, pattern, to, ...)`: every match becomes to, whose
    /// `\N` references each insert at most s.
    RegexpReplace,
    /// `concat`, `overlay`, `||`: the sum of the arguments.
    Sum,
    /// `concat_ws(sep, ...)`: the sum and a separator between each two.
    SumWithSeparator,
    /// `to_char(t, format)`: each format character gives at most 16.
    Format,
    /// At most this many times the arguments (case mapping, translate,
    /// encode).
    Scaled(u64),
}

/// The DataFusion functions wrapped, with how they grow.
const WRAPPED: &[(&str, Growth)] = &[
    ("lpad", Growth::Pad),
    ("rpad", Growth::Pad),
    ("repeat", Growth::Repeat),
    ("replace", Growth::Replace),
    ("regexp_replace", Growth::RegexpReplace),
    ("concat", Growth::Sum),
    ("overlay", Growth::Sum),
    ("concat_ws", Growth::SumWithSeparator),
    ("to_char", Growth::Format),
    ("translate", Growth::Scaled(4)),
    ("upper", Growth::Scaled(3)),
    ("lower", Growth::Scaled(3)),
    ("initcap", Growth::Scaled(3)),
    ("encode", Growth::Scaled(2)),
];

/// Names other engines give a wrapped function: `strftime(t, format)` is
/// DuckDB's and SQLite's `to_char` with the same format letters.
const MORE_NAMES: &[(&str, &str)] = &[("to_char", "strftime")];

/// `functions` with the growing ones wrapped (same names).
pub(crate) fn bound(functions: Vec<Arc<ScalarUDF>>) -> Vec<Arc<ScalarUDF>> {
    functions
        .into_iter()
        .map(|f| match WRAPPED.iter().find(|(name, _)| *name == f.name()) {
            Some(&(name, growth)) => {
                let mut aliases = f.aliases().to_vec();
                aliases.extend(MORE_NAMES.iter().filter(|(n, _)| *n == name).map(|(_, a)| a.to_string()));
                Arc::new(ScalarUDF::from(Bounded { inner: f, growth, aliases }))
            }
            None => f,
        })
        .collect()
}

/// A DataFusion function that refuses to build text over the ceilings.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Bounded {
    inner: Arc<ScalarUDF>,
    growth: Growth,
    aliases: Vec<String>,
}

impl ScalarUDFImpl for Bounded {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        self.inner.signature()
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        self.inner.return_field_from_args(args)
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        self.inner.coerce_types(arg_types)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        check(self.name(), &bounds(self.growth, &args.args, rows)?)?;
        let result = self.inner.invoke_with_args(args)?;
        check(self.name(), &lengths(&result, rows))?;
        Ok(result)
    }
}

/// Refuses per-row sizes over the value ceiling or summing over the batch
/// ceiling.
fn check(name: &str, sizes: &[u64]) -> Result<()> {
    if let Some(&largest) = sizes.iter().max().filter(|&&m| m > STRING_VALUE_BYTES) {
        return exec_err!(
            "`{name}` would build a text value of {largest} bytes, over tracelab's ceiling of {} per value",
            show_bytes(STRING_VALUE_BYTES)
        );
    }
    let total = sizes.iter().fold(0u64, |a, &b| a.saturating_add(b));
    if total > STRING_BATCH_BYTES {
        return exec_err!(
            "`{name}` would build {} of text for {} rows, over tracelab's ceiling of {} per batch of rows",
            show_bytes(total),
            sizes.len(),
            show_bytes(STRING_BATCH_BYTES)
        );
    }
    Ok(())
}

/// Upper bounds of the result's bytes, per row.
fn bounds(growth: Growth, args: &[ColumnarValue], rows: usize) -> Result<Vec<u64>> {
    let text = |i: usize| args.get(i).map_or_else(|| vec![None; rows], |a| strs(a, rows));
    let lens = |i: usize| args.get(i).map_or_else(|| vec![0; rows], |a| byte_lengths(a, rows));
    let sums = || {
        let mut total = vec![0u64; rows];
        for a in args {
            for (t, l) in total.iter_mut().zip(byte_lengths(a, rows)) {
                *t = t.saturating_add(l);
            }
        }
        total
    };
    Ok(match growth {
        Growth::Pad => {
            let (s, n) = (text(0), counts(args.get(1), rows)?);
            let fill = if args.len() > 2 { text(2) } else { vec![Some(" "); rows] };
            (0..rows).map(|r| n[r].saturating_mul(widest(s[r]).max(widest(fill[r])))).collect()
        }
        Growth::Repeat => {
            let (s, n) = (lens(0), counts(args.get(1), rows)?);
            s.iter().zip(&n).map(|(l, n)| l.saturating_mul(*n)).collect()
        }
        Growth::Replace => {
            let (s, from, to) = (text(0), text(1), lens(2));
            (0..rows).map(|r| replaced(s[r], from[r], to[r])).collect()
        }
        Growth::RegexpReplace => {
            let (s, to) = (lens(0), text(2));
            (0..rows).map(|r| regexp_replaced(s[r], to[r])).collect()
        }
        Growth::Sum => sums(),
        Growth::SumWithSeparator => {
            let pieces = args.len() as u64;
            sums().iter().zip(lens(0)).map(|(t, s)| t.saturating_add(s.saturating_mul(pieces))).collect()
        }
        Growth::Format => lens(1).iter().map(|f| f.saturating_mul(16).saturating_add(64)).collect(),
        Growth::Scaled(k) => sums().iter().map(|t| t.saturating_mul(k)).collect(),
    })
}

/// The widest character of `s` in UTF-8 bytes (1 for none).
fn widest(s: Option<&str>) -> u64 {
    s.and_then(|s| s.chars().map(char::len_utf8).max()).unwrap_or(1) as u64
}

/// An upper bound of `replace(s, from, to)`'s length: s with `to` added
/// for every occurrence of `from` (for an empty `from`, DataFusion inserts
/// `to` between characters).
fn replaced(s: Option<&str>, from: Option<&str>, to: u64) -> u64 {
    let (Some(s), Some(from)) = (s, from) else { return 0 };
    let hits = if from.is_empty() { s.chars().count() as u64 + 1 } else { s.matches(from).count() as u64 };
    (s.len() as u64).saturating_add(hits.saturating_mul(to))
}

/// A bound of `regexp_replace(s, pattern, to)`: at most one match per
/// position, each replaced by `to` with every `\N` or `$N` inserting at most
/// all of s.
fn regexp_replaced(s: u64, to: Option<&str>) -> u64 {
    let Some(to) = to else { return s };
    let references = to.matches(['\\', '$']).count() as u64;
    let each = (to.len() as u64).saturating_add(references.saturating_mul(s));
    s.saturating_add(s.saturating_add(1).saturating_mul(each))
}

/// A text argument per row, borrowed (None for NULL and for arguments
/// that are not text: the functions wrapped here get their arguments
/// coerced to text).
fn strs(arg: &ColumnarValue, rows: usize) -> Vec<Option<&str>> {
    match arg {
        ColumnarValue::Scalar(v) => vec![scalar_str(v); rows],
        ColumnarValue::Array(a) => match a.data_type() {
            DataType::Utf8 => a.as_string::<i32>().iter().collect(),
            DataType::LargeUtf8 => a.as_string::<i64>().iter().collect(),
            DataType::Utf8View => a.as_string_view().iter().collect(),
            _ => vec![None; rows],
        },
    }
}

/// Byte lengths of a text argument per row (0 for NULL).
fn byte_lengths(arg: &ColumnarValue, rows: usize) -> Vec<u64> {
    strs(arg, rows).iter().map(|s| s.map_or(0, |s| s.len() as u64)).collect()
}

fn scalar_str(v: &ScalarValue) -> Option<&str> {
    match v {
        ScalarValue::Utf8(s) | ScalarValue::LargeUtf8(s) | ScalarValue::Utf8View(s) => s.as_deref(),
        _ => None,
    }
}

/// A count argument per row (NULL and negative counts build nothing).
fn counts(arg: Option<&ColumnarValue>, rows: usize) -> Result<Vec<u64>> {
    let Some(arg) = arg else { return Ok(vec![0; rows]) };
    let array = arg.to_array(rows)?;
    let ints = cast(&array, &DataType::Int64)?;
    let ints = ints.as_primitive::<Int64Type>();
    Ok(ints.iter().map(|n| n.map_or(0, |n| n.max(0) as u64)).collect())
}

/// Byte lengths of a text result per row.
fn lengths(result: &ColumnarValue, rows: usize) -> Vec<u64> {
    match result {
        ColumnarValue::Scalar(v) => vec![scalar_str(v).map_or(0, |s| s.len() as u64); rows.min(1)],
        ColumnarValue::Array(_) => byte_lengths(result, rows),
    }
}

/// `a || b` on text: NULL when either side is NULL, else the two joined;
/// under the same ceilings as `concat`. `semantics` plans the operator as
/// this function.
pub(crate) fn concat_operator() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::from(ConcatOperator { signature: Signature::any(2, Volatility::Immutable) }))
}

/// The name the plan shows for `a || b`.
pub(crate) const CONCAT_OPERATOR: &str = "text_concat";

#[derive(Debug, PartialEq, Eq, Hash)]
struct ConcatOperator {
    signature: Signature,
}

impl ScalarUDFImpl for ConcatOperator {
    fn name(&self) -> &str {
        CONCAT_OPERATOR
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        check("||", &bounds(Growth::Sum, &args.args, rows)?)?;
        let scalars = args.args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let text = |a: &ColumnarValue| -> Result<ColumnarValue> {
            Ok(match a {
                ColumnarValue::Array(a) => ColumnarValue::Array(cast(a, &DataType::Utf8)?),
                ColumnarValue::Scalar(v) => ColumnarValue::Scalar(v.cast_to(&DataType::Utf8)?),
            })
        };
        let (left, right) = (text(&args.args[0])?, text(&args.args[1])?);
        let (left, right) = (strs(&left, rows), strs(&right, rows));
        let joined: StringArray = left.iter().zip(&right).map(|(a, b)| Some(format!("{}{}", (*a)?, (*b)?))).collect();
        if scalars {
            return Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&joined, 0)?));
        }
        Ok(ColumnarValue::Array(Arc::new(joined)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> ColumnarValue {
        ColumnarValue::Scalar(ScalarValue::Utf8(Some(s.into())))
    }

    fn int(n: i64) -> ColumnarValue {
        ColumnarValue::Scalar(ScalarValue::Int64(Some(n)))
    }

    /// The issue's `lpad(x, 3e8, 'y')`: 300,000,000 one-byte characters.
    #[test]
    fn a_pad_is_its_target_length_in_the_widest_characters() {
        assert_eq!(bounds(Growth::Pad, &[text("ab"), int(300_000_000), text("y")], 1).unwrap(), [300_000_000]);
        let err = check("lpad", &[300_000_000]).unwrap_err().to_string();
        assert!(err.contains("`lpad` would build a text value of 300000000 bytes"), "{err}");
        // é is 2 bytes: 5 characters of it are at most 10 bytes.
        assert_eq!(bounds(Growth::Pad, &[text("a"), int(5), text("é")], 1).unwrap(), [10]);
        assert_eq!(bounds(Growth::Pad, &[text("abc"), int(-4)], 1).unwrap(), [0]);
    }

    #[test]
    fn a_batch_over_its_ceiling_is_refused_though_each_value_is_small() {
        // 8192 rows of 64 KiB: 512 MiB in one batch.
        let err = check("repeat", &vec![64 << 10; 8192]).unwrap_err().to_string();
        assert!(err.contains("512 MiB of text for 8192 rows, over tracelab's ceiling of 256 MiB"), "{err}");
        assert!(check("repeat", &vec![1 << 10; 8192]).is_ok());
    }

    #[test]
    fn replacements_and_joins_are_bounded_by_what_they_can_insert() {
        // "banana": three a's become "xyz": 6 - 3 + 9 = 12 bytes... bounded
        // as 6 + 3 * 3 = 15 (the replaced bytes are not subtracted).
        assert_eq!(bounds(Growth::Replace, &[text("banana"), text("a"), text("xyz")], 1).unwrap(), [15]);
        assert_eq!(bounds(Growth::Repeat, &[text("ab"), int(4)], 2).unwrap(), [8, 8]);
        assert_eq!(bounds(Growth::Sum, &[text("ab"), text("cde")], 1).unwrap(), [5]);
        // concat_ws(',', 'a', 'b'): 1 + 1 + 1 plus the separator per piece (3).
        assert_eq!(bounds(Growth::SumWithSeparator, &[text(","), text("a"), text("b")], 1).unwrap(), [6]);
        // 4 bytes, `\1x`: at most 5 matches of (3 + 4) bytes each, plus s.
        assert_eq!(regexp_replaced(4, Some("\\1x")), 4 + 5 * 7);
    }
}
