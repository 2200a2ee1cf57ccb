//! Links the `tracelab` binary as a fixed-address executable (`-no-pie`).
//!
//! Every `tracelab` run is a new process, and `tracelab query` is often run
//! for one small answer. Linked position-independent, the loader applies
//! about 320,000 relocations to the Polars and DataFusion tables at every
//! start, copying each page they touch: about a third of the CPU time of
//! `tracelab query 'SELECT 1'` (bench/query.py prints that fixed cost).
//! Linked at a fixed address, those tables need no relocation. Only the
//! binaries' link changes (`rustc-link-arg-bins`), so no crate is rebuilt.

// Cargo reads a build script's instructions from its stdout.
#![allow(clippy::print_stdout)]

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
