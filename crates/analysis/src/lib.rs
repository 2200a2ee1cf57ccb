//! Named analyses over an ingested store: each is a Polars lazy query (plus
//! small reductions in [`tracelab_stats`]) that returns a typed [`Output`].
//! The registry here is what `tracelab analyze --list` prints and what report
//! specs refer to by id.
//!
//! Layer 2: reads the store through [`tracelab_store`], never the raw files,
//! never prints. Definitions: `docs/definitions.md`, one section per id; every
//! output carries its definition, and upstream quirks are reproduced by
//! default with the corrected variant behind a parameter.

pub mod cross;
pub mod frame;
pub mod helios;
pub mod output;
pub mod pai;
mod params;
pub mod philly;
pub mod render;
pub mod shared;
#[cfg(test)]
pub mod testkit;

pub use output::{Body, Cell, Headline, Output, Part, ResultTable};
pub use params::{describe, Args, Param};

use tracelab_schema::error::{Error, Result};
use tracelab_store::Store;

/// Which trace an analysis reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Pai,
    Philly,
    Helios,
    /// The unified `jobs` table (and, for some, several traces).
    Cross,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Pai => "pai",
            Scope::Philly => "philly",
            Scope::Helios => "helios",
            Scope::Cross => "cross",
        }
    }
}

/// A named analysis.
pub struct Analysis {
    /// `<scope>.<name>`, e.g. `pai.wait-by-gpu-type`.
    pub id: &'static str,
    pub scope: Scope,
    /// The paper figure or notebook cell it mirrors, e.g. "NSDI'22 Fig 5b
    /// (notebook A10)"; "tracelab" for views no anchor has.
    pub mirrors: &'static str,
    /// One line for `--list`.
    pub summary: &'static str,
    pub params: &'static [Param],
    pub run: fn(&Ctx, &Args) -> Result<Output>,
}

/// What an analysis may read: the store (reference inputs such as the
/// PAI authors' Philly runtimes are tables of it).
pub struct Ctx {
    pub store: Store,
    /// Intermediates shared by the analyses run with this context.
    pub shared: shared::Shared,
}

impl Ctx {
    pub fn new(store: Store) -> Ctx {
        Ctx { store, shared: shared::Shared::default() }
    }
}

/// Every analysis, in `--list` order.
pub fn registry() -> Vec<&'static Analysis> {
    let mut groups: Vec<&'static [Analysis]> = pai::GROUPS.to_vec();
    groups.extend([philly::ANALYSES, helios::ANALYSES, cross::ANALYSES]);
    groups.into_iter().flat_map(|g| g.iter()).collect()
}

pub fn find(id: &str) -> Result<&'static Analysis> {
    let all = registry();
    all.iter().copied().find(|a| a.id == id).ok_or_else(|| {
        let close: Vec<&str> = all.iter().map(|a| a.id).filter(|a| a.contains(id) || id.contains(*a)).collect();
        let hint = if close.is_empty() {
            "see `tracelab analyze --list`".to_string()
        } else {
            format!("did you mean {}?", close.join(", "))
        };
        Error::Usage(format!("unknown analysis `{id}`; {hint}"))
    })
}

impl Analysis {
    /// Validates `given` (name, value) pairs against the declared
    /// parameters, fills defaults, and runs.
    pub fn run(&self, ctx: &Ctx, given: &[(String, String)]) -> Result<Output> {
        let args = Args::validate(self, given)?;
        let mut out = (self.run)(ctx, &args)?;
        out.params = args.pairs();
        Ok(out)
    }
}
