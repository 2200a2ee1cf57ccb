//! Philly's two clocks. The job log holds naive America/Los_Angeles wall
//! times (`2017-10-07 01:12:09`); the utilization files hold minute stamps
//! with the zone (`2017-10-03 00:08:00 PDT`, `PST` after the fall-back on
//! 2017-11-05 02:00 PDT). Synth keeps every instant in UTC seconds and
//! converts only when writing, so both files describe the same instants.
//!
//! The fall-back hour repeats 01:00-01:59 local. Utilization stamps carry
//! the zone and stay unambiguous; a naive job-log time in the second (PST)
//! 01:xx hour could not be told from the first one (ingest takes the earlier
//! instant, as `chrono`'s `earliest()` does), so synth never writes job
//! times in that hour: [`skip_repeated_hour`] moves them one hour on.

use chrono::{Offset, TimeZone};
use chrono_tz::America::Los_Angeles;

use tracelab_schema::civil::{hour_weekday, push_naive};

/// 2017-11-05 09:00 UTC = 01:00 PST, the instant of the fall-back.
pub const DST_END: i64 = 1_509_872_400;
/// 2017-08-07 00:00 PDT: first day of the job log (README).
pub const JOBS_START: i64 = 1_502_089_200;
/// 2017-12-23 00:00 PST: the day after the last day of the job log.
pub const JOBS_END: i64 = 1_514_016_000;
/// 2017-10-03 00:00 PDT: the first utilization stamp of the real files
/// (README example rows; HeliosArtifact CES node sequence).
pub const UTIL_START: i64 = 1_507_014_000;

/// Offset of America/Los_Angeles from UTC at `utc`, in seconds (-7 h or -8 h).
pub fn la_offset(utc: i64) -> i64 {
    let t = chrono::DateTime::from_timestamp(utc, 0).expect("time in range").naive_utc();
    Los_Angeles.offset_from_utc_datetime(&t).fix().local_minus_utc() as i64
}

/// Whether `utc` falls in the second, PST, pass of 01:xx on 2017-11-05.
pub fn in_repeated_hour(utc: i64) -> bool {
    (DST_END..DST_END + 3600).contains(&utc)
}

/// Moves an instant out of the repeated hour (see the module docs).
pub fn skip_repeated_hour(utc: i64) -> i64 {
    if in_repeated_hour(utc) {
        utc + 3600
    } else {
        utc
    }
}

/// Appends the naive local time `YYYY-MM-DD HH:MM:SS` of `utc`.
pub fn push_local(out: &mut String, utc: i64) {
    push_naive(out, utc + la_offset(utc));
}

/// Appends a utilization stamp: local minute time and ` PDT` or ` PST`.
pub fn push_util_stamp(out: &mut String, utc: i64) {
    let offset = la_offset(utc);
    push_naive(out, utc + offset);
    out.push_str(if offset == -7 * 3600 { " PDT" } else { " PST" });
}

/// Local hour of day (0-23) and weekday (0 = Monday) of `utc`.
pub fn local_hour_weekday(utc: i64) -> (u32, u32) {
    hour_weekday(utc + la_offset(utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(utc: i64) -> String {
        let mut s = String::new();
        push_local(&mut s, utc);
        s
    }

    fn stamp(utc: i64) -> String {
        let mut s = String::new();
        push_util_stamp(&mut s, utc);
        s
    }

    #[test]
    fn constants_are_the_documented_local_times() {
        assert_eq!(local(JOBS_START), "2017-08-07 00:00:00");
        assert_eq!(local(JOBS_END), "2017-12-23 00:00:00");
        assert_eq!(stamp(UTIL_START), "2017-10-03 00:00:00 PDT");
        assert_eq!(stamp(DST_END), "2017-11-05 01:00:00 PST");
    }

    #[test]
    fn the_fall_back_hour_appears_as_pdt_then_pst() {
        assert_eq!(stamp(DST_END - 3600), "2017-11-05 01:00:00 PDT");
        assert_eq!(stamp(DST_END - 60), "2017-11-05 01:59:00 PDT");
        assert_eq!(stamp(DST_END + 3540), "2017-11-05 01:59:00 PST");
        assert_eq!(stamp(DST_END + 3600), "2017-11-05 02:00:00 PST");
        // README example row: 2017-10-03 00:08:00 PDT is 07:08 UTC.
        assert_eq!(stamp(UTIL_START + 8 * 60), "2017-10-03 00:08:00 PDT");
    }

    #[test]
    fn job_times_never_land_in_the_ambiguous_pass() {
        assert_eq!(skip_repeated_hour(DST_END + 59), DST_END + 3659);
        assert_eq!(skip_repeated_hour(DST_END - 1), DST_END - 1);
        assert_eq!(local(skip_repeated_hour(DST_END + 30)), "2017-11-05 02:00:30");
    }

    #[test]
    fn civil_dates_and_weekdays() {
        // 2017-10-07 was a Saturday.
        let sat = 1_507_359_600 + 12 * 3600; // 2017-10-07 12:00 PDT
        assert_eq!(local_hour_weekday(sat), (12, 5));
    }
}
