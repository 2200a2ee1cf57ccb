//! The `tracelab` binary: argv in, the library crates do the work, output
//! and exit codes out (all in [`cli`]).

// The binary is where tracelab talks to the user: its verbs print results
// to stdout and notes, progress and errors to stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod cli;

/// mimalloc returns freed memory to the system where glibc malloc keeps it
/// in per-thread arenas, which roughly doubled the peak memory of an ingest
/// of the full traces (bench/ingest.py measures both).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`: how long freed memory stays with
/// the process before it is returned to the system (1 s by default in
/// mimalloc v3, the version mimalloc 0.1.52 builds; 0 at once, -1 never;
/// `MIMALLOC_VERBOSE=1` prints it). The report keeps the default. It is option 15 of
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
/// with the delay both stay resident, so the replay's peak is about a
/// quarter higher, for a fraction of a second saved (bench/simulate.py).
pub fn purge_freed_memory_at_once() {
    set_purge_delay(0);
}

/// Runs `work` with mimalloc keeping the memory it frees for reuse, and
/// without transparent huge pages ([`without_huge_pages`]: each row group's
/// fresh buffers were zeroed 2 MB at a time, a quarter of the CPU time of
/// an AcmeTrace ingest), then restores both. An ingest frees and allocates column buffers
/// for every row group; returned to the system after the delay, each came
/// back as fresh pages the kernel had to zero again, so keeping it trades
/// some peak memory for much less kernel time (bench/ingest.py). A query
/// runs the same way: its joins and groupings grow and free their buffers
/// batch by batch, its memory is bounded by its own pool (`--memory-limit`),
/// and even `SELECT 1` had the kernel zero a first 2 MB page (bench/query.py).
/// The analyses keep the default: never purging raises a full report's peak
/// by about a third.
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
/// Work that fills and frees gigabytes of buffers (the PAI derived-frame
/// build, the analyses of a full report) pays for that in kernel time, with
/// the same output bytes and about the same peak.
///
/// Small analyses go the other way (many more, smaller page faults cost
/// more CPU than the zeroing saved), so the analyses that declare little
/// memory keep them (bench/pai.py).
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

/// `tracelab query` turns transparent huge pages off before the allocator
/// maps its first memory. mimalloc asks for huge pages on its first arena,
/// and by the time `main` ran it had touched a first 2 MB page the kernel
/// zeroed whole: 0.9 ms of the 8 ms of CPU a `SELECT 1` took (median of
/// 150 runs each way). A query then runs without them anyway
/// ([`keeping_freed_memory`]). glibc calls the functions of `.init_array`
/// with the program's arguments, those of a numbered section before the
/// unnumbered ones (`strace` shows this `prctl` before mimalloc's first
/// `mmap`); this one only reads `argv[1]` and allocates nothing. Other verbs, and `query` given after
/// another argument, start as before.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[link_section = ".init_array.00200"]
static QUERY_STARTS_WITHOUT_HUGE_PAGES: extern "C" fn(
    std::os::raw::c_int,
    *const *const std::os::raw::c_char,
    *const *const std::os::raw::c_char,
) = query_starts_without_huge_pages;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" fn query_starts_without_huge_pages(
    argc: std::os::raw::c_int,
    argv: *const *const std::os::raw::c_char,
    _env: *const *const std::os::raw::c_char,
) {
    if argc < 2 || argv.is_null() {
        return;
    }
    // SAFETY: glibc passes argc and the argv array of argc NUL-terminated
    // strings that `main` gets; argv[1] exists as argc >= 2.
    let verb = unsafe { std::ffi::CStr::from_ptr(*argv.add(1)) };
    if verb.to_bytes() == b"query" {
        // SAFETY: sets one flag of this process; no memory is passed.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}

fn main() {
    tracelab_store::polars_settings::apply();
    std::process::exit(cli::main());
}
