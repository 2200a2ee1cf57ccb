//! Helios times: naive wall-clock stamps `2020-06-09 18:41:01` (the data
//! states no zone; ingest reads them as Asia/Shanghai). Synth keeps them as
//! naive seconds since 1970 and only formats them.

use tracelab_schema::civil;
pub use tracelab_schema::civil::DAY;
/// The trace period, 2020-04-01 00:00:00 up to 2020-09-29 00:00:00.
pub const PERIOD: (i64, i64) = (1_585_699_200, 1_601_337_600);

/// Appends `YYYY-MM-DD HH:MM:SS`.
pub fn push_time(out: &mut String, secs: i64) {
    civil::push_naive(out, secs);
}

/// `YYYY-MM-DD` of naive seconds.
pub fn date(secs: i64) -> String {
    let mut s = String::with_capacity(10);
    civil::push_date(&mut s, secs.div_euclid(DAY));
    s
}

/// Hour of day and weekday (0 = Monday) of naive seconds.
pub fn hour_weekday(secs: i64) -> (usize, usize) {
    let (h, wd) = civil::hour_weekday(secs);
    (h as usize, wd as usize)
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
