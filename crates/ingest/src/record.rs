//! One raw CSV record and the typed field accessors the per-trace parsers
//! use. Every accessor either returns a typed value or a [`Fault`] naming the
//! raw column, the raw text and what was expected, which becomes a reject.

use std::ops::Range;

use super::sink::Value;

/// Why a record was rejected.
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    /// Raw column name, JSON path, or `*` for the whole record.
    pub column: String,
    pub raw: String,
    pub reason: String,
}

impl Fault {
    pub fn new(column: impl Into<String>, raw: impl Into<String>, reason: impl Into<String>) -> Fault {
        Fault { column: column.into(), raw: raw.into(), reason: reason.into() }
    }

    /// A fault of the whole record, e.g. a wrong field count.
    pub fn record(raw: &str, reason: impl Into<String>) -> Fault {
        Fault::new("*", raw, reason)
    }
}

/// A CSV record split into fields, with the raw layout's column names.
pub struct Record<'a> {
    pub text: &'a str,
    ranges: &'a [Range<usize>],
    names: &'a [&'a str],
}

impl<'a> Record<'a> {
    pub fn new(text: &'a str, ranges: &'a [Range<usize>], names: &'a [&'a str]) -> Self {
        Record { text, ranges, names }
    }

    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// The raw text of field `i`.
    pub fn get(&self, i: usize) -> &'a str {
        &self.text[self.ranges[i].clone()]
    }

    pub fn name(&self, i: usize) -> &'a str {
        self.names.get(i).copied().unwrap_or("(extra field)")
    }

    pub fn fault(&self, i: usize, reason: impl Into<String>) -> Fault {
        Fault::new(self.name(i).trim(), self.get(i), reason)
    }

    /// A required, non-empty string.
    pub fn text_req(&self, i: usize) -> Result<Value<'a>, Fault> {
        match self.get(i) {
            "" => Err(self.fault(i, "expected a non-empty value")),
            s => Ok(Value::Str(s)),
        }
    }

    /// A string; empty means null.
    pub fn text_opt(&self, i: usize) -> Value<'a> {
        match self.get(i) {
            "" => Value::Null,
            s => Value::Str(s),
        }
    }

    /// A string from a fixed vocabulary (status codes, GPU types).
    pub fn one_of(&self, i: usize, allowed: &[&str]) -> Result<Value<'a>, Fault> {
        let s = self.get(i);
        if allowed.contains(&s) {
            Ok(Value::Str(s))
        } else {
            Err(self.fault(i, format!("unknown code; expected one of {}", allowed.join(", "))))
        }
    }

    /// Like [`Record::one_of`] but empty means null.
    pub fn one_of_opt(&self, i: usize, allowed: &[&str]) -> Result<Value<'a>, Fault> {
        if self.get(i).is_empty() {
            Ok(Value::Null)
        } else {
            self.one_of(i, allowed)
        }
    }

    /// A finite number, or null when the field is empty or one of `nulls`
    /// (e.g. Philly's `NA`).
    pub fn f64_opt(&self, i: usize, nulls: &[&str]) -> Result<Option<f64>, Fault> {
        let s = self.get(i);
        if s.is_empty() || nulls.contains(&s) {
            return Ok(None);
        }
        parse_finite(s).map(Some).ok_or_else(|| self.fault(i, "expected a number or an empty field"))
    }

    /// Like [`Record::f64_opt`], refusing negative numbers (requests,
    /// utilizations, durations: a negative one is a corrupt record).
    pub fn non_negative_opt(&self, i: usize, nulls: &[&str]) -> Result<Option<f64>, Fault> {
        match self.f64_opt(i, nulls)? {
            Some(v) if v < 0.0 => Err(self.fault(i, "expected a non-negative number")),
            v => Ok(v),
        }
    }

    /// A whole number written either as `8` or as `8.0` (pandas writes
    /// integer columns with NaNs as floats).
    pub fn int_req(&self, i: usize) -> Result<i64, Fault> {
        let s = self.get(i);
        parse_integral(s).ok_or_else(|| self.fault(i, "expected a whole number"))
    }
}

/// Parses a finite float; rejects `inf`, `NaN` and anything non-numeric.
pub fn parse_finite(s: &str) -> Option<f64> {
    let v: f64 = s.trim().parse().ok()?;
    v.is_finite().then_some(v)
}

/// Parses `8`, `8.0` or `8.000` as 8; `8.5` and non-numbers are `None`.
pub fn parse_integral(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Ok(v) = s.parse::<i64>() {
        return Some(v);
    }
    let v = parse_finite(s)?;
    (v.fract() == 0.0 && v.abs() < 9.0e15).then_some(v as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integral_accepts_float_spelling_but_not_fractions() {
        assert_eq!(parse_integral("8"), Some(8));
        assert_eq!(parse_integral("1.0"), Some(1));
        assert_eq!(parse_integral("-3.000"), Some(-3));
        assert_eq!(parse_integral("2.5"), None);
        assert_eq!(parse_integral("abc"), None);
        assert_eq!(parse_integral(""), None);
    }

    #[test]
    fn finite_rejects_nan_and_infinity() {
        assert_eq!(parse_finite("29.296875"), Some(29.296875));
        assert_eq!(parse_finite("1e-07"), Some(1e-7));
        assert_eq!(parse_finite("nan"), None);
        assert_eq!(parse_finite("inf"), None);
        assert_eq!(parse_finite("12a"), None);
    }

    #[test]
    fn faults_name_the_raw_column_and_value() {
        let text = "a,,x";
        let ranges = vec![0..1, 2..2, 3..4];
        let names = ["first", "second", "third"];
        let r = Record::new(text, &ranges, &names);
        assert_eq!(r.text_req(1).unwrap_err(), Fault::new("second", "", "expected a non-empty value"));
        assert_eq!(r.f64_opt(2, &[]).unwrap_err().column, "third");
        assert!(matches!(r.text_opt(1), Value::Null));
    }

    #[test]
    fn non_negative_refuses_negatives_but_keeps_zero_and_nulls() {
        let text = "-0.5,0,,NA";
        let ranges = vec![0..4, 5..6, 7..7, 8..10];
        let names = ["a", "b", "c", "d"];
        let r = Record::new(text, &ranges, &names);
        assert_eq!(r.non_negative_opt(0, &[]).unwrap_err().reason, "expected a non-negative number");
        assert_eq!(r.non_negative_opt(1, &[]), Ok(Some(0.0)));
        assert_eq!(r.non_negative_opt(2, &[]), Ok(None));
        assert_eq!(r.non_negative_opt(3, &["NA"]), Ok(None));
    }
}
