//! The parameter model on a made-up analysis `t.demo` that declares one
//! parameter of every kind; expected values and messages are written out
//! by hand.

use std::ops::Bound;

use super::*;

choice! {
    /// A two-valued choice.
    pub enum Side { Left = "left", Right = "right" }
}

/// A custom kind: a month `YYYY-MM` with a month from 1 to 12.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Month(u32, u32);

impl FromParam for Month {
    fn from_param(raw: &str) -> Option<Month> {
        let (y, m) = raw.split_once('-')?;
        let (y, m) = (y.parse().ok()?, m.parse().ok()?);
        (y >= 1000 && (1..=12).contains(&m)).then_some(Month(y, m))
    }
}

const SIDE: Param<Side> = Param::choice("side", "left", "which side");
const SHARE: Param<f64> = Param::number_in("share", "0.5", "a share", Bound::Excluded(0.0), Bound::Included(1.0));
const FACTOR: Param<f64> = Param::number("factor", "-2.5", "any number");
const TOP: Param<u64> = Param::whole("top", "10", "how many", 1, 100);
const OFFSET: Param<u64> = Param::whole("offset", "600", "an offset", 0, u64::MAX);
const CPU: Param<bool> = Param::flag("cpu", "true", "include CPU jobs");
const BIN: Param<Seconds> = Param::duration("bin", "5m", "time bin");
const TAG: Param<String> = Param::text("tag", "all", "a tag");
const MONTH: Param<Month> = Param::custom("month", "2020-05", "a month", "YYYY-MM");

params! {
    struct Demo {
        side: Side = SIDE,
        share: f64 = SHARE,
        factor: f64 = FACTOR,
        top: u64 = TOP,
        offset: u64 = OFFSET,
        cpu: bool = CPU,
        bin: Seconds = BIN,
        tag: String = TAG,
        month: Month = MONTH,
    }
}

fn check(given: &[(&str, &str)]) -> Result<Args> {
    let given: Vec<(String, String)> = given.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Args::check("t.demo", Demo::DECLARED, &given)
}

fn demo(given: &[(&str, &str)]) -> Demo {
    Demo::read(&check(given).unwrap())
}

/// The usage error for one bad pair.
fn error(name: &str, value: &str) -> String {
    match check(&[(name, value)]) {
        Err(Error::Usage(m)) => m,
        other => panic!("{name}={value}: expected a usage error, got {other:?}"),
    }
}

#[test]
fn defaults_fill_every_parameter_with_its_type() {
    let d = demo(&[]);
    assert_eq!(d.side, Side::Left);
    assert_eq!((d.share, d.factor), (0.5, -2.5));
    assert_eq!((d.top, d.offset), (10, 600));
    assert!(d.cpu);
    assert_eq!(d.bin, Seconds(300));
    assert_eq!(d.tag, "all");
    assert_eq!(d.month, Month(2020, 5));
}

#[test]
fn given_values_arrive_typed_and_pairs_keep_them_as_given_in_declaration_order() {
    let args = check(&[("month", "1999-12"), ("side", "right"), ("top", "010"), ("bin", "2h")]).unwrap();
    let d = Demo::read(&args);
    assert_eq!((d.side, d.top, d.bin, d.month), (Side::Right, 10, Seconds(7200), Month(1999, 12)));
    let names: Vec<String> = args.pairs().into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    assert_eq!(
        names,
        [
            "side=right",
            "share=0.5",
            "factor=-2.5",
            "top=010",
            "offset=600",
            "cpu=true",
            "bin=2h",
            "tag=all",
            "month=1999-12"
        ]
    );
}

#[test]
fn a_choice_takes_its_names_only() {
    assert_eq!(Side::from_param("right"), Some(Side::Right));
    assert_eq!(Side::Right.name(), "right");
    assert_eq!(Side::NAMES, ["left", "right"]);
    assert_eq!(error("side", "Left"), "t.demo: --param side=Left: expected one of left, right");
}

