//! Time conversions from the traces' raw spellings to UTC microseconds.
//!
//! The hot paths (PAI offsets, Philly per-minute stamps, Helios times) are
//! parsed by hand: the formats are fixed-width and a generic strftime parser
//! would dominate ingest time on the 6.6 GB Philly utilization files.

use chrono::{NaiveDateTime, TimeZone};

const US: i64 = 1_000_000;

/// Days from 1970-01-01 to the given civil date (proleptic Gregorian),
/// after Howard Hinnant's `days_from_civil`.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + (c - b'0') as u32))
}

/// Parses `YYYY-MM-DD` into days since the epoch.
pub fn parse_date(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (digits(&b[0..4])?, digits(&b[5..7])?, digits(&b[8..10])?);
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y as i64, m) {
        return None;
    }
    i32::try_from(days_from_civil(y as i64, m, d)).ok()
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

/// Parses a naive `YYYY-MM-DD HH:MM:SS` into seconds since the epoch, as if
/// it were UTC.
pub fn parse_naive_secs(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 19 || b[10] != b' ' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let days = parse_date(&s[..10])? as i64;
    let (h, mi, se) = (digits(&b[11..13])?, digits(&b[14..16])?, digits(&b[17..19])?);
    if h > 23 || mi > 59 || se > 59 {
        return None;
    }
    Some(days * 86_400 + (h * 3600 + mi * 60 + se) as i64)
}

/// PAI: offset seconds (`4550879.0`) to UTC microseconds at the same offset
/// from the epoch, so that Asia/Shanghai local time has the true time of day
/// and weekday. Empty and 0 mean "not recorded" (null). Negative offsets are
/// an error.
pub fn pai_offset(s: &str) -> Result<Option<i64>, &'static str> {
    if s.is_empty() {
        return Ok(None);
    }
    let v = super::record::parse_finite(s).ok_or("expected offset seconds (a number) or an empty field")?;
    if v < 0.0 {
        return Err("expected non-negative offset seconds");
    }
    if v == 0.0 {
        return Ok(None);
    }
    Ok(Some((v * US as f64).round() as i64))
}

/// Philly utilization stamp `2017-10-03 00:08:00 PDT` (or `PST`) to UTC
/// microseconds: PDT is UTC-7, PST is UTC-8.
pub fn philly_util_time(s: &str) -> Result<i64, &'static str> {
    const BAD: &str = "expected a time like `2017-10-03 00:08:00 PDT` (PDT or PST)";
    let (naive, zone) = s.split_at_checked(19).ok_or(BAD)?;
    let offset_h = match zone {
        " PDT" => 7,
        " PST" => 8,
        _ => return Err(BAD),
    };
    let local = parse_naive_secs(naive).ok_or(BAD)?;
    Ok((local + offset_h * 3600) * US)
}

/// Philly job-log time: naive America/Los_Angeles wall clock to UTC
/// microseconds; in the repeated fall-back hour the earlier instant is taken.
/// `None`, `""` and `"None"` are handled by the caller.
pub fn philly_job_time(s: &str) -> Result<i64, &'static str> {
    const BAD: &str = "expected a time like `2017-10-07 01:12:09`";
    let naive = NaiveDateTime::parse_from_str(s, crate::schema::raw::philly::JOB_TIME_FORMAT).map_err(|_| BAD)?;
    let local = chrono_tz::America::Los_Angeles
        .from_local_datetime(&naive)
        .earliest()
        .ok_or("time does not exist in America/Los_Angeles (skipped by a DST change)")?;
    Ok(local.timestamp() * US)
}

/// Helios time: naive Asia/Shanghai wall clock (UTC+8, no DST since 1991)
/// to UTC microseconds.
pub fn helios_time(s: &str) -> Result<i64, &'static str> {
    let local = parse_naive_secs(s).ok_or("expected a time like `2020-06-09 18:41:01`")?;
    Ok((local - 8 * 3600) * US)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn chrono_secs(s: &str) -> i64 {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap().and_utc().timestamp()
    }

    #[test]
    fn hand_parser_agrees_with_chrono_across_years_and_leap_days() {
        for s in ["1970-01-01 00:00:00", "2017-11-05 01:30:00", "2020-02-29 23:59:59", "2000-03-01 12:00:00"] {
            assert_eq!(parse_naive_secs(s), Some(chrono_secs(s)), "{s}");
        }
        assert_eq!(parse_naive_secs("2019-02-29 00:00:00"), None);
        assert_eq!(parse_naive_secs("2017-13-01 00:00:00"), None);
        assert_eq!(parse_naive_secs("2017-10-03T00:08:00"), None);
        let d = NaiveDate::from_ymd_opt(2020, 9, 28).unwrap();
        assert_eq!(
            parse_date("2020-09-28"),
            Some((d - NaiveDate::from_ymd_opt(1970, 1, 1).unwrap()).num_days() as i32)
        );
    }

    #[test]
    fn philly_pdt_and_pst_straddle_the_fall_back_correctly() {
        // 01:30 PDT and 01:30 PST on 2017-11-05 are one hour apart (08:30Z, 09:30Z).
        let pdt = philly_util_time("2017-11-05 01:30:00 PDT").unwrap();
        let pst = philly_util_time("2017-11-05 01:30:00 PST").unwrap();
        assert_eq!(pst - pdt, 3600 * US);
        assert_eq!(pdt, chrono_secs("2017-11-05 08:30:00") * US);
        assert!(philly_util_time("2017-11-05 01:30:00 UTC").is_err());
        assert!(philly_util_time("2017-11-05 01:30:00").is_err());
    }

    #[test]
    fn philly_job_times_follow_los_angeles_dst() {
        // Summer: UTC-7; winter: UTC-8; the ambiguous hour takes PDT.
        assert_eq!(philly_job_time("2017-10-07 01:12:09").unwrap(), chrono_secs("2017-10-07 08:12:09") * US);
        assert_eq!(philly_job_time("2017-12-01 00:00:00").unwrap(), chrono_secs("2017-12-01 08:00:00") * US);
        assert_eq!(philly_job_time("2017-11-05 01:30:00").unwrap(), chrono_secs("2017-11-05 08:30:00") * US);
    }

    #[test]
    fn pai_offsets_keep_seconds_and_null_zero() {
        assert_eq!(pai_offset("4550879.0"), Ok(Some(4_550_879 * US)));
        assert_eq!(pai_offset("6150435"), Ok(Some(6_150_435 * US)));
        assert_eq!(pai_offset("0.0"), Ok(None));
        assert_eq!(pai_offset(""), Ok(None));
        assert!(pai_offset("-5").is_err());
        assert!(pai_offset("soon").is_err());
    }

    #[test]
    fn helios_is_utc_plus_eight() {
        assert_eq!(helios_time("2020-06-09 18:41:01").unwrap(), chrono_secs("2020-06-09 10:41:01") * US);
    }
}
