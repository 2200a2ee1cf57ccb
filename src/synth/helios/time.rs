//! Helios times: naive wall-clock stamps `2020-06-09 18:41:01` (the data
//! states no zone; ingest reads them as Asia/Shanghai). Synth keeps them as
//! naive seconds since 1970 and only formats them.

/// One day in seconds.
pub const DAY: i64 = 86_400;
/// The trace period, 2020-04-01 00:00:00 up to 2020-09-29 00:00:00.
pub const PERIOD: (i64, i64) = (1_585_699_200, 1_601_337_600);

/// Appends `YYYY-MM-DD HH:MM:SS`.
pub fn push_time(out: &mut String, secs: i64) {
    let (days, rem) = (secs.div_euclid(DAY), secs.rem_euclid(DAY));
    push_date(out, days);
    out.push(' ');
    two(out, rem / 3600);
    out.push(':');
    two(out, rem % 3600 / 60);
    out.push(':');
    two(out, rem % 60);
}

/// `YYYY-MM-DD` of naive seconds.
pub fn date(secs: i64) -> String {
    let mut s = String::with_capacity(10);
    push_date(&mut s, secs.div_euclid(DAY));
    s
}

fn push_date(out: &mut String, days: i64) {
    let (y, m, d) = civil_from_days(days);
    for c in [y / 1000, y / 100 % 10, y / 10 % 10, y % 10] {
        out.push((b'0' + c as u8) as char);
    }
    out.push('-');
    two(out, m);
    out.push('-');
    two(out, d);
}

fn two(out: &mut String, v: i64) {
    out.push((b'0' + (v / 10) as u8) as char);
    out.push((b'0' + (v % 10) as u8) as char);
}

/// Civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
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

/// Hour of day and weekday (0 = Monday) of naive seconds.
pub fn hour_weekday(secs: i64) -> (usize, usize) {
    let days = secs.div_euclid(DAY);
    ((secs.rem_euclid(DAY) / 3600) as usize, (days + 3).rem_euclid(7) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_the_readme_rows() {
        let mut s = String::new();
        push_time(&mut s, 1_591_728_061);
        assert_eq!(s, "2020-06-09 18:41:01");
        assert_eq!(date(PERIOD.0), "2020-04-01");
        assert_eq!(date(PERIOD.1 - 1), "2020-09-28");
        // 2020-06-09 was a Tuesday.
        assert_eq!(hour_weekday(1_591_728_061), (18, 1));
    }
}
