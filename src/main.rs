//! The `tracelab` binary: argv in, the library crates do the work, output
//! and exit codes out (all in [`cli`]).

mod cli;

/// mimalloc returns freed memory to the system where glibc malloc kept it
/// in per-thread arenas: ingesting the three full-scale traces in one run
/// peaked at 2.0 GB with glibc and at 1.0 GB with mimalloc (and PAI alone
/// ingests about 20 % faster).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(cli::main());
}
