//! Named analyses over an ingested store: each is a Polars lazy query (plus
//! small reductions in [`tracelab_stats`]) that returns a typed [`Output`].
//! Every analysis is declared one way (the `Analyze` trait, `declare.rs`), in a file
//! named after its id, and listed once in `registry.rs`, the order
//! `tracelab analyze --list` prints and report specs refer to by id.
//!
//! Layer 3: reads the store through [`tracelab_store`], never the raw files,
//! never prints. Definitions: `docs/definitions.md`, one section per id; every
//! output carries its definition, and upstream quirks are reproduced by
//! default with the corrected variant behind a parameter.
//!
//! Public: the registry ([`registry()`], [`find`], [`Analysis`]), [`Ctx`], the
//! output types, the parameter descriptions ([`ParamSpec`], [`describe`],
//! [`Args`]) and `render`; the analyses themselves are private.

mod acme;
mod cross;
mod declare;
pub mod frame;
mod helios;
mod output;
mod pai;
pub mod params;
mod philly;
mod registry;
pub mod render;
mod seed;
mod shared;
mod spot;
#[cfg(test)]
mod testkit;
pub mod usage;

pub use declare::{describe, About, Analysis, Analyze, Memory, Published, Scope};
pub use output::{Body, Cell, Headline, Output, Part, ResultTable};
pub use pai::derived::around_build as around_pai_derived_build;
pub use pai::derived::on_progress as on_pai_derived_progress;
pub use params::{Args, Kind, ParamSpec};
pub use registry::{find, registry};

use tracelab_store::Store;

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
