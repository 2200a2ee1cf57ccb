//! Progress on stderr for the long steps, drawn only when stderr is a
//! terminal (so pipes, logs and tests see none): the PAI derived-frame
//! build inside `analyze` (about 20 s at full scale), `synth`, and the
//! byte bars of an ingest (by `ingest`, or inside `report` and the verbs
//! that ingest the bundled samples first); without a terminal, only the
//! notes of a wait for the store's lock. The report's analysis runs are
//! plain lines everywhere ([`Steps`]): one per finished run with a counter
//! that only goes up, and a "still running" line for a long one, so a log
//! of a report run off a terminal shows what it is doing.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use tracelab_ingest::{FileProgress, Progress};

/// Whether to draw progress at all.
pub fn enabled(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A spinner with the elapsed time and `message`, ticking on its own;
/// `None` when progress is off. Cleared when dropped.
pub fn spinner(message: &str, quiet: bool) -> Option<Spinner> {
    if !enabled(quiet) {
        return None;
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("static template"));
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    Some(Spinner(bar))
}

/// A running spinner.
pub struct Spinner(ProgressBar);

impl Spinner {
    pub fn set(&self, message: &str) {
        self.0.set_message(message.to_string());
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// The hooks of the analyses' context: the PAI derived-frame build runs
/// without huge pages (src/main.rs) and, on a terminal, draws its steps.
pub fn analysis_hooks() -> tracelab_analysis::Hooks {
    let around: tracelab_analysis::AroundHook = Arc::new(crate::around_pai_derived_build);
    let mut hooks = tracelab_analysis::Hooks { progress: None, around_build: Some(around) };
    if !enabled(false) {
        return hooks;
    }
    let current: Mutex<Option<Spinner>> = Mutex::new(None);
    hooks.progress = Some(Arc::new(move |step: Option<&str>| {
        let mut current = current.lock().expect("progress");
        match (step, current.as_ref()) {
            (Some(s), Some(spinner)) => spinner.set(s),
            (Some(s), None) => *current = spinner(s, false),
            (None, _) => *current = None,
        }
    }));
    hooks
}

/// Byte bars on stderr when it is a terminal (and not `quiet`), else only
/// the notes of a wait for the store's lock; also the progress of the
/// ingest inside `report`.
pub fn ingest(quiet: bool) -> Arc<dyn Progress> {
    if enabled(quiet) {
        Arc::new(Bars::default())
    } else {
        Arc::new(Notes)
    }
}

/// Ingest progress without bars: only why it waits.
struct Notes;

impl Progress for Notes {
    fn file(&self, _: &str, _: u64) -> Box<dyn FileProgress> {
        Box::new(())
    }

    fn waiting(&self, message: &str) {
        note(message);
    }
}

/// Byte-based progress bars on stderr, one per input file being read.
#[derive(Default)]
struct Bars {
    bars: MultiProgress,
}

impl Progress for Bars {
    fn file(&self, label: &str, bytes: u64) -> Box<dyn FileProgress> {
        let bar = self.bars.add(ProgressBar::new(bytes));
        bar.set_style(
            ProgressStyle::with_template("{msg:30!} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
                .expect("static template")
                .progress_chars("=> "),
        );
        bar.set_message(label.to_string());
        Box::new(Bar(bar))
    }

    fn waiting(&self, message: &str) {
        let _ = self.bars.println(format!("note: {}", tracelab_present::text::neutralize_lines(message)));
    }
}

/// One file's bar; cleared when the file is done.
struct Bar(ProgressBar);

impl FileProgress for Bar {
    fn advance(&mut self, n: u64) {
        self.0.inc(n);
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// A note on stderr, the text (a path, a trace's name) shown escaped.
pub(super) fn note(message: &str) {
    eprintln!("note: {}", tracelab_present::text::neutralize_lines(message));
}

/// A run is "still running" after this long, and again every this long.
const STILL_RUNNING_EVERY: Duration = Duration::from_secs(10);

/// The runs under way (run number -> analysis, start, lines said so far),
/// shared with the thread that says which are still running.
type Running = Arc<Mutex<BTreeMap<usize, (String, Instant, u32)>>>;

/// The report's analysis runs as plain stderr lines (no carriage returns or
/// escape codes, terminal or not): the caller prints a line per finished
/// run; a thread of ours says `still running: ID (N s)` for a run that has
/// taken [`STILL_RUNNING_EVERY`] and again each time that much more passes.
pub struct Steps {
    running: Running,
    stop: Arc<AtomicBool>,
    watcher: Option<JoinHandle<()>>,
}

impl Steps {
    pub fn start() -> Steps {
        let (running, stop): (Running, _) = (Arc::default(), Arc::new(AtomicBool::new(false)));
        let (r, s) = (running.clone(), stop.clone());
        let watcher = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                for (analysis, started, said) in r.lock().expect("running runs").values_mut() {
                    let elapsed = started.elapsed();
                    if elapsed >= STILL_RUNNING_EVERY * (*said + 1) {
                        *said += 1;
                        let line = format!("still running: {analysis} ({} s)", elapsed.as_secs());
                        eprintln!("{}", tracelab_present::text::neutralize_lines(&line));
                    }
                }
            }
        });
        Steps { running, stop, watcher: Some(watcher) }
    }

    /// Notes that run `run` of `analysis` started.
    pub fn started(&self, run: usize, analysis: &str) {
        self.running.lock().expect("running runs").insert(run, (analysis.to_string(), Instant::now(), 0));
    }

    /// Notes that run `run` is over.
    pub fn finished(&self, run: usize) {
        self.running.lock().expect("running runs").remove(&run);
    }
}

impl Drop for Steps {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
    }
}
