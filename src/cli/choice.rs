//! Typed choices for clap: a value parser over a library enum's own names,
//! so an option like `export --to` parses straight into the library's type,
//! help lists the possible values, and an unknown value is clap's usage
//! error naming them, without a second copy of the names in the binary.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// Parses one of `all`, each spelled `name(value)`.
pub fn named<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
) -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(all.iter().map(move |&v| PossibleValue::new(name(v))))
        .map(move |s: String| all.iter().copied().find(|&v| name(v) == s).expect("clap checked the possible values"))
}

/// Parses one of `names` into the name itself, for a choice drawn from
/// several library enums (simulate's `--policy`: the rigid and the elastic
/// policies), which the library then parses.
pub fn any_of(names: impl IntoIterator<Item = &'static str>) -> PossibleValuesParser {
    PossibleValuesParser::new(names)
}
