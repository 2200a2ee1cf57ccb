//! How an analysis is declared: a unit struct implementing [`Analyze`], in
//! a file named after its id (`pai.machine-util` is `pai/machine_util.rs`),
//! listed once in [`crate::registry()`].
//!
//! The declaration gives, without running anything: the id, scope, paper
//! figure or notebook cell, one-line summary and title ([`About`]); the
//! typed parameters ([`Analyze::Params`], a struct declared with
//! [`crate::params::params!`] whose fields are the values the run receives);
//! the definition text for those parameters ([`Analyze::definition`]); and
//! the published values ([`Published`]: value, unit, source, and the
//! parameters they hold for), which every run attaches to the headline of
//! the same key. The run function only computes: it receives typed
//! parameter values and an [`Output`] already carrying the id, title and
//! definition, and adds the parts.
//!
//! Why a trait and not a declarative macro: the declaration stays plain
//! Rust (rustdoc, go-to-definition and compiler errors point at the
//! analysis's own lines), the parameters are a type so a run cannot read a
//! parameter it did not declare or read one as the wrong type (it does not
//! compile), and the metadata are associated constants every tool can read.
//! [`Analysis::of`] (a `const fn`) turns each declaration into the same
//! registry entry, so the registry is one static array in `--list` order.
//! Two small macros only remove repetition: [`crate::params::choice!`] (an
//! enum and its names) and [`crate::params::params!`] (a parameter struct
//! and its reader).

use std::borrow::Cow;
use std::fmt;

use crate::output::{Body, Output};
use crate::params::{self, Args, ParamSpec, Params};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::Table;
use tracelab_store::Store;

/// Which trace an analysis reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Pai,
    Philly,
    Helios,
    /// AcmeTrace (Seren, Kalos).
    Acme,
    /// Alibaba's spot-GPU trace.
    Spot,
    /// The unified `jobs` table (and, for some, several traces).
    Cross,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Pai => "pai",
            Scope::Philly => "philly",
            Scope::Helios => "helios",
            Scope::Acme => "acme",
            Scope::Spot => "spot",
            Scope::Cross => "cross",
        }
    }
}

/// What `--list`, the report and the output say about an analysis.
#[derive(Debug, Clone, Copy)]
pub struct About {
    /// `<scope>.<name>`, e.g. `pai.wait-by-gpu-type`; the file is
    /// `<scope>/<name with underscores>.rs`.
    pub id: &'static str,
    pub scope: Scope,
    /// The paper figure or notebook cell it mirrors, e.g. "NSDI'22 Fig 5b
    /// (notebook A10)"; "tracelab" for views no anchor has.
    pub mirrors: &'static str,
    /// One line for `--list`.
    pub summary: &'static str,
    /// The output's title.
    pub title: &'static str,
}

/// What an analysis holds in memory at its peak, declared so that a report
/// can run analyses side by side within a budget ([`Analysis::memory`]).
/// The figures come from the per-analysis peak RSS the benchmarks print at
/// full scale (`bench/pai.py`, `bench/philly.py`), divided by the rows of
/// the table the analysis holds; they are estimates for scheduling, not
/// limits.
#[derive(Debug, Clone, Copy)]
pub enum Memory {
    /// Aggregates of bounded size: at most [`Memory::SMALL`] bytes.
    Small,
    /// About this many bytes per row of the table.
    PerRow(&'static Table, u64),
}

impl Memory {
    /// What a small analysis is counted as: the peak of the largest of them
    /// at full scale, rounded up.
    pub const SMALL: u64 = 400 << 20;

    /// The estimate for `store`, in bytes.
    pub fn bytes(self, store: &Store) -> u64 {
        match self {
            Memory::Small => Memory::SMALL,
            Memory::PerRow(table, per_row) => {
                store.rows(table).map_or(Memory::SMALL, |rows| rows.saturating_mul(per_row).max(Memory::SMALL))
            }
        }
    }
}

/// A number a paper or the owners' notebook published, which the headline
/// with the same key shows beside ours.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    /// The headline key.
    pub key: Cow<'static, str>,
    pub value: f64,
    /// The headline's unit.
    pub unit: &'static str,
    /// Where the number comes from.
    pub source: &'static str,
    /// The parameter values (name, value) the number holds for; empty:
    /// whatever the parameters.
    pub when: &'static [(&'static str, &'static str)],
}

impl Published {
    pub const fn new(key: &'static str, value: f64, unit: &'static str, source: &'static str) -> Published {
        Published { key: Cow::Borrowed(key), value, unit, source, when: &[] }
    }

    /// Only for runs with these parameter values.
    pub const fn when(mut self, params: &'static [(&'static str, &'static str)]) -> Published {
        self.when = params;
        self
    }

    /// The value published under `key` in `list`, for tables that print
    /// it beside ours.
    pub fn lookup(list: &[Published], key: &str) -> Option<f64> {
        list.iter().find(|p| p.key == key).map(|p| p.value)
    }

    /// Whether the number holds for a run with `args`.
    pub fn applies(&self, args: &Args) -> bool {
        self.when.iter().all(|(name, value)| args.is(name, value))
    }
}

