//! Number and text formatting shared by the format writers, fixed so that
//! the same selection gives the same bytes: whole seconds rounded half up,
//! whole GPUs rounded up, shortest round-trip decimals, RFC 4180 quoting,
//! wall-clock times in the trace's zone.

use chrono::DateTime;
use tracelab_present::csv::field as csv_field;
use tracelab_schema::Trace;
use tracelab_sim::Millis;

/// Milliseconds to whole seconds, halves rounded up (`floor(ms/1000 + 1/2)`).
pub fn secs(ms: Millis) -> i64 {
    (ms + 500).div_euclid(1000)
}

/// Milli-GPUs to whole GPUs, rounded up: a shared (fractional) GPU counts
/// as one GPU, and at least one is asked for.
pub fn whole_gpus(gpu_milli: u32) -> u32 {
    gpu_milli.div_ceil(1000).max(1)
}

/// A decimal in its shortest round-trip form (`0.5`, `8`, `0.333`).
pub fn num(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    format!("{x}")
}

/// Milli-GPUs as GPUs (`500` -> `0.5`), exact in decimal.
pub fn gpus(gpu_milli: u32) -> String {
    num(gpu_milli as f64 / 1000.0)
}

/// One CSV line (with its newline), each field quoted when it needs it.
/// An empty field is a value the trace does not record and stays bare (the
/// simulators' loaders read it as missing); tracelab's own CSV quotes empty
/// text to tell it from a null, a distinction these formats do not make.
pub fn csv_line<S: AsRef<str>>(fields: &[S]) -> String {
    let cells: Vec<_> =
        fields.iter().map(|f| if f.as_ref().is_empty() { "".into() } else { csv_field(f.as_ref()) }).collect();
    cells.join(",") + "\n"
}

/// Text that goes into a comment line: control characters (a newline would
/// end the comment) become spaces.
pub fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// An instant as the trace's local wall clock, `YYYY-MM-DD HH:MM:SS` (the
/// layout of the Helios and Philly logs).
pub fn wall_clock(ms: Millis, trace: Trace) -> String {
    let tz: chrono_tz::Tz = trace.local_tz().parse().expect("Trace::local_tz names IANA zones");
    DateTime::from_timestamp_millis(ms)
        .map_or_else(|| format!("{ms} ms"), |t| t.with_timezone(&tz).format("%Y-%m-%d %H:%M:%S").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_half_up_and_gpus_round_up() {
        assert_eq!((secs(1499), secs(1500), secs(0), secs(-500), secs(-501)), (1, 2, 0, 0, -1));
        assert_eq!((whole_gpus(250), whole_gpus(1000), whole_gpus(1001), whole_gpus(8000)), (1, 1, 2, 8));
        assert_eq!((gpus(500), gpus(8000), gpus(250)), ("0.5".to_string(), "8".to_string(), "0.25".to_string()));
    }

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        assert_eq!(csv_line(&["a", "b,c", "d\"e", ""]), "a,\"b,c\",\"d\"\"e\",\n");
        assert_eq!(one_line("vc\nname\t1"), "vc name 1");
    }

    #[test]
    fn wall_clock_is_the_trace_zone() {
        // 2020-06-09 10:41:01 UTC is 18:41:01 in Shanghai (UTC+8).
        assert_eq!(wall_clock(1_591_699_261_000, Trace::Helios), "2020-06-09 18:41:01");
        // 2017-10-07 08:11:39 UTC is 01:11:39 PDT (UTC-7).
        assert_eq!(wall_clock(1_507_363_899_000, Trace::Philly), "2017-10-07 01:11:39");
    }
}
