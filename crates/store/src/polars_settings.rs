//! How every front end (the binary, the Python module) sets up the Polars
//! it links, once, before any query runs: group aggregation in row order (so
//! the same store gives the same bytes) and no deprecation warnings about
//! Polars' own Python API on stderr. Nothing else is configured here.

/// Applies both settings; call it first, before any thread starts.
pub fn apply() {
    aggregate_groups_in_row_order();
    warn_without_polars_deprecations();
}

/// Makes Polars' in-memory engine aggregate every group in row order.
///
/// For a GROUP BY on one or two plain columns with fewer than about 1,000
/// distinct keys (vc, cluster, GPU type, month...), Polars 0.55 hands the
/// aggregation to its streaming group-by, whose threads take the input in
/// 100,000-row pieces as they free up; a floating-point SUM or MEAN then
/// adds in a different order on each run and its last bits move. At full
/// scale `helios.monthly` and `pai.allocation-by-gpu-type` printed
/// different numbers on two runs of the same store (the sample store is
/// one piece, so the committed report never showed it). With
/// `POLARS_NO_PARTITION` set, Polars uses its hash aggregation instead,
/// which sums each group in row order: the same bytes on every run.
fn aggregate_groups_in_row_order() {
    // Read by polars-mem-engine (group_by_streaming.rs, `can_run_partitioned`)
    // each time it plans such a group-by. Set before any thread starts.
    std::env::set_var("POLARS_NO_PARTITION", "1");
}

/// Keeps Polars' deprecation warnings off stderr. They name Polars' own
/// Python API about SQL a user wrote: `DATE '2020-06-30'` printed
/// "Casting from String to Date is deprecated and will be removed in Polars
/// 2.0. Use `str.to_date()` instead." above the answer, which the pinned
/// Polars computes correctly. Other warnings still go to stderr.
fn warn_without_polars_deprecations() {
    // Polars calls this hook with no way to hand the warning back, so it
    // goes to stderr as Polars' own default does.
    #[allow(clippy::print_stderr)]
    fn warn(message: &str, kind: polars::error::PolarsWarning) {
        if !matches!(kind, polars::error::PolarsWarning::Deprecation) {
            eprintln!("warning: {message}");
        }
    }
    polars::error::set_warning_function(warn);
}
