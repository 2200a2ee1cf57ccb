//! Running a report's analyses side by side within a memory budget.
//!
//! A report runs dozens of analyses; most are small, a few hold gigabytes
//! at full scale (the PAI derived frames, Philly's per-minute utilization
//! joins). Run one at a time they leave a core idle whenever an analysis is
//! single-threaded; run blindly two at a time, two heavy ones together
//! would double the peak. So each run comes with a declared estimate
//! (`tracelab_analysis::Memory`), and a run starts only while fewer than
//! `workers` run and the estimates of those running plus its own fit the
//! budget; a run larger than the budget runs alone. Runs start in their
//! given order (the report's first-use order), so which runs overlap does
//! not depend on timing, and the results come back in that order whatever
//! order they finish in: the report's bytes are the same with any number
//! of workers.

use std::sync::mpsc;

/// How many runs at once, and the memory they may hold together (bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub workers: usize,
    pub budget: u64,
}

impl Limits {
    /// One run at a time.
    pub const SERIAL: Limits = Limits { workers: 1, budget: u64::MAX };
    /// The default budget: 2.5 GiB, so that a full-scale report of the three
    /// traces (whose largest analyses each hold about 2.5 GB) peaks under
    /// 3 GB with the process's own memory.
    pub const DEFAULT_BUDGET: u64 = 5 << 29;

    /// As many runs as the machine has cores, within the default budget.
    pub fn for_this_machine() -> Limits {
        let workers = std::thread::available_parallelism().map_or(1, usize::from);
        Limits { workers, budget: Limits::DEFAULT_BUDGET }
    }
}

