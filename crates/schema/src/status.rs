//! Normalized job status shared by all traces, and the mapping from each
//! trace's own codes. The original code is always kept beside it.

use super::Trace;

/// Normalized status vocabulary of the unified `jobs` table.
pub const NORMALIZED: [&str; 5] = ["completed", "failed", "killed", "running", "unknown"];

/// Maps a trace's raw job status code to the normalized vocabulary.
///
/// - PAI: Terminated -> completed (the only success, README), Failed ->
///   failed, Running and Waiting -> running (not finished when the trace
///   ended), Interrupted -> killed.
/// - Philly: Pass -> completed, Failed -> failed, Killed -> killed. A job
///   whose last attempt has no end is reported `running` by the caller.
/// - Helios: COMPLETED -> completed, CANCELLED -> killed, FAILED, TIMEOUT and
///   NODE_FAIL -> failed (`trace_parser.py` regards the latter two as
///   failed), anything else (the one SUSPENDED job) -> unknown.
/// - SWF (field 11): 1 -> completed, 0 -> failed, 5 (cancelled) -> killed;
///   -1 and the partial-execution codes 2, 3, 4 -> unknown (a whole job is
///   its summary record, which carries 0, 1 or 5).
/// - AcmeTrace: as Helios (the same Slurm states; the README regards
///   TIMEOUT and NODE_FAIL as failed): COMPLETED -> completed, CANCELLED
///   (by the user) -> killed, FAILED, TIMEOUT, NODE_FAIL -> failed.
/// - Spot: the trace records no final state; its rows carry
///   [`SPOT_UNRECORDED`] and map to unknown.
pub fn normalize(trace: Trace, raw: &str) -> &'static str {
    match (trace, raw) {
        (Trace::Pai, "Terminated") | (Trace::Philly, "Pass") => "completed",
        (Trace::Helios | Trace::Acme, "COMPLETED") => "completed",
        (Trace::Pai | Trace::Philly, "Failed") => "failed",
        (Trace::Helios | Trace::Acme, "FAILED" | "TIMEOUT" | "NODE_FAIL") => "failed",
        (Trace::Pai, "Interrupted") | (Trace::Philly, "Killed") => "killed",
        (Trace::Helios | Trace::Acme, "CANCELLED") => "killed",
        (Trace::Pai, "Running" | "Waiting" | "Ready") => "running",
        (Trace::Swf, "1") => "completed",
        (Trace::Swf, "0") => "failed",
        (Trace::Swf, "5") => "killed",
        _ => "unknown",
    }
}

/// The `status_raw` of every spot-trace row: the trace has no final state.
pub const SPOT_UNRECORDED: &str = "unrecorded";

/// The (raw, normalized) pairs of a trace, for building a lookup in a query.
pub fn mapping(trace: Trace) -> Vec<(&'static str, &'static str)> {
    let raws: &[&'static str] = match trace {
        Trace::Pai => super::raw::pai::INSTANCE_STATUSES,
        Trace::Philly => super::raw::philly::STATUSES,
        Trace::Helios => super::raw::helios::STATES,
        Trace::Swf => &super::swf::status::RAW,
        Trace::Acme => super::raw::acme::STATES,
        Trace::Spot => &[SPOT_UNRECORDED],
    };
    raws.iter().map(|r| (*r, normalize(trace, r))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_code_maps_into_the_vocabulary() {
        for trace in Trace::ALL {
            for (raw, norm) in mapping(trace) {
                assert!(NORMALIZED.contains(&norm), "{trace}: {raw} -> {norm}");
            }
        }
    }

    #[test]
    fn helios_timeout_and_node_fail_count_as_failed_as_upstream() {
        assert_eq!(normalize(Trace::Helios, "TIMEOUT"), "failed");
        assert_eq!(normalize(Trace::Helios, "NODE_FAIL"), "failed");
        assert_eq!(normalize(Trace::Helios, "SUSPENDED"), "unknown");
        assert_eq!(normalize(Trace::Philly, "Killed"), "killed");
        assert_eq!(normalize(Trace::Pai, "Waiting"), "running");
        assert_eq!(normalize(Trace::Swf, "5"), "killed");
        assert_eq!(normalize(Trace::Swf, "3"), "unknown");
        assert_eq!(normalize(Trace::Acme, "NODE_FAIL"), "failed");
        assert_eq!(normalize(Trace::Acme, "CANCELLED"), "killed");
        assert_eq!(normalize(Trace::Acme, "COMPLETED"), "completed");
        assert_eq!(normalize(Trace::Spot, SPOT_UNRECORDED), "unknown");
    }
}
