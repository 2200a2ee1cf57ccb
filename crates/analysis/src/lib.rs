//! Named analyses over an ingested store: each is a Polars lazy query (plus
//! small reductions in [`tracelab_stats`]) that returns a typed [`Output`].
//! Every analysis is declared one way (the `Analyze` trait, `declare.rs`), in a file
//! named after its id, and listed once in `registry.rs`, the order
//! `tracelab analyze --list` prints and report specs refer to by id.
//!
//! Layer 3: reads the store through [`tracelab_store`], never the raw files,
//! never prints. Definitions: each analysis's declaration, from which
//! `docs/definitions.md` is generated ([`docs`]), one section per id; every
//! output carries its definition, and upstream quirks are reproduced by
//! default with the corrected variant behind a parameter.
//!
//! Public: the registry ([`registry()`], [`find`], [`Analysis`]), [`Ctx`], the
//! output types, the parameter descriptions ([`ParamSpec`], [`describe`],
//! [`Args`]) and `render`; the analyses themselves are private.

mod acme;
pub mod calibration;
mod cross;
mod declare;
pub mod docs;
pub mod frame;
pub mod headline_row;
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
pub use params::{Args, Kind, ParamSpec};
pub use registry::{find, registry};

use tracelab_store::Store;

/// What an analysis may read: the store (reference inputs such as the
/// PAI authors' Philly runtimes are tables of it).
pub struct Ctx {
    pub store: Store,
    /// Intermediates shared by the analyses run with this context.
    pub shared: shared::Shared,
    /// What the caller wants told or done around long steps.
    pub hooks: Hooks,
    /// Analyses run side by side in a report: the first to need the PAI
    /// derived frames builds them (about 1.5 GB at full scale), the others
    /// wait for it and read them rather than building them again at once.
    pub(crate) derived_build: std::sync::Mutex<()>,
}

impl Ctx {
    pub fn new(store: Store) -> Ctx {
        Ctx::with_hooks(store, Hooks::default())
    }

    pub fn with_hooks(store: Store, hooks: Hooks) -> Ctx {
        Ctx { store, shared: shared::Shared::default(), hooks, derived_build: std::sync::Mutex::new(()) }
    }
}

/// The caller's hooks around the PAI derived-frame build (the one long step
/// of an analysis that is not a query): the binary draws its progress on a
/// terminal and runs it without transparent huge pages; a library user or a
/// test passes none.
/// Told each step of a long build (`None` when it ends).
pub type ProgressHook = std::sync::Arc<dyn Fn(Option<&str>) + Send + Sync>;
/// Runs a long build (the function it is given, once).
pub type AroundHook = std::sync::Arc<dyn Fn(&mut dyn FnMut()) + Send + Sync>;

#[derive(Clone, Default)]
pub struct Hooks {
    /// Called with a step's label before each step of the build and with
    /// `None` when it ends.
    pub progress: Option<ProgressHook>,
    /// Runs the build: must call the function it is given, once.
    pub around_build: Option<AroundHook>,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("progress", &self.progress.is_some())
            .field("around_build", &self.around_build.is_some())
            .finish()
    }
}