/// Runs `run(i)` for every `i` in `0..n` within `limits`, `estimate(i)`
/// being asked when run `i` is next to start (an estimate may fall once an
/// earlier run has built what later ones share);
/// `step(i, None)` is called on the calling thread as run `i` starts and
/// `step(i, Some(&result))` as it finishes, so progress is told in the
/// order things happen.
/// Once a failed run (`failed` says so of its result) has come back, no
/// further run starts; those already running finish. Returns the results in index order (runs
/// never started are `None`).
pub fn run_within<T: Send>(
    n: usize,
    estimate: impl Fn(usize) -> u64,
    limits: Limits,
    run: impl Fn(usize) -> T + Sync,
    failed: impl Fn(&T) -> bool,
    step: impl FnMut(usize, Option<&T>),
) -> Vec<Option<T>> {
    let mut results: Vec<Option<T>> = (0..n).map(|_| None).collect();
    let mut admitted = vec![0u64; n];
    let workers = limits.workers.max(1);
    // Told of starts in the loop and of finishes in `collect`.
    let step = std::cell::RefCell::new(step);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, T)>();
        let (mut running, mut held, mut stop) = (0usize, 0u64, false);
        // Takes the next finished run off the channel.
        let mut collect = |running: &mut usize, held: &mut u64, stop: &mut bool, admitted: &[u64]| {
            let (i, r) = rx.recv().expect("a running analysis reports back");
            *running -= 1;
            *held = held.saturating_sub(admitted[i]);
            *stop |= failed(&r);
            (step.borrow_mut())(i, Some(&r));
            results[i] = Some(r);
        };
        for i in 0..n {
            // Asked again after each run that finishes while this one waits.
            while running > 0 && (running == workers || held.saturating_add(estimate(i)) > limits.budget) {
                collect(&mut running, &mut held, &mut stop, &admitted);
            }
            let need = estimate(i);
            if stop {
                break;
            }
            running += 1;
            admitted[i] = need;
            held = held.saturating_add(need);
            (step.borrow_mut())(i, None);
            let (tx, run) = (tx.clone(), &run);
            scope.spawn(move || {
                let r = run(i);
                let _ = tx.send((i, r));
            });
        }
        while running > 0 {
            collect(&mut running, &mut held, &mut stop, &admitted);
        }
    });
    results
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    use std::sync::Mutex;
    use std::time::Duration;

    /// Runs `estimates` with each run sleeping `ms[i]`, recording the most
    /// runs and the most memory ever held at once.
    fn observe(estimates: &[u64], ms: &[u64], limits: Limits) -> (Vec<Option<usize>>, usize, u64, Vec<usize>) {
        let (now, peak, held, peak_held) =
            (AtomicUsize::new(0), AtomicUsize::new(0), AtomicU64::new(0), AtomicU64::new(0));
        let order = Mutex::new(Vec::new());
        let results = run_within(
            estimates.len(),
            |i| estimates[i],
            limits,
            |i| {
                peak.fetch_max(now.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                peak_held.fetch_max(held.fetch_add(estimates[i], Ordering::SeqCst) + estimates[i], Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(ms[i]));
                held.fetch_sub(estimates[i], Ordering::SeqCst);
                now.fetch_sub(1, Ordering::SeqCst);
                i * 10
            },
            |_| false,
            |i, r| r.into_iter().for_each(|_| order.lock().unwrap().push(i)),
        );
        let results = results.into_iter().map(|r| r.map(|v| v / 10)).collect();
        (results, peak.into_inner(), peak_held.into_inner(), order.into_inner().unwrap())
    }

    #[test]
    fn results_come_back_in_index_order_whatever_order_runs_finish() {
        // Run 0 sleeps longest: it finishes last of the first pair.
        let (results, peak, _, finished) = observe(&[1, 1, 1, 1], &[60, 5, 5, 5], Limits { workers: 2, budget: 10 });
        assert_eq!(results, vec![Some(0), Some(1), Some(2), Some(3)]);
        assert_eq!(peak, 2);
        assert_ne!(finished[0], 0, "run 0 finished first: {finished:?}");
    }

    #[test]
    fn runs_never_exceed_the_workers_or_the_budget_and_a_large_run_runs_alone() {
        // Budget 10: 6 and 5 cannot overlap; 20 exceeds the budget and runs
        // alone; 3 and 4 may overlap.
        let estimates = [6, 5, 20, 3, 4];
        let (results, peak, peak_held, _) = observe(&estimates, &[10; 5], Limits { workers: 2, budget: 10 });
        assert!(results.iter().all(Option::is_some));
        assert!(peak <= 2, "{peak}");
        assert_eq!(peak_held, 20, "the over-budget run alone is the largest held");
        let (_, _, held, _) = observe(&[6, 5, 3, 4], &[10; 4], Limits { workers: 2, budget: 10 });
        assert!(held <= 10, "{held}");
    }

    /// Run 0 "builds" what all share: until it is done every run is
    /// estimated at the whole budget (so run 1 waits for it), after it at 1
    /// (so runs 1 and 2 overlap).
    #[test]
    fn an_estimate_is_asked_when_the_run_is_next_and_may_fall() {
        use std::sync::atomic::AtomicBool;
        let (built, now, peak) = (AtomicBool::new(false), AtomicUsize::new(0), AtomicUsize::new(0));
        let overlapped_run_0 = AtomicBool::new(false);
        run_within(
            3,
            |_| if built.load(Ordering::SeqCst) { 1 } else { 10 },
            Limits { workers: 2, budget: 10 },
            |i| {
                let running = now.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(running, Ordering::SeqCst);
                if i == 0 {
                    std::thread::sleep(Duration::from_millis(30));
                    overlapped_run_0.fetch_or(now.load(Ordering::SeqCst) > 1, Ordering::SeqCst);
                    built.store(true, Ordering::SeqCst);
                } else {
                    std::thread::sleep(Duration::from_millis(30));
                }
                now.fetch_sub(1, Ordering::SeqCst);
            },
            |_| false,
            |_, _| {},
        );
        assert!(!overlapped_run_0.into_inner(), "run 1 started beside run 0");
        assert_eq!(peak.into_inner(), 2, "runs 1 and 2 ran side by side");
    }

    #[test]
    fn serial_runs_one_at_a_time() {
        let (results, peak, _, finished) = observe(&[1, 1, 1], &[5, 1, 1], Limits::SERIAL);
        assert_eq!(results, vec![Some(0), Some(1), Some(2)]);
        assert_eq!((peak, finished), (1, vec![0, 1, 2]));
    }

    #[test]
    fn after_a_failure_no_further_run_starts() {
        let started = Mutex::new(Vec::new());
        let results = run_within(
            4,
            |_| 1,
            Limits::SERIAL,
            |i| {
                started.lock().unwrap().push(i);
                i != 1
            },
            |ok| !ok,
            |_, _| {},
        );
        assert_eq!(started.into_inner().unwrap(), vec![0, 1]);
        assert_eq!(results, vec![Some(true), Some(false), None, None]);
    }
}