/// The declaration of an analysis (see the module doc).
pub trait Analyze: Sync + 'static {
    /// The typed parameters (`()` for none).
    type Params: Params;
    const ABOUT: About;
    /// The long form of the definition, in Markdown: what is computed
    /// (tables, columns, filters, units, bins), the published values in
    /// words, and every difference from the owners' code. It is the
    /// analysis's section of `docs/definitions.md` (generated,
    /// [`crate::docs`]), which adds the parameters, the published values and
    /// the one-paragraph [`Analyze::definition`] from this declaration.
    /// Every analysis of the registry has one (a registry test checks);
    /// the replay views of `tracelab-workload` are documented with the
    /// verbs that share their options (`docs/simulate.md`).
    const DOC: &'static str = "";
    /// The published values its headlines pick up by key.
    const PUBLISHED: &'static [Published] = &[];
    /// Its peak memory, for running analyses side by side.
    const MEMORY: Memory = Memory::Small;

    /// [`Self::PUBLISHED`]; overridden only where the values are computed
    /// from a published file.
    fn published() -> Cow<'static, [Published]> {
        Cow::Borrowed(Self::PUBLISHED)
    }

    /// The definition for these parameters: tables, filters, joins, units
    /// and upstream conventions. A number that comes from the data is a
    /// `{name}` hole the run fills ([`Output::fill`]).
    fn definition(params: &Self::Params) -> String;

    /// Computes the parts of `out` (which carries id, title and definition).
    fn run(ctx: &Ctx, params: &Self::Params, out: &mut Output) -> Result<()>;
}

/// The object-safe face of [`Analyze`], for the registry.
trait Run: Sync {
    fn published(&self) -> Cow<'static, [Published]>;
    fn definition(&self, args: &Args) -> String;
    fn run(&self, ctx: &Ctx, args: &Args) -> Result<Output>;
}

impl<A: Analyze> Run for A {
    fn published(&self) -> Cow<'static, [Published]> {
        A::published()
    }

    fn definition(&self, args: &Args) -> String {
        A::definition(&A::Params::read(args))
    }

    fn run(&self, ctx: &Ctx, args: &Args) -> Result<Output> {
        let params = A::Params::read(args);
        let mut out = Output::new(A::ABOUT.id, A::ABOUT.title, A::definition(&params));
        A::run(ctx, &params, &mut out)?;
        Ok(out)
    }
}

/// A registered analysis: its `About` fields, its parameters, and how to
/// run it.
pub struct Analysis {
    pub id: &'static str,
    pub scope: Scope,
    pub mirrors: &'static str,
    pub summary: &'static str,
    pub title: &'static str,
    /// [`Analyze::DOC`].
    pub doc: &'static str,
    pub params: &'static [ParamSpec],
    pub memory: Memory,
    imp: &'static dyn Run,
}

impl fmt::Debug for Analysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Analysis").field("id", &self.id).finish_non_exhaustive()
    }
}

impl Analysis {
    /// The registry entry of a declaration.
    pub const fn of<A: Analyze>(analysis: &'static A) -> Analysis {
        let about = A::ABOUT;
        Analysis {
            id: about.id,
            scope: about.scope,
            mirrors: about.mirrors,
            summary: about.summary,
            title: about.title,
            doc: A::DOC,
            params: A::Params::DECLARED,
            memory: A::MEMORY,
            imp: analysis,
        }
    }

    /// Validates `given` (name, value) pairs against the declared
    /// parameters, fills defaults, runs, and attaches the published values.
    pub fn run(&self, ctx: &Ctx, given: &[(String, String)]) -> Result<Output> {
        let args = Args::validate(self, given)?;
        let mut out = self.imp.run(ctx, &args)?;
        out.params = args.pairs();
        attach(&mut out, &self.imp.published(), &args);
        Ok(out)
    }

    /// The definition for these parameters, without running (numbers that
    /// come from the data stay `{name}` holes).
    pub fn definition(&self, given: &[(String, String)]) -> Result<String> {
        Ok(self.imp.definition(&Args::validate(self, given)?))
    }

    /// The declared peak of a run over `store` now: [`Memory::bytes`], plus,
    /// for a PAI analysis while the PAI derived frames are not built, the
    /// build it may have to do first (the first PAI analysis of a report
    /// builds them; the others wait for it).
    pub fn memory_now(&self, store: &Store) -> u64 {
        let own = self.memory.bytes(store);
        if self.scope != Scope::Pai || crate::pai::derived::is_built(store) {
            return own;
        }
        let build = store
            .rows(&tracelab_schema::pai::INSTANCE)
            .map_or(0, |n| n.saturating_mul(crate::pai::derived::BUILD_BYTES_PER_INSTANCE));
        own.max(build)
    }

    /// The declared published values.
    pub fn published(&self) -> Cow<'static, [Published]> {
        self.imp.published()
    }
}

impl Args {
    /// [`Args::check`] against `analysis`'s parameters.
    pub fn validate(analysis: &Analysis, given: &[(String, String)]) -> Result<Args> {
        Args::check(analysis.id, analysis.params, given)
    }
}

/// `name=default (choices)` for every parameter of `analysis`, or "none".
pub fn describe(analysis: &Analysis) -> String {
    params::describe(analysis.params)
}

/// Sets published value and source on every headline whose key a declared
/// value that holds for `args` has.
fn attach(out: &mut Output, published: &[Published], args: &Args) {
    let id = out.id.clone();
    for part in &mut out.parts {
        let Body::Headlines(headlines) = &mut part.body else { continue };
        for h in headlines {
            if let Some(p) = published.iter().find(|p| p.key == h.key && p.applies(args)) {
                debug_assert_eq!(p.unit, h.unit, "{id}: unit of the published {}", p.key);
                h.published = Some(p.value);
                h.source = p.source.to_string();
            }
        }
    }
}
