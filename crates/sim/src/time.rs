//! Simulated time: whole milliseconds in an `i64`.
//!
//! Integer milliseconds make "a job runs exactly its duration" exact and the
//! order of events deterministic (no floating-point clock). Trace times in
//! seconds convert with [`from_secs`]; an `i64` of milliseconds spans about
//! 292 million years, so any trace fits.

/// A point in simulated time or a span of it, in milliseconds.
pub type Millis = i64;

/// One second.
pub const SECOND: Millis = 1000;

/// The largest submission time (either side of zero) and duration a job may
/// have, in seconds: about 3,200 years. An `i64` of milliseconds holds
/// 92,000 such spans end to end, so the engine's sums of times cannot
/// overflow; no trace comes near it (epoch seconds are about 1.7e9).
pub const MAX_SECS: f64 = 1e11;

/// [`MAX_SECS`] in milliseconds.
pub const MAX_MILLIS: Millis = 100_000_000_000_000;

/// The latest time the engine's clock may reach: 2^62 ms, about 146 million
/// years. Inputs stay within [`MAX_MILLIS`], but computed times may go
/// beyond them: a completion stretched by a large sharing slowdown or by
/// preemption overheads. A completion past this limit is an error naming the
/// job (it used to wrap the clock and report a makespan of i64::MAX ms).
/// Below it, the sum of any two clock values fits an `i64`.
pub const MAX_CLOCK: Millis = 1 << 62;

/// Seconds (as in the traces) to milliseconds, rounded to the nearest.
pub fn from_secs(secs: f64) -> Millis {
    (secs * 1000.0).round() as Millis
}

/// Milliseconds to seconds (for reports).
pub fn to_secs(ms: Millis) -> f64 {
    ms as f64 / 1000.0
}
