//! The typed parameter model. An analysis declares each parameter once as a
//! [`Param<T>`]: name, default, one line of doc and its [`Kind`] (the values
//! it takes), typed by the Rust value the analysis receives: an enum
//! ([`Choice`], declared with [`choice!`]) for a choice among named values,
//! `f64` for a number (optional range), `u64` for a whole number (range),
//! `bool`, [`Seconds`] for a duration, `String` for free text, or a type of
//! the analysis's own for values of another form ([`Param::custom`]).
//! [`params!`] groups an analysis's parameters into the struct its run
//! function receives.
//!
//! [`Args::check`] validates every given `NAME=VALUE` before any work: an
//! unknown name, a repeated one, or a value its kind does not take is a
//! usage error (exit 2) naming the analysis, the parameter and what was
//! expected. Defaults fill the rest. The erased [`ParamSpec`] describes a
//! parameter to whoever lists or checks them (`--list`, report specs).
//!
//! Knows nothing of analyses, stores or the command line: the CLI splits
//! `--param NAME=VALUE`, this module judges the pairs.

use std::marker::PhantomData;
use std::ops::Bound;

use tracelab_schema::error::{Error, Result};

/// What a parameter is, without its Rust type: for listings, spec checks
/// and validation.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    /// The default, as a user would write it.
    pub default: &'static str,
    pub doc: &'static str,
    pub kind: Kind,
}

/// The values a parameter takes.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// One of these names (an enum in the analysis).
    Choice(&'static [&'static str]),
    /// A finite number within the bounds.
    Number { min: Bound<f64>, max: Bound<f64> },
    /// A whole number within `min..=max`.
    Whole { min: u64, max: u64 },
    /// `true` or `false`.
    Bool,
    /// A duration such as `300s`, `5m`, `1h`, `1d` (whole units, > 0).
    Duration,
    /// Any non-empty text.
    Text,
    /// A value of the analysis's own form, which `check` recognizes;
    /// `expected` says what it looks like.
    Custom { expected: &'static str, check: fn(&str) -> bool },
}

/// A declared parameter whose value reaches the analysis as a `T`.
#[derive(Debug)]
pub struct Param<T> {
    pub spec: ParamSpec,
    ty: PhantomData<fn() -> T>,
}

/// A duration parameter's value, in seconds (> 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(pub i64);

/// How a parameter's text becomes its typed value. `None` for text the
/// parameter does not take; validation has already refused those, so an
/// analysis never sees one.
pub trait FromParam: Sized {
    fn from_param(raw: &str) -> Option<Self>;
}

/// A choice among named values, implemented by [`choice!`].
pub trait Choice: FromParam + Copy + 'static {
    /// The names, in declaration order (as `--list` shows them).
    const NAMES: &'static [&'static str];
}

/// A group of parameters read into one struct (see [`params!`]); `()` is
/// "no parameters".
pub trait Params: Sized {
    /// The declarations, in the order `--list` shows them.
    const DECLARED: &'static [ParamSpec];
    /// The typed values of validated arguments.
    fn read(args: &Args) -> Self;
}

impl Params for () {
    const DECLARED: &'static [ParamSpec] = &[];
    fn read(_: &Args) {}
}

