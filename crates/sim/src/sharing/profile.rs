//! The load of online services over a day, as MuxFlow schedules by it: a
//! step function of factors repeating with a period (a day), each factor
//! scaling every online job's stated utilization. The caller derives the
//! factors from a trace's measured utilization series or reads them from a
//! file; the engine only evaluates them.

use serde::{Deserialize, Serialize};

use crate::error::SimError;
use crate::time::Millis;

/// The most steps one profile may have (a day in 10-second steps).
pub const MAX_STEPS: usize = 8640;

/// A periodic step function of load factors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadProfile {
    /// Length of one step.
    pub step: Millis,
    /// Factor of each step (period = `step x factors.len()`); an online job
    /// of utilization `u` runs at `min(100, u x factor)` during the step.
    pub factors: Vec<f64>,
    /// Replay time at which step 0 begins (the profile repeats both ways).
    pub origin: Millis,
}

impl LoadProfile {
    /// Period of the profile.
    pub fn period(&self) -> Millis {
        self.step * self.factors.len() as Millis
    }

    fn index(&self, t: Millis) -> usize {
        ((t - self.origin).rem_euclid(self.period()) / self.step) as usize
    }

    /// The factor in force at `t`.
    pub fn factor(&self, t: Millis) -> f64 {
        self.factors[self.index(t)]
    }

    /// The first step boundary after `t`.
    pub fn next_change(&self, t: Millis) -> Millis {
        let into = (t - self.origin).rem_euclid(self.step);
        t - into + self.step
    }

    /// Checks the shape: 1 to [`MAX_STEPS`] finite factors >= 0, a positive
    /// step, a period of at most a year.
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |s: String| Err(SimError::BadOption(format!("load profile: {s}")));
        if self.factors.is_empty() || self.factors.len() > MAX_STEPS {
            return bad(format!("expected 1 to {MAX_STEPS} steps, found {}", self.factors.len()));
        }
        if self.step <= 0 || self.step.saturating_mul(self.factors.len() as Millis) > 366 * 86_400_000 {
            return bad("the step must be positive and the period at most a year".into());
        }
        if let Some(f) = self.factors.iter().find(|f| !(f.is_finite() && **f >= 0.0 && **f <= 1e6)) {
            return bad(format!("factor {f} is not a finite number in 0-1e6"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two steps of 10 ms from t = 5: [5, 15) factor 1, [15, 25) factor 2,
    /// then again; before 5 the profile runs backwards (-5..5 is step 1).
    #[test]
    fn steps_repeat_from_the_origin_both_ways() {
        let p = LoadProfile { step: 10, factors: vec![1.0, 2.0], origin: 5 };
        assert_eq!([p.factor(5), p.factor(14), p.factor(15), p.factor(25), p.factor(0)], [1.0, 1.0, 2.0, 1.0, 2.0]);
        assert_eq!([p.next_change(5), p.next_change(14), p.next_change(0), p.next_change(-6)], [15, 15, 5, -5]);
    }
}
