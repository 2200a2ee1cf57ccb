//! Time conversions from the traces' raw spellings to UTC microseconds.
//!
//! The hot paths (PAI offsets, Philly per-minute stamps, Helios times) are
//! parsed by hand: the formats are fixed-width and a generic strftime parser
//! would dominate ingest time on the 6.6 GB Philly utilization files.

use chrono::{NaiveDateTime, TimeZone};

pub use tracelab_schema::civil::parse_date;
use tracelab_schema::civil::parse_naive_secs;

const US: i64 = 1_000_000;

/// PAI offsets must stay below this: about 2^63 microseconds, where the
/// timestamps end. A larger one used to saturate to the largest timestamp
/// (so that two of them compared equal and an end before its start went
/// through).
pub const PAI_MAX_OFFSET_S: f64 = 9.2e12;

/// PAI: offset seconds (`4550879.0`) to UTC microseconds at the same offset
/// from the epoch, so that Asia/Shanghai local time has the true time of day
/// and weekday. Empty and 0 mean "not recorded" (null). Negative offsets and
/// offsets of [`PAI_MAX_OFFSET_S`] or more are an error.
pub fn pai_offset(s: &str) -> Result<Option<i64>, &'static str> {
    if s.is_empty() {
        return Ok(None);
    }
    let v = super::record::parse_finite(s).ok_or("expected offset seconds (a number) or an empty field")?;
    if v < 0.0 {
        return Err("expected non-negative offset seconds");
    }
    if v >= PAI_MAX_OFFSET_S {
        return Err("offset seconds out of range: expected less than 9.2e12 (where microsecond timestamps end)");
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
    let naive = NaiveDateTime::parse_from_str(s, tracelab_schema::raw::philly::JOB_TIME_FORMAT).map_err(|_| BAD)?;
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

/// ISO 8601 with a UTC offset, as pandas writes zone-aware stamps
/// (AcmeTrace: `2023-03-01 00:18:22+08:00`): date, `T` or a blank, time
/// with optional fractional seconds, then `Z`, `+HH:MM`, `+HHMM` or `+HH`.
/// The offset is honoured: the result is the UTC instant in microseconds.
/// A stamp without an offset is refused: the two AcmeTrace files use
/// different offsets, so a naive time is ambiguous.
pub fn iso_offset_time(s: &str) -> Result<i64, &'static str> {
    const BAD: &str = "expected an ISO 8601 time with a UTC offset, like `2023-03-01 00:18:22+08:00`";
    let b = s.as_bytes();
    if b.len() < 20 || !matches!(b[10], b' ' | b'T') {
        return Err(BAD);
    }
    // The date and time with a space between them, on the stack: a String
    // per value was five allocations per AcmeTrace record.
    let mut naive = [0u8; 19];
    naive.copy_from_slice(b.get(..19).ok_or(BAD)?);
    naive[10] = b' ';
    let secs = std::str::from_utf8(&naive).ok().and_then(parse_naive_secs).ok_or(BAD)?;
    let (frac_us, rest) = fraction(&s[19..]).ok_or(BAD)?;
    let offset_s = utc_offset(rest).ok_or(BAD)?;
    Ok((secs - offset_s) * US + frac_us)
}

/// `.123456` (1 to 9 digits, cut to microseconds) at the start of `s`, and
/// what follows.
fn fraction(s: &str) -> Option<(i64, &str)> {
    let Some(digits) = s.strip_prefix('.') else { return Some((0, s)) };
    let n = digits.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || n > 9 {
        return None;
    }
    let mut us = 0i64;
    for (i, c) in digits[..6.min(n)].bytes().enumerate() {
        us += i64::from(c - b'0') * 10i64.pow(5 - i as u32);
    }
    Some((us, &digits[n..]))
}

/// Seconds east of UTC of `Z`, `+HH:MM`, `+HHMM` or `+HH` (the whole text).
fn utc_offset(s: &str) -> Option<i64> {
    if s == "Z" {
        return Some(0);
    }
    let sign = match s.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let body = &s[1..];
    let (h, m) = match body.len() {
        2 => (body, "00"),
        4 => (&body[..2], &body[2..]),
        5 if body.as_bytes()[2] == b':' => (&body[..2], &body[3..]),
        _ => return None,
    };
    let num = |t: &str| t.bytes().all(|c| c.is_ascii_digit()).then(|| t.parse::<i64>().ok()).flatten();
    let (h, m) = (num(h)?, num(m)?);
    (h <= 23 && m <= 59).then_some(sign * (h * 3600 + m * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chrono_secs(s: &str) -> i64 {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap().and_utc().timestamp()
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
        assert_eq!(pai_offset("9.1e12"), Ok(Some(9_100_000_000_000 * US)));
        assert!(pai_offset("9.2e12").is_err() && pai_offset("1e300").is_err());
        assert!(pai_offset("soon").is_err());
    }

    #[test]
    fn iso_offsets_are_honoured_like_chrono() {
        // Seren writes +08:00 and Kalos +00:00: the same instant two ways.
        let seren = iso_offset_time("2023-05-17 19:00:58+08:00").unwrap();
        let kalos = iso_offset_time("2023-05-17 11:00:58+00:00").unwrap();
        assert_eq!(seren, kalos);
        assert_eq!(kalos, chrono_secs("2023-05-17 11:00:58") * US);
        // Worked out by hand: local time minus the offset.
        let cases = [
            ("2023-03-01T00:18:22.25-05:30", "2023-03-01 05:48:22", 250_000),
            ("2023-03-01 00:18:22Z", "2023-03-01 00:18:22", 0),
            ("2024-02-29 23:59:59+0845", "2024-02-29 15:14:59", 0),
            ("2023-03-01 00:18:22+08", "2023-02-28 16:18:22", 0),
            ("2023-03-01 00:18:22.1234567+00:00", "2023-03-01 00:18:22", 123_456),
        ];
        for (s, utc, us) in cases {
            assert_eq!(iso_offset_time(s), Ok(chrono_secs(utc) * US + us), "{s}");
        }
        for bad in [
            "2023-03-01 00:18:22",
            "2023-03-01 00:18:22+8",
            "2023-02-30 00:00:00+00:00",
            "2023-03-01 24:00:00+00:00",
            "2023-03-01 00:18:22+08:00 ",
            "2023-03-01 00:18:22.+08:00",
            // A character across byte 19, where the fraction or offset starts.
            "2023-03-01 00:18:2é+08:00",
            "2023-03-01 00:18:22é+08:00",
            "2023-03-01 00:18:22+24:00",
            "yesterday",
        ] {
            assert!(iso_offset_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn helios_is_utc_plus_eight() {
        assert_eq!(helios_time("2020-06-09 18:41:01").unwrap(), chrono_secs("2020-06-09 10:41:01") * US);
    }
}
