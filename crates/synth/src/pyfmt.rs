//! Number formatting as the trace owners' tools wrote it. PAI's CSVs were
//! written by pandas, which prints floats with Python's `repr`: the shortest
//! string that round-trips, always with a `.0` for whole numbers
//! (`4550879.0`), and in exponent form below 1e-4 or from 1e16 up
//! (`1e-05`, `1.5e+16`).

use std::fmt::Write;

/// Appends Python's `repr(v)` of a finite float.
pub fn push_py_float(out: &mut String, v: f64) {
    debug_assert!(v.is_finite(), "traces hold no inf/nan");
    let a = v.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        push_exponent(out, v);
        return;
    }
    let start = out.len();
    write!(out, "{v}").expect("writing to a String");
    if !out[start..].contains('.') {
        out.push_str(".0");
    }
}

/// Python's exponent form: mantissa as `repr`, exponent signed and at least
/// two digits (`1e-05`, `2.5e+16`).
fn push_exponent(out: &mut String, v: f64) {
    let s = format!("{v:e}");
    let (mantissa, exp) = s.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    let sign = if exp < 0 { '-' } else { '+' };
    write!(out, "{mantissa}e{sign}{:02}", exp.abs()).expect("writing to a String");
}

/// `repr(v)` as a new string.
pub fn py_float(v: f64) -> String {
    let mut s = String::new();
    push_py_float(&mut s, v);
    s
}

/// Rounds to `digits` decimals, then `repr`: how R and numpy printed the
/// Philly utilization averages (`99.366666667`, `2030730.6667`).
pub fn push_rounded(out: &mut String, v: f64, digits: i32) {
    let p = 10f64.powi(digits);
    push_py_float(out, (v * p).round() / p);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_python_repr_on_the_readme_values() {
        // Values from the owners' README example rows.
        for (v, want) in [
            (4550879.0, "4550879.0"),
            (29.296875, "29.296875"),
            (140.1451612903226, "140.1451612903226"),
            (0.0028667003281999497, "0.0028667003281999497"),
            (111649584.57135652, "111649584.57135652"),
            (1.0, "1.0"),
            (0.0, "0.0"),
            (-2.5, "-2.5"),
        ] {
            assert_eq!(py_float(v), want);
        }
    }

    #[test]
    fn exponent_form_like_python() {
        // Python: repr(1e-05) == '1e-05', repr(0.00012) == '0.00012',
        // repr(2.5e16) == '2.5e+16', repr(1e16) == '1e+16'.
        assert_eq!(py_float(1e-5), "1e-05");
        assert_eq!(py_float(0.00012), "0.00012");
        assert_eq!(py_float(2.5e16), "2.5e+16");
        assert_eq!(py_float(1e16), "1e+16");
        assert_eq!(py_float(-3.25e-7), "-3.25e-07");
    }

    #[test]
    fn rounding_then_repr() {
        let mut s = String::new();
        push_rounded(&mut s, 99.36666666666666, 9);
        assert_eq!(s, "99.366666667");
    }
}
