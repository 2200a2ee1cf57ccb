//! The `tracelab` binary: argv in, the library crates do the work, output
//! and exit codes out (all in [`cli`]).

mod cli;

/// mimalloc returns freed memory to the system where glibc malloc kept it
/// in per-thread arenas: ingesting the three full-scale traces in one run
/// peaked at 2.0 GB with glibc and at 1.0 GB with mimalloc (and PAI alone
/// ingests about 20 % faster).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`: how long freed memory stays with
/// the process before it is returned to the system (1 s by default in
/// mimalloc v3, the version mimalloc 0.1.52 builds; 0 at once, -1 never;
/// `MIMALLOC_VERBOSE=1` prints it). The report keeps the default: the
/// README's Benchmark section measures others. It is option 15 of
/// `mi_option_t` (include/mimalloc.h, v2 and v3); libmimalloc-sys 0.1.49
/// names only the options before it.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn set_purge_delay(ms: std::os::raw::c_long) {
    // SAFETY: mimalloc allows setting an option at any time; it is a store
    // of an integer it reads when it next purges.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, ms) }
}

/// Has mimalloc return freed memory to the system at once instead of after
/// its purge delay. `simulate` frees the hundreds of MB it read from the
/// store's PAI tables just before building as much again for the workload;
/// with the delay both stayed resident: the full-scale PAI replay peaked at
/// 1.06-1.14 GB, without it at 0.82-0.83 GB, for about 0.5 s more
/// (bench/simulate.py).
pub fn purge_freed_memory_at_once() {
    set_purge_delay(0);
}

/// Runs `work` with mimalloc keeping the memory it frees for reuse, and
/// without transparent huge pages ([`without_huge_pages`]: each row group's
/// fresh buffers were zeroed 2 MB at a time, a quarter of the CPU time of
/// an AcmeTrace ingest), then restores both. An ingest frees and allocates column buffers
/// for every row group; returned to the system after the delay, each came
/// back as fresh pages the kernel had to zero again. Ingesting the three
/// full-scale traces took 33-40 s (4-17 s of it in the kernel) and peaked
/// at 1.06-1.11 GB; keeping the memory, 30-31 s (2.1-2.6 s) and 1.22-1.28
/// GB, with the same Parquet bytes. The analyses keep the default: never
/// purging took the full-scale report from 2.7 to 3.5 GB.
pub fn keeping_freed_memory<T>(work: impl FnOnce() -> T) -> T {
    // SAFETY: reading an option is a load of an integer.
    let before = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
    set_purge_delay(-1);
    let out = without_huge_pages(work);
    set_purge_delay(before);
    out
}

/// Runs `work` with transparent huge pages off for this process (Linux),
/// then allows them again (unless they were off already). mimalloc asks
/// the kernel for huge pages on the memory it maps; the kernel zeroes each
/// 2 MB page whole when it is first touched and, when memory is fragmented
/// (a machine whose memory is full of page cache), compacts memory first.
/// Work that fills and frees gigabytes of buffers pays for that:
/// - the PAI derived-frame build at full scale took 6.0-7.0 s (2.2-3.7 s in
///   the kernel) with huge pages, 5.3-5.8 s (1.1-1.8 s) without, peak
///   1.46-1.49 and 1.43-1.49 GB;
/// - the analyses of the full-scale report (`report --no-cache` over an
///   ingested store), two alternating runs each: 57.6-60.4 s and 98-100
///   CPU-seconds with them, 54.0-55.7 s and 91-93 without, peak 2.44-2.47
///   and 2.50-2.62 GB, the same report bytes.
///
/// Small work goes the other way (many more, smaller page faults): a query
/// took 20-50 % more CPU without them and a small analysis 20-90 ms more
/// (`pai.wait-over-completion` warm: 0.19-0.22 s with, 0.26-0.31 s
/// without), so `query` and the analyses that declare little memory keep
/// them, and so does ingest (the full PAI trace in 10.8-11.2 s with them,
/// 11.1-11.2 s without).
pub fn without_huge_pages<T>(work: impl FnOnce() -> T) -> T {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: PR_GET/SET_THP_DISABLE read and set one flag of this
        // process; no memory is passed.
        let was_on = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) } == 0;
        if was_on {
            unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
        }
        let out = work();
        if was_on {
            unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0) };
        }
        out
    }
    #[cfg(not(target_os = "linux"))]
    work()
}

/// The PAI derived-frame build's hook (`tracelab_analysis::Hooks`): without
/// huge pages, however it is reached (an `analyze`, a `report`).
pub fn around_pai_derived_build(work: &mut dyn FnMut()) {
    without_huge_pages(work)
}

fn main() {
    tracelab_store::polars_settings::apply();
    std::process::exit(cli::main());
}