#[test]
fn a_number_is_finite_and_within_its_bounds() {
    assert_eq!(demo(&[("share", "1")]).share, 1.0);
    assert_eq!(demo(&[("share", "1e-3")]).share, 0.001);
    assert_eq!(demo(&[("factor", "-1e3")]).factor, -1000.0);
    let bounded = "expected a number > 0 and <= 1";
    for bad in ["0", "1.5", "-0.1"] {
        assert_eq!(error("share", bad), format!("t.demo: --param share={bad}: {bounded}"));
    }
    for bad in ["abc", "nan", "inf", ""] {
        assert_eq!(error("factor", bad), format!("t.demo: --param factor={bad}: expected a number"));
    }
}

#[test]
fn a_whole_number_is_within_its_range() {
    assert_eq!(demo(&[("top", "100")]).top, 100);
    assert_eq!(demo(&[("offset", "0")]).offset, 0);
    assert_eq!(error("top", "0"), "t.demo: --param top=0: expected a whole number from 1 to 100");
    assert_eq!(error("top", "2.5"), "t.demo: --param top=2.5: expected a whole number from 1 to 100");
    assert_eq!(error("offset", "-1"), "t.demo: --param offset=-1: expected a whole number");
}

#[test]
fn a_flag_is_true_or_false() {
    assert!(!demo(&[("cpu", "false")]).cpu);
    assert_eq!(error("cpu", "yes"), "t.demo: --param cpu=yes: expected true or false");
}

#[test]
fn a_duration_has_a_unit_and_is_positive() {
    let secs = |raw: &str| demo(&[("bin", raw)]).bin.0;
    assert_eq!((secs("300s"), secs("5m"), secs("5min"), secs("1h"), secs("1d")), (300, 300, 300, 3600, 86_400));
    for bad in ["5", "0m", "m", "5x", "-5m", "1.5h"] {
        assert_eq!(
            error("bin", bad),
            format!("t.demo: --param bin={bad}: expected a duration such as 30s, 5m, 1h or 1d")
        );
    }
}

#[test]
fn text_is_not_empty_and_custom_values_follow_their_own_form() {
    assert_eq!(demo(&[("tag", "ctr")]).tag, "ctr");
    assert_eq!(error("tag", ""), "t.demo: --param tag=: expected a non-empty value");
    assert_eq!(error("month", "2020-13"), "t.demo: --param month=2020-13: expected YYYY-MM");
    assert_eq!(error("month", "May"), "t.demo: --param month=May: expected YYYY-MM");
}

#[test]
fn a_repeated_parameter_is_refused() {
    let err = check(&[("top", "5"), ("side", "left"), ("top", "7")]).unwrap_err().to_string();
    assert_eq!(err, "t.demo: --param top given twice (`5`, then `7`)");
}

#[test]
fn an_unknown_parameter_names_what_the_analysis_takes() {
    let err = error("tops", "5");
    assert_eq!(
        err,
        "t.demo takes no parameter `tops`; it takes: side=left (left|right), share=0.5, factor=-2.5, top=10, \
         offset=600, cpu=true (true|false), bin=5m, tag=all, month=2020-05"
    );
    let none = Args::check("t.none", <() as Params>::DECLARED, &[("x".into(), "1".into())]).unwrap_err();
    assert_eq!(none.to_string(), "t.none takes no parameter `x`; it takes: none");
}

#[test]
fn equal_values_are_recognized_whatever_their_spelling() {
    let args = check(&[("top", "010"), ("bin", "60m"), ("share", "0.50")]).unwrap();
    assert!(args.is("top", "10") && args.is("bin", "1h") && args.is("share", "0.5"));
    assert!(args.is("side", "left") && !args.is("side", "right"));
    assert!(!args.is("top", "11") && !args.is("nope", "10"));
}

#[test]
#[should_panic(expected = "t.demo: parameter other is not declared")]
fn reading_an_undeclared_parameter_is_a_programming_error() {
    const OTHER: Param<u64> = Param::whole("other", "1", "not declared by the demo", 0, 9);
    check(&[]).unwrap().get(&OTHER);
}
