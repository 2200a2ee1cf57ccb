//! The predicted durations the PAI simulator's SJF variants sort by
//! (`scheduler.py`: SJU by `user_dur`, SJG by `group_dur`, SJGG by
//! `group_gpu_dur`; `user_gpu_dur` is read but unused). The owners' CSV held
//! the predictions of a CART model over the features <User>, <Group, User>
//! and <Group, User, GPU> (NSDI'22 §5, Fig 12-13); that model is not
//! public, so tracelab computes an honest history predictor instead:
//!
//! the mean run time of the trace's jobs with the same key that ended at or
//! before the job's submission (keys: user; user and GPU type; group and
//! user; group, user and GPU type). Where the key has no such job, the mean
//! over all jobs that ended by then; where no job has ended yet, 0.
//!
//! History is the whole trace as loaded (window and sample do not shrink
//! it): a predictor in production would have seen those jobs. Sums are
//! exact integers of milliseconds, so the means do not depend on order.

use std::collections::HashMap;

use tracelab_sim::Millis;

/// A job's keys as interned ids (user, group and GPU type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Keys {
    pub user: u32,
    pub group: u32,
    pub gpu: u32,
}

/// A job of the history: when it ended and how long it ran.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Finished {
    /// Recorded end, epoch milliseconds.
    pub end: Millis,
    pub duration: Millis,
    pub keys: Keys,
}

/// The four columns, in file order.
pub const COLUMNS: [&str; 4] = ["user_dur", "user_gpu_dur", "group_dur", "group_gpu_dur"];

/// One job's predictions in seconds, in [`COLUMNS`] order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Predicted {
    pub secs: [f64; 4],
    /// How many of the four fell back to the mean over all ended jobs.
    pub fallbacks: u8,
    /// No job had ended before the submission: every value is 0.
    pub no_history: bool,
}

const ANY: u32 = u32::MAX;

/// The key of column `c` (see [`COLUMNS`]).
fn key(k: Keys, c: usize) -> (u32, u32, u32) {
    match c {
        0 => (k.user, ANY, ANY),
        1 => (k.user, ANY, k.gpu),
        2 => (k.user, k.group, ANY),
        _ => (k.user, k.group, k.gpu),
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Sum {
    ms: i64,
    n: u64,
}

impl Sum {
    fn add(&mut self, ms: Millis) {
        self.ms += ms;
        self.n += 1;
    }

    fn mean_secs(self) -> Option<f64> {
        (self.n > 0).then(|| self.ms as f64 / self.n as f64 / 1000.0)
    }
}

/// Predictions for each `(submission, keys)` query, in query order: one
/// sweep over the history sorted by end and the queries sorted by time.
pub fn predict(history: &[Finished], queries: &[(Millis, Keys)]) -> Vec<Predicted> {
    let mut by_end: Vec<&Finished> = history.iter().collect();
    by_end.sort_by_key(|f| f.end);
    let mut order: Vec<usize> = (0..queries.len()).collect();
    order.sort_by_key(|&i| queries[i].0);
    let mut sums: [HashMap<(u32, u32, u32), Sum>; 4] = Default::default();
    let mut all = Sum::default();
    let mut next = 0;
    let mut out = vec![Predicted::default(); queries.len()];
    for i in order {
        let (at, keys) = queries[i];
        while let Some(f) = by_end.get(next).filter(|f| f.end <= at) {
            for (c, s) in sums.iter_mut().enumerate() {
                s.entry(key(f.keys, c)).or_default().add(f.duration);
            }
            all.add(f.duration);
            next += 1;
        }
        out[i] = one(&sums, all, keys);
    }
    out
}

fn one(sums: &[HashMap<(u32, u32, u32), Sum>; 4], all: Sum, keys: Keys) -> Predicted {
    let Some(global) = all.mean_secs() else {
        return Predicted { no_history: true, ..Predicted::default() };
    };
    let mut p = Predicted::default();
    for (c, s) in sums.iter().enumerate() {
        p.secs[c] = match s.get(&key(keys, c)).and_then(|s| s.mean_secs()) {
            Some(m) => m,
            None => {
                p.fallbacks += 1;
                global
            }
        };
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(user: u32, group: u32, gpu: u32) -> Keys {
        Keys { user, group, gpu }
    }

    fn done(end_s: i64, dur_s: i64, keys: Keys) -> Finished {
        Finished { end: end_s * 1000, duration: dur_s * 1000, keys }
    }

    /// History: A (user 1, group 1, V100=0) ends at 100 s after 50 s; B (user
    /// 1, group 2, P100=1) ends at 200 s after 100 s; C (user 2, group 1,
    /// V100) ends at 300 s after 30 s.
    #[test]
    fn predictions_are_means_of_what_ended_before_by_hand() {
        let history = [done(100, 50, k(1, 1, 0)), done(200, 100, k(1, 2, 1)), done(300, 30, k(2, 1, 0))];
        let q = |at_s: i64, keys| (at_s * 1000, keys);
        let p = predict(&history, &[q(150, k(1, 1, 0)), q(250, k(1, 1, 1)), q(50, k(2, 1, 0)), q(300, k(2, 1, 0))]);
        // At 150 s only A has ended: every key of (1, 1, V100) has A.
        assert_eq!(p[0], Predicted { secs: [50.0, 50.0, 50.0, 50.0], fallbacks: 0, no_history: false });
        // At 250 s A and B: user 1 -> (50 + 100) / 2; user 1 on P100 -> B;
        // group 1 user 1 -> A; group 1 user 1 P100 -> none, the global mean 75.
        assert_eq!(p[1], Predicted { secs: [75.0, 100.0, 50.0, 75.0], fallbacks: 1, no_history: false });
        // At 50 s nothing has ended.
        assert_eq!(p[2], Predicted { secs: [0.0; 4], fallbacks: 0, no_history: true });
        // At 300 s C counts (ended at the submission): user 2 -> 30 everywhere.
        assert_eq!(p[3], Predicted { secs: [30.0; 4], fallbacks: 0, no_history: false });
    }

    #[test]
    fn a_key_without_history_falls_back_to_the_mean_of_everything_ended() {
        let history = [done(10, 4, k(1, 1, 0)), done(20, 8, k(1, 1, 0))];
        let p = predict(&history, &[(30_000, k(9, 9, 9))]);
        assert_eq!(p[0], Predicted { secs: [6.0; 4], fallbacks: 4, no_history: false });
    }
}
