//! Which clock a Philly job-log duration (runtime, queueing delay) is
//! measured on. The job log's times are naive cluster wall-clock strings;
//! ingest reads them as America/Los_Angeles (the earlier instant in the
//! hour the 2017-11-05 fall-back repeats) and the store keeps the UTC
//! instants, so by default (`clock=utc`) a duration is the true elapsed
//! time. The owners' notebook subtracts the parsed naive datetimes
//! (`clock=wall`): converting both stored instants back to Los Angeles wall
//! time and subtracting those reproduces its numbers exactly, since the
//! conversion gives back the naive time ingest read. Across the fall-back
//! the wall clock is 60 minutes short of the elapsed time.

use polars::prelude::*;

use crate::frame::local;
use crate::params::{choice, Param};
use tracelab_schema::Trace;

choice! {
    /// The clock of a duration.
    pub enum Clock {
        /// Differences of UTC instants (true elapsed time).
        Utc = "utc",
        /// Differences of the naive wall-clock times, as the notebook.
        Wall = "wall",
    }
}

pub const CLOCK: Param<Clock> = Param::choice(
    "clock",
    "utc",
    "utc: durations between UTC instants, the true elapsed time; wall: between the job log's naive wall-clock \
     times, as the notebook subtracts them (60 min less across the 2017-11-05 fall-back)",
);

const MINUTE_US: f64 = 60e6;

impl Clock {
    /// A timestamp expression as epoch microseconds on this clock (wall:
    /// of the Los Angeles wall-clock time, read as if it were UTC).
    pub fn micros(self, ts: Expr) -> Expr {
        match self {
            Clock::Utc => ts.cast(DataType::Int64),
            Clock::Wall => local(ts, Trace::Philly)
                .dt()
                .replace_time_zone(None, lit("raise"), NonExistent::Raise)
                .cast(DataType::Int64),
        }
    }

    /// Minutes from `earlier` to `later` on this clock.
    pub fn minutes(self, later: Expr, earlier: Expr) -> Expr {
        (self.micros(later) - self.micros(earlier)).cast(DataType::Float64) / lit(MINUTE_US)
    }

    /// A job's runtime in minutes (philly/jobs): last attempt end - first
    /// attempt start; `run_s` on the UTC clock.
    pub fn run_minutes(self) -> Expr {
        match self {
            Clock::Utc => col("run_s") / lit(60.0),
            Clock::Wall => self.minutes(col("last_end_time"), col("first_start_time")),
        }
    }

    /// A job's first-attempt queueing delay in minutes (philly/jobs): first
    /// attempt start - submission; `queue_s` on the UTC clock.
    pub fn queue_minutes(self) -> Expr {
        match self {
            Clock::Utc => col("queue_s") / lit(60.0),
            Clock::Wall => self.minutes(col("first_start_time"), col("submit_time")),
        }
    }

    /// What every definition of a Philly duration says about the clock.
    pub fn note(self) -> &'static str {
        match self {
            Clock::Utc => {
                "Clock: utc (the default), differences of UTC instants, the true elapsed time; a span across the \
                 2017-11-05 fall-back is 60 min longer than the notebook's (clock=wall)."
            }
            Clock::Wall => {
                "Clock: wall, differences of the job log's naive wall-clock times (both instants converted back to \
                 America/Los_Angeles), as the notebook subtracts its parsed datetimes; a span across the 2017-11-05 \
                 fall-back is 60 min shorter than the elapsed time."
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2017-11-05 in Los Angeles: 08:30Z is 01:30 PDT, 09:30Z is 01:30 PST
    /// (the repeated hour), 10:30Z is 02:30 PST; 2017-03-12 10:30Z is 03:30
    /// PDT, just after the spring-forward gap. Microseconds after each
    /// day's 00:00, UTC and wall.
    #[test]
    fn instants_map_to_the_los_angeles_wall_clock() {
        const H: i64 = 3_600_000_000;
        let (november, march) = (1_509_840_000_000_000i64, 1_489_276_800_000_000i64);
        let utc =
            [november + 8 * H + H / 2, november + 9 * H + H / 2, november + 10 * H + H / 2, march + 10 * H + H / 2];
        let ts = DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC));
        let df = df!("t" => utc).unwrap().lazy().with_column(col("t").cast(ts));
        let got = |clock: Clock| -> Vec<i64> {
            let out = df.clone().select([clock.micros(col("t")).alias("m")]).collect().unwrap();
            out.column("m").unwrap().i64().unwrap().into_no_null_iter().collect()
        };
        let day = |t: Vec<i64>| -> Vec<i64> {
            t.iter().zip([november, november, november, march]).map(|(t, d)| t - d).collect()
        };
        assert_eq!(day(got(Clock::Wall)), [H + H / 2, H + H / 2, 2 * H + H / 2, 3 * H + H / 2]);
        assert_eq!(got(Clock::Utc), utc);
    }
}
