//! The macro behind every named choice of the engine (policies,
//! disciplines, placements, job classes, interference models): a plain enum
//! with its CLI names, `ALL`, `FromStr` with an error listing the valid
//! names, and `Display`. Imports nothing of the crate but the error type's
//! path inside the expansion, so every module can use it.

/// An enum of named choices: `name()`, `ALL`, `FromStr` and `Display`.
macro_rules! named_enum {
    ($(#[$m:meta])* $ty:ident, $kind:literal { $($(#[$vm:meta])* $var:ident => $name:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $ty { $($(#[$vm])* #[serde(rename = $name)] $var),+ }
        impl $ty {
            /// Every choice, in documentation order.
            pub const ALL: &'static [$ty] = &[$($ty::$var),+];
            /// The CLI name.
            pub fn name(self) -> &'static str { match self { $($ty::$var => $name),+ } }
        }
        impl ::std::str::FromStr for $ty {
            type Err = crate::error::SimError;
            fn from_str(s: &str) -> Result<Self, crate::error::SimError> {
                $ty::ALL.iter().copied().find(|v| v.name() == s).ok_or_else(|| crate::error::SimError::UnknownName {
                    kind: $kind,
                    name: s.to_string(),
                    valid: $ty::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", "),
                })
            }
        }
        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result { f.write_str(self.name()) }
        }
    };
}
pub(crate) use named_enum;
