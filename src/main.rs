//! The `tracelab` binary: argv in, the library crates do the work, output
//! and exit codes out (all in [`cli`]).

mod cli;

/// mimalloc returns freed memory to the system where glibc malloc kept it
/// in per-thread arenas: ingesting the three full-scale traces in one run
/// peaked at 2.0 GB with glibc and at 1.0 GB with mimalloc (and PAI alone
/// ingests about 20 % faster).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Has mimalloc return freed memory to the system at once instead of after
/// its purge delay (10 ms by default). `simulate` frees the hundreds of MB
/// it read from the store's PAI tables just before building as much again
/// for the workload; with the delay both stayed resident: the full-scale
/// PAI replay peaked at 1.06-1.14 GB, without it at 0.82-0.83 GB, for
/// about 0.5 s more (bench/simulate.py). Other verbs keep the default.
pub fn purge_freed_memory_at_once() {
    // `mi_option_purge_delay` is option 15 of mimalloc's `mi_option_t`
    // (include/mimalloc.h, v2 and v3); libmimalloc-sys 0.1.49 names only
    // the options before it.
    const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: mimalloc allows setting an option at any time; it is a store
    // of an integer it reads when it next purges.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
}

fn main() {
    std::process::exit(cli::main());
}
