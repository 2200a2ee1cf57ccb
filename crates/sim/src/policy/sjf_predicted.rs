//! `sjf-predicted`: shortest predicted duration first, non-preemptive. The
//! prediction is made once, when the job arrives, from jobs that finished
//! earlier in the replay: the mean duration of the job's user, group, or user
//! on the same GPU type (the PAI paper's estimators SJU / SJG / SJGG, trained
//! online here instead of offline). Without history for that key: the mean of
//! all finished jobs; before any job has finished: 0, so unknown jobs go
//! first in submission order (the PAI simulator's `JobHistory` is optimistic
//! the same way).

use super::history::History;
use super::{Key, PolicyImpl, Progress};
use crate::config::Predictor;
use crate::job::{Job, Workload};
use crate::time::Millis;

pub(crate) struct SjfPredicted {
    by: Predictor,
    history: History,
}

impl SjfPredicted {
    pub(crate) fn new(by: Predictor, w: &Workload) -> SjfPredicted {
        SjfPredicted { by, history: History::new(w) }
    }

    /// The predicted duration of `job` in milliseconds.
    pub(crate) fn predict(&self, job: &Job) -> f64 {
        let own = match self.by {
            Predictor::User => self.history.user(job),
            Predictor::Group => self.history.group(job),
            Predictor::UserGpuType => self.history.user_type(job),
        };
        own.or_else(|| self.history.global()).unwrap_or(0.0)
    }
}

impl PolicyImpl for SjfPredicted {
    fn key(&mut self, job: &Job, _p: &Progress, _now: Millis) -> Key {
        Key(Key::of_f64(self.predict(job)), 0)
    }

    fn on_finish(&mut self, job: &Job, _now: Millis) {
        self.history.record(job);
    }
}