/// Declares an enum whose variants are the named values of a choice
/// parameter, in the order given (which is the order `--list` shows):
///
/// ```ignore
/// choice! {
///     /// Machines with no covering row in a bin.
///     pub enum Idle { Zero = "zero", Absent = "absent" }
/// }
/// ```
#[macro_export]
macro_rules! choice {
    ($(#[$m:meta])* $vis:vis enum $name:ident { $($(#[$vm:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$vm])* $variant),+
        }

        impl $name {
            /// The value's name, as a user writes it.
            #[allow(dead_code)]
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl $crate::params::FromParam for $name {
            fn from_param(raw: &str) -> Option<Self> {
                match raw {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl $crate::params::Choice for $name {
            const NAMES: &'static [&'static str] = &[$($text),+];
        }
    };
}
pub use crate::choice;

/// Declares the struct of typed values an analysis receives, one field per
/// declared [`Param`] constant, in `--list` order:
///
/// ```ignore
/// params! {
///     pub struct MachineUtilParams {
///         pub bin: Seconds = BIN,
///         pub idle: Idle = IDLE,
///     }
/// }
/// ```
///
/// A field's type must be the constant's `T`, or it does not compile.
#[macro_export]
macro_rules! params {
    ($(#[$m:meta])* $vis:vis struct $name:ident {
        $($(#[$fm:meta])* $fvis:vis $field:ident: $ty:ty = $param:path),+ $(,)?
    }) => {
        $(#[$m])*
        #[derive(Debug, Clone)]
        $vis struct $name {
            $($(#[$fm])* $fvis $field: $ty),+
        }

        impl $crate::params::Params for $name {
            const DECLARED: &'static [$crate::params::ParamSpec] = &[$($param.spec),+];
            fn read(args: &$crate::params::Args) -> Self {
                $name { $($field: args.get(&$param)),+ }
            }
        }
    };
}
pub use crate::params;

const fn declare<T>(name: &'static str, default: &'static str, doc: &'static str, kind: Kind) -> Param<T> {
    Param { spec: ParamSpec { name, default, doc, kind }, ty: PhantomData }
}

fn parses<T: FromParam>(raw: &str) -> bool {
    T::from_param(raw).is_some()
}

impl<E: Choice> Param<E> {
    /// One of `E`'s names; `default` is one of them.
    pub const fn choice(name: &'static str, default: &'static str, doc: &'static str) -> Param<E> {
        declare(name, default, doc, Kind::Choice(E::NAMES))
    }
}

impl Param<f64> {
    /// Any finite number.
    pub const fn number(name: &'static str, default: &'static str, doc: &'static str) -> Param<f64> {
        Param::number_in(name, default, doc, Bound::Unbounded, Bound::Unbounded)
    }

    /// A finite number within the bounds.
    pub const fn number_in(
        name: &'static str,
        default: &'static str,
        doc: &'static str,
        min: Bound<f64>,
        max: Bound<f64>,
    ) -> Param<f64> {
        declare(name, default, doc, Kind::Number { min, max })
    }
}

impl Param<u64> {
    /// A whole number within `min..=max`.
    pub const fn whole(name: &'static str, default: &'static str, doc: &'static str, min: u64, max: u64) -> Param<u64> {
        declare(name, default, doc, Kind::Whole { min, max })
    }
}

impl Param<bool> {
    pub const fn flag(name: &'static str, default: &'static str, doc: &'static str) -> Param<bool> {
        declare(name, default, doc, Kind::Bool)
    }
}

impl Param<Seconds> {
    pub const fn duration(name: &'static str, default: &'static str, doc: &'static str) -> Param<Seconds> {
        declare(name, default, doc, Kind::Duration)
    }
}

impl Param<String> {
    pub const fn text(name: &'static str, default: &'static str, doc: &'static str) -> Param<String> {
        declare(name, default, doc, Kind::Text)
    }
}

impl<T: FromParam> Param<T> {
    /// A value of `T`'s own form: whatever [`FromParam::from_param`]
    /// accepts; `expected` says what that looks like ("YYYY-MM").
    pub const fn custom(
        name: &'static str,
        default: &'static str,
        doc: &'static str,
        expected: &'static str,
    ) -> Param<T> {
        declare(name, default, doc, Kind::Custom { expected, check: parses::<T> })
    }
}

impl FromParam for f64 {
    fn from_param(raw: &str) -> Option<f64> {
        raw.parse::<f64>().ok().filter(|v| v.is_finite())
    }
}

impl FromParam for u64 {
    fn from_param(raw: &str) -> Option<u64> {
        raw.parse().ok()
    }
}

impl FromParam for bool {
    fn from_param(raw: &str) -> Option<bool> {
        match raw {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }
}

impl FromParam for Seconds {
    fn from_param(raw: &str) -> Option<Seconds> {
        parse_duration(raw).map(Seconds)
    }
}

impl FromParam for String {
    fn from_param(raw: &str) -> Option<String> {
        (!raw.is_empty()).then(|| raw.to_string())
    }
}

/// `300s`, `5m` (or `5min`), `2h`, `1d` in seconds; whole units, > 0.
fn parse_duration(raw: &str) -> Option<i64> {
    let split = raw.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = raw.split_at(split);
    let n: i64 = n.parse().ok()?;
    let mult = match unit {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    (n > 0).then_some(n.checked_mul(mult)?)
}

impl Kind {
    /// A duration value in seconds (`5m` is 300); `None` for another kind
    /// or a value it does not take.
    pub fn seconds(&self, raw: &str) -> Option<i64> {
        matches!(self, Kind::Duration).then(|| parse_duration(raw)).flatten()
    }

    /// `Ok` when the kind takes `raw`, else what it expected.
    pub fn check(&self, raw: &str) -> std::result::Result<(), String> {
        let ok = match self {
            Kind::Choice(names) => names.contains(&raw),
            Kind::Number { min, max } => f64::from_param(raw).is_some_and(|v| within(v, *min, *max)),
            Kind::Whole { min, max } => u64::from_param(raw).is_some_and(|v| (*min..=*max).contains(&v)),
            Kind::Bool => bool::from_param(raw).is_some(),
            Kind::Duration => Seconds::from_param(raw).is_some(),
            Kind::Text => String::from_param(raw).is_some(),
            Kind::Custom { check, .. } => check(raw),
        };
        if ok {
            Ok(())
        } else {
            Err(self.expected())
        }
    }

    /// The kind in a few words, for listings: the names of a choice
    /// (`gpu|all`), else what a value is (`number`, `duration`, ...).
    pub fn label(&self) -> String {
        match self {
            Kind::Choice(names) => names.join("|"),
            Kind::Number { .. } => "number".into(),
            Kind::Whole { .. } => "whole number".into(),
            Kind::Bool => "true|false".into(),
            Kind::Duration => "duration".into(),
            Kind::Text => "text".into(),
            Kind::Custom { expected, .. } => expected.to_string(),
        }
    }

    /// What a value of this kind looks like, for error messages.
    pub fn expected(&self) -> String {
        match self {
            Kind::Choice(names) => format!("one of {}", names.join(", ")),
            Kind::Number { min, max } => format!("a number{}", range_note(*min, *max)),
            Kind::Whole { min: 0, max: u64::MAX } => "a whole number".into(),
            Kind::Whole { min, max: u64::MAX } => format!("a whole number >= {min}"),
            Kind::Whole { min, max } => format!("a whole number from {min} to {max}"),
            Kind::Bool => "true or false".into(),
            Kind::Duration => "a duration such as 30s, 5m, 1h or 1d".into(),
            Kind::Text => "a non-empty value".into(),
            Kind::Custom { expected, .. } => expected.to_string(),
        }
    }

    /// Whether two values this kind takes mean the same (`10` and `010`
    /// are one whole number, `5m` and `300s` one duration).
    pub fn same(&self, a: &str, b: &str) -> bool {
        match self {
            Kind::Number { .. } => f64::from_param(a).is_some() && f64::from_param(a) == f64::from_param(b),
            Kind::Whole { .. } => u64::from_param(a).is_some() && u64::from_param(a) == u64::from_param(b),
            Kind::Duration => Seconds::from_param(a).is_some() && Seconds::from_param(a) == Seconds::from_param(b),
            _ => a == b,
        }
    }
}

fn within(v: f64, min: Bound<f64>, max: Bound<f64>) -> bool {
    let above = match min {
        Bound::Included(m) => v >= m,
        Bound::Excluded(m) => v > m,
        Bound::Unbounded => true,
    };
    let below = match max {
        Bound::Included(m) => v <= m,
        Bound::Excluded(m) => v < m,
        Bound::Unbounded => true,
    };
    above && below
}

/// ` > 0`, ` between 0 and 100`, or nothing.
fn range_note(min: Bound<f64>, max: Bound<f64>) -> String {
    match (min, max) {
        (Bound::Unbounded, Bound::Unbounded) => String::new(),
        (Bound::Included(a), Bound::Included(b)) => format!(" from {a} to {b}"),
        (Bound::Excluded(a), Bound::Excluded(b)) => format!(" strictly between {a} and {b}"),
        (min, max) => {
            let lo = match min {
                Bound::Included(a) => format!(" >= {a}"),
                Bound::Excluded(a) => format!(" > {a}"),
                Bound::Unbounded => String::new(),
            };
            let hi = match max {
                Bound::Included(b) => format!(" <= {b}"),
                Bound::Excluded(b) => format!(" < {b}"),
                Bound::Unbounded => String::new(),
            };
            if lo.is_empty() || hi.is_empty() {
                lo + &hi
            } else {
                format!("{lo} and{hi}")
            }
        }
    }
}

/// Validated parameter values of one analysis: every declared parameter
/// in declaration order, the given value or the default.
#[derive(Debug, Clone)]
pub struct Args {
    id: &'static str,
    values: Vec<(&'static ParamSpec, String)>,
}

impl Args {
    /// Checks `given` (name, value) pairs against `declared`, the
    /// parameters of analysis `id`: every name declared and given once,
    /// every value one its kind takes; fills defaults.
    pub fn check(id: &'static str, declared: &'static [ParamSpec], given: &[(String, String)]) -> Result<Args> {
        for (i, (name, value)) in given.iter().enumerate() {
            let Some(spec) = declared.iter().find(|p| p.name == name) else {
                return Err(Error::Usage(format!(
                    "{id} takes no parameter `{name}`; it takes: {}",
                    describe(declared)
                )));
            };
            if let Some((_, first)) = given[..i].iter().find(|(n, _)| n == name) {
                return Err(Error::Usage(format!("{id}: --param {name} given twice (`{first}`, then `{value}`)")));
            }
            spec.kind
                .check(value)
                .map_err(|expected| Error::Usage(format!("{id}: --param {name}={value}: expected {expected}")))?;
        }
        let values = declared
            .iter()
            .map(|p| {
                let v = given.iter().find(|(n, _)| n == p.name).map_or(p.default, |g| g.1.as_str());
                (p, v.to_string())
            })
            .collect();
        Ok(Args { id, values })
    }

    /// The values as (name, value) pairs, as given or defaulted, for the
    /// output's record.
    pub fn pairs(&self) -> Vec<(String, String)> {
        self.values.iter().map(|(p, v)| (p.name.to_string(), v.clone())).collect()
    }

    /// The value of parameter `name` as given or defaulted, with its kind;
    /// `None` for an undeclared name.
    pub fn value(&self, name: &str) -> Option<(&str, Kind)> {
        self.values.iter().find(|(p, _)| p.name == name).map(|(p, v)| (v.as_str(), p.kind))
    }

    /// The typed value of `param`.
    ///
    /// # Panics
    /// When the analysis did not declare `param` (a programming error the
    /// tests of every analysis catch).
    pub fn get<T: FromParam>(&self, param: &Param<T>) -> T {
        let raw = self.raw(param.spec.name);
        T::from_param(raw).unwrap_or_else(|| panic!("{}: --param {}={raw} passed validation", self.id, param.spec.name))
    }

    /// Whether parameter `name` has the value `value` (same meaning, see
    /// [`Kind::same`]); false for an undeclared name.
    pub fn is(&self, name: &str, value: &str) -> bool {
        self.values.iter().any(|(p, v)| p.name == name && p.kind.same(v, value))
    }

    fn raw(&self, name: &str) -> &str {
        self.values
            .iter()
            .find(|(p, _)| p.name == name)
            .map_or_else(|| panic!("{}: parameter {name} is not declared", self.id), |(_, v)| v.as_str())
    }
}

/// `name=default (choices)` for every parameter, or "none".
pub fn describe(declared: &[ParamSpec]) -> String {
    if declared.is_empty() {
        return "none".into();
    }
    declared
        .iter()
        .map(|p| match p.kind {
            Kind::Choice(names) => format!("{}={} ({})", p.name, p.default, names.join("|")),
            Kind::Bool => format!("{}={} (true|false)", p.name, p.default),
            _ => format!("{}={}", p.name, p.default),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
