//! Naive civil time: day counts to dates and back, the traces'
//! `YYYY-MM-DD HH:MM:SS` spelling, hour of day and weekday. Pure arithmetic
//! (after Howard Hinnant's `days_from_civil` / `civil_from_days`), shared by
//! ingest (parsing, hot: tens of millions of stamps) and synth (writing).
//! Time zones are the callers' business: every function here works on a
//! naive clock counted in seconds or days since 1970-01-01.

/// Seconds in a day.
pub const DAY: i64 = 86_400;

/// Days from 1970-01-01 to the civil date `y-m-d` (proleptic Gregorian).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Hour of day (0-23) and weekday (0 = Monday) of naive seconds.
pub fn hour_weekday(secs: i64) -> (u32, u32) {
    // 1970-01-01 was a Thursday (3 with Monday = 0).
    ((secs.rem_euclid(DAY) / 3600) as u32, (secs.div_euclid(DAY) + 3).rem_euclid(7) as u32)
}

/// Appends `v` (non-negative) zero-padded to `width` digits, without
/// allocating: synth writes tens of millions of stamps.
fn push_digits(out: &mut String, v: i64, width: usize) {
    debug_assert!(v >= 0, "civil fields are non-negative");
    let mut buf = [b'0'; 20];
    let (mut n, mut i) = (v.unsigned_abs(), buf.len());
    while n > 0 {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    let start = i.min(buf.len() - width);
    out.push_str(std::str::from_utf8(&buf[start..]).expect("ASCII digits"));
}

/// Appends `YYYY-MM-DD` of a day count.
pub fn push_date(out: &mut String, days: i64) {
    let (y, m, d) = civil_from_days(days);
    push_digits(out, y, 4);
    out.push('-');
    push_digits(out, m, 2);
    out.push('-');
    push_digits(out, d, 2);
}

/// Appends `YYYY-MM-DD HH:MM:SS` of naive seconds.
pub fn push_naive(out: &mut String, secs: i64) {
    let rem = secs.rem_euclid(DAY);
    push_date(out, secs.div_euclid(DAY));
    out.push(' ');
    push_digits(out, rem / 3600, 2);
    out.push(':');
    push_digits(out, rem % 3600 / 60, 2);
    out.push(':');
    push_digits(out, rem % 60, 2);
}

fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + (c - b'0') as u32))
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

/// Parses `YYYY-MM-DD` into days since 1970-01-01.
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

/// Parses `YYYY-MM-DD HH:MM:SS` into naive seconds since 1970-01-01.
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
    Some(days * DAY + (h * 3600 + mi * 60 + se) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Datelike, NaiveDate, NaiveDateTime};

    #[test]
    fn day_counts_round_trip_and_agree_with_chrono() {
        let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
        for days in [-800_000, -1, 0, 59, 17_476, 18_321, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            let date = epoch + chrono::Duration::days(days);
            assert_eq!((y, m, d), (date.year() as i64, date.month() as i64, date.day() as i64), "{days}");
            assert_eq!(days_from_civil(y, m as u32, d as u32), days);
        }
    }

    #[test]
    fn stamps_parse_and_print_like_chrono() {
        for s in ["1970-01-01 00:00:00", "2017-11-05 01:30:00", "2020-02-29 23:59:59", "2000-03-01 12:00:00"] {
            let want = NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap().and_utc().timestamp();
            assert_eq!(parse_naive_secs(s), Some(want), "{s}");
            let mut out = String::new();
            push_naive(&mut out, want);
            assert_eq!(out, s);
        }
        assert_eq!(parse_naive_secs("2019-02-29 00:00:00"), None);
        assert_eq!(parse_naive_secs("2017-13-01 00:00:00"), None);
        assert_eq!(parse_naive_secs("2017-10-03T00:08:00"), None);
        assert_eq!(parse_date("2020-09-31"), None);
    }

    #[test]
    fn weekday_of_known_days() {
        // 2017-11-04 12:00 was a Saturday; 2020-06-09 18:41:01 a Tuesday.
        assert_eq!(hour_weekday(parse_naive_secs("2017-11-04 12:00:00").unwrap()), (12, 5));
        assert_eq!(hour_weekday(parse_naive_secs("2020-06-09 18:41:01").unwrap()), (18, 1));
    }
}
